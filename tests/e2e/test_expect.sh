#!/bin/sh
# [target] expect and [request NAME] expect against brink target, on both
# transports (libcurl's and brink's own HTTP/1.1 client, each forced with
# [target] transport = T): GETs of keys the KV store does not hold answer
# 404, which is an http_4xx error by default and no error at all when 404 is
# expected; a 200 that is not expected is unexpected_status, named with the
# status and the set in its message, in the report, the session file and
# the JSON and CSV reports. Every response is still counted by status, a
# broken one too: a reply whose status line came whole, then a header line
# that breaks it (brink target's hostile_header and huge_header), is
# malformed and counted as the 200 the server sent, on both transports.
# Usage: sh test_expect.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup

. "$src/tests/e2e/transport_lib.sh"

# expect_run_config NAME: a bounded headless run of $d/NAME.ini, recorded
# into $d/NAME.jsonl; report in $d/NAME.out, exit status in $status. $d is
# the transport's own directory.
expect_run_config() {
    timeout 60 "$brink" run --headless --config "$d/$1.ini" --requests 40 --concurrency 2 \
        --record "$d/$1.jsonl" >"$d/$1.out" 2>"$d/$1.err" </dev/null
    status=$?
    [ "$status" -eq 0 ] || cat "$d/$1.err" >&2
}

# errors NAME CLASS: the count of one error class in a report (0 if absent).
errors() {
    n=$(sed -n "s/^  $2 *\([0-9,]*\) .*/\1/p" "$d/$1.out" | head -n 1 | tr -d ,)
    echo "${n:-0}"
}

# ran_on NAME: 1 when every tick of the session names $transport.
ran_on() {
    ticks=$(grep -c '"type":"tick"' "$d/$1.jsonl")
    on=$(grep -c "\"type\":\"tick\".*\"transport\":\"$transport\"" "$d/$1.jsonl")
    [ "$ticks" -gt 0 ] && [ "$ticks" -eq "$on" ] && echo 1 || echo 0
}

suite() {
    d=$tmp/$transport
    mkdir -p "$d"
    # The store is empty: every GET of a key is a 404.
    printf '[target]\nurl = %s/kv/never-written\ntransport = %s\n' "$url" "$transport" >"$d/plain.ini"
    expect_run_config plain
    check "a run of missing keys fails the default error_rate > 1% (exit 3)" 3 "$status"
    check "it ran on the $transport transport" 1 "$(ran_on plain)"
    check "without expect a missing key is an http_4xx error" 40 "$(errors plain http_4xx)"
    check "and its 404s are counted by status" 1 "$(grep -c '^HTTP statuses: 404=40$' "$d/plain.out")"

    printf '[target]\nurl = %s/kv/never-written\ntransport = %s\nexpect = 200, 404\n' "$url" "$transport" >"$d/expected.ini"
    expect_run_config expected
    check "a run expecting 404 exits 0" 0 "$status"
    check "it ran on the $transport transport" 1 "$(ran_on expected)"
    check "with expect = 200, 404 a missing key is no error" 1 "$(grep -c '^errors: none$' "$d/expected.out")"
    check "its 404s are still counted by status" 1 "$(grep -c '^HTTP statuses: 404=40$' "$d/expected.out")"

    # A request kind overrides [target] expect: the kind expecting only 404
    # gets 200s, which are neither 4xx nor 5xx.
    cat >"$d/kinds.ini" <<INI
[target]
url = $url
transport = $transport
expect = 200, 404

[request missing]
url = /kv/never-written

[request present]
url = /bytes/13
expect = 404
INI
    expect_run_config kinds
    present=$(sed -n 's/^kind present: \([0-9,]*\) requests.*/\1/p' "$d/kinds.out" | tr -d ,)
    check "it ran on the $transport transport" 1 "$(ran_on kinds)"
    check_ge "some requests went to the kind expecting 404" 1 "$present"
    check "every 200 not expected is unexpected_status" "$present" "$(errors kinds unexpected_status)"
    check "the kind expecting 200, 404 has no http_4xx" 0 "$(errors kinds http_4xx)"
    check "the message names the status and the expected set" 1 \
        "$(grep -c '^  unexpected_status .*  status 200, expected 404$' "$d/kinds.out")"
    check "the session file counts the class by name" 1 \
        "$(grep -q '"errors":{"unexpected_status":' "$d/kinds.jsonl" && echo 1 || echo 0)"
    "$brink" report "$d/kinds.jsonl" --format json >"$d/kinds.json" 2>/dev/null
    check "the JSON report lists the class" "$present" \
        "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["total"]["errors"]["unexpected_status"])' "$d/kinds.json")"
    "$brink" report "$d/kinds.jsonl" --format csv >"$d/kinds.csv" 2>/dev/null
    check "the CSV report has a column for the class" 1 "$(head -n 1 "$d/kinds.csv" | grep -c ',err_unexpected_status,')"

    # The status line said 200, then a header line broke the reply.
    for fault in hostile_header huge_header; do
        key=$( [ "$fault" = huge_header ] && echo huge_headers_sent || echo hostile_sent)
        before=$(truth "$key")
        printf '[target]\nurl = %s/bytes/13\ntransport = %s\nheader = X-Brink-Fault: %s\n' \
            "$url" "$transport" "$fault" >"$d/$fault.ini"
        expect_run_config "$fault"
        sent=$(($(truth "$key") - before))
        check "$fault: the target sent it to each of the 40 requests" 40 "$sent"
        check "$fault: each is malformed" "$sent" "$(errors "$fault" malformed)"
        check "$fault: each is counted as the 200 its status line said" 1 \
            "$(grep -c "^HTTP statuses: 200=$sent\$" "$d/$fault.out")"
    done
}

must_start_target --listen 127.0.0.1:0 --seed 7
for transport in $transports; do
    suite
done
stop_target
finish
