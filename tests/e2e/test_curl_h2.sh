#!/bin/sh
# HTTP/2 on the curl transport. Against nginx: http_version = 2 with
# streams = 10 at 64 users completes every request over at most 7
# connections, and nginx logs as many HTTP/2 requests as brink counts;
# h2c reaches a plain "listen ... http2". Against a small HTTP/2 server
# (h2_fault_server.py): a stream reset, refused or left out by a GOAWAY
# lands in the class docs/config.md says, and a stream the server never
# processed is sent again.
# Usage: sh test_curl_h2.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/nginx_tls_lib.sh"

tls_setup
make_ca
make_cert good "DNS:localhost,IP:127.0.0.1"
start_nginx "
    server { listen 127.0.0.1:PORT_A ssl http2; ssl_certificate TMP/good.pem; ssl_certificate_key TMP/good.key; }
    server { listen 127.0.0.1:PORT_B http2; }
"

conf() {
    name=$1
    shift
    printf '[target]\ntransport = curl\nconnect_timeout = 3s\ntimeout = 5s\n' >"$tmp/$name.ini"
    for line in "$@"; do
        printf '%s\n' "$line" >>"$tmp/$name.ini"
    done
}

ok_run() {
    if [ "$status" -eq 0 ] && [ "$(errors_line "$1")" = "errors: none" ]; then
        ok "$1: every request ok"
    else
        not_ok "$1: every request ok" "exit $status; $(errors_line "$1"); $(head -c 400 "$tmp/$1.err")"
    fi
}

requests_of() {
    sed -n 's/^duration [^,]*, \([0-9,]*\) requests.*/\1/p' "$tmp/$1.out" | tr -d ,
}

# --- HTTP/2 over TLS, 10 streams a connection ----------------------------------
: >"$tmp/access.log"
conf h2 "ca_file = $tmp/ca.pem" "http_version = 2" "streams = 10"
# shellcheck disable=SC2154 # set by start_nginx
run h2 "$tmp/h2.ini" --url "https://127.0.0.1:$port_a/13" --requests 3000 --concurrency 64 --threads 1
ok_run h2
check "h2: brink counted 3000 requests" "3000" "$(requests_of h2)"
check "h2: nginx logged as many HTTP/2 requests" "3000" \
    "$(awk '$2 == "HTTP/2.0"' "$tmp/access.log" | wc -l)"
conns=$(awk '{ print $1 }' "$tmp/access.log" | sort -u | wc -l)
if [ "$conns" -ge 1 ] && [ "$conns" -le 7 ]; then
    ok "h2: 64 users over at most 64/10 rounded up connections ($conns)"
else
    not_ok "h2: 64 users over at most 64/10 rounded up connections" "nginx saw $conns connections"
fi
check "h2: the report names the version" "HTTP version: h2 (curl transport)" \
    "$(grep -m 1 '^HTTP version:' "$tmp/h2.out")"

# --- h2c: HTTP/2 from the first byte, no TLS -----------------------------------
: >"$tmp/access.log"
conf h2c "http_version = h2c"
# shellcheck disable=SC2154
run h2c "$tmp/h2c.ini" --url "http://127.0.0.1:$port_b/13" --requests 50 --concurrency 4
ok_run h2c
check "h2c: nginx logged 50 HTTP/2 requests" "50" \
    "$(awk '$2 == "HTTP/2.0"' "$tmp/access.log" | wc -l)"

# --- how streams that end without a reply are counted ----------------------------
fault_pid=""
stop_fault() {
    if [ -n "$fault_pid" ]; then
        kill "$fault_pid" 2>/dev/null
        wait "$fault_pid" 2>/dev/null
    fi
    fault_pid=""
}
trap 'stop_fault; tls_cleanup' EXIT

# fault MODE: a run of 3 requests, one user, against h2_fault_server.py
# MODE; streams the server saw in $seen.
fault() {
    stop_fault
    : >"$tmp/fault.log"
    : >"$tmp/fault.url"
    H2_FAULT_LOG=$tmp/fault.log python3 "$src/tests/e2e/h2_fault_server.py" "$1" >"$tmp/fault.url" &
    fault_pid=$!
    i=0
    while [ ! -s "$tmp/fault.url" ] && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    conf "$1" "http_version = h2c"
    run "$1" "$tmp/$1.ini" --url "$(cat "$tmp/fault.url")" --requests 3 --concurrency 1
    stop_fault
    seen=$(wc -l <"$tmp/fault.log")
}

# failed_as NAME CLASS WORDS: all 3 requests failed in CLASS, saying WORDS.
failed_as() {
    first=$(first_error "$1" "$2")
    if [ "$(errors_line "$1" | cut -c 1-23)" = "errors: 3 of 3 requests" ] &&
        [ -n "$(error_row "$1" "$2")" ] && printf '%s' "$first" | grep -q -- "$3"; then
        ok "$1: class $2, saying \"$3\""
    else
        not_ok "$1: class $2, saying \"$3\"" "$(errors_line "$1"); first: $first"
    fi
}

fault reset
failed_as reset reset "stream reset by the server (curl 92: HTTP/2 stream 1 was not closed cleanly: INTERNAL_ERROR"
check "reset: a reset stream is not sent again" "3" "$seen"

fault refuse
failed_as refuse closed_early "Connection died, tried 5 times"
check "refuse: libcurl sends a refused stream 5 more times, then it counts" "18" "$seen"

fault refuse_first
ok_run refuse_first
check "refuse_first: the refused stream was sent again" "4" "$seen"

fault goaway
failed_as goaway closed_early "not closed cleanly before end of the underlying stream"
check "goaway: a stream the GOAWAY names as processed is not sent again" "3" "$seen"

fault goaway_all
failed_as goaway_all closed_early "GOAWAY"
check "goaway_all: a stream the GOAWAY left out is sent again once" "6" "$seen"

fault goaway_first
ok_run goaway_first
check "goaway_first: the stream the GOAWAY left out was sent again" "4" "$seen"

finish
