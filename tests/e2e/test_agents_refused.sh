#!/bin/sh
# What a run with agents says and does when an agent will not play
# (docs/agents.md), with stand-ins for the agents ([agents] ssh is
# fake_ssh.sh, which runs the "brink" command here):
#   1. an agent whose login never ends (its ssh runs a sleep): SIGTERM 1 s
#      into the wait ends the run within 2 s (before: the 30 s wait for the
#      agent ran out first), the sleep is gone, and the session is complete
#      with no ticks;
#   2. an agent whose first tick counts more outcomes than requests
#      (before: merged as it came), and one whose tick line is over 1 MiB
#      (agent_bad.py): the run fails naming the refused tick, not "ended at
#      the start (nothing on stderr)";
#   3. brink agent sent a file to write at a name with ".." in it: refused
#      with that reason (before: "File name too long"), nothing written
#      outside its directory.
# Every run is bounded by timeout.
# Usage: sh test_agents_refused.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup

# experiment NAME BRINK: $tmp/NAME.ini, one agent a1 whose brink command
# is BRINK.
experiment() {
    printf '[target]\nurl = http://127.0.0.1:9/\n[load]\nconcurrency = 1\nduration = 5s\n[agents]\nhosts = a1\nssh = sh %s\nbrink = %s\n' \
        "$src/tests/e2e/fake_ssh.sh" "$2" >"$tmp/$1.ini"
}

# trailer FILE: the session's trailer as "complete=... ticks=... reason=...".
trailer() {
    python3 -c '
import json, os, sys
t = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{\"type\":\"trailer\"")] if os.path.exists(sys.argv[1]) else None
print("no session file" if t is None else "complete=%s ticks=%s reason=%s" % (t[0]["complete"], t[0]["ticks"], t[0]["reason"]) if t else "no trailer")' "$1"
}

# 1. SIGTERM while the agent logs in.
printf '#!/bin/sh\necho $$ >"$1"\nexec sleep 60\n' >"$tmp/login.sh"
experiment login "sh $tmp/login.sh $tmp/login.pid"
timeout 60 "$brink" run --headless --config "$tmp/login.ini" --record "$tmp/login.jsonl" \
    </dev/null >"$tmp/login.out" 2>"$tmp/login.err" &
run_pid=$!
if wait_for "$tmp/login.pid" '^[0-9]+$' 10; then
    sleep 1 # the issue's case: the stop comes 1 s into the wait
    t0=$(now_ms)
    kill -TERM "$run_pid"
    wait "$run_pid"
    status=$?
    took=$(($(now_ms) - t0))
    run_pid=""
    holds "SIGTERM 1 s into an agent's login ends the run within 2 s (it took $took ms)" "t < 2000" -v t="$took"
    check "it exits 1, nothing having run" 1 "$status"
    expect_line "it says it was stopped before the load" "$tmp/login.err" \
        '^brink: run: stopped during set-up, before the load started$' 1
    check "the session is complete, with no ticks" "complete=True ticks=0 reason=stopped before the start" \
        "$(trailer "$tmp/login.jsonl")"
    if kill -0 "$(cat "$tmp/login.pid")" 2>/dev/null; then
        not_ok "the agent's login is ended with the run" "pid $(cat "$tmp/login.pid") still runs"
        kill -9 "$(cat "$tmp/login.pid")"
    else
        ok "the agent's login is ended with the run"
    fi
else
    not_ok "the agent's login starts" "$(cat "$tmp/login.err")"
fi

# 2. Refused ticks.
for bad in counts big; do
    experiment "$bad" "python3 $src/tests/e2e/agent_bad.py $bad"
    timeout 60 "$brink" run --headless --config "$tmp/$bad.ini" --no-record </dev/null \
        >"$tmp/$bad.out" 2>"$tmp/$bad.err"
    status=$?
    check "$bad: the run fails (exit 1)" 1 "$status"
    case $bad in
    counts) want='its tick 0 was refused: total: 9 ok and 0 failed of 5 completed' ;;
    big) want='a line longer than 1052672 bytes \(a tick is at most 1048576\)' ;;
    esac
    expect_line "$bad: the reason is named" "$tmp/$bad.err" \
        "^brink: run: no agent ran the load: agent a1 was lost at the start: $want \(nothing on stderr\)$" 1
done

# 3. A shipped file named with "..", sent to brink agent itself.
escape=$tmp/escaped
printf '{"type":"hello","protocol":2,"brink":"0.1.0"}\n{"type":"config","name":"command line","text":"","cwd":"/","seed":0,"files":[{"path":"/../../../../../../../..%s","data":"eA=="}],"overrides":[]}\n' \
    "$escape" | timeout 20 "$brink" agent >"$tmp/dots.out" 2>"$tmp/dots.err"
check "brink agent refuses the file name (exit 1)" 1 "$?"
expect_line "it names the name and why" "$tmp/dots.err" \
    "^brink: agent: a shipped file's name was refused: \"/(\.\./)+\.\.$escape\": expected an absolute path with no \"\.\" or \"\.\.\" part$" 1
expect_line "and tells the coordinator so" "$tmp/dots.out" '^\{"type":"error","text":"a shipped file.s name was refused' 1
if [ -e "$escape" ]; then not_ok "nothing is written outside its directory" "$escape exists"; else ok "nothing is written outside its directory"; fi

finish
