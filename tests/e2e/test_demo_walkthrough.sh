#!/bin/sh
# The README's walkthrough of `brink demo` (A first look), key by key, in a
# private tmux server at 120x40: what each step says the screen shows is
# waited for in capture-pane, and what it says of the target is checked in
# the target's own ground truth (GET /_control and /stats, at the URL the
# header names).
#   1. users 2/2, RUNNING, the Server counters siblings, queue and resets
#   2. ] ] to 8: the mark, the log line, the siblings alert (and the
#      target's reads saw more than 10 siblings)
#   3. ] ] to 32: 503s, http_5xx, first http_5xx at concurrency 32 (and
#      the target sent 503s)
#   4. ] to 64: reset with its message, the probes fail
#   5. [ to 32: the probes are back and the resets counter jumps (the
#      target reset connections and holds no more than 48 again)
#   q: the report
# The step 6 ramp is checked headless in test_breaking.sh. Every wait polls
# until a deadline; the demo is bounded by --duration 120s.
# Usage: sh test_demo_walkthrough.sh BRINK SRCDIR (fails without tmux)
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

need_tmux
target_setup

sock="brink$$-demo"
T="tmux -L $sock -f /dev/null"
trap '$T kill-server 2>/dev/null; target_cleanup' EXIT

# wait_screen PATTERN SECONDS [ARGS...]: polls the pane (capture-pane
# ARGS) until a line matches the grep -E PATTERN; fails after SECONDS (the
# last capture in $tmp/screen).
wait_screen() {
    pattern=$1
    deadline=$(($(now_ms) + $2 * 1000))
    shift 2
    while :; do
        $T capture-pane -p -t s "$@" >"$tmp/screen" 2>/dev/null
        grep -Eq -- "$pattern" "$tmp/screen" && return 0
        [ "$(now_ms)" -ge "$deadline" ] && return 1
        sleep 0.1
    done
}

# expect_screen NAME PATTERN [SECONDS [ARGS...]]: wait_screen as a check
# (10 s).
expect_screen() {
    name=$1 pattern=$2 seconds=${3:-10}
    shift 2
    [ $# -gt 0 ] && shift
    if wait_screen "$pattern" "$seconds" "$@"; then
        ok "$name"
    else
        not_ok "$name" "no line matches /$pattern/; the pane:
$(cat "$tmp/screen")"
    fi
}

users_row() { # USERS
    echo "^users $1/$1( \[[^]]*\])?  "
}

# The demo runs in the test's directory: its session file goes there.
cd "$tmp" || exit 1
# A UTF-8 locale, for the console's glyphs (▲) whatever the caller's.
$T new-session -d -s s -x 120 -y 40 "env LC_ALL=C.UTF-8 '$brink' demo --duration 120s" \; \
    set -g remain-on-exit on \; set -g window-size manual ||
    { not_ok "tmux starts brink demo"; finish; exit 1; }

# 1. The header, the throughput line and the Server counters.
expect_screen "1: the header says users 2/2" "$(users_row 2)"
expect_screen "1: RUNNING and the clock" " RUNNING  [0-9]{2}:[0-9]{2}:[0-9]{2}\$"
expect_screen "1: a throughput of successes above 0" '^ok [1-9][0-9.]*k? req/s'
for probe in siblings queue resets; do
    expect_screen "1: the Server counters show $probe" "^(Errors|status|[!] |  ).* +$probe +[0-9]"
done
url=$(sed -n 's|^brink \(http://127\.0\.0\.1:[0-9]*\)/kv/.*|\1|p' "$tmp/screen" | head -n 1)
[ -n "$url" ] || not_ok "1: the header names the target's URL" "$(head -n 1 "$tmp/screen")"

# 2. ] twice: 4, then 8 users; siblings pile up and its alert fires. A
# mark's label (▲8) needs the columns after it free of other marks (the
# first error's !, an alert's ◆, which may also fall between the two
# marks), so only the marks themselves are sure.
$T send-keys -t s ']'
expect_screen "2: ] doubles to 4, logged" "command +double: concurrency 2 -> 4"
expect_screen "2: the change is marked under the throughput chart" "^ +[!◆ ]*▲"
$T send-keys -t s ']'
expect_screen "2: ] again to 8 users" "$(users_row 8)"
expect_screen "2: the change is logged" "command +double: concurrency 4 -> 8"
expect_screen "2: and marked" "^ +[!◆ ]*▲[0-9!◆ ]*▲"
expect_screen "2: the siblings alert fires in the event log" "alert +siblings alert \(> 10\): [0-9]+" 20
holds "2: the target's reads saw more than 10 siblings" "n > 10" -v n="$(json_get "$url/stats" node_get_fsm_siblings_100)"

# 3. ] twice more: 16, then 32 users; the queue fills and 503s begin.
$T send-keys -t s ']'
expect_screen "3: ] to 16 users" "$(users_row 16)"
$T send-keys -t s ']'
expect_screen "3: ] to 32 users" "$(users_row 32)"
expect_screen "3: the event log says first http_5xx at concurrency 32" "first_error first http_5xx at concurrency 32"
expect_screen "3: the Errors panel counts http_5xx" "^! http_5xx +[0-9.]+k?/s +[0-9.]+k? "
expect_screen "3: the status line counts 503" "^status .*503:[0-9]"
check_ge "3: the target sent 503s" 1 "$(truth responses_503)"

# 4. ] to 64: the target resets connections past 48, the probes' too.
$T send-keys -t s ']'
expect_screen "4: ] to 64 users" "$(users_row 64)"
expect_screen "4: reset appears with its message" "first reset at concurrency 64: connection reset by peer"
expect_screen "4: the Errors panel has a reset row" "^! reset +[0-9.]+k?/s"
expect_screen "4: the resets probe fails" "probe +resets failing: .*[Rr]eset"

# 5. [ to 32: the users that leave close their connections; the probes come
# back and the resets counter jumps.
$T send-keys -t s '['
expect_screen "5: [ halves to 32 users" "$(users_row 32)"
expect_screen "5: the probes come back" "probe +siblings back: " 15
if wait_screen "probe +resets back: [0-9]" 15; then
    n=$(sed -n 's/.*probe  *resets back: \([0-9.]*\).*/\1/p' "$tmp/screen" | tail -n 1)
    holds "5: the resets counter jumps (resets back: N, N > 0)" "n > 0" -v n="$n"
else
    not_ok "5: the resets counter jumps (resets back: N, N > 0)" "$(cat "$tmp/screen")"
fi
check_ge "5: the target reset connections" 1 "$(truth resets_sent)"
# Its own count, less the connection that asks: 32 users and the probes.
open=$(($(truth active_connections) - 1))
holds "5: the target holds no more than 48 connections again" "n <= 48" -v n="$open"

# q: the load stops and the report is printed.
$T send-keys -t s q
expect_screen "q: the report is printed" "^duration [0-9.]+m?s, [0-9,]+ requests" 20 -S -300
finish
