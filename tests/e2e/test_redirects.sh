#!/bin/sh
# [target] follow_redirects against brink target's /redirect/N, on both
# transports: a chain within the limit ends in the final 200 (each hop's
# 302 still counted by status), one past it is an "other" error saying
# "too many redirects (N)", a loop stops at the limit, and without the key
# a 302 is the answer. 303, and a POST moved by 301 or 302, become a GET
# without a body (the end of the chain answers 200 to GET only), while 307
# and 308 keep the POST and a 302 keeps a PUT (405 at the end).
# Usage: sh test_redirects.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup
. "$src/tests/e2e/transport_lib.sh"

# redirect_run NAME FOLLOW METHOD PATH: 20 requests, 2 users, of METHOD
# PATH (with a body unless GET) and follow_redirects = FOLLOW.
redirect_run() {
    {
        printf '[target]\nurl = %s\ntransport = %s\nfollow_redirects = %s\n' "$url" "$transport" "$2"
        printf '[request r]\nmethod = %s\nurl = %s\n' "$3" "$4"
        [ "$3" = GET ] || printf 'body = random:3KiB\n'
    } >"$tmp/$1.ini"
    timeout 60 "$brink" run --headless --no-record --config "$tmp/$1.ini" --requests 20 \
        --concurrency 2 >"$tmp/$1.out" 2>"$tmp/$1.err" </dev/null
    status=$?
}

statuses() {
    grep -m 1 '^HTTP statuses:' "$tmp/$1.out"
}

suite() {
    redirect_run chain 5 GET /redirect/3
    check "a chain of 3 within 5: exit 0" 0 "$status"
    check "every request ends in the final 200" "errors: none" "$(errors_line chain)"
    check "each hop's 302 counted by status" "HTTP statuses: 200=20 302=60" "$(statuses chain)"
    check "one request per chain" 1 "$(grep -c '^duration .*, 20 requests,' "$tmp/chain.out")"

    redirect_run past 2 GET /redirect/3
    check "a chain of 3 past a limit of 2 fails every request as other" 1 \
        "$(grep -c '^  other  *20 ' "$tmp/past.out")"
    check "saying too many redirects (2)" 1 "$(grep -c '^  other .*(too many redirects (2))$' "$tmp/past.out")"

    redirect_run loop 4 GET /redirect/loop
    check "a loop stops at the limit" 1 "$(grep -c '^  other .*(too many redirects (4))$' "$tmp/loop.out")"
    check "after 5 replies of 302 each" "HTTP statuses: 302=100" "$(statuses loop)"

    redirect_run off 0 GET /redirect/1
    check "without follow_redirects the 302 is the answer" "HTTP statuses: 302=20" "$(statuses off)"
    check "and is ok (expect 100-399)" "errors: none" "$(errors_line off)"

    redirect_run see_other 3 POST '/redirect/1?code=303'
    check "303 turns a POST into a GET" "HTTP statuses: 200=20 303=20" "$(statuses see_other)"
    redirect_run found 3 POST '/redirect/1?code=302'
    check "302 turns a POST into a GET, as browsers do" "HTTP statuses: 200=20 302=20" "$(statuses found)"
    redirect_run moved 3 POST '/redirect/1?code=301'
    check "301 too" "HTTP statuses: 200=20 301=20" "$(statuses moved)"
    redirect_run temporary 3 POST '/redirect/1?code=307'
    check "307 keeps the POST" "HTTP statuses: 307=20 405=20" "$(statuses temporary)"
    redirect_run permanent 3 POST '/redirect/1?code=308'
    check "308 keeps the POST" "HTTP statuses: 308=20 405=20" "$(statuses permanent)"
    redirect_run put 3 PUT '/redirect/1?code=302'
    check "302 keeps a PUT" "HTTP statuses: 302=20 405=20" "$(statuses put)"
}

must_start_target --listen 127.0.0.1:0 --seed 7
for transport in $transports; do
    suite
done
stop_target
finish
