#!/bin/sh
# Everyday use (issue 21, "Done when"), against brink target on 127.0.0.1:
#   1. the one-line form: brink run -c 4 -n 200 -m POST -H 'X-A: 1' -d hello
#      URL/echo; the target's ground truth (its /echo ledger) holds 200
#      POSTs with that header and that body, and the session records the
#      same configuration (method, header, body, requests)
#   2. -D FILE and -T TYPE: the file's bytes and the Content-Type arrive
#   3. a headless run with no end stops after 10 s and says so; -z 0 is
#      until stopped (a "stop" line on stdin ends it)
#   4. messages name what was given: --rate 0, -c without its value before
#      -n or before the URL, the URL twice
#   5. brink --version names the commit and libcurl, libuv, ncurses, OpenSSL, Lua
#   6. brink sessions lists the runs (target, requests, verdict, file);
#      report, replay and compare take last; runs record into
#      $XDG_STATE_HOME/brink/sessions, also from a directory they cannot write
#   7. cmake --install into a DESTDIR: the installed binary runs, man -l
#      renders brink(1) (every option of every command's --help in it) and
#      brink-config(5); the bash completion loads (complete -p brink) and
#      completes "brink r" to run, replay, report, "--config " to *.ini and
#      "report " to last and *.jsonl, each --format to its values; zsh reads
#      its completion
# Bounded loads; about 20 s. Usage: sh test_everyday.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

for tool in man bash zsh; do
    command -v $tool >/dev/null 2>&1 || { echo "FAIL $tool missing: run scripts/install-deps"; exit 1; }
done
target_setup
start_target || { echo "FAIL brink target did not start: $(cat "$tmp/target.err")"; exit 1; }
mkdir "$tmp/cwd"
cd "$tmp/cwd" || exit 1
XDG_STATE_HOME=$tmp/state
export XDG_STATE_HOME

# echo_count METHOD BODY HEADERS: how many /echo requests of that shape the
# target saw (HEADERS: its X-* and Content-Type lines, each ending in \n).
echo_count() {
    curl -s "$url/_control" | python3 -c '
import json, sys
shapes = json.load(sys.stdin)["ground_truth"]["echo"]["shapes"]
want = (sys.argv[1], sys.argv[2], sys.argv[3].replace("\\n", "\n"))
print(sum(s["count"] for s in shapes if (s["method"], s["body"], s["headers"]) == want))' "$@"
}

# --- 1. the one-line form ---------------------------------------------------
timeout 60 "$brink" run -c 4 -n 200 -m POST -H 'X-A: 1' -d hello "$url/echo" \
    >"$tmp/one.out" 2>"$tmp/one.err" </dev/null
check "one-line run exits 0" 0 $?
check "200 POSTs with X-A: 1 and the body hello reached the target" 200 \
    "$(echo_count POST hello 'X-A: 1\n')"
check "and nothing else reached /echo" 200 "$(truth requests_by_endpoint echo)"
if grep -q '^HTTP statuses: 200=200$' "$tmp/one.out"; then ok "the report counts 200 replies"; else not_ok "the report counts 200 replies" "$(head -c 300 "$tmp/one.out")"; fi
session=$(sed -n 's/^brink: run: recorded [0-9]* ticks in //p' "$tmp/one.err")
head -n 1 "$session" >"$tmp/header.json" 2>/dev/null
config=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["config"])' "$tmp/header.json" 2>/dev/null)
for line in '[request default]' 'method = POST' 'body = hello' 'header = X-A: 1' 'requests = 200' 'concurrency = 4'; do
    if printf '%s\n' "$config" | grep -qxF "$line"; then
        ok "the session's configuration says $line"
    else
        not_ok "the session's configuration says $line" "$(printf '%s' "$config" | head -c 600)"
    fi
done

# --- 2. -D and -T ------------------------------------------------------------
printf '{"k": 1}' >"$tmp/body.json"
timeout 60 "$brink" run -n 20 -m PUT -D "$tmp/body.json" -T application/json "$url/echo" \
    >/dev/null 2>"$tmp/file.err" </dev/null
check "-D FILE -T TYPE: 20 PUTs of the file with its Content-Type" 20 \
    "$(echo_count PUT '{"k": 1}' 'Content-Type: application/json\n')"

# --- 3. the headless rule ----------------------------------------------------
timeout 60 "$brink" run -c 1 "$url/bytes/10" >"$tmp/noend.out" 2>"$tmp/noend.err" </dev/null
check "a headless run with no end exits 0" 0 $?
if grep -q '^brink: run: no console and no end set, so it stops after 10s' "$tmp/noend.err" &&
    grep -Eq '^duration 10\.[0-9]+s,' "$tmp/noend.out"; then
    ok "it stops after 10 s and says so"
else
    not_ok "it stops after 10 s and says so" "$(head -n 2 "$tmp/noend.err"); $(head -n 1 "$tmp/noend.out")"
fi
mkfifo "$tmp/in"
timeout 60 "$brink" run -z 0 -c 1 "$url/bytes/10" <"$tmp/in" >"$tmp/forever.out" 2>"$tmp/forever.err" &
run_pid=$!
exec 3>"$tmp/in"
wait_for "$tmp/forever.err" '^t=1s ' 10 || not_ok "-z 0: the run goes on" "$(cat "$tmp/forever.err")"
echo stop >&3
exec 3>&-
wait "$run_pid"
check "-z 0 runs until a stop, then exits 0" 0 $?
run_pid=""
if grep -q 'stops after' "$tmp/forever.err"; then not_ok "-z 0 sets no end" "$(head -n 1 "$tmp/forever.err")"; else ok "-z 0 sets no end"; fi

# --- 4. messages -------------------------------------------------------------
expect_run "--rate 0 names the value" 2 "" '^brink: --rate: expected a rate above 0, such as 100/s, got "0"$' -- \
    "$brink" run --rate 0 "$url/"
expect_run "-c before another option names it" 2 "" '^brink: run: -c needs a value \(N\), got the option "-n"' -- \
    "$brink" run -c -n 5 "$url/"
expect_run "-c before the URL names what it took" 2 "" \
    "^brink: run: no target: --concurrency took \"$url/\" as its value" -- "$brink" run -c "$url/"
expect_run "a URL given twice" 2 "" '^brink: run: --url: the URL is given already' -- \
    "$brink" run "$url/" --url "$url/"
expect_run "-d and -D contradict" 2 "" '^brink: run: --body-file contradicts --body' -- \
    "$brink" run -d x -D "$tmp/body.json" "$url/"

# --- 5. --version ------------------------------------------------------------
"$brink" --version >"$tmp/version" 2>&1
check "--version exits 0" 0 $?
if grep -Eq '^brink [0-9]+\.[0-9]+\.[0-9]+ \(commit [0-9a-f]{7,}\+?\)$|^brink [0-9.]+ \(commit unknown\)$' "$tmp/version"; then ok "--version names brink's version and commit"; else not_ok "--version names brink's version and commit" "$(head -n 1 "$tmp/version")"; fi
for lib in libcurl libuv ncurses OpenSSL Lua; do
    if grep -Eq "^  $lib +([A-Za-z]+ )?[0-9]+\.[0-9]+" "$tmp/version"; then ok "--version names $lib's version"; else not_ok "--version names $lib's version" "$(cat "$tmp/version")"; fi
done

# --- 6. sessions, last, the state directory ---------------------------------
"$brink" sessions >"$tmp/list" 2>"$tmp/list.err"
check "brink sessions exits 0" 0 $?
check "it lists the four runs" 4 "$(grep -c '\.jsonl$' "$tmp/list")"
if grep -E "^[0-9-]{10} [0-9:]{8}Z +$url/echo +[0-9.]+s +200 +pass +$tmp/state/brink/sessions/.*\.jsonl$" "$tmp/list" >/dev/null; then
    ok "a row says when, the target, duration, 200 requests, pass, the file"
else
    not_ok "a row says when, the target, duration, 200 requests, pass, the file" "$(cat "$tmp/list")"
fi
newest=$(tail -n 1 "$tmp/list" | awk '{print $NF}')
"$brink" report "$newest" >"$tmp/report.want" 2>/dev/null
"$brink" report last >"$tmp/report.got" 2>"$tmp/report.err"
check "report last exits 0" 0 $?
if cmp -s "$tmp/report.want" "$tmp/report.got"; then ok "report last is the report of the newest session"; else not_ok "report last is the report of the newest session" "$(head -c 300 "$tmp/report.err")"; fi
expect_run "replay last" 0 '^duration ' "*" -- "$brink" replay --headless last
expect_run "compare last with a file" 0 'level' "*" -- "$brink" compare last "$session"
expect_run "last with no session names where it looked" 1 "" \
    '^brink: report: last: no session files in /.*/nostate/brink/sessions or sessions$' -- \
    sh -c "cd '$tmp' && XDG_STATE_HOME='$tmp/nostate' '$brink' report last"

# A directory the run cannot write: as nobody when root (root writes anywhere).
mkdir "$tmp/ro" "$tmp/state2"
chmod 555 "$tmp/ro"
chmod 777 "$tmp/state2"
chmod 755 "$tmp"
as_user=""
if [ "$(id -u)" -eq 0 ]; then
    command -v setpriv >/dev/null 2>&1 || { not_ok "setpriv (util-linux) runs the run as nobody"; }
    as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
(cd "$tmp/ro" && XDG_STATE_HOME="$tmp/state2" HOME="$tmp/state2" $as_user timeout 60 "$brink" run -n 5 "$url/bytes/1" \
    >"$tmp/ro.out" 2>"$tmp/ro.err" </dev/null)
check "a run in a directory it cannot write exits 0" 0 $?
if grep -q "^brink: run: recorded [0-9]* ticks in $tmp/state2/brink/sessions/.*\.jsonl\$" "$tmp/ro.err" &&
    ls "$tmp/state2/brink/sessions/"*.jsonl >/dev/null 2>&1; then
    ok "it records into \$XDG_STATE_HOME/brink/sessions"
else
    not_ok "it records into \$XDG_STATE_HOME/brink/sessions" "$(cat "$tmp/ro.err")"
fi
expect_run "brink sessions there lists it" 0 "$url/bytes/1 .* 5 +pass +$tmp/state2/brink/sessions/" "*" -- \
    sh -c "cd '$tmp/ro' && XDG_STATE_HOME='$tmp/state2' '$brink' sessions"

# --- 7. installed -------------------------------------------------------------
build=$(dirname "$brink")
root="$tmp/root"
DESTDIR="$root" cmake --install "$build" --prefix /usr/local >"$tmp/install.log" 2>&1
check "cmake --install into a DESTDIR exits 0" 0 $?
for f in bin/brink share/man/man1/brink.1 share/man/man5/brink-config.5 \
    share/bash-completion/completions/brink \
    share/doc/brink/examples/minimal.ini share/doc/brink/README.md; do
    if [ -f "$root/usr/local/$f" ]; then ok "installed $f"; else not_ok "installed $f" "$(tail -n 3 "$tmp/install.log")"; fi
done
# site-functions under a prefix such as /usr/local, vendor-completions under /usr.
zsh_dir=$(dirname "$(ls "$root"/usr/local/share/zsh/*/_brink 2>/dev/null | head -n 1)")
if [ -f "$zsh_dir/_brink" ]; then ok "installed the zsh completion"; else not_ok "installed the zsh completion"; fi
expect_run "the installed brink runs" 0 '^brink [0-9]' "" -- "$root/usr/local/bin/brink" --version
MANWIDTH=100 man -l "$root/usr/local/share/man/man1/brink.1" >"$tmp/brink.1.txt" 2>"$tmp/man.err"
check "man -l renders brink(1)" 0 $?
MANWIDTH=100 man -l "$root/usr/local/share/man/man5/brink-config.5" >"$tmp/brink-config.5.txt" 2>>"$tmp/man.err"
check "man -l renders brink-config(5)" 0 $?
check "groff has nothing to say about either page" "" "$(cat "$tmp/man.err")"
missing=""
for cmd in run demo replay report compare check target sessions; do
    for o in $("$brink" "$cmd" --help | grep -oE '^  (-[a-zA-Z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+'); do
        grep -q -- "$o" "$tmp/brink.1.txt" || missing="$missing $cmd $o"
    done
    grep -q "brink $cmd" "$tmp/brink.1.txt" || missing="$missing $cmd"
done
check "brink(1) has every command and every option of their --help" "" "$missing"
for s in '\[target\]' '\[load\]' '\[request NAME\]' '\[probe NAME\]' '\[ramp\]' '\[record\]'; do
    if grep -q "$s" "$tmp/brink-config.5.txt"; then ok "brink-config(5) has $s"; else not_ok "brink-config(5) has $s"; fi
done

completion="$root/usr/local/share/bash-completion/completions/brink"
check "the bash completion loads" "complete -F _brink brink" \
    "$(bash -c ". '$completion' && complete -p brink" 2>&1)"
# comp WORDS...: what the completion offers for the last word.
comp() {
    bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _brink; echo "${COMPREPLY[*]}"' "$completion" "$@"
}
check "brink r completes to run, replay, report" "run replay report" "$(comp brink r)"
touch a.ini b.jsonl c.txt
mkdir -p runs
check "run --config completes to .ini files and folders" "a.ini runs" "$(comp brink run --config '')"
check "report completes to last and session files" "last b.jsonl runs" "$(comp brink report '')"
check "run -- completes to long options" "--config --content-type --concurrency" "$(comp brink run --con)"
check "run --format completes to its formats" "json" "$(comp brink run --format j)"
check "report --format offers every format" "csv csv-steps csv-checks csv-lost" "$(comp brink report --format cs)"
check "compare --format offers text and html" "text html" "$(comp brink compare a.jsonl --format '')"
zsh -c "autoload -Uz compinit && compinit -u -d '$tmp/zcompdump' && fpath=('$zsh_dir' \$fpath) && autoload -Uz +X _brink && functions _brink | grep -q _brink_sessions" \
    >"$tmp/zsh.err" 2>&1
check "zsh reads its completion" "0 " "$? $(cat "$tmp/zsh.err")"

finish
