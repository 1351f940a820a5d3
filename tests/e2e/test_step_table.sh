#!/bin/sh
# The step table's figures against brink target's ground truth.
# 1. A ramp whose replies take 2.5 s (/delay/2500, steps 2 then 4 users,
#    3 s each): the last step's duration ends at the stop, its drain is
#    folded apart, so its req/s is its 8 requests (what the target served
#    after step 1's 2) over 3 s, in the text table, JSON, csv-steps,
#    compare and the breaking-point line alike; the report's latency line
#    reads as docs/report.md shows it.
# 2. A scenario's checks and counters: their totals per step and per run
#    (checks passed and failed) equal what the target served, in their own
#    table, not as step-table columns.
# Usage: sh test_step_table.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup

must_start_target --listen 127.0.0.1:0

# ---- 1. the last step's drain ----
cat >"$tmp/drain.ini" <<INI
[target]
url = $url/delay/2500

[ramp]
steps = 2, 4
hold = 3s
warmup = 0
INI
timeout 60 "$brink" run --headless --config "$tmp/drain.ini" --ramp --record "$tmp/drain.jsonl" \
    >"$tmp/drain.out" 2>"$tmp/drain.err" </dev/null
check "drain: the ramp runs to its end" 0 "$?"
served=$(truth requests_by_endpoint delay)
"$brink" report "$tmp/drain.jsonl" --format json >"$tmp/drain.json" 2>&1
"$brink" report "$tmp/drain.jsonl" --format csv-steps >"$tmp/drain.csv" 2>&1
cp "$tmp/drain.jsonl" "$tmp/again.jsonl"
"$brink" compare "$tmp/drain.jsonl" "$tmp/again.jsonl" >"$tmp/drain.cmp" 2>&1
# Step 2's figures from every report, one line of words: the JSON row's
# requests, duration, folded time and req/s, step 1's requests, the stop's
# time and the run's end (from the session), then the req/s of the text
# table, csv-steps, compare and the breaking-point line.
figures=$(python3 - "$tmp" <<'PY'
import csv, json, re, sys
d = sys.argv[1]
rows = json.load(open(d + "/drain.json"))["steps"]
s1, s2 = rows[0], rows[1]
stop_ms = end_us = None
for line in open(d + "/drain.jsonl"):
    o = json.loads(line)
    if "seq" not in o:
        continue
    end_us = o["start_us"] + o["duration_us"]
    for e in o.get("events", []):
        if "the last step ended" in e["text"]:
            stop_ms = e["at_ms"]
text = [l for l in open(d + "/drain.out") if l.startswith("  2/2 ")]
text_rate = text[0].split()[5] if text else "-"
csv_rate = [r["req_per_s"] for r in csv.DictReader(open(d + "/drain.csv"))
            if r["step"] == "2" and r["kind"] == "total"]
cmp_rate = [l.split()[1] for l in open(d + "/drain.cmp") if l.startswith("  c=4 ")]
m = re.search(r"passed 2 \(c=4, ok ([0-9.,]+) req/s", open(d + "/drain.out").read())
print(s2["requests"], s2["start_us"], s2["duration_us"], s2["folded_us"], s2["req_per_s"],
      s1["requests"], stop_ms, end_us, text_rate, csv_rate[0] if csv_rate else "-",
      cmp_rate[0] if cmp_rate else "-", m.group(1) if m else "-")
PY
)
set -- $figures
n2=$1 start2=$2 dur2=$3 folded2=$4 json_rate=$5 n1=$6 stop_ms=$7 end_us=$8
text_rate=$9 csv_rate=${10} cmp_rate=${11} bp_rate=${12}
check "drain: the target served every request of both steps" "$served" "$((n1 + n2))"
check "drain: step 2 holds the 8 requests sent at 4 users" 8 "$n2"
# The duration ends where the load ended: at the plan's stop (its event is
# in whole ms), not when the last reply of the drain came in.
holds "drain: step 2's duration ($dur2 us) ends at the stop (${stop_ms} ms)" \
    "d >= stop * 1000 - s - 1000 && d <= stop * 1000 - s + 1000" \
    -v d="$dur2" -v stop="$stop_ms" -v s="$start2"
holds "drain: step 2 is its hold of 3 s, not the 5 s with the drain ($dur2 us)" \
    "d < 3000000 + 1000000" -v d="$dur2"
check "drain: the drain is folded apart: duration + folded = the row's whole length" \
    "$((end_us - start2))" "$((dur2 + folded2))"
# JSON and CSV write 3 decimals: equal to 8 over the duration to 0.0005.
holds "drain: JSON req/s ($json_rate) is 8 over the duration (8/3 = 2.67)" \
    "r - n * 1e6 / d <= 0.0005001 && n * 1e6 / d - r <= 0.0005001" -v r="$json_rate" -v n="$n2" -v d="$dur2"
check "drain: csv-steps req/s is the same" "$json_rate" "$csv_rate"
holds "drain: the text table's req/s ($text_rate) is the same, to its one decimal" \
    "r - n * 1e6 / d <= 0.0500001 && n * 1e6 / d - r <= 0.0500001" -v r="$text_rate" -v n="$n2" -v d="$dur2"
check "drain: compare's req/s is the text table's" "$text_rate" "$cmp_rate"
check "drain: the breaking-point line's req/s is the text table's" "$text_rate" "$bp_rate"

# The report's latency line is the one docs/report.md shows.
line=$(grep -m 1 '^latency: ' "$tmp/drain.out")
grep -qF -- "\`$line\`" "$src/docs/report.md" && ok "docs/report.md shows the latency line: $line" ||
    not_ok "docs/report.md shows the latency line" "$line"

# ---- 2. a scenario's checks and counters: totals against the target ----
# Each flow reads /bytes, checks its status twice (one check always holds,
# one always fails), and ends on /echo; a flow whose /echo got its 200
# counts. The target counts each endpoint apart, so the counter's total is
# its /echo count, and the checks' passes and failures its /bytes count.
cat >"$tmp/flows.lua" <<'LUA'
function iteration(user)
    local r = brink.request{url = "/bytes/10", name = "start"}
    brink.check(r.status == 200, "bytes is 200")
    brink.check(r.status == 201, "bytes is 201")
    local e = brink.request{method = "POST", url = "/echo", body = "x", name = "end"}
    if e.status == 200 then
        brink.counter("flows completed")
    end
end
LUA
cat >"$tmp/flows.ini" <<INI
[target]
url = $url

[scenario]
script = flows.lua

[ramp]
steps = 2, 4
hold = 2s
warmup = 0
INI
bytes0=$(truth requests_by_endpoint bytes)
echo0=$(truth requests_by_endpoint echo)
timeout 60 "$brink" run --headless --config "$tmp/flows.ini" --ramp --record "$tmp/flows.jsonl" \
    >"$tmp/flows.out" 2>"$tmp/flows.err" </dev/null
check "flows: the ramp runs to its end" 0 "$?"
bytes=$(($(truth requests_by_endpoint bytes) - bytes0))
echo=$(($(truth requests_by_endpoint echo) - echo0))
"$brink" report "$tmp/flows.jsonl" --format json >"$tmp/flows.json" 2>&1
# From the JSON report: the run's counter total, each check's passed and
# failed, then the steps' counter totals and check passes summed.
figures=$(python3 - "$tmp/flows.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def marks(o):
    c = {m["name"]: (m["passed"], m["failed"]) for m in o.get("checks", [])}
    n = {m["name"]: m["total"] for m in o.get("counters", [])}
    return c, n
c, n = marks(d)
steps = [marks(s) for s in d["steps"]]
print(int(n.get("flows completed", -1)),
      *c.get("check:bytes is 200", (-1, -1)), *c.get("check:bytes is 201", (-1, -1)),
      int(sum(sn.get("flows completed", 0) for sc, sn in steps)),
      sum(sc.get("check:bytes is 200", (0, 0))[0] for sc, sn in steps), len(steps))
PY
)
set -- $figures
check "flows: the counter's total is the flows the target ended (/echo $echo)" "$echo" "$1"
check "flows: the check that holds passed once a /bytes request ($bytes)" "$bytes" "$2"
check "flows: ... and failed none" 0 "$3"
check "flows: the check that fails passed none" 0 "$4"
check "flows: ... and failed once a /bytes request" "$bytes" "$5"
check "flows: the steps' counter totals add up to the run's" "$1" "$6"
check "flows: the steps' check passes add up to the run's" "$2" "$7"
check "flows: two steps" 2 "$8"
n=$(printf '%s' "$echo" | awk '{ n = $1; s = ""; while (n >= 1000) { s = sprintf(",%03d", n % 1000) s; n = int(n / 1000) }; print n s }')
grep -q "^  flows completed: total $n\$" "$tmp/flows.out" && ok "flows: the report's server counters give the total ($n)" ||
    not_ok "flows: the report's server counters give the total" "$(grep 'flows completed' "$tmp/flows.out")"
grep -Eq "^  run +flows completed +- +- +$n\$" "$tmp/flows.out" && ok "flows: the checks and counters table gives it for the run" ||
    not_ok "flows: the checks and counters table gives it for the run" "$(sed -n '/^checks and counters:/,$p' "$tmp/flows.out")"
"$brink" report "$tmp/flows.jsonl" --format csv-checks >"$tmp/flows.csv" 2>&1
check "flows: csv-checks gives the run's counter total" "run,,,\"flows completed\",counter,,,$echo" \
    "$(grep '^run,.*"flows completed"' "$tmp/flows.csv" | tr -d '\r')"
check "flows: csv-checks gives the failing check's passed and failed" \
    "run,,,\"check:bytes is 201\",check,0,$bytes,$bytes" \
    "$(grep '^run,.*"check:bytes is 201"' "$tmp/flows.csv" | tr -d '\r')"
"$brink" report "$tmp/flows.jsonl" --format html -o "$tmp/flows.html" 2>&1
grep -q "<tr><td class=\"l\">run</td><td class=\"l\">flows completed</td><td>-</td><td>-</td><td>$n</td></tr>" \
    "$tmp/flows.html" && ok "flows: the HTML report's checks and counters table gives the run's total" ||
    not_ok "flows: the HTML report's checks and counters table gives the run's total" \
        "$(grep -o '<table id="marks">.*' "$tmp/flows.html" | head -c 600)"
head=$(sed -n '/^steps:/{n;p;}' "$tmp/flows.out")
case "$head" in
*check:* | *flows*) not_ok "flows: no check or counter columns in the step table" "$head" ;;
*) ok "flows: no check or counter columns in the step table" ;;
esac

finish
