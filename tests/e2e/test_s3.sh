#!/bin/sh
# The shipped S3 multipart scenario (config/s3-multipart.lua, signed with
# AWS Signature V4) against a real S3 server: s3rver 3.7.1 from npm,
# installed by this script into ~/.cache/brink/npm (XDG_CACHE_HOME
# honoured) and run with Debian's node. At c = 1, 4 and 16 each user makes
# 2 uploads of 4 parts of 5 MiB: every CompleteMultipartUpload succeeds,
# the bucket lists the 2c objects of 20 MiB each (sizes checked with
# botocore), and brink's step table shows initiate, part and complete
# apart. An unknown access key gets 403s, in the class http_4xx.
# Usage: sh test_s3.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"

for tool in node npm curl python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "FAIL $tool missing: run scripts/install-deps"; exit 1; }
done
python3 -c 'import botocore' 2>/dev/null || { echo "FAIL python3-botocore missing: run scripts/install-deps"; exit 1; }

cache=${XDG_CACHE_HOME:-$HOME/.cache}/brink/npm
s3rver=$cache/node_modules/.bin/s3rver
if ! "$s3rver" --version 2>/dev/null | grep -qx '3.7.1'; then
    mkdir -p "$cache"
    if ! timeout 300 npm install --no-audit --no-fund --prefix "$cache" s3rver@3.7.1 >"$cache/install.log" 2>&1; then
        echo "FAIL npm install s3rver@3.7.1 into $cache: $(tail -n 3 "$cache/install.log")"
        exit 1
    fi
fi

tmp=$(mktemp -d)
s3_pid=""
cleanup() {
    [ -n "$s3_pid" ] && kill "$s3_pid" 2>/dev/null && wait "$s3_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir "$tmp/data"
"$s3rver" -d "$tmp/data" -a 127.0.0.1 -p "$port" -s --configure-bucket brink >"$tmp/s3rver.log" 2>&1 &
s3_pid=$!
up=0
deadline=$(($(now_ms) + 20000))
while [ "$(now_ms)" -lt "$deadline" ]; do
    if curl -s -o /dev/null "http://127.0.0.1:$port/"; then up=1; break; fi
    kill -0 "$s3_pid" 2>/dev/null || break
    sleep 0.1
done
check "s3rver 3.7.1 answers on 127.0.0.1:$port" 1 "$up"
[ "$up" -eq 1 ] || { cat "$tmp/s3rver.log"; finish; exit 1; }

cp "$src/config/s3-multipart.lua" "$tmp/"
sed "s/127.0.0.1:4568/127.0.0.1:$port/" "$src/config/s3-multipart.ini" >"$tmp/s3.ini"

# bucket list|empty: the bucket's objects as "KEY SIZE" lines, sorted; or
# deletes them all.
bucket() {
    python3 - "$port" "$1" <<'PY'
import sys
import botocore.session
c = botocore.session.get_session().create_client(
    's3', endpoint_url='http://127.0.0.1:%s' % sys.argv[1], region_name='us-east-1',
    aws_access_key_id='S3RVER', aws_secret_access_key='S3RVER')
keys = [(o['Key'], o['Size']) for o in c.list_objects_v2(Bucket='brink').get('Contents', [])]
if sys.argv[2] == 'empty':
    for k, _ in keys:
        c.delete_object(Bucket='brink', Key=k)
else:
    for k, size in sorted(keys):
        print(k, size)
PY
}

for c in 1 4 16; do
    bucket empty
    n=$((c * 2 * 6))
    AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER timeout 240 "$brink" run --headless \
        --config "$tmp/s3.ini" --concurrency "$c" --requests "$n" --record "$tmp/c$c.jsonl" \
        >"$tmp/c$c.out" 2>"$tmp/c$c.err" </dev/null
    check "c=$c: the uploads run to their end (exit 0)" 0 "$?"
    check "c=$c: no request failed" "errors: none" "$(grep -m 1 '^errors:' "$tmp/c$c.out")"
    check "c=$c: $((c * 2)) CompleteMultipartUpload, each answered 200" "$((c * 2))" \
        "$(sed -n 's/^kind complete: \([0-9,]*\) requests.*/\1/p' "$tmp/c$c.out" | tr -d ,)"
    check "c=$c: every one with its result in the body (check never failed)" 0 \
        "$(grep '"type":"tick"' "$tmp/c$c.jsonl" | grep -c '"name":"check:complete succeeded","state":"ok","value":[1-9]')"
    i=1
    : >"$tmp/want"
    while [ "$i" -le "$c" ]; do
        printf 'brink-%d-1 20971520\nbrink-%d-2 20971520\n' "$i" "$i" >>"$tmp/want"
        i=$((i + 1))
    done
    bucket list >"$tmp/got"
    check "c=$c: the bucket lists the $((c * 2)) objects of 20 MiB each" "$(sort "$tmp/want")" "$(cat "$tmp/got")"
    "$brink" report "$tmp/c$c.jsonl" >"$tmp/c$c.report" 2>&1
    for kind in initiate part complete; do
        want=$((c * 2))
        [ "$kind" = part ] && want=$((c * 8))
        check "c=$c: the step table shows $kind apart ($want requests)" 1 \
            "$(grep -cE "^  c=$c +$kind +$want +[0-9.]+ +0 " "$tmp/c$c.report")"
    done
done

AWS_ACCESS_KEY_ID=UNKNOWNKEY AWS_SECRET_ACCESS_KEY=S3RVER timeout 60 "$brink" run --headless \
    --config "$tmp/s3.ini" --concurrency 2 --requests 4 --no-record \
    >"$tmp/denied.out" 2>"$tmp/denied.err" </dev/null
check "an unknown access key fails the run's thresholds (exit 3)" 3 "$?"
check "its requests are answered 403" 1 "$(grep -c '^HTTP statuses: 403=4$' "$tmp/denied.out")"
check "and counted as http_4xx" 1 "$(grep -cE '^  http_4xx +4 ' "$tmp/denied.out")"
check "the key never reaches the report" 0 "$(grep -c UNKNOWNKEY "$tmp/denied.out" "$tmp/denied.err" | awk -F: '{ n += $2 } END { print n }')"
finish
