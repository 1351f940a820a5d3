#!/bin/sh
# What the console costs the load (issue 5): brink run at full load with the
# console open in a tmux pane of 132x40, against the same run headless.
# Figures only: it asserts nothing and exits 0 once the figures are printed
# (1 only when it cannot set up: no binary, no tmux, one core).
#
# Setup: the server is nginx (bench/lib.sh's start_nginx: one worker,
# keep-alive, a 13-byte file) pinned to core 0, or `brink target` (its
# /bytes/13) pinned to core 0 when nginx is missing or BENCH_SERVER=target.
# The client is pinned to core 1, C = BENCH_CONCURRENCY (default 64),
# D = BENCH_SECONDS (default 10):
#   headless: brink run --headless --url URL --concurrency C --duration D
#   console:  the same without --headless, as the command of a pane of a
#             private tmux server (132x40, TERM=screen, the environment's
#             locale), so stdin and stdout are the pane's tty
# The two alternate, 3 repetitions each (BENCH_REPS), console first; about
# 2 x 3 x D seconds in all. The tmux server (the "operator's terminal",
# which parses everything the console draws) is pinned to core 0 with the
# server: on a real test box the terminal is not on the load client's core.
#
# How the console run's figures are read: its stdout must be the pane's tty
# (else brink runs headless), so it cannot be redirected to a file. The pane
# runs `sh pane.sh`, which runs brink (pinned with taskset) and then writes
# brink's exit status to a file; the pane stays after brink exits
# (remain-on-exit), so once the status file appears, `capture-pane -p -J -S -`
# reads the whole pane with its history: the report brink printed after it
# restored the terminal (the console's alternate screen is gone by then) is
# all there is, and its first line starts with "duration ". This does not
# depend on timing or on tmux's screen update, unlike pipe-pane (which gives
# the raw bytes, escapes and all).
#
# Reading the output: one line per run on stderr as it goes (mode, rep,
# brink's first report line, exit status), then a table of the req/s of
# each repetition (from the report's first line, "duration 10.0s, 254,929
# requests, 25,470 req/s, ..."), their medians, and
#   console/headless        ratio of the medians; issue 5's goal: >= 0.95
# The medians of runs that failed (exit status not 0, no report) are not
# computed; such runs are listed.
#
# Usage: sh bench/ui-overhead.sh   (BRINK=path to a release brink binary,
# default build/release/brink; BENCH_SECONDS=D, BENCH_CONCURRENCY=C,
# BENCH_REPS=N, BENCH_SERVER=nginx|target)
# The set-up it shares with the other benchmarks is in bench/lib.sh.
set -u
prog=ui-overhead
cd "$(dirname "$0")/.." || exit 1
. ./bench/lib.sh

seconds=${BENCH_SECONDS:-10}
concurrency=${BENCH_CONCURRENCY:-64}
reps=${BENCH_REPS:-3}
server=${BENCH_SERVER:-nginx}

case "$seconds$concurrency$reps" in
'' | *[!0-9]*) die "BENCH_SECONDS, BENCH_CONCURRENCY and BENCH_REPS must be whole numbers" ;;
esac
command -v tmux >/dev/null 2>&1 || die "needs tmux"
command -v nginx >/dev/null 2>&1 || server=target
find_brink
case $brink in /*) ;; *) brink=$PWD/$brink ;; esac
need_two_cores "server and tmux on core 0, brink run on core 1"
bench_tmp

sock="ui-overhead$$"
T="tmux -L $sock -f /dev/null"
trap '$T kill-server 2>/dev/null; cleanup' EXIT

case $server in
nginx)
    start_nginx 13
    printf 'hello, world\n' >"$tmp/www/13" # 13 bytes
    url="http://127.0.0.1:$nginx_port/13"
    ;;
*)
    start_target 0
    url="$target_url/bytes/13"
    ;;
esac

print_machine
echo "brink: $brink ($("$brink" --version 2>/dev/null | head -n 1))"
echo "server: $server on core 0 ($url); brink run on core 1; tmux on core 0"
echo "run: concurrency $concurrency, ${seconds}s, $reps repetitions of each, console pane 132x40"

limit=$((seconds + 30))

# The pane's command: brink with stdout on the pane, then its exit status.
cat >"$tmp/pane.sh" <<EOF
taskset -c 1 "$brink" run --url "$url" --concurrency $concurrency --duration ${seconds}s
echo \$? >"$tmp/status.new" && mv "$tmp/status.new" "$tmp/status"
EOF

# first_line FILE: the report's first line, if any.
first_line() {
    grep -m 1 '^duration ' "$1"
}

# rps LINE: the successes' req/s of a report's first line ("ok N req/s"),
# commas removed.
rps() {
    echo "$1" | sed -n 's/.* requests, ok \([0-9,.]*\) req\/s.*/\1/p' | tr -d ,
}

# run_console REP: appends the req/s to $tmp/console.rps (or "-").
run_console() {
    rm -f "$tmp/status"
    # taskset on the tmux client: the server it forks inherits core 0.
    taskset -c 0 $T new-session -d -s s -x 132 -y 40 "sh $tmp/pane.sh" \; \
        set -g remain-on-exit on \; set -g window-size manual || die "tmux did not start"
    i=0
    while [ ! -s "$tmp/status" ] && [ $i -lt $((limit * 10)) ]; do
        sleep 0.1
        i=$((i + 1))
    done
    rc=$(cat "$tmp/status" 2>/dev/null)
    $T capture-pane -p -J -S - -t s >"$tmp/console.out" 2>/dev/null
    $T kill-server 2>/dev/null
    line=$(first_line "$tmp/console.out")
    echo "  console  rep $1: ${line:-no report}, exit ${rc:-none (timed out)}" >&2
    r=$(rps "$line")
    if [ "$rc" = 0 ] && [ -n "$r" ]; then echo "$r" >>"$tmp/console.rps"; else echo "console rep $1: exit ${rc:-none}" >>"$tmp/failed"; fi
}

# run_headless REP: appends the req/s to $tmp/headless.rps.
run_headless() {
    timeout -k 5 $limit taskset -c 1 "$brink" run --headless --url "$url" \
        --concurrency "$concurrency" --duration "${seconds}s" \
        >"$tmp/headless.out" 2>"$tmp/headless.err" </dev/null
    rc=$?
    line=$(first_line "$tmp/headless.out")
    echo "  headless rep $1: ${line:-no report}, exit $rc" >&2
    r=$(rps "$line")
    if [ "$rc" = 0 ] && [ -n "$r" ]; then echo "$r" >>"$tmp/headless.rps"; else echo "headless rep $1: exit $rc" >>"$tmp/failed"; fi
}

: >"$tmp/console.rps"
: >"$tmp/headless.rps"
rep=1
while [ $rep -le "$reps" ]; do
    run_console $rep
    run_headless $rep
    rep=$((rep + 1))
done

median() {
    sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

mc=$(median "$tmp/console.rps")
mh=$(median "$tmp/headless.rps")
echo
printf '%-10s %s\n' mode "req/s per repetition"
printf '%-10s %s\n' console "$(tr '\n' ' ' <"$tmp/console.rps")"
printf '%-10s %s\n' headless "$(tr '\n' ' ' <"$tmp/headless.rps")"
echo "median req/s: console $mc, headless $mh"
if [ "$mc" != - ] && [ "$mh" != - ]; then
    ratio=$(awk -v c="$mc" -v h="$mh" 'BEGIN { printf "%.3f", c / h }')
    goal=$(awk -v r="$ratio" 'BEGIN { print (r >= 0.95) ? "met" : "not met" }')
    echo "console/headless: $ratio (goal >= 0.95: $goal)"
fi
if [ -s "$tmp/failed" ]; then
    echo "failed runs:"
    sed 's/^/  /' "$tmp/failed"
fi
exit 0
