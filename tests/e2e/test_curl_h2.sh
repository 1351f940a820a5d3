#!/bin/sh
# HTTP/2 on both transports against a small HTTP/2 server
# (h2_fault_server.py): a stream reset, refused or left out by a GOAWAY
# lands in the class docs/config.md says, and a stream the server never
# processed is sent again (by libcurl up to 5 times for a refused stream,
# by h1 once). HTTP/2 and h2c against nginx are checked by test_tls.sh.
# Usage: sh test_curl_h2.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/transport_lib.sh"

command -v python3 >/dev/null 2>&1 || { echo "FAIL python3 is missing: run scripts/install-deps"; exit 1; }
tmp=$(mktemp -d)
fault_pid=""
stop_fault() {
    if [ -n "$fault_pid" ]; then
        kill "$fault_pid" 2>/dev/null
        wait "$fault_pid" 2>/dev/null
    fi
    fault_pid=""
}
trap 'stop_fault; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# --- how streams that end without a reply are counted ----------------------------
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
    curl_conf "$1" "http_version = h2c"
    sed -i "s/^transport = curl\$/transport = $transport/" "$tmp/$1.ini"
    headless_run "$1" "$tmp/$1.ini" --url "$(cat "$tmp/fault.url")" --requests 3 --concurrency 1
    stop_fault
    seen=$(wc -l <"$tmp/fault.log")
}

for transport in $transports; do
    fault reset
    case $transport in
    curl) said="stream reset by the server (curl 92: HTTP/2 stream 1 was not closed cleanly: INTERNAL_ERROR" ;;
    h1) said="stream reset by the server (h1: HTTP/2 stream reset by the server: INTERNAL_ERROR" ;;
    esac
    run_failed_as reset reset "$said"
    check "reset: a reset stream is not sent again" "3" "$seen"

    fault refuse
    case $transport in
    curl)
        run_failed_as refuse closed_early "Connection died, tried 5 times"
        check "refuse: libcurl sends a refused stream 5 more times, then it counts" "18" "$seen"
        ;;
    h1)
        run_failed_as refuse closed_early "REFUSED_STREAM"
        check "refuse: h1 sends a refused stream once more, then it counts" "6" "$seen"
        ;;
    esac

    fault refuse_first
    run_ok refuse_first
    check "refuse_first: the refused stream was sent again" "4" "$seen"

    fault goaway
    case $transport in
    curl) said="not closed cleanly before end of the underlying stream" ;;
    h1) said="GOAWAY" ;;
    esac
    run_failed_as goaway closed_early "$said"
    check "goaway: a stream the GOAWAY names as processed is not sent again" "3" "$seen"

    fault goaway_all
    run_failed_as goaway_all closed_early "GOAWAY"
    check "goaway_all: a stream the GOAWAY left out is sent again once" "6" "$seen"

    fault goaway_first
    run_ok goaway_first
    check "goaway_first: the stream the GOAWAY left out was sent again" "4" "$seen"
done

finish
