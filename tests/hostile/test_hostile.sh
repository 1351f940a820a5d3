#!/bin/sh
# Hostile servers (tests/hostile/server.py), each run through both transports
# (libcurl's and brink's own HTTP/1.1 client): broken framing, endless heads,
# control bytes, resets, stalls, escape sequences, a large reply. For each
# case both transports must put every failure in the same error class (or
# count none), with a first message that names the problem; escape
# sequences from the server never reach stdout or stderr raw; memory stays
# bounded. Each run lasts 1 s at 2 users with a 500 ms timeout.
# Usage: sh test_hostile.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/transport_lib.sh"

# Under ASan, freed memory waits in a quarantine (256 MB by default) before
# it is reused, which a memory bound would count as brink's: keep it small.
# A release build ignores the variable.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=4"
export ASAN_OPTIONS

tmp=$(mktemp -d)
server_pid=""
trap 'stop_server; rm -rf "$tmp"' EXIT INT TERM

stop_server() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
        server_pid=""
    fi
}

# start_server CASE: the hostile server for CASE; its port in $port.
start_server() {
    rm -f "$tmp/port"
    python3 "$src/tests/hostile/server.py" "$1" "$tmp/port" &
    server_pid=$!
    for _ in $(seq 100); do
        [ -s "$tmp/port" ] && break
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    port=$(cat "$tmp/port" 2>/dev/null)
}

# run_case CASE: a bounded run against the case's server on $transport; the
# report in $d/CASE.out, stderr in $d/CASE.err, the JSON report's error
# counts ("class=N ...", non-zero only) in $errors, completed requests in
# $requests, peak RSS in KiB in $rss_kib.
run_case() {
    d=$tmp/$transport
    mkdir -p "$d"
    printf '[target]\nurl = http://127.0.0.1:%s/\ntransport = %s\ntimeout = 500ms\n[load]\nconcurrency = 2\nduration = 1s\n[thresholds]\nfail_on = none\n' \
        "$port" "$transport" >"$d/$1.ini"
    /usr/bin/time -f %M -o "$d/$1.rss" timeout 60 "$brink" run --headless --config "$d/$1.ini" \
        --record "$d/$1.jsonl" >"$d/$1.out" 2>"$d/$1.err" </dev/null
    status=$?
    rss_kib=$(tail -n 1 "$d/$1.rss")
    "$brink" report --format json "$d/$1.jsonl" >"$d/$1.json" 2>>"$d/$1.err"
    set -- $(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["total"]
print(t["requests"], " ".join("%s=%d" % kv for kv in sorted(t["errors"].items()) if kv[1]) or "none")
' "$d/$1.json" 2>/dev/null)
    requests=${1:-0}
    shift
    errors="$*"
}

# first_message CLASS CASE: the report's first message of CLASS.
first_message() {
    sed -n "s/^  $1 *[0-9,]* *[0-9.]*%  //p" "$d/$2.out" | head -n 1
}

# only_class CASE CLASS: every failure of the run is CLASS, and there is one.
only_class() {
    case "$errors" in
    "$2="[0-9]*)
        case "$errors" in
        *" "*) not_ok "$1: every failure is $2" "errors: $errors" ;;
        *) ok "$1: every failure is $2 ($errors of $requests)" ;;
        esac
        ;;
    *) not_ok "$1: every failure is $2" "errors: $errors; exit $status; $(head -c 300 "$d/$1.err")" ;;
    esac
}

# named CASE CLASS PATTERN: the class's first message matches PATTERN (grep -E).
named() {
    msg=$(first_message "$2" "$1")
    if printf '%s' "$msg" | grep -Eqi -- "$3"; then
        ok "$1: the message names the problem ($msg)"
    else
        not_ok "$1: the message names the problem (/$3/)" "got: $msg"
    fi
}

suite() {
    for c in bad_chunk huge_chunk dup_length length_and_chunked ctl_header garbage; do
        start_server "$c"
        run_case "$c"
        stop_server
        only_class "$c" malformed
    done
    named bad_chunk malformed 'chunk|hexadecimal'
    named huge_chunk malformed 'chunk'
    named dup_length malformed 'content-length'
    named length_and_chunked malformed 'content-length|chunked|transfer-encoding'
    named ctl_header malformed 'header'

    for c in many_headers endless_header endless_continue; do
        start_server "$c"
        run_case "$c"
        stop_server
        only_class "$c" malformed
        if [ "${rss_kib:-999999}" -lt 65536 ]; then
            ok "$c: memory stays bounded (${rss_kib} KiB)"
        else
            not_ok "$c: memory stays bounded" "peak RSS ${rss_kib} KiB"
        fi
    done
    named many_headers malformed 'head|header'
    named endless_header malformed 'head|header'
    named endless_continue malformed '1xx|interim|continue|header'
    if grep -qi 'out of memory' "$d/endless_header.out" "$d/endless_header.err"; then
        not_ok "endless_header: no 'out of memory' (brink did not run out)" "$(grep -i 'out of memory' "$d/endless_header.out" | head -n 1)"
    else
        ok "endless_header: no 'out of memory' (brink did not run out)"
    fi

    start_server close_after_reply
    run_case close_after_reply
    stop_server
    check "close_after_reply: a server closing after each reply costs no request" none "$errors"
    if [ "${requests:-0}" -gt 10 ]; then
        ok "close_after_reply: the run made requests ($requests)"
    else
        not_ok "close_after_reply: the run made requests" "requests: $requests"
    fi

    start_server empty
    run_case empty
    stop_server
    only_class empty closed_early
    start_server partial_body
    run_case partial_body
    stop_server
    only_class partial_body closed_early
    start_server reset
    run_case reset
    stop_server
    only_class reset reset
    start_server stall
    run_case stall
    stop_server
    only_class stall timeout

    start_server escapes
    run_case escapes
    stop_server
    only_class escapes http_5xx
    # ESC, BEL, the C1 CSI (0x9b) and U+202E (e2 80 ae) never leave raw.
    if LC_ALL=C grep -qP '[\x07\x1b\x9b]|\xe2\x80\xae' "$d/escapes.out" "$d/escapes.err"; then
        not_ok "escapes: no raw control sequence in the output" "$(od -c "$d/escapes.out" | head -n 3)"
    else
        ok "escapes: no raw control sequence in the output"
    fi

    start_server big_reply
    run_case big_reply
    stop_server
    check "big_reply: 64 MiB replies are no error" none "$errors"
    if [ "${rss_kib:-999999}" -lt 65536 ]; then
        ok "big_reply: memory stays bounded (${rss_kib} KiB)"
    else
        not_ok "big_reply: memory stays bounded" "peak RSS ${rss_kib} KiB"
    fi
}

for transport in $transports; do
    suite
done
finish
