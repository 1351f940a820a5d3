/*
 * What one request costs in the script layer, for each Lua VM brink could
 * embed: a coroutine builds a table of three string fields (method, url,
 * name), calls a C function that reads them and yields, and the host
 * resumes it with a status and a body. Prints ns per round trip.
 * Built by bench/lua-vm.sh against LuaJIT 2.1 and Lua 5.4.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "script/lua_compat.h"
#if __has_include(<luajit.h>)
#include <luajit.h>
#define VM_NAME LUAJIT_VERSION
#else
#define VM_NAME LUA_RELEASE
#endif

static size_t seen;

static int l_request(lua_State *L)
{
    size_t len;

    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "method");
    seen += strlen(luaL_checkstring(L, -1));
    lua_getfield(L, 1, "url");
    luaL_checklstring(L, -1, &len);
    seen += len;
    lua_getfield(L, 1, "name");
    seen += strlen(luaL_checkstring(L, -1));
    lua_pop(L, 3);
    return lua_yield(L, 0);
}

static const char script[] = "local request = request\n"
                             "return function(n)\n"
                             "  for i = 1, n do\n"
                             "    local status, body = request{method = 'GET',\n"
                             "        url = 'http://127.0.0.1:8080/kv/k', name = 'get'}\n"
                             "    if status ~= 200 then error('status') end\n"
                             "  end\n"
                             "end\n";

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    lua_State *L = luaL_newstate();
    lua_State *co;
    struct timespec a, b;
    int rc;

    luaL_openlibs(L);
    lua_pushcfunction(L, l_request);
    lua_setglobal(L, "request");
    if (luaL_loadstring(L, script) || lua_pcall(L, 0, 1, 0)) {
        fprintf(stderr, "lua-vm: %s\n", lua_tostring(L, -1));
        return 1;
    }
    co = lua_newthread(L);
    lua_pushvalue(L, -2);
    lua_xmove(L, co, 1);
    lua_pushnumber(co, (lua_Number)n);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    rc = compat_resume(co, L, 1);
    while (rc == LUA_YIELD) {
        lua_settop(co, 0);
        lua_pushinteger(co, 200);
        lua_pushlstring(co, "{\"v\":1}", 7);
        rc = compat_resume(co, L, 2);
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    if (rc != 0) {
        fprintf(stderr, "lua-vm: %s\n", lua_tostring(co, -1));
        return 1;
    }
    printf("%s: %.0f ns per request round trip (%ld, %zu)\n", VM_NAME,
           ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n, n, seen);
    lua_close(L);
    return 0;
}
