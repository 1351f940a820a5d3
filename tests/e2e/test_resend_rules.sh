#!/bin/sh
# Which requests are sent again after a close that crossed them, and the
# class of those that are not, on both transports, against servers that
# close a kept-alive connection on its second request; the requests each
# server read are the ground truth (docs/config.md, "Requests sent again"):
# - HTTP/1.1 (h1_close_server.py), plain and over TLS offering only
#   http/1.1 to a client configured for HTTP/2: a GET goes again
#   (closed_idle), a POST fails as closed_early and is not sent again,
#   and with --no-retry a GET fails as closed_early;
# - HTTP/2 in TLS (h2_fault_server.py fin_second*): the same rule for a
#   stream that got nothing of its reply when the server closed the
#   connection (a FIN, after a GOAWAY naming it or none); one that got its
#   reply's HEADERS fails as closed_early whatever its method; a refused
#   stream (REFUSED_STREAM) goes again whatever its method.
# Each run is one user and 6 requests, every second one on a connection
# crossed by its close.
# Usage: sh test_resend_rules.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"

command -v python3 >/dev/null 2>&1 || { echo "FAIL python3 is missing: run scripts/install-deps"; exit 1; }
command -v openssl >/dev/null 2>&1 || { echo "FAIL openssl is missing: run scripts/install-deps"; exit 1; }
tmp=$(mktemp -d)
server_pid=""
stop_server() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    server_pid=""
}
trap 'stop_server; [ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
    -keyout "$tmp/key.pem" -out "$tmp/cert.pem" >"$tmp/openssl.err" 2>&1 ||
    { echo "FAIL openssl could not make a certificate: $(cat "$tmp/openssl.err")"; exit 1; }

# start SCRIPT ARGS...: the server tests/e2e/SCRIPT, its URL in $url; the
# lines it logs (one a request) in $tmp/server.log.
start() {
    stop_server
    script=$1
    shift
    : >"$tmp/server.log"
    : >"$tmp/server.url"
    H1_CLOSE_LOG=$tmp/server.log H2_FAULT_LOG=$tmp/server.log \
        python3 "$src/tests/e2e/$script" "$@" >"$tmp/server.url" 2>"$tmp/server.err" &
    server_pid=$!
    url=$(wait_port "$tmp/server.url" "$server_pid" "$script" "$tmp/server.err")
}

# run NAME TRANSPORT METHOD [KEY = VALUE lines...] [-- OPTION...]: 6
# requests of one user to $url, recorded; the server's requests read in
# $seen, brink's figures in $got: "errors CLASS=N... sent again
# closed_idle=N refused_stream=N".
run() {
    name=$1 transport=$2 method=$3
    shift 3
    : >"$tmp/server.log"
    printf '[target]\nurl = %s\ntransport = %s\ntimeout = 5s\n' "$url" "$transport" >"$tmp/$name.ini"
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        printf '%s\n' "$1" >>"$tmp/$name.ini"
        shift
    done
    [ $# -gt 0 ] && shift
    set -- --method "$method" "$@"
    [ "$method" = POST ] && set -- --body x "$@"
    headless_run "$name" "$tmp/$name.ini" --requests 6 --concurrency 1 \
        --record "$tmp/$name.jsonl" "$@"
    seen=$(grep -vc '^rst ' "$tmp/server.log")
    got=$("$brink" report "$tmp/$name.jsonl" --format json 2>"$tmp/$name.report.err" | python3 -c '
import json, sys
r = json.load(sys.stdin)
errors = " ".join("%s=%d" % kv for kv in sorted(r["total"]["errors"].items()) if kv[1])
print("errors", errors or "none", "sent again closed_idle=%d refused_stream=%d"
      % (r["resent"]["closed_idle"], r["resent"]["refused_stream"]))')
}

# expect NAME SEEN GOT: the server read SEEN requests, brink's figures GOT.
expect() {
    check "$1: the server read $2 requests" "$2" "$seen"
    check "$1: $3" "$3" "$got"
}

again_get="errors none sent again closed_idle=5 refused_stream=0"
failed_3="errors closed_early=3 sent again closed_idle=0 refused_stream=0"

for transport in h1 curl; do
    start h1_close_server.py
    run "post-$transport" "$transport" POST
    expect "HTTP/1.1 $transport: a POST is not sent again" 6 "$failed_3"
    run "get-$transport" "$transport" GET
    expect "HTTP/1.1 $transport: a GET is sent again" 11 "$again_get"
    run "noretry-$transport" "$transport" GET -- --no-retry
    expect "HTTP/1.1 $transport: --no-retry sends nothing again" 6 "$failed_3"

    # HTTP/2 asked for, HTTP/1.1 given (ALPN): the connection's rule.
    start h1_close_server.py "$tmp/cert.pem" "$tmp/key.pem"
    run "tls-post-$transport" "$transport" POST "http_version = 2" "insecure = yes"
    expect "HTTP/1.1 in TLS for http_version = 2, $transport: a POST is not sent again" 6 "$failed_3"
    run "tls-get-$transport" "$transport" GET "http_version = 2" "insecure = yes"
    expect "HTTP/1.1 in TLS for http_version = 2, $transport: a GET is sent again" 11 "$again_get"

    # libcurl 7.88 does not reuse an h2c connection: HTTP/2 in TLS here.
    h2="http_version = 2"
    start h2_fault_server.py fin_second "$tmp/cert.pem" "$tmp/key.pem"
    run "h2-get-$transport" "$transport" GET "$h2" "insecure = yes"
    expect "HTTP/2 FIN $transport: a GET that got nothing is sent again" 11 "$again_get"
    run "h2-post-$transport" "$transport" POST "$h2" "insecure = yes"
    expect "HTTP/2 FIN $transport: a POST that got nothing is not sent again" 6 "$failed_3"

    start h2_fault_server.py fin_second_goaway "$tmp/cert.pem" "$tmp/key.pem"
    run "h2-goaway-$transport" "$transport" GET "$h2" "insecure = yes"
    expect "HTTP/2 GOAWAY naming it, then FIN, $transport: a GET that got nothing is sent again" \
        11 "$again_get"

    start h2_fault_server.py fin_second_head "$tmp/cert.pem" "$tmp/key.pem"
    run "h2-head-$transport" "$transport" GET "$h2" "insecure = yes"
    expect "HTTP/2 FIN $transport: a GET that got its HEADERS is not sent again" 6 "$failed_3"

    start h2_fault_server.py refuse "$tmp/cert.pem" "$tmp/key.pem"
    run "h2-refuse-$transport" "$transport" POST "$h2" "insecure = yes"
    expect "HTTP/2 REFUSED_STREAM $transport: a POST is sent again" 12 \
        "errors closed_early=6 sent again closed_idle=0 refused_stream=6"
done
stop_server
finish
