#!/bin/sh
# Where the time goes, on both transports (libcurl's and h1, each forced
# with [target] transport = T), against brink target over plain HTTP with
# keepalive = no, so that every request makes a new connection: brink
# report --format json of the recorded session counts as many connects and
# times to first byte as connections were opened (one each per request),
# no TLS handshake, and its name lookups: one per new connection on curl
# (libcurl times one, from its cache, for each), one per worker on h1 (a
# worker looks the name up once). The text report prints the phase table.
# Usage: sh test_phases.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup

. "$src/tests/e2e/transport_lib.sh"

requests=40
threads=2

# A name only this test's /etc/hosts knows (brink resolves localhost by
# itself, as libcurl does), so its lookups are real ones, in a private mount
# namespace (unprivileged when root is not).
printf '127.0.0.1 phases.test\n' >"$tmp/hosts"
in_ns() {
    # shellcheck disable=SC2016 # expanded by the inner shell
    unshare $ns_flags sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$tmp/hosts" "$@"
}
ns_ok=""
for ns_flags in -m -rm; do
    if in_ns getent ahosts phases.test 2>/dev/null | grep -q '^127\.0\.0\.1 '; then
        ns_ok=1
        break
    fi
done
if [ -z "$ns_ok" ]; then
    echo "FAIL unshare cannot give brink a private /etc/hosts here (util-linux's unshare, user namespaces)"
    exit 1
fi

# figures: the JSON report's connections opened, then the count of each
# phase (dns, connect, tls, ttfb) and the largest time to first byte, read
# in one python3 run (it takes seconds to start on a loaded machine).
figures() {
    python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
p = r["phases_us"]
print(r["connections"]["opened"], p["dns"]["timed"], p["connect"]["timed"], p["tls"]["timed"],
      p["ttfb"]["timed"], p["ttfb"]["max"])' "$d/run.json"
}

suite() {
    d=$tmp/$transport
    mkdir -p "$d"
    printf '[target]\nurl = http://phases.test:%s/bytes/13\ntransport = %s\nkeepalive = no\n' \
        "$port" "$transport" >"$d/run.ini"
    in_ns timeout 60 "$brink" run --headless --config "$d/run.ini" --requests $requests \
        --concurrency 4 --threads $threads --record "$d/run.jsonl" \
        >"$d/run.out" 2>"$d/run.err" </dev/null
    status=$?
    check "a run without keep-alive exits 0" 0 "$status"
    [ "$status" -eq 0 ] || cat "$d/run.err" >&2
    check "every request succeeded" 1 "$(grep -c '^errors: none$' "$d/run.out")"
    check "the report has the phase table" 1 "$(grep -c '^where the time goes: ' "$d/run.out")"
    if ! "$brink" report "$d/run.jsonl" --format json >"$d/run.json" 2>"$d/report.err"; then
        not_ok "brink report --format json reads the session" "$(cat "$d/report.err")"
        return
    fi
    # shellcheck disable=SC2046 # six numbers, split on purpose
    set -- $(figures)
    opened=${1:-}
    check "each request opened a connection" $requests "$opened"
    check "connects timed, one per new connection" "$opened" "${3:-}"
    check "first bytes timed, one per request" $requests "${5:-}"
    check "no TLS handshake over plain HTTP" 0 "${4:-}"
    if [ "$transport" = curl ]; then
        check "a name lookup timed per new connection" "$opened" "${2:-}"
    else
        check "a name lookup timed per worker" $threads "${2:-}"
    fi
    check_ge "time to first byte is above 0" 1 "${6:-}"
}

must_start_target --listen 127.0.0.1:0
port=${url##*:}
for transport in $transports; do
    suite
done
stop_target
finish
