# HTTPS and HTTP/2 against a real server: nginx with certificates this test
# makes (tests/tls/lib.sh), on both transports. Trust by ca_file and by
# SSL_CERT_FILE (ca_file winning over it), refusal without it (class tls, the reason named), insecure,
# a client certificate required and given, a wrong name, server_name, an
# expired certificate, a server that sends garbage after its hello, one
# that never answers the hello (a connect_timeout at connect_timeout); and
# HTTP/2 multiplexed and h2c counted against nginx's own log.
# sh test_tls.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/transport_lib.sh"
. "$src/tests/tls/lib.sh"

tmp=$(mktemp -d)
trap 'tls_cleanup; rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/tls"
tls_setup "$tmp/tls" "$src" || exit 1
tls_make_certs && tls_nginx_start && tls_garbage_start hello || exit 1
ca=$tls_dir/ca.pem
unset SSL_CERT_FILE

# run NAME PORT [KEY = VALUE lines...]: a 500 ms run of $users users against
# $scheme://$host:PORT/13 with the transport under test; sets requests,
# errors ("class=N ...", or none) and connects from the session's report.
run() {
    name=$1 port=$2
    shift 2
    d=$tmp/$transport
    mkdir -p "$d"
    {
        printf '[target]\nurl = %s://%s:%s/13\ntransport = %s\ntimeout = 2s\n' \
            "$scheme" "$host" "$port" "$transport"
        for line in "$@"; do printf '%s\n' "$line"; done
        printf '[load]\nconcurrency = %s\nduration = 500ms\n[thresholds]\nfail_on = none\n' "$users"
    } >"$d/$name.ini"
    timeout 60 "$brink" run --headless --config "$d/$name.ini" --record "$d/$name.jsonl" \
        >"$d/$name.out" 2>"$d/$name.err" </dev/null
    status=$?
    "$brink" report --format json "$d/$name.jsonl" >"$d/$name.json" 2>>"$d/$name.err"
    set -- $(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
t = r["total"]
errors = " ".join("%s=%d" % kv for kv in sorted(t["errors"].items()) if kv[1]) or "none"
print(t["requests"], r["connections"]["opened"], errors)
' "$d/$name.json" 2>/dev/null)
    requests=${1:-0}
    connects=${2:--1}
    shift 2 2>/dev/null
    errors="$*"
}

# all_ok NAME: the run made requests and none failed.
all_ok() {
    if [ "$status" -eq 0 ] && [ "$errors" = none ] && [ "$requests" -gt 0 ]; then
        ok "$1 ($requests requests, none failed)"
    else
        not_ok "$1" "exit $status, requests $requests, errors $errors; $(head -c 300 "$d/$name.err")"
    fi
}

# all_class NAME CLASS PATTERN: every request failed with CLASS, and the
# first-error event of the class matches PATTERN (grep -Ei).
all_class() {
    msg=$(grep -h "\] first_error: first $2 " "$d/$name.out" "$d/$name.err" | head -n 1 |
        sed 's/.*first_error: //')
    case "$errors" in
    "$2=$requests")
        if printf '%s' "$msg" | grep -Eqi -- "$3"; then
            ok "$1: every request is $2, saying why ($msg)"
        else
            not_ok "$1: the $2 message names the reason (/$3/)" "got: $msg"
        fi
        ;;
    *) not_ok "$1: every request is $2" "requests $requests, errors $errors; $(head -c 300 "$d/$name.err")" ;;
    esac
}

# logged NAME PORT BEFORE [PATTERN]: nginx logged on PORT (lines matching
# PATTERN) as many requests since BEFORE as brink counted.
logged() {
    tls_access_wait "$2" $(($3 + requests))
    check "$1" "$requests" $(($(tls_access_count "$2" "${4:-.}") - $3))
}

scheme=https
host=127.0.0.1
users=4
for transport in $transports; do
    before=$(tls_access_count "$tls_port_good")
    run trusted "$tls_port_good" "ca_file = $ca"
    all_ok "trusted by ca_file"
    logged "nginx logged every request brink counted" "$tls_port_good" "$before"

    run untrusted "$tls_port_good"
    all_class "no ca_file: the private CA is unknown" tls 'issuer|unknown ca|self.signed|verif'

    run other_ca "$tls_port_good" "ca_file = $tls_dir/other-ca.pem"
    all_class "a ca_file of another CA" tls 'issuer|unknown ca|verif'

    SSL_CERT_FILE=$ca run env_trusted "$tls_port_good"
    all_ok "SSL_CERT_FILE names the trust store when ca_file is unset"

    SSL_CERT_FILE=$ca run env_lost "$tls_port_good" "ca_file = $tls_dir/other-ca.pem"
    all_class "ca_file wins over SSL_CERT_FILE" tls 'issuer|unknown ca|verif'

    run insecure "$tls_port_good" "insecure = yes"
    all_ok "insecure accepts an unknown CA"

    run expired "$tls_port_expired" "ca_file = $ca"
    all_class "an expired certificate" tls 'expired'

    run wrong_name "$tls_port_wrongname" "ca_file = $ca"
    all_class "a certificate for another name" tls 'name|host|match'

    run server_name "$tls_port_wrongname" "ca_file = $ca" "server_name = wrong.example"
    all_ok "server_name is the name checked (wrong.example at 127.0.0.1)"

    host=api.test
    run routed "$tls_port_good" "ca_file = $ca" "server_name = localhost" \
        "connect_to = api.test:$tls_port_good:127.0.0.1:$tls_port_good"
    host=127.0.0.1
    all_ok "server_name with a connect_to line for the URL's host (api.test, nowhere in DNS)"

    run no_client_cert "$tls_port_client" "ca_file = $ca"
    all_class "a server that requires a client certificate, none given" http_4xx '400'

    run client_cert "$tls_port_client" "ca_file = $ca" "client_cert = $tls_dir/client.pem" \
        "client_key = $tls_dir/client.key"
    all_ok "client_cert and client_key given"

    run garbage "$tls_port_garbage" "ca_file = $ca"
    all_class "garbage after the server's hello" tls '.'

    run resumed "$tls_port_good" "ca_file = $ca" "keepalive = no"
    all_ok "keepalive = no: a handshake per request"
    if [ "$connects" -ge "$requests" ]; then
        ok "keepalive = no: one new connection per request ($connects for $requests)"
    else
        not_ok "keepalive = no: one new connection per request" "$connects for $requests"
    fi
done

# A handshake the server never answers is part of the connect, on both
# transports (libcurl's own connect timeout counts it too): with
# connect_timeout = 1s and timeout = 5s it is a connect_timeout, ended by
# the connect's timer, before the request's could have fired.
tls_garbage_stop
tls_garbage_start silent || exit 1
for transport in $transports; do
    printf '[target]\ntransport = %s\nconnect_timeout = 1s\ntimeout = 5s\nca_file = %s\n' \
        "$transport" "$ca" >"$tmp/stall_$transport.ini"
    headless_run "stall_$transport" "$tmp/stall_$transport.ini" \
        --url "https://127.0.0.1:$tls_port_garbage/13" --requests 3 --concurrency 1
    if [ "$transport" = curl ]; then
        words="no answer to the connect (curl 28: SSL connection timeout)"
    else
        words="no answer to the connect (h1: TLS handshake not done within 1"
    fi
    run_failed_as "stall_$transport" connect_timeout "$words"
    max_ms=$(failed_max_ms "stall_$transport")
    if [ "$max_ms" -ge 0 ] && [ "$max_ms" -lt 5000 ]; then
        ok "stall: ended by connect_timeout's timer, before timeout's (the longest took $max_ms ms)"
    else
        not_ok "stall: ended by connect_timeout's timer, before timeout's" "the longest took $max_ms ms"
    fi
done

# HTTP/2 on both transports: 64 users on streams of 10 share their
# connections: 7 where connects are quick (curl caps them at in flight /
# streams, rounded up; h1 opens one when none has a free stream), fewer
# where the connect budget holds them back (a slow build: users wait for a
# free stream instead), never one per user.
for transport in $transports; do
    scheme=https
    users=64
    before=$(tls_access_count "$tls_port_good" 'HTTP/2.0')
    run h2 "$tls_port_good" "ca_file = $ca" "http_version = 2" "streams = 10"
    all_ok "http_version = 2, streams = 10, 64 users"
    check "h2: the report names the version" "HTTP version: h2 ($transport transport)" \
        "$(grep -m 1 '^HTTP version:' "$d/h2.out")"
    logged "h2: nginx logged every request as HTTP/2.0" "$tls_port_good" "$before" 'HTTP/2.0'
    if [ "$connects" -ge 1 ] && [ "$connects" -le 14 ]; then
        ok "h2: 64 users on streams of 10 share $connects connections (at most 14)"
    else
        not_ok "h2: 64 users on streams of 10 share at most 14 connections" "connects: $connects"
    fi

    # A scenario's requests over HTTP/2 follow nginx's redirect and send
    # the cookie it set back: a 403 from /cookie or an unfollowed 302 would
    # fail (expect = 200).
    cat >"$tmp/app.lua" <<'EOF'
function iteration(user)
    local r = brink.request{url = "/redirect", name = "redirect"}
    brink.check(r.body == "hello, world\n", "followed to /13")
    brink.request{url = "/cookie", name = "cookie"}
end
EOF
    users=4
    before=$(tls_access_count "$tls_port_good" '^[0-9]+ 200 HTTP/2.0 .*"GET /cookie ')
    run h2_app "$tls_port_good" "ca_file = $ca" "http_version = 2" "streams = 4" "cookies = yes" \
        "follow_redirects = 1" "expect = 200" "[scenario]" "script = $tmp/app.lua"
    all_ok "h2: a scenario follows a redirect and sends its cookie back"
    line=$(grep -m 1 'check:followed to /13:' "$d/h2_app.out")
    if printf '%s\n' "$line" | grep -Eq '^  check:followed to /13: passed [1-9][0-9,]*, failed 0$'; then
        ok "h2_app: the scenario's check passed and no reply failed it ($line)"
    else
        not_ok "h2_app: the scenario's check passed and no reply failed it" "got \"$line\""
    fi
    if [ "$(tls_access_count "$tls_port_good" '^[0-9]+ 200 HTTP/2.0 .*"GET /cookie ')" -gt "$before" ]; then
        ok "h2_app: nginx answered /cookie with 200 over HTTP/2"
    else
        not_ok "h2_app: nginx answered /cookie with 200 over HTTP/2" "$(tail -n 3 "$tls_access_log")"
    fi

    # A server without HTTP/2 picks http/1.1 by ALPN: every request goes
    # as HTTP/1.1, and h1 says once which version was picked.
    users=8
    before=$(tls_access_count "$tls_port_tls12" 'HTTP/1.1')
    run alpn_h1 "$tls_port_tls12" "ca_file = $ca" "http_version = 2" "streams = 10"
    all_ok "http_version = 2 where the server speaks HTTP/1.1 only"
    logged "alpn_h1: nginx logged every request as HTTP/1.1" "$tls_port_tls12" "$before" 'HTTP/1.1'
    if [ "$transport" = h1 ]; then
        check "alpn_h1: one event says the server picked http/1.1" 1 \
            "$(grep -c 'the server picked http/1.1 by ALPN' "$d/alpn_h1.out")"
    fi

    users=4
    scheme=http
    before=$(tls_access_count "$tls_port_h2c" 'HTTP/2.0')
    run h2c "$tls_port_h2c" "http_version = h2c"
    all_ok "h2c: HTTP/2 without TLS"
    logged "h2c: nginx logged every request as HTTP/2.0" "$tls_port_h2c" "$before" 'HTTP/2.0'
done

finish
