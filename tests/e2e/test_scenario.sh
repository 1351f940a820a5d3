#!/bin/sh
# Scenario scripts ([scenario] script, docs/scenarios.md) against brink
# target, on both transports: the shipped read-modify-write script keeps
# the siblings of a key all 16 users share bounded by the users, while the
# shipped blind writes pile them up, both read from the target's /stats;
# the shipped write-then-read-back script reads back what it wrote; a
# Lua error mid-run is counted in its class with its line and the run goes
# on to its end; a syntax error exits 2 naming the file and line.
# Usage: sh test_scenario.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup

. "$src/tests/e2e/transport_lib.sh"

# scenario_run NAME SCRIPT [KEY = VALUE lines...]: a headless 3 s run of
# SCRIPT at c=16 against the target, recorded into $d/NAME.jsonl; report in
# $d/NAME.out, stderr in $d/NAME.err, exit status in $status.
scenario_run() {
    name=$1 script=$2
    shift 2
    {
        printf '[target]\nurl = %s/\ntransport = %s\n' "$url" "$transport"
        printf '[load]\nconcurrency = 16\nduration = 3s\n'
        printf '[thresholds]\nfail_on = none\n'
        printf '[scenario]\nscript = %s\n' "$script"
    } >"$d/$name.ini"
    timeout 60 "$brink" run --headless --config "$d/$name.ini" --record "$d/$name.jsonl" \
        >"$d/$name.out" 2>"$d/$name.err" </dev/null
    status=$?
}

# siblings: the most siblings reads of the target saw (Riak's siblings_100).
siblings() {
    json_get "$url/stats" node_get_fsm_siblings_100
}

# requests NAME KIND: the requests of one kind in a report (0 if absent).
requests() {
    kind_requests "$d/$1.out" "$2"
}

fresh_target() {
    [ -n "$pid" ] && stop_target
    if ! start_target --listen 127.0.0.1:0 --seed 7; then
        not_ok "brink target starts" "$(cat "$tmp/target.err")"
        finish
        exit 1
    fi
}

suite() {
    d=$tmp/$transport
    mkdir -p "$d"
    cp "$src/config/kv-rmw.lua" "$src/config/kv-blind.lua" "$src/config/kv-write-read.lua" \
        "$src/config/keys.txt" "$d/"

    fresh_target
    scenario_run rmw kv-rmw.lua
    check "read-modify-write runs to its end (exit 0)" 0 "$status"
    check "its reads and writes are request kinds of their own" 1 \
        "$([ "$(requests rmw read)" -gt 100 ] && [ "$(requests rmw write)" -gt 100 ] && echo 1 || echo 0)"
    check "its checks held (no failure in any tick)" 0 \
        "$(grep '"type":"tick"' "$d/rmw.jsonl" | grep -c '"name":"check:write stored","state":"ok","value":[1-9]')"
    rmw=$(siblings)
    if [ "$rmw" -ge 1 ] 2>/dev/null && [ "$rmw" -le 16 ]; then
        ok "read-modify-write keeps siblings within the 16 users ($rmw)"
    else
        not_ok "read-modify-write keeps siblings within the 16 users" "siblings_100 = $rmw"
    fi

    fresh_target
    scenario_run blind kv-blind.lua
    check "blind writes run to their end (exit 0)" 0 "$status"
    blind=$(siblings)
    check_ge "blind writes pile siblings up into the thousands ($blind)" 1000 "$blind"

    scenario_run write-read kv-write-read.lua
    check "write then read back runs to its end (exit 0)" 0 "$status"
    check "no request failed" "errors: none" "$(grep -m 1 '^errors:' "$d/write-read.out")"
    check_ge "its reads went to the kind \"read back\"" 100 "$(requests write-read 'read back')"
    check "every value read back was the value written" 0 \
        "$(grep '"type":"tick"' "$d/write-read.jsonl" | grep -c '"name":"check:read back what was written","state":"ok","value":[1-9]')"
    check_ge "and the check was in the ticks" 2 \
        "$(grep -c '"name":"check:read back what was written"' "$d/write-read.jsonl")"

    # Every tenth iteration fails at line 5, with a message of 130 bytes; the
# others go on.
    cat >"$d/err.lua" <<'LUA'
function iteration(user)
    brink.request{url = "/kv/e" .. user.id, name = "get", expect = {200, 404}}
    if user.iteration % 10 == 0 then
        local t_whose_name_makes_the_message_longer_than_a_line_of_the_report = nil
        return t_whose_name_makes_the_message_longer_than_a_line_of_the_report.field
    end
end
LUA
    scenario_run err err.lua
    check "a run whose script fails now and then runs to its end (exit 0)" 0 "$status"
    check "it reached its duration" 1 "$(grep -q 'notice: duration reached' "$d/err.out" && echo 1 || echo 0)"
    n=$(sed -n 's/^  script *\([0-9,]*\) .*/\1/p' "$d/err.out" | tr -d ,)
    check_ge "the failed iterations are counted in the class script" 1 "${n:-0}"
    check "the class names the script's file and line, its message whole" 1 \
        "$(grep -c "^  script .*err.lua:5: attempt to index local 't_whose_name_makes_the_message_longer_than_a_line_of_the_report' (a nil value)$" "$d/err.out")"
    total=$(sed -n 's/^duration [^,]*, \([0-9,]*\) requests.*/\1/p' "$d/err.out" | tr -d ,)
    check_ge "the other iterations' requests went on" 1000 "${total:-0}"

    printf 'function iteration(user)\n  local x = = 1\nend\n' >"$d/bad.lua"
    scenario_run bad bad.lua
    check "a syntax error exits 2" 2 "$status"
    check "naming the file and line" 1 "$(grep -c '^brink: bad.lua:2: ' "$d/bad.err")"
    "$brink" check "$d/bad.ini" >/dev/null 2>"$d/check.err"
    check "brink check refuses it too (exit 2)" 2 "$?"
    check "with the same words" 1 "$(grep -c '^brink: bad.lua:2: ' "$d/check.err")"
}

for transport in $transports; do
    suite
done
stop_target
finish
