#!/bin/sh
# brink target --h2c: HTTP/2 cleartext with prior knowledge, checked with
# curl(1) and raw sockets against the real binary on 127.0.0.1: the same
# endpoints and control as over HTTP/1.1, the ground-truth counters of
# what this script did, faults in HTTP/2 terms, and clients that are not
# HTTP/2 or break it, which lose their connection and nothing else.
# Usage: sh test_target_h2c.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup

# h2 ARGS...: curl over h2c, prints "STATUS SIZE VERSION", sets $rc.
h2() {
    curl -sS --http2-prior-knowledge -o "$tmp/h2.body" \
        -w '%{http_code} %{size_download} %{http_version}' "$@" 2>"$tmp/h2.err"
    rc=$?
}

# raw HEX_OR_TEXT: sends bytes to the h2c port, prints what came back
# until the server closed (at most 5 s): "closed N" with the bytes' count,
# or "open" when it did not close.
raw() {
    python3 - "$h2c_port" "$1" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin-1"))
s.settimeout(5)
n = 0
try:
    while True:
        b = s.recv(65536)
        if not b:
            print("closed", n)
            break
        n += len(b)
except socket.timeout:
    print("open")
except ConnectionResetError:
    print("closed", n)
PY
}

expect_run "a bad --h2c is a usage error" 2 "" '^brink: target: --h2c: expected ADDR:PORT' -- "$brink" target --h2c nowhere

start_target --h2c 127.0.0.1:0 ||
    { not_ok "brink target --h2c starts" "$(cat "$tmp/target.err")"; finish; exit 1; }
h2c=$(sed -n 's/^h2c: //p' "$tmp/target.out")
h2c_port=${h2c##*:}
check "the second line is the h2c URL" "h2c: http://127.0.0.1:$h2c_port" "$(sed -n 2p "$tmp/target.out")"

conns0=$(truth connections_accepted)
req0=$(truth requests_total)

# --- endpoints ------------------------------------------------------------------
check "GET /bytes/1000 over HTTP/2" "200 1000 2" "$(h2 "$h2c/bytes/1000")"
cp "$tmp/h2.body" "$tmp/bytes.h2"
curl -s -o "$tmp/bytes.h1" "$url/bytes/1000"
cmp -s "$tmp/bytes.h1" "$tmp/bytes.h2" && ok "the same bytes as over HTTP/1.1" ||
    not_ok "the same bytes as over HTTP/1.1" "$(cmp "$tmp/bytes.h1" "$tmp/bytes.h2")"
check "a large body in many DATA frames" "200 3000000 2" "$(h2 "$h2c/bytes/3000000")"
check "POST /echo" "200 8 2" "$(h2 -H 'X-A: 1' --data-binary 'hello h2' "$h2c/echo")"
check "POST /echo: the body comes back" "hello h2" "$(cat "$tmp/h2.body")"
check "the echo ledger has its shape (names in lower case)" \
    "POST hello h2 x-a: 1|content-type: application/x-www-form-urlencoded|" \
    "$(json_get "$url/_control" ground_truth echo shapes | python3 -c '
import ast, sys
s = [x for x in ast.literal_eval(sys.stdin.read()) if x["body"] == "hello h2"][0]
print(s["method"], s["body"], s["headers"].replace("\n", "|"))')"
check "/delay/50" "200 2" "$(h2 "$h2c/delay/50" | cut -d' ' -f1,3)"
check "/delay/50 says so" "delayed 50 ms" "$(head -n 1 "$tmp/h2.body")"
check "PUT /kv/a" "204 0 2" "$(h2 -X PUT --data-binary 'v1' "$h2c/kv/a")"
check "GET /kv/a" "200 2 2" "$(h2 "$h2c/kv/a")"
check "GET /kv/a: the value" "v1" "$(cat "$tmp/h2.body")"
check "/redirect/2?code=307 keeps its query" "307 http://127.0.0.1:$h2c_port/redirect/1?code=307" \
    "$(curl -s --http2-prior-knowledge -o /dev/null -w '%{http_code} %{redirect_url}' "$h2c/redirect/2?code=307")"
check "POST /_control over HTTP/2" "200" "$(h2 -X POST --data-binary '{"stall_ms": 400}' "$h2c/_control" | cut -d' ' -f1)"
check "GET /_control over HTTP/2 shows the setting" "400" \
    "$(curl -s --http2-prior-knowledge "$h2c/_control" | python3 -c 'import json,sys; print(json.load(sys.stdin)["settings"]["stall_ms"])')"
check "the counters: 10 HTTP/2 connections accepted" 10 $(($(truth connections_accepted) - conns0 - 3))
check "the counters: 10 HTTP/2 requests (and 3 of /_control over HTTP/1.1)" 13 $(($(truth requests_total) - req0))

# --- faults -----------------------------------------------------------------------
r=$(truth resets_sent)
h2 -H 'X-Brink-Fault: reset' "$h2c/bytes/100" >/dev/null
check "reset: curl 92, the stream reset" "92" "$rc"
grep -q 'INTERNAL_ERROR' "$tmp/h2.err" && ok "reset: RST_STREAM with INTERNAL_ERROR" ||
    not_ok "reset: RST_STREAM with INTERNAL_ERROR" "$(cat "$tmp/h2.err")"
check "reset: counted" $((r + 1)) "$(truth resets_sent)"
c=$(truth closed_early)
h2 -H 'X-Brink-Fault: close_mid_body' "$h2c/bytes/100000" >/dev/null
check "close_mid_body: curl 18, the body short" "18" "$rc"
# Half the body went out; curl keeps what it had read when the RST_STREAM
# came, which may be less.
holds "close_mid_body: the body is short" "n > 0 && n <= 50000" -v n="$(wc -c <"$tmp/h2.body")"
check "close_mid_body: counted" $((c + 1)) "$(truth closed_early)"
m=$(truth malformed_sent)
h2 -H 'X-Brink-Fault: malformed_status' "$h2c/bytes/10" >/dev/null
[ "$rc" -ne 0 ] && ok "malformed_status: curl refuses it" || not_ok "malformed_status: curl refuses it" "exit 0"
check "malformed_status: counted" $((m + 1)) "$(truth malformed_sent)"
s=$(truth stalled)
a=$(truth client_aborts)
h2 --max-time 0.2 -H 'X-Brink-Fault: stall' "$h2c/bytes/10" >/dev/null
check "stall: curl times out" "28" "$rc"
check "stall: counted" $((s + 1)) "$(truth stalled)"
check "stall: the client leaving is a client abort" $((a + 1)) "$(wait_truth client_aborts $((a + 1)))"
a=$(truth client_aborts)
h2 -H 'X-Brink-Fault: stall' "$h2c/bytes/10" >/dev/null
check "stall: after stall_ms the stream ends without its body (curl 18)" "18" "$rc"
check "stall: ended by the target, not a client abort" "$a" "$(truth client_aborts)"

# --- clients that are not HTTP/2, or break it ---------------------------------------
req=$(truth requests_total)
case $(raw 'GET / HTTP/1.1\r\nHost: x\r\n\r\n') in
closed*) ok "an HTTP/1.1 request on the h2c port: the connection closes" ;;
*) not_ok "an HTTP/1.1 request on the h2c port: the connection closes" "it stayed open" ;;
esac
case $(raw 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x04\x09\x00\x00\x00\x00\x01garbage, not a frame') in
closed*) ok "garbage after the preface: the connection closes" ;;
*) not_ok "garbage after the preface: the connection closes" "it stayed open" ;;
esac
big=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do big="$big -H X-Big-$i:$(head -c 4000 /dev/zero | tr '\0' b)"; done
# shellcheck disable=SC2086
h2 $big "$h2c/bytes/10" >/dev/null
[ "$rc" -ne 0 ] && ok "a request header block over 64 KiB is refused" ||
    not_ok "a request header block over 64 KiB is refused" "curl exit 0"
check "none of them is a request (only this /_control is)" $((req + 1)) "$(truth requests_total)"
check "the server still serves HTTP/2" "200 10 2" "$(h2 "$h2c/bytes/10")"

# 300 requests at once on one connection: 100 are taken (its
# SETTINGS_MAX_CONCURRENT_STREAMS), the rest refused (REFUSED_STREAM), and
# only the ones taken are requests. Prints "replies refused".
flood() {
    python3 - "$h2c_port" 300 <<'PY'
import socket, struct, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
def frame(t, flags, sid, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([t, flags]) + struct.pack(">I", sid) + payload
# GET http://localhost/delay/300 in HPACK: indexed :method and :scheme,
# :authority and :path literal with indexed names.
block = b"\x82\x86\x01\x09localhost\x04\x0a/delay/300"
out = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, b"")
for i in range(n):
    out += frame(1, 0x5, 2 * i + 1, block)  # END_STREAM | END_HEADERS
s = socket.create_connection(("127.0.0.1", port))
s.sendall(out)
s.settimeout(0.5)
buf, heads, refused, end = b"", 0, 0, time.time() + 20
while time.time() < end and heads + refused < n:
    try:
        b = s.recv(65536)
    except socket.timeout:
        continue
    if not b:
        break
    buf += b
    while len(buf) >= 9:
        ln = int.from_bytes(buf[:3], "big")
        if len(buf) < 9 + ln:
            break
        t, sid = buf[3], int.from_bytes(buf[5:9], "big") & 0x7fffffff
        heads += t == 1 and sid > 0
        refused += t == 3 and int.from_bytes(buf[9:13], "big") == 7
        buf = buf[9 + ln:]
print(heads, refused)
PY
}
req=$(truth requests_total)
check "300 streams at once: 100 answered, 200 refused" "100 200" "$(flood)"
check "300 streams at once: the 100 answered are the requests" $((req + 101)) "$(truth requests_total)"

# --- stop -------------------------------------------------------------------------
curl -s --http2-prior-knowledge -H 'X-Brink-Fault: stall' "$h2c/bytes/10" >/dev/null 2>&1 &
held=$!
wait_truth stalled $((s + 3)) >/dev/null
stop_target
check "SIGTERM with an HTTP/2 stream open: exit 0" 0 "$stop_status"
wait "$held"
finish
