#!/bin/sh
# The engine against brink target: what brink counts must match what the
# target did (its ground truth at GET /_control), every injected fault must
# land in its own error class, commands typed on stdin must act within a
# tick, and two workers must merge to the same totals as one.
# The whole suite runs once per transport, libcurl's and brink's own
# HTTP/1.1 client (BRINK_TRANSPORTS, default "curl h1"): every run gets
# [target] transport = T from a config file, and each check is named [T].
# Usage: sh test_engine.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup

. "$src/tests/e2e/transport_lib.sh"

# use_transport ARGS...: sets tflag to the arguments that choose the
# transport: none when ARGS name a --config file (which gets the key after
# its [target] line), else --config $tmp/transport.ini (flags override it).
use_transport() {
    cfg=""
    prev=""
    for a in "$@"; do
        [ "$prev" = "--config" ] && cfg=$a
        prev=$a
    done
    if [ -z "$cfg" ]; then
        tflag="$tmp/transport.ini"
    else
        tflag=""
        grep -q '^transport = ' "$cfg" || sed -i "/^\[target\]\$/a transport = $transport" "$cfg"
    fi
}

# brink_run NAME ARGS...: a bounded headless run; report in $tmp/NAME.out,
# progress in $tmp/NAME.err, exit status in $status.
brink_run() {
    name=$1
    shift
    use_transport "$@"
    if [ -n "$tflag" ]; then
        set -- --config "$tflag" "$@"
    fi
    timeout 60 "$brink" run --headless "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    status=$?
}

# requests NAME: the request count of a report ("duration 1.00s, 2,000 requests, ...").
requests() {
    sed -n 's/^duration [^,]*, \([0-9,]*\) requests.*/\1/p' "$tmp/$1.out" | tr -d ,
}

# errors NAME CLASS: the count of one error class in a report (0 if absent).
errors() {
    n=$(sed -n "s/^  $2 *\([0-9,]*\) .*/\1/p" "$tmp/$1.out" | head -n 1 | tr -d ,)
    echo "${n:-0}"
}

# dropped NAME: the "dropped N" figure of a report.
dropped() {
    sed -n 's/^dropped \([0-9,]*\),.*/\1/p' "$tmp/$1.out" | tr -d ,
}

# wait_requests N: polls (for at most 10 s) until the target has served N
# requests to /bytes; prints the count last seen.
wait_requests() {
    deadline=$(($(now_ms) + 10000))
    while v=$(truth requests_by_endpoint bytes) && [ "$v" -lt "$1" ] && [ "$(now_ms)" -lt "$deadline" ]; do
        sleep 0.05
    done
    echo "$v"
}

suite() {
must_start_target --seed 7

# --- counts --------------------------------------------------------------------
before=$(truth requests_by_endpoint bytes)
brink_run count --url "$url/bytes/13" --concurrency 8 --requests 2000
check "a request-limited run exits 0" 0 "$status"
check "brink reports exactly the requests asked for" 2000 "$(requests count)"
after=$(truth requests_by_endpoint bytes)
check "the target saw as many requests as brink completed" 2000 $((after - before))
check "a clean run reports no errors" 1 "$(grep -c '^errors: none$' "$tmp/count.out")"
check "every response is counted by status" 1 "$(grep -c '^HTTP statuses: 200=2,000$' "$tmp/count.out")"

before=$(truth requests_by_endpoint bytes)
brink_run threads --url "$url/bytes/13" --concurrency 8 --threads 2 --requests 3000
check "two workers still stop at the request limit" 3000 "$(requests threads)"
after=$(truth requests_by_endpoint bytes)
check "two workers merge to the target's count" 3000 $((after - before))

# --- faults, each in its own class -----------------------------------------------
# fault_run NAME FAULT PATH CLASS COUNTER [ARGS...]: every request carries
# X-Brink-Fault: FAULT; brink's CLASS count and the target's COUNTER delta
# must both equal the request count.
fault_run() {
    name=$1 fault=$2 path=$3 class=$4 counter=$5
    shift 5
    printf '[target]\nurl = %s%s\nheader = X-Brink-Fault: %s\n' "$url" "$path" "$fault" >"$tmp/$name.ini"
    before=$(truth "$counter")
    brink_run "$name" --config "$tmp/$name.ini" --requests 12 --concurrency 3 "$@"
    after=$(truth "$counter")
    check "$fault: brink counts 12 $class errors" 12 "$(errors "$name" "$class")"
    check "$fault: the target did it 12 times" 12 $((after - before))
}

fault_run reset reset /bytes/100 reset resets_sent
fault_run close close_mid_body /bytes/200000 closed_early closed_early
fault_run stall stall /bytes/100 timeout stalled --timeout 300ms
fault_run malformed malformed_status /bytes/100 malformed malformed_sent

before=$(truth responses_503)
brink_run s503 --url "$url/status/503" --requests 20 --concurrency 4
check "503s are http_5xx errors" 20 "$(errors s503 http_5xx)"
check "503s are counted by status" 1 "$(grep -c '^HTTP statuses: 503=20$' "$tmp/s503.out")"
check "the target sent the 503s" 20 $(($(truth responses_503) - before))

# A port nobody listens on: bind one through a short-lived target.
live_url=$url
live_pid=$pid
start_target || not_ok "a second target starts"
dead_url=$url
stop_target
url=$live_url
pid=$live_pid
brink_run refused --url "$dead_url/bytes/1" --requests 10 --concurrency 2
check "a closed port gives refused errors" 10 "$(errors refused refused)"
check "refused says connection refused" 1 "$(grep -c '^  refused .*connection refused' "$tmp/refused.out")"
case $transport in
curl) via="(curl " ;;
*) via="($transport: " ;;
esac
check "the $transport transport made the requests" 1 "$(grep '^  refused ' "$tmp/refused.out" | grep -cF "$via")"

# --- a mix: statistics per request kind ------------------------------------------------
cat >"$tmp/mix.ini" <<INI
[target]
url = $url

[request get]
weight = 3
url = /bytes/64

[request put]
weight = 1
method = PUT
url = /kv/key-{vu}-{seq}
body = random:2k
INI
brink_run mix --config "$tmp/mix.ini" --requests 400 --concurrency 4 --seed 3
check "a mix run completes every request" 400 "$(requests mix)"
gets=$(sed -n 's/^kind get: \([0-9,]*\) requests.*/\1/p' "$tmp/mix.out" | tr -d ,)
puts=$(sed -n 's/^kind put: \([0-9,]*\) requests.*/\1/p' "$tmp/mix.out" | tr -d ,)
check "GET and PUT are reported apart and add up" 400 $((gets + puts))
check_ge "the 3:1 mix sends more GETs than PUTs" $((puts + 1)) "$gets"

# --- think time: a user pauses between its reply and its next request -----------------
# One user thinking 100 ms does about 10 requests a second (without the
# pause, thousands); 15 leaves room for any timer slack, none for a user
# that does not think.
printf '[target]\nurl = %s/bytes/13\n\n[load]\nthink_time = 100ms\n' "$url" >"$tmp/think.ini"
brink_run think --config "$tmp/think.ini" --concurrency 1 --duration 1s
check "a run with think time exits 0" 0 "$status"
n=$(requests think)
holds "one user thinking 100ms sends at most 15 requests in 1s" "n >= 1 && n <= 15" -v n="${n:-0}"
check "a thinking user is no error" 1 "$(grep -c '^errors: none$' "$tmp/think.out")"
# The open model does not apply it, and says so before and during the run.
brink_run think_open --config "$tmp/think.ini" --rate 20 --duration 1s
check "think time under the open model: the run still exits 0" 0 "$status"
check "think time under the open model: the file loads with a notice" 1 \
    "$(grep -c '^brink: .*think.ini:[0-9]*: \[load\] think_time: not applied under mode = rate' "$tmp/think_open.err")"
check "think time under the open model: the event log says so" 1 \
    "$(grep -c 'notice: think_time not applied' "$tmp/think_open.out")"
# Users thinking for an hour: the duration still ends the run (their
# timers neither hold the loop open nor fire later), after one request
# each.
printf '[target]\nurl = %s/bytes/13\n\n[load]\nthink_time = 1h\n' "$url" >"$tmp/think_long.ini"
brink_run think_long --config "$tmp/think_long.ini" --concurrency 3 --duration 1s
check "users thinking for an hour stop at the duration" 0 "$status"
check "users thinking for an hour sent one request each" 3 "$(requests think_long)"

# Commands reach users in their pause: a retired or paused user stops
# thinking (its timer never fires later) and starts at once when it may run
# again. Each step waits for the target to have seen its requests.
rm -f "$tmp/thinkcmds" "$tmp/think_cmds.out" "$tmp/think_cmds.err"
mkfifo "$tmp/thinkcmds"
base=$(truth requests_by_endpoint bytes)
# --duration 0: until the stop below (a run with no end stops after 10 s).
timeout 60 "$brink" run --headless --config "$tmp/think_long.ini" --concurrency 2 --duration 0 --tick 250ms <"$tmp/thinkcmds" \
    >"$tmp/think_cmds.out" 2>"$tmp/think_cmds.err" &
run_pid=$!
exec 5>"$tmp/thinkcmds"
check "two users send one request each, then think" 2 $(($(wait_requests $((base + 2))) - base))
echo "concurrency 1" >&5
expect_line "concurrency 1 while both think" "$tmp/think_cmds.err" '^t=[0-9]+s c=1 inflight=0 ' 10
echo "concurrency 3" >&5
check "the retired user and a new one start at once" 4 $(($(wait_requests $((base + 4))) - base))
echo "pause" >&5
expect_line "pause while three users think" "$tmp/think_cmds.err" ' paused$' 10
echo "resume" >&5
check "resume starts the three paused users at once" 7 $(($(wait_requests $((base + 7))) - base))
echo "stop" >&5
exec 5>&-
wait "$run_pid"
status=$?
run_pid=""
check "a stop while users think ends the run with status 0" 0 "$status"
check "the report counts the seven requests" 7 "$(requests think_cmds)"

# The last of --requests 2 is sent by the second worker while the first
# worker's only user thinks for an hour: the run must end anyway.
rm -f "$tmp/thinkcmds"
mkfifo "$tmp/thinkcmds"
base=$(truth requests_by_endpoint bytes)
timeout 60 "$brink" run --headless --config "$tmp/think_long.ini" --concurrency 1 --threads 2 \
    --requests 2 <"$tmp/thinkcmds" >"$tmp/think_last.out" 2>"$tmp/think_last.err" &
run_pid=$!
exec 5>"$tmp/thinkcmds"
check "the first worker's user sends one request, then thinks" 1 $(($(wait_requests $((base + 1))) - base))
echo "concurrency 2" >&5
wait "$run_pid"
status=$?
run_pid=""
exec 5>&-
check "the last request ends the run while a user thinks" 0 "$status"
check "the report counts both requests" 2 "$(requests think_last)"

# --- {seq} counts the requests of a kind, across users and workers -------------------
# seq_run NAME THREADS: 60 PUTs to /kv/NAME-{seq} by 3 users; the target must
# hold 60 new keys, NAME-0 to NAME-59.
seq_run() {
    printf '[target]\nurl = %s\n\n[request put]\nmethod = PUT\nurl = /kv/%s-{seq}\nbody = x\n' \
        "$url" "$1" >"$tmp/$1.ini"
    before=$(json_get "$url/stats" kv_keys)
    brink_run "$1" --config "$tmp/$1.ini" --concurrency 3 --threads "$2" --requests 60
    after=$(json_get "$url/stats" kv_keys)
    check "{seq} with 3 users on $2 worker(s): 60 PUTs write 60 keys" 60 $((after - before))
    first=$(curl -s -o /dev/null -w '%{http_code}' "$url/kv/$1-0")
    last=$(curl -s -o /dev/null -w '%{http_code}' "$url/kv/$1-59")
    past=$(curl -s -o /dev/null -w '%{http_code}' "$url/kv/$1-60")
    check "{seq} on $2 worker(s) counts from 0 to 59" "200 200 404" "$first $last $past"
}
seq_run seq1 1
seq_run seq2 2

# --- bodies over max_body are cut and counted, not errors ----------------------------
printf '[target]\nurl = %s/bytes/300000\nmax_body = 100k\n' "$url" >"$tmp/cut.ini"
brink_run cut --config "$tmp/cut.ini" --requests 10 --concurrency 2
check "bodies over max_body are counted as cut" 1 "$(grep -c '^dropped 0, aborted at stop 0, bodies cut 10,' "$tmp/cut.out")"
check "a cut body is not an error" 1 "$(grep -c '^errors: none$' "$tmp/cut.out")"

# --- commands on stdin -------------------------------------------------------------
# A fifo feeds commands; each is sent once the progress shows the state it
# acts on, and its effect is awaited in the progress lines, one a tick
# (250 ms here and for the thinking users above: the checks count ticks,
# not seconds).
# The files a background run writes are removed first: its shell truncates
# them only once it runs, and the previous transport's lines would answer
# the waits below (a signal then reaches brink before its handlers).
rm -f "$tmp/cmds" "$tmp/cmds2" "$tmp"/live.* "$tmp"/drop.* "$tmp"/sig.* "$tmp"/hup.*
mkfifo "$tmp/cmds" "$tmp/cmds2"
timeout 60 "$brink" run --headless --config "$tmp/transport.ini" --url "$url/delay/400" --concurrency 2 --duration 0 --tick 250ms <"$tmp/cmds" \
    >"$tmp/live.out" 2>"$tmp/live.err" &
run_pid=$!
exec 3>"$tmp/cmds"
expect_line "the run starts at concurrency 2 with 2 in flight" "$tmp/live.err" '^t=[0-9]+s c=2 inflight=2 ' 10
echo "concurrency 7" >&3
expect_line "set concurrency 7: the next ticks show 7 in flight" "$tmp/live.err" '^t=[0-9]+s c=7 inflight=7 ' 10
echo "pause" >&3
expect_line "pause: the rate falls to 0" "$tmp/live.err" ' 0 req/s .* paused$' 10
echo "resume" >&3
echo "mark after resume" >&3
if wait_for "$tmp/live.err" 'mark: after resume' 10; then ok "a mark shows in the event log"; else not_ok "a mark shows in the event log"; fi
echo "stop" >&3
exec 3>&-
wait "$run_pid"
status=$?
run_pid=""
check "stop ends the run with status 0" 0 "$status"
check "the report lists the mark" 1 "$(grep -c 'mark: after resume' "$tmp/live.out")"
check "the report lists the change of concurrency" 1 "$(grep -c 'concurrency 2 -> 7' "$tmp/live.out")"

# --- drop N: the target sees N clients go away mid-request ---------------------------
timeout 60 "$brink" run --headless --config "$tmp/transport.ini" --url "$url/delay/5000" --concurrency 6 --duration 0 --tick 250ms <"$tmp/cmds2" \
    >"$tmp/drop.out" 2>"$tmp/drop.err" &
run_pid=$!
exec 4>"$tmp/cmds2"
before=$(truth client_aborts)
expect_line "six requests are in flight before the drop" "$tmp/drop.err" '^t=[0-9]+s c=6 inflight=6 ' 10
echo "drop 4" >&4
got=$(wait_truth client_aborts $((before + 4)))
check "drop 4: the target counts 4 clients gone mid-request" $((before + 4)) "$got"
echo "stop" >&4
echo "stop" >&4
exec 4>&-
wait "$run_pid"
run_pid=""
check "drop 4: the report says 4 dropped, and the rest aborted at the stop" 1 "$(grep -c '^dropped 4, aborted at stop 6,' "$tmp/drop.out")"

# --- SIGINT still prints the report ---------------------------------------------------
timeout 60 "$brink" run --headless --config "$tmp/transport.ini" --url "$url/bytes/13" --concurrency 2 </dev/null \
    >"$tmp/sig.out" 2>"$tmp/sig.err" &
run_pid=$!
wait_for "$tmp/sig.err" '^t=1s ' 10
kill -INT "$run_pid"
wait "$run_pid"
status=$?
run_pid=""
check "Ctrl-C stops the run with status 0" 0 "$status"
check "Ctrl-C still prints the final report" 1 "$(grep -c '^latency percentiles:$' "$tmp/sig.out")"

# --- SIGHUP headless stops the load at once, as the console does ------------------
# Requests that would take 20 s are in flight: a drain would wait for them,
# SIGHUP aborts them (the second stop's event) without waiting.
timeout 60 "$brink" run --headless --config "$tmp/transport.ini" --url "$url/delay/20000" --timeout 60s --tick 250ms \
    --concurrency 2 </dev/null >"$tmp/hup.out" 2>"$tmp/hup.err" &
run_pid=$!
wait_for "$tmp/hup.err" '^t=[0-9]+s c=2 inflight=2 ' 10
kill -HUP "$run_pid"
wait "$run_pid"
status=$?
run_pid=""
check "SIGHUP headless: status 0 and the report" "0 1" "$status $(grep -c '^duration ' "$tmp/hup.out")"
check "SIGHUP headless: the requests in flight are aborted, not drained" "1 1" \
    "$(grep -c 'stop again: abort the requests in flight' "$tmp/hup.out") $(grep -c '^dropped 0, aborted at stop 2,' "$tmp/hup.out")"

# --- usage errors start nothing ----------------------------------------------------
expect_run "run without a target is a usage error" 2 "" '^brink: run: no target \(expected a URL, --url URL or --config FILE\)$' -- "$brink" run
expect_run "a bad flag value names the flag" 2 "" '^brink: --concurrency: expected a whole number' -- "$brink" run --url "$url/" --concurrency ten
expect_run "an unknown option is refused" 2 "" '^brink: run: unknown option "--frob" \(usage: brink run ' -- "$brink" run --url "$url/" --frob

stop_target
}

for transport in $transports; do
    printf '[target]\ntransport = %s\n' "$transport" >"$tmp/transport.ini"
    suite
done
finish
