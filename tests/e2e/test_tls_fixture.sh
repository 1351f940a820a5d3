#!/bin/sh
# The TLS fixture of tests/tls/lib.sh checked with curl(1): every nginx port
# and every mode of the garbage server does what the tests built on it rely
# on. Fails (never skips) when nginx, openssl, python3 or curl is missing.
# Usage: sh test_tls_fixture.sh BRINK SRCDIR (BRINK is not used)
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/tls/lib.sh"

tmp=$(mktemp -d)
trap 'tls_cleanup; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

if ! tls_setup "$tmp" "$src" || ! tls_make_certs || ! tls_nginx_start; then
    echo "FAIL the fixture did not start"
    exit 1
fi
ok "certificates made and nginx started ($(nginx -v 2>&1 | sed 's/.*\///'))"
ca=$tls_dir/ca.pem

# get ARGS...: "STATUS SIZE HTTP_VERSION" of one request; curl's exit status
# in $rc and its message in $tmp/curl.err (not when called inside $(...)).
get() {
    curl -sS -o /dev/null -w '%{http_code} %{size_download} %{http_version}' "$@" \
        2>"$tmp/curl.err" >"$tmp/curl.out"
    rc=$?
}

# refused NAME WANT_RC PATTERN ARGS...: curl fails with WANT_RC and a
# message matching PATTERN.
refused() {
    name=$1 want=$2 pat=$3
    shift 3
    get "$@"
    if [ "$rc" -eq "$want" ] && grep -Eq -- "$pat" "$tmp/curl.err"; then
        ok "$name"
    else
        not_ok "$name" "curl exit $rc, expected $want /$pat/: $(head -c 200 "$tmp/curl.err")"
    fi
}

good=https://127.0.0.1:$tls_port_good

# --- the good certificate -----------------------------------------------------
get --cacert "$ca" --http1.1 "$good/13"
check "trusted through the CA file, HTTP/1.1: 13 bytes" "0 200 13 1.1" "$rc $(cat "$tmp/curl.out")"
get --cacert "$ca" --http1.1 "https://localhost:$tls_port_good/133k"
check "localhost is a name of the certificate: 133 KiB" "0 200 136192 1.1" "$rc $(cat "$tmp/curl.out")"
get --cacert "$ca" --http2 "$good/13"
check "h2 is negotiated with curl --http2" "0 200 13 2" "$rc $(cat "$tmp/curl.out")"
refused "refused without the CA file: unknown issuer" 60 'unable to get local issuer certificate' "$good/13"
refused "refused when trusting another CA" 60 'unable to get local issuer certificate' \
    --cacert "$tls_dir/other-ca.pem" "$good/13"
get -k --http1.1 "$good/13"
check "accepted with curl -k (insecure)" "0 200 13 1.1" "$rc $(cat "$tmp/curl.out")"
v=$(openssl verify -CAfile "$ca" "$tls_dir/good-chain.pem" 2>&1)
check "good-chain.pem starts with the good certificate" "$tls_dir/good-chain.pem: OK" "$v"

# --- the broken certificates --------------------------------------------------
refused "the expired certificate is refused as expired" 60 'certificate has expired' \
    --cacert "$ca" "https://127.0.0.1:$tls_port_expired/13"
get -k --http1.1 "https://127.0.0.1:$tls_port_expired/13"
check "the expired port serves with -k" "0 200 13" "$rc $(cut -d' ' -f1,2 "$tmp/curl.out")"
refused "the wrong-name certificate is refused for its name" 60 'no alternative certificate subject name matches' \
    --cacert "$ca" "https://127.0.0.1:$tls_port_wrongname/13"
get --cacert "$ca" --resolve "wrong.example:$tls_port_wrongname:127.0.0.1" \
    "https://wrong.example:$tls_port_wrongname/13"
check "the wrong-name certificate is good for wrong.example" "0 200" "$rc $(cut -d' ' -f1 "$tmp/curl.out")"

# --- TLS 1.2 only ------------------------------------------------------------
get --cacert "$ca" --http1.1 "https://127.0.0.1:$tls_port_tls12/13"
check "the TLS 1.2 port serves a client that offers 1.2 and 1.3" "0 200 13 1.1" "$rc $(cat "$tmp/curl.out")"
refused "the TLS 1.2 port refuses a client that wants 1.3 (35)" 35 'alert|version' \
    --cacert "$ca" --tlsv1.3 "https://127.0.0.1:$tls_port_tls12/13"

# --- client certificates ------------------------------------------------------
client=https://127.0.0.1:$tls_port_client
get --cacert "$ca" --http1.1 "$client/13"
check "without a client certificate nginx answers 400" "0 400" "$rc $(cut -d' ' -f1 "$tmp/curl.out")"
get --cacert "$ca" --http1.1 --cert "$tls_dir/client.pem" --key "$tls_dir/client.key" "$client/13"
check "with the client certificate: 200" "0 200 13 1.1" "$rc $(cat "$tmp/curl.out")"
get --cacert "$ca" --http1.1 --cert "$tls_dir/good.pem" --key "$tls_dir/good.key" "$client/13"
check "a certificate of another CA is refused (400)" "0 400" "$rc $(cut -d' ' -f1 "$tmp/curl.out")"

# --- plain ports --------------------------------------------------------------
get --http2-prior-knowledge "http://127.0.0.1:$tls_port_h2c/13"
check "h2c with --http2-prior-knowledge" "0 200 13 2" "$rc $(cat "$tmp/curl.out")"
get "http://127.0.0.1:$tls_port_plain/133k"
check "the plain port serves HTTP/1.1" "0 200 136192 1.1" "$rc $(cat "$tmp/curl.out")"

# --- the access log counts what nginx served ---------------------------------
# The good port served 4 requests above, 1 of them over h2 (the refused
# handshakes sent none); 5 more over h2 on one connection now.
curl -sS --cacert "$ca" --http2 -o /dev/null -o /dev/null -o /dev/null -o /dev/null -o /dev/null \
    "$good/13" "$good/13" "$good/13" "$good/13" "$good/13" 2>"$tmp/curl.err"
tls_access_wait "$tls_port_good" 9
check "the good port logged every request" 9 "$(tls_access_count "$tls_port_good")"
check "... 6 of them over HTTP/2" 6 "$(tls_access_count "$tls_port_good" ' HTTP/2\.0 ')"
check "... all over TLS 1.3" 9 "$(tls_access_count "$tls_port_good" ' TLSv1\.3 ')"
tls_access_wait "$tls_port_client" 3
check "the client-certificate port logged 2 refusals and 1 success" "2 1" \
    "$(tls_access_count "$tls_port_client" '^[0-9]+ 400 ') $(tls_access_count "$tls_port_client" '^[0-9]+ 200 ')"
check "the TLS 1.2 port logged its one request, over TLS 1.2" "1 1" \
    "$(tls_access_count "$tls_port_tls12") $(tls_access_count "$tls_port_tls12" ' TLSv1\.2 ')"
# The 5 requests over one h2 connection share its serial number.
check "the 5 h2 requests logged one connection" 1 \
    "$(awk -v p="$tls_port_good" '$1 == p && $3 == "HTTP/2.0" { print $6 }' "$tls_access_log" | tail -n 5 | sort -u | wc -l)"
check "the wrong-name port logged the name sent in the hello and the Host header" \
    "wrong.example wrong.example:$tls_port_wrongname" \
    "$(awk -v p="$tls_port_wrongname" '$1 == p && $8 != "-" { print $8, $9 }' "$tls_access_log")"
check "a full handshake is logged as not resumed" "." \
    "$(awk -v p="$tls_port_expired" '$1 == p { print $7 }' "$tls_access_log")"
check "the expired port logged only the -k request" 1 "$(tls_access_count "$tls_port_expired")"
check "the h2c port logged one HTTP/2 request without TLS" 1 \
    "$(tls_access_count "$tls_port_h2c" ' 200 HTTP/2\.0 - ')"

# --- a server that breaks the handshake ---------------------------------------
for mode in hello junk truncated; do
    if ! tls_garbage_start "$mode"; then
        not_ok "the garbage server starts ($mode)"
        continue
    fi
    case $mode in
    hello | junk) pat='wrong version number' ;;
    truncated) pat='SSL_ERROR_SYSCALL|unexpected eof|EOF' ;;
    esac
    refused "garbage server ($mode): curl fails in the handshake (35)" 35 "$pat" \
        --max-time 10 --cacert "$ca" "https://127.0.0.1:$tls_port_garbage/13"
    tls_garbage_stop
done
if tls_garbage_start silent; then
    refused "garbage server (silent): curl's handshake times out (28)" 28 'timed out|timeout' \
        --max-time 1 --cacert "$ca" "https://127.0.0.1:$tls_port_garbage/13"
    tls_garbage_stop
else
    not_ok "the garbage server starts (silent)"
fi
tls_garbage_start hello
echo | timeout 10 openssl s_client -connect "127.0.0.1:$tls_port_garbage" -msg >"$tmp/s_client.out" 2>&1
tls_garbage_stop
if grep -q '<<< .*ServerHello' "$tmp/s_client.out" && grep -q 'Not TLS data' "$tmp/s_client.out"; then
    ok "hello mode: openssl reads a ServerHello, then data that is not TLS"
else
    not_ok "hello mode: openssl reads a ServerHello, then data that is not TLS" "$(grep -E '<<<|error' "$tmp/s_client.out" | head -n 4)"
fi

# --- stop -----------------------------------------------------------------------
pid=$tls_nginx_pid
tls_nginx_stop
if kill -0 "$pid" 2>/dev/null; then not_ok "tls_nginx_stop stops nginx"; else ok "tls_nginx_stop stops nginx"; fi
refused "nothing listens on the good port any more" 7 'Failed to connect|Couldn.t connect' \
    --cacert "$ca" "$good/13"

finish
