#!/bin/sh
# brink run against h2load over HTTP/2, loading the same nginx on loopback
# (issue 17). Figures only: it asserts nothing and exits 0 once the table is
# printed (1 only when it cannot set up: no binary, no nginx or h2load, one
# core).
#
# Setup: nginx from Debian through tests/tls/lib.sh (a private CA, one worker
# pinned to core 0, TLS 1.3, h2 by ALPN, no access log), the 13-byte file.
# Each client is pinned to core 1, C = 64 connections (BENCH_CONNS) with 10
# streams each (BENCH_STREAMS):
#   h2load -t1 -cC -mS -DD https://127.0.0.1:PORT/13
#   brink run --headless --config T.ini --url URL --concurrency C*S --duration D --threads 1
# where T.ini is, once for each transport (curl, then h1)
#   [target]
#   transport = curl
#   http_version = 2
#   streams = S
#   ca_file = .../ca.pem
# (brink's concurrency counts requests in flight, its virtual users; with S
# streams per connection they share C connections). A transport whose brink
# refuses HTTP/2 (a build from before h1 spoke it) is named in the note
# with brink's reason, and its row shows "-". Two more h2load rows
# for reference: HTTP/1.1 over TLS (h2load --h1, C connections, 1 request
# each at a time) and h2c (HTTP/2 without TLS, prior knowledge).
#
# Columns (medians of BENCH_REPS repetitions, default 3):
#   h2load req/s   as h2load reports it ("finished in ..., N req/s")
#   brink req/s    requests brink completed / wall time of the brink process
#   brink/h2load   ratio of the medians (issue 17's goal: >= 0.6 for h2), the
#                  h2load median of the same repetitions for both transports
#   h2load us/req, brink us/req
#                  client CPU (user + system, /usr/bin/time) per completed
#                  request
#   ngx% h, ngx% b nginx's CPU use during each run (100: its core was the
#                  limit)
# Runs with failures or a non-zero exit are listed under the table.
#
# Usage: sh bench/vs-h2load.sh   (BRINK=path to a release brink binary,
# default build/release/brink; BENCH_SECONDS=D (default 5); BENCH_REPS=N;
# BENCH_CONNS=C; BENCH_STREAMS=S; BRINK_BEFORE=path to a second binary,
# measured in the same repetitions, alternating with the first: its rows
# read "curl<" and "h1<", so that a change is judged within one run)
set -u
prog=vs-h2load
cd "$(dirname "$0")/.." || exit 1
. ./bench/lib.sh

seconds=${BENCH_SECONDS:-5}
reps=${BENCH_REPS:-3}
conns=${BENCH_CONNS:-64}
streams=${BENCH_STREAMS:-10}
before=${BRINK_BEFORE:-}

for v in "$seconds" "$reps" "$conns" "$streams"; do
    case "$v" in
    '' | *[!0-9]*) die "BENCH_SECONDS, BENCH_REPS, BENCH_CONNS and BENCH_STREAMS must be whole numbers, got '$v'" ;;
    esac
done

[ -z "$before" ] || [ -x "$before" ] || die "BRINK_BEFORE: $before is no executable"

scripts/install-deps bench || exit 1
command -v h2load >/dev/null 2>&1 || die "h2load is missing (Debian's nghttp2-client)"
find_brink
need_two_cores "nginx on core 0, the client on core 1"
bench_tmp
ulimit -n 65536 2>/dev/null || ulimit -n 8192 2>/dev/null
tls_bench_nginx
url=https://127.0.0.1:$tls_port_good/13
ca=$tmp/tls/ca.pem

limit=$((seconds + 30))
# run_h2load KEY URL [h2load options]: appends "rps cpu_us_per_req nginx%"
# to $tmp/h2load.KEY; logs one line to stderr.
run_h2load() {
    key=$1 u=$2
    shift 2
    bench_client h2load -t1 -c"$conns" -D"$seconds" "$@" "$u"
    # "finished in 5.00s, 49800.20 req/s, 3.20MB/s" and
    # "requests: N total, N started, N done, N succeeded, F failed, E errored, T timeout"
    rps=$(awk '$1 == "finished" { gsub(",", "", $4); print $4; exit }' "$tmp/run.out")
    ok=$(awk '$1 == "requests:" { print $8; exit }' "$tmp/run.out")
    bad=$(awk '$1 == "requests:" { print $10 + $12 + $14; exit }' "$tmp/run.out")
    [ "$rc" -ne 0 ] || [ -z "$ok" ] || [ "${bad:-0}" -ne 0 ] &&
        echo "$key h2load: exit $rc; $(grep -m 1 '^requests:' "$tmp/run.out")" >>"$tmp/problems"
    awk -v n="${ok:-0}" -v rps="${rps:-0}" -v us="$us" -v sy="$sy" -v ngx="$ngx" 'BEGIN {
        printf "%.1f %.2f %s\n", rps, (n > 0 ? (us + sy) * 1e6 / n : 0), ngx }' >>"$tmp/h2load.$key"
    echo "  h2load $key: $ok succeeded, $bad failed, wall ${el}s, cpu ${us}u ${sy}s, nginx ${ngx}%, h2load says $rps req/s, exit $rc" >&2
}

# run_brink T: one brink run of transport T with $tmp/brink.T.ini, or for
# "curl<" and "h1<" BRINK_BEFORE's binary with that transport's; appends to
# $tmp/brink.T.
run_brink() {
    bin=$brink tp=$1
    case $1 in *"<") bin=$before tp=${1%"<"} ;; esac
    bench_client "$bin" run --headless --config "$tmp/brink.$tp.ini" --url "$url" \
        --concurrency $((conns * streams)) --duration "${seconds}s" --threads 1 --fail-on none \
        --no-record
    bench_brink_report "h2 $1"
    awk -v n="${n:-0}" -v el="$el" -v us="$us" -v sy="$sy" -v ngx="$ngx" 'BEGIN {
        printf "%.1f %.2f %s\n", (el > 0 ? n / el : 0), (n > 0 ? (us + sy) * 1e6 / n : 0), ngx }' \
        >>"$tmp/brink.$1"
    echo "  brink h2 $1: $n requests, wall ${el}s, cpu ${us}u ${sy}s, nginx ${ngx}%, report: $first; $errline, exit $rc" >&2
}

print_machine
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine moves every figure)"
echo "nginx: $(nginx -v 2>&1 | sed 's/^nginx version: //'), one worker on core 0; clients on core 1"
echo "h2load: $(h2load --version 2>&1 | head -n 1 | awk '{ print $2 }'); brink: $brink ($("$brink" --version 2>/dev/null | head -n 1))"
[ -z "$before" ] || echo "before (rows curl< and h1<): $before ($("$before" --version 2>/dev/null | head -n 1))"
echo "runs: ${seconds}s each, $reps repetitions, medians shown; $conns connections, $streams streams each"

# The url is only for brink check; the run gives its own with --url. A
# transport that refuses the file is left out, with brink's reason.
transports=""
for t in curl h1; do
    printf '[target]\nurl = https://127.0.0.1/\ntransport = %s\nhttp_version = 2\nstreams = %s\nca_file = %s\n' \
        "$t" "$streams" "$ca" >"$tmp/brink.$t.ini"
    if "$brink" check "$tmp/brink.$t.ini" >/dev/null 2>"$tmp/check.err"; then
        transports="$transports $t"
        [ -z "$before" ] || transports="$transports $t<"
    else
        echo "transport = $t: brink refuses HTTP/2 here: $(head -n 1 "$tmp/check.err")" >>"$tmp/notes"
    fi
done

r=1
while [ $r -le "$reps" ]; do
    run_h2load h2 "$url" -m"$streams"
    for t in $transports; do
        run_brink "$t"
    done
    run_h2load h1 "$url" --h1
    run_h2load h2c "http://127.0.0.1:$tls_port_h2c/13" -m"$streams"
    r=$((r + 1))
done

echo
printf '%-30s %12s %12s %12s %13s %12s %6s %6s\n' \
    "protocol" "h2load req/s" "brink req/s" brink/h2load "h2load us/req" "brink us/req" "ngx% h" "ngx% b"
# A transport that was not run shows "-" in its columns, not 0.
rows="curl h1"
[ -z "$before" ] || rows="curl curl< h1 h1<"
for t in $rows; do
    ran=0
    case " $transports " in *" $t "*) ran=1 ;; esac
    awk -v hr="$(bench_median "$tmp/h2load.h2" 1)" -v br="$(bench_median "$tmp/brink.$t" 1)" \
        -v hc="$(bench_median "$tmp/h2load.h2" 2)" -v bc="$(bench_median "$tmp/brink.$t" 2)" \
        -v hn="$(bench_median "$tmp/h2load.h2" 3)" -v bn="$(bench_median "$tmp/brink.$t" 3)" \
        -v ran="$ran" -v label="h2 (TLS) $t, c=$conns m=$streams" 'BEGIN {
        if (ran)
            printf "%-30s %12.0f %12.0f %12.2f %13.1f %12.1f %6.0f %6.0f\n",
                label, hr, br, (hr > 0 ? br / hr : 0), hc, bc, hn, bn
        else
            printf "%-30s %12.0f %12s %12s %13.1f %12s %6.0f %6s\n", label, hr, "-", "-", hc, "-", hn, "-" }'
done
for k in h1 h2c; do
    case $k in
    h1) label="http/1.1 (TLS), c=$conns" ;;
    h2c) label="h2c (no TLS), c=$conns m=$streams" ;;
    esac
    awk -v hr="$(bench_median "$tmp/h2load.$k" 1)" -v hc="$(bench_median "$tmp/h2load.$k" 2)" \
        -v hn="$(bench_median "$tmp/h2load.$k" 3)" -v label="$label" 'BEGIN {
        printf "%-30s %12.0f %12s %12s %13.1f %12s %6.0f %6s\n", label, hr, "-", "-", hc, "-", hn, "-" }'
done
bench_notes "failures or a non-zero exit"
exit 0
