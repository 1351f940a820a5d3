#!/bin/sh
# brink run --format json|csv [-o FILE] against brink target: the report a
# script reads without recording a session first (issue #31). The JSON
# counts what the target's ground truth counted, and names the run: its
# URL and command line with the password and the Authorization header
# redacted, its start (ISO 8601 UTC, within the test's clock window),
# brink's version (as --version says it), with p95 between p90 and p99 in
# every latency object. stdout holds the JSON alone; -o FILE writes it
# there; CSV has the same facts; brink report reads them back from the
# session's header; with the console the CSV reaches the terminal once it
# closes; a bad --format is refused in one line, exit 2.
# Usage: sh test_run_format.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup

must_start_target --listen 127.0.0.1:0
# A password in the URL and a bearer token: neither may show anywhere.
secret_url=$(printf '%s' "$url" | sed 's#^http://#http://alice:pw-s3cret@#')/bytes/10
version=$("$brink" --version | awk 'NR == 1 { print $2 }')

# run NAME ARGS...: a bounded headless run of 100 requests by 2 users;
# stdout in $tmp/NAME.out, stderr in $tmp/NAME.err, status in $status.
run() {
    name=$1
    shift
    timeout 60 "$brink" run --headless -c 2 -n 100 -H 'Authorization: Bearer tok-s3cret' "$@" \
        "$secret_url" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    status=$?
}

# py NAME SCRIPT ARGS...: a python3 check printing "ok" or why not.
py() {
    name=$1 script=$2
    shift 2
    why=$(python3 -c "$script" "$@" 2>&1)
    if [ "$why" = ok ]; then ok "$name"; else not_ok "$name" "$why"; fi
}

# What the reports must name: the URL and the command line, redacted.
shown_url=$(printf '%s' "$url" | sed 's#^http://#http://alice:<redacted len=9>@#')/bytes/10
shown_cmd() {
    echo "brink run --headless -c 2 -n 100 -H 'Authorization: <redacted len=17>' $* '$shown_url'"
}

# The facts every report must hold, in a JSON document (argv[1]); argv[2]
# the version, argv[3..4] the clock window (ms), argv[5] the URL and
# argv[6] the command line expected.
facts_py='
import json, sys, datetime
d = json.load(open(sys.argv[1]))
why = []
def need(cond, what):
    if not cond: why.append(what)
need(d["total"]["requests"] == 100, "total requests %r" % d["total"]["requests"])
need(d["brink_version"] == sys.argv[2], "version %r" % d["brink_version"])
t = datetime.datetime.strptime(d["start_time"], "%Y-%m-%dT%H:%M:%S.%fZ")
ms = (t - datetime.datetime(1970, 1, 1)).total_seconds() * 1000
need(int(sys.argv[3]) - 1 <= ms <= int(sys.argv[4]), "start %s outside the window" % d["start_time"])
need(d["url"] == sys.argv[5], "url %r, expected %r" % (d["url"], sys.argv[5]))
need(d["urls"] == [sys.argv[5]], "urls %r" % d["urls"])
need(d["command_line"] == sys.argv[6], "command line %r, expected %r" % (d["command_line"], sys.argv[6]))
lats = [("total", d["total"]["latency_us"])] + [("step", s["latency_us"]) for s in d["steps"]]
lats += [("kind", k["latency_us"]) for s in d["steps"] for k in s["kinds"]]
lats += [("kind", k["latency_us"]) for k in d["kinds"]]
for where, l in lats:
    need("p95" in l and l["p90"] <= l["p95"] <= l["p99"], "%s p95 not between p90 and p99: %r" % (where, l))
need(len(lats) >= 3, "latencies %r" % lats)
text = open(sys.argv[1]).read()
need("s3cret" not in text, "a secret in the report")
print("ok" if not why else "; ".join(why))
'

# 1. --format json on stdout, recorded: the JSON alone on stdout.
t0=$(now_ms)
run json --format json --record "$tmp/json.jsonl"
t1=$(now_ms)
check "run --format json exits 0" 0 "$status"
check "the target served 100 requests" 100 "$(truth requests_by_endpoint bytes)"
py "stdout is one JSON document with the run's facts and p95" "$facts_py" "$tmp/json.out" \
    "$version" "$t0" "$t1" "$shown_url" "$(shown_cmd --format json --record "$tmp/json.jsonl")"
expect_line "progress lines stay on stderr" "$tmp/json.err" '^t=[0-9]+s ' 1
check "no secret in the session file" 0 "$(grep -c 's3cret' "$tmp/json.jsonl")"

# 2. brink report reads the same facts back from the session's header.
"$brink" report "$tmp/json.jsonl" --format json >"$tmp/report.json" 2>"$tmp/report.err"
py "brink report --format json names the same run" '
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
keys = ["brink_version", "start_time", "url", "urls", "command_line"]
diff = [k for k in keys if a[k] != b[k]]
ok = not diff and b["total"]["requests"] == 100 and "p95" in b["total"]["latency_us"]
print("ok" if ok else "differ: %r" % [(k, a[k], b[k]) for k in diff])
' "$tmp/json.out" "$tmp/report.json"

# 3. -o FILE: the report in the file, nothing on stdout.
run file --format json -o "$tmp/run.json" --no-record
check "run -o FILE exits 0" 0 "$status"
check "stdout holds no report with -o FILE" "" "$(cat "$tmp/file.out")"
check "the target served 200 requests" 200 "$(truth requests_by_endpoint bytes)"
py "-o FILE holds the JSON report" "$facts_py" "$tmp/run.json" "$version" "$t0" "$(now_ms)" \
    "$shown_url" "$(shown_cmd --format json -o "$tmp/run.json" --no-record)"

# 4. --format csv on stdout: one row per tick with the same facts.
run csv --format csv --record "$tmp/csv.jsonl"
check "run --format csv exits 0" 0 "$status"
csv_py='
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
why = []
total = sum(int(r["completed"]) for r in rows)
if total != 100: why.append("completed %d" % total)
r = rows[0]
for k in ["url", "urls", "start_time", "brink_version", "command_line"]:
    if any(x[k] != r[k] for x in rows): why.append(k + " differs between rows")
if r["brink_version"] != sys.argv[2]: why.append("version %r" % r["brink_version"])
if r["url"] != sys.argv[3] or r["urls"] != r["url"]:
    why.append("url %r urls %r" % (r["url"], r["urls"]))
if r["command_line"] != sys.argv[4]: why.append("command %r" % r["command_line"])
if not r["start_time"].endswith("Z") or "T" not in r["start_time"]: why.append("start %r" % r["start_time"])
timed = [x for x in rows if x["p95_us"]]
if not timed: why.append("no p95")
for x in timed:
    if not int(x["p90_us"]) <= int(x["p95_us"]) <= int(x["p99_us"]):
        why.append("p95 %s not between p90 %s and p99 %s" % (x["p95_us"], x["p90_us"], x["p99_us"]))
if "s3cret" in open(sys.argv[1]).read(): why.append("a secret in the CSV")
print("ok" if not why else "; ".join(why))
'
py "stdout is CSV that counts 100 requests and names the run" "$csv_py" "$tmp/csv.out" "$version" \
    "$shown_url" "$(shown_cmd --format csv --record "$tmp/csv.jsonl")"
"$brink" report "$tmp/csv.jsonl" --format csv >"$tmp/report.csv" 2>"$tmp/report.err"
py "brink report --format csv gives the same facts" '
import csv, sys
a = list(csv.DictReader(open(sys.argv[1], newline="")))[0]
b = list(csv.DictReader(open(sys.argv[2], newline="")))[0]
keys = ["url", "urls", "start_time", "brink_version", "command_line"]
diff = [(k, a[k], b[k]) for k in keys if a[k] != b[k]]
print("ok" if not diff else "differ: %r" % diff)
 ' "$tmp/csv.out" "$tmp/report.csv"
"$brink" report "$tmp/csv.jsonl" --format csv-steps >"$tmp/steps.csv" 2>"$tmp/report.err"
py "csv-steps has p95 between p90 and p99" '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
bad = [r for r in rows if not int(r["p90_us"]) <= int(r["p95_us"]) <= int(r["p99_us"])]
print("ok" if rows and not bad else "rows %r" % rows)
' "$tmp/steps.csv"

# 5. With the console (a terminal in tmux): it runs, and once it closes
# the CSV rows, held while it drew, reach the terminal.
need_tmux
T="tmux -L fmt$$ -f /dev/null"
$T new-session -d -x 200 -y 50 "TERM=xterm '$brink' run -c 2 -n 100 --format csv --no-record \
    '$url/bytes/10' 2>'$tmp/console.err'; echo rc=\$?; sleep 60"
i=0
while ! $T capture-pane -p | grep -q '^rc=' && [ $i -lt 300 ]; do
    sleep 0.05
    i=$((i + 1))
done
$T capture-pane -p -J -S - >"$tmp/console.txt"
$T kill-server 2>/dev/null
check "the console run exits 0" "rc=0" "$(grep '^rc=' "$tmp/console.txt")"
check "the console drew instead of progress lines" 0 "$(grep -c '^t=' "$tmp/console.err")"
py "the CSV reaches the terminal after the console" '
import csv, sys
text = open(sys.argv[1]).read().split("\n")
start = [i for i, l in enumerate(text) if l.startswith("seq,")]
end = [i for i, l in enumerate(text) if l.startswith("rc=")]
rows = list(csv.DictReader(text[start[0]:end[0]])) if start and end else []
n = sum(int(r["completed"]) for r in rows)
cmd = rows[0]["command_line"] if rows else None
ok = n == 100 and cmd == sys.argv[2]
print("ok" if ok else "completed %d, command %r in %r" % (n, cmd, text[-20:]))
' "$tmp/console.txt" "brink run -c 2 -n 100 --format csv --no-record $url/bytes/10"
check "the target served 400 requests" 400 "$(truth requests_by_endpoint bytes)"

# 6. A bad --format: one line naming the value and the choices, exit 2,
# before any load.
expect_run "a bad --format is refused" 2 "" \
    '^brink: run: --format: expected text, json or csv, got "xml"' -- \
    "$brink" run --headless -n 1 --format xml "$url/bytes/10"
"$brink" run --headless -n 1 --format xml "$url/bytes/10" 2>"$tmp/bad.err" </dev/null
check "the refusal is one line" 1 "$(wc -l <"$tmp/bad.err")"
check "nothing was sent for it" 400 "$(truth requests_by_endpoint bytes)"

finish
