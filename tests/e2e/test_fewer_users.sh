#!/bin/sh
# Fewer users, fewer connections: after the users go from 64 down to 16,
# brink target's own count of open connections (GET /_control, ground
# truth) falls to 16, on both transports, whether the users that leave
# were waiting for a reply or thinking; and the 16 left go on without an
# error. A server that caps its connections (the demo's target resets
# every one past 48) gets them back.
# Usage: sh test_fewer_users.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup
must_start_target

# open_now: the target's open connections, less the one that asks.
open_now() {
    n=$(curl -s "$url/_control" | sed -n 's/^ *"active_connections": *\([0-9]*\).*/\1/p')
    echo $((${n:-0} - 1))
}

# wait_open N SECONDS: polls until the target has N connections open;
# fails after SECONDS, with the count last seen in $open.
wait_open() {
    deadline=$(($(now_ms) + $2 * 1000))
    while open=$(open_now) && [ "$open" != "$1" ]; do
        [ "$(now_ms)" -ge "$deadline" ] && return 1
        sleep 0.1
    done
}

# fewer NAME TRANSPORT THINK: 64 users, then 16 (then 64 again when they
# do not think).
fewer() {
    name=$1
    printf '[target]\nurl = %s/bytes/13\ntransport = %s\n\n[load]\nthink_time = %s\n' \
        "$url" "$2" "$3" >"$tmp/$name.ini"
    rm -f "$tmp/$name.cmds"
    mkfifo "$tmp/$name.cmds"
    timeout 60 "$brink" run --headless --no-record --config "$tmp/$name.ini" --concurrency 64 \
        --duration 0 <"$tmp/$name.cmds" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    run_pid=$!
    exec 3>"$tmp/$name.cmds"
    if wait_open 64 20; then ok "$name: 64 users hold 64 connections"; else not_ok "$name: 64 users hold 64 connections" "the target has $open open"; fi
    echo "concurrency 16" >&3
    if wait_open 16 10; then ok "$name: down to 16 users, the target has 16 connections open"; else not_ok "$name: down to 16 users, the target has 16 connections open" "it still has $open"; fi
    # Users that think need no connection meanwhile with curl, whose
    # connections are shared: only busy users are sure to hold 64.
    if [ "$3" = 0 ]; then
        echo "concurrency 64" >&3
        if wait_open 64 10; then ok "$name: back to 64 users, 64 connections again"; else not_ok "$name: back to 64 users, 64 connections again" "the target has $open open"; fi
    fi
    echo "stop" >&3
    exec 3>&-
    wait "$run_pid"
    st=$?
    run_pid=""
    if [ "$st" -eq 0 ] && [ "$(errors_line "$name")" = "errors: none" ]; then
        ok "$name: the run ends with status 0 and no error"
    else
        not_ok "$name: the run ends with status 0 and no error" "exit $st; $(errors_line "$name"); $(head -c 300 "$tmp/$name.err")"
    fi
}

for transport in h1 curl; do
    fewer "$transport-busy" "$transport" 0
    fewer "$transport-thinking" "$transport" 300ms
done

stop_target
check "the target stops cleanly" 0 "$stop_status"
finish
