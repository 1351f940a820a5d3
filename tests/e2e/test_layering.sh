#!/bin/sh
# The module layering (cmake/Modules.cmake), checked on the sources: the console never
# includes libuv or libcurl; nothing but the console includes curses; core
# includes no I/O library; in the engine the transports, each in its folder,
# include of the engine transport.h alone and see the worker and slot only
# through its views; the folders are modules, but for the executables' (cmd,
# gendoc). The link graph (cmake/Modules.cmake) enforces the same for
# libraries, and the engine's call graph (tests/e2e/call_graph.py over its
# objects, with nm) has no cycle.
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
forbid "only ui includes curses" "core config ramp engine probes record report script target agents" 'n?curses(w)?\.h|ncursesw/|term\.h'
forbid "core includes no I/O library" "core" 'uv\.h|curl/|jansson\.h|ini\.h|microhttpd\.h'
forbid "cli (the option tables) includes no I/O library" "cli" 'uv\.h|curl/|jansson\.h|ini\.h|microhttpd\.h|n?curses'
forbid "config includes no event loop, HTTP or JSON library" "config" 'uv\.h|curl/|jansson\.h'
forbid "record and report do not speak HTTP" "record report" 'curl/'
forbid "script (Lua) has no event loop or HTTP library: requests go through the engine" "script" 'uv\.h|curl/'
forbid "ramp is a pure state machine" "ramp" 'uv\.h|curl/|jansson\.h|pthread\.h'

# The transport contract (src/engine/transport.h): each transport lives in
# a folder of its own (src/engine/h1, src/engine/curl) whose files include
# of the engine transport.h alone, besides their own folder's headers; no
# other file of the engine includes a transport's headers or its library
# (libcurl, nghttp2, libhttp-parser, OpenSSL's TLS). The transports that
# do their own I/O (h1, stream) share src/engine/tls/ (TLS on memory BIOs)
# and src/engine/lookup.h (name lookups off the loop).
hits=""
for d in h1 curl stream; do
    [ -f src/engine/$d/transport.c ] || [ -f src/engine/$d/transfer.c ] || hits="${hits}no transport in src/engine/$d "
    h=$(grep -nE '#include *"engine/' src/engine/$d/*.[ch] |
        grep -vE "#include *\"engine/(transport\.h|tls/tls\.h|lookup\.h|$d/[a-z0-9_]+\.h)\"")
    hits="$hits$h"
done
if [ -z "$hits" ]; then ok "the transports include of the engine transport.h alone"; else not_ok "the transports include of the engine transport.h alone" "$hits"; fi
hits=$(grep -nE '#include *[<"](curl/|nghttp2/|http_parser\.h|openssl/ssl\.h|engine/(h1|curl|stream|tls)/)' src/engine/*.[ch])
if [ -z "$hits" ]; then ok "the engine's core includes no transport and no transport's library"; else not_ok "the engine's core includes no transport and no transport's library" "$hits"; fi
# A transport sees its worker and slot through the views transport.h
# defines (struct transport_worker, struct transport_slot), never the
# engine's structs: transport.h brings in neither slot.h nor worker.h (nor
# does any engine header it includes, all the way down), and no file of a
# transport names struct worker or struct slot.
seen="" todo="src/engine/transport.h" hits=""
while [ -n "$todo" ]; do
    next=""
    for f in $todo; do
        case " $seen " in *" $f "*) continue ;; esac
        seen="$seen $f"
        for inc in $(sed -n 's/^#include *"\(engine\/[a-z0-9_/]*\.h\)".*/\1/p' "$f"); do
            case $inc in
            engine/slot.h | engine/worker.h | engine/internal.h) hits="$hits$f includes $inc " ;;
            *) next="$next src/$inc" ;;
            esac
        done
    done
    todo=$next
done
if [ -z "$hits" ]; then ok "transport.h includes neither slot.h nor worker.h"; else not_ok "transport.h includes neither slot.h nor worker.h" "$hits"; fi
hits=$(grep -nE '\bstruct (worker|slot)\b' src/engine/h1/*.[ch] src/engine/curl/*.[ch] src/engine/stream/*.[ch])
if [ -z "$hits" ]; then ok "the transports name neither struct worker nor struct slot"; else not_ok "the transports name neither struct worker nor struct slot" "$hits"; fi
hits=$(grep -lE '#include *[<"]curl/' src/engine/h1/*.[ch])
if [ -z "$hits" ]; then ok "h1 does not include libcurl"; else not_ok "h1 does not include libcurl" "$hits"; fi

# The map: src/ holds folders only. Every header is included by its folder
# (the include root is src/), and only the brink executable (src/cmd)
# includes a command's header: a module never reaches the commands.
hits=$(find src -maxdepth 1 -type f ! -name CMakeLists.txt)
if [ -z "$hits" ]; then ok "no source file lies loose in src/"; else not_ok "no source file lies loose in src/" "$hits"; fi
hits=$(grep -rnE '#include *"([^/"]+|cmd/[^"]*)"' src --include='*.[ch]' |
    grep -vE '^src/cmd/[a-z_]+\.[ch]:[0-9]+:#include *"(cmd/[a-z_]+\.h|brink_commit\.h)"')
if [ -z "$hits" ]; then ok "only src/cmd includes the commands' headers, by folder"; else not_ok "only src/cmd includes the commands' headers, by folder" "$hits"; fi

# The agent and the coordinator are the module agents: they run the engine
# for a coordinator, with no terminal and no command of the executable.
if [ -f src/agents/agent.c ] && [ -f src/agents/coordinator.c ]; then
    forbid "agents includes neither curses nor a command's header" "agents" 'n?curses(w)?\.h|ncursesw/|term\.h|cmd/'
else
    not_ok "agents includes neither curses nor a command's header" "no src/agents/agent.c and coordinator.c"
fi
rule=$(sed -n 's/^set(BRINK_ALLOWED_agents *//p' cmake/Modules.cmake)
if grep -q '^brink_module(agents$' src/agents/CMakeLists.txt 2>/dev/null && [ -n "$rule" ] &&
    ! printf '%s' "$rule" | grep -qE 'NCURSESW|brink_(ui|report|metrics|target)\b'; then
    ok "agents is a module whose rule links no terminal, report, metrics or target"
else
    not_ok "agents is a module whose rule links no terminal, report, metrics or target" "rule: ${rule:-none}"
fi

# The engine's call graph, read from its objects with nm: no file of the
# engine calls one that calls it, and no file of the core calls a
# transport that calls it back through any of its files (each transport
# folder counted as one node too: the core calls a transport only through
# transport_ops, a transport calls back only what transport.h declares).
# What goes up (a slot free for its next request, a transfer's end)
# goes through a callback.
objects=${BRINK_ENGINE_OBJECTS:-}
if [ -z "$objects" ] || [ ! -s "$objects" ]; then
    not_ok "the engine's files call each other in no cycle" "BRINK_ENGINE_OBJECTS=${objects:-unset}: the build's src/engine/objects.txt"
elif graph=$(python3 tests/e2e/call_graph.py "$objects" 2>&1); then
    ok "the engine's files call each other in no cycle ($(printf '%s\n' "$graph" | grep -c ' -> ') calls between files)"
else
    not_ok "the engine's files call each other in no cycle" "$(printf '%s\n' "$graph" | grep -vE ' -> ')"
fi
for call in "worker.c -> slot.c" "slot.c -> scene.c" "scene.c -> request.c" "h1/ -> slot.c" \
    "engine.c -> worker.c" "in curl/: transfer.c -> uv.c" "in h1/: request.c -> wire.c"; do
    if printf '%s\n' "${graph:-}" | grep -qxF "$call"; then
        ok "the call graph has $call"
    else
        not_ok "the call graph has $call" "nm found no such call: the graph is not the engine's"
    fi
done

# Every module's library must come from cmake/Modules.cmake's table; the
# executables' folders (brink's commands, the man page generator) are known
# here, have no rule (nothing links them) and make their executable.
executables="cmd:brink gendoc:brink-gendoc"
for e in $executables; do
    d=${e%%:*} exe=${e#*:}
    if grep -q "^add_executable($exe " "src/$d/CMakeLists.txt" 2>/dev/null &&
        ! grep -q "^set(BRINK_ALLOWED_$d " cmake/Modules.cmake; then
        ok "src/$d makes the executable $exe and is no module"
    else
        not_ok "src/$d makes the executable $exe and is no module" "src/$d/CMakeLists.txt: add_executable($exe ...), and no BRINK_ALLOWED_$d"
    fi
done
for d in src/*/; do
    m=$(basename "$d")
    case " $executables " in *" $m:"*) continue ;; esac
    if grep -q "^set(BRINK_ALLOWED_$m " cmake/Modules.cmake && grep -q "^brink_module($m\b" "$d/CMakeLists.txt"; then
        ok "module $m has a layering rule"
    else
        not_ok "module $m has a layering rule" "add BRINK_ALLOWED_$m to cmake/Modules.cmake, brink_module($m ...) to $d/CMakeLists.txt"
    fi
done

finish
