# Shared helpers for the end-to-end scripts: sh lib.sh-using-test BRINK SRCDIR.
# Each check prints one line; finish prints "N passed, N failed" and sets the
# exit status.

passed=0
failed=0

# now_ms: milliseconds since the epoch (GNU date), for deadlines.
now_ms() {
    date +%s%3N
}

# need_tmux: the console's scripts fail where tmux is missing (it comes
# from scripts/install-deps; a test never skips quietly).
need_tmux() {
    command -v tmux >/dev/null 2>&1 || { echo "FAIL tmux missing: run scripts/install-deps"; exit 1; }
}

ok() {
    passed=$((passed + 1))
    printf 'ok   %s\n' "$1"
}

not_ok() {
    failed=$((failed + 1))
    printf 'FAIL %s\n' "$1"
    [ -n "${2:-}" ] && printf '     %s\n' "$2"
    return 0
}

# check NAME WANT GOT: equality check.
check() {
    if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "expected \"$2\", got \"$3\""; fi
}

# expect_run NAME STATUS STDOUT_PATTERN STDERR_PATTERN -- CMD...
# Runs CMD; checks its exit status and that stdout and stderr each match a
# grep -E pattern ("" means must be empty, "*" means anything).
expect_run() {
    name=$1 want_status=$2 out_pat=$3 err_pat=$4
    shift 5
    out=$(mktemp) err=$(mktemp)
    "$@" >"$out" 2>"$err"
    status=$?
    why=""
    [ "$status" -eq "$want_status" ] || why="exit status $status, expected $want_status"
    if [ -z "$why" ]; then why=$(match_stream stdout "$out" "$out_pat"); fi
    if [ -z "$why" ]; then why=$(match_stream stderr "$err" "$err_pat"); fi
    if [ -z "$why" ]; then
        ok "$name"
    else
        not_ok "$name" "$why; stderr: $(head -c 300 "$err")"
    fi
    rm -f "$out" "$err"
}

match_stream() {
    case "$3" in
    "*") ;;
    "") [ -s "$2" ] && echo "$1 not empty: $(head -c 200 "$2")" ;;
    *) grep -Eq -- "$3" "$2" || echo "$1 does not match /$3/: $(head -c 200 "$2")" ;;
    esac
}

finish() {
    printf '%d passed, %d failed\n' "$passed" "$failed"
    [ "$failed" -eq 0 ]
}
