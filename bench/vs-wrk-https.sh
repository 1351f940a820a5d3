#!/bin/sh
# brink run against wrk over HTTPS, loading the same nginx on loopback
# (issue 17): the HTTPS table of bench/vs-wrk.sh. Figures only: it asserts
# nothing and exits 0 once the tables are printed (1 only when it cannot set
# up: no binary, no nginx, one core).
#
# Setup: nginx from Debian through tests/tls/lib.sh: a private CA and a
# certificate for 127.0.0.1 made with openssl, one worker pinned to core 0,
# TLS 1.2 and 1.3 (the clients negotiate 1.3), keep-alive, no access log,
# a 13-byte file ("13") and a 133 KiB file ("133k"). Each client is pinned to
# core 1:
#   wrk -t1 -cC -dD https://127.0.0.1:PORT/FILE
#   brink run --headless --config T.ini --url URL --concurrency C --duration D --threads 1
# where T.ini is
#   [target]
#   transport = T          (curl, h1; BENCH_TRANSPORTS, default "curl h1")
#   ca_file = .../ca.pem   (the private CA)
#
# Tables (medians of BENCH_REPS alternating repetitions, default 3):
#  1. keep-alive: both files at C = 1, 16, 64, 256 (BENCH_CONNS)
#  2. C = 1000 (BENCH_CONNS_MAX), 13 bytes: failures counted, the goal is 0
#  3. keepalive = no, 13 bytes, C = 16 and 64 (BENCH_CONNS_CLOSE): every
#     request a new connection and a full handshake (wrk with
#     -H 'Connection: close', brink with [target] keepalive = no); req/s is
#     then handshakes/s. nginx's session cache and tickets are on, but wrk
#     resumes no session; brink's tls_resume decides for brink.
# Columns:
#   wrk req/s     as wrk reports it (over its load window)
#   brink req/s   requests brink completed without error / wall time of the
#                 brink process (start-up and drain included: if anything it
#                 understates); brink us/req is per such request too, and
#                 "brink err" counts the failed ones
#   brink/wrk     the ratio of the two medians (issue 17's goals: >= 1.0
#                 where the client is the limit, within 5% where nginx's core
#                 is saturated for both; handshakes/s >= wrk's)
#   wrk us/req, brink us/req
#                 client CPU (user + system, /usr/bin/time) per completed
#                 request: lower is better; the goal is brink's <= wrk's
#   ngx% w, ngx% b
#                 nginx's CPU use (its worker, from /proc) during the wrk
#                 and the brink run: near 100 means nginx's core was the
#                 limit, and then the us/req columns are the fair comparison
# Runs with errors, non-200 statuses or a
# non-zero exit are listed there too; stderr gets one line per run.
#
# Usage: sh bench/vs-wrk-https.sh   (BRINK=path to a release brink binary,
# default build/release/brink; BENCH_SECONDS=D (default 5); BENCH_REPS=N;
# BENCH_CONNS="16 64", BENCH_FILES=13, BENCH_CONNS_MAX, BENCH_CONNS_CLOSE
# ("" skips a table), BENCH_TRANSPORTS=curl)
set -u
prog=vs-wrk-https
cd "$(dirname "$0")/.." || exit 1
. ./bench/lib.sh

seconds=${BENCH_SECONDS:-5}
reps=${BENCH_REPS:-3}
conns=${BENCH_CONNS-"1 16 64 256"}
conns_max=${BENCH_CONNS_MAX-1000}
conns_close=${BENCH_CONNS_CLOSE-"16 64"}
files=${BENCH_FILES:-"13 133k"}
transports=${BENCH_TRANSPORTS:-"curl h1"}

for v in "$seconds" "$reps"; do
    case "$v" in
    '' | *[!0-9]*) die "BENCH_SECONDS and BENCH_REPS must be whole numbers, got '$v'" ;;
    esac
done

scripts/install-deps bench || exit 1
find_brink
need_two_cores "nginx on core 0, the client on core 1"
bench_tmp
# wrk and brink at C = 1000 need more than 1024 descriptors.
ulimit -n 65536 2>/dev/null || ulimit -n 8192 2>/dev/null
tls_bench_nginx
base=https://127.0.0.1:$tls_port_good
ca=$tmp/tls/ca.pem

# Each client run is bounded: killed if still running 30 s after its duration.
limit=$((seconds + 30))
# run_wrk URL C KEY [wrk options]: appends "rps cpu_us_per_req nginx%" to
# $tmp/wrk.KEY; logs one line to stderr.
run_wrk() {
    url=$1 c=$2 key=$3
    shift 3
    bench_client wrk -t1 -c"$c" -d"${seconds}s" "$@" "$url"
    n=$(awk '$2 == "requests" && $3 == "in" { print $1; exit }' "$tmp/run.out")
    wrk_rps=$(sed -n 's/^Requests\/sec: *//p' "$tmp/run.out")
    errs=$(grep -E 'Socket errors|Non-2xx' "$tmp/run.out" | tr -s ' \n' ' ')
    [ "$rc" -ne 0 ] || [ -z "$n" ] || [ -n "$errs" ] &&
        echo "$key wrk: exit $rc ${errs}" >>"$tmp/problems"
    awk -v n="${n:-0}" -v rps="${wrk_rps:-0}" -v us="$us" -v sy="$sy" -v ngx="$ngx" 'BEGIN {
        printf "%.1f %.2f %s\n", rps, (n > 0 ? (us + sy) * 1e6 / n : 0), ngx }' >>"$tmp/wrk.$key"
    echo "  wrk   $key: $n requests, wall ${el}s, cpu ${us}u ${sy}s, nginx ${ngx}%, wrk says $wrk_rps req/s, exit $rc ${errs}" >&2
}

# run_brink URL C KEY INI: appends "rps cpu_us_per_req nginx% failed" to
# $tmp/brink.KEY (rps = requests / wall time); logs one line to stderr.
run_brink() {
    url=$1 c=$2 key=$3 ini=$4
    bench_client "$brink" run --headless --config "$ini" --url "$url" --concurrency "$c" \
        --duration "${seconds}s" --threads 1 --fail-on none --no-record
    bench_brink_report "$key"
    statuses=$(grep -m 1 '^HTTP statuses:' "$tmp/run.out")
    bad_status=$(echo "$statuses" | tr ' ' '\n' | grep '=' | grep -v '^200=')
    # "errors: none" or "errors: N of M requests (P%)".
    failed=$(echo "$errline" | awk '$2 ~ /^[0-9]+$/ { print $2; exit } END { if (NR == 0 || $2 !~ /^[0-9]+$/) print 0 }')
    [ -n "$bad_status" ] && echo "$key brink: ${statuses:-no statuses line}" >>"$tmp/problems"
    # Successes only: a failed handshake is no request served.
    awk -v n="${n:-0}" -v el="$el" -v us="$us" -v sy="$sy" -v ngx="$ngx" -v f="$failed" 'BEGIN {
        n -= f
        printf "%.1f %.2f %s %s\n", (el > 0 ? n / el : 0), (n > 0 ? (us + sy) * 1e6 / n : 0), ngx, f }' \
        >>"$tmp/brink.$key"
    echo "  brink $key: $n requests, wall ${el}s, cpu ${us}u ${sy}s, nginx ${ngx}%, report: $first; $errline, exit $rc" >&2
}

# make_ini T KEEPALIVE: $tmp/T.KEEPALIVE.ini, trusting the private CA. Its
# url is only for brink check; each run gives its own with --url.
make_ini() {
    ini=$tmp/$1.$2.ini
    printf '[target]\nurl = https://127.0.0.1/\ntransport = %s\nkeepalive = %s\nca_file = %s\n' \
        "$1" "$2" "$ca" >"$ini"
    "$brink" check "$ini" >/dev/null 2>"$tmp/check.err" ||
        die "brink refuses its experiment file: $(head -n 1 "$tmp/check.err")"
}

# row KEY LABEL: one line of a table from the medians of the runs of KEY.
row() {
    awk -v label="$2" -v wr="$(bench_median "$tmp/wrk.$1" 1)" -v br="$(bench_median "$tmp/brink.$1" 1)" \
        -v wc="$(bench_median "$tmp/wrk.$1" 2)" -v bc="$(bench_median "$tmp/brink.$1" 2)" \
        -v wn="$(bench_median "$tmp/wrk.$1" 3)" -v bn="$(bench_median "$tmp/brink.$1" 3)" \
        -v bf="$(bench_median "$tmp/brink.$1" 4)" 'BEGIN {
        printf "%-22s %10.0f %12.0f %9.2f %10.1f %12.1f %6.0f %6.0f %9.0f\n",
            label, wr, br, (wr > 0 ? br / wr : 0), wc, bc, wn, bn, bf }'
}

header() {
    echo
    echo "$1"
    printf '%-22s %10s %12s %9s %10s %12s %6s %6s %9s\n' \
        "file c brink" "wrk req/s" "brink req/s" brink/wrk "wrk us/req" "brink us/req" "ngx% w" "ngx% b" "brink err"
}

print_machine
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine moves every figure)"
echo "nginx: $(nginx -v 2>&1 | sed 's/^nginx version: //'), one worker on core 0, $(openssl s_client -connect "127.0.0.1:$tls_port_good" -brief </dev/null 2>&1 | sed -n 's/^Protocol version: //p') with a P-256 certificate; clients on core 1"
echo "wrk: $(wrk -v 2>&1 | head -n 1 | awk '{ print $2 }'); brink: $brink ($("$brink" --version 2>/dev/null | head -n 1))"
echo "runs: ${seconds}s each, $reps alternating repetitions, medians shown"
for t in $transports; do
    make_ini "$t" yes
    make_ini "$t" no
done

for file in $files; do
    for c in $conns; do
        r=1
        while [ $r -le $reps ]; do
            run_wrk "$base/$file" "$c" "$file.$c"
            for t in $transports; do
                run_brink "$base/$file" "$c" "$file.$c.$t" "$tmp/$t.yes.ini"
                # The wrk column is shared by the transports.
            done
            r=$((r + 1))
        done
    done
done
for c in $conns_max; do
    r=1
    while [ $r -le $reps ]; do
        run_wrk "$base/13" "$c" "max.$c"
        for t in $transports; do
            run_brink "$base/13" "$c" "max.$c.$t" "$tmp/$t.yes.ini"
        done
        r=$((r + 1))
    done
done
for c in $conns_close; do
    r=1
    while [ $r -le $reps ]; do
        run_wrk "$base/13" "$c" "close.$c" -H 'Connection: close'
        for t in $transports; do
            run_brink "$base/13" "$c" "close.$c.$t" "$tmp/$t.no.ini"
        done
        r=$((r + 1))
    done
done

# The wrk runs are shared: copy them under each transport's key for row().
for f in "$tmp"/wrk.*; do
    [ -e "$f" ] || continue
    for t in $transports; do
        cp "$f" "$f.$t"
    done
done

header "keep-alive (TLS 1.3, one handshake per connection)"
for file in $files; do
    for c in $conns; do
        for t in $transports; do
            row "$file.$c.$t" "$file $c $t"
        done
    done
done
if [ -n "$conns_max" ]; then
    header "many connections (13 bytes; the goal is 0 brink errors)"
    for c in $conns_max; do
        for t in $transports; do
            row "max.$c.$t" "13 $c $t"
        done
    done
fi
if [ -n "$conns_close" ]; then
    header "keepalive = no: req/s = full handshakes/s (13 bytes)"
    for c in $conns_close; do
        for t in $transports; do
            row "close.$c.$t" "13 $c $t"
        done
    done
fi
bench_notes "errors, non-200 statuses or a non-zero exit"
exit 0
