#!/bin/sh
# brink run with agents (issue 20, docs/agents.md), three agents on this
# machine: [agents] ssh is fake_ssh.sh, which drops the HOST word and runs
# `brink agent` here, so no sshd is needed (tests/agents runs the same over
# OpenSSH). One brink target is the ground truth:
#   1. the merged request count is the target's; the agents' counts add up
#      to it; the union of the agents' histograms (their own ticks in the
#      session) equals the merged ones bucket by bucket, and the report's
#      p99 lies in the union's p99 bucket; brink report --agent shows one
#      agent; weights split the users 2:1:1
#   2. a live ] (double on stdin) doubles every agent's users within one
#      tick of the first agent that did
#   3. an agent killed mid-run (SIGKILL) and one stopped (SIGSTOP) are each
#      marked lost within 3 ticks, the first one's share goes to the two
#      left, the run finishes with the third, and the report names the
#      partial ticks
#   4. SIGTERM to the coordinator stops every agent within a few seconds,
#      and so does SIGKILL (the agents' input closes)
#   5. an agent of another protocol version: exit 2 at once, both versions
#      named; brink agent itself refuses a coordinator of another version;
#      an agent that cannot start: one line naming the host and its stderr
#   6. a script whose module and data file are not shipped: exit 1 with the
#      agent's words; with [agents] files naming them, both agents run it
#   7. a command probe on agents ([probe] on = agents) prints its agent's
#      PID: the merged session holds each agent's own as pid@HOST, the
#      report shows them; too many series for the agents: refused at once
#   8. a [ramp] plan with agents is judged once, by the coordinator, on the
#      merged ticks: one verdict per step, one breaking point, no agent
#      judging its share, the stop reaching every agent in the same tick
#   9. the ramp keys on stdin (ramp, next, a pause, ramp again) act on the
#      coordinator's plan: each plan event said once, paused agents resume
#  10. an agent killed mid-ramp (a staircase of 6, 12, 24, 48 users): its
#      share goes to the two left at once, so every step's merged users
#      (target and active) are its plan level; the step table has one row
#      per step at that level and no other; the target's count less the
#      merged one is within what the report says the lost agent may have
#      done after its last tick (its last rate over its interval, plus
#      twice its requests in flight); the HTML page and csv-lost give the
#      JSON's figures for it, and csv's agents_missing marks the partial
#      ticks
# Every run is bounded by its duration or a stop, and by timeout 60.
# Usage: sh test_agents.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup
must_start_target --listen 127.0.0.1:0

# truth KEY: a counter of the target's /stats (the /stats request itself
# counts in requests_total, after it is answered).
truth() {
    curl -s "$url/stats" | python3 -c "import json, sys; print(json.load(sys.stdin)['$1'])"
}

# still_running PID...: those of the PIDs still alive once each had until
# 5 s from now to end.
still_running() {
    deadline=$(($(now_ms) + 5000))
    for k in "$@"; do
        while kill -0 "$k" 2>/dev/null && [ "$(now_ms)" -lt "$deadline" ]; do sleep 0.05; done
        kill -0 "$k" 2>/dev/null && printf ' %s' "$k"
    done
}

# experiment FILE HOSTS [WEIGHTS]: three agents through fake_ssh.sh.
experiment() {
    cat >"$1" <<EOF
[target]
url = $url/bytes/100
[load]
concurrency = 8
[agents]
hosts = $2
ssh = sh $src/tests/e2e/fake_ssh.sh -o BatchMode=yes
brink = $brink
EOF
    [ -n "${3:-}" ] && echo "weights = $3" >>"$1"
}

# live_start NAME: $tmp/NAME.ini run headless until stopped, recorded in
# $tmp/NAME.jsonl, its standard input a FIFO held open on fd 3 (so lines
# written there are its commands); sets run_pid.
live_start() {
    rm -f "$tmp/cmds"
    mkfifo "$tmp/cmds"
    timeout 60 "$brink" run --headless --config "$tmp/$1.ini" --duration 0 --record "$tmp/$1.jsonl" \
        <"$tmp/cmds" >"$tmp/$1.out" 2>"$tmp/$1.err" &
    run_pid=$!
    exec 3>"$tmp/cmds"
}

# agents_of PID: the agent processes of the run PID (under timeout): the
# coordinator's children, which fake_ssh.sh made brink agent. Waits until
# there are three (at most 10 s). Run in $(...): sets nothing.
agents_of() {
    coordinator=$(ps -o pid= --ppid "$1" | tr -d ' ')
    deadline=$(($(now_ms) + 10000))
    while [ "$(ps -o pid= --ppid "$coordinator" | wc -l)" -lt 3 ] && [ "$(now_ms)" -lt "$deadline" ]; do
        sleep 0.05
    done
    ps -o pid= --ppid "$coordinator" | tr -d ' ' | tr '\n' ' '
}

# agent_field FILE SEQ FIELD AGENT...: a field of each agent's tick SEQ,
# in the order the agents are named, on one line.
agent_field() {
    python3 - "$@" <<'EOF'
import json, sys
path, seq, field, agents = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
got = {}
for line in open(path):
    if '"agent_tick"' not in line:
        continue
    o = json.loads(line)
    if o["seq"] == seq:
        got[o["agent"]] = o.get(field, 0)
print(" ".join(str(got.get(a)) for a in agents))
EOF
}

# --- 1. the merge against the target's count ---------------------------------------
experiment "$tmp/three.ini" "a1, a2, a3" "2, 1, 1"
before=$(truth requests_total)
timeout 60 "$brink" run --headless --config "$tmp/three.ini" --duration 3s --record "$tmp/three.jsonl" \
    </dev/null >"$tmp/three.out" 2>"$tmp/three.err"
status=$?
after=$(truth requests_total)
check "three agents: the run ends with status 0" 0 "$status"
merged=$("$brink" report --format json "$tmp/three.jsonl" | python3 -c 'import json, sys; print(json.load(sys.stdin)["total"]["requests"])')
# The first /stats call is counted after its answer, so it is in "after".
check "the merged request count is the target's" "$((after - before - 1))" "$merged"
sum=0
for a in a1 a2 a3; do
    n=$("$brink" report --format json --agent "$a" "$tmp/three.jsonl" | python3 -c 'import json, sys; print(json.load(sys.stdin)["total"]["requests"])')
    sum=$((sum + n))
done
check "report --agent: the agents' counts add up to the merge" "$merged" "$sum"
eval "$(python3 "$src/tests/e2e/agents_hist.py" "$tmp/three.jsonl" | tr ' ' '\n' | sed 's/^/h_/')"
check "the session holds three agents' ticks" 3 "$h_n_agents"
check "the union of the agents' histograms is the merged one, bucket by bucket" "1 $merged" \
    "$h_same_buckets $h_agents"
p99=$("$brink" report --format json "$tmp/three.jsonl" | python3 -c 'import json, sys; print(json.load(sys.stdin)["total"]["latency_us"]["p99"])')
holds "the merged p99 ($p99 us) is the p99 of the agents' union [$h_p99_lo, $h_p99_hi)" \
    "p >= lo - 1 && p <= hi" -v p="$p99" -v lo="$h_p99_lo" -v hi="$h_p99_hi"
check "weights 2, 1, 1 split 8 users 4, 2, 2" "4 2 2" \
    "$(agent_field "$tmp/three.jsonl" 0 target_concurrency a1 a2 a3)"
check "the report says every tick was whole" 1 "$(grep -c '^agents: 3, every tick whole' "$tmp/three.out")"
expect_run "report --agent of no such agent: exit 1, naming it" 1 "" \
    'brink: report: .*: no ticks of agent "zz"' -- "$brink" report --agent zz "$tmp/three.jsonl"

# --- 2. a live ] reaches every agent within one tick -------------------------------
experiment "$tmp/live.ini" "b1, b2, b3"
live_start live
if wait_count "$tmp/live.err" '^t=[0-9]+s c=8 ' 2 20; then ok "the live run shows c=8"; else not_ok "the live run shows c=8" "$(tail -3 "$tmp/live.err")"; fi
echo "]" >&3
if wait_count "$tmp/live.err" '^t=[0-9]+s c=16 ' 2 20; then ok "] doubles the merged users to 16"; else not_ok "] doubles the merged users to 16" "$(tail -3 "$tmp/live.err")"; fi
echo "stop" >&3
exec 3>&-
wait "$run_pid"
status=$?
run_pid=""
check "stop ends the live run with status 0" 0 "$status"
# The first tick where some agent has doubled, and where all have.
spread=$(python3 - "$tmp/live.jsonl" <<'EOF'
import json, sys
first, seen, start = {}, {}, {}
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("type") == "agent_tick":
        a, c = o["agent"], o["target_concurrency"]
        start.setdefault(a, c)
        seen[a] = c
        if c == 2 * start[a] and a not in first:
            first[a] = o["seq"]
# 8 users over three agents: 3, 3, 2; doubled 6, 6, 4.
print("%d %s" % (max(first.values()) - min(first.values()) if len(first) == 3 else 99, sorted(seen.values())))
EOF
)
check "] doubled each agent (3, 3, 2 to 6, 6, 4) within one tick of the first" "0 [4, 6, 6]" "$spread"

# --- 3. faults: a killed agent and a hung one are lost, the run goes on ---------------
experiment "$tmp/fault.ini" "c1, c2, c3"
timeout 60 "$brink" run --headless --config "$tmp/fault.ini" --duration 9s --record "$tmp/fault.jsonl" \
    </dev/null >"$tmp/fault.out" 2>"$tmp/fault.err" &
run_pid=$!
wait_count "$tmp/fault.err" '^t=[0-9]+s c=8 ' 2 20 || not_ok "the fault run starts" "$(tail -3 "$tmp/fault.err")"
# The coordinator's children are the agents (fake_ssh.sh execs brink agent), c1 first.
kids=$(agents_of "$run_pid")
set -- $kids
check "the coordinator runs three agent processes" 3 "$#"
kill -KILL "$1"
if wait_count "$tmp/fault.err" 'agent c1 lost' 1 20; then ok "a killed agent is said lost"; else not_ok "a killed agent is said lost" "$(tail -3 "$tmp/fault.err")"; fi
# Its 3 users go to the two left: the run keeps its 8.
if wait_count "$tmp/fault.err" "share goes to the 2 left: c=8 in all" 1 20; then ok "the lost agent's share goes to the two left"; else not_ok "the lost agent's share goes to the two left" "$(tail -3 "$tmp/fault.err")"; fi
kill -STOP "$2"
hung=$2
if wait_count "$tmp/fault.err" 'agent c2 lost' 1 20; then ok "a hung agent is said lost"; else not_ok "a hung agent is said lost" "$(tail -3 "$tmp/fault.err")"; fi
wait "$run_pid"
status=$?
run_pid=""
kill -CONT "$hung" 2>/dev/null
check "the run finishes with the third agent, status 0" 0 "$status"
lost_within=$(python3 - "$tmp/fault.jsonl" <<'EOF'
import json, sys
# For each lost agent: the ticks from its last tick in the merge to the
# merged tick whose events say it was lost.
last_in, said = {}, {}
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("type") != "tick":
        continue
    for a in o.get("agents", []):
        if a.get("in"):
            last_in[a["name"]] = o["seq"]
    for e in o.get("events", []):
        for name in ("c1", "c2"):
            if e["text"].startswith("agent %s lost" % name) and name not in said:
                said[name] = o["seq"]
print(" ".join("%s:%s" % (n, "ok" if n in said and said[n] - last_in[n] <= 3 else "late")
               for n in ("c1", "c2")))
EOF
)
check "each lost agent is marked lost within 3 ticks of its last tick" "c1:ok c2:ok" "$lost_within"
check "the report names the partial ticks" 1 "$(grep -c '^agents: 3; partial ticks' "$tmp/fault.out")"
check "the requests of the run still match the merge of the agents" 1 "$(python3 "$src/tests/e2e/agents_hist.py" "$tmp/fault.jsonl" | grep -c 'same_buckets=1')"

# --- 4. SIGTERM to the coordinator stops every agent ----------------------------------
experiment "$tmp/term.ini" "d1, d2, d3"
timeout 60 "$brink" run --headless --config "$tmp/term.ini" --duration 0 --no-record \
    </dev/null >"$tmp/term.out" 2>"$tmp/term.err" &
run_pid=$!
wait_count "$tmp/term.err" '^t=[0-9]+s c=8 ' 1 20 || not_ok "the SIGTERM run starts" "$(tail -3 "$tmp/term.err")"
kids=$(agents_of "$run_pid")
set -- $kids
check "the coordinator runs three agent processes" 3 "$#"
kill -TERM "$(ps -o pid= --ppid "$run_pid" | tr -d ' ')"
wait "$run_pid"
status=$?
run_pid=""
check "SIGTERM: the coordinator ends with status 0 and the report" "0 1" "$status $(grep -c '^duration ' "$tmp/term.out")"
left=$(still_running $kids)
check "SIGTERM: no agent process is left within 5 s" "" "$left"
for k in $left; do kill -9 "$k"; done
# SIGKILL leaves the coordinator no say: its agents see their input close.
timeout 60 "$brink" run --headless --config "$tmp/term.ini" --duration 0 --no-record \
    </dev/null >"$tmp/kill.out" 2>"$tmp/kill.err" &
run_pid=$!
wait_count "$tmp/kill.err" '^t=[0-9]+s c=8 ' 1 20 || not_ok "the SIGKILL run starts" "$(tail -3 "$tmp/kill.err")"
kids=$(agents_of "$run_pid")
kill -KILL "$(ps -o pid= --ppid "$run_pid" | tr -d ' ')"
wait "$run_pid"
run_pid=""
left=$(still_running $kids)
check "SIGKILL of the coordinator: no agent process is left within 5 s" "" "$left"
for k in $left; do kill -9 "$k"; done

# --- 5. versions and start-up failures ----------------------------------------------------
experiment "$tmp/old.ini" "e1, e2"
sed -i "s|^brink = .*|brink = sh $src/tests/e2e/agent_hello.sh 99|" "$tmp/old.ini"
expect_run "an agent of protocol 99: exit 2, naming both versions" 2 "" \
    "^brink: run: agent e[12]: protocol version mismatch: this coordinator \(brink .*\) speaks 2, the agent \(brink 9.9.9\) speaks 99$" \
    -- timeout 20 "$brink" run --headless --config "$tmp/old.ini" --duration 2s --no-record
printf '{"type":"hello","protocol":7,"brink":"0.0.1"}\n' >"$tmp/hello7"
expect_run "brink agent refuses a coordinator of protocol 7: exit 2, both versions named" 2 \
    '"type":"error".*mismatch' "^brink: agent: protocol version mismatch: the coordinator \(brink 0.0.1\) speaks 7, this agent \(brink .*\) speaks 2$" \
    -- timeout 20 "$brink" agent <"$tmp/hello7"
experiment "$tmp/nobrink.ini" "f1"
sed -i "s|^brink = .*|brink = $tmp/no-such-brink|" "$tmp/nobrink.ini"
expect_run "an agent that cannot start: one line naming the host and its stderr" 1 "" \
    '^brink: run: agent f1: exited before it was ready \(it said ".*no-such-brink.*"\)$' \
    -- timeout 20 "$brink" run --headless --config "$tmp/nobrink.ini" --duration 2s --no-record

# --- 6. a scenario's own files ----------------------------------------------------------
# The script requires a module and its setup loads a data file: neither is
# named by the experiment, so the agents get them only through [agents] files.
mkdir "$tmp/scn"
printf 'a\nbb\nccc\n' >"$tmp/scn/ids.txt"
printf 'local M = {}\nfunction M.path(id) return "/bytes/" .. #id end\nreturn M\n' >"$tmp/scn/paths.lua"
cat >"$tmp/scn/s.lua" <<'EOF'
local paths = require("paths")
function setup()
    brink.load_lines("ids.txt", {name = "ids"})
end
function iteration(user)
    local ids = brink.data("ids")
    local r = brink.request{url = paths.path(ids[user.iteration % #ids + 1]), name = "get"}
    brink.check(r.status == 200 and #r.body >= 1 and #r.body <= 3, "sized")
end
EOF
experiment "$tmp/scn/s.ini" "s1, s2"
printf '[scenario]\nscript = s.lua\n' >>"$tmp/scn/s.ini"
expect_run "a script's module not shipped: exit 1, the agent's words" 1 "*" \
    '^brink: run: no agent ran the load: agent s[12] ended at the start \(it said ".*paths.*"\)$' \
    -- timeout 30 "$brink" run --headless --config "$tmp/scn/s.ini" --duration 1s --no-record
sed -i 's/^\(hosts = .*\)$/\1\nfiles = ids.txt, paths.lua/' "$tmp/scn/s.ini"
expect_run "[agents] files ships the script's module and data: both agents run it" 0 \
    '^agents: 2, every tick whole$' "*" \
    -- timeout 30 "$brink" run --headless --config "$tmp/scn/s.ini" --duration 1s --no-record

# --- 7. a probe on agents: each agent's own value ---------------------------------------
# The command prints its parent's PID: the brink agent that ran it. fake_ssh.sh
# gives each agent BRINK_FAKE_HOST=HOST, so /proc tells which PID is which host.
experiment "$tmp/probe.ini" "p1, p2, p:3"
cat >>"$tmp/probe.ini" <<'EOF'
[probe pid]
type = command
command = echo $PPID
interval = 100ms
on = agents
EOF
chmod 600 "$tmp/probe.ini"
timeout 60 "$brink" run --headless --config "$tmp/probe.ini" --duration 0 --record "$tmp/probe.jsonl" \
    </dev/null >"$tmp/probe.out" 2>"$tmp/probe.err" &
run_pid=$!
wait_count "$tmp/probe.err" '^t=[0-9]+s c=8 ' 2 20 || not_ok "the probe run starts" "$(tail -3 "$tmp/probe.err")"
want=""
for k in $(agents_of "$run_pid"); do
    h=$(tr '\0' '\n' <"/proc/$k/environ" | sed -n 's/^BRINK_FAKE_HOST=//p' | tr ':' '_')
    want="$want pid@$h=$k"
done
want=$(echo "$want" | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
kill -TERM "$(ps -o pid= --ppid "$run_pid" | tr -d ' ')"
wait "$run_pid"
status=$?
run_pid=""
check "the probe run ends with status 0" 0 "$status"
# The last merged tick's probe values, and the names in the agents' own ticks.
probe_facts=$(python3 - "$tmp/probe.jsonl" <<'EOF'
import json, sys
merged, own = {}, set()
for line in open(sys.argv[1]):
    o = json.loads(line)
    for p in o.get("probes", []):
        if o.get("type") == "tick" and p.get("value") is not None:
            merged[p["name"]] = int(p["value"])
        elif o.get("type") == "agent_tick":
            own.add(p["name"])
print(" ".join("%s=%d" % kv for kv in sorted(merged.items())), "| " + " ".join(sorted(own)))
EOF
)
check "the merged session holds each agent's own PID as pid@HOST (p:3 as p_3); its own ticks say pid" \
    "${want}| pid" "$probe_facts"
"$brink" report "$tmp/probe.jsonl" >"$tmp/probe.report"
check "the report's step table has a column for each agent's series" 1 \
    "$(grep -c 'pid@p1 max.*pid@p2 max.*pid@p_3 max' "$tmp/probe.report")"
experiment "$tmp/many.ini" "m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11"
for n in 1 2 3; do printf '[probe p%s]\ntype = command\ncommand = echo 1\non = agents\n' "$n" >>"$tmp/many.ini"; done
expect_run "33 probe series on 11 agents: refused at once, exit 2" 2 "" \
    "^brink: .*many.ini:[0-9]+: \[probe p3\] on: 3 probe series on each of 11 agents and 0 here make 33, more than 32" \
    -- "$brink" check "$tmp/many.ini"

# --- 8. a ramp plan judged once, on the merged ticks --------------------------------------
# The target serves 4 at a time with 4 waiting (5 ms each) and answers 503
# beyond: 4 and 6 users in all pass, 16 fail. The coordinator alone judges:
# one verdict per step, one breaking point, one stop reaching every agent in
# the same tick; the agents judge nothing (no step event of theirs).
curl -s -o /dev/null -X POST -d '{"workers": 4, "queue_max": 4, "service_ms": {"bytes": 5}}' "$url/_control"
experiment "$tmp/ramp.ini" "r1, r2, r3" "2, 1, 1"
cat >>"$tmp/ramp.ini" <<'EOF'
[ramp]
steps = 4, 6, 16, 24
warmup = 0s
hold = 1s
stop_when = error_rate > 1%
EOF
timeout 60 "$brink" run --headless --config "$tmp/ramp.ini" --ramp --duration 60s --record "$tmp/ramp.jsonl" \
    </dev/null >"$tmp/ramp.out" 2>"$tmp/ramp.err"
status=$?
curl -s -o /dev/null -X POST -d '{"workers": 64, "queue_max": 1024, "service_ms": {"bytes": 0}}' "$url/_control"
check "the ramp run fails its step 3: status 3" 3 "$status"
python3 - "$tmp/ramp.jsonl" >"$tmp/ramp.facts" <<'EOF'
import json, re, sys
verdicts, breaking, agent_steps, stop_at, shares = [], 0, 0, {}, {}
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("type") == "tick":
        plan = o.get("plan") or {}
        if plan.get("verdict") in ("pass", "fail"):
            verdicts.append("%d:%s" % (plan["step"], plan["verdict"]))
        for e in o.get("events", []):
            breaking += e["text"].startswith("breaking point: step 3 (c=16) failed: error_rate")
            agent_steps += bool(re.match(r"r\d: (ramp|breaking|knee)", e["text"]))
    elif o.get("type") == "agent_tick":
        a = o["agent"]
        if o.get("state") != "running" and a not in stop_at:
            stop_at[a] = o["seq"]
        shares.setdefault(a, [])
        if not shares[a] or shares[a][-1] != o["target_concurrency"]:
            shares[a].append(o["target_concurrency"])
stops = [stop_at.get(a) for a in ("r1", "r2", "r3")]
print("verdicts", ",".join(verdicts))
print("judged", "breaking=%d agent_steps=%d" % (breaking, agent_steps))
print("stops", "same" if stops[0] is not None and len(set(stops)) == 1 else "differ", stops)
print("shares", ";".join("-".join(map(str, shares.get(a, []))) for a in ("r1", "r2", "r3")))
EOF
ramp_fact() { sed -n "s/^$1 //p" "$tmp/ramp.facts"; }
check "the merged ticks carry one verdict per step: 1 and 2 pass, 3 fails" "1:pass,2:pass,3:fail" \
    "$(ramp_fact verdicts)"
check "one breaking point, said once; no agent judged a step" "breaking=1 agent_steps=0" \
    "$(ramp_fact judged)"
check "the stop reaches every agent in the same tick" same "$(ramp_fact stops | cut -d' ' -f1)"
# Each agent's users as they changed (4: 2,1,1; 6: 3,2,1; 16: 8,4,4).
check "each step's level is split 2:1:1 by largest remainder" "2-3-8;1-2-4;1-4" \
    "$(ramp_fact shares)"
"$brink" report "$tmp/ramp.jsonl" >"$tmp/ramp.report" 2>/dev/null
check "the session's step table: 1/4 and 2/4 pass, 3/4 fails on the merged error rate" \
    "1/4:pass 2/4:pass 3/4:FAIL: 1" \
    "$(awk '$1 ~ /^[0-9]+\/4$/ { printf "%s%s:%s", sep, $1, ($0 ~ / pass$/ ? "pass" : $0 ~ /FAIL: error_rate/ ? "FAIL:" : "?"); sep = " " }' "$tmp/ramp.report") $(grep -c '^breaking point: highest step that passed 2 (c=6' "$tmp/ramp.report")"

# --- 9. the ramp keys act on the coordinator's plan -------------------------------------
# Headless, through stdin: ramp starts the plan, next ends step 1 (judged on
# what it measured), a pause pauses the plan and the agents, ramp resumes
# both. Each plan event is said once, by the coordinator.
experiment "$tmp/keys.ini" "k1, k2, k3" "2, 1, 1"
cat >>"$tmp/keys.ini" <<'EOF'
[ramp]
steps = 4, 6, 16
warmup = 0s
hold = 1m
EOF
live_start keys
# ticks N: waits until the run has ticked N times more.
ticks() {
    wait_count "$tmp/keys.err" '^t=[0-9]+s ' $(($(grep -c '^t=' "$tmp/keys.err") + $1)) 20
}
# key LINE PATTERN: sends LINE and waits until stderr shows PATTERN.
key() {
    echo "$1" >&3
    wait_count "$tmp/keys.err" "$2" 1 20 || not_ok "$1 is taken" "$(tail -3 "$tmp/keys.err")"
}
ticks 1
key ramp 'command: ramp step 1/3: c=4 '
ticks 2 # step 1 measures something
key next 'command: ramp step 2/3: c=6 '
key p 'ramp paused at step 2/3 by a manual pause'
key ramp 'ramp resumed: step 2/3 starts again'
ticks 2 # the agents' ticks after the resume
echo stop >&3
exec 3>&-
wait "$run_pid"
status=$?
run_pid=""
check "the run with ramp keys ends with status 0, the plan stopped with it" "0 1" \
    "$status $(grep -c 'ramp stopped: the run ends during step 2/3' "$tmp/keys.err")"
python3 - "$tmp/keys.jsonl" >"$tmp/keys.facts" <<'EOF'
import json, re, sys
said, theirs, after = {}, 0, {}
resumed = None
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("type") == "tick":
        for e in o.get("events", []):
            for part in ("ramp step 1/3: c=4", "ramp step 1/3 (c=4) passed", "ramp step 2/3: c=6",
                         "ramp paused at step 2/3", "ramp resumed: step 2/3"):
                if e["text"].startswith(part):
                    said[part] = said.get(part, 0) + 1
            theirs += bool(re.match(r"k\d: ramp", e["text"]))
            if e["text"].startswith("ramp resumed") and resumed is None:
                resumed = o["seq"]
    elif o.get("type") == "agent_tick" and resumed is not None and o["seq"] > resumed:
        after.setdefault(o["agent"], 0)
        after[o["agent"]] += o["total"]["completed"]
print("said", ", ".join("%s: %d" % (p, said[p]) for p in sorted(said)))
print("theirs", theirs)
print("after", " ".join("%s:%s" % (a, "load" if n > 0 else "none") for a, n in sorted(after.items())))
EOF
check "each plan event is said once, by the coordinator (step 2 starts twice: resumed, it starts again)" \
    "ramp paused at step 2/3: 1, ramp resumed: step 2/3: 1, ramp step 1/3 (c=4) passed: 1, ramp step 1/3: c=4: 1, ramp step 2/3: c=6: 2" \
    "$(sed -n 's/^said //p' "$tmp/keys.facts")"
check "no agent said a plan event" 0 "$(sed -n 's/^theirs //p' "$tmp/keys.facts")"
check "after ramp resumed the paused plan, every agent runs load again" "k1:load k2:load k3:load" \
    "$(sed -n 's/^after //p' "$tmp/keys.facts")"

# --- 10. an agent lost mid-ramp: its share goes to the others --------------------------
# The target paces the load (200 ms a request), so an agent keeps the pace
# its last tick measured.
experiment "$tmp/lost.ini" "l1, l2, l3"
sed -i "s|^url = .*|url = $url/delay/200|" "$tmp/lost.ini"
cat >>"$tmp/lost.ini" <<'EOF'
[ramp]
steps = 6, 12, 24, 48
warmup = 500ms
hold = 2s
EOF
before=$(truth requests_total)
timeout 60 "$brink" run --headless --config "$tmp/lost.ini" --ramp --duration 60s --record "$tmp/lost.jsonl" \
    </dev/null >"$tmp/lost.out" 2>"$tmp/lost.err" &
run_pid=$!
kids=$(agents_of "$run_pid")
# Half a tick into step 1's first measured tick, l2 dies.
wait_count "$tmp/lost.err" '^t=1s ' 1 20 || not_ok "the lost run ticks" "$(tail -3 "$tmp/lost.err")"
sleep 0.5
set -- $kids
kill -KILL "$2"
wait "$run_pid"
status=$?
run_pid=""
after=$(truth requests_total)
check "a ramp that lost an agent ends with status 0" 0 "$status"
python3 "$src/tests/agents/session_facts.py" "$tmp/lost.jsonl" >"$tmp/lost.facts"
check "every step's merged users (target and active) are its plan level" "6:6 12:12 24:24 48:48" \
    "$(awk '$1 == "step_users" { printf "%s%s:%s", sep, $3, $4; sep = " " }' "$tmp/lost.facts")"
"$brink" report "$tmp/lost.jsonl" >"$tmp/lost.report" 2>/dev/null
check "the step table: one row per step, at its plan level, no other" \
    "1/4:c=6 2/4:c=12 3/4:c=24 4/4:c=48" \
    "$(awk '/^steps:/ { on = 1; next } on && /^ +[0-9]+\/[0-9]+ / { printf "%s%s:%s", sep, $1, $2; sep = " " } on && /^$/ { on = 0 }' "$tmp/lost.report")"
"$brink" report --format json "$tmp/lost.jsonl" >"$tmp/lost.json"
merged=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["total"]["requests"])' "$tmp/lost.json")
bound=$(python3 -c '
import json, sys
lost = json.load(open(sys.argv[1])).get("agents", {}).get("lost", [])
print(" ".join("%s:%s" % (l["name"], l.get("uncounted_requests", "none")) for l in lost) or "none")' "$tmp/lost.json")
# The /stats call that read "before" is counted once answered, after it.
gap=$((after - before - 1 - merged))
holds "the target served $gap requests the merge lacks, within what the report says l2 may have done ($bound)" \
    "b ~ /^l2:[0-9]+$/ && g >= 0 && g <= substr(b, 4) + 0" -v g="$gap" -v b="$bound"
check "the text report says it too" 1 \
    "$(grep -c '^  l2 lost at .*: it may have run .* after its last tick (.* to .*) at .* req/s with [0-9]* in flight: up to about [0-9,]* requests counted nowhere$' "$tmp/lost.out")"
# The event said the same count as the report: both read the merged rows.
check "the event log's count of what l2 may have done is the report's" "$bound" \
    "l2:$(grep -o 'agent l2 may have run [^"]*up to ~[0-9]* requests counted nowhere' "$tmp/lost.jsonl" |
        sed -n 's/.*up to ~\([0-9]*\) requests.*/\1/p' | head -n 1)"
# The HTML page and csv-lost give the same facts as the JSON, and csv's
# agents_missing marks as many ticks as the JSON says were partial.
"$brink" report --format html -o "$tmp/lost.html" "$tmp/lost.jsonl" 2>/dev/null
"$brink" report --format csv-lost "$tmp/lost.jsonl" >"$tmp/lost.csv" 2>/dev/null
"$brink" report --format csv "$tmp/lost.jsonl" >"$tmp/ticks.csv" 2>/dev/null
python3 - "$tmp" "$gap" >"$tmp/lost.checks" <<'EOF'
import csv, html.parser, json, sys

d, gap = sys.argv[1], int(sys.argv[2])
agents = json.load(open(d + "/lost.json"))["agents"]
want = {l["name"]: l for l in agents["lost"]}
keys = ["lost_at_us", "last_tick_end_us", "until_us", "interval_us"]


def check(name, good, why=""):
    print(("ok " if good else "FAIL ") + name + ("" if good else ": " + str(why)))


class Lost(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.on, self.cell, self.overview, self.in_p = [], False, None, "", False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.on = a.get("id") == "lost"
        elif tag == "p" and a.get("id") == "agents":
            self.in_p = True
        elif tag == "tr" and self.on:
            self.rows.append([])
        elif tag == "td" and self.on:
            self.cell = [a, ""]

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.rows[-1].append(self.cell)
            self.cell = None
        elif tag == "table":
            self.on = False
        elif tag == "p":
            self.in_p = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data
        if self.in_p:
            self.overview += data


p = Lost()
p.feed(open(d + "/lost.html").read())
rows = [r for r in p.rows if r]
check("HTML: the agents line says 3 agents and the partial ticks (%d)" % agents["partial_ticks"],
      p.overview == "3 agents; partial ticks (an agent's figures missing): %s."
      % format(agents["partial_ticks"], ","), p.overview)
check("HTML: one lost agent's row, l2", [r[0][1] for r in rows] == ["l2"], rows)
for r in rows:
    w = want.get(r[0][1], {})
    got = [int(c[0].get("data-us", -1)) for c in r[1:5]]
    check("HTML: l2's lost at, last tick end, until and interval as the JSON's %s" %
          [w.get(k) for k in keys], got == [w.get(k) for k in keys], got)
    rate = float(r[5][1].replace(",", ""))
    check("HTML: l2's last req/s %s as the JSON's %s" % (r[5][1], w.get("last_rate_per_s")),
          abs(rate - w.get("last_rate_per_s", -9)) <= (0.5 if rate >= 100 else 0.05), r[5])
    check("HTML: l2's in flight and uncounted requests as the JSON's",
          [int(r[6][1]), int(r[7][0].get("data-n", -1))] ==
          [w.get("in_flight"), w.get("uncounted_requests")], r[6:])
lost = list(csv.DictReader(open(d + "/lost.csv")))
check("csv-lost: one row, l2", [r["agent"] for r in lost] == ["l2"], lost)
for r in lost:
    w = want.get(r["agent"], {})
    got = [int(r[k]) for k in keys + ["in_flight", "uncounted_requests"]]
    check("csv-lost: l2's figures as the JSON's", got ==
          [w.get(k) for k in keys + ["in_flight", "uncounted_requests"]] and r["has_tick"] == "1"
          and abs(float(r["last_rate_per_s"]) - w.get("last_rate_per_s", -9)) < 0.0006, r)
    check("csv-lost: the target's %d requests the merge lacks are within l2's %s" %
          (gap, r["uncounted_requests"]), 0 <= gap <= int(r["uncounted_requests"]), r)
ticks = list(csv.DictReader(open(d + "/ticks.csv")))
missing = sum(1 for t in ticks if t["agents_missing"] not in ("", "0"))
check("csv: agents_missing marks %d ticks, the JSON's partial ticks (%d)" %
      (missing, agents["partial_ticks"]), missing == agents["partial_ticks"] and
      all(t["agents_missing"] in ("0", "1") for t in ticks), [t["agents_missing"] for t in ticks])
EOF
[ $? -eq 0 ] || echo "FAIL the lost agent's checks ran to their end" >>"$tmp/lost.checks"
while IFS= read -r line; do
    case "$line" in
    "ok "*) ok "${line#ok }" ;;
    *) not_ok "${line#FAIL }" ;;
    esac
done <"$tmp/lost.checks"

stop_target
finish
