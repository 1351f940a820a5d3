#!/bin/sh
# A script's checks and counters with agents (docs/scenarios.md): two
# agents through fake_ssh.sh run a scenario whose every iteration makes one
# request, checks it and adds 1 to a counter; the report has one check row
# and one counter row under their own names, not one per agent, and their
# totals are the requests brink target served for that path (its
# /_control), the sum over both agents.
# Usage: sh test_agents_marks.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup
must_start_target --listen 127.0.0.1:0

cat >"$tmp/s.lua" <<'EOF'
function iteration(user)
    local r = brink.request{url = "/bytes/7", name = "get"}
    brink.check(r.status == 200, "served")
    brink.counter("requests", 1)
end
EOF
cat >"$tmp/s.ini" <<EOF
[target]
url = $url
[load]
concurrency = 4
[scenario]
script = s.lua
[agents]
hosts = m1, m2
ssh = sh $src/tests/e2e/fake_ssh.sh -o BatchMode=yes
brink = $brink
EOF
timeout 60 "$brink" run --headless --config "$tmp/s.ini" --requests 200 --record "$tmp/s.jsonl" \
    >"$tmp/s.out" 2>"$tmp/s.err" </dev/null
check "two agents: the run ends well" 0 "$?"
served=$(curl -s "$url/_control" | python3 -c '
import json, sys
print(json.load(sys.stdin)["ground_truth"]["requests_by_endpoint"]["bytes"])')
marks=$("$brink" report "$tmp/s.jsonl" --format json 2>"$tmp/report.err" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(" ".join("check %s %d" % (c["name"], c["passed"] + c["failed"]) for c in r["checks"]),
      " ".join("counter %s %d" % (c["name"], c["total"]) for c in r["counters"]))')
holds "the target served requests" "n > 0" -v n="$served"
check "one check row and one counter row, each the target's count (both agents added up)" \
    "check check:served $served counter requests $served" "$marks"
finish
