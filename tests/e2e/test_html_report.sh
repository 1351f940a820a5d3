#!/bin/sh
# brink report --format html in a real browser. A short ramp against brink
# target (4 workers of 20 ms, 4 queue places: a knee at 4 users, 503s past 8) with a probe
# and its alert is recorded; headless Chromium opens the page, and its DOM
# must hold every chart with one point per tick or step, each plotted value
# equal to the figure brink report --format csv (per tick) or json (per
# step) gives; successes and failures on charts apart, and the header's
# request and failed counts those the target served and refused (its
# /_control ground truth). A screenshot is kept in the build directory
# (artefacts/html-report.png). A staircase against a target of known law
# (contention) shows the Universal Scalability Law fitted over its steps'
# successes, the curve and its peak those of the JSON's capacity.usl. Then
# a session of hostile strings (the
# target's hostile_stats and hostile_header, and HTML and script written
# into the session's own strings) must give a page with no live markup, and
# compare --format html overlays the two sessions, labelled. A merged run
# (report --merge) is checked as the single one. Then a long session made
# from the ramp's ticks (each held a hundred times over or more: 37 minutes)
# with 120 marks a quarter of a second apart: in Chromium no two labels of
# a chart meet (their getBoundingClientRect, by a script added to a copy of
# the page), and compare --format html of the two shows the change of the
# second against the first, their step tables side by side and their
# latency distributions overlaid, each figure its JSON report's.
# Usage: sh test_html_report.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

command -v chromium >/dev/null 2>&1 || { echo "FAIL chromium missing: run scripts/install-deps"; exit 1; }
target_setup
artefacts=$(dirname "$brink")/artefacts
mkdir -p "$artefacts"

# chrome OUT ARGS...: headless Chromium, bounded, with a profile of its own
# (and no sandbox: it refuses to start as root with one); stdout in OUT.
chrome() {
    o=$1
    shift
    timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$tmp/chrome" "$@" >"$o" 2>"$tmp/chrome.err"
}

# dom NAME: Chromium's DOM of $tmp/NAME.html in $tmp/NAME.dom.
dom() {
    if chrome "$tmp/$1.dom" --dump-dom "file://$tmp/$1.html" && [ -s "$tmp/$1.dom" ]; then
        ok "chromium renders $1.html"
    else
        not_ok "chromium renders $1.html" "$(tail -n 3 "$tmp/chrome.err")"
    fi
}

# report NAME FORMAT: brink report of $tmp/NAME.jsonl in FORMAT to $tmp/NAME.FORMAT.
report() {
    "$brink" report "$tmp/$1.jsonl" --format "$2" -o "$tmp/$1.$2" 2>"$tmp/$1.$2.err"
    status=$?
}

# ---- 1. a ramp session -----------------------------------------------------
cat >"$tmp/queue.json" <<'JSON'
{"workers": 4, "queue_max": 4, "service_ms": {"bytes": 20}}
JSON
must_start_target --config "$tmp/queue.json"
cat >"$tmp/ramp.ini" <<INI
[target]
url = $url/bytes/100

[probe conns]
type = json
url = $url/stats
pointer = /requests_total
kind = counter
interval = 200ms
alert = > 500

[ramp]
steps = 1, 2, 4, 8, 16
hold = 1s
warmup = 500ms
stop_when = error_rate > 1%
action = stop
INI
timeout 60 "$brink" run --headless --config "$tmp/ramp.ini" --record "$tmp/ramp.jsonl" --ramp \
    --duration 20s >"$tmp/run.out" 2>"$tmp/run.err" </dev/null
check "ramp: the run ends on its breaking step (exit status 3)" 3 "$?"
served=$(truth requests_by_endpoint bytes)
refused=$(truth responses_503)
check_ge "ramp: the target refused requests (503) past its queue" 1 "$refused"

report ramp html
check "report --format html: exit status 3, as the text report's verdict" 3 "$status"
report ramp csv
report ramp json
grep -q '<script' "$tmp/ramp.html" && not_ok "the page has no script" || ok "the page has no script"
grep -Eq '(src|href)=' "$tmp/ramp.html" && not_ok "the page loads nothing" || ok "the page loads nothing"
dom ramp
python3 "$src/tests/e2e/html_dom.py" report "$tmp/ramp.dom" "$tmp/ramp.csv" "$tmp/ramp.json" \
    "$tmp/ramp.jsonl" "$served" "$refused" &&
    ok "the plotted values are the report's" || not_ok "the plotted values are the report's"
# A merged run (report --merge, here the session with itself) is drawn from
# its merged ticks: the same checks against its own csv and json.
"$brink" report --merge "$tmp/ramp.jsonl" "$tmp/ramp.jsonl" --format html -o "$tmp/merged.html" 2>/dev/null
"$brink" report --merge "$tmp/ramp.jsonl" "$tmp/ramp.jsonl" --format csv -o "$tmp/merged.csv" 2>/dev/null
"$brink" report --merge "$tmp/ramp.jsonl" "$tmp/ramp.jsonl" --format json -o "$tmp/merged.json" 2>/dev/null
dom merged
python3 "$src/tests/e2e/html_dom.py" report "$tmp/merged.dom" "$tmp/merged.csv" "$tmp/merged.json" \
    "$tmp/ramp.jsonl" $((served * 2)) $((refused * 2)) >"$tmp/merged.check" &&
    ok "merged: the plotted values are the merged run's" ||
    not_ok "merged: the plotted values are the merged run's" "$(grep -A1 FAIL "$tmp/merged.check" | head -n 6)"
rm -f "$artefacts/html-report.png"
chrome "$tmp/shot.out" --window-size=1100,2600 --hide-scrollbars \
    --screenshot="$artefacts/html-report.png" "file://$tmp/ramp.html"
if [ -s "$artefacts/html-report.png" ] && [ "$(head -c 4 "$artefacts/html-report.png" | tail -c 3)" = PNG ]; then
    ok "screenshot saved: $artefacts/html-report.png"
else
    not_ok "screenshot saved" "$(tail -n 3 "$tmp/chrome.err")"
fi
stop_target

# ---- 1b. capacity: a staircase against a target of known law ----------------
# sigma 0.05, kappa 0.001: a peak near 31 users, within the staircase.
must_start_target
curl -s -o /dev/null -X POST --data '{"workers": 64, "service_ms": {"bytes": 10},
    "contention": {"sigma": 0.05, "kappa": 0.001}}' "$url/_control"
printf '[target]\nurl = %s/bytes/100\n[load]\ntick = 250ms\n[ramp]\nsteps = %s\nwarmup = 250ms\nhold = 500ms\n' \
    "$url" "1, 2, 4, 8, 16, 32, 48" >"$tmp/usl.ini"
timeout 60 "$brink" run --headless --config "$tmp/usl.ini" --record "$tmp/usl.jsonl" --ramp \
    --duration 20s >"$tmp/usl.out" 2>"$tmp/usl.err" </dev/null
check "capacity: the staircase runs" 0 "$?"
report usl html
report usl json
dom usl
python3 "$src/tests/e2e/html_dom.py" capacity "$tmp/usl.dom" "$tmp/usl.json" >"$tmp/usl.check" &&
    ok "capacity: the points, the fitted curve and N* are the JSON's" ||
    not_ok "capacity: the points, the fitted curve and N* are the JSON's" "$(grep -A1 FAIL "$tmp/usl.check" | head -n 6)"
stop_target

# ---- 2. hostile strings ----------------------------------------------------
must_start_target
curl -s -X POST --data '{"hostile_stats": true, "faults": {"hostile_header": 0.5}}' \
    "$url/_control" >/dev/null
check "hostile_stats is on" True "$(json_get "$url/_control" settings hostile_stats)"
cat >"$tmp/hostile.ini" <<INI
[target]
url = $url/bytes/10

[probe hostile]
type = prometheus
url = $url/metrics
metric = brink_target_hostile_info{name=~".*PWNED.*"}
interval = 200ms

[probe quoted]
type = text
url = $url/metrics
regex = ^brink_target_hostile_info(.*)
interval = 200ms

[thresholds]
; the hostile headers may fail requests: the page is what is tested here
fail_on = error_rate > 99%
INI
timeout 30 "$brink" run --headless --config "$tmp/hostile.ini" --record "$tmp/raw.jsonl" \
    --concurrency 2 --duration 2s >/dev/null 2>"$tmp/hostile.err" </dev/null
check "hostile: the run exits 0" 0 "$?"
check_ge "hostile: the target sent hostile headers" 1 "$(truth hostile_sent)"
# The session's own strings made hostile too, where a page could take them
# for markup: the configuration, a kind name, a mark, an error message.
python3 - "$tmp/raw.jsonl" "$tmp/hostile.jsonl" <<'PY'
import json, sys
evil = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'><svg onload=alert(3)>'
out = []
for i, line in enumerate(open(sys.argv[1])):
    rec = json.loads(line)
    if rec["type"] == "header":
        rec["config"] += "\n[request " + evil + "]\nurl = /" + evil + "\n"
        rec["host"] = "</title><script>alert(4)</script>"
    elif rec["type"] == "tick" and rec["seq"] == 0:
        rec["kinds"][0]["name"] = "<b onmouseover=alert(5)>k</b>"
        rec["total"]["errors"] = {"other": 1}
        rec["first_error"] = {"other": evil}
        rec["events"] = rec.get("events", []) + [{"at_ms": 10, "kind": "mark", "text": evil},
                                                 {"at_ms": 20, "kind": "detection", "text": "\x1b[2J" + evil}]
    out.append(json.dumps(rec))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
report hostile html
check "hostile: report --format html exits 0" 0 "$status"
grep -q 'PWNED' "$tmp/hostile.html" && ok "hostile: the probe's hostile strings are on the page" ||
    not_ok "hostile: the probe's hostile strings are on the page"
dom hostile
python3 "$src/tests/e2e/html_dom.py" hostile "$tmp/hostile.dom" '<script>alert(1)</script>' \
    '</title><script>alert(4)</script>' '<b onmouseover=alert(5)>k</b>' '\e[2J<script>' &&
    ok "hostile: no live markup or script" || not_ok "hostile: no live markup or script"

# ---- 3. compare, overlaid --------------------------------------------------
"$brink" compare "$tmp/ramp.jsonl" "$tmp/hostile.jsonl" --label 'ramp <1>' --label hostile \
    --format html -o "$tmp/both.html" 2>"$tmp/both.err"
check "compare --format html exits 0" 0 "$?"
dom both
python3 "$src/tests/e2e/html_dom.py" compare "$tmp/both.dom" 'ramp <1>' hostile &&
    ok "compare: the sessions overlaid" || not_ok "compare: the sessions overlaid"

# ---- 4. crowded labels, and compare of two ramps -----------------------------
# Tick i of the ramp held 100 + 20 i times (so the two sessions' totals
# differ), the events of its first copy kept; then 120 marks, 4 a tick,
# 250 ms apart, and a mark every 97 ticks.
python3 - "$tmp/ramp.jsonl" "$tmp/long.jsonl" <<'PY'
import json, sys
out, seq, start, marks, i = [], 0, 0, 0, 0
for line in open(sys.argv[1]):
    rec = json.loads(line)
    if rec["type"] == "trailer":
        rec["ticks"] = seq
    if rec["type"] != "tick":
        out.append(json.dumps(rec))
        continue
    for copy in range(100 + 20 * i):
        events = [dict(e, at_ms=e["at_ms"] - rec["start_us"] // 1000 + start // 1000)
                  for e in rec.get("events", [])] if copy == 0 else []
        if 20 <= seq and marks < 120:
            events += [{"at_ms": start // 1000 + k * 250, "kind": "mark", "text": "m%d" % (marks + k)}
                       for k in range(4)]
            marks += 4
        elif seq % 97 == 0:
            events.append({"at_ms": start // 1000 + 10, "kind": "mark", "text": "later"})
        out.append(json.dumps(dict(rec, seq=seq, start_us=start, events=events)))
        seq += 1
        start += rec["duration_us"]
    i += 1
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
report long html
report long json
# A copy of the page that may run a script: the boxes of its labels as
# Chromium laid them out, written into the page for --dump-dom.
python3 - "$tmp/long.html" "$tmp/boxes.html" <<'PY'
import re, sys
page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", open(sys.argv[1]).read())
script = """<script>
var out = [];
document.querySelectorAll("figure.chart").forEach(function (f) {
  f.querySelectorAll("svg text").forEach(function (t) {
    var r = t.getBoundingClientRect();
    out.push([f.id, t.parentNode.getAttribute("class") || t.getAttribute("class") || "",
              t.textContent, r.left, r.top, r.right, r.bottom]);
  });
});
var p = document.createElement("pre");
p.id = "boxes";
p.textContent = JSON.stringify(out);
document.body.appendChild(p);
</script>"""
open(sys.argv[2], "w").write(page.replace("</body>", script + "</body>"))
PY
chrome "$tmp/boxes.dom" --window-size=1100,2000 --dump-dom "file://$tmp/boxes.html"
python3 "$src/tests/e2e/html_dom.py" labels "$tmp/boxes.dom" >"$tmp/labels.check" &&
    ok "long session: no two labels of a chart meet" ||
    not_ok "long session: no two labels of a chart meet" "$(grep -A1 FAIL "$tmp/labels.check" | head -n 8)"
"$brink" compare "$tmp/ramp.jsonl" "$tmp/long.jsonl" --label ramp --label long --format html \
    -o "$tmp/versus.html" 2>"$tmp/versus.err"
check "compare --format html of two ramps exits 0" 0 "$?"
dom versus
python3 "$src/tests/e2e/html_dom.py" versus "$tmp/versus.dom" "$tmp/ramp.json" "$tmp/long.json" \
    ramp long >"$tmp/versus.check" &&
    ok "compare: change, steps side by side and distributions as the JSON reports" ||
    not_ok "compare: change, steps side by side and distributions as the JSON reports" \
        "$(grep -A1 FAIL "$tmp/versus.check" | head -n 8)"

finish
