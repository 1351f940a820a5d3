#!/bin/sh
# What brink prints about hostile input: configuration and command-line
# errors keep secrets redacted (URL passwords, token= values, Authorization
# values), the --record path is escaped in the "recorded" line and in the
# create error (an OSC sequence in it once renamed a tmux pane), and brink
# check prints values with control, C1, bidi and invalid bytes escaped, as
# the console shows them. Bytes are checked with grep -P in the C locale.
# Usage: sh test_hostile_text.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# raw_bytes FILE: succeeds when FILE holds a byte that must not reach a
# terminal raw: C0 controls other than the newline, DEL, or any non-ASCII
# byte (these messages are ASCII; C1, bidi and bad UTF-8 are non-ASCII).
raw_bytes() {
    LC_ALL=C grep -qP '[\x00-\x09\x0b-\x1f\x7f-\xff]' "$1"
}

# no_secret NAME SECRET CMD...: CMD fails with status 2, says why on stderr,
# and SECRET appears on neither stream.
no_secret() {
    name=$1 secret=$2
    shift 2
    status=0
    "$@" >out 2>err </dev/null || status=$?
    if [ "$status" -ne 2 ]; then
        not_ok "$name" "exit status $status, expected 2; stderr: $(head -c 300 err)"
    elif grep -qF -- "$secret" out err; then
        not_ok "$name" "the secret is shown: $(grep -hF -- "$secret" out err | head -c 300)"
    elif ! grep -q '^brink: ' err; then
        not_ok "$name" "no message: $(head -c 300 err)"
    else
        ok "$name"
    fi
}

# K: secrets in configuration and command-line errors.
printf '[target]\nurl = http://bob:hunter2@127.0.0.1:99999/\n' >pass.ini
no_secret "a URL password in a config error is redacted" hunter2 "$brink" check pass.ini
printf '[target]\nurl = http://127.0.0.1:1/\n[request a]\nheader = Authorization Bearer s3cr3tvalue\n' >auth.ini
no_secret "an Authorization value in a config error is redacted" s3cr3tvalue "$brink" check auth.ini
no_secret "a token= value in a file name is redacted" tok3nvalue "$brink" check "token=tok3nvalue"
no_secret "a token= value in an option value is redacted" tok3nvalue \
    "$brink" run --url http://127.0.0.1:1/ --concurrency 'x?token=tok3nvalue'
no_secret "a URL password in --url is redacted" hunter2 \
    "$brink" run --url 'http://bob:hunter2@127.0.0.1:99999/' --duration 1s --headless

# M: the --record path, in the last line of a run and in a create error.
osc=$(printf 'r\033]2;pwned\007x')
"$brink" run --url http://127.0.0.1:1/ --duration 1s --headless --fail-on none \
    --record "$tmp/$osc.jsonl" </dev/null >/dev/null 2>err
grep 'recorded .* ticks in' err >line
if [ ! -s line ]; then
    not_ok "the recorded path is escaped" "no recorded line: $(tail -c 300 err)"
elif raw_bytes line || ! grep -qF 'r\e]2;pwned\x07x.jsonl' line; then
    not_ok "the recorded path is escaped" "$(od -c line | head -5)"
else
    ok "the recorded path is escaped"
fi
status=0
"$brink" run --url http://127.0.0.1:1/ --duration 1s --headless \
    --record "$tmp/missing/$osc" </dev/null >/dev/null 2>err || status=$?
if [ "$status" -eq 0 ] || ! grep -q 'cannot create' err; then
    not_ok "a path that cannot be created is escaped" "status $status: $(head -c 300 err)"
elif raw_bytes err || ! grep -qF 'r\e]2;pwned\x07x' err; then
    not_ok "a path that cannot be created is escaped" "$(od -c err | head -5)"
else
    ok "a path that cannot be created is escaped"
fi

# N: brink check prints values escaped.
printf '[target]\nurl = http://127.0.0.1:1/p\342\200\256\302\233\377q/\n' >values.ini
printf '[request a]\nheader = X-Note: a\342\200\256b\302\233c\n' >>values.ini
status=0
"$brink" check values.ini >out 2>err || status=$?
if [ "$status" -ne 0 ]; then
    not_ok "check prints values escaped" "status $status: $(head -c 300 err)"
elif raw_bytes out; then
    not_ok "check prints values escaped" "raw bytes: $(LC_ALL=C grep -nP '[\x00-\x09\x0b-\x1f\x7f-\xff]' out | od -c | head -5)"
elif ! grep -qF 'p\u202e\u009b\xffq/' out || ! grep -qF 'a\u202eb\u009bc' out; then
    not_ok "check prints values escaped" "escapes missing: $(grep -E 'url|header' out)"
else
    ok "check prints values escaped"
fi

finish
