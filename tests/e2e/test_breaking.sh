#!/bin/sh
# Ramp plans end to end, against brink target set up to break at known
# points: its queue overflows (503) above 8 users, and the sibling count of
# a multipart manifest passes 20 only with more than 16 writers. A ramp
# 1, 8, 16, 32, 64 must name the right breaking step, take its action, list
# every step it ran in the report's step table, and the detections must come
# back in a replay of the session. With 4 workers and no queue limit, the
# knee (200 requests/s whatever the users) is found at 8 users; brink demo
# --ramp finds its target's breaking point as the README says. The queue,
# siblings and rates plans run on 500 ms ticks: each step is still a
# warm-up tick and two measured ones, in half the time. The knee keeps 1 s
# ticks: its verdict compares throughputs, which shorter ticks make noisier.
# Usage: sh test_breaking.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup

# run NAME CONFIG ARGS...: a bounded headless run (stdin empty); report in
# $tmp/NAME.out, progress in $tmp/NAME.err, exit status in $status.
run() {
    name=$1 cfg=$2
    shift 2
    timeout 90 "$brink" run --headless --config "$cfg" --record "$tmp/$name.jsonl" "$@" \
        >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    status=$?
}

# new_target ARGS...: stops the target running, if any, and starts one with
# ARGS; a target that does not start ends the test.
new_target() {
    [ -n "$pid" ] && stop_target
    start_target "$@" && return 0
    not_ok "brink target $* starts" "$(cat "$tmp/target.err")"
    finish
    exit 1
}

# step_row NAME STEP: the report's step table row of plan step STEP ("3/5").
step_row() {
    sed -n "/^steps:/,/^breaking point:/s|^  $2 *||p" "$tmp/$1.out"
}

# ---- 1. the queue: 4 workers of 5 ms and 4 places, so 503s above 8 users ----
cat >"$tmp/queue.json" <<'JSON'
{"workers": 4, "queue_max": 4, "service_ms": {"bytes": 5}}
JSON
new_target --config "$tmp/queue.json"
cat >"$tmp/queue.ini" <<INI
[target]
url = $url/bytes/100

[load]
tick = 500ms

[ramp]
steps = 1, 8, 16, 32, 64
hold = 1s
warmup = 500ms
stop_when = error_rate > 1%, p99 > 2s
action = stop
INI
start=$(now_ms)
run queue "$tmp/queue.ini" --ramp --duration 60s
took=$(($(now_ms) - start))
# A plan that finds its breaking point failed a step: the run says so in its
# exit status, as CI needs it to.
check "queue: exit status (a step failed)" 3 "$status"
grep -q 'breaking point: step 3 (c=16) failed: error_rate' "$tmp/queue.err" &&
    ok "queue: the breaking step is 3 (c=16), by its error rate" ||
    not_ok "queue: the breaking step is 3 (c=16), by its error rate" "$(grep -E 'ramp|breaking' "$tmp/queue.err")"
grep -q 'first http_5xx at concurrency 16' "$tmp/queue.err" &&
    ok "queue: the first 503 is detected at concurrency 16" ||
    not_ok "queue: the first 503 is detected at concurrency 16" "$(grep -E 'first' "$tmp/queue.err")"
grep -q 'ramp: step 3 failed: draining' "$tmp/queue.err" &&
    ok "queue: action stop ends the run after step 3" ||
    not_ok "queue: action stop ends the run after step 3" "$(tail -5 "$tmp/queue.err")"
holds "queue: it stopped by itself long before the 60 s duration (${took} ms)" "t < 30000" -v t="$took"
for s in 1/5 2/5; do
    row=$(step_row queue $s)
    case "$row" in
    *pass) ok "queue: step $s passed: $row" ;;
    *) not_ok "queue: step $s passed" "row: '$row'" ;;
    esac
done
row=$(step_row queue 3/5)
case "$row" in
c=16*"FAIL: error_rate"*) ok "queue: step 3/5 (c=16) failed: $row" ;;
*) not_ok "queue: step 3/5 (c=16) failed" "row: '$row'" ;;
esac
check "queue: no step after the failed one ran" "" "$(step_row queue 4/5)"
grep -q '^breaking point: highest step that passed 2 (c=8, .*; first failed 3 (c=16): error_rate' "$tmp/queue.out" &&
    ok "queue: the report's breaking point names steps 2 and 3" ||
    not_ok "queue: the report's breaking point names steps 2 and 3" "$(grep '^breaking' "$tmp/queue.out")"
# Every step the plan ran shows its figures: requests and a p99 (a step of
# 500 ms ticks may last "999ms").
"$brink" report "$tmp/queue.jsonl" >"$tmp/queue.report" 2>&1
n=$(sed -n '/^steps:/,/^breaking point:/p' "$tmp/queue.report" | grep -cE '^  [1-5]/5 +c=[0-9]+ +[0-9.]+[mu]?s +[0-9.]+m?s +[0-9,]+ +[0-9,.]+')
check "queue: brink report of the session lists the 3 steps with figures" 3 "$n"
"$brink" replay --headless "$tmp/queue.jsonl" >/dev/null 2>"$tmp/queue.replay"
for d in 'breaking point: step 3 \(c=16\)' 'first http_5xx at concurrency 16' 'ramp step 2/5 \(c=8\) passed'; do
    grep -Eq "$d" "$tmp/queue.replay" && ok "queue: replay shows \"$d\"" ||
        not_ok "queue: replay shows \"$d\"" "$(grep -E 'ramp|first|breaking' "$tmp/queue.replay" | head)"
done

# ---- 2. siblings: writers to one manifest each add one while they overlap ----
new_target --seed 3
cat >"$tmp/sib.ini" <<INI
[target]
url = $url

[request put]
weight = 3
method = PUT
url = /mp/ramp/{seq}
body = random:1k

[request get]
weight = 1
url = /mp/ramp

[probe siblings]
type = json
url = /stats
pointer = /node_get_fsm_siblings_100
interval = 200ms

[load]
tick = 500ms

[ramp]
steps = 1, 8, 16, 32, 64
hold = 1s
warmup = 500ms
stop_when = probe.siblings > 20, error_rate > 5%
action = back
INI
run sib "$tmp/sib.ini" --ramp --duration 9s
check "siblings: exit status (a step failed)" 3 "$status"
grep -q 'breaking point: step 4 (c=32) failed: probe siblings' "$tmp/sib.err" &&
    ok "siblings: the breaking step is 4 (c=32), by the sibling probe" ||
    not_ok "siblings: the breaking step is 4 (c=32), by the sibling probe" "$(grep -E 'ramp|breaking|siblings=' "$tmp/sib.err" | head -30)"
grep -q 'ramp goes back to step 3 (c=16) and holds' "$tmp/sib.err" &&
    ok "siblings: action back returns to step 3 (c=16)" ||
    not_ok "siblings: action back returns to step 3 (c=16)" "$(grep -E 'ramp' "$tmp/sib.err")"
last=$(grep '^t=' "$tmp/sib.err" | tail -2 | head -1 | sed -n 's/^t=[^ ]* c=\([0-9]*\) .*/\1/p')
check "siblings: it holds 16 users until the duration ends" 16 "$last"
for s in 1/5 2/5 3/5; do
    row=$(step_row sib $s)
    case "$row" in
    *pass) ok "siblings: step $s passed: $row" ;;
    *) not_ok "siblings: step $s passed" "row: '$row'" ;;
    esac
done
row=$(step_row sib 4/5)
case "$row" in
c=32*"FAIL: probe siblings"*) ok "siblings: step 4/5 (c=32) failed: $row" ;;
*) not_ok "siblings: step 4/5 (c=32) failed" "row: '$row'" ;;
esac
grep -Eq '^  - +c=16 ' "$tmp/sib.out" && ok "siblings: the held level has its own row" ||
    not_ok "siblings: the held level has its own row" "$(sed -n '/^steps:/,$p' "$tmp/sib.out")"
"$brink" replay --headless "$tmp/sib.jsonl" >/dev/null 2>"$tmp/sib.replay"
grep -q 'breaking point: step 4 (c=32) failed: probe siblings' "$tmp/sib.replay" &&
    ok "siblings: replay shows the breaking point" ||
    not_ok "siblings: replay shows the breaking point" "$(grep -E 'ramp|breaking' "$tmp/sib.replay" | head)"

# ---- 3. the knee: 4 workers of 20 ms serve 200 requests/s, whatever the
# users. (20 ms, not less, so that brink's own ~1 ms a request, more on a
# busy machine, leaves 4 users close to the 200: the knee is where 8 add
# almost nothing.) ----
cat >"$tmp/knee.json" <<'JSON'
{"workers": 4, "queue_max": 1000, "service_ms": {"bytes": 20}}
JSON
new_target --config "$tmp/knee.json"
cat >"$tmp/knee.ini" <<INI
[target]
url = $url/bytes/100

[ramp]
steps = 1, 2, 4, 8, 16
hold = 2s
warmup = 1s
INI
run knee "$tmp/knee.ini" --ramp --duration 60s
grep -q 'detection: knee: c=8 adds no throughput over c=4 ' "$tmp/knee.err" &&
    ok "knee: detected at c=8 over c=4 ($(sed -n 's/.*knee: //p' "$tmp/knee.err"))" ||
    not_ok "knee: detected at c=8 over c=4" "$(grep -E 'knee|passed' "$tmp/knee.err")"
check "knee: detected once" 1 "$(grep -c 'detection: knee' "$tmp/knee.err")"
grep -q '^breaking point: highest step that passed 5 (c=16, .*; no step failed$' "$tmp/knee.out" &&
    ok "knee: with no stop condition every step passes" ||
    not_ok "knee: with no stop condition every step passes" "$(sed -n '/^steps:/,$p' "$tmp/knee.out")"

# ---- 4. rates as steps: the same 200 requests/s of capacity, offered at
# 25, 100 and 400 per second; at 400 the in-flight cap is reached and the
# schedule falls short by half. ----
cat >"$tmp/rate.ini" <<INI
[target]
url = $url/bytes/100

[load]
mode = rate
rate = 25
max_in_flight = 64
tick = 500ms

[ramp]
steps = 25/s, 100/s, 400/s
hold = 1s
warmup = 500ms
stop_when = rate_shortfall > 10%
action = stop
INI
run rate "$tmp/rate.ini" --ramp --duration 60s
check "rates: exit status (a step failed)" 3 "$status"
grep -q 'breaking point: step 3 (400/s) failed: rate_shortfall' "$tmp/rate.err" &&
    ok "rates: the breaking step is 3 (400/s), by its shortfall ($(sed -n 's/.*failed: \(rate_shortfall[^;]*\);.*/\1/p' "$tmp/rate.err"))" ||
    not_ok "rates: the breaking step is 3 (400/s), by its shortfall" "$(grep -E 'ramp|breaking' "$tmp/rate.err")"
for s in 1/3 2/3; do
    row=$(step_row rate $s)
    case "$row" in
    rate=*pass) ok "rates: step $s passed: $row" ;;
    *) not_ok "rates: step $s passed" "row: '$row'" ;;
    esac
done

# ---- 5. the text commands: ramp starts a plan (resuming a paused run), next
# ends a step, a manual change pauses the plan; steps hold 30 s, so only
# next moves it on. Each command waits for the progress lines to show the
# last one applied; stop ends the run (--duration 60s bounds it if a wait
# fails). The knee's plan on 500 ms ticks, with that hold.
sed -e 's/^hold = .*/hold = 30s/' -e 's/^\[ramp\]$/[load]\ntick = 500ms\n\n&/' "$tmp/knee.ini" >"$tmp/cmd.ini"
trap '' PIPE
mkfifo "$tmp/cmd"
"$brink" run --headless --no-record --config "$tmp/cmd.ini" --concurrency 3 --duration 60s \
    <"$tmp/cmd" >"$tmp/cmd.out" 2>"$tmp/cmd.err" &
run_pid=$!
exec 3>"$tmp/cmd"
sent=0
wait_count "$tmp/cmd.err" '^t=[0-9]+s c=3 ' 1 20 && echo pause >&3 && sent=1
[ $sent = 1 ] && wait_count "$tmp/cmd.err" '^t=[0-9]+s c=0/3 ' 1 20 && echo ramp >&3 && sent=2
[ $sent = 2 ] && wait_count "$tmp/cmd.err" 'command: ramp: concurrency 3 -> 1 \(resumed\)' 1 20 &&
    wait_count "$tmp/cmd.err" '^t=[0-9]+s c=1 ' 2 20 && echo next >&3 && sent=3
[ $sent = 3 ] && wait_count "$tmp/cmd.err" '^t=[0-9]+s c=2 ' 1 20 && echo + >&3 && sent=4
[ $sent = 4 ] && wait_count "$tmp/cmd.err" 'ramp paused at step 2/5 by a manual step' 1 20 &&
    echo stop >&3 && sent=5
[ $sent = 5 ] || kill "$run_pid" 2>/dev/null
wait "$run_pid"
status=$?
run_pid=""
exec 3>&-
check "commands: pause, ramp, next, +, stop were each applied in turn" 5 "$sent"
check "commands: exit status" 0 "$status"
grep -q 'command: ramp step 1/5: c=1' "$tmp/cmd.err" && ok "commands: ramp starts the plan at step 1" ||
    not_ok "commands: ramp starts the plan at step 1" "$(grep -E 'ramp|command' "$tmp/cmd.err")"
grep -q 'detection: ramp step 1/5 (c=1) passed' "$tmp/cmd.err" &&
    ok "commands: next ends step 1 with its verdict" ||
    not_ok "commands: next ends step 1 with its verdict" "$(grep -E 'ramp' "$tmp/cmd.err")"
grep -q 'step: concurrency 2 -> 3' "$tmp/cmd.err" && ok "commands: + still applies after pausing the plan" ||
    not_ok "commands: + still applies after pausing the plan" "$(grep -E 'command' "$tmp/cmd.err")"

# ---- 6. brink demo --ramp: its plan doubles the users every 6 s from 2;
# the in-process target's queue overflows at 32, and the plan goes back to
# 16 (what the README's walkthrough says). ----
timeout 90 "$brink" demo --ramp --headless --no-record --duration 32s \
    >"$tmp/demo.out" 2>"$tmp/demo.err" </dev/null
check "demo: exit status" 0 "$?"
grep -q 'breaking point: step 5 (c=32) failed: error_rate .*; last good: step 4 (c=16,' "$tmp/demo.err" &&
    ok "demo: the breaking step is 5 (c=32)" ||
    not_ok "demo: the breaking step is 5 (c=32)" "$(grep -E 'ramp|breaking|first' "$tmp/demo.err")"
grep -q 'ramp goes back to step 4 (c=16) and holds' "$tmp/demo.err" &&
    ok "demo: the plan goes back to 16 users" ||
    not_ok "demo: the plan goes back to 16 users" "$(grep -E 'ramp' "$tmp/demo.err")"

# ---- 7. --ramp without a plan is a usage error ----
expect_run "--ramp without [ramp] steps: one line, exit 2" 2 "" \
    '^brink: --ramp: the command line has no \[ramp\] steps' -- \
    "$brink" run --headless --no-record --url "$url/bytes/1" --ramp --duration 1s
finish
