#!/bin/sh
# Scenario scripts with the cookie jar and redirects, on both transports:
# against tests/e2e/cookie_server.py, each of two users logs in (a POST
# whose 303 sets the cookie and becomes a GET), reads a page that needs
# its own cookie, forgets its cookies with brink.cookies.clear() and is
# refused; against brink target, /redirect/3 ends at 200 after 3
# redirects, a 303 after a POST ends as a GET and a 307 keeps the POST, a
# request that does not follow sees the 302, and a loop ends as too many
# redirects; a hop to another origin leaves Authorization and the first
# origin's cookies behind (curl, a plain run's too), or is refused (h1). A script that uses
# 40 check names is told, in an event per class, that names past the
# tick's room are dropped, and the report counts the calls.
# Usage: sh test_scenario_jar.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup
cpid=""
trap 'kill "$cpid" 2>/dev/null; target_cleanup' EXIT
. "$src/tests/e2e/transport_lib.sh"

python3 "$src/tests/e2e/cookie_server.py" "$tmp/port" "$tmp/server.log" 2>"$tmp/server.err" &
cpid=$!
port=$(wait_port "$tmp/port" "$cpid" cookie_server.py "$tmp/server.err") || exit 1
if ! start_target --listen 127.0.0.1:0 --seed 7; then
    echo "FAIL brink target does not start: $(cat "$tmp/target.err")"
    exit 1
fi

# jar_run NAME BASE SCRIPT REQUESTS [LINES...]: a run of SCRIPT ($tmp/SCRIPT)
# at c=2 against BASE, bounded by REQUESTS, with extra [target] LINES;
# report in $tmp/NAME.out, exit status in $status.
jar_run() {
    name=$1 base=$2 script=$3 requests=$4
    shift 4
    {
        printf '[target]\nurl = %s/\ntransport = %s\n' "$base" "$transport"
        for line in "$@"; do printf '%s\n' "$line"; done
        printf '[thresholds]\nfail_on = none\n'
        printf '[scenario]\nscript = %s\n' "$script"
    } >"$tmp/$name.ini"
    : >"$tmp/server.log"
    rm -f "$tmp/$name.jsonl"
    timeout 60 "$brink" run --headless --config "$tmp/$name.ini" --requests "$requests" \
        --concurrency 2 --record "$tmp/$name.jsonl" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    status=$?
}

# logged WORDS: lines of the server's log that start with WORDS.
logged() {
    grep -c "^$1" "$tmp/server.log"
}

cat >"$tmp/login.lua" <<'LUA'
-- Each user logs in (POST, 303 with the cookie, GET /home), reads its page
-- twice, forgets its cookies and is refused, then starts over.
function iteration(user)
    local id = user.id
    local r = brink.request{method = "POST", url = "/login?user=" .. id, body = "pw", name = "login"}
    if r.status ~= 200 or r.redirects ~= 1 or r.body ~= "home " .. id then
        error("login: " .. r.status .. " after " .. r.redirects .. " redirects")
    end
    for _ = 1, 2 do
        r = brink.request{url = "/home?user=" .. id, name = "home"}
        if r.status ~= 200 then error("home: " .. r.status) end
    end
    brink.cookies.clear()
    r = brink.request{url = "/home?user=" .. id, name = "cleared", expect = {401}}
    if r.status ~= 401 then error("after clear: " .. r.status) end
end
LUA

cat >"$tmp/redirects.lua" <<'LUA'
function iteration(user)
    local r = brink.request{url = "/redirect/3", name = "three"}
    if r.status ~= 200 or r.redirects ~= 3 or not r.url:find("/redirect/0?", 1, true) then
        error("three: " .. r.status .. " after " .. r.redirects .. " at " .. r.url)
    end
    r = brink.request{url = "/redirect/3", name = "not followed", follow_redirects = false}
    if r.status ~= 302 or r.redirects ~= 0 or r.headers.location ~= "/redirect/2?code=302" then
        error("not followed: " .. r.status)
    end
    r = brink.request{method = "POST", url = "/redirect/2?code=303", body = "x", name = "post 303"}
    if r.status ~= 200 then error("post 303: " .. r.status .. ": " .. r.body) end
    r = brink.request{method = "POST", url = "/redirect/2?code=307", body = "x", name = "post 307",
                      expect = {405}}
    if r.status ~= 405 or r.redirects ~= 2 then error("post 307: " .. r.status) end
end
LUA

cat >"$tmp/loop.lua" <<'LUA'
function iteration(user)
    local r = brink.request{url = "/redirect/loop", name = "loop", follow_redirects = 2}
    if r.error ~= "other" or r.status ~= 302 or r.redirects ~= 2 then
        error("loop: " .. tostring(r.error) .. " " .. r.status .. " " .. r.redirects)
    end
end
LUA

cat >"$tmp/cross.lua" <<'LUA'
-- A cookie for 127.0.0.1, then the same page and another origin's (via a
-- redirect), both with an Authorization header.
function iteration(user)
    local auth = {Authorization = "Bearer secret"}
    brink.request{method = "POST", url = "/login?user=" .. user.id, body = "pw", name = "login",
                  follow_redirects = 0, expect = {303}}
    brink.request{url = "/hop?to=/who", name = "same", headers = auth}
    local r = brink.request{url = "/hop?to=http://localhost:" .. PORT .. "/who", name = "other",
                            headers = auth}
    brink.counter("other " .. (r.error or r.status))
end
LUA

cat >"$tmp/names.lua" <<'LUA'
function iteration(user)
    brink.request{url = "/bytes/1", name = "get"}
    for i = 1, 40 do brink.check(true, "c" .. i) end
    brink.counter("n")
end
LUA

suite() {
    jar_run login "http://127.0.0.1:$port" login.lua 20 'cookies = yes' 'follow_redirects = 5'
    check "a login script with the jar exits 0" 0 "$status"
    check "no request or iteration failed" "errors: none" "$(errors_line login)"
    check_ge "both users logged in, each with a POST" 2 "$(logged 'login . POST')"
    check "and only with POSTs" 0 "$(grep '^login' "$tmp/server.log" | grep -vc 'POST$')"
    check_ge "the 303 became a GET carrying the new cookie, user 1" 1 "$(logged 'home 1 ok GET')"
    check_ge "and user 2, with its own" 1 "$(logged 'home 2 ok GET')"
    check "no user ever sent another's cookie, or the POST to /home" 0 \
        "$(($(logged 'home . bad') + $(logged 'home . POST')))"
    check_ge "after brink.cookies.clear() no cookie went" 2 "$(logged 'home . none')"
    check "the 303s and 200s are in the statuses" 1 \
        "$(grep -c '^HTTP statuses: 200=[0-9]* 303=[0-9]* 401=[0-9]*$' "$tmp/login.out")"
    check "no cookie value in the report, messages or session" 0 \
        "$(cat "$tmp/login.out" "$tmp/login.err" "$tmp/login.jsonl" | grep -c 'login=u')"

    jar_run nojar "http://127.0.0.1:$port" login.lua 4 'follow_redirects = 5'
    check "without cookies = yes the script's login does not hold" 1 \
        "$(grep -c '^  script .*login.lua:7: login: 401 after 1 redirects' "$tmp/nojar.out")"

    jar_run redirects "$url" redirects.lua 40 'follow_redirects = 5'
    check "redirects in a script: exit 0" 0 "$status"
    check "each ended where it should (no script error)" "errors: none" "$(errors_line redirects)"
    check "a chain counts as one request of its kind" 1 \
        "$(grep -c '^kind three: [0-9]* requests' "$tmp/redirects.out")"

    jar_run loop "$url" loop.lua 4
    check "a loop ends as too many redirects, the script sees it" 1 \
        "$(grep -c '^  other .*too many redirects (2)' "$tmp/loop.out")"
    check "and no script error" 0 "$(grep -c '^  script ' "$tmp/loop.out")"

    sed "s/PORT/$port/" "$tmp/cross.lua" >"$tmp/cross-$transport.lua"
    jar_run cross "http://127.0.0.1:$port" "cross-$transport.lua" 6 'cookies = yes' \
        'follow_redirects = 5'
    check_ge "a hop on the same origin keeps Authorization and the cookie" 1 \
        "$(logged 'who 127.0.0.1 auth=yes cookie=login=u')"
    check "every time" 0 "$(grep '^who 127' "$tmp/server.log" | grep -vc 'auth=yes cookie=login=u')"
    if [ "$transport" = curl ]; then
        check_ge "a hop to another origin leaves both behind" 1 \
            "$(logged 'who localhost auth=no cookie=-$')"
        check "every time" 0 "$(grep '^who localhost' "$tmp/server.log" | grep -vc 'auth=no cookie=-$')"
    else
        check "h1 refuses a hop to another origin" 1 \
            "$(grep -c '^  other .*redirect to another origin' "$tmp/cross.out")"
    fi

    if [ "$transport" = curl ]; then
        # A plain run leaves them behind too.
        printf '[target]\nurl = http://127.0.0.1:%s/hop?to=http://localhost:%s/who\n' "$port" "$port" \
            >"$tmp/plain.ini"
        printf 'transport = curl\nfollow_redirects = 1\nheader = Authorization: Bearer x\n' \
            >>"$tmp/plain.ini"
        : >"$tmp/server.log"
        timeout 60 "$brink" run --headless --config "$tmp/plain.ini" --requests 2 --no-record \
            >"$tmp/plain.out" 2>&1 </dev/null
        check "a plain run's hop to another origin leaves Authorization behind" 2 \
            "$(logged 'who localhost auth=no cookie=-$')"
    fi

    jar_run names "$url" names.lua 20
    check "a script with 40 check names runs" 0 "$status"
    check "an event says the first check name dropped" 1 \
        "$(grep -c 'checks: 33rd name "c33" dropped: at most 32 names' "$tmp/names.out")"
    check "the report counts the calls dropped" 1 \
        "$(grep -c '^check and counter calls dropped 1[0-9][0-9] (names past 32' "$tmp/names.out")"
}

for transport in $transports; do
    suite
done
stop_target
finish
