#!/bin/sh
# The HTML report of a one-hour session (issue 19): is the page of 3,600
# ticks under 2 MB, and does Chromium render it in under 2 s? Figures only:
# it asserts nothing and exits 0 once they are printed (1 only when it
# cannot set up).
#
# Setup: `brink target` on 127.0.0.1 pinned to core 0 with 1% resets (an
# error curve), and
#   brink run --headless --config FILE --record $tmp/real.jsonl
# pinned to core 1 for BENCH_SECONDS (default 10) at concurrency 20, with
# two json probes of the target's /stats (a counter and a gauge, the first
# with an alert). Then python3 stretches the real session to one hour, as
# bench/session-size.sh does (the recorded running ticks repeated with seq
# and start_us rewritten, each keeping its real histograms and probe
# values), and makes the hour a staircase: the target concurrency goes
# 10, 20, ... 120, one level every 300 ticks, with a mark at each change.
#
# Reading the output: the page's size against the 2 MB goal (1 MB = 10^6
# bytes) and the points its charts hold; the time `brink report --format
# html` takes to write it; then the render time, measured inside headless
# Chromium by bench/render_time.py (DevTools protocol): from the page's
# navigation start to its load event, and to the second animation frame
# after it (laid out and painted), 3 loads of an empty page and 3 of the
# hour's, medians against the 2 s goal. The browser's own start-up is no
# part of it.
#
# Usage: sh bench/html-report.sh   (BRINK=path to a release brink binary,
# default build/release/brink; BENCH_SECONDS=T, at least 5)
# The set-up it shares with the other benchmarks is in bench/lib.sh.
set -u
prog=html-report
cd "$(dirname "$0")/.." || exit 1
. ./bench/lib.sh

seconds=${BENCH_SECONDS:-10}
case "$seconds" in
'' | *[!0-9]*) die "BENCH_SECONDS must be a whole number" ;;
esac
[ "$seconds" -ge 5 ] || die "BENCH_SECONDS must be at least 5"
command -v python3 >/dev/null 2>&1 || die "needs python3"
command -v chromium >/dev/null 2>&1 || die "needs chromium: run scripts/install-deps bench"

find_brink
need_two_cores "target on core 0, brink run on core 1"
bench_tmp

start_target 0
curl -s -X POST --data '{"faults": {"reset": 0.01}}' "$target_url/_control" >/dev/null

print_machine
echo "brink: $brink ($("$brink" --version 2>/dev/null | head -n 1)); target on core 0, run on core 1"
echo "chromium: $(chromium --version 2>/dev/null | head -n 1)"

cat >"$tmp/session.ini" <<EOF
[target]
url = $target_url/bytes/100

[load]
concurrency = 20
duration = ${seconds}s

[probe requests]
type = json
url = /stats
pointer = /requests_total
kind = counter
alert = > 100000

[probe conns]
type = json
url = /stats
pointer = /active_connections

[thresholds]
fail_on = error_rate > 5%
EOF
chmod 600 "$tmp/session.ini"

real=$tmp/real.jsonl
taskset -c 1 "$brink" run --headless --config "$tmp/session.ini" --record "$real" \
    </dev/null >"$tmp/run.out" 2>"$tmp/run.err"
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$real" ]; then
    grep -v '^t=' "$tmp/run.err" | head -n 10 >&2
    die "brink run failed (exit $rc)"
fi
echo "real run: exit $rc; $(sed -n 1p "$tmp/run.out")"

# --- one hour of ticks, a staircase ------------------------------------------------------
hour=$tmp/hour.jsonl
python3 - "$real" "$hour" <<'PY' || die "could not stretch the session"
import json, sys

src, dst = sys.argv[1:3]
header, ticks = None, []
with open(src) as f:
    for line in f:
        o = json.loads(line)
        if o["type"] == "header":
            header = line
        elif o["type"] == "tick" and o["state"] == "running":
            ticks.append(o)
if header is None or not ticks:
    sys.exit("no header or no running tick")
tick_us = ticks[0]["duration_us"] or 1000000
start_wall = json.loads(header)["start_wall_ms"]
with open(dst, "w") as out:
    out.write(header)
    for seq in range(3600):
        t = dict(ticks[seq % len(ticks)])
        level = 10 * (seq // 300 + 1)
        t["seq"] = seq
        t["start_us"] = seq * tick_us
        t["duration_us"] = tick_us
        t["target_concurrency"] = t["actual_concurrency"] = level
        t["events"] = []
        if seq % 300 == 0:
            t["events"] = [{"at_ms": seq * tick_us // 1000, "kind": "mark",
                            "text": "level %d" % level}]
        out.write(json.dumps(t, separators=(",", ":")) + "\n")
    out.write(json.dumps({"type": "trailer", "ticks": 3600, "complete": True,
                          "reason": "done", "end_wall_ms": start_wall + 3600 * tick_us // 1000,
                          "ticks_dropped": 0, "ticks_not_recorded": 0},
                         separators=(",", ":")) + "\n")
PY

# --- the page ------------------------------------------------------------------------------
: >"$tmp/write"
for i in 1 2 3; do
    t0=$(date +%s%N)
    "$brink" report "$hour" --format html -o "$tmp/hour.html" 2>"$tmp/report.err"
    rrc=$?
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000)) >>"$tmp/write"
    [ $rrc -le 0 ] || [ $rrc -eq 3 ] || { head -n 5 "$tmp/report.err" >&2; die "brink report exit $rrc"; }
done
bytes=$(wc -c <"$tmp/hour.html")
points=$(grep -o 'data-points="[0-9]*"' "$tmp/hour.html" | head -n 1)
charts=$(grep -c '<figure class="chart"' "$tmp/hour.html")
awk -v b="$bytes" -v c="$charts" -v p="$points" 'BEGIN {
    printf "page of one hour (3600 ticks): %d bytes = %.2f MB, %d charts (%s); goal < 2 MB: %s\n",
        b, b / 1e6, c, p, (b < 2e6 ? "met" : "NOT met") }'
echo "brink report --format html wall time (ms, 3 runs): $(sort -n "$tmp/write" | tr '\n' ' ')"

# --- rendering --------------------------------------------------------------------------------
printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>empty</title></head><body></body></html>\n' \
    >"$tmp/empty.html"
timeout 300 python3 bench/render_time.py "$tmp/chrome" 3 "$tmp/empty.html" "$tmp/hour.html" \
    >"$tmp/render" 2>"$tmp/render.err" || die "render_time.py failed: $(tail -n 2 "$tmp/render.err")"
grep '^empty' "$tmp/render" >"$tmp/empty"
grep '^hour' "$tmp/render" >"$tmp/page"
echo "chromium, ms from navigation start (3 loads each): load event / second frame after it:"
echo "  empty page: $(awk '{ printf "%s/%s ", $3, $4 }' "$tmp/empty")"
echo "  the hour's page: $(awk '{ printf "%s/%s ", $3, $4 }' "$tmp/page")"
awk -v l="$(bench_median "$tmp/page" 3)" -v f="$(bench_median "$tmp/page" 4)" 'BEGIN {
    printf "render time of the hour'"'"'s page (median): loaded %d ms, painted %d ms; goal < 2 s: %s\n",
        l, f, (f < 2000 ? "met" : "NOT met") }'
exit 0
