#!/bin/sh
# Hostile scenario scripts (docs/scenarios.md, "Limits"): one per bomb, a
# spin, table growth, string growth, a gsub bomb and coroutines nested
# without end in user 1's iteration (users 2 and 3 send requests to brink
# target), a spin in setup() and one at the top level. Each 2 s run with
# [scenario] budget = 200ms (10 s for the memory bombs) and memory = 16MiB
# ends by itself within its duration + 2 s (a run that overruns is killed
# by timeout and fails), peaks under the cap + 50 MB, exits as documented,
# and its session says which iterations failed and why (for the set-up
# bombs, that the script failed before the start, where). Then each bomb
# again with a budget of an hour: SIGTERM, sent once the bomb has burnt
# 0.5 s of CPU, ends the run within 2 s with a complete session (for the
# set-up bombs an empty one, "stopped before the start").
# Usage: sh test_script_bombs.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

# Under ASan freed memory waits in a quarantine (256 MB by default) that
# the memory bound would count as brink's: keep it small. A release build
# ignores the variable.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=4"
export ASAN_OPTIONS

target_setup
if ! start_target --listen 127.0.0.1:0; then
    echo "FAIL brink target does not start: $(cat "$tmp/target.err")"
    exit 1
fi

cap_mib=16
# The bombs a SIGTERM ends (every one: setup() and the top level too,
# while brink sets the run up).
bombs_term="spin table string gsub nest setup top"

# bomb_lua NAME: the script of a bomb, on stdout.
bomb_lua() {
    case $1 in
    setup) printf 'function setup()\n  while true do end\nend\nfunction iteration() end\n' ;;
    top) printf 'local n = 0\nwhile true do n = n + 1 end\nfunction iteration() end\n' ;;
    *)
        printf 'function iteration(user)\n  if user.id ~= 1 then\n'
        printf '    brink.request{url = "/kv/b" .. user.id, name = "get", expect = {200, 404}}\n'
        printf '    return\n  end\n'
        case $1 in
        spin) printf '  while true do end\n' ;;
        table) printf '  local t = {}\n  while true do t[#t + 1] = #t end\n' ;;
        string) printf '  local s = "x"\n  while true do s = s .. s end\n' ;;
        gsub) printf '  local s = ("x"):rep(1024)\n  while true do s = s:gsub(".", "%%0%%0") end\n' ;;
        nest) printf '  local function f() coroutine.wrap(f)() end\n  f()\n' ;;
        esac
        printf 'end\n'
        ;;
    esac
}

# bomb_ini NAME BUDGET DURATION: its experiment file.
bomb_ini() {
    bomb_lua "$1" >"$tmp/$1.lua"
    printf '[target]\nurl = %s/\n[load]\nconcurrency = 3\nthreads = 1\nduration = %s\n' "$url" "$3" \
        >"$tmp/$1.ini"
    printf '[thresholds]\nfail_on = none\n[scenario]\nscript = %s.lua\nbudget = %s\nmemory = %sMiB\n' \
        "$1" "$2" "$cap_mib" >>"$tmp/$1.ini"
}

# run_bomb NAME: a 2 s run, timed (ms in $wall_ms), peak RSS in $rss_kib,
# the GETs the target answered during it in $gets. The memory bombs get a
# budget of 10 s, so that the cap, not the budget, stops them.
run_bomb() {
    case $1 in
    table | string | gsub) bomb_ini "$1" 10s 2s ;;
    *) bomb_ini "$1" 200ms 2s ;;
    esac
    gets_before=$(json_get "$url/stats" node_gets_total)
    start=$(now_ms)
    /usr/bin/time -f %M -o "$tmp/$1.rss" timeout 30 "$brink" run --headless --config "$tmp/$1.ini" \
        --record "$tmp/$1.jsonl" >"$tmp/$1.out" 2>"$tmp/$1.err" </dev/null
    status=$?
    wall_ms=$(($(now_ms) - start))
    rss_kib=$(tail -n 1 "$tmp/$1.rss")
    gets=$(($(json_get "$url/stats" node_gets_total) - gets_before))
}

# bounded NAME: the run's wall time and memory.
bounded() {
    if [ "$wall_ms" -le 4000 ]; then
        ok "$1: ends within its duration + 2 s (${wall_ms} ms)"
    else
        not_ok "$1: ends within its duration + 2 s" "${wall_ms} ms, exit $status"
    fi
    if [ "${rss_kib:-999999}" -le $(((cap_mib + 50) * 1024)) ]; then
        ok "$1: peak RSS within the cap + 50 MB (${rss_kib} KiB)"
    else
        not_ok "$1: peak RSS within the cap + 50 MB" "${rss_kib} KiB"
    fi
}

# reported NAME WORDS: the session is complete, and brink report reads it
# and names the failed iterations in the class script with WORDS at the
# bomb's line.
reported() {
    "$brink" report "$tmp/$1.jsonl" >"$tmp/$1.report" 2>&1
    row=$(grep -m 1 '^  script ' "$tmp/$1.report")
    # The errors table names the user and why, its message cut to fit the
    # line (the session holds it whole).
    if printf '%s' "$row" | grep -Eq -- "user 1: $1\.lua:([0-9]+:)? $(printf '%s' "$2" | cut -c 1-30)" &&
        grep -Eq -- "user 1: $1\.lua:([0-9]+:)? $2" "$tmp/$1.jsonl"; then
        ok "$1: brink report counts user 1's failed iterations as script: $2"
    else
        not_ok "$1: brink report counts user 1's failed iterations as script: $2" \
            "row: $row; exit $status; $(head -c 300 "$tmp/$1.err")"
    fi
    check "$1: the session is complete" 1 "$(tail -n 1 "$tmp/$1.jsonl" | grep -c '"complete":true')"
}

check_ge() {
    if [ "$3" -ge "$2" ] 2>/dev/null; then ok "$1 ($3)"; else not_ok "$1" "expected >= $2, got \"$3\""; fi
}

for b in spin table string gsub nest; do
    run_bomb "$b"
    check "$b: the run goes on to its end (exit 0)" 0 "$status"
    # A memory bomb holds its worker until the cap, however long a slow
    # machine takes to get there; a budget of 200 ms lets the others go on.
    case $b in
    spin | nest) check_ge "$b: the target answered the other users' requests" 1 "$gets" ;;
    esac
    bounded "$b"
done
reported spin "ran for more than 200ms without yielding"
reported table "over the memory cap of 16 MiB"
reported string "over the memory cap of 16 MiB"
reported gsub "over the memory cap of 16 MiB"
reported nest "coroutines resumed inside each other more than 100 deep"

for b in setup top; do
    run_bomb "$b"
    check "$b: a set-up that never yields stops the run (exit 2)" 2 "$status"
    bounded "$b"
done
check "setup: the message names setup, the file and line" 1 \
    "$(grep -c '^brink: setup.lua: setup: setup.lua:2: ran for more than 200ms without yielding' "$tmp/setup.err")"
check "top: the message names the file and line" 1 \
    "$(grep -c '^brink: top.lua:2: ran for more than 200ms without yielding' "$tmp/top.err")"
# The script ran and failed before the load: its session says why.
for b in setup top; do
    check "$b: the session is complete" 1 "$(tail -n 1 "$tmp/$b.jsonl" | grep -c '"complete":true')"
done
check "setup: brink report says the script failed in setup, where and why" 1 \
    "$("$brink" report "$tmp/setup.jsonl" | grep -c '^ended: script failed before the start: setup.lua: setup: setup.lua:2: ran for more than 200ms without yielding')"
check "top: brink report says the script failed at its top level, where and why" 1 \
    "$("$brink" report "$tmp/top.jsonl" | grep -c '^ended: script failed before the start: top.lua:2: ran for more than 200ms without yielding')"

# cpu_ms PID: user + system CPU time of PID so far, in ms (clock ticks of 10 ms).
cpu_ms() {
    awk '{ print ($14 + $15) * 10 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

# Each bomb held by a budget of an hour; the signal must end it. A run
# still there 10 s after it is killed (and fails the check).
for b in $bombs_term; do
    bomb_ini "$b" 1h 1m
    "$brink" run --headless --config "$tmp/$b.ini" --record "$tmp/$b-term.jsonl" \
        >"$tmp/$b-term.out" 2>"$tmp/$b-term.err" </dev/null &
    run_pid=$!
    i=0
    while [ "$(cpu_ms "$run_pid")" -lt 500 ] && [ $i -lt 400 ] && kill -0 "$run_pid" 2>/dev/null; do
        sleep 0.05
        i=$((i + 1))
    done
    start=$(now_ms)
    kill -TERM "$run_pid"
    i=0
    while kill -0 "$run_pid" 2>/dev/null && [ $i -lt 200 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    kill -9 "$run_pid" 2>/dev/null
    wait "$run_pid"
    status=$?
    run_pid=""
    wall_ms=$(($(now_ms) - start))
    if [ "$wall_ms" -le 2000 ]; then
        ok "$b: SIGTERM ends it within 2 s (${wall_ms} ms, exit $status)"
    else
        not_ok "$b: SIGTERM ends it within 2 s" "${wall_ms} ms, exit $status; $(head -c 300 "$tmp/$b-term.err")"
    fi
    check "$b: the session is complete" 1 "$(tail -n 1 "$tmp/$b-term.jsonl" | grep -c '"complete":true')"
    case $b in
    setup | top)
        check "$b: brink report says it stopped before the start" 1 \
            "$("$brink" report "$tmp/$b-term.jsonl" | grep -c '^ended: stopped before the start$')"
        ;;
    esac
done

stop_target
finish
