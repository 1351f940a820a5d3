#!/bin/sh
# What a coordinator costs (issue 20): brink run --agents with three agents
# over real ssh (tests/agents/lib.sh: Debian's sshd in three network
# namespaces, or on loopback ports where namespaces cannot be made), against
# brink target in a fourth namespace. Figures only: it asserts nothing and
# exits 0 once they are printed (1 only when it cannot set up).
#
# Each run: C = BENCH_CONCURRENCY (default 48, so 16 per agent) for D =
# BENCH_SECONDS (default 10) on /bytes/64, recorded; BENCH_REPS runs
# (default 3). brink target is pinned to core 0, the agents (through their
# sshd) and the coordinator to core 1.
#
# Printed per run, and as medians:
#   coord cpu%      the coordinator's own CPU (user + system, all its
#                   threads, from /proc/PID/stat) over the ticks from
#                   t=2s to the last full one, in percent of one core;
#                   issue 20's goal: under 2 % with three agents
#   us/agent/tick   the same CPU time per agent per tick
#   ssh cpu%        its three ssh clients together (they carry the ticks)
#   merged req/s    the report's throughput (the merged ticks)
#   agents' req/s   the sum of the three agents' (brink report --agent)
#   merged/sum      their ratio; goal: equal within 0.5 %
#   running         the same ratio over the ticks that ran whole (state
#                   "running"), from the session's merged and agent ticks
#                   (tests/agents/session_facts.py): without the first
#                   and last ticks, whose spans differ from agent to agent
#   exact           whether the merged ticks count the requests the
#                   agents' ticks count, one for one
# The machine is shared while benchmarks run elsewhere: compare the ratios
# of one run, not figures across machines.
#
# Usage: sh bench/agents.sh   (as root for namespaces; BRINK=path to a
# release brink binary, default build/release/brink; BENCH_SECONDS=D,
# BENCH_CONCURRENCY=C, BENCH_REPS=N; BRINK_AGENTS_MODE=loopback)
# The set-up it shares with the other benchmarks is in bench/lib.sh.
set -u
prog=agents
cd "$(dirname "$0")/.." || exit 1
. ./bench/lib.sh
. ./tests/agents/lib.sh

seconds=${BENCH_SECONDS:-10}
concurrency=${BENCH_CONCURRENCY:-48}
reps=${BENCH_REPS:-3}
case "$seconds$concurrency$reps" in
'' | *[!0-9]*) die "BENCH_SECONDS, BENCH_CONCURRENCY and BENCH_REPS must be whole numbers" ;;
esac
[ "$seconds" -ge 5 ] || die "BENCH_SECONDS must be at least 5 (the CPU is read from t=2s on)"
find_brink
# The agents run the same binary by its path.
case $brink in /*) ;; *) brink=$PWD/$brink ;; esac
need_two_cores "target on core 0, agents and coordinator on core 1"
bench_tmp
trap 'stop_pid "$client_pid"; ag_cleanup; cleanup' EXIT
trap 'exit 1' INT TERM HUP PIPE

ag_setup "$tmp/agents" && ag_start || die "the agents' fixture did not start"
for i in 0 1 2; do
    taskset -a -p -c 1 "$(ag_var sshd $i)" >/dev/null || die "cannot pin agent$i's sshd"
done
target_in=$ag_target_run
target_listen=$ag_target_addr:0
start_target 0

cat >"$tmp/run.ini" <<EOF
[target]
url = $target_url/bytes/64
timeout = 5s

[load]
concurrency = $concurrency

[agents]
hosts = $(echo "$ag_hosts" | sed 's/,/, /g')
ssh = $ag_ssh
brink = $brink
EOF

print_machine
echo "brink: $brink ($("$brink" --version 2>/dev/null | head -n 1))"
echo "agents: 3 over ssh ($ag_mode mode), agents and coordinator on core 1; brink target on core 0 ($target_url)"
echo "run: concurrency $concurrency, ${seconds}s, $reps runs"
echo

hz=$(getconf CLK_TCK)

now_ms() {
    date +%s%3N
}
limit=$((seconds + 60))

# own_ticks PID: CPU ticks of PID alone (proc_ticks counts its children too).
own_ticks() {
    ot_all=$(proc_ticks "$1")
    for ot_c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        ot_all=$((ot_all - $(proc_ticks "$ot_c")))
    done
    echo "$ot_all"
}

# sample PID: "wall_ms own_ticks children_ticks" of the coordinator PID.
sample() {
    sa_own=$(own_ticks "$1")
    echo "$(now_ms) $sa_own $(($(proc_ticks "$1") - sa_own))"
}

# tick_seen N: polls (bounded) until the run's stderr has the line t=Ns.
tick_seen() {
    ts_i=0
    while ! grep -q "^t=$1s " "$tmp/run.err" 2>/dev/null; do
        kill -0 "$client_pid" 2>/dev/null && [ $ts_i -lt $((limit * 20)) ] || return 1
        sleep 0.05
        ts_i=$((ts_i + 1))
    done
}

# report_rps ARGS...: the req/s of `brink report ARGS... --format json`.
report_rps() {
    "$brink" report "$@" --format json 2>/dev/null |
        python3 -c 'import json, sys; print("%.1f" % json.load(sys.stdin)["total"]["req_per_s"])'
}

printf '%-4s %10s %14s %8s %13s %13s %10s %8s %s\n' run "coord cpu%" "us/agent/tick" "ssh cpu%" \
    "merged req/s" "agents' req/s" merged/sum running exact
r=1
while [ $r -le "$reps" ]; do
    rm -f "$tmp/s.jsonl"
    timeout -k 5 "$limit" taskset -c 1 "$brink" run --headless --config "$tmp/run.ini" \
        --duration "${seconds}s" --record "$tmp/s.jsonl" </dev/null >"$tmp/run.out" 2>"$tmp/run.err" &
    client_pid=$!
    # timeout's child is brink.
    tick_seen 1 || { echo "run $r: no tick: $(grep -v '^t=' "$tmp/run.err" | head -n 3)" >>"$tmp/problems"; }
    brink_pid=$(cat /proc/"$client_pid"/task/*/children 2>/dev/null | head -n 1)
    first="" last=""
    if [ -n "$brink_pid" ] && tick_seen 2; then
        first=$(sample "$brink_pid")
        tick_seen $((seconds - 1)) && last=$(sample "$brink_pid")
    fi
    wait "$client_pid"
    rc=$?
    client_pid=""
    if [ "$rc" -ne 0 ] || [ -z "$last" ]; then
        echo "run $r: exit $rc; $(grep -v '^t=' "$tmp/run.err" | head -n 3 | tr '\n' ' ')" >>"$tmp/problems"
        r=$((r + 1))
        continue
    fi
    merged=$(report_rps "$tmp/s.jsonl")
    sum=0
    for i in 0 1 2; do
        sum=$(awk -v s="$sum" -v a="$(report_rps --agent "agent$i" "$tmp/s.jsonl")" 'BEGIN { print s + a }')
    done
    python3 tests/agents/session_facts.py "$tmp/s.jsonl" >"$tmp/facts"
    running=$(awk '$1 == "rate" { printf "%.4f", ($3 > 0 ? $2 / $3 : 0) }' "$tmp/facts")
    exact=$(awk '$1 == "completed" { print ($2 == $3 ? "yes" : "no") " (" $2 " vs " $3 ")" }' "$tmp/facts")
    echo "$first $last" | awk -v hz="$hz" -v run="$r" -v m="$merged" -v s="$sum" -v w="$running" -v x="$exact" '{
        wall = ($4 - $1) / 1000; own = ($5 - $2) / hz; ssh = ($6 - $3) / hz
        printf "%-4s %10.2f %14.0f %8.2f %13.0f %13.0f %10.4f %8s %s\n", run, own / wall * 100,
            own * 1e6 / (3 * wall), ssh / wall * 100, m, s, (s > 0 ? m / s : 0), w, x }' |
        tee -a "$tmp/rows"
    r=$((r + 1))
done

if [ -s "$tmp/rows" ]; then
    echo
    printf 'median: coordinator %s %% of a core (goal < 2), %s us of CPU per agent per tick, ssh clients %s %%\n' \
        "$(bench_median "$tmp/rows" 2)" "$(bench_median "$tmp/rows" 3)" "$(bench_median "$tmp/rows" 4)"
    printf 'median: merged/sum %s, over the whole ticks %s (goal 1 within 0.005)\n' \
        "$(bench_median "$tmp/rows" 7)" "$(bench_median "$tmp/rows" 8)"
fi
bench_notes "agents"
exit 0
