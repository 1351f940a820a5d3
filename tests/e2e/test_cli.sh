#!/bin/sh
# The command line: help, version, exit codes and one-line errors.
# Usage: sh test_cli.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"

expect_run "--help prints usage and commands" 0 '^usage: brink .*COMMAND' "" -- "$brink" --help
expect_run "--help lists the exit codes" 0 'exit status: 0 success, 1 runtime failure, 2 usage or config error' "" -- "$brink" --help
expect_run "--version prints the version" 0 '^brink [0-9]+\.[0-9]+\.[0-9]+$' "" -- "$brink" --version
expect_run "no arguments is a usage error" 2 "" '^usage: brink' -- "$brink"
expect_run "unknown command names it" 2 "" '^brink: unknown command "frobnicate" \(run .brink --help. for the list\)$' -- "$brink" frobnicate
expect_run "unknown option names it" 2 "" '^brink: unknown option "--frob" \(expected --help or --version\)$' -- "$brink" --frob
expect_run "check --help shows its usage" 0 '^usage: brink check FILE' "" -- "$brink" check --help
expect_run "check without a file is a usage error" 2 "" '^brink: check: missing FILE \(usage: brink check FILE\)$' -- "$brink" check
expect_run "check with two files is a usage error" 2 "" '^brink: check: unexpected argument "b.ini"' -- "$brink" check a.ini b.ini
expect_run "check of a missing file says so in one line" 2 "" '^brink: /nonexistent/x.ini: ' -- "$brink" check /nonexistent/x.ini
# Every example of config/ reads (mix.ini takes its token from the environment).
for f in "$src"/config/*.ini; do
    expect_run "check of the example $(basename "$f") succeeds" 0 '^\[target\]' "" -- \
        env DAV_TOKEN=example "$brink" check "$f"
done

# check refuses what run refuses at its start: a command probe in a file
# others can write (run exits 2 before any load; check must not pass it).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '[target]\nurl = http://127.0.0.1:9/\n[probe n]\ntype = command\ncommand = echo 1\n' >"$tmp/cmd.ini"
chmod 0660 "$tmp/cmd.ini"
refused='^brink: .*/cmd.ini: \[probe n\]: refusing to run a command from a file others can write \(mode 660'
expect_run "check refuses a command probe in a group-writable file, as run does" 2 "" "$refused" -- \
    "$brink" check "$tmp/cmd.ini"
expect_run "run refuses the same file with the same line and status" 2 "" "$refused" -- \
    "$brink" run --headless --no-record --config "$tmp/cmd.ini"
chmod 0600 "$tmp/cmd.ini"
expect_run "check passes the same file once only its owner can write it" 0 '^\[probe n\]$' "" -- \
    "$brink" check "$tmp/cmd.ini"

# Control bytes typed as arguments come back escaped, never raw.
esc=$(printf 'x\033[2Jy')
expect_run "control bytes in arguments are escaped" 2 "" 'unknown command "x\\e\[2Jy"' -- "$brink" "$esc"
out=$("$brink" "$esc" 2>&1)
if printf '%s' "$out" | grep -q "$(printf '\033')"; then
    not_ok "no raw ESC reaches the terminal" "$out"
else
    ok "no raw ESC reaches the terminal"
fi

finish
