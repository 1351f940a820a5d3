#!/bin/sh
# brink.tcp against Debian's redis-server (issue 33), with the shipped
# config/redis.ini and config/redis.lua (its port changed to the test's):
# - a 5 s run at 16 users: brink's SET and GET request counts equal Redis's
#   own, INFO commandstats' cmdstat_set and cmdstat_get calls, exactly; no
#   request failed and the script's checks of the replies all held;
# - redis-server killed (SIGKILL) once the session shows requests flowing:
#   the requests after it fail as refused or reset (refused alone once the
#   server is gone: each user connects again), the run exits as a run over
#   its error threshold does (3), and its session is complete (brink
#   report reads it back with the same totals);
# - a [ramp] whose stop_when reads a command probe of Redis INFO
#   (connected_clients: one per user, and the probe's own redis-cli) stops
#   at the step whose users pass it, as against any other server;
# - brink.tcp{tls = true} to Redis's TLS port, [target] ca_file the
#   fixture's CA: the counts again equal Redis's.
# Usage: sh test_redis.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"
. "$src/tests/tls/lib.sh"

target_setup
for tool in redis-server redis-cli; do
    command -v $tool >/dev/null 2>&1 || { echo "FAIL $tool missing: run scripts/install-deps"; exit 1; }
done

# start_redis [ARGS...]: redis-server on a free port of 127.0.0.1, without
# persistence, its files in $tmp/redis, ARGS added; its pid in $pid
# (stopped by target_cleanup), its port in $port; waits (at most 10 s) for
# its PONG.
start_redis() {
    port=$(free_port)
    mkdir -p "$tmp/redis"
    redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
        --daemonize no --dir "$tmp/redis" "$@" >"$tmp/redis.log" 2>&1 &
    pid=$!
    wait_up "redis-server on 127.0.0.1:$port" "$pid" "$tmp/redis.log" redis_answers
}

# redis_answers: whether redis-server answers PING on $port.
redis_answers() {
    [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ]
}

# calls COMMAND: Redis's count of COMMAND since its last CONFIG RESETSTAT
# (INFO commandstats: "cmdstat_set:calls=N,..."), 0 if never called.
calls() {
    n=$(redis-cli -p "$port" info commandstats | tr -d '\r' | sed -n "s/^cmdstat_$1:calls=\([0-9]*\),.*/\1/p")
    echo "${n:-0}"
}

# command_calls KIND: Redis's count of the command a request kind names
# (SET: cmdstat_set).
command_calls() {
    calls "$(printf '%s' "$1" | tr '[:upper:]' '[:lower:]')"
}

# The shipped experiment as it is, the script's port the test's.
start_redis
cp "$src/config/redis.ini" "$src/config/resp.lua" "$tmp/"
sed "s/^local PORT = 6379\$/local PORT = $port/" "$src/config/redis.lua" >"$tmp/redis.lua"
check "config/redis.lua names its port on one line, local PORT = 6379" 1 \
    "$(grep -c "^local PORT = $port\$" "$tmp/redis.lua")"

# ---- 1. counts: brink's requests of each kind are Redis's commands ----
redis-cli -p "$port" config resetstat >/dev/null
headless_run counts "$tmp/redis.ini" --duration 5s --record "$tmp/counts.jsonl"
check "5 s at 16 users: exit 0" 0 "$status"
check "5 s at 16 users: no request failed" "errors: none" "$(errors_line counts)"
kinds_counted "5 s at 16 users" counts command_calls SET GET
checks_held "every SET replied +OK" "$tmp/counts.out" "SET replied +OK"
checks_held "every GET replied the value SET (or nil)" "$tmp/counts.out" "GET replied the value SET"
# Values of 10,000 bytes went in whole (and each GET of one, read in
# several pieces, counted once: the counts above).
key=$(redis-cli -p "$port" --scan --pattern 'brink:10000:*' | head -n 1)
check "Redis holds values of 10,000 bytes ($key)" 10000 "$(redis-cli -p "$port" strlen "${key:-none}")"

# ---- 2. redis-server killed mid-run ----
"$brink" run --headless --config "$tmp/redis.ini" --duration 3s --record "$tmp/kill.jsonl" \
    >"$tmp/kill.out" 2>"$tmp/kill.err" </dev/null &
run_pid=$!
# The first tick with GETs answered (completed and ok) in the session.
if wait_count "$tmp/kill.jsonl" '"type":"tick".*"name":"GET","started":[0-9]+,"completed":[0-9]+,"ok":[1-9]' 1 20; then
    ok "the session shows GETs answered before the kill"
else
    not_ok "the session shows GETs answered before the kill" "$(tail -c 300 "$tmp/kill.err")"
fi
kill -KILL "$pid"
wait "$pid" 2>/dev/null
pid=""
wait "$run_pid"
status=$?
run_pid=""
check "killed mid-run: exit 3, as a run over its error threshold" 3 "$status"
check "killed mid-run: the threshold says so" 1 \
    "$(grep -c '^brink: run: threshold failed: error_rate' "$tmp/kill.err")"
refused=$(error_row kill refused | awk '{ gsub(",", "", $2); print $2 }')
reset=$(error_row kill reset | awk '{ gsub(",", "", $2); print $2 }')
check_ge "killed mid-run: requests refused or reset (refused ${refused:-0}, reset ${reset:-0})" 1 \
    "$((${refused:-0} + ${reset:-0}))"
# A failed exchange closes its connection and the next receive connects
# again: once the server is gone every exchange is refused. (Right after
# the kill a connect may still land in the listener of the dying process,
# then be reset, so the ticks of the kill may hold a few more resets.)
check "killed mid-run: the last tick with failures has only refused ones" refused "$(python3 -c '
import json, sys
last = None
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t.get("type") == "tick" and t["total"].get("errors"):
        last = t["total"]["errors"]
print(" ".join(sorted(last or {})))' "$tmp/kill.jsonl" 2>&1)"
check "killed mid-run: the session's ticks count them too" 1 \
    "$(grep '"type":"tick"' "$tmp/kill.jsonl" 2>/dev/null | grep -cE '"errors":\{[^}]*"(refused|reset)":[1-9]' | awk '{ print ($1 > 0) }')"
check "killed mid-run: the session is complete" 1 \
    "$(tail -n 1 "$tmp/kill.jsonl" 2>/dev/null | grep -c '"type":"trailer".*"complete":true')"
"$brink" report "$tmp/kill.jsonl" >"$tmp/kill.report" 2>"$tmp/kill.report.err"
check "killed mid-run: brink report of the session exits as the run did" 3 "$?"
totals=$(grep -m 1 '^duration ' "$tmp/kill.out")
check "killed mid-run: its totals are the run's ($totals)" "${totals:-no totals in the run report}" \
    "$(grep -m 1 '^duration ' "$tmp/kill.report")"
errors=$(errors_line kill)
check "killed mid-run: its errors are the run's ($errors)" "${errors:-no errors line in the run report}" \
    "$(grep -m 1 '^errors:' "$tmp/kill.report")"

# ---- 3. a ramp stopped by a command probe of Redis INFO ----
start_redis
sed "s/^local PORT = 6379\$/local PORT = $port/" "$src/config/redis.lua" >"$tmp/redis.lua"
# Users hold one connection each, the probe's redis-cli one more: 2 at
# c=1, 5 at c=4, 17 at c=16.
cat >"$tmp/ramp.ini" <<INI
[load]
tick = 500ms

[scenario]
script = redis.lua

[probe clients]
type = command
command = redis-cli -p $port info clients
key = connected_clients
interval = 200ms

[ramp]
steps = 1, 4, 16
hold = 1s
warmup = 500ms
stop_when = error_rate > 1%, probe.clients > 10
action = stop
INI
headless_run ramp "$tmp/ramp.ini" --ramp --duration 60s
check "ramp: exit 3 (a step failed)" 3 "$status"
step_row() {
    sed -n "/^steps:/,/^breaking point:/s|^  $1 *||p" "$tmp/ramp.out"
}
for s in 1/3 2/3; do
    case "$(step_row $s)" in
    *pass) ok "ramp: step $s passed" ;;
    *) not_ok "ramp: step $s passed" "row: '$(step_row $s)'" ;;
    esac
done
case "$(step_row 3/3)" in
c=16*"FAIL: probe clients "*" > 10"*) ok "ramp: step 3/3 (c=16) failed on the probe: $(step_row 3/3)" ;;
*) not_ok "ramp: step 3/3 (c=16) failed on the probe" "row: '$(step_row 3/3)'; $(grep -E 'ramp|breaking' "$tmp/ramp.err" | head -5)" ;;
esac
check "ramp: the breaking point names the probe" 1 \
    "$(grep -c 'breaking point: step 3 (c=16) failed: probe clients' "$tmp/ramp.err")"
stop_target

# ---- 4. over TLS: brink.tcp{tls = true} to Redis's TLS port ----
# (which speaks TLS alone: a command in clear there gets no reply)
# Certificates of the TLS fixture: good.pem names 127.0.0.1, signed by ca.pem.
tls_certs_in "$tmp/tls" "$src"
tls_port=$(free_port)
start_redis --tls-port "$tls_port" --tls-cert-file "$tls_dir/good.pem" \
    --tls-key-file "$tls_dir/good.key" --tls-ca-cert-file "$tls_dir/ca.pem" --tls-auth-clients no
sed -e "s/^local PORT = 6379\$/local PORT = $tls_port/" \
    -e 's/brink.tcp{host = HOST, port = PORT}/brink.tcp{host = HOST, port = PORT, tls = true}/' \
    "$src/config/redis.lua" >"$tmp/redis.lua"
check "config/redis.lua opens its connection in one call, brink.tcp{host = HOST, port = PORT}" 1 \
    "$(grep -c 'brink.tcp{host = HOST, port = PORT, tls = true}' "$tmp/redis.lua")"
printf '[target]\nca_file = %s\n' "$tls_dir/ca.pem" | cat - "$src/config/redis.ini" >"$tmp/tls.ini"
redis-cli -p "$port" config resetstat >/dev/null
headless_run tls "$tmp/tls.ini" --duration 2s
check "TLS: exit 0" 0 "$status"
check "TLS: no request failed" "errors: none" "$(errors_line tls)"
kinds_counted TLS tls command_calls SET GET
checks_held "TLS: every GET replied the value SET (or nil)" "$tmp/tls.out" "GET replied the value SET"
finish
