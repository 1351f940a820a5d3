# Helpers for end-to-end scripts that run `brink target`: sourced after
# lib.sh, with $brink set by the caller, which calls target_setup first.
# $target_in, when set, holds the words that run a command where the target
# lives (`ip netns exec NS` for a target in a namespace of the test's own):
# start_target starts the target through them, and json_get (so truth)
# reads it through them too.
target_in=${target_in:-}

# target_setup: fails the test without curl or python3, makes $tmp and
# installs the EXIT trap that stops a brink run ($run_pid) and the target
# ($pid) the test left running and removes $tmp.
target_setup() {
    command -v curl >/dev/null 2>&1 || { echo "FAIL curl missing: run scripts/install-deps"; exit 1; }
    command -v python3 >/dev/null 2>&1 || { echo "FAIL python3 missing: run scripts/install-deps"; exit 1; }
    tmp=$(mktemp -d)
    pid=""
    run_pid=""
    trap target_cleanup EXIT
    trap 'exit 1' INT TERM
}

target_cleanup() {
    [ -n "$run_pid" ] && kill -9 "$run_pid" 2>/dev/null
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    fi
    rm -rf "$tmp"
}

# start_target ARGS...: starts brink target in the background, sets pid and
# url once its first line is out (polled, at most 10 s).
start_target() {
    : >"$tmp/target.out"
    $target_in "$brink" target "$@" >"$tmp/target.out" 2>"$tmp/target.err" &
    pid=$!
    url=""
    i=0
    while [ $i -lt 200 ]; do
        url=$(head -n 1 "$tmp/target.out")
        [ -n "$url" ] && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

# must_start_target ARGS...: start_target, or the test fails at once (the
# target's stderr shown).
must_start_target() {
    start_target "$@" && return 0
    not_ok "brink target starts" "$(cat "$tmp/target.err")"
    finish
    exit 1
}

# stop_target: SIGTERM, then waits (at most 10 s) and sets stop_status.
stop_target() {
    kill -TERM "$pid"
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 200 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    wait "$pid"
    stop_status=$?
    pid=""
}

# check_ge NAME MIN GOT
check_ge() {
    if [ "$3" -ge "$2" ] 2>/dev/null; then ok "$1"; else not_ok "$1" "expected >= $2, got \"$3\""; fi
}

# holds NAME EXPR: ok when the awk expression EXPR (over numbers passed as
# -v variables before it) is true. Usage: holds "name" "x > 1" -v x=2
holds() {
    name=$1 expr=$2
    shift 2
    if awk "$@" "BEGIN { exit !($expr) }" </dev/null; then ok "$name"; else not_ok "$name" "$expr is false ($*)"; fi
}

# wait_count FILE PATTERN N SECONDS: polls until FILE has N lines matching
# the grep -E PATTERN (or the run $run_pid is gone); fails after SECONDS.
# A FILE not made yet has no line.
wait_count() {
    deadline=$(($(now_ms) + $4 * 1000))
    while :; do
        wait_n=$(grep -Ec -- "$2" "$1" 2>/dev/null)
        [ "${wait_n:-0}" -ge "$3" ] && return 0
        [ "$(now_ms)" -ge "$deadline" ] && return 1
        [ -n "$run_pid" ] && ! kill -0 "$run_pid" 2>/dev/null && return 1
        sleep 0.05
    done
}

# json_get URL KEY...: one value of a JSON document (nested keys).
json_get() {
    u=$1
    shift
    $target_in curl -s "$u" | python3 -c '
import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1:]:
    v = v[k]
print(v)' "$@"
}

# truth KEY...: a ground-truth counter of the running target.
truth() {
    json_get "$url/_control" ground_truth "$@"
}

# wait_for FILE PATTERN SECONDS: polls until FILE has a line matching the
# grep -E PATTERN; fails after SECONDS.
wait_for() {
    i=0
    while [ $i -lt $(($3 * 20)) ]; do
        grep -Eq -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

# expect_line NAME FILE PATTERN SECONDS: wait_for as a check; a failure
# shows the last lines of FILE.
expect_line() {
    if wait_for "$2" "$3" "$4"; then
        ok "$1"
    else
        not_ok "$1" "$(tail -n 3 "$2")"
    fi
}

# wait_truth KEY WANT: polls the ground truth (at most 5 s) until KEY is
# WANT; prints the value last seen.
wait_truth() {
    i=0
    while v=$(truth "$1") && [ "$v" != "$2" ] && [ $i -lt 100 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    echo "$v"
}
