#!/bin/sh
# brink.tcp against Debian's memcached (issue 33), with the shipped
# config/memcached.ini and config/memcached.lua (its port changed to the
# test's): a 3 s run at 16 users of the text protocol's set and get;
# brink's set and get request counts equal memcached's own, its stats
# cmd_set and cmd_get, exactly; no request failed and the script's checks
# of the replies all held.
# Usage: sh test_memcached.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup
command -v memcached >/dev/null 2>&1 || { echo "FAIL memcached missing: run scripts/install-deps"; exit 1; }

# stat NAME: one counter of memcached's stats ("STAT cmd_get 1234"), empty
# when it does not answer.
stat() {
    python3 - "$port" "$1" <<'PY' 2>/dev/null
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)
s.sendall(b"stats\r\n")
buf = b""
while not buf.endswith(b"END\r\n"):
    part = s.recv(65536)
    if not part:
        break
    buf += part
for line in buf.decode().split("\r\n"):
    words = line.split()
    if len(words) == 3 and words[:2] == ["STAT", sys.argv[2]]:
        print(words[2])
PY
}

# memcached on a free port of 127.0.0.1, no UDP; as this user (memcached
# refuses to run as root without -u). Its pid in $pid (stopped by
# target_cleanup); waits (at most 10 s) until it answers stats.
port=$(free_port)
memcached -l 127.0.0.1 -p "$port" -U 0 -u "$(id -un)" >"$tmp/memcached.log" 2>&1 &
pid=$!
# memcached_answers: whether memcached answers stats on $port.
memcached_answers() {
    [ -n "$(stat cmd_get)" ]
}
wait_up "memcached on 127.0.0.1:$port" "$pid" "$tmp/memcached.log" memcached_answers
check "memcached starts with no command counted" "0 0" "$(stat cmd_set) $(stat cmd_get)"

cp "$src/config/memcached.ini" "$tmp/memcached.ini"
sed "s/^local PORT = 11211\$/local PORT = $port/" "$src/config/memcached.lua" >"$tmp/memcached.lua"
check "config/memcached.lua names its port on one line, local PORT = 11211" 1 \
    "$(grep -c "^local PORT = $port\$" "$tmp/memcached.lua")"

headless_run mc "$tmp/memcached.ini" --duration 3s
check "3 s at 16 users: exit 0" 0 "$status"
check "3 s at 16 users: no request failed" "errors: none" "$(errors_line mc)"
# command_count KIND: memcached's count of the command a request kind
# names (set: cmd_set).
command_count() {
    stat "cmd_$1"
}
kinds_counted "3 s at 16 users" mc command_count set get
check_ge "some gets found their key (get_hits $(stat get_hits))" 1 "$(stat get_hits)"
checks_held "every set replied STORED" "$tmp/mc.out" "set replied STORED"
checks_held "every get replied the value set (or a miss)" "$tmp/mc.out" "get replied the value set"
finish
