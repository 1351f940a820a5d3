#!/bin/sh
# HTTPS on the curl transport against nginx with certificates made here by a
# private CA: trusted through ca_file or SSL_CERT_FILE, refused without
# them (class tls, with OpenSSL's reason), accepted with insecure; an
# expired certificate and a wrong name refused with their reasons; a client
# certificate that the server requires; server_name for an address URL;
# tls_min and tls_resume; and 1,000 new connections of one worker that load
# the CA file once, not 1,000 times.
# Usage: sh test_curl_tls.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/nginx_tls_lib.sh"

tls_setup
make_ca
make_cert good "DNS:localhost,IP:127.0.0.1"
make_cert expired "DNS:localhost,IP:127.0.0.1" 20200101000000Z 20200201000000Z
make_cert named "DNS:api.test"
make_cert client "DNS:client.test"
# A store that is not the CA's: what "the system's" means here, whatever
# the machine trusts.
make_ca_other() {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
        -subj "/CN=some other CA" -keyout "$tmp/other.key" -out "$tmp/other.pem" 2>/dev/null
}
make_ca_other

start_nginx "
    server { listen 127.0.0.1:PORT_A ssl; ssl_certificate TMP/good.pem; ssl_certificate_key TMP/good.key; }
    server { listen 127.0.0.1:PORT_B ssl; ssl_certificate TMP/expired.pem; ssl_certificate_key TMP/expired.key; }
    server { listen 127.0.0.1:PORT_C ssl; ssl_certificate TMP/named.pem; ssl_certificate_key TMP/named.key; }
    server { listen 127.0.0.1:PORT_D ssl; ssl_certificate TMP/good.pem; ssl_certificate_key TMP/good.key;
             ssl_verify_client on; ssl_client_certificate TMP/ca.pem; }
    server { listen 127.0.0.1:PORT_E ssl; ssl_certificate TMP/good.pem; ssl_certificate_key TMP/good.key;
             ssl_protocols TLSv1.2; }
"
# shellcheck disable=SC2154 # set by start_nginx
good=https://127.0.0.1:$port_a/13 expired=https://127.0.0.1:$port_b/13
# shellcheck disable=SC2154
named=https://127.0.0.1:$port_c/13 mutual=https://127.0.0.1:$port_d/13 tls12=https://127.0.0.1:$port_e/13

# conf NAME LINES...: $tmp/NAME.ini with [target] transport = curl and LINES.
conf() {
    name=$1
    shift
    printf '[target]\ntransport = curl\nconnect_timeout = 3s\ntimeout = 5s\n' >"$tmp/$name.ini"
    for line in "$@"; do
        printf '%s\n' "$line" >>"$tmp/$name.ini"
    done
}

# ok_run NAME: the run completed every request with no error.
ok_run() {
    if [ "$status" -eq 0 ] && [ "$(errors_line "$1")" = "errors: none" ] &&
        grep -q '^HTTP statuses: 200=' "$tmp/$1.out"; then
        ok "$1: every request ok"
    else
        not_ok "$1: every request ok" "exit $status; $(errors_line "$1"); $(head -c 400 "$tmp/$1.err")"
    fi
}

# tls_run NAME WORDS: every request failed as tls, the message holding WORDS.
tls_run() {
    row=$(error_row "$1" tls)
    first=$(first_error "$1" tls)
    case "$(errors_line "$1")" in
    "errors: 3 of 3 requests"*) ;;
    *) row="" ;;
    esac
    if [ -n "$row" ] && printf '%s' "$first" | grep -q -- "$2"; then
        ok "$1: class tls, saying \"$2\""
    else
        not_ok "$1: class tls, saying \"$2\"" "$(errors_line "$1"); row: $row; first: $first"
    fi
}

# --- trust ------------------------------------------------------------------
conf trusted "ca_file = $tmp/ca.pem"
run trusted "$tmp/trusted.ini" --url "$good" --requests 20 --concurrency 2
ok_run trusted

conf untrusted "ca_file = $tmp/other.pem"
run untrusted "$tmp/untrusted.ini" --url "$good" --requests 3 --concurrency 1
tls_run untrusted "unable to get local issuer certificate"

conf insecure "insecure = yes"
run insecure "$tmp/insecure.ini" --url "$expired" --requests 20 --concurrency 2
ok_run insecure

conf env
SSL_CERT_FILE=$tmp/ca.pem run env "$tmp/env.ini" --url "$good" --requests 20 --concurrency 2
ok_run env
# ca_file wins over SSL_CERT_FILE.
conf env_lost "ca_file = $tmp/other.pem"
SSL_CERT_FILE=$tmp/ca.pem run env_lost "$tmp/env_lost.ini" --url "$good" --requests 3 --concurrency 1
tls_run env_lost "unable to get local issuer certificate"

# --- certificates that must be refused, with why ----------------------------
conf expired "ca_file = $tmp/ca.pem"
run expired "$tmp/expired.ini" --url "$expired" --requests 3 --concurrency 1
tls_run expired "certificate has expired"

conf wrong_name "ca_file = $tmp/ca.pem"
run wrong_name "$tmp/wrong_name.ini" --url "$named" --requests 3 --concurrency 1
tls_run wrong_name "no alternative certificate subject name matches target host name '127.0.0.1'"

# --- server_name: the name the certificate is checked against, the URL an
# address; Host still names the URL's host and port ---------------------------
: >"$tmp/access.log"
conf server_name "ca_file = $tmp/ca.pem" "server_name = api.test"
run server_name "$tmp/server_name.ini" --url "$named" --requests 20 --concurrency 2
ok_run server_name
check "server_name: nginx saw api.test in TLS and the URL's host in Host, for every request" \
    "20 api.test 127.0.0.1:$port_c" \
    "$(awk '{ print $4, $5 }' "$tmp/access.log" | sort | uniq -c | awk '{ print $1, $2, $3 }')"

# --- client certificates ------------------------------------------------------
conf no_client_cert "ca_file = $tmp/ca.pem"
run no_client_cert "$tmp/no_client_cert.ini" --url "$mutual" --requests 3 --concurrency 1
check "no_client_cert: nginx refuses a client without its certificate (400)" "HTTP statuses: 400=3" \
    "$(grep -m 1 '^HTTP statuses:' "$tmp/no_client_cert.out")"
conf client_cert "ca_file = $tmp/ca.pem" "client_cert = $tmp/client.pem" "client_key = $tmp/client.key"
run client_cert "$tmp/client_cert.ini" --url "$mutual" --requests 20 --concurrency 2
ok_run client_cert

# --- tls_min -----------------------------------------------------------------
conf tls_min "ca_file = $tmp/ca.pem" "tls_min = 1.3"
run tls_min "$tmp/tls_min.ini" --url "$tls12" --requests 3 --concurrency 1
tls_run tls_min "curl 35"

# --- tls_resume: every new connection a full handshake, or resumed ------------
: >"$tmp/access.log"
conf resume_no "ca_file = $tmp/ca.pem" "keepalive = no" "tls_resume = no"
run resume_no "$tmp/resume_no.ini" --url "$good" --requests 50 --concurrency 2
ok_run resume_no
check "tls_resume = no: no handshake resumed" "0" "$(awk '$3 == "r"' "$tmp/access.log" | wc -l)"
: >"$tmp/access.log"
conf resume_yes "ca_file = $tmp/ca.pem" "keepalive = no" "tls_resume = yes"
run resume_yes "$tmp/resume_yes.ini" --url "$good" --requests 50 --concurrency 2
ok_run resume_yes
# The first handshake of the worker is full; its session serves the others.
# With TLS 1.3 a session ticket comes after the handshake, so a connection
# opened before it arrived is full too: most, not all, are resumed.
resumed=$(awk '$3 == "r"' "$tmp/access.log" | wc -l)
if [ "$resumed" -ge 25 ]; then
    ok "tls_resume = yes: the handshakes are resumed ($resumed of 50)"
else
    not_ok "tls_resume = yes: the handshakes are resumed" "$resumed of 50"
fi

# --- one trust store per worker -------------------------------------------------
# 1,000 new connections (keepalive = no) of one worker: libcurl must read
# the CA file once, not once a handshake. strace counts the opens of it.
# (LeakSanitizer cannot run under ptrace: an ASan build checks leaks in
# the other runs.)
conf store "ca_file = $tmp/ca.pem" "keepalive = no"
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 120 strace -f -qq -e trace=openat -e signal=none -o "$tmp/strace.out" \
    "$brink" run --headless --config "$tmp/store.ini" --url "$good" --requests 1000 \
    --concurrency 4 --threads 1 >"$tmp/store.out" 2>"$tmp/store.err" </dev/null
status=$?
ok_run store
check "store: 1,000 new connections opened" "1000" \
    "$(sed -n 's/.*connections opened \([0-9,]*\).*/\1/p' "$tmp/store.out" | tr -d ,)"
# The main thread (the first in the trace) checks the file when it reads
# the config; the worker's opens are libcurl's.
main_tid=$(awk 'NR == 1 { print $1 }' "$tmp/strace.out")
check "store: the CA file was read once by the one worker" "1" \
    "$(awk -v main="$main_tid" -v f="\"$tmp/ca.pem\"," '$1 != main && index($0, f)' "$tmp/strace.out" | wc -l)"

finish
