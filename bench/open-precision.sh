#!/bin/sh
# How much of the open model's corrected latency is brink being late (issue
# 15): brink run --rate R on one worker against nginx, for R = 1,000, 5,000
# and 20,000 requests/s. Under the open model latency counts from each
# request's intended start, so any delay of brink's own in sending a request
# (its timer, its loop) shows up in every corrected figure; the service time
# (actual start to end) has no such delay, and the send lag is that delay
# itself (intended start to the hand-off to the transport, see
# docs/config.md). And what that precision costs in CPU per request, beside
# the closed model's on the same worker at the same rate, and how high one
# worker's open model goes beside the closed model's maximum (issue 34).
#
# Setup: nginx from Debian with its own config in a temporary directory, one
# worker pinned to core 0, serving a 13-byte file on 127.0.0.1 with
# keep-alive. brink runs pinned to core 1, under /usr/bin/time:
#   brink run --headless --url URL --rate R --duration D --threads 1 --record S
# (D = BENCH_SECONDS, default 5; every run is also killed 30 s after D),
# then the table is read from `brink report --format json S`. The closed
# runs (below) are the same with --config F --concurrency C (or --url URL
# --concurrency 64) in place of --url URL --rate R.
#
# Reading the first table (one row per rate):
#   achieved/s    requests started per second (the JSON report's
#                 schedule.achieved_per_s)
#   kept          "yes" when no tick of the run missed its schedule (no
#                 request held back by the in-flight cap, none started more
#                 than 10 ms late); "no(K/T)": K of its T ticks did not
#   corr p50      corrected latency's p50, from the intended start (us)
#   svc p50       service time's p50, from the actual start (us)
#   diff          corr p50 - svc p50 (us): what brink's own lateness adds
#                 to a typical request
#   lag p50, lag p99
#                 the send lag's p50 and p99 (us); "-" for a brink that does
#                 not report it
#   cpu           brink's CPU time (user + system, /usr/bin/time) over the
#                 run's length, in % of one core: what the precision costs
#   us/req        brink's CPU time (user + system) over the requests the run
#                 completed (the JSON report's total.requests), in us: what
#                 one request costs, whatever the rate
#   goal          "ok" when both diff and lag p99 are at most 50 us, "miss"
#                 when not, "-" when the schedule was not kept (then the
#                 figures measure the overload, not the timer)
#
# The closed model at the same rate (issue 34; the second table, one row per
# rate, "run failed" when a run of the rate failed): right after each open
# run, the closed model on the same worker (same core, --threads 1, same D),
# paced to about the same req/s. The closed model has no rate: each user
# sends its next request when its reply is in, and think time (the pause
# between the two, whole milliseconds) is the only pacing it has. So it
# runs with a file of [target] url = URL and [load] think_time = 1ms, and
# --concurrency C: each user sends fewer than 1,000 requests/s (one per 1 ms
# plus its service time, more when its timer fires late). So C is calibrated
# in the same script run: a first run of 2 s with C0 = max(1, round(R /
# 1000)) users achieves r0 req/s, then the measured run has C = max(1,
# round(C0 * R / r0)) users.
#   rate/s        the open run's rate R
#   us/req        the open run's CPU per request, as above
#   C             the closed run's users (after the calibration)
#   closed/s      the closed run's achieved req/s (total.req_per_s: requests
#                 completed per second)
#   closed us/req the closed run's CPU per request, measured as us/req
#   ratio         us/req / closed us/req (2 decimals): what the open model's
#                 schedule costs per request over the closed model's. Issue
#                 34's goal: at most 1.30 at 20,000/s (its line says ok or
#                 miss when 20000 is among the rates)
# A "note:" line names the rates whose closed run was more than 10% away
# from R (think-time pacing is coarse): their ratio compares two rates.
#
# The highest rate one worker keeps (BENCH_MAXRATE=1, the default; 0 skips
# it): open runs as above (D seconds each) search the highest rate at
# which every tick kept its schedule and the send lag's p99 is at most 50 us
# ("kept" below). From 10,000/s the rate grows by 1.25x while kept (or
# shrinks by 1.25x while not kept), then the last kept and the first not kept
# rate are bisected until they are at most 5% apart; at most 10 open runs
# (10 D seconds), after which the last kept rate is printed as a lower bound
# ("stopped at the bound of 10 runs").
# Then one closed run with --concurrency 64 and no think time (D seconds)
# measures the closed model's maximum req/s on the same worker. Printed:
#   kept max      the highest kept rate found ("none" when no rate tried was
#                 kept)
#   tried         the rates tried, in order, each R:yes (kept) or R:no
#   closed max    the closed run's achieved req/s (total.req_per_s)
#   kept max / closed max
#                 their ratio (2 decimals) and "ok" or "miss" against issue
#                 34's goal: at least 0.85
#
# Exits 1 when the first table's goal is missed at a rate whose schedule was
# kept (or any run fails, open or closed), 0 otherwise; issue 34's two goals
# (ratio at 20,000/s, kept max / closed max) are printed, not part of the
# exit status. Figures move with the machine's load: other processes on core
# 1 add their time slices (milliseconds) to the p99, and take from brink the
# core it needs at 20,000/s. On a shared machine run it twice before
# believing a miss.
#
# Usage: sh bench/open-precision.sh   (BRINK=path to a release brink binary,
# default build/release/brink; BENCH_SECONDS=D; BENCH_RATES="1000 20000" to
# measure some rates only; BENCH_MAXRATE=0 to skip the search of the highest
# kept rate)
# The set-up it shares with the other benchmarks is in bench/lib.sh.
set -u
prog=open-precision
cd "$(dirname "$0")/.." || exit 1
. ./bench/lib.sh

seconds=${BENCH_SECONDS:-5}
rates=${BENCH_RATES:-"1000 5000 20000"}
maxrate=${BENCH_MAXRATE:-1}
goal_us=50
# The highest kept rate's search: first rate, and bound on its runs.
search_from=10000
search_runs=10

case "$seconds" in
'' | *[!0-9]* | 0) die "BENCH_SECONDS must be a whole number of seconds (at least 1), got '$seconds'" ;;
esac
case "$rates" in
'' | *[!0-9\ ]*) die "BENCH_RATES must be whole numbers separated by blanks, got '$rates'" ;;
esac
case "$maxrate" in
0 | 1) ;;
*) die "BENCH_MAXRATE must be 0 (no search of the highest kept rate) or 1, got '$maxrate'" ;;
esac

scripts/install-deps bench || exit 1
find_brink
need_two_cores "nginx on core 0, brink on core 1"
bench_tmp

# --- nginx, with its own config (bench/lib.sh) -----------------------------------
mkdir -p "$tmp/www"
printf 'hello, world\n' >"$tmp/www/13" # 13 bytes
start_nginx 13
url="http://127.0.0.1:$nginx_port/13"

# The closed model paced by think time (see the header).
printf '[target]\nurl = %s\n\n[load]\nthink_time = 1ms\n' "$url" >"$tmp/think.ini"

# Each run is bounded: killed if still running 30 s after its duration.
limit=$((seconds + 30))

# brink_run NAME SECONDS ARG...: one brink run on core 1 (bench_client, so
# bounded by $limit) of SECONDS with ARG..., recorded; leaves $tmp/NAME.out,
# .err, .time and its JSON report $tmp/NAME.json, and sets cpu_s (user +
# system seconds). Returns 1 (saying why on stderr) when it failed.
brink_run() {
    br_n=$1
    br_s=$tmp/$1
    br_d=$2
    shift 2
    bench_client "$brink" run --headless --duration "${br_d}s" --threads 1 --record "$br_s.jsonl" \
        "$@" </dev/null
    mv "$tmp/run.out" "$br_s.out"
    mv "$tmp/run.err" "$br_s.err"
    mv "$tmp/time" "$br_s.time" 2>/dev/null
    cpu_s=$(awk -v u="$us" -v s="$sy" 'BEGIN { print u + s }')
    if [ "$rc" -ne 0 ] || ! "$brink" report --format json "$br_s.jsonl" >"$br_s.json" 2>>"$br_s.err"; then
        echo "$prog: the run $br_n failed (exit $rc):" >&2
        grep -v '^t=' "$br_s.err" | head -n 5 >&2
        return 1
    fi
    echo "  $br_n: $(head -n 1 "$br_s.out")" >&2
}

# A run's figures from its JSON report, on one line: requests completed,
# req/s completed, 1 when every tick kept its schedule and the send lag's
# p99 is at most the goal (0 when not), CPU per request (us).
cat >"$tmp/figures.py" <<'FIGURES'
import json, sys
r = json.load(open(sys.argv[1]))
goal, cpu_s = int(sys.argv[2]), float(sys.argv[3])
t = r.get("total", {})
n = t.get("requests", 0)
sc = r.get("schedule", {})
lag = r.get("send_lag", {}).get("latency_us", {}).get("p99")
kept = (sc.get("ticks", 0) > 0 and sc.get("ticks_not_kept", 1) == 0
        and lag is not None and lag <= goal)
print(n, "%.0f" % t.get("req_per_s", 0), 1 if kept else 0, "%.1f" % (cpu_s * 1e6 / n) if n else "-")
FIGURES

# figures NAME: sets f_rps, f_kept, f_usreq from $tmp/NAME.json.
figures() {
    python3 "$tmp/figures.py" "$tmp/$1.json" "$goal_us" "$cpu_s" >"$tmp/$1.figures"
    read -r _ f_rps f_kept f_usreq <"$tmp/$1.figures"
}

print_machine
echo "nginx: $(nginx -v 2>&1 | sed 's/^nginx version: //'), one worker on core 0; brink on core 1"
echo "brink: $brink ($("$brink" --version 2>/dev/null | head -n 1)), --threads 1, ${seconds}s per rate"
echo "goal: corr p50 - svc p50 and send lag p99 at most ${goal_us} us where the schedule is kept"
echo

status=0
: >"$tmp/rows"
: >"$tmp/closed"
for rate in $rates; do
    if ! brink_run "open.$rate" "$seconds" --url "$url" --rate "$rate"; then
        echo "$rate fail" >>"$tmp/rows"
        echo "$rate fail" >>"$tmp/closed"
        status=1
        continue
    fi
    s=$tmp/open.$rate
    figures "open.$rate"
    open_usreq=$f_usreq
    python3 - "$s.json" "$rate" "$goal_us" "$cpu_s" "$open_usreq" >>"$tmp/rows" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
rate, goal, cpu_s, usreq = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
run_us = r.get("duration_us", 0)
cpu = "%.0f%%" % (100 * cpu_s * 1e6 / run_us) if run_us else "-"
sc = r.get("schedule", {})
kept = sc.get("ticks", 0) > 0 and sc.get("ticks_not_kept", 1) == 0
corr = r["total"]["latency_us"]["p50"]
svc = r.get("service", {}).get("latency_us", {}).get("p50", 0)
lag_us = r.get("send_lag", {}).get("latency_us", {})
lag50, lag = lag_us.get("p50"), lag_us.get("p99")
diff = corr - svc
if not kept:
    verdict = "-"
else:
    verdict = "ok" if diff <= goal and lag is not None and lag <= goal else "miss"
print(rate, "%.0f" % sc.get("achieved_per_s", 0),
      "yes" if kept else "no(%d/%d)" % (sc.get("ticks_not_kept", 0), sc.get("ticks", 0)),
      corr, svc, diff, "-" if lag50 is None else lag50, "-" if lag is None else lag, cpu, usreq,
      verdict)
EOF

    # The closed model at about the same rate: calibrate C, then measure.
    c0=$(awk -v r="$rate" 'BEGIN { c = int(r / 1000 + 0.5); print (c < 1 ? 1 : c) }')
    if ! brink_run "calib.$rate" 2 --config "$tmp/think.ini" --concurrency "$c0"; then
        echo "$rate fail" >>"$tmp/closed"
        status=1
        continue
    fi
    figures "calib.$rate"
    c=$(awk -v c0="$c0" -v r="$rate" -v r0="$f_rps" 'BEGIN {
        c = (r0 > 0 ? int(c0 * r / r0 + 0.5) : c0); print (c < 1 ? 1 : c > 100000 ? 100000 : c) }')
    if ! brink_run "closed.$rate" "$seconds" --config "$tmp/think.ini" --concurrency "$c"; then
        echo "$rate fail" >>"$tmp/closed"
        status=1
        continue
    fi
    figures "closed.$rate"
    ratio=$(awk -v o="$open_usreq" -v c="$f_usreq" 'BEGIN {
        if (o == "-" || c == "-" || c + 0 == 0) print "-"; else printf "%.2f", o / c }')
    echo "$rate $open_usreq $c $f_rps $f_usreq $ratio" >>"$tmp/closed"
done

# The highest rate one worker keeps, and the closed model's maximum.
if [ "$maxrate" != 0 ]; then
    lo=0
    hi=0
    r=$search_from
    i=0
    tried=""
    while [ "$i" -lt "$search_runs" ] && [ "$r" -gt 0 ]; do
        i=$((i + 1))
        if ! brink_run "search.$r" "$seconds" --url "$url" --rate "$r"; then
            status=1
            break
        fi
        figures "search.$r"
        if [ "$f_kept" = 1 ]; then
            lo=$r
            tried="$tried $r:yes"
        else
            hi=$r
            tried="$tried $r:no"
        fi
        # At most 5% apart: done.
        [ "$lo" -gt 0 ] && [ "$hi" -gt 0 ] && [ $(((hi - lo) * 20)) -le "$lo" ] && break
        if [ "$hi" -eq 0 ]; then
            r=$((lo * 5 / 4))
        elif [ "$lo" -eq 0 ]; then
            r=$((hi * 4 / 5))
        else
            r=$(((lo + hi) / 2))
        fi
    done
    bound=""
    if [ "$i" -ge "$search_runs" ] && { [ "$lo" -eq 0 ] || [ "$hi" -eq 0 ] ||
        [ $(((hi - lo) * 20)) -gt "$lo" ]; }; then
        bound=" (stopped at the bound of $search_runs runs)"
    fi
    closed_max=""
    if brink_run closed.max "$seconds" --url "$url" --concurrency 64; then
        figures closed.max
        closed_max=$f_rps
    else
        status=1
    fi
fi

printf '%8s %11s %10s %9s %8s %6s %8s %8s %5s %7s %5s\n' rate/s achieved/s kept "corr p50" \
    "svc p50" diff "lag p50" "lag p99" cpu us/req goal
missed=""
judged=0
while read -r rate achieved kept corr svc diff lag50 lag cpu usreq verdict; do
    if [ "$achieved" = fail ]; then
        printf '%8s %11s\n' "$rate" "run failed"
        continue
    fi
    printf '%8s %11s %10s %9s %8s %6s %8s %8s %5s %7s %5s\n' "$rate" "$achieved" "$kept" "$corr" \
        "$svc" "$diff" "$lag50" "$lag" "$cpu" "$usreq" "$verdict"
    [ "$verdict" = - ] || judged=$((judged + 1))
    if [ "$verdict" = miss ]; then
        missed="$missed $rate/s"
        status=1
    fi
done <"$tmp/rows"
echo "(latencies in us; corr from the intended start, svc from the actual start)"

echo
echo "closed model at the same rate (think_time = 1ms, C users calibrated), same worker:"
printf '%8s %7s %6s %9s %14s %6s\n' rate/s us/req C closed/s "closed us/req" ratio
ratio20k=""
off=""
while read -r rate usreq c crps cusreq ratio; do
    if [ "$usreq" = fail ]; then
        printf '%8s %7s\n' "$rate" "run failed"
        continue
    fi
    printf '%8s %7s %6s %9s %14s %6s\n' "$rate" "$usreq" "$c" "$crps" "$cusreq" "$ratio"
    [ "$rate" = 20000 ] && ratio20k=$ratio
    awk -v r="$rate" -v c="$crps" 'BEGIN { exit !(c < 0.9 * r || c > 1.1 * r) }' &&
        off="$off $rate/s"
done <"$tmp/closed"
[ -z "$off" ] ||
    echo "note: closed/s more than 10% away from the rate at$off (its us/req is at another req/s)"
if [ -n "$ratio20k" ]; then
    v=$(awk -v x="$ratio20k" 'BEGIN { print (x != "-" && x + 0 <= 1.30 ? "ok" : "miss") }')
    echo "issue 34: ratio at 20000/s $ratio20k, goal at most 1.30: $v"
fi

if [ "$maxrate" != 0 ]; then
    echo
    echo "highest rate one worker keeps (every tick kept, lag p99 <= ${goal_us} us), same worker:"
    if [ "$lo" -gt 0 ]; then
        echo "  kept max    $lo/s$bound${bound:+: a lower bound}"
    else
        echo "  kept max    none$bound"
    fi
    echo "  tried      $tried"
    if [ -n "$closed_max" ]; then
        echo "  closed max  $closed_max/s (--concurrency 64, no think time)"
    else
        echo "  closed max  run failed"
    fi
    if [ "$lo" -gt 0 ] && [ -n "$closed_max" ] && [ "$closed_max" != 0 ]; then
        v=$(awk -v k="$lo" -v c="$closed_max" 'BEGIN {
            printf "%.2f %s", k / c, (k / c >= 0.85 ? "ok" : "miss") }')
        echo "  kept max / closed max  ${v% *}, issue 34's goal at least 0.85: ${v#* }"
    fi
fi

echo
if [ -n "$missed" ]; then
    echo "MISS: more than ${goal_us} us at$missed"
elif [ "$judged" -eq 0 ]; then
    echo "NO VERDICT: no rate kept its schedule (an overloaded machine measures the overload)"
elif [ "$status" -eq 0 ]; then
    echo "PASS: at most ${goal_us} us at every rate whose schedule was kept"
else
    echo "FAIL: a run failed (its reason is above, on stderr)"
fi
exit $status
