#!/bin/sh
# brink target's memory stays bounded under a flood of unique keys: wrk PUTs
# 1 KiB values to /kv/flood-N, a new N each time, for FLOOD_SECONDS (60) on
# loopback. The store is capped at kv.max_bytes (64 MiB here, its default)
# and answers 507 once full. Samples VmRSS every 2 s and fails when it
# passes the cap: kv.max_bytes + 48 MiB (libmicrohttpd's buffers, the
# allocator's slack and the binary).
# Usage: sh bench/target-kv-flood.sh   (BRINK=path to a release brink binary)
set -u
cd "$(dirname "$0")/.." || exit 1

seconds=${FLOOD_SECONDS:-60}
kv_max_mib=64
cap_mib=$((kv_max_mib + 48))

scripts/install-deps wrk || exit 1
brink=${BRINK:-}
for b in build/release/src/brink build/release/brink; do
    [ -z "$brink" ] && [ -x "$b" ] && brink=$b
done
if [ -z "$brink" ] || [ ! -x "$brink" ]; then
    echo "flood: no brink binary; run 'make release' or set BRINK" >&2
    exit 1
fi

tmp=$(mktemp -d)
pid=""
wrk_pid=""
cleanup() {
    [ -n "$wrk_pid" ] && kill "$wrk_pid" 2>/dev/null && wait "$wrk_pid" 2>/dev/null
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

cat >"$tmp/flood.lua" <<'EOF'
local n = 0
local body = string.rep("v", 1024)
request = function()
    n = n + 1
    return wrk.format("PUT", "/kv/flood-" .. n, nil, body)
end
EOF
printf '{"kv": {"max_bytes": %d, "write_ms": 1}}\n' $((kv_max_mib * 1048576)) >"$tmp/target.json"
"$brink" target --listen 127.0.0.1:0 --config "$tmp/target.json" >"$tmp/out" &
pid=$!
i=0
while [ -z "$(head -n 1 "$tmp/out")" ] && [ $i -lt 200 ]; do
    sleep 0.05
    i=$((i + 1))
done
url=$(head -n 1 "$tmp/out")
[ -n "$url" ] || { echo "flood: brink target did not start" >&2; exit 1; }

rss_kib() {
    awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"
}

echo "flood: ${seconds}s of unique-key PUTs of 1 KiB; kv.max_bytes ${kv_max_mib} MiB; RSS cap ${cap_mib} MiB"
start_rss=$(rss_kib)
wrk -t1 -c64 -d"${seconds}s" -s "$tmp/flood.lua" "$url" >"$tmp/wrk.out" 2>&1 &
wrk_pid=$!
max_rss=$start_rss
t=0
while kill -0 "$wrk_pid" 2>/dev/null; do
    sleep 2
    t=$((t + 2))
    r=$(rss_kib)
    [ -n "$r" ] && [ "$r" -gt "$max_rss" ] && max_rss=$r
    printf '  t=%3ds  RSS %6d KiB\n' "$t" "$r"
done
wait "$wrk_pid"
wrk_pid=""
grep -E 'requests in|Requests/sec' "$tmp/wrk.out" | sed 's/^/  wrk: /'
curl -s "$url/stats" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("  store: %d keys, %d bytes charged of %d" % (d["kv_keys"], d["kv_bytes"], d["kv_max_bytes"]))'
curl -s "$url/_control" | python3 -c '
import json, sys
print("  writes refused with 507: %d" % json.load(sys.stdin)["ground_truth"]["kv_full"])'
echo "RSS: start $((start_rss / 1024)) MiB, max $((max_rss / 1024)) MiB, cap $cap_mib MiB"
if [ "$max_rss" -le $((cap_mib * 1024)) ]; then
    echo "PASS: memory stays bounded"
else
    echo "FAIL: RSS passed the cap"
    exit 1
fi
