#!/bin/sh
# The console (issue 5, first "Done when" bullet): the real binary in a
# private tmux server at a fixed size, against brink target on 127.0.0.1.
# Every wait polls `capture-pane` (or a pid, or tmux's pane state) until a
# deadline; the only timing assertion is the issue's 2 s exit after a
# hang-up (allowed 2.5 s here, for the polling).
#   - req/s > 0 appears; `]` doubles the users in the header and in-flight
#     follows; `=` 7 Enter sets 7; `p` pauses (0.0 req/s, PAUSED) and `p`
#     resumes; `w` shows where the time goes (a ttfb row, connections) and
#     `w` again the latency; `?` lists the keys; `q` exits 0 and the report
#     is printed
#   - resizes to 1x1, 20x5, 80x24 and 200x60: alive, and the compact line at
#     20x5, the full layout at 80x24 and 200x60
#   - TERM=vt100 NO_COLOR=1 (and the C locale): ASCII glyphs, no colour
#   - the breaking point: a target of one worker and no queue answers most
#     requests with a fast 503; the throughput line leads with the
#     successes, at most the worker's 20/s, and the failures apart
#   - tmux kill-server (SIGHUP): brink is gone within 2 s
#   - hostile headers and malformed status lines from the target: none of
#     the target's escapes reach the pane (capture-pane -e, the pane title),
#     and hostile text typed into a mark note is shown escaped
#   - tests/e2e/pty_console.py on a raw pty: termios restored after `q`, a
#     closed master (SIGHUP ignored, or no controlling tty) ends brink within
#     2 s without spinning, the raw stream holds no hostile escape, and a
#     SIGSEGV leaves the terminal as it was and still reaches the previous
#     handler (a sanitizer's report, or death by the signal)
# Every load is bounded (--duration 30s); the script takes about 30 s.
# Usage: sh test_console.sh BRINK SRCDIR (fails without tmux)
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

need_tmux
target_setup

# One private tmux server per scenario (socket brinkNNN-NAME); every one is
# killed on exit, before target_setup's clean-up.
servers=""
cleanup_all() {
    for s in $servers; do tmux -L "$s" kill-server 2>/dev/null; done
    target_cleanup
}
trap cleanup_all EXIT

esc=$(printf '\033')

# console NAME COLS ROWS ENV... : starts `brink run` in a new tmux server
# ($T, session s) at COLS x ROWS, against $url/bytes/16 at concurrency 2,
# ENV (VAR=value words) in its environment. The pane runs $tmp/pane.sh:
# brink's pid goes to $tmp/NAME.pid (an inner sh writes its own pid, then
# execs env, which execs brink) and its exit status to $tmp/NAME.status
# (tmux 3.3a leaves #{pane_dead_status} empty here). The pane stays after
# brink exits (remain-on-exit) so the report can be read; the window keeps
# the size it is given (window-size manual).
console() {
    name=$1 cols=$2 rows=$3
    shift 3
    sock="brink$$-$name"
    servers="$servers $sock"
    T="tmux -L $sock -f /dev/null"
    rm -f "$tmp/$name.pid" "$tmp/$name.status"
    # One command sequence: the options are set before the server's loop
    # runs again, so before the pane's command can have exited.
    $T new-session -d -s s -x "$cols" -y "$rows" \
        "sh $tmp/pane.sh $tmp/$name '$brink' $url/bytes/16 $*" \; \
        set -g remain-on-exit on \; set -g window-size manual || return 1
    deadline=$(($(now_ms) + 5000))
    while [ ! -s "$tmp/$name.pid" ] && [ "$(now_ms)" -lt "$deadline" ]; do
        sleep 0.05
    done
    bpid=$(cat "$tmp/$name.pid" 2>/dev/null)
    [ -n "$bpid" ]
}

# exit_status NAME SECONDS: brink's exit status once pane.sh wrote it.
exit_status() {
    deadline=$(($(now_ms) + $2 * 1000))
    while [ ! -s "$tmp/$1.status" ] && [ "$(now_ms)" -lt "$deadline" ]; do
        sleep 0.05
    done
    cat "$tmp/$1.status" 2>/dev/null
}

# screen [ARGS...]: the pane's text into $tmp/screen (capture-pane ARGS).
screen() {
    $T capture-pane -p -t s "$@" >"$tmp/screen" 2>/dev/null
}

# wait_screen PATTERN SECONDS: polls the pane until a line matches the
# grep -E PATTERN; fails after SECONDS (the last capture stays in $tmp/screen).
wait_screen() {
    deadline=$(($(now_ms) + $2 * 1000))
    while :; do
        screen
        grep -Eq -- "$1" "$tmp/screen" && return 0
        [ "$(now_ms)" -ge "$deadline" ] && return 1
        sleep 0.05
    done
}

# expect_screen NAME PATTERN [SECONDS]: wait_screen as a check (5 s).
expect_screen() {
    if wait_screen "$2" "${3:-5}"; then
        ok "$1"
    else
        not_ok "$1" "no line matches /$2/; the pane:
$(cat "$tmp/screen")"
    fi
}

# alive: brink's process exists and is not a zombie.
alive() {
    [ -r "/proc/$bpid/stat" ] && ! sed 's/.*) //' "/proc/$bpid/stat" | grep -q '^Z'
}

check_alive() {
    if alive; then ok "$1"; else not_ok "$1" "brink (pid $bpid) is gone"; fi
}

# pane FORMAT: a tmux format of the pane, e.g. #{pane_dead}.
pane() {
    $T display-message -p -t s "$1"
}

# wait_dead SECONDS: polls until the pane's command has exited.
wait_dead() {
    deadline=$(($(now_ms) + $1 * 1000))
    while [ "$(pane '#{pane_dead}')" != 1 ]; do
        [ "$(now_ms)" -ge "$deadline" ] && return 1
        sleep 0.05
    done
}

# resize COLS ROWS
resize() {
    $T resize-window -t s -x "$1" -y "$2"
}

# The header's second row, with or without a pending mark such as [x2 sent].
users_row() { # ACTUAL TARGET IN_FLIGHT
    echo "^users $1/$2( \[[^]]*\])?  in flight $3( |\$)"
}
# A rate of successes above zero at the start of the throughput panel: 12,
# 0.5, 12.3k.
nonzero_rate='^ok (0\.[0-9]*[1-9][0-9]*|[1-9][0-9]*(\.[0-9]+)?)[kMG]? req/s'
keys_line='^\+/- step  \]/\[ x2 /2  = set  p pause  r ramp  t steps  \? help  q quit'

# pane.sh PREFIX BRINK URL ENV... [-- ARGS...]: brink run in a tmux pane (see
# console), ARGS added to its command line.
cat >"$tmp/pane.sh" <<'PANE'
prefix=$1 brink=$2 url=$3
shift 3
envs=""
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    envs="$envs $1"
    shift
done
[ "${1:-}" = -- ] && shift
# shellcheck disable=SC2086 # one VAR=value a word
sh -c 'echo $$ >"$0.pid.new" && mv "$0.pid.new" "$0.pid" && exec "$@"' "$prefix" \
    env $envs "$brink" run --url "$url" --concurrency 2 --duration 30s "$@"
echo $? >"$prefix.status.new" && mv "$prefix.status.new" "$prefix.status"
PANE

must_start_target --seed 5

# --- keys, resizes and q at 80x24 ----------------------------------------------------
if console keys 80 24; then
    expect_screen "the header names the target and RUNNING" \
        "^brink http://127\.0\.0\.1:[0-9]+/bytes/16 .* RUNNING  [0-9]{2}:[0-9]{2}:[0-9]{2}\$"
    expect_screen "req/s above 0 appears" "$nonzero_rate"
    expect_screen "the header shows 2 users, 2 in flight" "$(users_row 2 2 2)"
    expect_screen "the key line is at the bottom" "$keys_line"
    expect_screen "the panels are drawn" "^Errors .*Server counters"

    $T send-keys -t s ']'
    expect_screen "] doubles the users in the header (4/4) and in-flight follows" \
        "$(users_row 4 4 4)"
    expect_screen "] is in the event log" "command +double: concurrency 2 -> 4"

    $T send-keys -t s '='
    expect_screen "= opens the concurrency prompt" "concurrency: _"
    $T send-keys -t s 7 Enter
    expect_screen "= 7 Enter sets 7 users, 7 in flight" "$(users_row 7 7 7)"
    expect_screen "= 7 is in the event log" "set_concurrency: concurrency 4 -> 7"

    $T send-keys -t s p
    expect_screen "p pauses: PAUSED in the header" " PAUSED  [0-9:]{8}\$"
    expect_screen "p pauses: req/s reaches 0" "^ok 0\.0 req/s  failed 0/s"
    expect_screen "p pauses: nothing in flight" "$(users_row 0 7 0)"
    $T send-keys -t s p
    expect_screen "p again resumes: RUNNING" " RUNNING  [0-9:]{8}\$"
    expect_screen "p again resumes: req/s above 0" "$nonzero_rate"
    expect_screen "p again resumes: 7 in flight" "$(users_row 7 7 7)"

    $T send-keys -t s w
    expect_screen "w shows where the time goes in the latency panel" \
        "Where the time goes \(w: latency\)"
    expect_screen "w: every request has its time to first byte" " ttfb +[1-9][0-9]* +[0-9.]+(us|ms|s) "
    expect_screen "w: the phase view counts the connections open" "connections [0-9]+ open, "
    expect_screen "the header counts the connections" "  conns [0-9]+ \+[0-9.]+[kMG]?/s  "
    $T send-keys -t s w
    expect_screen "w again goes back to the latency" "Latency of successes"

    $T send-keys -t s '?'
    expect_screen "? opens the help, which lists the keys" "drop N connections mid-transfer"
    expect_screen "the help lists w" " w +where the time goes: dns, connect, tls, first byte"
    expect_screen "the help's longest line shows whole" \
        " - +one step fewer \(surplus users finish first; open: less rate\) "
    $T send-keys -t s Space
    if wait_screen "drop N connections mid-transfer" 0; then
        # Poll for it to go.
        deadline=$(($(now_ms) + 5000))
        while grep -q "drop N connections" "$tmp/screen" && [ "$(now_ms)" -lt "$deadline" ]; do
            sleep 0.05
            screen
        done
    fi
    if grep -q "drop N connections" "$tmp/screen"; then
        not_ok "any key closes the help" "$(cat "$tmp/screen")"
    else
        ok "any key closes the help"
    fi

    # A 1x1 window: curses cannot write its one cell (the bottom-right
    # corner) on an auto-margin terminal, so the pane stays blank; brink
    # must live and keep taking keys: [ halves the users there.
    resize 1 1
    check "the pane is 1x1" "1x1" "$(pane '#{pane_width}x#{pane_height}')"
    check_alive "brink is alive at 1x1"
    $T send-keys -t s '['
    resize 20 5
    expect_screen "at 20x5 the compact line shows the rate" "^ok [0-9.]+[kMG]?/s failed "
    check_alive "brink is alive at 20x5"
    lines=$(grep -c '[^ ]' "$tmp/screen")
    check "at 20x5 only the compact line is drawn" 1 "$lines"
    resize 80 24
    expect_screen "back at 80x24 the full layout: throughput" "$nonzero_rate"
    # [ typed at 1x1 took effect: 7 -> 3 (the engine rounds down).
    expect_screen "back at 80x24: [ typed at 1x1 was applied" "halve: concurrency 7 -> [0-9]+"
    halved=$(sed -n 's/.*halve: concurrency 7 -> \([0-9]*\).*/\1/p' "$tmp/screen" | head -n 1)
    expect_screen "back at 80x24 the full layout: header with the halved users" \
        "$(users_row "$halved" "$halved" "$halved")"
    expect_screen "back at 80x24 the full layout: key line" "$keys_line"
    check "back at 80x24 the pane is 80x24" "80x24" "$(pane '#{pane_width}x#{pane_height}')"
    resize 200 60
    # The header's clock ends at the right edge of the wider window.
    expect_screen "at 200x60 the header spans the window" \
        "^brink .{150,} RUNNING  [0-9]{2}:[0-9]{2}:[0-9]{2}\$"
    expect_screen "at 200x60 the full layout: throughput" "$nonzero_rate"
    expect_screen "at 200x60 the full layout: key line" "$keys_line"
    check_alive "brink is alive at 200x60"
    resize 80 24
    expect_screen "the full layout once more at 80x24" "$keys_line"

    $T send-keys -t s q
    if wait_dead 15; then
        ok "q ends brink"
        check "q exits with status 0" 0 "$(exit_status keys 5)"
        screen -S -
        if grep -Eq '^duration [0-9.]+[a-z]+, [0-9,]+ requests, ok [0-9,.]+ req/s' "$tmp/screen"; then
            ok "q prints the final report on the terminal"
        else
            not_ok "q prints the final report on the terminal" "$(cat "$tmp/screen")"
        fi
        # The report has what the keys did: the range of target users and
        # each command, in order.
        check "the report gives the target users' range" 1 \
            "$(grep -c '^concurrency: target 2 to 7, max active 7$' "$tmp/screen")"
        got=$(sed -n 's/^ *[0-9.]*[a-z]* command: \([a-z_]*\).*/\1/p' "$tmp/screen" | tr '\n' ' ')
        check "the report lists the commands typed" \
            "double set_concurrency pause resume halve stop " "$got"
    else
        not_ok "q ends brink" "$(cat "$tmp/screen")"
    fi
    $T kill-server
else
    not_ok "brink starts in tmux"
fi

# --- TERM=vt100 NO_COLOR=1 --------------------------------------------------------------
if console vt100 80 24 TERM=vt100 NO_COLOR=1 LC_ALL=C; then
    expect_screen "vt100: req/s above 0" "$nonzero_rate"
    expect_screen "vt100: ASCII glyphs in the panel titles" "^Throughput ---"
    # tmux writes 39/49 (default colours) around every attribute change;
    # 30-38, 40-48, 90-97 and 100-107 would be colours.
    screen -e
    if grep -q "${esc}\[[0-9;]*\(3[0-8]\|4[0-8]\|9[0-7]\|10[0-7]\)[;m]" "$tmp/screen"; then
        not_ok "vt100 NO_COLOR: no colour on the pane" "$(grep -n "$esc" "$tmp/screen" | head -3 | od -c | head)"
    else
        ok "vt100 NO_COLOR: no colour on the pane"
    fi
    if LC_ALL=C grep -q "$(printf '[\200-\377]')" "$tmp/screen"; then
        not_ok "vt100 in the C locale: ASCII only" "$(grep -n "$(printf '[\200-\377]')" "$tmp/screen" | head -3)"
    else
        ok "vt100 in the C locale: ASCII only"
    fi
    $T send-keys -t s ']'
    expect_screen "vt100: ] works" "$(users_row 4 4 4)"
    $T send-keys -t s q
    if wait_dead 15; then
        check "vt100: q exits with status 0" 0 "$(exit_status vt100 5)"
        screen -S -
        check "vt100: the report is printed" 1 "$(grep -c '^duration ' "$tmp/screen")"
    else
        not_ok "vt100: q ends brink" "$(cat "$tmp/screen")"
    fi
    $T kill-server
else
    not_ok "brink starts in tmux (vt100)"
fi

# --- the breaking point: most requests fail fast ---------------------------------------
# One worker of 50 ms and no queue: of the 2 users, one is served (at most
# 20 successes a second) while the other gets a 503 at once, over and over.
# The line must lead with the successes (the worker's rate at most), the
# failures apart and many times more; all completions together, thousands
# a second, are not throughput.
curl -s -o /dev/null -X POST -d '{"workers":1,"queue_max":0,"service_ms":{"bytes":50}}' \
    "$url/_control"
refused_before=$(truth responses_503)
if console breaking 80 24; then
    rates='^ok ([0-9.]+)([kMG]?) req/s  !failed ([0-9.]+)([kMG]?)/s'
    # The first tick may be short: from the third on they are whole.
    wait_screen " RUNNING  00:00:0[3-9]\$" 15
    expect_screen "breaking: the line leads with the successes, the failures apart" "$rates"
    line=$(grep -E "$rates" "$tmp/screen" | head -n 1)
    # ui__fmt_rate: 12.3k, 4.56M.
    okps=$(echo "$line" | sed -E "s#$rates.*#\1\2#")
    failps=$(echo "$line" | sed -E "s#$rates.*#\3\4#")
    num() { echo "$1" | awk '{ v = $0 + 0; if ($0 ~ /k$/) v *= 1e3; if ($0 ~ /M$/) v *= 1e6; print v }'; }
    check_ge "breaking: the target refused requests (503)" $((refused_before + 1)) "$(truth responses_503)"
    if [ -n "$line" ] && awk -v o="$(num "$okps")" -v f="$(num "$failps")" \
        'BEGIN { exit !(o > 0 && o <= 25 && f >= 10 * o) }'; then
        ok "breaking: ok $okps req/s (one 50 ms worker: 20/s at most), failed $failps/s"
    else
        not_ok "breaking: ok at most the worker's 20/s, failed 10 times more" \
            "ok '$okps', failed '$failps'; the pane:
$(cat "$tmp/screen")"
    fi
    $T send-keys -t s q
    check "breaking: q exits with status 3 (error_rate > 1%)" 3 "$(exit_status breaking 15)"
    $T kill-server
else
    not_ok "brink starts in tmux (breaking)"
fi
curl -s -o /dev/null -X POST -d '{"workers":64,"queue_max":1024,"service_ms":{"bytes":0}}' \
    "$url/_control"

# --- hostile strings ------------------------------------------------------------------------
# Every other reply carries X-Brink-Note with the target's escapes (ESC[2J,
# an OSC 0 title "PWNED", an OSC 8 link, CSI 6n, a bidi override, an 8-bit
# CSI); a fifth have a status line "2x0 Br\x01ken". Both transports
# reject the hostile header as malformed; neither puts
# the bytes into an error text today, so these checks guard the path
# rather than the sanitizer (which the mark note below and the unit tests
# exercise).
curl -s -o /dev/null -X POST -d '{"faults":{"hostile_header":0.5,"malformed_status":0.2}}' \
    "$url/_control"
hostile_before=$(truth hostile_sent)
if console hostile 100 30; then
    expect_screen "hostile: the malformed replies are in the Errors panel" "^! malformed "
    expect_screen "hostile: and in the event log" "first_error +first malformed"
    check_ge "hostile: the target sent hostile headers" 1 $(($(truth hostile_sent) - hostile_before))
    # A mark note typed with an 8-bit CSI (U+009B), a bidi override
    # (U+202E) and a backslash: the prompt and the event log show escapes.
    $T send-keys -t s m
    expect_screen "m opens the mark prompt" "mark note: _"
    $T send-keys -t s -l "$(printf 'x\302\23331m\342\200\256desrever\\y')"
    $T send-keys -t s Enter
    expect_screen "hostile: the typed note is shown escaped in the event log" \
        'mark +x\\u009b31m\\u202edesrever\\\\y'
    screen -e
    for what in "ESC[2J:${esc}\[2J" "OSC:${esc}\]" "CSI 6n:${esc}\[6n" "PWNED:PWNED" \
        "U+202E:$(printf '\342\200\256')" "U+009B:$(printf '\302\233')"; do
        if grep -q -- "${what#*:}" "$tmp/screen"; then
            not_ok "hostile: no ${what%%:*} in capture-pane -e" "$(grep -n -- "${what#*:}" "$tmp/screen" | od -c | head -5)"
        else
            ok "hostile: no ${what%%:*} in capture-pane -e"
        fi
    done
    # tmux takes an OSC 0 as the pane's title: the target's must not get there.
    title=$(pane '#{pane_title}')
    case $title in
    *PWNED*) not_ok "hostile: the pane title is not the target's" "title: $title" ;;
    *) ok "hostile: the pane title is not the target's" ;;
    esac
    $T send-keys -t s q
    # Its malformed replies fail the default error_rate > 1%.
    check "hostile: q exits with status 3" 3 "$(exit_status hostile 15)"
    $T kill-server
else
    not_ok "brink starts in tmux (hostile)"
fi

# Raw bytes, as the terminal gets them (the faults are still on).
python3 "$src/tests/e2e/pty_console.py" "$brink" "$url/bytes/16" raw-hostile >"$tmp/pty.out" 2>&1
curl -s -o /dev/null -X POST -d '{"faults":{"hostile_header":0,"malformed_status":0}}' "$url/_control"

# --- the pty harness: terminal modes and hang-ups -------------------------------------
python3 "$src/tests/e2e/pty_console.py" "$brink" "$url/bytes/16" \
    restore hangup-ignored hangup-noctty crash >>"$tmp/pty.out" 2>&1
cat "$tmp/pty.out"
passed=$((passed + $(grep -c '^ok ' "$tmp/pty.out")))
failed=$((failed + $(grep -c '^FAIL ' "$tmp/pty.out")))
if grep -q Traceback "$tmp/pty.out"; then
    not_ok "the pty harness ran to its end"
fi

# --- a ramp plan driven from the keys: r, n, t and a manual change -------------------
# Steps hold 30 s, so only n moves the plan on within the run.
cat >"$tmp/ramp.ini" <<'INI'
[ramp]
steps = 2, 4, 8
hold = 30s
warmup = 1s
INI
if console ramp 132 40 -- --config "$tmp/ramp.ini" --ramp; then
    expect_screen "ramp: --ramp starts the plan at step 1 (2 users)" \
        "^users 2/2  ramp 1/3 (warm-up|measuring)  in flight"
    expect_screen "ramp: its first step is in the event log" "command +ramp step 1/3: c=2"
    expect_screen "ramp: the plan measures after its warm-up" "ramp 1/3 measuring"
    $T send-keys -t s n
    expect_screen "ramp: n ends step 1 and starts step 2 (4 users)" \
        "^users 4/4  ramp 2/3 (warm-up|measuring)  in flight 4"
    expect_screen "ramp: step 1's verdict is in the event log" \
        "detection +ramp step 1/3 \(c=2\) passed: ok [0-9]+ req/s"
    $T send-keys -t s t
    expect_screen "ramp: t shows the step table with step 1 passed" "^1/3 +c=2 .* pass\$"
    expect_screen "ramp: and the running step" "^2/3 +c=4 .* running\$"
    $T send-keys -t s +
    expect_screen "ramp: + pauses the plan" "^users 5/5  ramp 2/3 paused \(r resumes\)"
    $T send-keys -t s t
    expect_screen "ramp: t again shows the events: the pause is there" \
        "notice +ramp paused at step 2/3 by a manual step \(r resumes it\)"
    $T send-keys -t s r
    expect_screen "ramp: r resumes step 2 at its level" "^users 4/4  ramp 2/3 (warm-up|measuring)"
    $T send-keys -t s r
    expect_screen "ramp: r again stops the plan; the load stays" \
        "command +ramp stopped at step 2/3; the load stays as it is"
    expect_screen "ramp: the header no longer shows the plan" "^users 4/4  in flight 4"
    $T send-keys -t s q
    check "ramp: q exits with status 0" 0 "$(exit_status ramp 15)"
    expect_screen "ramp: the final report lists the plan's steps" "^  1/3 +c=2 .* pass\$"
    $T kill-server
else
    not_ok "brink starts in tmux (ramp)"
fi

# --- tmux kill-server: SIGHUP to the pane ---------------------------------------------
if console hup 80 24; then
    expect_screen "hup: the console runs" "$nonzero_rate"
    t0=$(now_ms)
    $T kill-server
    while alive && [ $(($(now_ms) - t0)) -lt 10000 ]; do
        sleep 0.02
    done
    took=$(($(now_ms) - t0))
    if alive; then
        not_ok "tmux kill-server: brink exits within 2 s" "still running after ${took} ms"
        kill -9 "$bpid" 2>/dev/null
    elif [ "$took" -le 2500 ]; then
        ok "tmux kill-server: brink exits within 2 s (${took} ms)"
    else
        not_ok "tmux kill-server: brink exits within 2 s" "took ${took} ms"
    fi
else
    not_ok "brink starts in tmux (hup)"
fi

stop_target
check "the target stops cleanly" 0 "$stop_status"
finish
