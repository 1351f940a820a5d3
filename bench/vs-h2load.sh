#!/bin/sh
# brink over HTTP/2 against h2load (nghttp2's client), loading the same
# nginx on loopback (issue 17): HTTPS with ALPN h2, a 13-byte file, 64
# connections' worth of load with 10 streams each. Figures only: it asserts
# nothing and exits 0 once the table is printed (1 only when it cannot set
# up: no binary, no nginx or h2load, one core).
#
# Setup: nginx from Debian with its own config in a temporary directory,
# one worker pinned to core 0, TLS 1.2 and 1.3 with a certificate from a CA
# made here by openssl, "listen ... ssl http2", keep-alive. Each client runs
# pinned to core 1, alternating, three repetitions (D = BENCH_SECONDS,
# default 5; total about 9 x D):
#   h2load -c 64 -m 10 -D D URL                 64 connections x 10 streams
#   brink run --headless --config T.ini --url URL --concurrency C --duration D
# with T.ini: transport = curl, ca_file, http_version = 2, streams = 10,
# for C = 64 (64 users: 7 connections) and C = 640 (h2load's 640 requests
# in flight over 64 connections).
#
# Reading the table (medians of the repetitions):
#   req/s        completed requests / wall time of the client process
#   us/req       client CPU (user + sys, /usr/bin/time) per request
#   conns        connections brink's report says it opened (h2load: 64)
#   vs h2load    brink's req/s over h2load's; issue 17's goal is >= 0.6
# Absolute figures move with the machine's load; compare within one run.
#
# Usage: sh bench/vs-h2load.sh  (BRINK=path, default build/release/brink;
# BENCH_SECONDS=D)
set -u
prog=vs-h2load
cd "$(dirname "$0")/.." || exit 1
. ./bench/lib.sh

seconds=${BENCH_SECONDS:-5}
reps=3
case "$seconds" in
'' | *[!0-9]*) die "BENCH_SECONDS must be a whole number of seconds, got '$seconds'" ;;
esac

scripts/install-deps nginx nghttp2-client openssl time python3 || exit 1
find_brink
need_two_cores "nginx on core 0, the client on core 1"
bench_tmp

# --- a CA, a certificate for 127.0.0.1, nginx with TLS and HTTP/2 --------------
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj "/CN=bench CA" -keyout "$tmp/ca.key" -out "$tmp/ca.pem" 2>/dev/null ||
    die "openssl cannot make a CA"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=127.0.0.1" \
    -keyout "$tmp/srv.key" -out "$tmp/srv.csr" 2>/dev/null &&
    printf 'subjectAltName=IP:127.0.0.1\n' >"$tmp/ext.cnf" &&
    openssl x509 -req -in "$tmp/srv.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" \
        -CAcreateserial -days 2 -extfile "$tmp/ext.cnf" -out "$tmp/srv.pem" 2>/dev/null ||
    die "openssl cannot make the server's certificate"
mkdir -p "$tmp/www" "$tmp/logs"
printf 'hello, world\n' >"$tmp/www/13"
port=$(free_port)
sh scripts/nginx-conf "$tmp" "$port" | sed \
    -e "s|listen 127.0.0.1:$port;|listen 127.0.0.1:$port ssl http2; ssl_certificate $tmp/srv.pem; ssl_certificate_key $tmp/srv.key; ssl_protocols TLSv1.2 TLSv1.3;|" \
    >"$tmp/nginx.conf"
taskset -c 0 nginx -p "$tmp" -c "$tmp/nginx.conf" &
nginx_pid=$!
url=https://127.0.0.1:$port/13
i=0
until curl -s -o /dev/null --cacert "$tmp/ca.pem" "$url"; do
    i=$((i + 1))
    [ $i -gt 200 ] && { cat "$tmp/logs/error.log" >&2; die "nginx did not start"; }
    sleep 0.05
done
printf '[target]\ntransport = curl\nca_file = %s\nhttp_version = 2\nstreams = 10\n' \
    "$tmp/ca.pem" >"$tmp/h2.ini"
limit=$((seconds + 30))

# cpu_and_wall: el us sy of the last client run.
cpu_and_wall() {
    # shellcheck disable=SC2046 # the three figures, one a word
    set -- $(tail -n 1 "$tmp/time" 2>/dev/null)
    el=${1:-0} us=${2:-0} sy=${3:-0}
}

run_h2load() {
    timeout -k 5 $limit taskset -c 1 /usr/bin/time -o "$tmp/time" -f '%e %U %S' \
        h2load -c 64 -m 10 -D "$seconds" "$url" >"$tmp/run.out" 2>&1
    n=$(awk '$1 == "requests:" { print $8; exit }' "$tmp/run.out")
    cpu_and_wall
    awk -v n="${n:-0}" -v el="$el" -v us="$us" -v sy="$sy" 'BEGIN {
        printf "%.1f %.2f 64\n", (el > 0 ? n / el : 0), (n > 0 ? (us + sy) * 1e6 / n : 0) }' \
        >>"$tmp/h2load"
    echo "  h2load: $n requests, wall ${el}s, cpu ${us}u ${sy}s" >&2
}

run_brink() {
    timeout -k 5 $limit taskset -c 1 /usr/bin/time -o "$tmp/time" -f '%e %U %S' \
        "$brink" run --headless --config "$tmp/h2.ini" --url "$url" --concurrency "$1" \
        --duration "${seconds}s" --threads 1 >"$tmp/run.out" 2>"$tmp/run.err"
    n=$(awk '$1 == "duration" { gsub(",", "", $3); print $3; exit }' "$tmp/run.out")
    conns=$(sed -n 's/.*connections opened \([0-9,]*\).*/\1/p' "$tmp/run.out" | tr -d ,)
    grep -q '^errors: none' "$tmp/run.out" ||
        echo "brink c=$1: $(grep -m 1 '^errors:' "$tmp/run.out")" >>"$tmp/problems"
    cpu_and_wall
    awk -v n="${n:-0}" -v el="$el" -v us="$us" -v sy="$sy" -v c="${conns:-0}" 'BEGIN {
        printf "%.1f %.2f %s\n", (el > 0 ? n / el : 0), (n > 0 ? (us + sy) * 1e6 / n : 0), c }' \
        >>"$tmp/brink.$1"
    echo "  brink c=$1: $n requests, wall ${el}s, cpu ${us}u ${sy}s, $conns connections" >&2
}

median() {
    sort -g -k "$2,$2" "$1" | awk -v k="$2" '{ v[NR] = $k } END {
        if (NR == 0) { print 0; exit }
        print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

print_machine
echo "nginx: $(nginx -v 2>&1 | sed 's/^nginx version: //'), one worker on core 0; clients on core 1"
echo "h2load: $(h2load --version 2>&1 | head -n 1); brink: $brink"
echo "runs: ${seconds}s each, $reps alternating repetitions, medians shown"
r=1
while [ $r -le $reps ]; do
    run_h2load
    run_brink 64
    run_brink 640
    r=$((r + 1))
done

h2_rps=$(median "$tmp/h2load" 1)
printf '\n%-28s %10s %8s %6s %10s\n' client req/s us/req conns "vs h2load"
printf '%-28s %10.0f %8.1f %6s %10s\n' "h2load -c 64 -m 10" "$h2_rps" "$(median "$tmp/h2load" 2)" 64 1.00
for c in 64 640; do
    rps=$(median "$tmp/brink.$c" 1)
    printf '%-28s %10.0f %8.1f %6s %10.2f\n' "brink c=$c streams=10" "$rps" \
        "$(median "$tmp/brink.$c" 2)" "$(median "$tmp/brink.$c" 3)" \
        "$(awk -v a="$rps" -v b="$h2_rps" 'BEGIN { print (b > 0 ? a / b : 0) }')"
done
if [ -s "$tmp/problems" ]; then
    echo
    echo "runs with problems:"
    cat "$tmp/problems"
fi
exit 0
