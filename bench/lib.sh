# Shared set-up for the benchmarks in bench/: sourced, never run (`make
# bench` skips it). A script sets `prog` (the prefix of its messages), cds to
# the top of the repository and sources it:
#
#   prog=vs-wrk
#   cd "$(dirname "$0")/.." || exit 1
#   . ./bench/lib.sh
#
# POSIX sh (dash) only. Everything listens on and loads 127.0.0.1, and every
# wait below is bounded.
#
# What it gives:
#   die MESSAGE...        "$prog: MESSAGE" on stderr, exit 1
#   find_brink            sets brink: $BRINK, else build/release/brink
#                         (the release build); dies when it is not executable
#   need_two_cores WHAT   dies unless there are 2 cores; WHAT says what runs
#                         where, e.g. "server on core 0, wrk on core 1"
#   bench_tmp             makes the temporary directory $tmp (mode 755, so
#                         nginx's worker can read it) and installs the
#                         cleanup trap: on exit, client_pid, then target_pid,
#                         then nginx_pid are killed and waited for (each when
#                         set; clear one once you have waited for it) and
#                         $tmp is removed; SIGINT and SIGTERM exit 1
#   free_port             prints a free TCP port on 127.0.0.1
#   wait_url URL          polls until URL answers (curl), at most 10 s
#   start_nginx PATH      serves $tmp/www (the caller fills it) on 127.0.0.1
#                         (config: scripts/nginx-conf, shared with the tests)
#                         with one worker, keep-alive and no access log,
#                         nginx in the foreground pinned to core 0; sets
#                         nginx_pid and nginx_port and waits until
#                         http://127.0.0.1:$nginx_port/PATH answers; dies
#                         (with nginx's error log) when it does not
#   start_target CORE [ARG...]
#                         `brink target --listen 127.0.0.1:0 ARG...`, pinned
#                         to CORE with taskset (CORE "-": not pinned), its
#                         stdout in $tmp/target.out; sets target_pid and
#                         target_url (its first line, polled at most 10 s);
#                         dies when no URL comes
#   print_machine         "machine: ..." and "date: ..." lines

prog=${prog:-bench}
tmp=""
nginx_pid=""
target_pid=""
client_pid=""

die() {
    echo "$prog: $*" >&2
    exit 1
}

find_brink() {
    brink=${BRINK:-}
    for b in build/release/brink; do
        [ -z "$brink" ] && [ -x "$b" ] && brink=$b
    done
    if [ -z "$brink" ] || [ ! -x "$brink" ]; then
        die "no brink binary; run 'make release' or set BRINK"
    fi
}

need_two_cores() {
    [ "$(nproc)" -ge 2 ] || die "needs 2 cores ($1), have $(nproc)"
}

# stop_pid PID: kills PID (when set) and waits for it.
stop_pid() {
    [ -n "$1" ] && kill "$1" 2>/dev/null && wait "$1" 2>/dev/null
}

cleanup() {
    stop_pid "$client_pid"
    stop_pid "$target_pid"
    stop_pid "$nginx_pid"
    [ -n "$tmp" ] && rm -rf "$tmp"
}

bench_tmp() {
    tmp=$(mktemp -d) || die "mktemp failed"
    chmod 755 "$tmp"
    trap cleanup EXIT
    trap 'exit 1' INT TERM
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_url() {
    i=0
    while ! curl -s -o /dev/null "$1"; do
        i=$((i + 1))
        [ $i -gt 200 ] && return 1
        sleep 0.05
    done
}

start_nginx() {
    mkdir -p "$tmp/www" "$tmp/logs"
    nginx_port=$(free_port)
    sh scripts/nginx-conf "$tmp" "$nginx_port" >"$tmp/nginx.conf"
    taskset -c 0 nginx -p "$tmp" -c "$tmp/nginx.conf" &
    nginx_pid=$!
    if ! wait_url "http://127.0.0.1:$nginx_port/$1"; then
        echo "$prog: nginx did not start" >&2
        cat "$tmp/logs/error.log" >&2
        exit 1
    fi
}

start_target() {
    core=$1
    shift
    : >"$tmp/target.out"
    if [ "$core" = - ]; then
        "$brink" target --listen 127.0.0.1:0 "$@" >"$tmp/target.out" &
    else
        taskset -c "$core" "$brink" target --listen 127.0.0.1:0 "$@" >"$tmp/target.out" &
    fi
    target_pid=$!
    i=0
    while [ $i -lt 200 ]; do
        target_url=$(head -n 1 "$tmp/target.out")
        [ -n "$target_url" ] && return 0
        kill -0 "$target_pid" 2>/dev/null || break
        sleep 0.05
        i=$((i + 1))
    done
    die "brink target did not start"
}

print_machine() {
    model=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n 1)
    echo "machine: $(nproc) cores, ${model:-unknown model}, $(uname -sr)"
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
}
