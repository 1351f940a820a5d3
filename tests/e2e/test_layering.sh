#!/bin/sh
# The module layering (cmake/Modules.cmake), checked on the sources: the console never
# includes libuv or libcurl; nothing but the console includes curses; core
# includes no I/O library; in the engine only the curl transport's files
# include libcurl. The link graph (cmake/Modules.cmake) enforces the
# same for libraries.
# Usage: sh test_layering.sh BRINK SRCDIR
src=$2
. "$src/tests/e2e/lib.sh"
cd "$src" || exit 1

forbid() {
    name=$1 dirs=$2 pattern=$3
    hits=""
    for d in $dirs; do
        [ -d "src/$d" ] || continue
        h=$(grep -rlE "#include *[<\"]($pattern)" "src/$d" 2>/dev/null)
        hits="$hits$h"
    done
    if [ -z "$hits" ]; then ok "$name"; else not_ok "$name" "$hits"; fi
}

forbid "ui includes neither libuv nor libcurl" "ui" 'uv\.h|curl/'
forbid "only ui includes curses" "core config ramp engine probes record report script target" 'n?curses(w)?\.h|ncursesw/|term\.h'
forbid "core includes no I/O library" "core" 'uv\.h|curl/|jansson\.h|ini\.h|microhttpd\.h'
forbid "cli (the option tables) includes no I/O library" "cli" 'uv\.h|curl/|jansson\.h|ini\.h|microhttpd\.h|n?curses'
forbid "config includes no event loop, HTTP or JSON library" "config" 'uv\.h|curl/|jansson\.h'
forbid "record and report do not speak HTTP" "record report" 'curl/'
forbid "script (Lua) has no event loop or HTTP library: requests go through the engine" "script" 'uv\.h|curl/'
forbid "ramp is a pure state machine" "ramp" 'uv\.h|curl/|jansson\.h|pthread\.h'

# The transport seam: in the engine, only the curl transport's files
# (curl_*) include libcurl, and only through curl_transport.h.
hits=$(grep -lE '#include *[<"](curl/|engine/curl_transport\.h)' src/engine/* |
    grep -v '^src/engine/curl_[a-z_]*\.[ch]$')
if [ -z "$hits" ]; then ok "only the curl transport's files include libcurl"; else not_ok "only the curl transport's files include libcurl" "$hits"; fi

# Every module's library must come from cmake/Modules.cmake's table.
for d in src/*/; do
    m=$(basename "$d")
    if grep -q "^set(BRINK_ALLOWED_$m " cmake/Modules.cmake; then
        ok "module $m has a layering rule"
    else
        not_ok "module $m has a layering rule" "add BRINK_ALLOWED_$m to cmake/Modules.cmake"
    fi
done

finish
