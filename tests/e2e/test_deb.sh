#!/bin/sh
# The Debian package (issue 21, "Done when"): make deb builds it; its
# control file declares the libraries brink runs with (dpkg-shlibdeps) and
# its data holds the binary, both man pages, both completions and the
# examples; apt installs it on this machine (CI is a clean Debian 12 with no
# container to install into), /usr/bin/brink --version runs, and the package
# is removed again, leaving no /usr/bin/brink. Needs root, and refuses to
# touch a machine where a brink package or /usr/bin/brink already is.
# make deb packages the release build BRINK is in (RELEASE=its folder, as
# scripts/test-all's build/release): nothing is compiled again.
# Usage: sh test_deb.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "FAIL installing a package needs root"; exit 1; }
for tool in dpkg-deb dpkg-shlibdeps apt-get cpack; do
    command -v $tool >/dev/null 2>&1 || { echo "FAIL $tool missing: run scripts/install-deps"; exit 1; }
done
if dpkg-query -W -f='${Status}' brink 2>/dev/null | grep -q 'ok installed'; then
    echo "FAIL a brink package is installed already; remove it first (dpkg -r brink)"
    exit 1
fi
[ -e /usr/bin/brink ] && { echo "FAIL /usr/bin/brink exists and is no package's; not touching it"; exit 1; }
release=$(cd "$(dirname "$brink")" && pwd)
grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$release/CMakeCache.txt" 2>/dev/null &&
    grep -q '^SANITIZE:STRING=$' "$release/CMakeCache.txt" ||
    { echo "FAIL $release is not a release build without sanitizers (the package is made of it)"; exit 1; }

tmp=$(mktemp -d)
installed=""
cleanup() {
    [ -n "$installed" ] && dpkg -r brink >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

make -C "$src" deb RELEASE="$release" DEB_BUILD="$tmp/build" >"$tmp/make.log" 2>&1
check "make deb exits 0" 0 $?
deb=$(ls "$tmp"/build/package/brink_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { not_ok "make deb wrote a package" "$(tail -n 5 "$tmp/make.log")"; finish; exit 1; }
ok "make deb wrote $(basename "$deb")"

depends=$(dpkg-deb -f "$deb" Depends)
for lib in libcurl4 libuv1 libncursesw6 libssl3 libjansson4 libmicrohttpd12 libinih1; do
    if printf '%s' "$depends" | grep -q "$lib"; then ok "it depends on $lib"; else not_ok "it depends on $lib" "$depends"; fi
done
dpkg-deb -c "$deb" >"$tmp/files"
for f in ./usr/bin/brink ./usr/share/man/man1/brink.1 ./usr/share/man/man5/brink-config.5 \
    ./usr/share/bash-completion/completions/brink ./usr/share/zsh/vendor-completions/_brink \
    ./usr/share/doc/brink/examples/minimal.ini; do
    if grep -q " $f\$" "$tmp/files"; then ok "it holds $f"; else not_ok "it holds $f"; fi
done

installed=1
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$deb" >"$tmp/apt.log" 2>&1
check "apt-get install ./brink_*.deb exits 0" 0 $?
expect_run "the installed /usr/bin/brink --version runs" 0 '^brink [0-9]' "" -- /usr/bin/brink --version
dpkg -r brink >"$tmp/remove.log" 2>&1
check "dpkg -r brink exits 0" 0 $?
installed=""
if [ -e /usr/bin/brink ]; then not_ok "no /usr/bin/brink is left behind"; else ok "no /usr/bin/brink is left behind"; fi

finish
