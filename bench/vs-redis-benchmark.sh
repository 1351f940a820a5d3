#!/bin/sh
# brink against redis-benchmark, loading the same redis-server on loopback
# (issue 33): a scenario speaking RESP over brink.tcp beside Redis's own
# client, GET and SET of 100-byte values. Figures only: it asserts nothing
# and exits 0 once the table is printed (1 only when it cannot set up: no
# binary, no redis-server or redis-benchmark, one core).
#
# Setup: redis-server from Debian on a free port of 127.0.0.1, pinned to
# core 0, without persistence (no RDB snapshots, no AOF), its keys
# key:000000000000 ... key:000000009999 (K = BENCH_KEYS) each set to 100
# bytes, so that every GET finds a value of that size (redis-benchmark's
# SET, and brink's, write values of the same size).
# Each client is pinned to core 1, C = 50 connections (BENCH_CONNS), no
# pipelining, a random key of the range per request, one command per run:
#   redis-benchmark -t CMD -d 100 -c C -P 1 -r K -n N --threads 1 --csv
#   brink run --headless --config CMD.ini --concurrency C --duration D --threads 1
# where CMD.ini names a scenario written like config/redis.lua (a RESP
# command built per request, the reply framed in Lua, a check on it) that
# sends CMD only, on one brink.tcp connection per user. N is the requests
# redis-benchmark made in D seconds in a calibration run (the second of
# two), so that both run about D seconds; the repetitions alternate
# redis-benchmark and brink.
#
# Columns (medians of BENCH_REPS repetitions, default 3):
#   rb req/s       redis-benchmark's requests/s, as it reports it
#   brink req/s    requests brink completed / wall time of the brink process
#                  (start-up and drain included)
#   brink/rb       ratio of the medians (issue 33's goal: >= 0.7)
#   rb us/req, brink us/req
#                  client CPU (user + system, /usr/bin/time) per request
#   cpu b/rb       ratio of those (issue 33's goal: <= 2)
#   redis% rb, redis% b
#                  redis-server's CPU use during each client's runs (100: its
#                  core was the limit, and req/s equalise: then compare CPU)
# Runs with failures or a non-zero exit are listed under the table, as are
# brink runs whose request count differs from the calls Redis counted
# (INFO commandstats) during the run, or with a reply its check refused.
#
# Usage: sh bench/vs-redis-benchmark.sh   (BRINK=path to a release brink
# binary, default build/release/brink; BENCH_SECONDS=D (default 5);
# BENCH_REPS=N; BENCH_CONNS=C; BENCH_KEYS=K (default 10000); BENCH_CMDS="GET"
# to measure one command only; BRINK_BEFORE=path to a second binary,
# measured in the same repetitions, alternating with the first: its rows
# read "brink<", so that a change is judged within one run)
set -u
prog=vs-redis-benchmark
cd "$(dirname "$0")/.." || exit 1
. ./bench/lib.sh

seconds=${BENCH_SECONDS:-5}
reps=${BENCH_REPS:-3}
conns=${BENCH_CONNS:-50}
keys=${BENCH_KEYS:-10000}
cmds=${BENCH_CMDS:-"GET SET"}
before=${BRINK_BEFORE:-}
size=100

for v in "$seconds" "$reps" "$conns" "$keys"; do
    case "$v" in
    '' | *[!0-9]*) die "BENCH_SECONDS, BENCH_REPS, BENCH_CONNS and BENCH_KEYS must be whole numbers, got '$v'" ;;
    esac
done
for c in $cmds; do
    case "$c" in
    GET | SET) ;;
    *) die "BENCH_CMDS: expected GET, SET or both, got '$c'" ;;
    esac
done
[ -z "$before" ] || [ -x "$before" ] || die "BRINK_BEFORE: $before is no executable"
clients="brink"
[ -z "$before" ] || clients="brink brink<"

scripts/install-deps bench || exit 1
command -v redis-server >/dev/null 2>&1 || die "redis-server is missing (Debian's redis-server)"
command -v redis-benchmark >/dev/null 2>&1 || die "redis-benchmark is missing (Debian's redis-tools)"
find_brink
need_two_cores "redis-server on core 0, the client on core 1"
bench_tmp

# --- redis-server, no persistence, its keys set -----------------------------------
port=$(free_port)
taskset -c 0 redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$tmp" --logfile "$tmp/redis.log" &
server_pid=$!
redis() {
    redis-cli -h 127.0.0.1 -p "$port" "$@"
}
i=0
until [ "$(redis PING 2>/dev/null)" = PONG ]; do
    i=$((i + 1))
    [ $i -gt 200 ] && { cat "$tmp/redis.log" >&2; die "redis-server did not start"; }
    sleep 0.05
done
awk -v keys="$keys" -v size="$size" 'BEGIN {
    v = sprintf("%" size "s", ""); gsub(/ /, "x", v)
    for (i = 0; i < keys; i++)
        printf "*3\r\n$3\r\nSET\r\n$16\r\n%s\r\n$%d\r\n%s\r\n", sprintf("key:%012d", i), size, v }' |
    redis --pipe >/dev/null || die "could not set the keys (redis-cli --pipe)"
[ "$(redis DBSIZE)" = "$keys" ] || die "redis-server holds $(redis DBSIZE) keys, not $keys"

# redis_calls CMD: the calls of CMD Redis counted so far (INFO commandstats).
redis_calls() {
    redis INFO commandstats | tr -d '\r' | awk -F '[:,=]' -v c="cmdstat_$(echo "$1" | tr '[:upper:]' '[:lower:]')" '
        $1 == c { print $3; f = 1 } END { if (!f) print 0 }'
}

# --- brink's scenario, one per command ---------------------------------------------
cp config/resp.lua "$tmp/" || die "no config/resp.lua"
for cmd in $cmds; do
    cat >"$tmp/$cmd.lua" <<EOF
-- $cmd only, of $size-byte values, keys from a range named as redis-benchmark
-- -r names them (key: and 12 digits); written like config/redis.lua.
local resp = require("resp") -- config/resp.lua
local HOST, PORT, CMD, KEYS = "127.0.0.1", $port, "$cmd", $keys
local value = string.rep("x", $size)
local head = "\$" .. #value .. "\r\n"
local bulk = head .. value .. "\r\n"

function iteration(user)
    user.redis = user.redis or brink.tcp{host = HOST, port = PORT}
    local key = string.format("key:%012d", brink.random(0, KEYS - 1))
    if CMD == "GET" then
        user.redis:send(resp.command("GET", key))
        local r = user.redis:receive{name = "GET", complete = resp.reply}
        -- redis-benchmark's SET runs write other bytes of the same size.
        brink.check(r.error ~= nil or (#r.data == #bulk and r.data:sub(1, #head) == head),
                    "GET replied a value of $size bytes")
    else
        user.redis:send(resp.command("SET", key, value))
        local r = user.redis:receive{name = "SET", upto = "\r\n"}
        brink.check(r.error ~= nil or r.data == "+OK\r\n", "SET replied +OK")
    end
end
EOF
    printf '[scenario]\nscript = %s.lua\n' "$cmd" >"$tmp/$cmd.ini"
done

limit=$((seconds + 30))

# run_rb CMD N: one redis-benchmark run of N requests; appends "rps
# cpu_us_per_req redis%" to $tmp/rb.CMD (with N = 0: a calibration run,
# whose req/s is left in rps and nothing appended); logs one line to stderr.
run_rb() {
    rb_n=$2
    [ "$rb_n" -gt 0 ] || rb_n=$((conns * 1000))
    bench_client redis-benchmark -h 127.0.0.1 -p "$port" -t "$(echo "$1" | tr '[:upper:]' '[:lower:]')" \
        -d "$size" -c "$conns" -P 1 -r "$keys" -n "$rb_n" --threads 1 --csv
    # "test","rps","avg_latency_ms",...  then  "GET","22665.46","1.596",...
    rps=$(awk -F '","' -v c="\"$1" '$1 == c { print $2; exit }' "$tmp/run.out")
    [ "$rc" -ne 0 ] || [ -z "$rps" ] &&
        echo "$1 redis-benchmark: exit $rc; $(head -n 2 "$tmp/run.err" | tr '\n' ' ')" >>"$tmp/problems"
    if [ "$2" -gt 0 ]; then
        awk -v n="$rb_n" -v rps="${rps:-0}" -v us="$us" -v sy="$sy" -v ngx="$ngx" 'BEGIN {
            printf "%.1f %.2f %s\n", rps, (us + sy) * 1e6 / n, ngx }' >>"$tmp/rb.$1"
    fi
    echo "  redis-benchmark $1: $rb_n requests, wall ${el}s, cpu ${us}u ${sy}s, redis ${ngx}%, says ${rps:-?} req/s, exit $rc" >&2
}

# run_brink CMD T: one brink run of CMD (T: brink, or brink< for
# BRINK_BEFORE's binary); appends "rps cpu_us_per_req redis%" to
# $tmp/T.CMD; logs one line to stderr.
run_brink() {
    bin=$brink
    [ "$2" = "brink<" ] && bin=$before
    calls0=$(redis_calls "$1")
    bench_client "$bin" run --headless --config "$tmp/$1.ini" --concurrency "$conns" \
        --duration "${seconds}s" --threads 1 --fail-on none --no-record
    calls=$(($(redis_calls "$1") - calls0))
    bench_brink_report "$1 $2"
    [ -n "$n" ] && [ "$n" != "$calls" ] &&
        echo "$1 $2: brink counted $n requests, Redis $calls calls of $1" >>"$tmp/problems"
    # "run    check:GET replied the value  137,517       0  137,517"
    bad=$(awk '$1 == "run" && $2 ~ /^check:/ { gsub(",", "", $(NF - 1)); s += $(NF - 1) }
        END { print s + 0 }' "$tmp/run.out")
    [ "$bad" -eq 0 ] || echo "$1 $2: $bad replies failed the scenario's check" >>"$tmp/problems"
    awk -v n="${n:-0}" -v el="$el" -v us="$us" -v sy="$sy" -v ngx="$ngx" 'BEGIN {
        printf "%.1f %.2f %s\n", (el > 0 ? n / el : 0), (n > 0 ? (us + sy) * 1e6 / n : 0), ngx }' \
        >>"$tmp/$2.$1"
    echo "  $2 $1: $n requests (Redis counted $calls), wall ${el}s, cpu ${us}u ${sy}s, redis ${ngx}%, report: $first; $errline, exit $rc" >&2
}

print_machine
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine moves every figure)"
echo "redis-server: $(redis-server --version | awk '{ print $3 }'), no persistence, on core 0; clients on core 1"
echo "redis-benchmark: $(redis-benchmark --version 2>&1 | awk '{ print $2 }'); brink: $brink ($("$brink" --version 2>/dev/null | head -n 1))"
[ -z "$before" ] || echo "before (rows brink<): $before ($("$before" --version 2>/dev/null | head -n 1))"
echo "runs: ${seconds}s each, $reps alternating repetitions, medians shown; $conns connections, no pipelining, ${size}-byte values, $keys keys"

# Two calibration runs per command: the first one after a start runs at
# half the speed of the next ones, so the second one's req/s sets N.
for cmd in $cmds; do
    run_rb "$cmd" 0
    run_rb "$cmd" 0
    total=$(awk -v r="${rps:-0}" -v s="$seconds" 'BEGIN { printf "%d", r * s }')
    [ "$total" -gt 0 ] || total=$((conns * 2000))
    eval "n_$cmd=$total"
done
r=1
while [ $r -le "$reps" ]; do
    for cmd in $cmds; do
        eval "run_rb $cmd \$n_$cmd"
        for t in $clients; do
            run_brink "$cmd" "$t"
        done
    done
    r=$((r + 1))
done

echo
printf '%-4s %-6s %10s %12s %9s %10s %13s %9s %9s %8s\n' \
    cmd client "rb req/s" "brink req/s" brink/rb "rb us/req" "brink us/req" "cpu b/rb" "redis% rb" "redis% b"
for cmd in $cmds; do
    for t in $clients; do
        awk -v c="$cmd" -v t="$t" \
            -v rr="$(bench_median "$tmp/rb.$cmd" 1)" -v br="$(bench_median "$tmp/$t.$cmd" 1)" \
            -v rc="$(bench_median "$tmp/rb.$cmd" 2)" -v bc="$(bench_median "$tmp/$t.$cmd" 2)" \
            -v rn="$(bench_median "$tmp/rb.$cmd" 3)" -v bn="$(bench_median "$tmp/$t.$cmd" 3)" 'BEGIN {
            printf "%-4s %-6s %10.0f %12.0f %9.2f %10.1f %13.1f %9.2f %9.0f %8.0f\n",
                c, t, rr, br, (rr > 0 ? br / rr : 0), rc, bc, (rc > 0 ? bc / rc : 0), rn, bn }'
    done
done
echo "goals (issue 33): brink/rb >= 0.7, cpu b/rb <= 2"
bench_notes "failures, a non-zero exit or counts that differ from Redis's"
exit 0
