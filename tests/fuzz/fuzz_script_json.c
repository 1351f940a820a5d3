/*
 * Fuzzes brink.json.decode and brink.json.encode on the input as JSON text.
 * Properties, beyond not crashing or leaking:
 *   - decode either succeeds or raises an error that starts with
 *     "brink.json.decode:";
 *   - whatever decode returns encodes, and that text is canonical: decoding
 *     and encoding it again gives the same text.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "script/lib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char code[] =
    "local text = ...\n"
    "local ok, v = pcall(brink.json.decode, text)\n"
    "if not ok then\n"
    "  assert(type(v) == 'string' and v:find('brink.json.decode:', 1, true), v)\n"
    "  return\n"
    "end\n"
    "local s1 = brink.json.encode(v)\n"
    "local s2 = brink.json.encode(brink.json.decode(s1))\n"
    "assert(s1 == s2, s1 .. ' ~= ' .. s2)";

/* One state for every input (a new one each time would be most of the
 * time spent); it is never closed, as libFuzzer never says it is done. */
static lua_State *state(void)
{
    static struct script_lib lib;
    static lua_State *L;
    char err[SCRIPT_ERR_MAX];

    if (L)
        return L;
    L = luaL_newstate();
    if (!L || script__sandbox(L, ".", err, sizeof(err)) != 0)
        abort();
    script__lib_open(L, &lib);
    return L;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lua_State *L = state();

    if (luaL_loadstring(L, code) != LUA_OK)
        abort();
    lua_pushlstring(L, (const char *)data, size);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK)
        abort();
    return 0;
}
