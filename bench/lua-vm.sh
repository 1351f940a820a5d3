#!/bin/sh
# The cost of one request in the script layer under LuaJIT 2.1 and Lua 5.4:
# bench/lua-vm.c built against each, run for N round trips (default 2,000,000).
# Prints ns per round trip for each. Why brink embeds the one it does:
# docs/scenarios.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
n=${1:-2000000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$here/../scripts/install-deps" bench
for vm in luajit lua5.4; do
    cc -O2 -I "$here/../src" -o "$out/$vm" "$here/lua-vm.c" $(pkg-config --cflags --libs "$vm")
    "$out/$vm" "$n"
done
