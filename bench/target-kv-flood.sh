#!/bin/sh
# brink target's memory stays bounded under a flood of unique keys: wrk PUTs
# 1 KiB values to /kv/flood-N, a new N each time, for FLOOD_SECONDS (60) on
# loopback. The store is capped at kv.max_bytes (64 MiB here, its default)
# and answers 507 once full. Samples VmRSS every 2 s and fails when it
# passes the cap: kv.max_bytes + 48 MiB (libmicrohttpd's buffers, the
# allocator's slack and the binary).
# Usage: sh bench/target-kv-flood.sh   (BRINK=path to a release brink binary)
# The set-up it shares with the other benchmarks is in bench/lib.sh.
set -u
prog=flood
cd "$(dirname "$0")/.." || exit 1
. ./bench/lib.sh

seconds=${FLOOD_SECONDS:-60}
kv_max_mib=64
cap_mib=$((kv_max_mib + 48))

scripts/install-deps bench || exit 1
find_brink
bench_tmp

cat >"$tmp/flood.lua" <<'EOF'
local n = 0
local body = string.rep("v", 1024)
request = function()
    n = n + 1
    return wrk.format("PUT", "/kv/flood-" .. n, nil, body)
end
EOF
printf '{"kv": {"max_bytes": %d, "write_ms": 1}}\n' $((kv_max_mib * 1048576)) >"$tmp/target.json"
start_target - --config "$tmp/target.json"

rss_kib() {
    awk '/^VmRSS:/ { print $2 }' "/proc/$target_pid/status"
}

echo "flood: ${seconds}s of unique-key PUTs of 1 KiB; kv.max_bytes ${kv_max_mib} MiB; RSS cap ${cap_mib} MiB"
start_rss=$(rss_kib)
wrk -t1 -c64 -d"${seconds}s" -s "$tmp/flood.lua" "$target_url" >"$tmp/wrk.out" 2>&1 &
client_pid=$!
max_rss=$start_rss
t=0
while kill -0 "$client_pid" 2>/dev/null; do
    sleep 2
    t=$((t + 2))
    r=$(rss_kib)
    [ -n "$r" ] && [ "$r" -gt "$max_rss" ] && max_rss=$r
    printf '  t=%3ds  RSS %6d KiB\n' "$t" "$r"
done
wait "$client_pid"
client_pid=""
grep -E 'requests in|Requests/sec' "$tmp/wrk.out" | sed 's/^/  wrk: /'
curl -s "$target_url/stats" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("  store: %d keys, %d bytes charged of %d" % (d["kv_keys"], d["kv_bytes"], d["kv_max_bytes"]))'
curl -s "$target_url/_control" | python3 -c '
import json, sys
print("  writes refused with 507: %d" % json.load(sys.stdin)["ground_truth"]["kv_full"])'
echo "RSS: start $((start_rss / 1024)) MiB, max $((max_rss / 1024)) MiB, cap $cap_mib MiB"
if [ "$max_rss" -le $((cap_mib * 1024)) ]; then
    echo "PASS: memory stays bounded"
else
    echo "FAIL: RSS passed the cap"
    exit 1
fi
