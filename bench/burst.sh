#!/bin/sh
# The 19,000-connection burst of issue 22, point E, as figures: how late the
# engine's ticks run and when 2 s timeouts are reported while 19,000 new
# connections open at once. Figures only: it asserts nothing (the bounded
# checks live in tests/e2e/test_burst.sh) and exits 0 once the table is
# printed (1 only when it cannot set up: no binary, too few open files or
# ephemeral ports).
#
# Each run, for each load model and transport (h1, curl), against
#   brink target --listen 127.0.0.1:0            (not pinned)
# with T.ini holding [target] url = TARGET/delay/5000 and transport = T:
#   open    brink run --headless --config T.ini --rate 100000 \
#               --max-in-flight 19000 --timeout 2s --duration 3s --record R
#           (the issue's case)
#   closed  brink run --headless --config T.ini --concurrency 19000 \
#               --timeout 2s --duration 3s --record R
# Every request waits 5 s for its reply, so every one that started ends as a
# 2 s timeout. Open: the first 19,000 are due within 0.19 s and start at once
# (the burst); later ones wait for a free slot, and their corrected latencies
# (from the intended start) hold that wait too, up to about 2 s more: the
# goal reads on the share of requests up to the burst's size. Closed: 19,000
# users connect at once, time out together and reconnect together at 2 s (a
# second burst); a closed latency counts from the request's actual start, so
# every failure below is exactly when its 2 s timeout was reported. The
# columns are read from the session and its JSON report:
#   wall s       wall time of the brink process (3 s run + the drain)
#   lag max ms   worst loop lag of any tick (issue 22's goal: < 100)
#   lag p50 ms   median of the ticks' loop lags
#   timeouts     requests classed timeout or connect_timeout
#   f min/p50/p90/p99/max
#                latency of the failed requests, in s (open: from each one's
#                intended start, so brink's own delay in opening the
#                connection counts, and so does a wait for a free slot;
#                closed: from its actual start). Goal: 2.0 to 2.2
#   b p50/p90/max
#                the same figures over the 19,000 quickest failures alone:
#                the burst's own requests when later ones waited for a
#                free slot (those wait about 1.8 s more, so all of them
#                are slower than any of the burst's), which the f columns
#                mix in once more than a tenth of the timeouts are theirs.
#                Read from `brink report --format hdr-failed`
#
# After the runs, one line per build, model and transport: the medians
# over the repetitions of lag max, f p50, f p90 and f max, the figures the
# note quotes. With BRINK_BEFORE set, each run is made by that binary too
# (an older build: "before"), right before the same run by BRINK ("after"),
# so both see the same load on a shared machine; the load average is
# printed before and after the runs.
#
# Usage: sh bench/burst.sh   (BRINK=path to a release brink binary, default
# build/release/brink; BRINK_BEFORE=another one to compare with; BENCH_REPS=N
# repetitions per model and transport, default 3)
set -u
prog=burst
cd "$(dirname "$0")/.." || exit 1
. ./bench/lib.sh

find_brink
reps=${BENCH_REPS:-3}
n=19000
ulimit -n $((n + 1000)) 2>/dev/null
hard=$(ulimit -n)
[ "$hard" = unlimited ] || [ "$hard" -ge $((n + 500)) ] ||
    die "the limit of open files is $hard, and $n connections need more (run as root or raise it)"
low=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range)
high=$(awk '{ print $2 }' /proc/sys/net/ipv4/ip_local_port_range)
[ $((high - low)) -ge $((n + 1000)) ] ||
    die "the ephemeral port range $low-$high is too small for $n connections"

bench_tmp
start_target -
print_machine
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (before the runs)"
echo

# figures R.jsonl REPORT.json FAILED.hdr: one table row's columns after wall.
figures() {
    python3 - "$1" "$2" "$3" "$n" <<'EOF'
import json, sys
ticks = [json.loads(l) for l in open(sys.argv[1])]
lags = sorted(t.get("health", {}).get("loop_lag_us", 0) for t in ticks if t.get("type") == "tick")
tot = json.load(open(sys.argv[2]))["total"]
tmo = tot["errors"]["timeout"] + tot["errors"]["connect_timeout"]
f = tot["failed_latency_us"]
print("%10.0f %10.0f %9d %6.2f %6.2f %6.2f %6.2f %6.2f" % (
    lags[-1] / 1000 if lags else 0, lags[len(lags) // 2] / 1000 if lags else 0, tmo,
    f["min"] / 1e6, f["p50"] / 1e6, f["p90"] / 1e6, f["p99"] / 1e6, f["max"] / 1e6), end="")
# HdrHistogram rows: value (ms), percentile, total count, 1/(1-p).
rows = []
for l in open(sys.argv[3]):
    p = l.split()
    if len(p) == 4 and p[0][0].isdigit():
        rows.append((float(p[0]), int(p[2])))
burst = min(int(sys.argv[4]), rows[-1][1]) if rows else 0
def at(q):
    need = q * burst
    return next((v for v, c in rows if c >= need), 0) / 1000
print(" %6.2f %6.2f %6.2f" % (at(0.5), at(0.9), at(1.0)))
EOF
}

builds=after
before=${BRINK_BEFORE:-}
if [ -n "$before" ]; then
    [ -x "$before" ] || die "BRINK_BEFORE=$before is not an executable"
    builds="before after"
fi
: >"$tmp/rows"

# one BUILD MODEL TRANSPORT REP: one run, its row printed and kept.
one() {
    bin=$brink
    [ "$1" = before ] && bin=$before
    if [ "$2" = open ]; then
        load="--rate 100000 --max-in-flight $n"
    else
        load="--concurrency $n"
    fi
    rec=$tmp/$1-$2-$3-$4.jsonl
    printf '[target]\nurl = %s/delay/5000\ntransport = %s\n' "$target_url" "$3" >"$tmp/t.ini"
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e %U %S' -o "$tmp/time" timeout 120 "$bin" run --headless \
        --config "$tmp/t.ini" $load --timeout 2s --duration 3s --record "$rec" \
        </dev/null >"$tmp/run.out" 2>"$tmp/run.err"
    bench_times "$tmp/time"
    # report exits 3 on this run's failed verdict: every request fails.
    "$bin" report --format json "$rec" >"$tmp/rep.json" 2>"$tmp/rep.err"
    rs=$?
    "$bin" report --format hdr-failed "$rec" >"$tmp/failed.hdr" 2>/dev/null
    if [ -s "$rec" ] && { [ "$rs" = 0 ] || [ "$rs" = 3 ]; }; then
        row=$(printf '%-6s %-6s %-9s %3d %6.1f %s' "$1" "$2" "$3" "$4" "$el" \
            "$(figures "$rec" "$tmp/rep.json" "$tmp/failed.hdr")")
        echo "$row"
        echo "$row" >>"$tmp/rows"
    else
        printf '%-6s %-6s %-9s %3d %6.1f (no report: %s)\n' "$1" "$2" "$3" "$4" "$el" \
            "$(tail -n 1 "$tmp/rep.err")"
    fi
}

printf '%-6s %-6s %-9s %3s %6s %10s %10s %9s %6s %6s %6s %6s %6s %6s %6s %6s\n' build model \
    transport rep 'wall s' 'lag max ms' 'lag p50 ms' timeouts 'f min' 'f p50' 'f p90' 'f p99' \
    'f max' 'b p50' 'b p90' 'b max'
for model in open closed; do
    for transport in h1 curl; do
        i=1
        while [ "$i" -le "$reps" ]; do
            for build in $builds; do
                one "$build" "$model" "$transport" "$i"
            done
            i=$((i + 1))
        done
    done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (after the runs)"

# The medians over the repetitions, per build, model and transport (the
# columns of the rows above: 6 lag max, 10 f p50, 11 f p90, 13 f max,
# 14 b p50, 15 b p90, 16 b max).
echo
printf '%-6s %-6s %-9s %5s %10s %6s %6s %6s %6s %6s %6s   (medians; goal: lag < 100, f and b 2.0 to 2.2)\n' \
    build model transport runs 'lag max ms' 'f p50' 'f p90' 'f max' 'b p50' 'b p90' 'b max'
for model in open closed; do
    for transport in h1 curl; do
        for build in $builds; do
            awk -v b="$build" -v m="$model" -v t="$transport" \
                '$1 == b && $2 == m && $3 == t' "$tmp/rows" >"$tmp/sel"
            printf '%-6s %-6s %-9s %5d %10.0f %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f\n' "$build" \
                "$model" "$transport" "$(wc -l <"$tmp/sel")" "$(bench_median "$tmp/sel" 6)" \
                "$(bench_median "$tmp/sel" 10)" "$(bench_median "$tmp/sel" 11)" \
                "$(bench_median "$tmp/sel" 13)" "$(bench_median "$tmp/sel" 14)" \
                "$(bench_median "$tmp/sel" 15)" "$(bench_median "$tmp/sel" 16)"
        done
    done
done
