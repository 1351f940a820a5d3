/*
 * lua_compat: the few places where the C APIs of LuaJIT 2.1 (Lua 5.1) and
 * Lua 5.4 differ, behind one spelling. Everything else in src/script uses
 * the API both share. Any thread (it only names what Lua provides).
 */
#ifndef BRINK_SCRIPT_LUA_COMPAT_H
#define BRINK_SCRIPT_LUA_COMPAT_H

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#if __has_include(<luajit.h>)
#include <luajit.h>
#endif

#ifndef LUA_OK
#define LUA_OK 0
#endif

/* The length of the value at idx without metamethods (# of a table). */
static inline size_t compat_rawlen(lua_State *L, int idx)
{
#if LUA_VERSION_NUM >= 502
    return (size_t)lua_rawlen(L, idx);
#else
    return lua_objlen(L, idx);
#endif
}

/* Opens one standard library as the global name, leaving the stack as it
 * was. Lua 5.1's luaopen_* set the global themselves; 5.4's return it. */
static inline void compat_open_lib(lua_State *L, const char *name, lua_CFunction open)
{
#if LUA_VERSION_NUM >= 502
    luaL_requiref(L, name, open, 1);
    lua_pop(L, 1);
#else
    lua_pushcfunction(L, open);
    lua_pushstring(L, name);
    lua_call(L, 1, 0);
#endif
}

/* Pushes an integer as Lua 5.4's integer subtype (a number in LuaJIT:
 * exact up to 2^53). */
static inline void compat_push_int(lua_State *L, long long v)
{
    lua_pushinteger(L, (lua_Integer)v);
}

/* Whether the value at idx is a number with an integral value that fits a
 * long long, stored in *out (a 5.4 integer, or a float such as 3.0). */
static inline int compat_to_int(lua_State *L, int idx, long long *out)
{
#if LUA_VERSION_NUM >= 503
    if (lua_isinteger(L, idx)) {
        *out = (long long)lua_tointeger(L, idx);
        return 1;
    }
#endif
    if (lua_type(L, idx) == LUA_TNUMBER) {
        lua_Number d = lua_tonumber(L, idx);

        if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 &&
            d == (lua_Number)(long long)d) {
            *out = (long long)d;
            return 1;
        }
    }
    return 0;
}

/* Resumes co with the nargs values on top of its stack (from: the state
 * that resumes it, which Lua 5.4 asks for). */
static inline int compat_resume(lua_State *co, lua_State *from, int nargs)
{
#if LUA_VERSION_NUM >= 504
    int nres;

    return lua_resume(co, from, nargs, &nres);
#else
    (void)from;
    return lua_resume(co, nargs);
#endif
}

#endif
