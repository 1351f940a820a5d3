#!/bin/sh
# brink run --agents over real OpenSSH (docs/agents.md): three hosts, each
# Debian's sshd in a network namespace of its own (tests/agents/lib.sh;
# three sshd ports on 127.0.0.1 where namespaces cannot be made), where ssh
# starts `brink agent` from the brink under test; brink target in a fourth
# namespace that only the agents reach. Checked against ground truth:
#   - the fixture: every host answers over ssh with its own address, its
#     sessions run /bin/sh in an empty home (not the user's login files),
#     and the target answers from every agent's namespace;
#   - a run of three agents: the merged request count is the target's
#     count of requests served; every merged tick's histogram is the exact
#     sum of its agents' (the session holds both, decoded here by
#     tests/agents/session_facts.py, not by brink); the report's p99 lies in
#     the bucket of the p99 of the union of the agents' histograms;
#   - a live `]` (headless stdin) doubles every agent's concurrency within
#     one tick of the command, and the target sees twice the connections;
#   - killing one agent's sshd and its session mid-run marks it lost within
#     3 ticks, says so in the event log, and the run finishes with the two
#     others; so does a hung link (the session's sshd stopped, its TCP
#     connection open and silent), and the agent cut off that way stops by
#     itself;
#   - one agent killed mid-ramp (6, 12, 24, 48 users): its share goes to the
#     two left, so every step's merged users are its plan level, the step
#     table has one row per step at that level, and the target's count
#     less the merged one is within what the report says the lost agent
#     may have done after its last tick;
#   - a probe on agents ([probe] on = agents, a command reading the
#     addresses of the namespace it runs in) ran inside each agent's
#     namespace: the merged session's addrs@agentI is what the same command
#     reads in agent I's namespace;
#   - after every run, however it ended (stop, its duration, SIGKILL to the
#     coordinator), no process of any agent's session is left after 5 s.
# Usage: sh test_agents_ssh.sh BRINK SRCDIR
brink=$1
src=$2

. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"
. "$src/tests/agents/lib.sh"

# The agents run the same binary by its path (the namespaces share the
# file system).
case $brink in
/*) ;;
*) brink=$(pwd)/$brink ;;
esac

target_setup
trap 'ag_cleanup; target_cleanup' EXIT
trap 'exit 1' INT TERM HUP PIPE

if ! ag_setup "$tmp/agents" 2>"$tmp/fixture.err" || ! ag_start 2>>"$tmp/fixture.err"; then
    not_ok "the agents' fixture starts" "$(cat "$tmp/fixture.err")"
    finish
    exit 1
fi
ok "three sshd hosts ($ag_mode mode)"

for i in 0 1 2; do
    got=$(timeout 20 $ag_ssh "agent$i" 'echo "$SSH_CONNECTION"' 2>"$tmp/ssh.err" | awk '{ print $3 ":" $4 }')
    check "ssh agent$i lands on its own sshd" "$(ag_var addr $i):$(ag_var port $i)" "$got"
done
# The sessions run without the user's login files (a host's ~/.bashrc can
# neither hang nor change them): their home is the fixture's, empty, and
# /bin/sh runs the command.
check "a session's home is the fixture's, with no files in it" "$tmp/agents/home 0" \
    "$(timeout 20 $ag_ssh agent0 'echo "$HOME $(ls -A "$HOME" | wc -l)"' 2>"$tmp/ssh.err")"
check "a session's command runs in /bin/sh" "$(readlink -f /bin/sh)" \
    "$(timeout 20 $ag_ssh agent0 'readlink /proc/$$/exe; true' 2>"$tmp/ssh.err")"

target_in=$ag_target_run
if ! start_target --listen "$ag_target_addr:0"; then
    not_ok "brink target starts in its namespace" "$(cat "$tmp/target.err")"
    finish
    exit 1
fi
for i in 0 1 2; do
    check "the target answers agent$i" 200 \
        "$(ag_in_agent $i curl -s -m 10 -o /dev/null -w '%{http_code}' "$url/bytes/1")"
done

# conf NAME CONCURRENCY: $tmp/NAME.ini, a closed run of the three agents
# against /bytes/64.
conf() {
    cat >"$tmp/$1.ini" <<EOF
[target]
url = $url/bytes/64
timeout = 5s

[load]
concurrency = $2

[agents]
hosts = $(echo "$ag_hosts" | sed 's/,/, /g')
ssh = $ag_ssh
brink = $brink
EOF
}

# facts NAME: the session's facts (session_facts.py) in $tmp/NAME.facts.
facts() {
    python3 "$src/tests/agents/session_facts.py" "$tmp/$1.jsonl" >"$tmp/$1.facts" 2>"$tmp/$1.facts.err" ||
        not_ok "$1: session_facts.py reads the session" "$(tail -n 3 "$tmp/$1.facts.err")"
}

# fact NAME KEY [FIELD]: field FIELD (2 unless given) of the first fact KEY.
fact() {
    awk -v k="$2" -v f="${3:-2}" '$1 == k { print $f; exit }' "$tmp/$1.facts"
}

# last_tick FILE: the number of the latest tick line (t=Ns) in FILE.
last_tick() {
    sed -n 's/^t=\([0-9]*\)s .*/\1/p' "$1" | tail -n 1
}

# no_agent_left WHAT: every agent's sessions are gone within 5 s.
no_agent_left() {
    left=""
    for i in 0 1 2; do
        ag_wait_idle $i 5 || left="$left agent$i:$(ag_procs $i | tr '\n' ' ')"
    done
    if [ -z "$left" ]; then
        ok "$1: no agent process is left after 5 s"
    else
        not_ok "$1: no agent process is left after 5 s" "left:$left"
    fi
}

# --- A run of three agents, doubled live, stopped from stdin. -------------

# live_run: the run, doubled once it ticks, stopped two ticks later;
# returns 1 when it never ticked (so the commands are not sent).
live_run() {
    rm -f "$tmp/cmds"
    mkfifo "$tmp/cmds"
    timeout 120 "$brink" run --headless --config "$tmp/live.ini" --duration 0 --record "$tmp/live.jsonl" \
        <"$tmp/cmds" >"$tmp/live.out" 2>"$tmp/live.err" &
    run_pid=$!
    exec 5>"$tmp/cmds"
    if ! wait_count "$tmp/live.err" '^t=[0-9]+s ' 2 60; then
        not_ok "the three agents start and tick" "$(tail -n 5 "$tmp/live.err")"
        exec 5>&-
        kill "$run_pid" 2>/dev/null
        wait "$run_pid"
        run_pid=""
        return 1
    fi
    ok "the three agents start and tick"
    # The target's count holds the connection that asks it too.
    check "the target holds 6 connections of the agents" 7 "$(wait_truth active_connections 7)"
    echo "]" >&5
    check "after ] it holds 12" 13 "$(wait_truth active_connections 13)"
    k=$(last_tick "$tmp/live.err")
    wait_count "$tmp/live.err" '^t=[0-9]+s ' $((k + 2)) 20
    echo "stop" >&5
    exec 5>&-
    wait "$run_pid"
    status=$?
    run_pid=""
    check "the stopped run exits 0" 0 "$status"
}

# report_total KEY...: a figure of the live run's report (--format json).
report_total() {
    "$brink" report "$tmp/live.jsonl" --format json | python3 -c '
import json, sys
v = json.load(sys.stdin)["total"]
for k in sys.argv[1:]:
    v = v[k]
print(v)' "$@"
}

# live_checks: the live run's counts and histograms against the target and
# the agents' own ticks.
live_checks() {
    facts live
    served=$(($(truth requests_by_endpoint bytes) - served0))
    check "the merged ticks count the $served requests the target served" "$served" "$(fact live completed)"
    check "the agents' ticks count them too" "$served" "$(fact live completed 3)"
    check "the report counts them" "$served" "$(report_total requests)"
    for i in 0 1 2; do
        check_ge "agent$i recorded its ticks" 3 \
            "$(awk -v a="agent$i" '$1 == "agent_ticks" && $2 == a { print $3 }' "$tmp/live.facts")"
    done
    check_ge "ticks that timed requests" 3 "$(fact live hist_mismatch 3)"
    check "every merged histogram is the exact sum of its agents'" 0 "$(fact live hist_mismatch)"
    p99=$(report_total latency_us p99)
    lo=$(fact live p99)
    hi=$(fact live p99 3)
    holds "the report's p99 ($p99 us) is in the union's p99 bucket ($lo..$hi us)" \
        "p >= lo && p <= hi" -v p="$p99" -v lo="$lo" -v hi="$hi"
}

# double_checks: the tick that holds the ] command, and each agent's first
# tick at 4 users.
double_checks() {
    cmd_seq=$(awk '$1 == "event" && $4 == "command" { print $2; exit }' "$tmp/live.facts")
    if [ -z "$cmd_seq" ]; then
        not_ok "the event log holds the ] command" "$(grep '^event' "$tmp/live.facts" | head -n 5)"
        return
    fi
    for i in 0 1 2; do
        before=$(awk -v a="agent$i" -v c="$cmd_seq" '$1 == "conc" && $2 == a && $3 < c { t = $4 } END { print t }' "$tmp/live.facts")
        at=$(awk -v a="agent$i" '$1 == "conc" && $2 == a && $4 == 4 { print $3; exit }' "$tmp/live.facts")
        check "agent$i ran 2 users before the ]" 2 "$before"
        holds "agent$i runs 4 within one tick of the ] (tick $cmd_seq; its first at 4: ${at:-none})" \
            "a != \"\" && a <= c + 1" -v a="$at" -v c="$cmd_seq"
    done
}

# probe_checks: the probe on agents of the live run ran in each agent's own
# namespace: its value for agentI (the merged session's addrs@agentI) is
# what the same command reads in that namespace here; in netns mode the
# three differ (each namespace has its own addresses).
probe_checks() {
    got=$(python3 - "$tmp/live.jsonl" <<'EOF'
import json, sys
last = {}
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("type") == "tick":
        for p in o.get("probes", []):
            if p.get("value") is not None:
                last[p["name"]] = int(p["value"])
print(" ".join(str(last.get("addrs@agent%d" % i)) for i in range(3)))
EOF
)
    want=""
    for i in 0 1 2; do
        want="$want $(ag_in_agent $i sh -c "$addrs_cmd" | cut -d' ' -f1)"
    done
    check "a probe on agents ran in each agent's namespace (addrs@agentI: the checksum of its addresses)"         "${want# }" "$got"
    if [ "$ag_mode" = netns ]; then
        check "the three namespaces' values differ" 3 "$(echo "$got" | tr ' ' '\n' | sort -u | grep -c .)"
    fi
}

conf live 6
# A probe on agents: the checksum of the addresses of the namespace it runs in.
addrs_cmd="$(command -v ip) -o -4 addr show | cksum"
cat >>"$tmp/live.ini" <<EOF

[probe addrs]
type = command
command = $addrs_cmd
regex = ^([0-9]+)
interval = 200ms
on = agents
EOF
chmod 600 "$tmp/live.ini"
served0=$(truth requests_by_endpoint bytes)
if live_run; then
    no_agent_left "a stop"
    live_checks
    double_checks
    probe_checks
fi

# --- Faults: one agent lost mid-run, the run goes on with two. -----------

# fault_run NAME I HOW: a 9 s run of the three agents; once it has ticked
# twice, HOW (ag_kill or ag_freeze) strikes agent I, at the time noted in
# $tmp/NAME.fault (ms since the epoch). Tick K covers K s to K+1 s of the
# run; the strike falls in tick K or later, K being the larger of the last
# tick line seen before it (t=Ks ends tick K-1) and one past the last tick
# of agent I that reached the merge (that tick ended, and crossed the link,
# before the strike). Checks that agent I's row says lost by tick K+3 and
# the event log by the end of that tick, that the two others stay in the
# merge to the last tick and that the run exits 0. Returns 1 when the run
# never ticked.
fault_run() {
    conf "$1" 6
    timeout 120 "$brink" run --headless --config "$tmp/$1.ini" --duration 9s --record "$tmp/$1.jsonl" \
        </dev/null >"$tmp/$1.out" 2>"$tmp/$1.err" &
    run_pid=$!
    if ! wait_count "$tmp/$1.err" '^t=[0-9]+s ' 2 60; then
        not_ok "$1: the run of three agents starts" "$(tail -n 5 "$tmp/$1.err")"
        kill "$run_pid" 2>/dev/null
        wait "$run_pid"
        run_pid=""
        return 1
    fi
    k=$(last_tick "$tmp/$1.err")
    now_ms >"$tmp/$1.fault"
    $3 "$2"
    wait "$run_pid"
    status=$?
    run_pid=""
    check "$1: the run with a lost agent ends with status 0" 0 "$status"
    facts "$1"
    went=$(awk -v a="agent$2" '$1 == "in" && $2 == a { s = $3 } END { print s }' "$tmp/$1.facts")
    [ -n "$went" ] && [ "$went" -ge "$k" ] && k=$((went + 1))
    seq=$(awk -v a="agent$2" '$1 == "lost" && $2 == a { print $3 }' "$tmp/$1.facts")
    said=$(awk -v a="agent$2" '$1 == "event" && index($0, a) && /lost/ { print $3; exit }' "$tmp/$1.facts")
    holds "$1: agent$2 is marked lost within 3 ticks (struck in tick $k or later, lost from tick ${seq:-none})" \
        "s != \"\" && s <= k + 3" -v s="$seq" -v k="$k"
    holds "$1: the event log says agent$2 was lost by then (at ${said:-no} ms)" \
        "e != \"\" && e < (k + 4) * 1000" -v e="$said" -v k="$k"
    n=$(fact "$1" ticks)
    for i in 0 1 2; do
        [ "$i" = "$2" ] && continue
        last=$(awk -v a="agent$i" '$1 == "in" && $2 == a { s = $3 } END { print s }' "$tmp/$1.facts")
        check "$1: agent$i is in the merge to the last tick" "$((n - 1))" "$last"
    done
}

# A dead agent: its sshd and session killed, so its connection drops.
if fault_run kill 2 ag_kill; then
    no_agent_left "a run that lost an agent"
fi
ag_restart 2 2>"$tmp/fixture.err" || not_ok "agent2's sshd starts again" "$(cat "$tmp/fixture.err")"

# A hung link: agent1's session sshd stopped, its TCP connection open and
# silent. The coordinator hears nothing; the agent hears nothing either
# and must stop by itself.
if fault_run hang 1 ag_freeze; then
    ag_wait_idle 1 10 user
    took=$(($(now_ms) - $(cat "$tmp/hang.fault")))
    left=$(ag_user_procs 1 | tr '\n' ' ')
    check "hang: agent1's brink agent stopped by itself once cut off (${took} ms after)" "" "$left"
fi
ag_kill 1
ag_restart 1 2>"$tmp/fixture.err" || not_ok "agent1's sshd starts again" "$(cat "$tmp/fixture.err")"

# --- An agent lost mid-ramp: its share goes to the two left. --------------

# A staircase of 6, 12, 24, 48 users against /delay/200 (the target paces
# the load, so an agent keeps its last tick's pace); agent1 (sshd and
# session) killed half
# a tick into step 1's first measured tick. Every step's merged users are
# its plan level, the step table has one row per step at that level, and
# the target served no more than the merge counts plus what the report
# says agent1 may have done after its last tick.
conf lostramp 3
sed -i "s|^url = .*|url = $url/delay/200|" "$tmp/lostramp.ini"
cat >>"$tmp/lostramp.ini" <<EOF

[ramp]
steps = 6, 12, 24, 48
warmup = 500ms
hold = 2s
EOF
served0=$(truth requests_by_endpoint delay)
timeout 120 "$brink" run --headless --config "$tmp/lostramp.ini" --ramp --duration 60s \
    --record "$tmp/lostramp.jsonl" </dev/null >"$tmp/lostramp.out" 2>"$tmp/lostramp.err" &
run_pid=$!
if wait_count "$tmp/lostramp.err" '^t=1s ' 1 60; then
    sleep 0.5
    ag_kill 1
    wait "$run_pid"
    status=$?
    run_pid=""
    served=$(($(truth requests_by_endpoint delay) - served0))
    check "lostramp: the ramp that lost agent1 ends with status 0" 0 "$status"
    facts lostramp
    check "lostramp: every step's merged users (target and active) are its plan level" \
        "6:6 12:12 24:24 48:48" \
        "$(awk '$1 == "step_users" { printf "%s%s:%s", sep, $3, $4; sep = " " }' "$tmp/lostramp.facts")"
    "$brink" report "$tmp/lostramp.jsonl" >"$tmp/lostramp.report" 2>/dev/null
    check "lostramp: the step table has one row per step, at its plan level" \
        "1/4:c=6 2/4:c=12 3/4:c=24 4/4:c=48" \
        "$(awk '/^steps:/ { on = 1; next } on && /^ +[0-9]+\/[0-9]+ / { printf "%s%s:%s", sep, $1, $2; sep = " " } on && /^$/ { on = 0 }' "$tmp/lostramp.report")"
    "$brink" report --format json "$tmp/lostramp.jsonl" >"$tmp/lostramp.json"
    merged=$(fact lostramp completed)
    bound=$(python3 -c '
import json, sys
lost = json.load(open(sys.argv[1])).get("agents", {}).get("lost", [])
print(" ".join("%s:%s" % (l["name"], l.get("uncounted_requests", "none")) for l in lost) or "none")' "$tmp/lostramp.json")
    holds "lostramp: the target served $((served - merged)) requests the merge lacks, within what the report says agent1 may have done ($bound)" \
        "b ~ /^agent1:[0-9]+$/ && g >= 0 && g <= substr(b, 8) + 0" -v g="$((served - merged))" -v b="$bound"
else
    not_ok "lostramp: the run of three agents starts" "$(tail -n 5 "$tmp/lostramp.err")"
    kill "$run_pid" 2>/dev/null
    wait "$run_pid"
    run_pid=""
fi
ag_restart 1 2>"$tmp/fixture.err" || not_ok "agent1's sshd starts again" "$(cat "$tmp/fixture.err")"

# --- One host slow to log in: the others wait for it. ---------------------

# agent2's ssh starts 7 s late (a host whose login is slow: DNS, a PAM
# module, a heavy shell start-up), longer than an agent's 5 s of patience
# with a silent coordinator: the ready ones must be kept talking.
cat >"$tmp/slow-ssh" <<EOF
#!/bin/sh
# ARGS: -F CONFIG -o BatchMode=yes HOST BRINK agent
[ "\$5" = agent2 ] && sleep 7
exec ssh "\$@"
EOF
chmod +x "$tmp/slow-ssh"
conf slow 3
sed -i "s|^ssh = ssh |ssh = $tmp/slow-ssh |" "$tmp/slow.ini"
timeout 120 "$brink" run --headless --config "$tmp/slow.ini" --duration 2s --no-record \
    </dev/null >"$tmp/slow.out" 2>"$tmp/slow.err"
status=$?
if [ "$status" -eq 0 ]; then
    ok "a host 7 s slower to log in: the run ends with status 0"
else
    not_ok "a host 7 s slower to log in: the run ends with status 0" \
        "exit $status; $(grep -v '^t=' "$tmp/slow.err" | head -n 3)"
fi
check "its report counts three agents, every tick whole" "agents: 3, every tick whole" \
    "$(grep -m 1 '^agents:' "$tmp/slow.out")"

# --- The coordinator killed: its agents do not outlive it. -----------------

conf orphan 3
# Not under timeout: the SIGKILL goes to brink itself (the EXIT trap kills
# it too).
"$brink" run --headless --config "$tmp/orphan.ini" --duration 30s --no-record \
    </dev/null >"$tmp/orphan.out" 2>"$tmp/orphan.err" &
run_pid=$!
if wait_count "$tmp/orphan.err" '^t=[0-9]+s ' 1 60; then
    clients=$(cat /proc/"$run_pid"/task/*/children 2>/dev/null)
    kill -9 "$run_pid"
    wait "$run_pid" 2>/dev/null
    run_pid=""
    no_agent_left "SIGKILL to the coordinator"
    # kill -0 with several pids fails once any one is gone: wait on each.
    i=0
    for c in $clients; do
        while kill -0 "$c" 2>/dev/null && [ $i -lt 100 ]; do
            sleep 0.05
            i=$((i + 1))
        done
    done
    alive=""
    for c in $clients; do
        kill -0 "$c" 2>/dev/null && alive="$alive $c" && kill -9 "$c"
    done
    check "its ssh clients ($(echo "$clients" | tr "\n" " ")) are gone within 5 s" "" "$alive"
else
    not_ok "the run of three agents starts" "$(tail -n 5 "$tmp/orphan.err")"
fi

finish
