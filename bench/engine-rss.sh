#!/bin/sh
# Bounded memory of the engine (issue 4): does brink run's resident memory
# stay flat under sustained load? Figures only: it asserts nothing and exits
# 0 once the figures are printed (1 only when it cannot set up).
#
# Setup: `brink target` on 127.0.0.1 (a free port) pinned to core 0, and
#   brink run --headless --url TARGET/bytes/13 --concurrency 200 --duration T
# pinned to core 1 (T = RSS_SECONDS, default 600; 120 makes a quick check).
# Every 10 s the script reads VmRSS and VmHWM (peak) of the brink run process
# from /proc/PID/status.
#
# Reading the output: one line per sample (seconds since the run started,
# RSS, peak RSS, and brink's latest progress line), then
#   RSS at 1 min, RSS at the end (the last sample), end - 1 min, trend
# Issue 4's goal: after 10 minutes at c=200, RSS is within 2 MB (2048 KiB) of
# RSS after 1 minute; the "goal" line says whether this run was, and the
# "trend" line gives the least-squares slope of the samples from 1 min on
# (for a run shorter than 10 min, also where that slope would reach by then).
# A steady climb across the series (rather than one step early on) is what a
# leak looks like; with a short T read the trend, not only the difference.
# brink's report (its first lines and any errors) follows, to show the load
# was real.
#
# Usage: sh bench/engine-rss.sh   (BRINK=path to a release brink binary,
# default build/release/brink; RSS_SECONDS=T,
# RSS_CONCURRENCY=C, default 200)
# The set-up it shares with the other benchmarks is in bench/lib.sh.
set -u
prog=engine-rss
cd "$(dirname "$0")/.." || exit 1
. ./bench/lib.sh

seconds=${RSS_SECONDS:-600}
concurrency=${RSS_CONCURRENCY:-200}
every=10

case "$seconds$concurrency" in
'' | *[!0-9]*) die "RSS_SECONDS and RSS_CONCURRENCY must be whole numbers" ;;
esac
[ "$seconds" -ge 70 ] || die "RSS_SECONDS must be at least 70 (the baseline is the sample at 1 min)"

scripts/install-deps bench || exit 1
find_brink
need_two_cores "target on core 0, brink run on core 1"
bench_tmp

# --- brink target (bench/lib.sh) --------------------------------------------------
start_target 0

print_machine
echo "brink: $brink ($("$brink" --version 2>/dev/null | head -n 1)); target on core 0, run on core 1"
echo "run: GET $target_url/bytes/13, concurrency $concurrency, ${seconds}s, RSS every ${every}s"

# --- the run --------------------------------------------------------------------------
# taskset execs brink, so $! is brink's own pid.
taskset -c 1 "$brink" run --headless --url "$target_url/bytes/13" \
    --concurrency "$concurrency" --duration "${seconds}s" >"$tmp/run.out" 2>"$tmp/run.err" &
client_pid=$!
start=$(date +%s)

# status_kb FIELD: FIELD (VmRSS, VmHWM) of the run in KiB, empty once it exited.
status_kb() {
    awk -v f="$1:" '$1 == f { print $2 }' "/proc/$client_pid/status" 2>/dev/null
}

echo
printf '%6s %10s %10s  %s\n' t "RSS KiB" "peak KiB" "brink progress"
: >"$tmp/samples"
k=1
is_last=0
# Every 10 s; the last sample 2 s before the run's end (it exits at T).
# Bounded: the loop stops there, or earlier if the run exits.
while [ $is_last -eq 0 ]; do
    next=$((start + k * every))
    if [ $((k * every)) -ge $((seconds - 2)) ]; then
        next=$((start + seconds - 2))
        is_last=1
    fi
    now=$(date +%s)
    [ "$next" -gt "$now" ] && sleep $((next - now))
    rss=$(status_kb VmRSS)
    hwm=$(status_kb VmHWM)
    [ -n "$rss" ] || break
    t=$(($(date +%s) - start))
    progress=$(grep '^t=' "$tmp/run.err" | tail -n 1)
    printf '%5ds %10d %10d  %s\n' "$t" "$rss" "$hwm" "$progress"
    echo "$t $rss" >>"$tmp/samples"
    k=$((k + 1))
done

# The run ends by itself at its duration; if it has not, it hangs: say so.
i=0
while kill -0 "$client_pid" 2>/dev/null && [ $i -lt 300 ]; do
    sleep 0.1
    i=$((i + 1))
done
if kill -0 "$client_pid" 2>/dev/null; then
    echo "engine-rss: brink run still running 30 s after its last sample (it should stop at ${seconds}s); stopping it" >&2
    kill "$client_pid"
fi
wait "$client_pid"
rc=$?
client_pid=""

echo
awk '
    $1 >= 60 && base == "" { base = $2; base_t = $1 }
    $1 >= 60 { n++; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2 }
    { last = $2; last_t = $1 }
    END {
        if (base == "") { print "no sample at 1 min or later: the run ended early"; exit }
        d = last - base
        printf "RSS at %ds (1 min): %d KiB (%.2f MB)\n", base_t, base, base / 1024
        printf "RSS at %ds (end):   %d KiB (%.2f MB)\n", last_t, last, last / 1024
        printf "end - 1 min:        %+d KiB (%+.2f MB)\n", d, d / 1024
        printf "goal (|end - 1 min| <= 2 MB): %s\n", (d <= 2048 && d >= -2048 ? "within" : "NOT within")
        # Least-squares slope of the samples from 1 min on: the trend, and
        # where it would be at 10 min if it went on (a short run hints only).
        if (n >= 3 && n * sxx - sx * sx > 0) {
            slope = (n * sxy - sx * sy) / (n * sxx - sx * sx)
            printf "trend from 1 min:   %+.0f KiB/min over %d samples", slope * 60, n
            if (last_t < 590)
                printf "; at that rate, 10 min - 1 min = %+.0f KiB (%+.2f MB)", slope * 540, slope * 540 / 1024
            printf "\n"
        }
    }' "$tmp/samples"

echo
echo "brink run exit status $rc; its report:"
sed -n '1,2p' "$tmp/run.out" | sed 's/^/  /'
grep -E '^(errors|  [a-z_]+ |HTTP statuses|dropped)' "$tmp/run.out" | sed 's/^/  /'
grep -v '^t=' "$tmp/run.err" | head -n 10 | sed 's/^/  stderr: /'
exit 0
