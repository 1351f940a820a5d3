#!/bin/sh
# Size of a one-hour session (issue 7, "Size"): does a session recorded at
# c=100 with two probes stay under 10 MB for an hour, and does `brink report`
# read it in under a second? Figures only: it asserts nothing and exits 0
# once the figures are printed (1 only when it cannot set up).
#
# Setup: `brink target` on 127.0.0.1 (a free port) pinned to core 0, and
#   brink run --headless --config FILE --record $tmp/real.jsonl
# pinned to core 1, FILE giving TARGET/bytes/13 at concurrency 100 for
# BENCH_SECONDS (default 30) and two json probes of the target's /stats
# (docs/target.md): /requests_total as a counter and /active_connections as
# a gauge, both every 1 s (the default tick is 1 s too).
# Then a short python3 step stretches the real session to one hour of ticks:
# the header as recorded, then the recorded tick lines repeated in order
# (only those of the running state, so the hour reads as one steady level)
# with seq and start_us rewritten so they run on 0..3599 and one tick length
# apart, and a trailer saying 3600 complete ticks. Every tick keeps its real
# histogram, its probe values and its real size.
#
# Reading the output: the real session (ticks, bytes, bytes per tick), the
# hour file's size against the 10 MB goal (1 MB = 10^6 bytes), and the wall
# time of `brink report` on it, 3 runs and their median, against the 1 s
# goal. The first line of the report follows, to show the file is read as a
# valid session of 3600 ticks.
#
# Usage: sh bench/session-size.sh   (BRINK=path to a release brink binary,
# default build/release/brink; BENCH_SECONDS=T, at least 5)
# The set-up it shares with the other benchmarks is in bench/lib.sh.
set -u
prog=session-size
cd "$(dirname "$0")/.." || exit 1
. ./bench/lib.sh

seconds=${BENCH_SECONDS:-30}
case "$seconds" in
'' | *[!0-9]*) die "BENCH_SECONDS must be a whole number" ;;
esac
[ "$seconds" -ge 5 ] || die "BENCH_SECONDS must be at least 5"
command -v python3 >/dev/null 2>&1 || die "needs python3"

find_brink
need_two_cores "target on core 0, brink run on core 1"
bench_tmp

start_target 0

print_machine
echo "brink: $brink ($("$brink" --version 2>/dev/null | head -n 1)); target on core 0, run on core 1"
echo "run: GET $target_url/bytes/13, concurrency 100, ${seconds}s, probes /stats /requests_total (counter) and /active_connections"

cat >"$tmp/session.ini" <<EOF
[target]
url = $target_url/bytes/13

[load]
concurrency = 100
duration = ${seconds}s

[probe requests]
type = json
url = /stats
pointer = /requests_total
kind = counter

[probe conns]
type = json
url = /stats
pointer = /active_connections
EOF
chmod 600 "$tmp/session.ini"

# --- the real run ---------------------------------------------------------------------
real=$tmp/real.jsonl
taskset -c 1 "$brink" run --headless --config "$tmp/session.ini" --record "$real" \
    </dev/null >"$tmp/run.out" 2>"$tmp/run.err"
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$real" ]; then
    grep -v '^t=' "$tmp/run.err" | head -n 10 >&2
    die "brink run failed (exit $rc)"
fi
echo
echo "real run: exit $rc; $(sed -n 1p "$tmp/run.out")"
grep '^t=' "$tmp/run.err" | tail -n 2 | sed 's/^/  /'

# --- one hour of ticks ----------------------------------------------------------------
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
size = sum(len(json.dumps(t, separators=(",", ":"))) + 1 for t in ticks)
print("real session: %d running ticks, %d bytes of ticks, %.0f bytes a tick"
      % (len(ticks), size, size / len(ticks)))
start_wall = json.loads(header)["start_wall_ms"]
with open(dst, "w") as out:
    out.write(header)
    for seq in range(3600):
        t = dict(ticks[seq % len(ticks)])
        t["seq"] = seq
        t["start_us"] = seq * tick_us
        t["duration_us"] = tick_us
        out.write(json.dumps(t, separators=(",", ":")) + "\n")
    out.write(json.dumps({"type": "trailer", "ticks": 3600, "complete": True,
                          "reason": "done", "end_wall_ms": start_wall + 3600 * tick_us // 1000,
                          "ticks_dropped": 0, "ticks_not_recorded": 0},
                         separators=(",", ":")) + "\n")
PY

bytes=$(wc -c <"$hour")
echo "real session file: $(wc -c <"$real") bytes for $(grep -c '"type":"tick"' "$real") ticks"
awk -v b="$bytes" 'BEGIN {
    printf "one hour (3600 ticks): %d bytes = %.2f MB; goal < 10 MB: %s\n", b, b / 1e6,
        (b < 10e6 ? "met" : "NOT met") }'

# --- brink report on it, 3 times ---------------------------------------------------------
: >"$tmp/times"
for i in 1 2 3; do
    t0=$(date +%s%N)
    "$brink" report "$hour" >"$tmp/report.out" 2>"$tmp/report.err"
    rrc=$?
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000)) >>"$tmp/times"
    [ $rrc -eq 0 ] || { head -n 5 "$tmp/report.err" >&2; die "brink report exit $rrc"; }
done
sort -n "$tmp/times" | awk '{ v[NR] = $1 } END {
    printf "brink report wall time: %d, %d, %d ms (sorted); median %d ms; goal < 1 s: %s\n",
        v[1], v[2], v[3], v[2], (v[2] < 1000 ? "met" : "NOT met") }'
echo "its report: $(sed -n 1p "$tmp/report.out"); $(sed -n 's/^steps: /steps: /p' "$tmp/report.out")"
[ -s "$tmp/report.err" ] && sed 's/^/  report stderr: /' "$tmp/report.err" | head -n 3
exit 0
