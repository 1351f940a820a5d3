#!/bin/sh
# Bad experiment files: each tests/data/config/bad/NAME.ini must make
# "brink check" exit 2, print nothing on stdout (nothing started) and print
# exactly NAME.expected on stderr. The files are checked from inside that
# directory, so the messages name them as NAME.ini. Then the good files and
# the examples in config/ must pass.
# Usage: sh test_config_errors.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"

case "$brink" in
/*) ;;
*) brink="$PWD/$brink" ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# missing_env.ini relies on this one being unset; the examples on this set.
unset BRINK_TEST_UNSET_TOKEN
DAV_TOKEN=example-token
export DAV_TOKEN
# config/s3-multipart.ini signs with AWS credentials from the environment.
AWS_ACCESS_KEY_ID=example AWS_SECRET_ACCESS_KEY=example
export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY

check_bad() {
    name=${1%.ini}
    status=0
    "$brink" check "$1" >"$tmp/out" 2>"$tmp/err" || status=$?
    if [ ! -f "$name.expected" ]; then
        not_ok "$1" "$name.expected is missing"
    elif [ "$status" -ne 2 ]; then
        not_ok "$1" "exit status $status, expected 2"
    elif [ -s "$tmp/out" ]; then
        not_ok "$1" "stdout is not empty: $(head -c 200 "$tmp/out")"
    elif ! cmp -s "$tmp/err" "$name.expected"; then
        not_ok "$1" "stderr differs from $name.expected:"
        diff "$name.expected" "$tmp/err" | head -20
    else
        ok "$1"
    fi
}

check_good() {
    status=0
    "$brink" check "$1" >"$tmp/out" 2>"$tmp/err" || status=$?
    if [ "$status" -ne 0 ]; then
        not_ok "$1" "exit status $status, expected 0; stderr: $(head -c 300 "$tmp/err")"
    elif [ -s "$tmp/err" ]; then
        not_ok "$1" "stderr is not empty: $(head -c 300 "$tmp/err")"
    elif ! grep -q '^\[target\]$' "$tmp/out"; then
        not_ok "$1" "no [target] in the effective configuration"
    elif grep -q "$DAV_TOKEN" "$tmp/out"; then
        not_ok "$1" "the value of \${DAV_TOKEN} leaked into the output"
    else
        ok "$1"
    fi
}

cd "$src/tests/data/config/bad" || exit 1
for ini in *.ini; do
    check_bad "$ini"
done
for expected in *.expected; do
    [ -f "${expected%.expected}.ini" ] || not_ok "$expected" "no ${expected%.expected}.ini"
done

# Good files are checked from the source root, so @FILE bodies must be found
# relative to the file, not to the working directory.
cd "$src" || exit 1
for ini in tests/data/config/good/*.ini config/*.ini; do
    check_good "$ini"
done

finish
