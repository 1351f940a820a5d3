#!/bin/sh
# brink target against nginx on GET of a 13-byte body, loopback only: each
# server pinned to core 0, wrk pinned to core 1, both servers on one worker,
# three alternating rounds of BENCH_SECONDS each. Prints requests/s of both
# and the ratio target/nginx; exits 1 when the ratio is below 0.5 (brink
# target must never be the demo's bottleneck).
# Usage: sh bench/target-vs-nginx.sh   (BRINK=path to a release brink binary,
# default build/release/src/brink or build/release/brink)
set -u
cd "$(dirname "$0")/.." || exit 1

seconds=${BENCH_SECONDS:-5}
connections=${BENCH_CONNECTIONS:-50}
rounds=3

scripts/install-deps nginx wrk || exit 1
brink=${BRINK:-}
for b in build/release/src/brink build/release/brink; do
    [ -z "$brink" ] && [ -x "$b" ] && brink=$b
done
if [ -z "$brink" ] || [ ! -x "$brink" ]; then
    echo "bench: no brink binary; run 'make release' or set BRINK" >&2
    exit 1
fi
if [ "$(nproc)" -lt 2 ]; then
    echo "bench: needs 2 cores (server on core 0, wrk on core 1), have $(nproc)" >&2
    exit 1
fi

tmp=$(mktemp -d)
chmod 755 "$tmp"
nginx_pid=""
target_pid=""
cleanup() {
    [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
    [ -n "$target_pid" ] && kill "$target_pid" 2>/dev/null && wait "$target_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for URL: polls until the server answers (at most 10 s).
wait_for() {
    i=0
    while ! curl -s -o /dev/null "$1"; do
        i=$((i + 1))
        [ $i -gt 200 ] && return 1
        sleep 0.05
    done
}

# --- nginx, with its own config ---------------------------------------------------
mkdir -p "$tmp/www" "$tmp/logs"
printf 'hello, world\n' >"$tmp/www/13.bin" # 13 bytes
nginx_port=$(free_port)
cat >"$tmp/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $tmp/nginx.pid;
error_log $tmp/logs/error.log;
user $(id -un);
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $tmp/body;
    proxy_temp_path $tmp/proxy;
    fastcgi_temp_path $tmp/fastcgi;
    uwsgi_temp_path $tmp/uwsgi;
    scgi_temp_path $tmp/scgi;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$nginx_port;
        root $tmp/www;
        location / { }
    }
}
EOF
taskset -c 0 nginx -p "$tmp" -c "$tmp/nginx.conf" &
nginx_pid=$!
wait_for "http://127.0.0.1:$nginx_port/13.bin" || { echo "bench: nginx did not start" >&2; cat "$tmp/logs/error.log" >&2; exit 1; }

# --- brink target, one MHD thread -------------------------------------------------------
printf '{"threads": 1}\n' >"$tmp/target.json"
taskset -c 0 "$brink" target --listen 127.0.0.1:0 --config "$tmp/target.json" >"$tmp/target.out" &
target_pid=$!
i=0
while [ -z "$(head -n 1 "$tmp/target.out")" ] && [ $i -lt 200 ]; do
    sleep 0.05
    i=$((i + 1))
done
target_url=$(head -n 1 "$tmp/target.out")
[ -n "$target_url" ] || { echo "bench: brink target did not start" >&2; exit 1; }

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
