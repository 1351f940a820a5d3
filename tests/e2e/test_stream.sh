#!/bin/sh
# brink.tcp against a server of faults (stream_fault_server.py), each
# connection choosing its own: every fault lands in its class (a flood
# past max is malformed, silence a timeout, half a line then a FIN
# closed_early, an RST reset, nothing listening refused) and the run ends
# on time with its session complete; a script that mixes brink.request
# (to brink target) with brink.tcp (echo lines) is counted exactly, each
# kind against its server's own count, alone and over two agents
# (fake_ssh.sh), whose ticks merge into the same count.
# Usage: sh test_stream.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup
python3 "$src/tests/e2e/stream_fault_server.py" "$tmp/port" 2>"$tmp/server.err" &
server=$!
trap 'kill $server 2>/dev/null; target_cleanup' EXIT
port=$(wait_port "$tmp/port" "$server" "the fault server" "$tmp/server.err") || exit 1
dead=$(free_port)

# kind_block NAME KIND: the report's part about KIND, from its "kind
# KIND:" line to the next kind's or the checks'.
kind_block() {
    awk -v k="kind $2: " 'index($0, k) == 1 { on = 1; print; next }
        on && (/^kind / || /^checks and counters/) { on = 0 } on' "$tmp/$1.out"
}

# -- Faults ------------------------------------------------------------
cat >"$tmp/faults.lua" <<LUA
-- One connection per fault and iteration: a failure closes it anyway.
local port = $port
function iteration(user)
    for _, mode in ipairs({"echo", "flood", "silent", "cut", "reset"}) do
        local c = brink.tcp{host = "127.0.0.1", port = port}
        c:send(mode .. "\r\n")
        if mode == "echo" then c:send("ping\r\n") end
        local r = c:receive{upto = "\r\n", name = mode, timeout = 0.3, max = 200000}
        if mode == "echo" then brink.check(r.data == "ping\r\n", "echoed") end
        c:close()
    end
    if user.id == 1 and user.iteration == 1 then
        error("the server said token=s3cr3t-t0ken") -- a secret in a script's message
    end
    local d = brink.tcp{host = "127.0.0.1", port = $dead}
    d:send("x")
    local r = d:receive{bytes = 1, name = "dead"}
    brink.check(r.error == "refused", "refused seen by the script")
end
LUA
printf '[load]\nconcurrency = 4\nduration = 2s\n[thresholds]\nfail_on = none\n[scenario]\nscript = faults.lua\n' >"$tmp/faults.ini"
start=$(now_ms)
headless_run faults "$tmp/faults.ini" --record "$tmp/faults.jsonl"
took=$(($(now_ms) - start))
check "faults: the run ends with exit 0" 0 "$status"
if [ "$took" -lt 30000 ]; then ok "faults: the run ends by itself"; else not_ok "faults: the run ends by itself" "took $took ms"; fi
for pair in "echo:errors: none" "flood:malformed" "silent:timeout" "cut:closed_early" \
    "reset:reset" "dead:refused"; do
    kind=${pair%%:*} want=${pair#*:}
    kind_block faults "$kind" >"$tmp/block"
    case $want in
    "errors: none") pat="^errors: none" ;;
    *) pat="^errors: \([0-9,]*\) of \1 requests" ;;
    esac
    if grep -q "^kind $kind: [1-9]" "$tmp/block" && grep -q "$pat" "$tmp/block" &&
        { [ "$want" = "errors: none" ] || grep -q "^  $want " "$tmp/block"; }; then
        ok "faults: every $kind exchange is $want"
    else
        not_ok "faults: every $kind exchange is $want" "$(grep -E "^kind|^errors|^  [a-z_]+ +[0-9,]+ " "$tmp/block" | head -4)"
    fi
done
if grep -q "^  check:echoed: passed [1-9][0-9,]*, failed 0$" "$tmp/faults.out" &&
    grep -q "^  check:refused seen by the script: passed [1-9][0-9,]*, failed 0$" "$tmp/faults.out"; then
    ok "faults: the script reads each reply and each failure's class"
else
    not_ok "faults: the script reads each reply and each failure's class" "$(grep check: "$tmp/faults.out")"
fi
if grep -q "^  script  *1 .*token=<redacted" "$tmp/faults.out" &&
    ! grep -q "s3cr3t" "$tmp/faults.out" "$tmp/faults.err" "$tmp/faults.jsonl"; then
    ok "faults: a script's message is redacted in the report and the session"
else
    not_ok "faults: a script's message is redacted in the report and the session" \
        "$(grep -h "s3cr3t\|^  script" "$tmp/faults.out" "$tmp/faults.jsonl" | head -3)"
fi
if grep -q "^HTTP statuses" "$tmp/faults.out"; then
    not_ok "faults: a run that spoke no HTTP has no HTTP statuses line" "$(grep "^HTTP" "$tmp/faults.out")"
else
    ok "faults: a run that spoke no HTTP has no HTTP statuses line"
fi
"$brink" report "$tmp/faults.jsonl" >"$tmp/faults.report" 2>&1
if [ $? -eq 0 ] && grep -q "^kind flood: " "$tmp/faults.report" &&
    grep -q '"reason"' "$tmp/faults.jsonl"; then
    ok "faults: the session is complete and reports"
else
    not_ok "faults: the session is complete and reports" "$(tail -c 300 "$tmp/faults.report")"
fi

# -- HTTP and TCP in one script -----------------------------------------
must_start_target --listen 127.0.0.1:0
cat >"$tmp/mixed.lua" <<LUA
-- A PUT to brink target, then an echo over the user's own connection.
function iteration(user)
    brink.request{method = "PUT", url = "/kv/" .. user.id, body = "v", name = "put"}
    user.c = user.c or brink.tcp{host = "127.0.0.1", port = $port}
    if not user.said then user.c:send("echo\r\n"); user.said = true end
    user.c:send(user.iteration .. "\r\n")
    local r = user.c:receive{upto = "\r\n", name = "echo"}
    brink.check(r.data == user.iteration .. "\r\n", "echo")
    if r.error then user.c = nil; user.said = nil end
end
LUA
printf '[target]\nurl = %s/\n[load]\nconcurrency = 8\nduration = 2s\n[thresholds]\nfail_on = none\n[scenario]\nscript = mixed.lua\n' \
    "$url" >"$tmp/mixed.ini"
# ask WORD: the fault server's answer to WORD (count: the echo lines it
# answered so far; open: its echo connections open now).
ask() {
    printf '%s\r\n' "$1" | python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(sys.stdin.buffer.read())
print(s.makefile().readline().strip())' "$port"
}

echoed() {
    ask count
}

# kv_requests: the requests brink target's kv endpoint counted.
kv_requests() {
    curl -s "$url/_control" | python3 -c '
import json, sys
print(json.load(sys.stdin)["ground_truth"]["requests_by_endpoint"]["kv"])'
}

# mixed_run NAME [INI LINES]: a run of mixed.lua, then each kind's count
# against its server's.
mixed_run() {
    name=$1
    cp "$tmp/mixed.ini" "$tmp/$name.ini"
    [ -n "${2:-}" ] && printf '%s\n' "$2" >>"$tmp/$name.ini"
    echo_before=$(echoed)
    put_before=$(kv_requests)
    headless_run "$name" "$tmp/$name.ini"
    echo_after=$(echoed)
    put_after=$(kv_requests)
    echo_n=$(sed -n 's/^kind echo: \([0-9,]*\) requests.*/\1/p' "$tmp/$name.out" | tr -d ,)
    put_n=$(sed -n 's/^kind put: \([0-9,]*\) requests.*/\1/p' "$tmp/$name.out" | tr -d ,)
    check "$name: the run ends with exit 0" 0 "$status"
    if [ -n "$echo_n" ] && [ "$echo_n" -gt 0 ] && [ $((echo_after - echo_before)) -eq "$echo_n" ]; then
        ok "$name: brink's echo exchanges ($echo_n) are the lines the server answered"
    else
        not_ok "$name: brink's echo exchanges are the lines the server answered" \
            "brink $echo_n, server $((echo_after - echo_before)); $(errors_line "$name")"
    fi
    if [ -n "$put_n" ] && [ "$put_n" -gt 0 ] && [ $((put_after - put_before)) -eq "$put_n" ]; then
        ok "$name: brink's PUTs ($put_n) are the target's"
    else
        not_ok "$name: brink's PUTs are the target's" "brink $put_n, target $((put_after - put_before))"
    fi
    if grep -q "^  check:echo: passed [1-9][0-9,]*, failed 0$" "$tmp/$name.out"; then
        ok "$name: every echo came back"
    else
        not_ok "$name: every echo came back" "$(grep check: "$tmp/$name.out")"
    fi
}

mixed_run mixed
mixed_run agents "$(printf '[agents]\nhosts = a1,a2\nssh = sh %s/tests/e2e/fake_ssh.sh\nbrink = %s' "$src" "$brink")"
grep -q "^agents: 2, every tick whole" "$tmp/agents.out" &&
    ok "agents: two agents, every tick whole" || not_ok "agents: two agents, every tick whole" "$(grep -i agent "$tmp/agents.out" | head -3)"

# -- Names and TLS handshakes --------------------------------------------
# host = "localhost" reaches the fault server, which listens on 127.0.0.1
# alone, whatever order the resolver has (localhost is the loopback, IPv4
# first, as h1 and libcurl have it); and tls = true to a server that
# closes every connection at once fails as tls (the handshake), not as
# closed_empty.
python3 -c '
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
__import__("os").rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    s.accept()[0].close()
' "$tmp/closer.port" 2>"$tmp/closer.err" &
closer=$!
closer_port=$(wait_port "$tmp/closer.port" "$closer" "the closing server" "$tmp/closer.err") || exit 1
# A server on [::1] alone that says hello and closes: localhost's
# 127.0.0.1 refuses, and the next address, ::1, answers (skipped without
# IPv6 here).
python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_INET6)
s.bind(("::1", 0))
s.listen(16)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c = s.accept()[0]
    c.sendall(b"hi\r\n")
    c.close()
' "$tmp/v6.port" 2>"$tmp/v6.err" &
v6=$!
v6_port=$(wait_port "$tmp/v6.port" "$v6" "the IPv6 server" "$tmp/v6.err" 2>/dev/null) || v6_port=""
cat >"$tmp/names.lua" <<LUA
function iteration(user)
    local c = brink.tcp{host = "localhost", port = $port}
    c:send("echo\r\n")
    c:send("ping\r\n")
    local r = c:receive{upto = "\r\n", name = "localhost", timeout = 2}
    brink.check(r.data == "ping\r\n", "echoed")
    c:close()
    local t = brink.tcp{host = "127.0.0.1", port = $closer_port, tls = true}
    t:send("x")
    t:receive{bytes = 1, name = "handshake", timeout = 2}
    t:close()
    if $([ -n "$v6_port" ] && echo true || echo false) then
        local v = brink.tcp{host = "localhost", port = ${v6_port:-1}}
        v:send("x")
        v:receive{upto = "\r\n", name = "next_address", timeout = 2}
        v:close()
    end
end
LUA
printf '[load]\nconcurrency = 1\nduration = 1s\n[thresholds]\nfail_on = none\n[scenario]\nscript = names.lua\n' >"$tmp/names.ini"
headless_run names "$tmp/names.ini"
kill "$closer" $v6 2>/dev/null
check "names: the run ends with exit 0" 0 "$status"
kind_block names localhost >"$tmp/block"
grep -q "^kind localhost: [1-9]" "$tmp/block" && grep -q "^errors: none" "$tmp/block" &&
    ok "names: localhost reaches a server on 127.0.0.1" ||
    not_ok "names: localhost reaches a server on 127.0.0.1" "$(grep -E "^kind|^errors|^  [a-z_]+ +[0-9,]+ " "$tmp/block" | head -4)"
kind_block names handshake >"$tmp/block"
grep -q "^kind handshake: [1-9]" "$tmp/block" && grep -q "^errors: \([0-9,]*\) of \1 requests" "$tmp/block" &&
    grep -q "^  tls " "$tmp/block" &&
    ok "names: a server that closes during the TLS handshake fails it as tls" ||
    not_ok "names: a server that closes during the TLS handshake fails it as tls" "$(grep -E "^kind|^errors|^  [a-z_]+ +[0-9,]+ " "$tmp/block" | head -4)"
if [ -n "$v6_port" ]; then
    kind_block names next_address >"$tmp/block"
    grep -q "^kind next_address: [1-9]" "$tmp/block" && grep -q "^errors: none" "$tmp/block" &&
        ok "names: localhost refused on 127.0.0.1 connects to ::1, its next address" ||
        not_ok "names: localhost refused on 127.0.0.1 connects to ::1, its next address" "$(grep -E "^kind|^errors|^  [a-z_]+ +[0-9,]+ " "$tmp/block" | head -4)"
else
    ok "names: (skipped) no IPv6 loopback here for the next address"
fi

# -- Fewer users, fewer connections --------------------------------------
# 8 users hold an echo connection each; "concurrency 2" on stdin leaves
# the server 2 (polled while the run goes on, at most 10 s).
cat >"$tmp/fewer.lua" <<LUA
function iteration(user)
    if not user.c then
        user.c = brink.tcp{host = "127.0.0.1", port = $port}
        user.c:send("echo\r\n")
    end
    user.c:send("x\r\n")
    if user.c:receive{upto = "\r\n", name = "echo"}.error then user.c = nil end
    brink.sleep(0.01)
end
LUA
printf '[load]\nconcurrency = 8\nduration = 30s\n[thresholds]\nfail_on = none\n[scenario]\nscript = fewer.lua\n' >"$tmp/fewer.ini"
mkfifo "$tmp/fewer.in"
"$brink" run --headless --config "$tmp/fewer.ini" <"$tmp/fewer.in" >"$tmp/fewer.out" 2>&1 &
run_pid=$!
exec 3>"$tmp/fewer.in"
wait_open() {
    i=0
    while [ "$(ask open)" != "$1" ] && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    ask open
}
check "fewer: 8 users hold 8 connections" 8 "$(wait_open 8)"
echo "concurrency 2" >&3
check "fewer: down to 2 users, the server has 2 connections" 2 "$(wait_open 2)"
echo "q" >&3
exec 3>&-
wait "$run_pid"
run_pid=""
check "fewer: no connection left after the run" 0 "$(wait_open 0)"
finish
