#!/bin/sh
# Where connections go, on both transports ([target] connect_to,
# unix_socket, proxy and ip), against brink target and real counterparts:
# - connect_to sends the requests for http://api.test/ to brink target on
#   127.0.0.1 (the target counts them), lines that match nothing are passed
#   over, and nginx logs the Host the requests still name (api.test);
# - unix_socket reaches an nginx that listens on a unix socket only, and a
#   socket that is not there is `refused`, in words that name its path;
# - proxy sends every request through a forward proxy on 127.0.0.1
#   (forward_proxy.py, which counts what it forwarded and wants the
#   password), chooses curl under transport = auto, and the password
#   reaches neither brink check, the report, the progress lines nor the
#   session file, even when the proxy fails;
# - ip = 4 or 6 connects to localhost's address of that family only, with
#   brink target on 127.0.0.1 or on [::1], and a host with no address of
#   that family is `dns`, in words that say so.
# nginx comes from scripts/install-deps; a machine without it, or without
# ::1 on its loopback, fails the test, which never skips.
# Usage: sh test_routing.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"
. "$src/tests/e2e/transport_lib.sh"

need_nginx

target_setup
nginx_pid=""
proxy_pid=""
pid6=""

# Stops what this script started, then does what target_setup's trap does.
cleanup() {
    for p in $nginx_pid $proxy_pid $pid6; do
        kill "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    target_cleanup
}
trap cleanup EXIT

n=10 # requests per run
password=pr0xy-s3cret-pw

# run NAME CONFIG [RUNNER]: a bounded headless run of CONFIG (made mode
# 0600 first), n requests by 2 users, recorded into $tmp/NAME.jsonl (that of
# the last transport removed); report in $tmp/NAME.out, progress in
# $tmp/NAME.err, exit status in $status. RUNNER (in_ns) runs brink.
run() {
    chmod 600 "$2"
    rm -f "$tmp/$1.jsonl"
    ${3:-} timeout 60 "$brink" run --headless --config "$2" --record "$tmp/$1.jsonl" --concurrency 2 \
        --requests $n >"$tmp/$1.out" 2>"$tmp/$1.err" </dev/null
    status=$?
}

# ini NAME KEY=VALUE...: writes $tmp/NAME.ini, a [target] section with the
# transport under test and these keys.
ini() {
    f=$tmp/$1.ini
    shift
    {
        echo "[target]"
        echo "transport = $transport"
        for kv in "$@"; do echo "$kv" | sed 's/=/ = /'; done
    } >"$f"
}

# all_ok NAME RUN: the run exited 0 with no error.
all_ok() {
    if [ "$status" -eq 0 ] && grep -q '^errors: none$' "$tmp/$2.out"; then
        ok "$1"
    else
        not_ok "$1" "exit $status; $(grep -A1 '^errors:' "$tmp/$2.out" | tr '\n' ' ')$(head -c 200 "$tmp/$2.err")"
    fi
}

# all_failed NAME RUN CLASS WORDS: every request of the run failed in CLASS,
# and its first message (in the session file) has WORDS (grep -F).
all_failed() {
    if ! grep -Eq "^  $3 +$n 100\.00%" "$tmp/$2.out"; then
        not_ok "$1" "expected $n $3 errors: $(grep -A1 '^errors:' "$tmp/$2.out" | tr '\n' ' ')"
    elif ! grep -F "first $3 " "$tmp/$2.jsonl" | grep -Fq -- "$4"; then
        not_ok "$1" "the first $3 message lacks \"$4\": $(grep -o "first $3 [^\"]*" "$tmp/$2.jsonl")"
    else
        ok "$1"
    fi
}

# --- brink target on 127.0.0.1, and on [::1] ---------------------------------
must_start_target
port=${url##*:}
"$brink" target --listen '[::1]:0' >"$tmp/target6.out" 2>"$tmp/target6.err" &
pid6=$!
url6=""
i=0
while [ -z "$url6" ] && [ $i -lt 200 ] && kill -0 "$pid6" 2>/dev/null; do
    sleep 0.05
    url6=$(head -n 1 "$tmp/target6.out")
    i=$((i + 1))
done
case $url6 in
"http://[::1]:"*) port6=${url6##*:} ;;
*)
    not_ok "brink target listens on [::1]" "this machine needs ::1 on its loopback: $(cat "$tmp/target6.err")"
    finish
    exit 1
    ;;
esac

# bytes_served: the requests brink target on 127.0.0.1 served at /bytes/N
# (from /metrics with curl and sed: a python3 start costs seconds here).
bytes_served() {
    curl -s "$url/metrics" | sed -n 's/^brink_target_requests_by_endpoint_total{endpoint="bytes"} //p'
}

# --- nginx on a unix socket and on 127.0.0.1, logging each request's Host ------
mkdir -p "$tmp/www" "$tmp/logs"
echo hello >"$tmp/www/file"
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
nginx_port=$(free_port)
closed_port=$(free_port) # nothing listens there
cat >"$tmp/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $tmp/nginx.pid;
error_log $tmp/logs/error.log;
user $(id -un);
events { worker_connections 1024; }
http {
    log_format hosts '\$http_host \$request_uri';
    access_log $tmp/logs/access.log hosts;
    client_body_temp_path $tmp/body;
    proxy_temp_path $tmp/proxy;
    fastcgi_temp_path $tmp/fastcgi;
    uwsgi_temp_path $tmp/uwsgi;
    scgi_temp_path $tmp/scgi;
    server {
        listen unix:$tmp/nginx.sock;
        listen 127.0.0.1:$nginx_port;
        root $tmp/www;
        location / { }
    }
}
EOF
nginx -p "$tmp" -e "$tmp/logs/error.log" -c "$tmp/nginx.conf" 2>"$tmp/nginx.err" &
nginx_pid=$!
i=0
while [ $i -lt 200 ] && ! { [ -S "$tmp/nginx.sock" ] && curl -sf "http://127.0.0.1:$nginx_port/file" >/dev/null 2>&1; }; do
    kill -0 "$nginx_pid" 2>/dev/null || break
    sleep 0.05
    i=$((i + 1))
done
if [ -S "$tmp/nginx.sock" ] && curl -sf --unix-socket "$tmp/nginx.sock" http://x/file >/dev/null; then
    ok "nginx $(nginx -v 2>&1 | sed 's/.*\///') listens on $tmp/nginx.sock and port $nginx_port"
else
    not_ok "nginx listens on a unix socket" "$(cat "$tmp/nginx.err" "$tmp/logs/error.log" 2>/dev/null | tail -n 5)"
    finish
    exit 1
fi

# logged LINE: how many requests nginx logged as "HOST URI".
logged() {
    grep -cFx -- "$1" "$tmp/logs/access.log"
}

# --- the forward proxy ---------------------------------------------------------
python3 "$src/tests/e2e/forward_proxy.py" "$tmp/proxy.port" "$tmp/proxy.log" "user:$password" \
    2>"$tmp/proxy.err" &
proxy_pid=$!
i=0
while [ ! -s "$tmp/proxy.port" ] && [ $i -lt 200 ] && kill -0 "$proxy_pid" 2>/dev/null; do
    sleep 0.05
    i=$((i + 1))
done
proxy_port=$(cat "$tmp/proxy.port" 2>/dev/null)
[ -n "$proxy_port" ] || { not_ok "the forward proxy starts" "$(cat "$tmp/proxy.err")"; finish; exit 1; }
: >"$tmp/proxy.log"

# forwarded LINE: how many requests the proxy logged as LINE.
forwarded() {
    grep -cFx -- "$1" "$tmp/proxy.log"
}

# no_password NAME FILE...: the proxy's password is in none of the files.
no_password() {
    name=$1
    shift
    if grep -l -F -- "$password" "$@" >/dev/null 2>&1; then
        not_ok "$name" "found in $(grep -l -F -- "$password" "$@" | tr '\n' ' ')"
    else
        ok "$name"
    fi
}

# --- a private /etc/hosts for a name with only an IPv4 address ----------------
# As test_localhost does: brink runs in a mount namespace of its own whose
# /etc/hosts names v4only.test; the machine's file is untouched.
printf '127.0.0.1 localhost\n::1 localhost\n127.0.0.1 v4only.test\n' >"$tmp/hosts"
in_ns() {
    # shellcheck disable=SC2016 # expanded by the inner shell
    unshare $ns_flags sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$tmp/hosts" "$@"
}
ns_ok=""
for ns_flags in -m -rm; do
    if command -v unshare >/dev/null 2>&1 && in_ns getent ahosts v4only.test 2>/dev/null | grep -q '^127\.0\.0\.1 '; then
        ns_ok=1
        break
    fi
done

for transport in $transports; do
    # --- connect_to --------------------------------------------------------
    before=$(bytes_served)
    ini connect_to "url=http://api.test/bytes/13" "connect_to=other.test:80:127.0.0.1:1" \
        "connect_to=api.test:81:127.0.0.1:1" "connect_to=API.test:80:127.0.0.1:$port"
    run connect_to "$tmp/connect_to.ini"
    all_ok "connect_to: http://api.test/ reaches brink target on 127.0.0.1:$port, past lines for another host or port" connect_to
    check "connect_to: brink target served the $n requests" $n $(($(bytes_served) - before))

    before=$(bytes_served)
    ini connect_to_none "url=$url/bytes/13" "connect_to=api.test:80:127.0.0.1:1"
    run connect_to_none "$tmp/connect_to_none.ini"
    all_ok "connect_to: a line that matches nothing changes nothing" connect_to_none
    check "connect_to: brink target served those $n requests" $n $(($(bytes_served) - before))

    ini connect_to_host "url=http://api.test:8080/file?$transport" "connect_to=api.test:8080:127.0.0.1:$nginx_port"
    run connect_to_host "$tmp/connect_to_host.ini"
    check "connect_to: nginx on port $nginx_port got $n requests naming Host: api.test:8080" $n \
        "$(logged "api.test:8080 /file?$transport")"

    # --- unix_socket -------------------------------------------------------
    ini unix "url=http://api.test/file?unix-$transport" "unix_socket=$tmp/nginx.sock"
    run unix "$tmp/unix.ini"
    all_ok "unix_socket: every request reaches nginx on $tmp/nginx.sock" unix
    check "unix_socket: nginx got $n requests naming Host: api.test" $n "$(logged "api.test /file?unix-$transport")"

    ini unix_missing "url=http://api.test/file" "unix_socket=$tmp/missing.sock"
    run unix_missing "$tmp/unix_missing.ini"
    all_failed "unix_socket: a socket that is not there is refused, in words that name it" \
        unix_missing refused "$tmp/missing.sock"

    # --- proxy -------------------------------------------------------------
    # h1 does not go through proxies: under its turn, transport = auto.
    via=$transport
    [ "$transport" = h1 ] && via=auto
    before=$(bytes_served)
    {
        echo "[target]"
        echo "transport = $via"
        echo "url = $url/bytes/13?proxy-$via"
        echo "proxy = http://user:$password@127.0.0.1:$proxy_port"
    } >"$tmp/proxy.ini"
    run proxy "$tmp/proxy.ini"
    all_ok "proxy (transport = $via): every request goes through the proxy" proxy
    check "proxy (transport = $via): the proxy forwarded $n requests" $n \
        "$(forwarded "forwarded $url/bytes/13?proxy-$via")"
    check "proxy (transport = $via): brink target served them" $n $(($(bytes_served) - before))
    check "proxy (transport = $via): the run used curl" 1 "$(grep -c '"transport":"curl"' "$tmp/proxy.jsonl")"
    timeout 20 "$brink" check "$tmp/proxy.ini" >"$tmp/proxy_check.out" 2>&1
    check "proxy: brink check shows the proxy's password redacted" 1 \
        "$(grep -c "^proxy = http://user:<redacted len=${#password}>@127.0.0.1:$proxy_port\$" "$tmp/proxy_check.out")"

    # A proxy that refuses the password, and one that is not there.
    sed "s/$password/wrong-$password/" "$tmp/proxy.ini" >"$tmp/proxy_407.ini"
    run proxy_407 "$tmp/proxy_407.ini"
    all_failed "proxy: a proxy that refuses the password is http_4xx" proxy_407 http_4xx "HTTP 407"
    sed "s/:$proxy_port\$/:$closed_port/" "$tmp/proxy.ini" >"$tmp/proxy_closed.ini"
    run proxy_closed "$tmp/proxy_closed.ini"
    all_failed "proxy: a proxy that is not there is refused" proxy_closed refused "port $closed_port"
    no_password "proxy: the password is in no report, progress line or session file" \
        "$tmp/proxy_check.out" "$tmp"/proxy*.out "$tmp"/proxy*.err "$tmp"/proxy*.jsonl

    # --- ip ----------------------------------------------------------------
    for ip in any 4 6; do
        for family in 4 6; do
            p=$port
            [ $family = 6 ] && p=$port6
            ini "ip$ip-$family" "url=http://localhost:$p/bytes/13" "ip=$ip"
            run "ip$ip-$family" "$tmp/ip$ip-$family.ini"
            if [ $ip = any ] || [ $ip = $family ]; then
                all_ok "ip = $ip: localhost reaches brink target on IPv$family only" "ip$ip-$family"
            else
                all_failed "ip = $ip: localhost does not reach brink target on IPv$family only" \
                    "ip$ip-$family" refused "onnect"
            fi
        done
    done

    ini ip6_literal "url=$url/bytes/13" "ip=6"
    run ip6_literal "$tmp/ip6_literal.ini"
    all_failed "ip = 6: http://127.0.0.1 is dns, no IPv6 address" ip6_literal dns "no IPv6 address"
    ini ip4_literal "url=$url6/bytes/13" "ip=4"
    run ip4_literal "$tmp/ip4_literal.ini"
    all_failed "ip = 4: http://[::1] is dns, no IPv4 address" ip4_literal dns "no IPv4 address"

    if [ -z "$ns_ok" ]; then
        not_ok "ip = 6: a name with only IPv4 addresses" "unshare cannot give brink a private /etc/hosts here"
        continue
    fi
    ini ip6_name "url=http://v4only.test:$port/bytes/13" "ip=6"
    run ip6_name "$tmp/ip6_name.ini" in_ns
    all_failed "ip = 6: a name with only IPv4 addresses is dns, no IPv6 address" ip6_name dns "no IPv6 address"
    ini ip4_name "url=http://v4only.test:$port/bytes/13" "ip=4"
    run ip4_name "$tmp/ip4_name.ini" in_ns
    all_ok "ip = 4: that name reaches brink target" ip4_name
done

finish
