#!/bin/sh
# scripts/install-deps per purpose (issue 31): the demo's set builds and
# runs brink and holds none of the test counterparts (a browser, a JRE,
# prometheus, clang/llvm, nodejs/npm, nginx, an SSH server); the test and
# bench sets hold the demo's; every package of every set is one apt knows
# (apt-cache show, the machine's own package lists). Installs nothing.
# Usage: sh test_install_deps.sh BRINK SRCDIR
src=$2
. "$src/tests/e2e/lib.sh"

deps=$src/scripts/install-deps
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v apt-cache >/dev/null 2>&1 || { echo "FAIL apt-cache missing: brink builds on Debian 12 or later"; exit 1; }

for set in demo test bench; do
    sh "$deps" --list "$set" >"$tmp/$set" 2>"$tmp/$set.err"
    check "--list $set exits 0" 0 $?
    if [ -s "$tmp/$set" ] && [ ! -s "$tmp/$set.err" ]; then
        ok "--list $set prints $(wc -l <"$tmp/$set") packages, one a line"
    else
        not_ok "--list $set prints its packages" "$(cat "$tmp/$set.err")"
    fi
done

heavy=$(grep -E '^(chromium.*|.*jre.*|.*jdk.*|prometheus.*|clang.*|libclang.*|llvm.*|nodejs|npm|nginx.*|openssh-server)$' "$tmp/demo")
check "--list demo names no browser, JRE, prometheus, clang, llvm, nodejs, npm, nginx or sshd" "" "$heavy"
# has SET WHAT PACKAGE...: one check that SET lists every PACKAGE.
has() {
    set_file=$tmp/$1 what=$2
    shift 2
    lacks=""
    for p in "$@"; do grep -qx "$p" "$set_file" || lacks="$lacks $p"; done
    check "$what" "" "$lacks"
}
has demo "--list demo has the compiler, cmake and the -dev packages CMakeLists.txt asks for" \
    gcc cmake pkg-config libncurses-dev libuv1-dev libcurl4-openssl-dev libinih-dev libjansson-dev \
    libmicrohttpd-dev libgnutls28-dev libssl-dev libnghttp2-dev libluajit2-5.1-dev libcmocka-dev \
    libhttp-parser-dev zlib1g-dev
for set in test bench; do
    missing=$(grep -vxF -f "$tmp/$set" "$tmp/demo")
    check "--list $set holds every package of demo" "" "$missing"
done
has test "--list test has the tests' counterparts" chromium default-jre-headless libhdrhistogram-java \
    prometheus clang clang-format libclang-rt-14-dev nodejs npm nginx openssh-server tmux cppcheck \
    python3-botocore strace nghttp2-client redis-server redis-tools memcached python3-websockets
has bench "--list bench has the peers" wrk apache2-utils nghttp2-client nginx redis-server redis-tools

# Every package of every set is known to apt (a typo would make a fresh
# machine's install fail).
# One apt-cache call for all (each call reads the whole package cache).
sort -u "$tmp/demo" "$tmp/test" "$tmp/bench" >"$tmp/all"
# shellcheck disable=SC2046
apt-cache show --no-all-versions $(cat "$tmp/all") 2>/dev/null | sed -n 's/^Package: //p' | sort -u >"$tmp/known"
unknown=$(grep -vxF -f "$tmp/known" "$tmp/all" | tr '\n' ' ')
check "every package of every set is in the apt cache ($(wc -l <"$tmp/all") packages)" "" "$unknown"

expect_run "--list of an unknown set is a usage error" 2 "" '^usage: scripts/install-deps ' -- sh "$deps" --list frob
expect_run "an unknown option is a usage error" 2 "" '^usage: scripts/install-deps ' -- sh "$deps" --frob
finish
