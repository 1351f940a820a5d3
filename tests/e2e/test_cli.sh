#!/bin/sh
# The command line: help, version, exit codes, one-line errors, both forms
# of every option (--x=v, --x v, -x v) and contradictory options.
# Usage: sh test_cli.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"

expect_run "--help prints usage and commands" 0 '^usage: brink .*COMMAND' "" -- "$brink" --help
expect_run "--help lists the exit codes" 0 'exit status: 0 success, 1 runtime failure, 2 usage or config error' "" -- "$brink" --help
expect_run "--version prints the version" 0 '^brink [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]+\+?|unknown)\)$' "" -- "$brink" --version
expect_run "no arguments is a usage error" 2 "" '^usage: brink' -- "$brink"
expect_run "unknown command names it" 2 "" '^brink: unknown command "frobnicate" \(run .brink --help. for the list\)$' -- "$brink" frobnicate
expect_run "unknown option names it" 2 "" '^brink: unknown option "--frob" \(usage: brink \[--help\] \[--version\] COMMAND \[ARGS\]\)$' -- "$brink" --frob
expect_run "-V prints the version" 0 '^brink [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]+\+?|unknown)\)$' "" -- "$brink" -V
expect_run "check --help shows its usage" 0 '^usage: brink check FILE' "" -- "$brink" check --help
expect_run "check without a file is a usage error" 2 "" '^brink: check: missing FILE \(usage: brink check FILE\)$' -- "$brink" check
expect_run "check with two files is a usage error" 2 "" '^brink: check: unexpected argument "b.ini"' -- "$brink" check a.ini b.ini
expect_run "check of a missing file says so in one line" 2 "" '^brink: /nonexistent/x.ini: ' -- "$brink" check /nonexistent/x.ini
# Every example of config/ reads (mix.ini takes its token from the environment,
# s3-multipart.ini its AWS credentials).
for f in "$src"/config/*.ini; do
    expect_run "check of the example $(basename "$f") succeeds" 0 '^\[target\]' "" -- \
        env DAV_TOKEN=example AWS_ACCESS_KEY_ID=example AWS_SECRET_ACCESS_KEY=example "$brink" check "$f"
done

# Every command takes --x=v and --x v (issue 16): the tables are walked in
# test_opts; here the commands that used their own parsers before.
golden=$src/tests/data/sessions/golden.jsonl
for form in "--label=main --label=feature" "--label main --label feature" "-l main -lfeature"; do
    # shellcheck disable=SC2086 # the form is split into its words on purpose
    expect_run "compare $form names both sessions" 0 '^ +main +feature' "" -- \
        "$brink" compare "$golden" "$golden" $form
done
expect_run "target --listen=ADDR reads the value" 2 "" \
    '^brink: target: --listen: expected ADDR:PORT such as 127.0.0.1:8080 or \[::1\]:0, got "nowhere"$' -- \
    "$brink" target --listen=nowhere
expect_run "target -l ADDR reads the value" 2 "" '^brink: target: --listen: expected ADDR:PORT' -- \
    "$brink" target -l nowhere
expect_run "report --format=x is read as --format x" 2 "" \
    '^brink: report: --format: expected text, json, csv, csv-steps, csv-checks, csv-lost, hdr, hdr-failed, hlog or html, got "x"' -- \
    "$brink" report "$golden" --format=x
# Port 9 refuses at once: three requests, each an error, then the report.
expect_run "run -u URL -c N -n N: short names" 0 '^duration [^,]*, 3 requests' "*" -- \
    "$brink" run -u http://127.0.0.1:9/ -c 1 -n 3 --headless --no-record --fail-on none
expect_run "run -c is --concurrency" 2 "" '^brink: --concurrency: expected a whole number' -- \
    "$brink" run -u http://127.0.0.1:9/ -c ten
expect_run "target --help is the table's help" 0 '^  -l, --listen ADDR:PORT' "" -- "$brink" target --help

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# demo without a console stops by itself unless a duration is given, in
# either form: -z 1s is --duration too.
status=0
"$brink" demo --no-record -z 1s </dev/null >"$tmp/demo.out" 2>"$tmp/demo.err" || status=$?
if [ "$status" -eq 0 ] && grep -q '^duration 1\.' "$tmp/demo.out" &&
    ! grep -q 'no console, so it stops after' "$tmp/demo.err"; then
    ok "demo -z 1s without a console runs 1 s, without the 10 s default"
else
    not_ok "demo -z 1s without a console" "exit $status; $(head -c 300 "$tmp/demo.err")"
fi

# Contradictory options are usage errors (issue 22 H), and nothing is written.
expect_run "run --record F --no-record: usage error" 2 "" \
    '^brink: run: --no-record contradicts --record \(usage: brink run ' -- \
    "$brink" run --url http://127.0.0.1:9/ --record "$tmp/s.jsonl" --no-record --duration 1s --headless
if [ -e "$tmp/s.jsonl" ]; then not_ok "no session file after a usage error"; else ok "no session file after a usage error"; fi
expect_run "run --no-record --record=F: usage error" 2 "" '^brink: run: --record contradicts --no-record' -- \
    "$brink" run --url http://127.0.0.1:9/ --no-record --record="$tmp/s.jsonl" --duration 1s --headless
expect_run "compare: a third label for two sessions is a usage error" 2 "" \
    '^brink: compare: 3 labels for 2 sessions: expected at most one per session \(usage: ' -- \
    "$brink" compare "$golden" "$golden" --label a --label b --label c
expect_run "an option given twice is a usage error" 2 "" '^brink: run: --concurrency given twice' -- \
    "$brink" run --url http://127.0.0.1:9/ -c 2 --concurrency=3
expect_run "a flag with a value is a usage error" 2 "" '^brink: replay: --headless takes no value, got "--headless=yes"' -- \
    "$brink" replay "$golden" --headless=yes

# check refuses what run refuses at its start: a command probe in a file
# others can write (run exits 2 before any load; check must not pass it).
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

# brink check names where a run of its file records (issue 31).
printf '[target]\nurl = http://127.0.0.1:1/\n' >"$tmp/norec.ini"
expect_run "check names the state directory a run records into" 0 \
    "^; \\[record\\] dir is not set: runs record into $tmp/xdg/brink/sessions\$" "" -- \
    env XDG_STATE_HOME="$tmp/xdg" "$brink" check "$tmp/norec.ini"
# Its effective configuration has no "dir =" then: run again, it would move
# the sessions to ./sessions.
if env XDG_STATE_HOME="$tmp/xdg" "$brink" check "$tmp/norec.ini" 2>/dev/null | grep -q '^dir ='; then
    not_ok "no dir key in the effective configuration when [record] dir is not set"
else
    ok "no dir key in the effective configuration when [record] dir is not set"
fi
printf '[record]\ndir = /var/tmp/x\n' >>"$tmp/norec.ini"
expect_run "check with [record] dir set adds nothing" 0 '^dir = /var/tmp/x$' "" -- "$brink" check "$tmp/norec.ini"
if "$brink" check "$tmp/norec.ini" 2>/dev/null | grep -q '^; \[record\]'; then not_ok "no comment when [record] dir is set"; else ok "no comment when [record] dir is set"; fi

# Habits (issue 31): a slip in a command or an option gets the closest
# name; a file where a URL is expected gets -f; --ramp leaves a URL to the
# command; a long argument comes back whole in the error (stderr is a file
# here, as in a script's log).
expect_run "a mistyped command gets the closest" 2 "" \
    '^brink: unknown command "rnu" \(did you mean run\? run .brink --help. for the list\)$' -- "$brink" rnu
expect_run "a mistyped long option gets the closest" 2 "" \
    '^brink: run: unknown option "--urll" \(did you mean --url\?\) \(usage: brink run ' -- \
    "$brink" run --urll http://127.0.0.1:1/
expect_run "a mistyped option with its value gets the closest" 2 "" \
    '^brink: report: unknown option "--fromat=json" \(did you mean --format\?\) ' -- \
    "$brink" report --fromat=json "$golden"
expect_run "an option far from every name gets no guess" 2 "" \
    '^brink: run: unknown option "--zzzzzz" \(usage: ' -- "$brink" run --zzzzzz
expect_run "an .ini file where the URL goes: did you mean -f" 2 "" \
    "^brink: run: URL: \"$src/config/s3-multipart.ini\" is a file, not a URL: did you mean -f $src/config/s3-multipart.ini\\?\$" -- \
    "$brink" run "$src/config/s3-multipart.ini"
expect_run "an .ini file given to --url: did you mean -f" 2 "" \
    '^brink: run: --url: ".*/config/mix.ini" is a file, not a URL: did you mean -f ' -- \
    "$brink" run --url "$src/config/mix.ini"
if grep -En 'brink run [^-][^ ]*\.ini' "$src"/config/*.ini "$src"/config/*.lua >"$tmp/usage-lines"; then
    not_ok "the examples' usage lines give their file with -f" "$(cat "$tmp/usage-lines")"
else
    ok "the examples' usage lines give their file with -f"
fi
expect_run "--ramp before a URL leaves the URL as the target" 2 "" \
    '^brink: --ramp: the command line has no \[ramp\] steps' -- \
    "$brink" run --ramp http://127.0.0.1:1/ --no-record
long=$(printf '%0300d' 0 | tr 0 a)
expect_run "a long value comes back whole in the error" 2 "" \
    "^brink: URL: expected an http:// or https:// URL, got \"ftp://127.0.0.1/$long\"\$" -- \
    "$brink" run "ftp://127.0.0.1/$long" --no-record
expect_run "a long unknown option comes back whole" 2 "" \
    "^brink: run: unknown option \"--x$long\" \(usage: " -- "$brink" run "--x$long"

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
