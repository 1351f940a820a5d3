#!/bin/sh
# brink run against wrk, loading the same nginx on loopback (issues 4 and
# 10): brink once per transport, libcurl's ("curl") and its own HTTP/1.1
# client ("h1"). Figures only: it asserts nothing and exits 0 once the table is
# printed (1 only when it cannot set up: no binary, no nginx, one core).
#
# Setup: nginx from Debian with its own config in a temporary directory, one
# worker pinned to core 0, serving a 13-byte file ("13") and a 133 KiB file
# ("133k") on 127.0.0.1 with keep-alive. Each client runs pinned to core 1:
#   wrk -t1 -cC -dD URL
#   brink run --headless --config T.ini --url URL --concurrency C --duration D --threads 1
# (T.ini sets [target] transport = curl or h1) for C = 1, 16, 64, 256 and
# both files, wrk, brink curl and brink h1 alternating, three repetitions
# each (D = BENCH_SECONDS, default 5; total about 72 x D).
#
# Reading the table (one row per file, C and brink transport, medians of the
# 3 repetitions; the wrk columns repeat on both rows of a file and C):
#   wrk req/s               requests/s as wrk reports it (over its load window)
#   brink req/s             requests brink completed / wall-clock time of the
#                           brink process (start-up and drain included, so if
#                           anything it understates brink), not the req/s of
#                           brink's report, which is shown apart (brink rep.).
#                           Since the tick-timer fix the report agrees with it
#                           (within about 1% at D = 5), but the wall clock is
#                           kept: it does not depend on the code under test
#   brink/wrk               ratio of the two medians. Issue 4's goal (curl):
#                           >= 0.5 for "13" and >= 1.3 for "133k" at every C;
#                           issue 10's (h1): >= 0.95 for "13" at C >= 16 and
#                           >= 1.5 for "133k", with brink us/req <= wrk's
#   wrk us/req, brink us/req
#                           client CPU (user + sys, from /usr/bin/time) per
#                           completed request: lower is better. Where nginx's
#                           core is saturated (13 bytes, C >= 16) req/s
#                           equalise and this column is the fair comparison
#   brink rep.              the req/s brink's own report printed (first line
#                           of its report); it should agree with brink r/s
#                           within a few percent; a disagreement is a bug in
#                           the report's duration, not in the load
# Absolute figures move by tens of percent with the machine's load; compare
# the ratios of one run. Runs with errors, non-200 statuses or a non-zero exit
# are listed under the table; stderr gets one line per run as it goes
# (requests, wall time, CPU, and brink's report line).
#
# Usage: sh bench/vs-wrk.sh   (BRINK=path to a release brink binary, default
# build/release/brink; BENCH_SECONDS=D; BENCH_REPS=N (default 3);
# BENCH_CONNS="16 64" and BENCH_FILES=13 to measure some points only;
# BRINK_BEFORE=path to a second binary, measured in the same repetitions,
# alternating with the first: its rows read "curl<" and "h1<", so that a
# change is judged within one run, not across two a busy machine may part;
# BENCH_BUSY_POLL=D (e.g. 20us) adds the rows "h1bp": brink h1 with
# [load] busy_poll = D, which keeps its loop awake for D after each reply
# (docs/config.md); BENCH_CLIENTS="h1 h1bp" measures those brink rows only)
# The set-up it shares with the other benchmarks is in bench/lib.sh.
set -u
prog=vs-wrk
cd "$(dirname "$0")/.." || exit 1
. ./bench/lib.sh

seconds=${BENCH_SECONDS:-5}
reps=${BENCH_REPS:-3}
before=${BRINK_BEFORE:-}
conns=${BENCH_CONNS:-"1 16 64 256"}
files=${BENCH_FILES:-"13 133k"}

case "$seconds$reps" in
'' | *[!0-9]*) die "BENCH_SECONDS and BENCH_REPS must be whole numbers, got '$seconds' and '$reps'" ;;
esac
[ -z "$before" ] || [ -x "$before" ] || die "BRINK_BEFORE: $before is no executable"
busy=${BENCH_BUSY_POLL:-}
clients="curl h1"
[ -n "$before" ] && clients="curl curl< h1 h1<"
[ -n "$busy" ] && clients="$clients h1bp"
clients=${BENCH_CLIENTS:-$clients}
for t in $clients; do
    case $t in
    curl | h1 | "curl<" | "h1<") ;;
    h1bp) [ -n "$busy" ] || die "BENCH_CLIENTS: h1bp needs BENCH_BUSY_POLL" ;;
    *) die "BENCH_CLIENTS: '$t' is none of curl, h1, curl<, h1<, h1bp" ;;
    esac
done

scripts/install-deps bench || exit 1
find_brink
need_two_cores "nginx on core 0, the client on core 1"
bench_tmp

# --- nginx, with its own config (bench/lib.sh) -----------------------------------
mkdir -p "$tmp/www"
printf 'hello, world\n' >"$tmp/www/13" # 13 bytes
head -c $((133 * 1024)) /dev/urandom >"$tmp/www/133k"
start_nginx 13

# Each client run is bounded: killed if still running 30 s after its duration.
limit=$((seconds + 30))

# client_times: el, us, sy from the last line of $tmp/time (GNU time puts a
# "Command exited with non-zero status" line before it when the client fails).
client_times() {
    el=$(tail -n 1 "$tmp/time" 2>/dev/null | awk 'NF == 3 { print $1 }')
    us=$(tail -n 1 "$tmp/time" 2>/dev/null | awk 'NF == 3 { print $2 }')
    sy=$(tail -n 1 "$tmp/time" 2>/dev/null | awk 'NF == 3 { print $3 }')
    el=${el:-0} us=${us:-0} sy=${sy:-0}
}

# run_wrk URL C: appends "rps cpu_us_per_req" to $tmp/wrk.C.$file (rps as wrk
# reports it); logs one line to stderr.
run_wrk() {
    out=$tmp/run.out
    timeout -k 5 $limit taskset -c 1 /usr/bin/time -o "$tmp/time" -f '%e %U %S' \
        wrk -t1 -c"$2" -d"${seconds}s" "$1" >"$out" 2>&1
    rc=$?
    n=$(awk '$2 == "requests" && $3 == "in" { print $1; exit }' "$out")
    wrk_rps=$(sed -n 's/^Requests\/sec: *//p' "$out")
    client_times
    errs=$(grep -E 'Socket errors|Non-2xx' "$out" | tr -s ' \n' ' ')
    [ "$rc" -ne 0 ] || [ -z "$n" ] || [ -n "$errs" ] &&
        echo "$file c=$2 wrk: exit $rc ${errs}" >>"$tmp/problems"
    awk -v n="${n:-0}" -v rps="${wrk_rps:-0}" -v us="$us" -v sy="$sy" 'BEGIN {
        printf "%.1f %.2f\n", rps, (n > 0 ? (us + sy) * 1e6 / n : 0) }' \
        >>"$tmp/wrk.$2.$file"
    echo "  wrk   $file c=$2: $n requests, wall ${el}s, cpu ${us}u ${sy}s, wrk says $wrk_rps req/s, exit $rc" >&2
}

# run_brink URL C T: appends "rps cpu_us_per_req reported_rps" to
# $tmp/T.C.$file (rps = requests / wall time) for client T: transport curl
# or h1 of brink, or of BRINK_BEFORE's binary for "curl<" and "h1<"; logs
# one line to stderr.
run_brink() {
    out=$tmp/run.out
    bin=$brink tp=$3
    case $3 in *"<") bin=$before tp=${3%"<"} ;; esac
    timeout -k 5 $limit taskset -c 1 /usr/bin/time -o "$tmp/time" -f '%e %U %S' \
        "$bin" run --headless --config "$tmp/$tp.ini" --url "$1" --concurrency "$2" \
        --duration "${seconds}s" --threads 1 >"$out" 2>"$tmp/run.err"
    rc=$?
    first=$(head -n 1 "$out")
    # "duration 5.01s, 38,156 requests, ok 7,614 req/s, failed 0.0/s, ..."
    n=$(echo "$first" | awk '$1 == "duration" { gsub(",", "", $3); print $3 }')
    rep=$(echo "$first" | awk '$1 == "duration" && $5 == "ok" { gsub(",", "", $6); print $6 }')
    client_times
    errline=$(grep -m 1 '^errors:' "$out")
    statuses=$(grep -m 1 '^HTTP statuses:' "$out")
    bad_status=$(echo "$statuses" | tr ' ' '\n' | grep '=' | grep -v '^200=')
    if [ "$rc" -ne 0 ] || [ -z "$n" ] || [ "$errline" != "errors: none" ] || [ -n "$bad_status" ]; then
        echo "$file c=$2 brink $3: exit $rc; ${errline:-no errors line}; ${statuses:-no statuses line}" >>"$tmp/problems"
        grep -v '^t=' "$tmp/run.err" | head -n 5 | sed 's/^/    stderr: /' >>"$tmp/problems"
    fi
    awk -v n="${n:-0}" -v el="$el" -v us="$us" -v sy="$sy" -v rep="${rep:-0}" 'BEGIN {
        printf "%.1f %.2f %s\n", (el > 0 ? n / el : 0), (n > 0 ? (us + sy) * 1e6 / n : 0), rep }' \
        >>"$tmp/$3.$2.$file"
    echo "  brink $3 $file c=$2: $n requests, wall ${el}s, cpu ${us}u ${sy}s, report: $first, exit $rc" >&2
}

# median FILE COLUMN: the median of that column.
median() {
    sort -g -k "$2,$2" "$1" | awk -v k="$2" '{ v[NR] = $k } END {
        if (NR == 0) { print 0; exit }
        print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

print_machine
echo "nginx: $(nginx -v 2>&1 | sed 's/^nginx version: //'), one worker on core 0; clients on core 1"
echo "wrk: $(wrk -v 2>&1 | head -n 1 | awk '{ print $2 }'); brink: $brink ($("$brink" --version 2>/dev/null | head -n 1))"
[ -z "$before" ] || echo "before (rows curl< and h1<): $before ($("$before" --version 2>/dev/null | head -n 1))"
echo "runs: ${seconds}s each, $reps alternating repetitions, medians shown"
echo "  (progress on stderr; expect about $((($(echo $clients | wc -w) + 1) * $(echo $conns | wc -w) * $(echo $files | wc -w) * reps * seconds)) s)" >&2
for t in curl h1; do
    printf '[target]\ntransport = %s\n' "$t" >"$tmp/$t.ini"
done
printf '[target]\ntransport = h1\n[load]\nbusy_poll = %s\n' "$busy" >"$tmp/h1bp.ini"

for file in $files; do
    for c in $conns; do
        r=1
        while [ $r -le $reps ]; do
            run_wrk "http://127.0.0.1:$nginx_port/$file" "$c"
            for t in $clients; do
                run_brink "http://127.0.0.1:$nginx_port/$file" "$c" "$t"
            done
            r=$((r + 1))
        done
    done
done

echo
printf '%-5s %4s %-5s %10s %12s %10s %11s %13s %11s\n' \
    file c brink "wrk req/s" "brink req/s" brink/wrk "wrk us/req" "brink us/req" "brink rep."
for file in $files; do
    for c in $conns; do
        w_rps=$(median "$tmp/wrk.$c.$file" 1)
        w_cpu=$(median "$tmp/wrk.$c.$file" 2)
        for t in $clients; do
            b_rps=$(median "$tmp/$t.$c.$file" 1)
            b_cpu=$(median "$tmp/$t.$c.$file" 2)
            b_rep=$(median "$tmp/$t.$c.$file" 3)
            awk -v f="$file" -v c="$c" -v t="$t" -v wr="$w_rps" -v br="$b_rps" -v wc="$w_cpu" \
                -v bc="$b_cpu" -v rep="$b_rep" 'BEGIN {
                printf "%-5s %4d %-5s %10.0f %12.0f %10.2f %11.1f %13.1f %11.0f\n",
                    f, c, t, wr, br, (wr > 0 ? br / wr : 0), wc, bc, rep }'
        done
    done
done
if [ -s "$tmp/problems" ]; then
    echo
    echo "runs with errors, non-200 statuses or a non-zero exit:"
    sed 's/^/  /' "$tmp/problems"
fi
exit 0
