# TLS fixture for the end-to-end tests and the benchmarks: certificates made
# with the openssl command line, a private nginx serving them on free ports
# of 127.0.0.1, and a server that breaks the handshake on purpose. Sourced,
# never run; POSIX sh (dash). Every wait is bounded; nothing listens beyond
# loopback. sh has no local variables: every variable it sets is named
# tls_*, so a caller's loop variables are safe. A test sources it, calls tls_setup DIR once (DIR: a directory of
# its own, removed by the caller) and tls_cleanup from its EXIT trap:
#
#   . "$src/tests/tls/lib.sh"
#   tmp=$(mktemp -d); trap 'tls_cleanup; rm -rf "$tmp"' EXIT
#   tls_setup "$tmp" "$src" || exit 1
#   tls_make_certs && tls_nginx_start && tls_garbage_start hello || exit 1
#   curl --cacert "$tls_dir/ca.pem" "https://127.0.0.1:$tls_port_good/13"
#
# Functions (each returns non-zero and prints "tls: why" on stderr when it
# fails):
#   tls_setup DIR [SRC]   fails when openssl, nginx, python3 or curl is
#                         missing; sets tls_dir=DIR, where everything below
#                         goes; SRC is the top of the source tree (default .)
#   tls_make_certs        makes, in $tls_dir (EC P-256 keys, SHA-256):
#                           ca.pem ca.key             the private CA
#                           good.pem good.key         localhost, 127.0.0.1,
#                                                     ::1; signed by ca.pem,
#                                                     valid 7 days
#                           good-chain.pem            good.pem then ca.pem
#                           expired.pem expired.key   the same names, signed
#                                                     by ca.pem, expired in 2020
#                           wrongname.pem wrongname.key
#                                                     only wrong.example
#                                                     (DNS), signed by ca.pem
#                           client-ca.pem client-ca.key
#                                                     a second CA, for clients
#                           client.pem client.key     CN "brink client",
#                                                     clientAuth, signed by
#                                                     client-ca.pem
#                           other-ca.pem              a CA that signed nothing
#                                                     (an unknown CA to trust)
#   tls_nginx_start       starts nginx (root or not) with its own prefix,
#                         config, pid file and logs under $tls_dir/nginx, in
#                         the foreground as a background job (tls_nginx_pid),
#                         serving $tls_dir/nginx/www (13: 13 bytes
#                         "hello, world\n"; 133k: 136,192 bytes; on the
#                         good and h2c ports also /redirect, a 302 to /13
#                         that sets the cookie a=1, and /cookie, 200 with
#                         that cookie, else 403) on
#                           tls_port_good       https, good.pem, h2 + http/1.1
#                           tls_port_expired    https, expired.pem
#                           tls_port_wrongname  https, wrongname.pem
#                           tls_port_client     https, good.pem, and
#                                               ssl_verify_client on
#                                               (client-ca.pem): 400 without
#                                               a client certificate
#                           tls_port_tls12      https, good.pem, TLS 1.2 only
#                           tls_port_h2c        plain HTTP/2 (prior knowledge)
#                           tls_port_plain      plain HTTP/1.1
#                         TLS 1.2 and 1.3, keep-alive (1,000,000 requests,
#                         300 s), a shared session cache. One access-log
#                         line per request in $tls_access_log:
#                           PORT STATUS PROTOCOL TLS BYTES CONN REUSED SNI
#                           HOST "REQUEST"
#                         TLS: TLSv1.3...; CONN: nginx's connection serial
#                         number; REUSED: "r" for a resumed TLS session,
#                         "." for a full handshake; SNI: the name the
#                         client sent in its hello; HOST: the Host header
#                         or :authority. A field without a value (TLS,
#                         REUSED and SNI on plain ports) is "-".
#                         TLS_NGINX_CPU=N pins nginx to core N (taskset);
#                         TLS_ACCESS_LOG=off turns the log off (benchmarks).
#                         Waits (at most 10 s) until every port accepts.
#   tls_access_count PORT [PATTERN]
#                         prints how many requests nginx logged on PORT (and
#                         whose line matches the grep -E PATTERN)
#   tls_access_wait PORT N
#                         polls (at most 5 s) until N requests are logged on
#                         PORT; nginx writes the line after the response, so
#                         a count right after a client returns can lag
#   tls_nginx_stop        stops nginx (SIGTERM, waited for); idempotent
#   tls_garbage_start MODE
#                         starts tests/tls/garbage_server.py on a free port
#                         (tls_port_garbage, tls_garbage_pid). For each
#                         connection it reads the ClientHello, then by MODE:
#                           hello      a TLS 1.2 ServerHello record, then
#                                      bytes that are not TLS, then closes
#                           junk       bytes that are not TLS at all
#                           truncated  a handshake record header promising
#                                      256 bytes, 10 of them, then closes
#                           silent     nothing: the handshake stalls until
#                                      the client closes (at most 30 s)
#   tls_garbage_stop      stops it; idempotent
#   tls_cleanup           tls_garbage_stop and tls_nginx_stop, for a trap
#   tls_free_port         prints a free TCP port of 127.0.0.1

tls_dir=""
tls_nginx_pid=""
tls_garbage_pid=""
tls_access_log=""

tls_fail() {
    echo "tls: $*" >&2
    return 1
}

tls_setup() {
    command -v nginx >/dev/null 2>&1 || PATH=$PATH:/usr/sbin
    for tls_cmd in openssl nginx python3 curl; do
        command -v "$tls_cmd" >/dev/null 2>&1 || { tls_fail "$tls_cmd is missing: run scripts/install-deps"; return 1; }
    done
    [ -d "$1" ] || { tls_fail "no directory $1"; return 1; }
    tls_dir=$1
    # nginx's worker (another user when nginx starts as root) reads here.
    chmod 755 "$tls_dir"
    tls_src=${2:-.}
    [ -f "$tls_src/tests/tls/garbage_server.py" ] || { tls_fail "no $tls_src/tests/tls/garbage_server.py"; return 1; }
}

# tls_certs_in DIR SRC: DIR made, and the fixture's certificates in it
# (tls_setup, tls_make_certs); else the test fails there (lib.sh's
# not_ok and finish).
tls_certs_in() {
    mkdir -p "$1"
    if ! tls_setup "$1" "$2" || ! tls_make_certs; then
        not_ok "the certificates of tests/tls/lib.sh are made"
        finish
        exit 1
    fi
}

tls_free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# tls_openssl_cnf: the config every openssl command below reads (never the
# system's, so the extensions are exactly these).
tls_openssl_cnf() {
    cat <<EOF
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca_ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost,IP:127.0.0.1,IP:::1
authorityKeyIdentifier = keyid
[wrongname_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:wrong.example
authorityKeyIdentifier = keyid
[client_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = clientAuth
authorityKeyIdentifier = keyid
[ca]
default_ca = ca_default
[ca_default]
database = $tls_dir/certs/index.txt
new_certs_dir = $tls_dir/certs
serial = $tls_dir/certs/serial
default_md = sha256
policy = policy_any
copy_extensions = none
unique_subject = no
[policy_any]
commonName = supplied
EOF
}

# tls_ca NAME CN: a self-signed CA, NAME.pem and NAME.key.
tls_ca() {
    openssl req -config "$tls_dir/openssl.cnf" -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
        -nodes -keyout "$tls_dir/$1.key" -out "$tls_dir/$1.pem" -days 7 -subj "/CN=$2" \
        -extensions ca_ext 2>>"$tls_dir/openssl.log"
}

# tls_csr NAME CN: a key NAME.key and a request for it.
tls_csr() {
    openssl req -config "$tls_dir/openssl.cnf" -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
        -nodes -keyout "$tls_dir/$1.key" -out "$tls_dir/certs/$1.csr" -subj "/CN=$2" \
        2>>"$tls_dir/openssl.log"
}

# tls_sign NAME CA EXT [openssl ca options]: NAME.pem from its request,
# signed by CA with the extensions of section EXT.
tls_sign() {
    tls_name=$1 tls_ca=$2 tls_ext=$3
    shift 3
    openssl ca -batch -notext -config "$tls_dir/openssl.cnf" -cert "$tls_dir/$tls_ca.pem" \
        -keyfile "$tls_dir/$tls_ca.key" -extensions "$tls_ext" -in "$tls_dir/certs/$tls_name.csr" \
        -out "$tls_dir/$tls_name.pem" "$@" 2>>"$tls_dir/openssl.log"
}

tls_make_certs() {
    [ -n "$tls_dir" ] || { tls_fail "tls_setup first"; return 1; }
    mkdir -p "$tls_dir/certs"
    : >"$tls_dir/certs/index.txt"
    echo 1000 >"$tls_dir/certs/serial"
    tls_openssl_cnf >"$tls_dir/openssl.cnf"
    if tls_ca ca "brink test CA" && tls_ca client-ca "brink test client CA" &&
        tls_ca other-ca "brink test unknown CA" &&
        tls_csr good localhost && tls_sign good ca server_ext -days 7 &&
        tls_csr expired localhost &&
        tls_sign expired ca server_ext -startdate 20200101000000Z -enddate 20200201000000Z &&
        tls_csr wrongname wrong.example && tls_sign wrongname ca wrongname_ext -days 7 &&
        tls_csr client "brink client" && tls_sign client client-ca client_ext -days 7; then
        cat "$tls_dir/good.pem" "$tls_dir/ca.pem" >"$tls_dir/good-chain.pem"
        rm -f "$tls_dir/other-ca.key"
        chmod 644 "$tls_dir"/*.key
        return 0
    fi
    tls_fail "openssl failed: $(tail -n 3 "$tls_dir/openssl.log" | tr '\n' ' ')"
}

# tls_nginx_conf: the configuration, from the ports and $tls_dir.
tls_nginx_conf() {
    tls_d=$tls_dir/nginx
    if [ "${TLS_ACCESS_LOG:-on}" = off ]; then
        tls_log="access_log off;"
    else
        tls_log="access_log $tls_access_log brink;"
    fi
    # /redirect sets the cookie a=1 and redirects to /13; /cookie is 200
    # with that cookie, else 403.
    tls_app='location = /redirect { add_header Set-Cookie "a=1; Path=/"; return 302 /13; }
        location = /cookie { if ($cookie_a = "1") { return 200 "cookie\n"; } return 403; }'
    cat <<EOF
worker_processes 1;
worker_rlimit_nofile 8192;
daemon off;
pid $tls_d/nginx.pid;
error_log $tls_d/logs/error.log;
user $(id -un);
events { worker_connections 4096; }
http {
    log_format brink '\$server_port \$status \$server_protocol \$ssl_protocol \$bytes_sent \$connection \$ssl_session_reused \$ssl_server_name \$http_host "\$request"';
    $tls_log
    client_body_temp_path $tls_d/body;
    proxy_temp_path $tls_d/proxy;
    fastcgi_temp_path $tls_d/fastcgi;
    uwsgi_temp_path $tls_d/uwsgi;
    scgi_temp_path $tls_d/scgi;
    keepalive_requests 1000000;
    keepalive_timeout 300s;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:brink:1m;
    root $tls_d/www;
    server {
        listen 127.0.0.1:$tls_port_good ssl http2;
        ssl_certificate $tls_dir/good.pem;
        ssl_certificate_key $tls_dir/good.key;
        $tls_app
    }
    server {
        listen 127.0.0.1:$tls_port_expired ssl;
        ssl_certificate $tls_dir/expired.pem;
        ssl_certificate_key $tls_dir/expired.key;
    }
    server {
        listen 127.0.0.1:$tls_port_wrongname ssl;
        ssl_certificate $tls_dir/wrongname.pem;
        ssl_certificate_key $tls_dir/wrongname.key;
    }
    server {
        listen 127.0.0.1:$tls_port_client ssl http2;
        ssl_certificate $tls_dir/good.pem;
        ssl_certificate_key $tls_dir/good.key;
        ssl_client_certificate $tls_dir/client-ca.pem;
        ssl_verify_client on;
    }
    server {
        listen 127.0.0.1:$tls_port_tls12 ssl;
        ssl_certificate $tls_dir/good.pem;
        ssl_certificate_key $tls_dir/good.key;
        ssl_protocols TLSv1.2;
    }
    server {
        listen 127.0.0.1:$tls_port_h2c http2;
        $tls_app
    }
    server {
        listen 127.0.0.1:$tls_port_plain;
    }
}
EOF
}

# tls_port_open PORT: whether something accepts on 127.0.0.1:PORT.
tls_port_open() {
    python3 -c 'import socket, sys
s = socket.socket()
s.settimeout(1)
sys.exit(s.connect_ex(("127.0.0.1", int(sys.argv[1]))))' "$1"
}

tls_nginx_start() {
    [ -f "$tls_dir/good.pem" ] || { tls_fail "tls_make_certs first"; return 1; }
    tls_d=$tls_dir/nginx
    mkdir -p "$tls_d/www" "$tls_d/logs"
    printf 'hello, world\n' >"$tls_d/www/13"
    head -c $((133 * 1024)) /dev/urandom >"$tls_d/www/133k"
    tls_access_log=$tls_d/logs/access.log
    : >"$tls_access_log"
    tls_port_good=$(tls_free_port)
    tls_port_expired=$(tls_free_port)
    tls_port_wrongname=$(tls_free_port)
    tls_port_client=$(tls_free_port)
    tls_port_tls12=$(tls_free_port)
    tls_port_h2c=$(tls_free_port)
    tls_port_plain=$(tls_free_port)
    tls_nginx_conf >"$tls_d/nginx.conf"
    if [ -n "${TLS_NGINX_CPU:-}" ]; then
        taskset -c "$TLS_NGINX_CPU" nginx -p "$tls_d" -e "$tls_d/logs/error.log" -c "$tls_d/nginx.conf" \
            2>"$tls_d/nginx.err" &
    else
        nginx -p "$tls_d" -e "$tls_d/logs/error.log" -c "$tls_d/nginx.conf" 2>"$tls_d/nginx.err" &
    fi
    tls_nginx_pid=$!
    # nginx opens every listener at once, after reading its configuration
    # and certificates and before its worker starts (connections wait in
    # the backlog until it does). A bare connect is not logged, so the
    # access log holds only the test's requests.
    tls_i=0
    while [ $tls_i -lt 200 ]; do
        tls_port_open "$tls_port_good" && tls_port_open "$tls_port_plain" && return 0
        kill -0 "$tls_nginx_pid" 2>/dev/null || break
        sleep 0.05
        tls_i=$((tls_i + 1))
    done
    tls_fail "nginx did not start: $(cat "$tls_d/nginx.err" "$tls_d/logs/error.log" 2>/dev/null | tail -n 3 | tr '\n' ' ')"
    tls_nginx_stop
    return 1
}

tls_nginx_stop() {
    if [ -n "$tls_nginx_pid" ]; then
        kill "$tls_nginx_pid" 2>/dev/null
        wait "$tls_nginx_pid" 2>/dev/null
        tls_nginx_pid=""
    fi
    return 0
}

tls_access_count() {
    if [ -n "${2:-}" ]; then
        awk -v p="$1" '$1 == p' "$tls_access_log" | grep -Ec -- "$2"
    else
        awk -v p="$1" '$1 == p' "$tls_access_log" | wc -l | tr -d ' '
    fi
}

tls_access_wait() {
    tls_i=0
    while [ "$(tls_access_count "$1")" -lt "$2" ] && [ $tls_i -lt 100 ]; do
        sleep 0.05
        tls_i=$((tls_i + 1))
    done
    [ "$(tls_access_count "$1")" -ge "$2" ]
}

tls_garbage_start() {
    [ -n "$tls_dir" ] || { tls_fail "tls_setup first"; return 1; }
    : >"$tls_dir/garbage.port"
    python3 "$tls_src/tests/tls/garbage_server.py" "$1" "$tls_dir/garbage.port" \
        2>"$tls_dir/garbage.err" &
    tls_garbage_pid=$!
    tls_i=0
    while [ $tls_i -lt 200 ]; do
        tls_port_garbage=$(cat "$tls_dir/garbage.port")
        [ -n "$tls_port_garbage" ] && return 0
        kill -0 "$tls_garbage_pid" 2>/dev/null || break
        sleep 0.05
        tls_i=$((tls_i + 1))
    done
    tls_fail "the garbage server did not start: $(cat "$tls_dir/garbage.err")"
    tls_garbage_stop
    return 1
}

tls_garbage_stop() {
    if [ -n "$tls_garbage_pid" ]; then
        kill "$tls_garbage_pid" 2>/dev/null
        wait "$tls_garbage_pid" 2>/dev/null
        tls_garbage_pid=""
    fi
    return 0
}

tls_cleanup() {
    tls_garbage_stop
    tls_nginx_stop
}
