#!/bin/sh
# The metrics endpoint under a flood (issue 30, "Done when": 4,000 idle
# connections plus 8 dribbling ones, and a real Prometheus still scrapes
# every second). Before the fix, 8 dribblers or a few thousand idle
# connections held every slot of the server and every scrape failed.
# Against brink target on 127.0.0.1:
#   1. Debian's prometheus scrapes 127.0.0.1:PORT every 1 s (timeout 1 s);
#      a run serves there; the flood waits for Prometheus's first good
#      scrape (its target "up")
#   2. metrics_flood.py opens 4,000 idle connections and 8 that send a
#      request one byte every half second, holds them for 15 s, and opens
#      again any the server closes (at most 200 a second)
#   3. ground truth is Prometheus's own series: over the flood's window,
#      up{job="brink"} has a sample for each second (at least the window
#      less 2) and every one is 1 (sum_over_time equals count_over_time)
#   4. the flood really ran: it opened at least 4,008 connections and
#      dribbled bytes
#   5. with brink out of file descriptors (ulimit -n 48), 300 idle and 8
#      dribbling connections: 10 scrapes by curl (1 s timeout each) during
#      the flood are all answered with the figures
# Usage: sh test_metrics_flood.sh BRINK SRCDIR (fails without prometheus)
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

command -v prometheus >/dev/null 2>&1 || { echo "FAIL prometheus missing: run scripts/install-deps"; exit 1; }
# The flood holds 4,008 sockets at once.
ulimit -n 10000 2>/dev/null || { echo "FAIL cannot raise the file limit to 10000 (hard limit $(ulimit -Hn))"; exit 1; }

window_s=15
prom_pid="" run_pid=""
target_setup
trap 'for p in $run_pid $prom_pid; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; target_cleanup' EXIT

# query EXPR [TIME]: the value of an instant query, or "" when there is none.
query() {
    curl -s -G "http://127.0.0.1:$prom_port/api/v1/query" --data-urlencode "query=$1" \
        ${2:+--data-urlencode "time=$2"} |
        python3 -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "")' 2>/dev/null
}


start_target --listen 127.0.0.1:0 || { echo "FAIL brink target did not start"; exit 1; }

# 1. Prometheus, then a run long enough for the whole flood.
metrics_port=$(free_port)
prom_port=$(free_port)
start_prometheus "$metrics_port" "$prom_port"
"$brink" run --headless --url "$url/bytes/100" -c 1 --duration 60s --fail-on none --no-record \
    --metrics-listen "127.0.0.1:$metrics_port" >"$tmp/run.out" 2>"$tmp/run.err" </dev/null &
run_pid=$!
deadline=$(($(now_ms) + 30000))
until curl -sf "http://127.0.0.1:$prom_port/api/v1/targets" 2>/dev/null | grep -q '"health":"up"'; do
    if [ "$(now_ms)" -ge "$deadline" ] || ! kill -0 "$prom_pid" 2>/dev/null; then
        echo "FAIL Prometheus did not scrape brink within 30 s: $(tail -c 300 "$tmp/prom.log") $(tail -c 300 "$tmp/run.err")"
        exit 1
    fi
    sleep 0.1
done

# 2. The flood, bounded by itself and by timeout.
timeout $((window_s + 30)) python3 "$src/tests/e2e/metrics_flood.py" "$metrics_port" 4000 8 "$window_s" \
    >"$tmp/flood.out" 2>"$tmp/flood.err" &
flood_pid=$!
deadline=$(($(now_ms) + 20000))
until grep -q '^ready$' "$tmp/flood.out" 2>/dev/null; do
    if [ "$(now_ms)" -ge "$deadline" ] || ! kill -0 "$flood_pid" 2>/dev/null; then
        echo "FAIL the flood did not open its connections: $(cat "$tmp/flood.err")"
        exit 1
    fi
    sleep 0.1
done
t0=$(date +%s)
wait "$flood_pid"
check "the flood ends by itself" 0 $?
t1=$(date +%s)
check "brink still runs" 0 "$(kill -0 "$run_pid" 2>/dev/null; echo $?)"

# 3. Prometheus's record of the window, once it holds a scrape after it.
deadline=$(($(now_ms) + 15000))
until [ "$(query "timestamp(up{job=\"brink\"}) > $t1")" != "" ] || [ "$(now_ms)" -ge "$deadline" ]; do
    sleep 0.2
done
span=$((t1 - t0))
count=$(query "count_over_time(up{job=\"brink\"}[${span}s])" "$t1")
good=$(query "sum_over_time(up{job=\"brink\"}[${span}s])" "$t1")
if [ -n "$count" ] && [ "$count" -ge $((span - 2)) ]; then
    ok "Prometheus scraped every second of the ${span} s flood ($count scrapes)"
else
    not_ok "Prometheus scraped every second of the ${span} s flood" "$count scrapes"
fi
check "every scrape during the flood succeeded (up = 1 in all $count)" "$count" "$good"

# 4. The flood was a flood.
set -- $(tail -n 1 "$tmp/flood.out")
if [ "${2:-0}" -ge 4008 ] && [ "${6:-0}" -gt 8 ]; then
    ok "the flood opened $2 connections and dribbled $6 bytes"
else
    not_ok "the flood opened its connections and dribbled" "$(cat "$tmp/flood.out")"
fi

kill -INT "$run_pid"
wait "$run_pid"
run_pid=""

# 5. Out of file descriptors: brink under a limit of 48 meets 300 idle
# connections and 8 dribblers. The endpoint gives the oldest idle
# connection's descriptor to each newcomer (accept neither spins nor stops),
# so every scrape is still answered.
port2=$(free_port)
sh -c "ulimit -n 48 && exec \"\$0\" \"\$@\"" "$brink" run --headless --url "$url/bytes/100" -c 1 \
    --duration 60s --fail-on none --no-record --metrics-listen "127.0.0.1:$port2" \
    >"$tmp/run2.out" 2>"$tmp/run2.err" </dev/null &
run_pid=$!
deadline=$(($(now_ms) + 10000))
until grep -q 'metrics at' "$tmp/run2.err" 2>/dev/null || [ "$(now_ms)" -ge "$deadline" ]; do
    sleep 0.1
done
timeout 30 python3 "$src/tests/e2e/metrics_flood.py" "$port2" 300 8 8 >"$tmp/flood2.out" 2>&1 &
flood_pid=$!
deadline=$(($(now_ms) + 10000))
until grep -q '^ready$' "$tmp/flood2.out" 2>/dev/null || [ "$(now_ms)" -ge "$deadline" ]; do
    sleep 0.1
done
answered=0 i=0
while [ $i -lt 10 ]; do
    curl -s -m 1 "http://127.0.0.1:$port2/metrics" 2>/dev/null | grep -q '^brink_ticks_total{' &&
        answered=$((answered + 1))
    i=$((i + 1))
    sleep 0.3
done
wait "$flood_pid"
check "out of descriptors, every scrape during the flood is answered" 10 "$answered"
check "brink under the fd limit still runs" 0 "$(kill -0 "$run_pid" 2>/dev/null; echo $?)"
kill -INT "$run_pid"
wait "$run_pid"
run_pid=""

finish
