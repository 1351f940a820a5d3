#!/bin/sh
# Input files that are not regular files (devices, FIFOs, symlinks to them)
# and files of noise: every command that reads one answers at once with one
# line and its status, never spins, blocks or floods the terminal.
# Usage: sh test_input_files.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkfifo "$tmp/fifo"
ln -s /dev/zero "$tmp/zero.jsonl"
ln -s /dev/zero "$tmp/zero.ini"

# Each runs under timeout: before the fix these spun or blocked for ever,
# and a hang must fail here, not stall the suite.
t() {
    timeout 20 "$@"
}

for f in /dev/zero /dev/urandom "$tmp/fifo" "$tmp/zero.ini"; do
    expect_run "check $(basename "$f"): not a regular file, exit 2" 2 "" \
        "^brink: $f: not a regular file\$" -- t "$brink" check "$f"
done
expect_run "run --config /dev/zero: not a regular file, exit 2" 2 "" \
    '^brink: /dev/zero: not a regular file$' -- t "$brink" run --config /dev/zero
expect_run "run --config FIFO: not a regular file, exit 2" 2 "" \
    "^brink: $tmp/fifo: not a regular file\$" -- t "$brink" run --config "$tmp/fifo"
expect_run "target --config FIFO: not a regular file, exit 2" 2 "" \
    "^brink: target: $tmp/fifo: not a regular file\$" -- t "$brink" target --config "$tmp/fifo"

for f in "$tmp/zero.jsonl" "$tmp/fifo"; do
    name=$(basename "$f")
    expect_run "report $name: not a regular file, exit 1" 1 "" \
        "^brink: report: $f: not a regular file\$" -- t "$brink" report "$f"
    expect_run "replay --headless $name: not a regular file, exit 1" 1 "" \
        "^brink: replay: $f: not a regular file\$" -- t "$brink" replay --headless "$f"
    expect_run "compare with $name: not a regular file, exit 1" 1 "" \
        "^brink: compare: $f: not a regular file\$" -- t "$brink" compare "$f" "$f"
done

# A regular file of noise: the first 20 errors, then one line counting the rest.
head -c 200000 /dev/urandom >"$tmp/noise.ini"
status=0
t "$brink" check "$tmp/noise.ini" >"$tmp/out" 2>"$tmp/err" || status=$?
lines=$(wc -l <"$tmp/err")
if [ "$status" -eq 2 ] && [ "$lines" -eq 21 ] && [ ! -s "$tmp/out" ] &&
    tail -n 1 "$tmp/err" | grep -Eq "^brink: $tmp/noise.ini: \.\.\. [0-9]+ more errors\$"; then
    ok "check of 200 kB of noise: exit 2, 20 errors and \"$(tail -n 1 "$tmp/err" | sed 's/.*: //')\""
else
    not_ok "check of noise is bounded" "exit $status, $lines lines; last: $(tail -n 1 "$tmp/err" | head -c 200)"
fi

# A file larger than any experiment: refused before it is read.
truncate -s 5M "$tmp/huge.ini"
expect_run "check of a 5 MiB file: refused, exit 2" 2 "" \
    "^brink: $tmp/huge.ini: larger than 4194304 bytes\$" -- t "$brink" check "$tmp/huge.ini"

finish
