#!/bin/sh
# The progress gauge of a bounded run (issue 31), against brink target on
# 127.0.0.1:
#   - headless, -z 3s: every progress line ends with "Ns/3s P% left Ls",
#     the last one with "Ns/3s 100%"; a replay of its session prints the
#     same gauges
#   - headless, -n 2000: every line ends with "N/2000 req P% left ...", the
#     count never goes down, the last line is "2000/2000 req 100%", and the
#     target counted 2000 requests
#   - headless, --duration 0 (no end): no gauge
#   - the console at 80x24, -z 20s: the header's first row shows the gauge
#     "Ns/20s P% left Ls" with the whole target and the state and clock
# Every load is bounded in time; the script takes about 15 s.
# Usage: sh test_progress_gauge.sh BRINK SRCDIR (fails without tmux)
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

need_tmux
target_setup
sock="brink$$-gauge"
trap 'tmux -L "$sock" kill-server 2>/dev/null; target_cleanup' EXIT

must_start_target --seed 3

# lines NAME: the progress lines (t=...) of a run's stderr.
lines() {
    grep -E '^t=[0-9]+s ' "$tmp/$1.err"
}

# all_match NAME FILE PATTERN: every line of FILE matches the grep -E PATTERN
# (and there is at least one).
all_match() {
    n=$(wc -l <"$2")
    bad=$(grep -Evc -- "$3" "$2")
    if [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]; then
        ok "$1"
    else
        not_ok "$1" "$bad of $n lines do not match /$3/: $(grep -Ev -- "$3" "$2" | head -n 2)"
    fi
}

# --- a duration run ---------------------------------------------------------------------
timeout 30 "$brink" run --headless --url "$url/bytes/16" -c 2 -z 3s --record "$tmp/z.jsonl" \
    >"$tmp/z.out" 2>"$tmp/z.err" </dev/null
check "a -z 3s run exits 0" 0 $?
lines z >"$tmp/z.lines"
# The running ones: a tick the stop began in says "stopping" and has no time left.
head -n -1 "$tmp/z.lines" | grep -v ' stopping ' >"$tmp/z.running"
all_match "each running line of a -z 3s run ends with its gauge of 3s" "$tmp/z.running" \
    ' [0-9]+s/3s [0-9]+% left [0-9]+s$'
check "the last line of a -z 3s run ends with its gauge at 100%, no time left" "/3s 100%" \
    "$(tail -n 1 "$tmp/z.lines" | grep -Eo '/3s [0-9]+%$')"
check "the gauge comes after the line's own fields" 0 \
    "$(grep -Evc '^t=[0-9]+s c=[0-9]+(/2)? inflight=[0-9]+ .* err ([0-9.<]+%|-)( stopping)? [0-9]+s/3s ' "$tmp/z.lines")"
timeout 30 "$brink" replay "$tmp/z.jsonl" --headless >"$tmp/replay.out" 2>"$tmp/replay.err" </dev/null
lines replay >"$tmp/replay.lines"
check_ge "a replay of the -z 3s session prints gauges" 3 \
    "$(grep -Ec ' [0-9]+s/3s [0-9]+%( left [0-9]+s)?$' "$tmp/replay.lines")"
check "a replay of the -z 3s session prints the same gauges" \
    "$(grep -Eo ' [0-9]+s/3s [0-9]+%( left [0-9]+s)?$' "$tmp/z.lines")" \
    "$(grep -Eo ' [0-9]+s/3s [0-9]+%( left [0-9]+s)?$' "$tmp/replay.lines")"

# --- a count run -------------------------------------------------------------------------
before=$(truth requests_total)
timeout 30 "$brink" run --headless --url "$url/delay/2" -c 4 -n 2000 >"$tmp/n.out" \
    2>"$tmp/n.err" </dev/null
check "a -n 2000 run exits 0" 0 $?
lines n >"$tmp/n.lines"
head -n -1 "$tmp/n.lines" | grep -v ' stopping ' >"$tmp/n.running"
all_match "each running line of a -n 2000 run ends with its count gauge" "$tmp/n.running" \
    ' [0-9]+/2000 req [0-9]+% left (~[0-9hms]+|\?|0s)$'
check "the last line of a -n 2000 run ends with 2000/2000 req 100%" "2000/2000 req 100%" \
    "$(tail -n 1 "$tmp/n.lines" | grep -Eo '[0-9]+/2000 req [0-9]+%$')"
check "the count never goes down" "" \
    "$(grep -Eo '[0-9]+/2000 req' "$tmp/n.lines" | awk '$1 + 0 < last { print "down at " $1 } { last = $1 + 0 }')"
after=$(truth requests_total)
# The first /_control call is counted after its answer, so it is in "after".
check "the target counted the 2000 requests" 2000 $((after - before - 1))

# --- a run without an end -----------------------------------------------------------------
"$brink" run --headless --url "$url/bytes/16" -c 1 --duration 0 >"$tmp/u.out" 2>"$tmp/u.err" \
    </dev/null &
run_pid=$!
wait_count "$tmp/u.err" '^t=[0-9]+s ' 2 10
# SIGTERM: an asynchronous list of a non-interactive shell may start with
# SIGINT ignored.
kill -TERM "$run_pid"
deadline=$(($(now_ms) + 15000))
while kill -0 "$run_pid" 2>/dev/null && [ "$(now_ms)" -lt "$deadline" ]; do
    sleep 0.05
done
kill -9 "$run_pid" 2>/dev/null
wait "$run_pid"
run_pid=""
lines u >"$tmp/u.lines"
check_ge "a run without an end printed progress lines" 2 "$(wc -l <"$tmp/u.lines")"
check "a run without an end shows no gauge" 0 "$(grep -Ec ' left |/[0-9]+s [0-9]+%| req [0-9]+%' "$tmp/u.lines")"

# --- the console at 80x24 -----------------------------------------------------------------
T="tmux -L $sock -f /dev/null"
$T new-session -d -s s -x 80 -y 24 \
    "'$brink' run --url '$url/bytes/16' -c 2 -z 20s --no-record; sleep 30" \; \
    set -g window-size manual
deadline=$(($(now_ms) + 10000))
want="^brink http://127\.0\.0\.1:[0-9]+/bytes/16 .* [0-9]+s/20s [0-9]+% left [0-9]+s  RUNNING  [0-9]{2}:[0-9]{2}:[0-9]{2}\$"
while :; do
    $T capture-pane -p -t s >"$tmp/screen" 2>/dev/null
    head -n 1 "$tmp/screen" | grep -Eq -- "$want" && break
    [ "$(now_ms)" -ge "$deadline" ] && break
    sleep 0.05
done
if head -n 1 "$tmp/screen" | grep -Eq -- "$want"; then
    ok "at 80x24 the header shows the gauge of a -z 20s run beside the target, state and clock"
else
    not_ok "at 80x24 the header shows the gauge of a -z 20s run beside the target, state and clock" \
        "$(head -n 1 "$tmp/screen")"
fi
check "the header's row fits 80 columns" 80 "$(head -n 1 "$tmp/screen" | wc -L)"
$T send-keys -t s q
$T kill-server 2>/dev/null

finish
