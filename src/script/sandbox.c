/*
 * The globals a script sees (script__sandbox), and Lua text read from files:
 * the script itself (script__load_file) and the modules it requires from its
 * own folder.
 */
#include "script/lib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/msg.h"
#include "core/regfile.h"
#include "core/xalloc.h"

#define MODULE_NAME_MAX 128 /* bytes of a name given to require */

/* Registry keys: the addresses are unique, the values unused. */
static const char dir_key;     /* the script's folder, a string */
static const char modules_key; /* name -> what the module returned, or loading_mark */
static const char loading_mark;

int script__read_file(const char *path, size_t max, char **out, size_t *len, char *why,
                      size_t why_len)
{
    size_t cap = 4096, n = 0;
    char *buf;
    FILE *f;
    int rc = regfile_open(path, max, &f, why, why_len);

    if (rc != 0)
        return rc;
    buf = xmalloc(cap);
    for (;;) {
        size_t got = fread(buf + n, 1, cap - n, f);

        n += got;
        if (got == 0 || n > max)
            break;
        if (n == cap)
            buf = xrealloc(buf, cap *= 2);
    }
    rc = ferror(f) ? -EIO : n > max ? -EFBIG : 0;
    fclose(f);
    if (rc != 0) {
        if (rc == -EIO)
            msg_set(why, why_len, "cannot read");
        else
            msg_set(why, why_len, "larger than %zu bytes", max);
        free(buf);
        return rc;
    }
    *out = buf;
    *len = n;
    return 0;
}

int script__load_file(lua_State *L, const char *path, const char *chunkname, char *err,
                      size_t errlen)
{
    char why[128];
    size_t len, skip = 0;
    char *text;
    int rc = script__read_file(path, SCRIPT_FILE_MAX_BYTES, &text, &len, why, sizeof(why));

    if (rc != 0) {
        msg_set(err, errlen, "%s: %s", chunkname + (*chunkname == '@'), why);
        return rc;
    }
    /* A "#!" first line is left out as luaL_loadfile does, keeping its
     * newline so that line numbers stay those of the file. */
    if (len > 0 && text[0] == '#') {
        while (skip < len && text[skip] != '\n')
            skip++;
    }
    /* Mode "t": a precompiled chunk can break the VM's invariants, so only
     * source text is ever loaded. Lua's own words for one differ between
     * LuaJIT and 5.4, so say it here first. */
    if (skip < len && text[skip] == '\033') {
        free(text);
        msg_set(err, errlen, "%s: a precompiled chunk, but only Lua source is loaded",
                chunkname + (*chunkname == '@'));
        return -EINVAL;
    }
    rc = luaL_loadbufferx(L, text + skip, len - skip, chunkname, "t");
    free(text);
    if (rc != LUA_OK) {
        msg_set(err, errlen, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
        return rc == LUA_ERRMEM ? -ENOMEM : -EINVAL;
    }
    return 0;
}

/* Whether name is parts of letters, digits, '_' and '-' joined by single
 * dots: a path below the script's folder once dots become slashes. */
static int is_module_name(const char *name, size_t len)
{
    int part = 0;

    if (len == 0 || len > MODULE_NAME_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];

        if (c == '.') {
            if (part == 0)
                return 0;
            part = 0;
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '_' || c == '-') {
            part++;
        } else {
            return 0;
        }
    }
    return part > 0;
}

/* Pushes registry[key]. */
static void push_registry(lua_State *L, const char *key)
{
    lua_pushlightuserdata(L, (void *)key);
    lua_rawget(L, LUA_REGISTRYINDEX);
}

/* Runs the module file for name (its chunk is at the top) and leaves what
 * it returned, true for nothing, in modules[name]. */
static void run_module(lua_State *L, int modules, const char *name)
{
    lua_pushstring(L, name);
    lua_pushlightuserdata(L, (void *)&loading_mark);
    lua_rawset(L, modules);
    lua_pushstring(L, name);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        lua_pushstring(L, name);
        lua_pushnil(L);
        lua_rawset(L, modules);
        lua_error(L);
    }
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushstring(L, name);
    lua_pushvalue(L, -2);
    lua_rawset(L, modules);
}

/* require(name): NAME.lua from the script's folder, as described in lib.h. */
static int safe_require(lua_State *L)
{
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    char rel[MODULE_NAME_MAX + 8], chunk[sizeof(rel) + 1], err[SCRIPT_ERR_MAX];
    char *path;
    int modules;

    if (!is_module_name(name, len))
        return luaL_error(
            L,
            "require: \"%s\" is not a module of the script's folder: expected names of letters, digits, '_' and '-' joined by dots, such as \"lib.sign\" for lib/sign.lua",
            name);
    lua_settop(L, 1);
    push_registry(L, &modules_key);
    modules = lua_gettop(L);
    lua_pushvalue(L, 1);
    lua_rawget(L, modules);
    if (lua_touserdata(L, -1) == &loading_mark)
        return luaL_error(L, "require: \"%s\" requires itself (through the modules it requires)",
                          name);
    if (!lua_isnil(L, -1))
        return 1;
    lua_pop(L, 1);
    msg_set(rel, sizeof(rel), "%s.lua", name);
    for (char *p = rel; p < rel + len; p++) {
        if (*p == '.')
            *p = '/';
    }
    msg_set(chunk, sizeof(chunk), "@%s", rel);
    push_registry(L, &dir_key);
    lua_pushfstring(L, "%s/%s", lua_tostring(L, -1), rel);
    path = xstrdup(lua_tostring(L, -1));
    lua_pop(L, 2);
    if (script__load_file(L, path, chunk, err, sizeof(err)) != 0) {
        free(path);
        return luaL_error(L, "require: %s", err);
    }
    free(path);
    run_module(L, modules, name);
    return 1;
}

/* load(chunk [, chunkname [, mode [, env]]]): the original load, with the
 * mode always "t" (upvalue 1 is the original). */
static int safe_load(lua_State *L)
{
    int n = lua_gettop(L);

    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    if (n >= 2)
        lua_pushvalue(L, 2);
    else
        lua_pushnil(L);
    lua_pushliteral(L, "t");
    /* Lua 5.4 tells an absent env from a nil one; pass it only if given. */
    if (n >= 4)
        lua_pushvalue(L, 4);
    lua_call(L, n >= 4 ? 4 : 3, LUA_MULTRET);
    return lua_gettop(L) - n;
}

/* Sets t[name] = nil for each name, t at the top of the stack. */
static void drop_fields(lua_State *L, const char *const *names)
{
    for (; *names; names++) {
        lua_pushnil(L);
        lua_setfield(L, -2, *names);
    }
}

/* Replaces the global os by a table of os.time, os.clock and os.date. */
static void reduce_os(lua_State *L)
{
    static const char *const kept[] = {"time", "clock", "date", NULL};

    compat_open_lib(L, LUA_OSLIBNAME, luaopen_os);
    lua_getglobal(L, LUA_OSLIBNAME);
    lua_createtable(L, 0, 3);
    for (const char *const *k = kept; *k; k++) {
        lua_getfield(L, -2, *k);
        lua_setfield(L, -2, *k);
    }
    lua_setglobal(L, LUA_OSLIBNAME);
    lua_pop(L, 1);
}

int script__sandbox(lua_State *L, const char *script_dir, char *err, size_t errlen)
{
    /* dofile and loadfile read any file; print and warn write to the
     * terminal the console owns; loadstring is load without its checks. */
    static const char *const base_dropped[] = {"dofile", "loadfile", "loadstring",
                                               "print",  "warn",     NULL};

    if (!lua_checkstack(L, 8)) {
        msg_set(err, errlen, "lua: out of memory while making the sandbox");
        return -ENOMEM;
    }
    compat_open_lib(L, "_G", luaopen_base);
    compat_open_lib(L, LUA_TABLIBNAME, luaopen_table);
    compat_open_lib(L, LUA_STRLIBNAME, luaopen_string);
    compat_open_lib(L, LUA_MATHLIBNAME, luaopen_math);
#if LUA_VERSION_NUM >= 502
    compat_open_lib(L, LUA_COLIBNAME, luaopen_coroutine);
    compat_open_lib(L, LUA_UTF8LIBNAME, luaopen_utf8);
#else
    /* LuaJIT's luaopen_base opens coroutine too. Its compiler is switched
     * on by luaopen_jit alone: open it, then hide the jit table (it can
     * flush and inspect compiled code). script__guard_sandbox switches the
     * compiler off again, so that a hook can stop any loop. */
    compat_open_lib(L, LUA_BITLIBNAME, luaopen_bit);
    compat_open_lib(L, LUA_JITLIBNAME, luaopen_jit);
    lua_pushnil(L);
    lua_setglobal(L, LUA_JITLIBNAME);
#endif
    reduce_os(L);
    lua_getglobal(L, "load");
    lua_pushcclosure(L, safe_load, 1);
    lua_setglobal(L, "load");
    lua_getglobal(L, "_G");
    drop_fields(L, base_dropped);
    lua_pop(L, 1);
    /* string.dump hands out bytecode, which nothing here can load. */
    lua_getglobal(L, LUA_STRLIBNAME);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);

    lua_pushlightuserdata(L, (void *)&dir_key);
    lua_pushstring(L, script_dir);
    lua_rawset(L, LUA_REGISTRYINDEX);
    lua_pushlightuserdata(L, (void *)&modules_key);
    lua_newtable(L);
    lua_rawset(L, LUA_REGISTRYINDEX);
    lua_pushcfunction(L, safe_require);
    lua_setglobal(L, "require");
    return 0;
}
