#!/bin/sh
# brink report --merge (issue 20: sessions recorded apart, read as one run).
# Two headless runs load one brink target at the same time, each recording
# its own session, as two load machines would:
#   1. the merged report counts every request the target answered (its
#      ground truth), the sum of the two sessions' counts, in text and JSON
#   2. the longer session's last ticks are merged without the other, and
#      stderr says from where; the CSV has one row per tick of the longer
#   3. two files without --merge: exit 2, naming --merge; a session of
#      another tick length or another load model: exit 1, one line saying
#      which file and why
# Loads are bounded (3 s and 2 s, then 1 s runs); no check asserts a time.
# Usage: sh test_report_merge.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup
must_start_target --listen 127.0.0.1:0

# total FILE...: the merged JSON report's request count.
total() {
    "$brink" report --format json "$@" | python3 -c 'import json, sys; print(json.load(sys.stdin)["total"]["requests"])'
}

timeout 60 "$brink" run --headless --url "$url/bytes/100" --concurrency 3 --duration 3s \
    --record "$tmp/a.jsonl" </dev/null >"$tmp/a.out" 2>"$tmp/a.err" &
a_pid=$!
timeout 60 "$brink" run --headless --url "$url/delay/10" --concurrency 5 --duration 2s \
    --record "$tmp/b.jsonl" </dev/null >"$tmp/b.out" 2>"$tmp/b.err"
b_status=$?
wait "$a_pid"
a_status=$?
check "both runs end with status 0" "0 0" "$a_status $b_status"

served=$(($(truth requests_by_endpoint bytes) + $(truth requests_by_endpoint delay)))
na=$(total "$tmp/a.jsonl")
nb=$(total "$tmp/b.jsonl")
merged=$(total --merge "$tmp/a.jsonl" "$tmp/b.jsonl" 2>"$tmp/merge.err")
check "the merged count is what the target served ($na + $nb)" "$served" "$merged"
check "the merged count is the sum of the sessions'" "$((na + nb))" "$merged"
expect_run "the text report of the merge shows the same count" 0 \
    "^duration [0-9.]+s, $(python3 -c "print(f'{$merged:,}')") requests" "b.jsonl: ends after" \
    -- "$brink" report --merge "$tmp/a.jsonl" "$tmp/b.jsonl"
ticks_a=$(grep -c '"type":"tick"' "$tmp/a.jsonl")
ticks_b=$(grep -c '"type":"tick"' "$tmp/b.jsonl")
if grep -q "b.jsonl: ends after $ticks_b ticks of $ticks_a: later ticks are merged without it" "$tmp/merge.err"; then
    ok "stderr says the shorter session ends after its $ticks_b ticks"
else
    not_ok "stderr says the shorter session ends after its $ticks_b ticks" "$(cat "$tmp/merge.err")"
fi
rows=$("$brink" report --merge --format csv "$tmp/a.jsonl" "$tmp/b.jsonl" 2>/dev/null | tail -n +2 | wc -l)
check "the merged CSV has one row per tick of the longer session" "$ticks_a" "$rows"

expect_run "two files without --merge: exit 2, naming --merge" 2 "" \
    "^brink: report: unexpected argument .*b\.jsonl.*--merge" \
    -- "$brink" report "$tmp/a.jsonl" "$tmp/b.jsonl"

timeout 60 "$brink" run --headless --url "$url/bytes/100" --concurrency 2 --duration 1s \
    --tick 250ms --record "$tmp/quick.jsonl" </dev/null >/dev/null 2>&1
expect_run "another tick length: exit 1, one line naming the file and both lengths" 1 "" \
    "^brink: report: .*quick\.jsonl: ticks of 25[0-9] ms, but .*a\.jsonl has ticks of 10[0-9][0-9] ms: --merge needs sessions of one tick length$" \
    -- "$brink" report --merge "$tmp/a.jsonl" "$tmp/quick.jsonl"
timeout 60 "$brink" run --headless --url "$url/bytes/100" --rate 200 --duration 1s \
    --record "$tmp/open.jsonl" </dev/null >/dev/null 2>&1
expect_run "another load model: exit 1, naming both" 1 "" \
    "^brink: report: .*open\.jsonl: load model open, but .*a\.jsonl is closed: --merge needs one load model$" \
    -- "$brink" report --merge "$tmp/a.jsonl" "$tmp/open.jsonl"

stop_target
finish
