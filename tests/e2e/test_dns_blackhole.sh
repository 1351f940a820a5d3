#!/bin/sh
# A DNS server that never answers must not hold brink: name lookups run off
# the engine's loops, so a 2 s run with a 1 s timeout ends on time, its
# failures are dns (not connect_timeout), and SIGTERM acts at once; an HTTP
# probe at such a name does not hold the stop either, nor do agents at such
# a name (their ssh waiting on the lookup) hold a stop of the start-up.
#
# The script runs itself again in a private network and mount namespace
# (unshare, as root or through a user namespace): there 127.0.0.1:53 is a
# black hole (a UDP and TCP socket that reads and never answers) and
# /etc/resolv.conf, bind-mounted, points at it; brink target listens on
# 127.0.0.1. The machine's network and files are not touched. Where no
# namespace can be made, the test fails and says why: skipping would hide a
# machine that cannot check this.
# Usage: sh test_dns_blackhole.sh BRINK SRCDIR
brink=$1
src=$2

if [ -z "${BRINK_DNS_NS:-}" ]; then
    for flags in -nm -rnm; do
        if unshare $flags true 2>/dev/null; then
            exec unshare $flags env BRINK_DNS_NS="$flags" sh "$0" "$@"
        fi
    done
    echo "FAIL brink runs in a private network namespace"
    echo "     unshare -nm and unshare -rnm both fail: run as root or allow user namespaces"
    echo "0 passed, 1 failed"
    exit 1
fi

. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"
. "$src/tests/e2e/transport_lib.sh"

target_setup
host=blackhole.invalid-name.test
hole=""
# The EXIT trap of target_setup, and the black hole too.
trap 'kill "$hole" 2>/dev/null; target_cleanup' EXIT

transport=setup
if ! ip link set lo up 2>"$tmp/ip.err"; then
    not_ok "loopback is up in the namespace (unshare $BRINK_DNS_NS)" "$(cat "$tmp/ip.err")"
    finish
    exit 1
fi
cat >"$tmp/hole.py" <<'EOF'
import select, socket
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp.bind(("127.0.0.1", 53))
tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
tcp.bind(("127.0.0.1", 53))
tcp.listen(64)
print("ready", flush=True)
held = []
while True:
    for s in select.select([udp, tcp], [], [])[0]:
        if s is udp:
            udp.recvfrom(4096)
        else:
            held.append(tcp.accept()[0])
EOF
python3 "$tmp/hole.py" >"$tmp/hole.out" 2>&1 &
hole=$!
printf 'nameserver 127.0.0.1\n' >"$tmp/resolv.conf"
if ! wait_for "$tmp/hole.out" '^ready$' 10 || ! mount --bind "$tmp/resolv.conf" /etc/resolv.conf; then
    not_ok "a black-hole DNS server answers for /etc/resolv.conf" "$(cat "$tmp/hole.out")"
    finish
    exit 1
fi
# The premise: a lookup of the name hangs (glibc waits 5 s per try).
timeout 2 getent hosts "$host" >/dev/null 2>&1
check "a lookup of $host hangs (getent still waiting after 2 s)" 124 $?

must_start_target --listen 127.0.0.1:0
port=${url##*:}

# classes NAME: the error classes of report $tmp/NAME.out, sorted, on one line.
classes() {
    sed -n '/^errors:/,/^latency of failed/p' "$tmp/$1.out" | awk 'NR > 1 && $1 ~ /^[a-z_0-9]+$/ && $2 ~ /^[0-9,]+$/ { print $1 }' | sort -u | tr '\n' ' '
}

# sigterm_ends_run: SIGTERM to the run $run_pid ends it within 5 s.
sigterm_ends_run() {
    t0=$(now_ms)
    kill -TERM "$run_pid"
    wait "$run_pid"
    took=$(($(now_ms) - t0))
    run_pid=""
    holds "SIGTERM ends the run within 5 s (it took $took ms)" "t < 5000" -v t="$took"
}

for transport in $transports; do
    printf '[target]\nurl = http://%s:%s/\ntransport = %s\ntimeout = 1s\n' "$host" "$port" \
        "$transport" >"$tmp/$transport.ini"

    # A 2 s run with a 1 s timeout: ends close to 2 s (before the fix, each
    # request held the loop for the whole lookup and the run took 20 s).
    t0=$(now_ms)
    timeout 60 "$brink" run --headless --no-record --config "$tmp/$transport.ini" --duration 2s \
        --concurrency 4 </dev/null >"$tmp/$transport.out" 2>"$tmp/$transport.err"
    status=$?
    took=$(($(now_ms) - t0))
    check "a run whose every request fails ends with the verdict status" 3 "$status"
    holds "the 2 s run ends within 10 s (it took $took ms)" "t < 10000" -v t="$took"
    check "its failures are all dns" "dns " "$(classes "$transport")"

    # SIGTERM while every request waits for a lookup: the stop drains them
    # within their 1 s timeout.
    timeout 60 "$brink" run --headless --no-record --config "$tmp/$transport.ini" --duration 30s \
        --concurrency 4 </dev/null >"$tmp/$transport.term.out" 2>"$tmp/$transport.term.err" &
    run_pid=$!
    if wait_for "$tmp/$transport.term.err" '^t=1s ' 10; then
        sigterm_ends_run
    else
        not_ok "the run shows its first tick" "$(tail -n 3 "$tmp/$transport.term.err")"
    fi
done

# An HTTP probe at the name, beside a load that works: its fetches time out
# at 1 s, and a stop does not wait for the lookup.
transport=probe
printf '[target]\nurl = http://127.0.0.1:%s/bytes/10\n[probe s]\ntype = json\nurl = http://%s:%s/stats\npointer = /x\ninterval = 1s\ntimeout = 1s\n' \
    "$port" "$host" "$port" >"$tmp/probe.ini"
timeout 60 "$brink" run --headless --no-record --config "$tmp/probe.ini" --duration 30s \
    --concurrency 1 </dev/null >"$tmp/probe.out" 2>"$tmp/probe.err" &
run_pid=$!
expect_line "the probe fails at its 1 s timeout" "$tmp/probe.err" 'probe: s failing: Resolving timed out' 10
sigterm_ends_run

# A run with agents at the name: their ssh waits on the lookup. SIGTERM 1 s
# into it ends the run within 2 s, with a complete session of no ticks
# (before, the coordinator took no signal until ssh gave up).
transport=agents
command -v ssh >/dev/null 2>&1 || not_ok "ssh is installed" "run scripts/install-deps"
printf '[target]\nurl = http://127.0.0.1:%s/\n[load]\nduration = 30s\n[agents]\nhosts = %s\n' "$port" \
    "$host" >"$tmp/agents.ini"
timeout 60 "$brink" run --headless --config "$tmp/agents.ini" --record "$tmp/agents.jsonl" \
    </dev/null >"$tmp/agents.out" 2>"$tmp/agents.err" &
run_pid=$!
# ssh_child: the ssh brink started (brink runs under timeout, $run_pid).
ssh_child() {
    for b in $(pgrep -P "$run_pid"); do pgrep -x -P "$b" ssh; done
}
i=0
while [ -z "$(ssh_child)" ] && [ $i -lt 200 ]; do
    sleep 0.05
    i=$((i + 1))
done
if [ -n "$(ssh_child)" ]; then
    sleep 1 # the issue's case: the stop comes 1 s into the lookup
    t0=$(now_ms)
    kill -TERM "$run_pid"
    wait "$run_pid"
    took=$(($(now_ms) - t0))
    run_pid=""
    holds "SIGTERM 1 s into the agents' lookup ends the run within 2 s (it took $took ms)" "t < 2000" -v t="$took"
    check "the session is complete, with no ticks" '"ticks":0,"complete":true' \
        "$(grep -o '"ticks":[0-9]*,"complete":[a-z]*' "$tmp/agents.jsonl" 2>/dev/null)"
else
    not_ok "the coordinator starts ssh for its agent" "$(cat "$tmp/agents.err")"
fi

stop_target
finish
