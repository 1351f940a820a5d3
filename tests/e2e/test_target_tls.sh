#!/bin/sh
# brink target over TLS: the self-signed certificate it makes (written with
# --cert-out, trusted with curl --cacert, refused without), certificate
# files given with --cert and --key (made by tests/tls/lib.sh), and the
# one-line errors for bad files. Usage: sh test_target_tls.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"
. "$src/tests/tls/lib.sh"

target_setup
tls_certs_in "$tmp/tls" "$src"

# get ARGS...: "STATUS SIZE" of one request; curl's exit status in $rc and
# its message in $tmp/curl.err (not when called inside $(...)).
get() {
    curl -sS -o /dev/null -w '%{http_code} %{size_download}' "$@" 2>"$tmp/curl.err" >"$tmp/curl.out"
    rc=$?
}

# truth_tls KEY: a ground-truth counter of the running target, over TLS.
truth_tls() {
    curl -s --cacert "$cert" "$url/_control" | python3 -c '
import json, sys
print(json.load(sys.stdin)["ground_truth"][sys.argv[1]])' "$1"
}

# --- a self-signed certificate, written with --cert-out --------------------------
cert=$tmp/target.pem
if ! start_target --tls --cert-out "$cert"; then
    not_ok "brink target --tls --cert-out starts" "$(cat "$tmp/target.err")"
    finish
    exit 1
fi
port=${url##*:}
case "$url" in
https://127.0.0.1:[0-9]*) ok "the first line is an https URL ($url)" ;;
*) not_ok "the first line is an https URL" "got \"$url\"" ;;
esac
check "the second line says where the certificate is" "certificate: $cert" \
    "$(sed -n 2p "$tmp/target.out" | cut -d' ' -f1,2)"
check "--cert-out wrote a PEM certificate" "-----BEGIN CERTIFICATE-----" "$(head -n 1 "$cert")"

get --cacert "$cert" "$url/bytes/13"
check "curl --cacert FILE fetches /bytes/13 over HTTPS" "0 200 13" "$rc $(cat "$tmp/curl.out")"
get --cacert "$cert" "https://localhost:$port/bytes/200000"
check "localhost is a name of the certificate (200000 bytes)" "0 200 200000" "$rc $(cat "$tmp/curl.out")"
get "$url/bytes/13"
if [ "$rc" -eq 60 ] && grep -q 'self-signed certificate' "$tmp/curl.err"; then
    ok "without --cacert curl refuses the self-signed certificate (60)"
else
    not_ok "without --cacert curl refuses the self-signed certificate (60)" "curl exit $rc: $(head -c 200 "$tmp/curl.err")"
fi
get --cacert "$tls_dir/ca.pem" "$url/bytes/13"
check "another CA does not vouch for it either (60)" 60 "$rc"
get --cacert "$cert" -X POST --data-binary 'over tls' "$url/echo"
check "POST /echo works over TLS" "0 200 8" "$rc $(cat "$tmp/curl.out")"
v=$(curl -s --cacert "$cert" --http2 -o /dev/null -w '%{http_version}' "$url/bytes/13")
check "HTTP/1.1 only: curl --http2 falls back to 1.1 (no h2 in ALPN)" "1.1" "$v"
get "http://127.0.0.1:$port/bytes/13"
[ "$rc" -ne 0 ] || [ "$(cut -d' ' -f1 "$tmp/curl.out")" != 200 ] &&
    ok "plain HTTP on the TLS port gets no 200" || not_ok "plain HTTP on the TLS port gets no 200" "$(cat "$tmp/curl.out")"
served=$(curl -s --cacert "$cert" "$url/_control" | python3 -c '
import json, sys
print(json.load(sys.stdin)["ground_truth"]["requests_by_endpoint"]["bytes"])')
# Three were served; the refused handshakes and the plain request never were.
check "the ground truth counts the /bytes requests served over TLS" 3 "$served"
openssl s_client -connect "127.0.0.1:$port" </dev/null 2>/dev/null |
    openssl x509 -noout -fingerprint -sha256 >"$tmp/served.fp" 2>/dev/null
openssl x509 -in "$cert" -noout -fingerprint -sha256 >"$tmp/written.fp"
check "the certificate served is the one written" "$(cat "$tmp/written.fp")" "$(cat "$tmp/served.fp")"

# The faults that write raw bytes go through TLS: the client sees the fault
# (as over plain HTTP, tests/e2e/test_target.sh), not a broken TLS record
# (curl 35 or 56, "wrong version number").
get --cacert "$cert" --max-time 1 -H 'X-Brink-Fault: stall' "$url/bytes/1000"
check "stall over TLS is a timeout (curl 28)" 28 "$rc"
curl -sS --cacert "$cert" -o "$tmp/drip" -H 'X-Brink-Fault: drip' "$url/bytes/5" 2>"$tmp/curl.err"
check "drip over TLS sends the 5 bytes" "0 abcde" "$? $(cat "$tmp/drip")"
get --cacert "$cert" -H 'X-Brink-Fault: malformed_status' "$url/bytes/10"
case $rc in
1 | 8) ok "a malformed status line over TLS is a protocol error (curl $rc)" ;;
*) not_ok "a malformed status line over TLS is a protocol error (curl 1 or 8)" "curl $rc: $(head -c 200 "$tmp/curl.err")" ;;
esac
get --cacert "$cert" -H 'X-Brink-Fault: huge_header' "$url/bytes/10"
case $rc in
0 | 35 | 56) not_ok "a huge header over TLS makes curl give up, past TLS" "curl $rc: $(head -c 200 "$tmp/curl.err")" ;;
*) ok "a huge header over TLS makes curl give up, past TLS (curl $rc)" ;;
esac
get --cacert "$cert" -H 'X-Brink-Fault: reset' "$url/bytes/10"
check "reset over TLS is a reset (curl 56)" 56 "$rc"
check "the ground truth counts each raw fault once" "1 1 1 1" \
    "$(truth_tls stalled) $(truth_tls dripped) $(truth_tls malformed_sent) $(truth_tls huge_headers_sent)"
stop_target
check "SIGTERM stops it, exit 0" 0 "$stop_status"

# A new start makes a new certificate, which the old file does not vouch for.
cp "$cert" "$tmp/old.pem"
if start_target --tls --cert-out "$cert"; then
    get --cacert "$tmp/old.pem" "$url/bytes/13"
    check "each start makes a new key: the old certificate no longer works" 60 "$rc"
    stop_target
else
    not_ok "brink target --tls starts a second time" "$(cat "$tmp/target.err")"
fi

# --tls alone: nothing written, the second line says how to get it.
if start_target --tls --listen '[::1]:0'; then
    case "$url" in
    https://\[::1\]:[0-9]*) ok "--tls on [::1] gives an https URL ($url)" ;;
    *) not_ok "--tls on [::1] gives an https URL" "got \"$url\"" ;;
    esac
    expect_line "without --cert-out the second line says it is not written" "$tmp/target.out" \
        '^certificate: self-signed .*not written \(--cert-out FILE' 5
    get -k -g "$url/bytes/13"
    check "curl -k fetches over [::1]" "0 200 13" "$rc $(cat "$tmp/curl.out")"
    stop_target
else
    not_ok "brink target --tls --listen [::1]:0 starts" "$(cat "$tmp/target.err")"
fi

# --- certificate files ----------------------------------------------------------
if start_target --cert "$tls_dir/good.pem" --key "$tls_dir/good.key"; then
    case "$url" in
    https://127.0.0.1:[0-9]*) ok "--cert and --key serve HTTPS ($url)" ;;
    *) not_ok "--cert and --key serve HTTPS" "got \"$url\"" ;;
    esac
    check "... and print no certificate line" 1 "$(wc -l <"$tmp/target.out" | tr -d ' ')"
    get --cacert "$tls_dir/ca.pem" "$url/bytes/13"
    check "the private CA vouches for the given certificate" "0 200 13" "$rc $(cat "$tmp/curl.out")"
    get "$url/bytes/13"
    check "without the CA file curl refuses it (60)" 60 "$rc"
    stop_target
else
    not_ok "brink target --cert --key starts" "$(cat "$tmp/target.err")"
fi
if start_target --cert "$tls_dir/good-chain.pem" --key "$tls_dir/good.key"; then
    get --cacert "$tls_dir/ca.pem" "https://localhost:${url##*:}/status/204"
    check "a chain file works too" "0 204 0" "$rc $(cat "$tmp/curl.out")"
    stop_target
else
    not_ok "brink target --cert CHAIN --key starts" "$(cat "$tmp/target.err")"
fi
if start_target --cert "$tls_dir/expired.pem" --key "$tls_dir/expired.key"; then
    get --cacert "$tls_dir/ca.pem" "$url/bytes/13"
    if [ "$rc" -eq 60 ] && grep -q 'certificate has expired' "$tmp/curl.err"; then
        ok "an expired certificate is served as it is; curl refuses it as expired"
    else
        not_ok "an expired certificate is served as it is; curl refuses it as expired" "curl exit $rc: $(head -c 200 "$tmp/curl.err")"
    fi
    stop_target
else
    not_ok "brink target serves an expired certificate" "$(cat "$tmp/target.err")"
fi

# --- errors -----------------------------------------------------------------------
d=$tls_dir
expect_run "--cert without --key is a usage error" 2 "" '^brink: target: --cert needs --key \(usage: ' -- \
    "$brink" target --cert "$d/good.pem"
expect_run "--key without --cert is a usage error" 2 "" '^brink: target: --key needs --cert \(usage: ' -- \
    "$brink" target --key "$d/good.key"
expect_run "--cert-out contradicts --cert" 2 "" '^brink: target: --cert-out contradicts --cert' -- \
    "$brink" target --cert "$d/good.pem" --key "$d/good.key" --cert-out "$tmp/x.pem"
expect_run "a missing --cert file is named" 2 "" "^brink: target: --cert $d/none.pem: cannot open: No such file or directory\$" -- \
    "$brink" target --cert "$d/none.pem" --key "$d/good.key"
expect_run "a directory as --key is named" 2 "" "^brink: target: --key $d: not a regular file\$" -- \
    "$brink" target --cert "$d/good.pem" --key "$d"
expect_run "swapped files: the certificate file holds a key" 2 "" \
    "^brink: target: --cert $d/good.key: no PEM certificate in it \(expected -----BEGIN CERTIFICATE-----\); it holds a private key: is it the --key file\?\$" -- \
    "$brink" target --cert "$d/good.key" --key "$d/good.pem"
expect_run "a key of another certificate is refused" 2 "" \
    "^brink: target: --key $d/wrongname.key: does not match the certificate of --cert $d/good.pem\$" -- \
    "$brink" target --cert "$d/good.pem" --key "$d/wrongname.key"
openssl pkey -in "$d/good.key" -aes128 -passout pass:secret -out "$tmp/enc.key" 2>/dev/null
expect_run "an encrypted key is refused without a prompt" 2 "" \
    "^brink: target: --key $tmp/enc.key: the key is encrypted: give it unencrypted" -- \
    "$brink" target --cert "$d/good.pem" --key "$tmp/enc.key"
expect_run "an unwritable --cert-out is named" 2 "" \
    "^brink: target: --cert-out $tmp/no/dir.pem: No such file or directory\$" -- \
    "$brink" target --cert-out "$tmp/no/dir.pem"
[ -e "$tmp/x.pem" ] && not_ok "a refused start writes no certificate" || ok "a refused start writes no certificate"

# --- plain HTTP is unchanged --------------------------------------------------------
if start_target; then
    check "without --tls the URL is http://" "http://127.0.0.1" "${url%:*}"
    check "... and it serves plain HTTP" "200 13" "$(curl -s -o /dev/null -w '%{http_code} %{size_download}' "$url/bytes/13")"
    check "... and prints one line" 1 "$(wc -l <"$tmp/target.out" | tr -d ' ')"
    stop_target
else
    not_ok "brink target starts without --tls" "$(cat "$tmp/target.err")"
fi

finish
