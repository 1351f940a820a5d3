#!/bin/sh
# [target] aws_sigv4 on plain runs, on both transports: every request
# reaches tests/e2e/sigv4_server.py, which signs it again with botocore
# and answers 200 only when the Authorization is the same; PUTs with a
# body, GETs with a query, a session token. The credentials appear in no
# report, session file or message. With another secret every request is
# refused (403, http_4xx), so the server really checks; a script's request
# redirected by a 307 is signed again for its hop; without
# credentials in the environment brink exits 2 with one line naming the
# variable.
# Usage: sh test_sigv4.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup
python3 -c 'import botocore' 2>/dev/null ||
    { echo "FAIL botocore missing: run scripts/install-deps (python3-botocore)"; exit 1; }

. "$src/tests/e2e/transport_lib.sh"

KEY_ID=AKIDBRINKTEST
SECRET=brinkTestSecretKey/K7MDENG+bPxRfiCYEXAMPLE
TOKEN=brinkSessionToken//with+slashes==

python3 "$src/tests/e2e/sigv4_server.py" "$tmp/port" "$tmp/server.log" "$KEY_ID" "$SECRET" \
    2>"$tmp/server.err" &
pid=$!
base=http://127.0.0.1:$(wait_port "$tmp/port" "$pid" sigv4_server.py "$tmp/server.err") || exit 1

# sigv4_run NAME SECRET [TOKEN]: a bounded run of $tmp/NAME.ini with those
# credentials; report $tmp/NAME.out, messages $tmp/NAME.err, session
# $tmp/NAME.jsonl, exit status in $status.
sigv4_run() {
    AWS_ACCESS_KEY_ID=$KEY_ID AWS_SECRET_ACCESS_KEY=$2 AWS_SESSION_TOKEN=${3:-} \
        timeout 60 "$brink" run --headless --config "$tmp/$1.ini" --requests 40 --concurrency 4 \
        --record "$tmp/$1.jsonl" >"$tmp/$1.out" 2>"$tmp/$1.err" </dev/null
    status=$?
}

# leaks NAME: how many of the run's outputs hold the secret, the token or
# a signature.
leaks() {
    cat "$tmp/$1.out" "$tmp/$1.err" "$tmp/$1.jsonl" |
        grep -c -e "$SECRET" -e "$TOKEN" -e 'Signature=' -e 'AWS4-HMAC'
}

suite() {
    # Each transport records its own sessions: brink never overwrites one.
    rm -f "$tmp"/*.jsonl
    cat >"$tmp/s3.ini" <<INI
[target]
url = $base/bucket/object
transport = $transport
aws_sigv4 = us-east-1/s3
header = X-Amz-Meta-Run:  brink   e2e

[request put]
method = PUT
url = /bucket/part?partNumber={seq}&uploadId=a%2Fb+c%3D%3D
header = Content-Type: application/octet-stream
body = random:64KiB

[request get]
url = /bucket/list?prefix=a%20b&delimiter=/&max-keys=5
INI
    : >"$tmp/server.log"
    sigv4_run s3 "$SECRET"
    check "a signed run exits 0" 0 "$status"
    check "every request was ok" "errors: none" "$(errors_line s3)"
    check "the server verified all 40 signatures" 40 "$(grep -c '^verified' "$tmp/server.log")"
    check "it refused none" 0 "$(grep -c '^refused' "$tmp/server.log")"
    check "both kinds were signed" 2 "$(sed -n 's/^verified \([A-Z]*\) .*/\1/p' "$tmp/server.log" | sort -u | wc -l)"
    check "no secret, token or signature in the report, messages or session" 0 "$(leaks s3)"

    sed 's|aws_sigv4 = us-east-1/s3|aws_sigv4 = eu-west-3/execute-api|' "$tmp/s3.ini" >"$tmp/api.ini"
    : >"$tmp/server.log"
    sigv4_run api "$SECRET" "$TOKEN"
    check "another service, with a session token: every request ok" "errors: none" "$(errors_line api)"
    check "the server verified all 40" 40 "$(grep -c '^verified' "$tmp/server.log")"
    check "the token is in no output" 0 "$(leaks api)"

    : >"$tmp/server.log"
    cp "$tmp/s3.ini" "$tmp/wrong.ini"
    sigv4_run wrong "${SECRET}x"
    check "with another secret the server refuses every request" 40 "$(grep -c '^refused signature mismatch' "$tmp/server.log")"
    check "and they are http_4xx" 1 "$(grep -c '^  http_4xx  *40 ' "$tmp/wrong.out")"

    # A redirect's hop is signed again: a script's PUT moved by a 307 keeps
    # its body and is verified at both places.
    cat >"$tmp/hop.lua" <<'LUA'
function iteration(user)
    local r = brink.request{method = "PUT", url = "/moved/bucket/hop", body = "part", name = "put",
                            follow_redirects = 1}
    if r.status ~= 200 or r.redirects ~= 1 then error("put: " .. r.status .. " " .. r.body) end
end
LUA
    printf '[target]\nurl = %s/\ntransport = %s\naws_sigv4 = us-east-1/s3\n' "$base" "$transport" \
        >"$tmp/hop.ini"
    printf '[scenario]\nscript = hop.lua\n' >>"$tmp/hop.ini"
    : >"$tmp/server.log"
    sigv4_run hop "$SECRET"
    check "a script's redirected PUT: every request ok" "errors: none" "$(errors_line hop)"
    check "each hop was signed again and verified" 40 \
        "$(grep -c '^verified PUT /bucket/hop$' "$tmp/server.log")"
    check "after the first" 40 "$(grep -c '^verified PUT /moved/bucket/hop$' "$tmp/server.log")"
}

for transport in $transports; do
    suite
done

printf '[target]\nurl = %s/x\naws_sigv4 = us-east-1/s3\n' "$base" >"$tmp/nokey.ini"
env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY timeout 30 "$brink" run --headless \
    --config "$tmp/nokey.ini" --requests 1 >"$tmp/nokey.out" 2>"$tmp/nokey.err" </dev/null
status=$?
transport=config
check "missing credentials: exit 2" 2 "$status"
check "one line for each missing variable" 2 "$(wc -l <"$tmp/nokey.err")"
check "naming the file, line, key and variable" 1 \
    "$(grep -c '^brink: .*nokey.ini:3: \[target\] aws_sigv4: AWS_ACCESS_KEY_ID is not set (expected the credentials in the environment' "$tmp/nokey.err")"
AWS_SECRET_ACCESS_KEY=$SECRET env -u AWS_ACCESS_KEY_ID timeout 30 "$brink" run --headless \
    --config "$tmp/nokey.ini" --requests 1 >"$tmp/nokey.out" 2>"$tmp/nokey.err" </dev/null
status=$?
check "only the key id missing: exit 2, one line" "2 1" "$status $(wc -l <"$tmp/nokey.err")"
printf '[target]\nurl = %s/x\naws_sigv4 = us-east-1\n' "$base" >"$tmp/bad.ini"
AWS_ACCESS_KEY_ID=$KEY_ID AWS_SECRET_ACCESS_KEY=$SECRET timeout 30 "$brink" run --headless \
    --config "$tmp/bad.ini" --requests 1 >"$tmp/bad.out" 2>"$tmp/bad.err" </dev/null
check "a scope without a service is refused: exit 2" 2 "$?"
check "saying what was expected" 1 \
    "$(grep -c 'aws_sigv4: expected REGION/SERVICE such as us-east-1/s3, or off, got "us-east-1"' "$tmp/bad.err")"
printf '[target]\nurl = %s/x\naws_sigv4 = us-east-1/s3\nheader = Authorization: Bearer x\n' "$base" >"$tmp/auth.ini"
AWS_ACCESS_KEY_ID=$KEY_ID AWS_SECRET_ACCESS_KEY=$SECRET timeout 30 "$brink" run --headless \
    --config "$tmp/auth.ini" --requests 1 >"$tmp/auth.out" 2>"$tmp/auth.err" </dev/null
check "an Authorization header of its own is refused: exit 2" 2 "$?"
check "saying aws_sigv4 writes it" 1 "$(grep -c 'Authorization is written by aws_sigv4' "$tmp/auth.err")"
finish
