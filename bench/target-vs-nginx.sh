#!/bin/sh
# brink target against nginx on GET of a 13-byte body, loopback only: each
# server pinned to core 0, wrk pinned to core 1, both servers on one worker,
# three alternating rounds of BENCH_SECONDS each. Prints requests/s of both
# and the ratio target/nginx; exits 1 when the ratio is below 0.5 (brink
# target must never be the demo's bottleneck).
# Usage: sh bench/target-vs-nginx.sh   (BRINK=path to a release brink binary,
# default build/release/brink)
# The set-up it shares with the other benchmarks is in bench/lib.sh.
set -u
prog=bench
cd "$(dirname "$0")/.." || exit 1
. ./bench/lib.sh

seconds=${BENCH_SECONDS:-5}
connections=${BENCH_CONNECTIONS:-50}
rounds=3

scripts/install-deps bench || exit 1
find_brink
need_two_cores "server on core 0, wrk on core 1"
bench_tmp

# --- nginx, with its own config (bench/lib.sh) -----------------------------------
mkdir -p "$tmp/www"
printf 'hello, world\n' >"$tmp/www/13.bin" # 13 bytes
start_nginx 13.bin

# --- brink target, one MHD thread -------------------------------------------------------
printf '{"threads": 1}\n' >"$tmp/target.json"
start_target 0 --config "$tmp/target.json"

# run_wrk URL: prints requests/s.
run_wrk() {
    taskset -c 1 wrk -t1 -c"$connections" -d"${seconds}s" "$1" | sed -n 's/^Requests\/sec: *//p'
}

echo "GET of 13 bytes, $connections connections, ${seconds}s per run, server on core 0, wrk on core 1"
nginx_all=""
target_all=""
r=1
while [ $r -le $rounds ]; do
    n=$(run_wrk "http://127.0.0.1:$nginx_port/13.bin")
    t=$(run_wrk "$target_url/bytes/13")
    printf 'round %d: nginx %10s req/s   brink target %10s req/s\n' "$r" "$n" "$t"
    nginx_all="$nginx_all $n"
    target_all="$target_all $t"
    r=$((r + 1))
done

python3 - "$nginx_all" "$target_all" <<'EOF'
import statistics, sys
nginx = [float(x) for x in sys.argv[1].split()]
target = [float(x) for x in sys.argv[2].split()]
n, t = statistics.median(nginx), statistics.median(target)
ratio = t / n if n else 0.0
print(f"median: nginx {n:.0f} req/s, brink target {t:.0f} req/s, ratio target/nginx {ratio:.2f}")
print("PASS: at least 0.5 of nginx" if ratio >= 0.5 else "FAIL: below 0.5 of nginx")
sys.exit(0 if ratio >= 0.5 else 1)
EOF
