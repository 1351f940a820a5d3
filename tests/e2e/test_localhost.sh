#!/bin/sh
# A name with several addresses: brink target listens on [::1] only, and
# brink run loads http://localhost:PORT/, which resolves to 127.0.0.1 and
# ::1. The h1 transport tries the addresses in turn (IPv4 first) and must
# connect to ::1 after 127.0.0.1 refuses, as curl does; both transports
# must make every request without an error.
#
# This needs localhost to resolve to ::1. Where /etc/hosts lacks that line
# (some containers), brink runs in a private mount namespace whose
# /etc/hosts has it (unshare, as root or through a user namespace); the
# machine's file is not touched. Where neither is possible, the test fails
# and says why: skipping would hide a machine that cannot check this.
# Usage: sh test_localhost.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup

has_v6_localhost() {
    "$@" getent ahosts localhost 2>/dev/null | grep -q '^::1 '
}

# in_ns CMD...: CMD with an /etc/hosts in which localhost is also ::1.
printf '127.0.0.1 localhost\n::1 localhost\n' >"$tmp/hosts"
in_ns() {
    # shellcheck disable=SC2016 # expanded by the inner shell
    unshare $ns_flags sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$tmp/hosts" "$@"
}

runner=""
if has_v6_localhost; then
    ok "localhost resolves to ::1 on this machine"
else
    for ns_flags in -m -rm; do
        if command -v unshare >/dev/null 2>&1 && has_v6_localhost in_ns; then
            runner=in_ns
            break
        fi
    done
    if [ -n "$runner" ]; then
        ok "localhost resolves to ::1 in a private mount namespace (unshare $ns_flags; /etc/hosts has no ::1 localhost)"
    else
        not_ok "localhost resolves to ::1" "/etc/hosts has no '::1 localhost' line and unshare cannot give brink a private one: add the line to test this"
        finish
        exit 1
    fi
fi

start_target --listen '[::1]:0' || { not_ok "brink target listens on [::1]" "$(cat "$tmp/target.err")"; finish; exit 1; }
port=${url##*:}
case $url in
"http://[::1]:"*) ok "brink target listens on [::1] only" ;;
*) not_ok "brink target listens on [::1] only" "its url is $url" ;;
esac

# transport = h1 is a demand: a run h1 cannot serve stops before starting.
for transport in h1 curl; do
    printf '[target]\nurl = http://localhost:%s/bytes/13\ntransport = %s\n' "$port" "$transport" \
        >"$tmp/$transport.ini"
    before=$(truth requests_by_endpoint bytes)
    $runner timeout 60 "$brink" run --headless --no-record --config "$tmp/$transport.ini" \
        --concurrency 3 --requests 30 </dev/null >"$tmp/$transport.out" 2>"$tmp/$transport.err"
    status=$?
    after=$(truth requests_by_endpoint bytes)
    check "[$transport] a run at localhost exits 0" 0 "$status"
    if grep -q '^errors: none$' "$tmp/$transport.out"; then
        ok "[$transport] every request to localhost connects to ::1"
    else
        not_ok "[$transport] every request to localhost connects to ::1" \
            "$(grep -A2 '^errors:' "$tmp/$transport.out" | tr '\n' ' ')"
    fi
    check "[$transport] the target served the 30 requests" 30 $((after - before))
done

stop_target
finish
