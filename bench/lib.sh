# Shared set-up for the benchmarks in bench/: sourced, never run (`make
# bench` skips it). A script sets `prog` (the prefix of its messages), cds to
# the top of the repository and sources it:
#
#   prog=vs-wrk
#   cd "$(dirname "$0")/.." || exit 1
#   . ./bench/lib.sh
#
# POSIX sh (dash) only. Everything listens on and loads 127.0.0.1 (or, for
# bench/agents.sh, network namespaces of its own), and every wait below is
# bounded.
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
#                         dies when no URL comes. A caller may set
#                         target_listen (another ADDR:PORT) and target_in
#                         (words that run the target elsewhere, such as
#                         "ip netns exec NS", left unquoted) first
#   print_machine         "machine: ..." and "date: ..." lines
#   bench_times FILE      sets el, us, sy (wall, user, system seconds) from
#                         the last line of FILE, written by /usr/bin/time -f
#                         '%e %U %S' (0 when the line is missing)
#   bench_median FILE COLUMN
#                         prints the median of that column of FILE (0 when
#                         FILE is empty or missing)
#   proc_ticks PID        prints the CPU ticks (user + system, 1/CLK_TCK s)
#                         used so far by PID and its children that still run
#                         (nginx's master: its worker), for a server's CPU use
#                         over a run: ticks after - ticks before
#   bench_client CMD...   one timed client run against nginx: CMD on core 1
#                         (taskset), killed 5 s after $limit seconds (the
#                         caller sets limit), its stdout in $tmp/run.out and
#                         stderr in $tmp/run.err; sets rc (its exit status),
#                         el, us, sy (bench_times) and ngx: nginx's CPU use
#                         over the run (nginx_pid, or server_pid when that is
#                         unset), percent of one core
#   bench_brink_report KEY
#                         reads the brink report in $tmp/run.out (after
#                         bench_client ran brink): sets first (its first
#                         line), n (the requests it counted, empty when
#                         none) and errline (its "errors:" line); when rc is
#                         not 0, n is empty or errline is not "errors:
#                         none", appends "KEY brink: exit ...; errline" and
#                         brink's first 3 lines of stderr (progress lines
#                         aside) to $tmp/problems
#   bench_notes WHAT      after the tables: $tmp/notes, each line as
#                         "note: ...", then $tmp/problems under "runs with
#                         WHAT:" (each when not empty)
#   tls_bench_nginx       HTTPS nginx for a benchmark, from tests/tls/lib.sh:
#                         certificates in $tmp/tls (ca.pem trusts them), one
#                         worker pinned to core 0, no access log; sets
#                         nginx_pid (so the cleanup stops it), tls_port_good
#                         (TLS 1.2/1.3, h2 and http/1.1), tls_port_h2c;
#                         files 13 and 133k; dies when it does not start

prog=${prog:-bench}
tmp=""
nginx_pid=""
target_pid=""
client_pid=""
server_pid=""

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
    stop_pid "$server_pid"
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
        ${target_in:-} "$brink" target --listen "${target_listen:-127.0.0.1:0}" "$@" >"$tmp/target.out" &
    else
        taskset -c "$core" ${target_in:-} "$brink" target --listen "${target_listen:-127.0.0.1:0}" "$@" \
            >"$tmp/target.out" &
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

bench_times() {
    el=$(tail -n 1 "$1" 2>/dev/null | awk 'NF == 3 { print $1 }')
    us=$(tail -n 1 "$1" 2>/dev/null | awk 'NF == 3 { print $2 }')
    sy=$(tail -n 1 "$1" 2>/dev/null | awk 'NF == 3 { print $3 }')
    el=${el:-0} us=${us:-0} sy=${sy:-0}
}

bench_median() {
    [ -s "$1" ] || { echo 0; return; }
    sort -g -k "$2,$2" "$1" | awk -v k="$2" '{ v[NR] = $k } END {
        print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

proc_ticks() {
    # Names of their own: sh has no local variables, and callers loop over
    # t, p and the like.
    pt_sum=0
    for pt_pid in $1 $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        # Fields 14 and 15 of /proc/PID/stat, counted after the ")" that
        # ends the command name (which may hold blanks).
        pt_v=$(sed 's/.*) //' /proc/"$pt_pid"/stat 2>/dev/null | awk '{ print $12 + $13 }')
        pt_sum=$((pt_sum + ${pt_v:-0}))
    done
    echo "$pt_sum"
}

tls_bench_nginx() {
    . ./tests/tls/lib.sh
    mkdir -p "$tmp/tls"
    tls_setup "$tmp/tls" . || die "the TLS fixture cannot run"
    tls_make_certs || die "could not make the certificates"
    TLS_NGINX_CPU=0 TLS_ACCESS_LOG=off tls_nginx_start || die "nginx over TLS did not start"
    nginx_pid=$tls_nginx_pid
}

bench_client() {
    bc_hz=$(getconf CLK_TCK)
    bc_pid=${nginx_pid:-$server_pid}
    bc_n0=$(proc_ticks "$bc_pid")
    timeout -k 5 "$limit" taskset -c 1 /usr/bin/time -o "$tmp/time" -f '%e %U %S' \
        "$@" >"$tmp/run.out" 2>"$tmp/run.err"
    rc=$?
    bench_times "$tmp/time"
    ngx=$(awk -v a="$bc_n0" -v b="$(proc_ticks "$bc_pid")" -v hz="$bc_hz" -v el="$el" 'BEGIN {
        printf "%.0f", (el > 0 ? (b - a) / hz / el * 100 : 0) }')
}

bench_brink_report() {
    first=$(head -n 1 "$tmp/run.out")
    n=$(echo "$first" | awk '$1 == "duration" { gsub(",", "", $3); print $3 }')
    errline=$(grep -m 1 '^errors:' "$tmp/run.out")
    if [ "$rc" -ne 0 ] || [ -z "$n" ] || [ "$errline" != "errors: none" ]; then
        echo "$1 brink: exit $rc; ${errline:-no errors line}" >>"$tmp/problems"
        grep -v '^t=' "$tmp/run.err" | head -n 3 | sed 's/^/    stderr: /' >>"$tmp/problems"
    fi
}

bench_notes() {
    if [ -s "$tmp/notes" ]; then
        echo
        sed 's/^/note: /' "$tmp/notes"
    fi
    if [ -s "$tmp/problems" ]; then
        echo
        echo "runs with $1:"
        sed 's/^/  /' "$tmp/problems"
    fi
}
