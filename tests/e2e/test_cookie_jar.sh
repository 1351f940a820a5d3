#!/bin/sh
# [target] cookies = yes on plain runs, on both transports, against
# tests/e2e/cookie_server.py: each virtual user logs in once and then
# sends back exactly the session cookie the server last gave it (no other
# user's, no Secure cookie over http, none for another path or domain, none
# that expired, never twice), so 4 users x 10 requests are 4 logins and 36
# sessions. Without the key no cookie is sent. A reply setting 60 cookies
# fills a jar: 10 are dropped and the report counts them. No cookie value
# reaches the report, the messages or the session file.
# Usage: sh test_cookie_jar.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup
. "$src/tests/e2e/transport_lib.sh"

python3 "$src/tests/e2e/cookie_server.py" "$tmp/port" "$tmp/server.log" 2>"$tmp/server.err" &
pid=$!
base=http://127.0.0.1:$(wait_port "$tmp/port" "$pid" cookie_server.py "$tmp/server.err") || exit 1

# cookie_run NAME REQUESTS CONCURRENCY: a bounded run of $tmp/NAME.ini.
cookie_run() {
    : >"$tmp/server.log"
    rm -f "$tmp/$1.jsonl"
    timeout 60 "$brink" run --headless --config "$tmp/$1.ini" --requests "$2" --concurrency "$3" \
        --record "$tmp/$1.jsonl" >"$tmp/$1.out" 2>"$tmp/$1.err" </dev/null
    status=$?
}

count() {
    grep -c "^$1 " "$tmp/server.log"
}

suite() {
    printf '[target]\nurl = %s/step?user={vu}\ntransport = %s\ncookies = yes\n' "$base" "$transport" >"$tmp/jar.ini"
    cookie_run jar 40 4
    check "a run with cookies exits 0" 0 "$status"
    check "every request was ok" "errors: none" "$(errors_line jar)"
    check "each of the 4 users logged in once" 4 "$(count new)"
    check "and sent back its own latest session 36 times" 36 "$(count ok)"
    check "never a wrong, extra or repeated cookie" 0 "$(count bad)"
    check "no cookie value in the report, messages or session" 0 \
        "$(cat "$tmp/jar.out" "$tmp/jar.err" "$tmp/jar.jsonl" | grep -c 'sid=u')"

    printf '[target]\nurl = %s/step?user={vu}\ntransport = %s\n' "$base" "$transport" >"$tmp/nojar.ini"
    cookie_run nojar 20 2
    check "without cookies = yes no cookie is sent" 20 "$(count new)"

    printf '[target]\nurl = %s/flood\ntransport = %s\ncookies = yes\n' "$base" "$transport" >"$tmp/flood.ini"
    cookie_run flood 1 1
    check "a reply of 60 cookies: the report counts 10 dropped" 1 \
        "$(grep -c '^cookies dropped 10 (a user.s jar holds 50 cookies, 16 KiB)$' "$tmp/flood.out")"
    check "and the session file too" 1 "$(grep -c '"cookies_dropped":10' "$tmp/flood.jsonl")"
}

for transport in $transports; do
    suite
done
finish
