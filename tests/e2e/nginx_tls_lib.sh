# Shared by the end-to-end scripts that load nginx over TLS and HTTP/2:
# sourced after lib.sh. Certificates come from the openssl command line,
# made fresh in a temporary directory; nginx runs from Debian with its own
# prefix and configuration there, stopped by the exit trap. Nothing skips:
# a missing tool fails the script and names the package.
#
#   tls_setup             makes $tmp, installs the trap, checks the tools
#   make_ca               $tmp/ca.pem and its key: the private CA
#   make_cert NAME SAN [START END]
#                         $tmp/NAME.pem and $tmp/NAME.key signed by the CA,
#                         subjectAltName SAN ("DNS:a.test,IP:127.0.0.1"),
#                         valid from START to END (YYYYMMDDHHMMSSZ; default
#                         yesterday to next week); clientAuth too
#   start_nginx SERVERS   nginx with the server blocks SERVERS (text; PORT_A
#                         to PORT_F in it are replaced by free ports, then
#                         set as $port_a...), access log $tmp/access.log in
#                         the format "$connection $server_protocol
#                         $ssl_session_reused $ssl_server_name $http_host";
#                         waits until every port accepts
#   run NAME CONFIG ARGS...
#                         a bounded headless run: report $tmp/NAME.out,
#                         progress and events $tmp/NAME.err, exit in $status

for tool in nginx openssl python3 strace; do
    command -v $tool >/dev/null 2>&1 || PATH=$PATH:/usr/sbin
    command -v $tool >/dev/null 2>&1 || {
        echo "FAIL $tool is missing: run scripts/install-deps"
        exit 1
    }
done

tmp=""
nginx_pid=""

tls_cleanup() {
    if [ -n "$nginx_pid" ]; then
        kill "$nginx_pid" 2>/dev/null
        wait "$nginx_pid" 2>/dev/null
    fi
    [ -n "$tmp" ] && [ -z "${KEEP_TMP:-}" ] && rm -rf "$tmp"
}

tls_setup() {
    tmp=$(mktemp -d) || exit 1
    # nginx's worker runs as this user but must read the directory.
    chmod 755 "$tmp"
    trap tls_cleanup EXIT
    trap 'exit 1' INT TERM
    mkdir -p "$tmp/www" "$tmp/logs"
    printf 'hello, world\n' >"$tmp/www/13"
}

make_ca() {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
        -subj "/CN=brink test CA" -keyout "$tmp/ca.key" -out "$tmp/ca.pem" 2>"$tmp/openssl.err" ||
        { echo "FAIL openssl cannot make a CA: $(cat "$tmp/openssl.err")"; exit 1; }
}

# The CA of `openssl ca`, which alone takes any validity dates.
ca_config() {
    mkdir -p "$tmp/ca.db"
    : >"$tmp/ca.db/index.txt"
    cat >"$tmp/ca.cnf" <<EOF
[ca]
default_ca = test
[test]
dir = $tmp/ca.db
database = $tmp/ca.db/index.txt
new_certs_dir = $tmp/ca.db
certificate = $tmp/ca.pem
private_key = $tmp/ca.key
default_md = sha256
policy = any
rand_serial = yes
unique_subject = no
copy_extensions = none
[any]
commonName = supplied
[ext]
subjectAltName = \$ENV::SAN
extendedKeyUsage = serverAuth, clientAuth
basicConstraints = CA:FALSE
EOF
}

make_cert() {
    name=$1
    start=${3:-$(date -u -d yesterday +%Y%m%d%H%M%SZ)}
    end=${4:-$(date -u -d 'next week' +%Y%m%d%H%M%SZ)}
    [ -f "$tmp/ca.cnf" ] || ca_config
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$name" \
        -keyout "$tmp/$name.key" -out "$tmp/$name.csr" 2>"$tmp/openssl.err" &&
        SAN=$2 openssl ca -batch -config "$tmp/ca.cnf" -extensions ext -startdate "$start" \
            -enddate "$end" -in "$tmp/$name.csr" -out "$tmp/$name.pem" 2>"$tmp/openssl.err" ||
        { echo "FAIL openssl cannot make $name's certificate: $(cat "$tmp/openssl.err")"; exit 1; }
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_nginx() {
    servers=$1
    for p in a b c d e f; do
        eval "port_$p=$(free_port)"
    done
    # shellcheck disable=SC2154 # port_a... are set by the eval above
    servers=$(printf '%s\n' "$servers" | sed -e "s/PORT_A/$port_a/g" -e "s/PORT_B/$port_b/g" \
        -e "s/PORT_C/$port_c/g" -e "s/PORT_D/$port_d/g" -e "s/PORT_E/$port_e/g" \
        -e "s/PORT_F/$port_f/g" -e "s|TMP|$tmp|g")
    cat >"$tmp/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $tmp/nginx.pid;
error_log $tmp/logs/error.log;
user $(id -un);
events { worker_connections 1024; }
http {
    log_format brink "\$connection \$server_protocol \$ssl_session_reused \$ssl_server_name \$http_host";
    access_log $tmp/access.log brink;
    client_body_temp_path $tmp/body;
    proxy_temp_path $tmp/proxy;
    fastcgi_temp_path $tmp/fastcgi;
    uwsgi_temp_path $tmp/uwsgi;
    scgi_temp_path $tmp/scgi;
    keepalive_requests 1000000;
    ssl_session_cache shared:brink:1m;
    ssl_protocols TLSv1.2 TLSv1.3;
    root $tmp/www;
$servers
}
EOF
    nginx -p "$tmp" -c "$tmp/nginx.conf" 2>"$tmp/nginx.err" &
    nginx_pid=$!
    for p in $port_a $port_b $port_c $port_d $port_e $port_f; do
        grep -q "[: ]${p}[; ]" "$tmp/nginx.conf" || continue
        i=0
        until python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $p), 1)" 2>/dev/null; do
            i=$((i + 1))
            if [ $i -gt 100 ] || ! kill -0 "$nginx_pid" 2>/dev/null; then
                echo "FAIL nginx did not start: $(cat "$tmp/nginx.err" "$tmp/logs/error.log")"
                exit 1
            fi
            sleep 0.1
        done
    done
}

run() {
    name=$1 cfg=$2
    shift 2
    timeout 120 "$brink" run --headless --config "$cfg" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    status=$?
}

# errors_line NAME: the report's "errors:" line; error_row NAME CLASS: the
# class's row (its message cut as the report cuts it); first_error NAME
# CLASS: the whole first message of the class, from the run's events.
errors_line() {
    grep -m 1 '^errors:' "$tmp/$1.out"
}

error_row() {
    grep -m 1 "^  $2 " "$tmp/$1.out"
}

first_error() {
    grep -m 1 "first_error: first $2 " "$tmp/$1.out" "$tmp/$1.err" | sed 's/^[^:]*://'
}
