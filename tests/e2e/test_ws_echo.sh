#!/bin/sh
# brink.ws against a WebSocket echo server on Debian's python3-websockets
# (ws_echo_server.py, issue 33), with the shipped config/ws-echo.ini and
# config/ws-echo.lua (its URL's port changed to the test's):
# - a 3 s run at 16 users: every message came back as sent (the script's
#   check never failed, no request failed), and brink's echo requests
#   equal the messages the server received, exactly; the server's pings
#   meanwhile were answered by brink's pongs;
# - binary messages of every byte value and pings: each echoed or
#   answered by its pong, the server counting the binary messages alone;
# - wss://: the same echoes over TLS, with [target] ca_file; without it
#   the server's certificate fails every exchange as tls;
# - against the server's --cut mode, which answers each message with half
#   a frame and a TCP close: every request fails as closed_early, one per
#   message the server received.
# Usage: sh test_ws_echo.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"
. "$src/tests/tls/lib.sh"

target_setup
scheme=ws
target_lines=""
# Debian's interpreter, which has python3-websockets: the python3 first on
# PATH may be a version manager's, without it.
ws_python=/usr/bin/python3
$ws_python -c 'import websockets' 2>/dev/null ||
    { echo "FAIL $ws_python cannot import websockets: run scripts/install-deps"; exit 1; }

# start_server [ARGS...]: ws_echo_server.py (--cut, --ping SECONDS,
# --cert CERT --key KEY) on a free port of 127.0.0.1; its pid in $pid
# (stopped by target_cleanup), its port in $port.
start_server() {
    rm -f "$tmp/ws.port"
    $ws_python "$src/tests/e2e/ws_echo_server.py" "$tmp/ws.port" "$@" >"$tmp/ws.log" 2>&1 &
    pid=$!
    port=$(wait_port "$tmp/ws.port" "$pid" ws_echo_server.py "$tmp/ws.log") || exit 1
}

# received: the messages the server received (its GET /count; over TLS
# when $scheme is wss).
received() {
    if [ "$scheme" = wss ]; then
        curl -s --max-time 5 --cacert "$tls_dir/ca.pem" "https://127.0.0.1:$port/count"
    else
        curl -s --max-time 5 "http://127.0.0.1:$port/count"
    fi
}

# pongs: the pongs that answered the server's pings (its GET /pongs).
pongs() {
    curl -s --max-time 5 "http://127.0.0.1:$port/pongs"
}

# ws_run NAME ARGS...: the shipped experiment, the script's URL on $port
# (wss:// when $scheme says so, with the [target] lines of $target_lines).
ws_run() {
    name=$1
    shift
    { [ -z "$target_lines" ] || printf '%s\n' "$target_lines"; cat "$src/config/ws-echo.ini"; } >"$tmp/$name.ini"
    sed "s|^local URL = \"ws://127.0.0.1:8765/echo\"\$|local URL = \"$scheme://127.0.0.1:$port/echo\"|" \
        "$src/config/ws-echo.lua" >"$tmp/ws-echo.lua"
    headless_run "$name" "$tmp/$name.ini" --record "$tmp/$name.jsonl" "$@"
}

# ---- 1. every message echoed and counted ----
# The server pings every connection each 200 ms and closes one whose pong
# is 1 s late: brink answers them by itself.
start_server --ping 0.2
check "the server counts from 0" 0 "$(received)"
ws_run echo --duration 3s
check "config/ws-echo.lua names its URL on one line, local URL = \"ws://127.0.0.1:8765/echo\"" 1 \
    "$(grep -c "^local URL = \"ws://127.0.0.1:$port/echo\"\$" "$tmp/ws-echo.lua")"
check "3 s at 16 users: exit 0" 0 "$status"
check "3 s at 16 users: no request failed" "errors: none" "$(errors_line echo)"
echoes=$(run_requests "$tmp/echo.out")
check_ge "requests ran ($echoes)" 100 "$echoes"
check "all of the kind echo (the session's only kind)" echo "$(python3 -c '
import json, sys
print(" ".join(sorted({k["name"] for line in open(sys.argv[1]) for t in [json.loads(line)]
                       if t.get("type") == "tick" for k in t.get("kinds", [])})))' "$tmp/echo.jsonl")"
check "brink's echo requests are the messages the server received" "$echoes" "$(received)"
checks_held "every echo was the message sent" "$tmp/echo.out" "echo is the message sent"
check_ge "brink answered the server's pings ($(pongs) pongs)" 16 "$(pongs)"

# ---- 2. binary messages and pings ----
# Each iteration sends a binary message of every byte value (256 bytes,
# its first the iteration's number, so it needs a 2-byte length), then a
# ping; the server echoes the one and answers the other with its pong,
# which it does not count as a message.
cat >"$tmp/mixed.lua" <<LUA
local bytes = {}
for i = 0, 255 do bytes[#bytes + 1] = string.char(i) end
local all = table.concat(bytes)
function iteration(user)
    user.ws = user.ws or brink.ws{url = "ws://127.0.0.1:$port/mixed"}
    local message = string.char(user.iteration % 256) .. all:sub(2)
    user.ws:send(message, "binary")
    local r = user.ws:receive{name = "binary"}
    if r.error then return end
    brink.check(r.type == "binary" and r.data == message, "binary echo is the message sent")
    user.ws:ping("ping " .. user.iteration)
    r = user.ws:receive{name = "ping"}
    if r.error then return end
    brink.check(r.type == "pong" and r.data == "ping " .. user.iteration, "pong carries the ping's data")
end
LUA
printf '[load]\nconcurrency = 4\nduration = 2s\n[scenario]\nscript = mixed.lua\n' >"$tmp/mixed.ini"
before=$(received)
headless_run mixed "$tmp/mixed.ini"
check "binary and ping: exit 0" 0 "$status"
check "binary and ping: no request failed" "errors: none" "$(errors_line mixed)"
binary=$(kind_requests "$tmp/mixed.out" binary)
check_ge "binary and ping: binary requests ran ($binary)" 50 "$binary"
check_ge "binary and ping: a ping after each binary echo ($(kind_requests "$tmp/mixed.out" ping))" \
    "$((binary - 4))" "$(kind_requests "$tmp/mixed.out" ping)"
check "binary and ping: the server received the binary messages alone" "$binary" "$(($(received) - before))"
checks_held "every binary echo was the message sent" "$tmp/mixed.out" "binary echo is the message sent"
checks_held "every pong carried its ping's data" "$tmp/mixed.out" "pong carries the ping's data"
stop_target

# ---- 3. wss://: the same over TLS, the server's certificate checked ----
# Certificates of the TLS fixture: good.pem names 127.0.0.1, signed by ca.pem.
tls_certs_in "$tmp/tls" "$src"
start_server --cert "$tls_dir/good.pem" --key "$tls_dir/good.key"
scheme=wss
target_lines=$(printf '[target]\nca_file = %s\n' "$tls_dir/ca.pem")
ws_run wss --duration 2s
check "wss://: exit 0" 0 "$status"
check "wss://: no request failed" "errors: none" "$(errors_line wss)"
wss=$(run_requests "$tmp/wss.out")
check_ge "wss://: requests ran ($wss)" 100 "$wss"
check "wss://: brink's requests are the messages the server received" "$wss" "$(received)"
checks_held "wss://: every echo was the message sent" "$tmp/wss.out" "echo is the message sent"
# Without the CA that signed it, the certificate is refused: class tls.
target_lines=""
ws_run untrusted --duration 1s
untrusted=$(run_requests "$tmp/untrusted.out")
check_ge "wss:// to an unknown CA: requests ran ($untrusted)" 1 "$untrusted"
check "wss:// to an unknown CA: every one failed as tls" "$untrusted" \
    "$(error_row untrusted tls | awk '{ gsub(",", "", $2); print $2 }')"
check "wss:// to an unknown CA: the class's message says why ($(first_error untrusted tls))" 1 \
    "$(first_error untrusted tls | grep -c 'unable to get local issuer certificate')"
stop_target
scheme=ws

# ---- 4. a server that closes in the middle of each echo ----
start_server --cut
ws_run cut --duration 2s
check "cut mid-frame: exit 3, as a run over its error threshold" 3 "$status"
cut=$(run_requests "$tmp/cut.out")
check_ge "cut mid-frame: more requests than users: each connects again after its cut ($cut)" 32 "$cut"
check "cut mid-frame: every one failed" "$cut $cut" \
    "$(errors_line cut | sed -n 's/^errors: \([0-9,]*\) of \([0-9,]*\) requests.*/\1 \2/p' | tr -d ,)"
check "cut mid-frame: every one as closed_early" "$cut" \
    "$(error_row cut closed_early | awk '{ gsub(",", "", $2); print $2 }')"
check "cut mid-frame: one per message the server received" "$cut" "$(received)"
check "cut mid-frame: no echo reached the check" "" "$(check_counts "$tmp/cut.out" "echo is the message sent")"
finish
