#!/bin/sh
# HTTPS on the curl transport against nginx (tests/tls/lib.sh), for what is
# the curl transport's own; trust, refusals and their reasons, insecure,
# client certificates and server_name accepted are checked on both
# transports by test_tls.sh. Here: the name server_name sends as SNI and
# the Host header nginx sees; tls_min against a TLS 1.2 server; tls_resume
# from nginx's $ssl_session_reused; and 1,000 new connections of one worker
# that load the CA file once, not 1,000 times.
# Usage: sh test_curl_tls.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/tls/lib.sh"

command -v strace >/dev/null 2>&1 || { echo "FAIL strace is missing: run scripts/install-deps"; exit 1; }
tmp=$(mktemp -d)
trap 'tls_cleanup; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
mkdir "$tmp/tls"
tls_setup "$tmp/tls" "$src" || exit 1
tls_make_certs && tls_nginx_start || exit 1
ca=$tls_dir/ca.pem
unset SSL_CERT_FILE
good=https://127.0.0.1:$tls_port_good/13

# logged_since PORT BEFORE N: the lines nginx logged on PORT after its first
# BEFORE, once N of them are there (at most 5 s).
logged_since() {
    tls_access_wait "$1" $(($2 + $3))
    awk -v p="$1" '$1 == p' "$tls_access_log" | tail -n +$(($2 + 1))
}

# --- server_name: the name the certificate is checked against, the URL an
# address; Host still names the URL's host and port ---------------------------
before=$(tls_access_count "$tls_port_wrongname")
curl_conf server_name "ca_file = $ca" "server_name = wrong.example"
headless_run server_name "$tmp/server_name.ini" --url "https://127.0.0.1:$tls_port_wrongname/13" \
    --requests 20 --concurrency 2
run_ok server_name
check "server_name: nginx saw wrong.example in TLS and the URL's host in Host, for every request" \
    "20 wrong.example 127.0.0.1:$tls_port_wrongname" \
    "$(logged_since "$tls_port_wrongname" "$before" 20 | awk '{ print $8, $9 }' | sort | uniq -c |
        awk '{ print $1, $2, $3 }')"

# --- tls_min -----------------------------------------------------------------
curl_conf tls_min "ca_file = $ca" "tls_min = 1.3"
headless_run tls_min "$tmp/tls_min.ini" --url "https://127.0.0.1:$tls_port_tls12/13" --requests 3 \
    --concurrency 1
run_failed_as tls_min tls "curl 35"

# --- tls_resume: every new connection a full handshake, or resumed ------------
before=$(tls_access_count "$tls_port_good")
curl_conf resume_no "ca_file = $ca" "keepalive = no" "tls_resume = no"
headless_run resume_no "$tmp/resume_no.ini" --url "$good" --requests 50 --concurrency 2
run_ok resume_no
check "tls_resume = no: no handshake resumed" "50 full" \
    "$(logged_since "$tls_port_good" "$before" 50 | awk '$7 == "." { n++ } END { print n + 0, "full" }')"
before=$(tls_access_count "$tls_port_good")
curl_conf resume_yes "ca_file = $ca" "keepalive = no" "tls_resume = yes"
headless_run resume_yes "$tmp/resume_yes.ini" --url "$good" --requests 50 --concurrency 2
run_ok resume_yes
# The first handshake of the worker is full; its session serves the others.
# With TLS 1.3 a session ticket comes after the handshake, so a connection
# opened before it arrived is full too: most, not all, are resumed.
resumed=$(logged_since "$tls_port_good" "$before" 50 | awk '$7 == "r"' | wc -l)
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
curl_conf store "ca_file = $ca" "keepalive = no"
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 120 strace -f -qq -e trace=openat -e signal=none -o "$tmp/strace.out" \
    "$brink" run --headless --config "$tmp/store.ini" --url "$good" --requests 1000 \
    --concurrency 4 --threads 1 >"$tmp/store.out" 2>"$tmp/store.err" </dev/null
status=$?
run_ok store
check "store: 1,000 new connections opened" "1000" \
    "$(sed -n 's/.*connections opened \([0-9,]*\).*/\1/p' "$tmp/store.out" | tr -d ,)"
# The main thread (the first in the trace) checks the file when it reads
# the config; the worker's opens are libcurl's.
main_tid=$(awk 'NR == 1 { print $1 }' "$tmp/strace.out")
check "store: the CA file was read once by the one worker" "1" \
    "$(awk -v main="$main_tid" -v f="\"$ca\"," '$1 != main && index($0, f)' "$tmp/strace.out" | wc -l)"

finish
