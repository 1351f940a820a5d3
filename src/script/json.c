/*
 * brink.json: JSON text to Lua values and back, through jansson. null is
 * the value brink.json.null (so that it keeps its place in arrays); arrays
 * come back marked, so that an empty one stays an array when encoded again.
 */
#include "script/lib.h"

#include <math.h>
#include <string.h>

#include <jansson.h>

/* Registry key of the metatable that marks a table as a JSON array. */
static const char array_key;

/* brink.json.null: a light userdata that compares equal in every state. */
static void push_null(lua_State *L)
{
    lua_pushlightuserdata(L, NULL);
}

static void push_array_mt(lua_State *L)
{
    lua_pushlightuserdata(L, (void *)&array_key);
    lua_rawget(L, LUA_REGISTRYINDEX);
}

/* ---- decode ----------------------------------------------------------- */

static void push_value(lua_State *L, json_t *v, int depth);

static void push_container(lua_State *L, json_t *v, int depth)
{
    if (depth >= SCRIPT_JSON_MAX_DEPTH)
        luaL_error(L, "brink.json.decode: nested deeper than %d", SCRIPT_JSON_MAX_DEPTH);
    luaL_checkstack(L, 4, "brink.json.decode");
    if (json_is_array(v)) {
        size_t n = json_array_size(v);

        lua_createtable(L, n < INT32_MAX ? (int)n : 0, 0);
        for (size_t i = 0; i < n; i++) {
            push_value(L, json_array_get(v, i), depth + 1);
            lua_rawseti(L, -2, (int)i + 1);
        }
        push_array_mt(L);
        lua_setmetatable(L, -2);
    } else {
        const char *key;
        size_t key_len;
        json_t *item;

        lua_createtable(L, 0, (int)json_object_size(v));
        json_object_keylen_foreach(v, key, key_len, item)
        {
            lua_pushlstring(L, key, key_len);
            push_value(L, item, depth + 1);
            lua_rawset(L, -3);
        }
    }
}

static void push_value(lua_State *L, json_t *v, int depth)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
    case JSON_ARRAY: push_container(L, v, depth); break;
    case JSON_STRING: lua_pushlstring(L, json_string_value(v), json_string_length(v)); break;
    case JSON_INTEGER: compat_push_int(L, json_integer_value(v)); break;
    case JSON_REAL: lua_pushnumber(L, json_real_value(v)); break;
    case JSON_TRUE: lua_pushboolean(L, 1); break;
    case JSON_FALSE: lua_pushboolean(L, 0); break;
    case JSON_NULL: push_null(L); break;
    }
}

/* Pushes the tree given as a light userdata: run under lua_pcall, so that
 * a Lua error (too deep, out of memory) cannot leak the tree. */
static int decode_protected(lua_State *L)
{
    push_value(L, lua_touserdata(L, 1), 0);
    return 1;
}

static int decode(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    json_error_t e;
    json_t *tree = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
    int rc;

    if (!tree) {
        return luaL_error(L, "brink.json.decode: line %d column %d: %s", e.line, e.column, e.text);
    }
    lua_pushcfunction(L, decode_protected);
    lua_pushlightuserdata(L, tree);
    rc = lua_pcall(L, 1, 1, 0);
    json_decref(tree);
    if (rc != LUA_OK)
        return lua_error(L);
    return 1;
}

/* ---- encode ----------------------------------------------------------- */

/* The tree being built; error says why it stopped (a literal). */
struct build {
    const char *error;
};

static json_t *build_value(lua_State *L, int idx, int depth, struct build *b);

/* How the table at idx encodes: 1 array (marked, or keys exactly 1..n with
 * n > 0), 0 object (string keys only, or empty), -1 neither. *n: entries. */
static int table_shape(lua_State *L, int idx, size_t *n)
{
    int has_string = 0, has_int = 0;
    size_t max = 0;

    *n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        long long k;

        lua_pop(L, 1);
        (*n)++;
        if (lua_type(L, -1) == LUA_TSTRING)
            has_string = 1;
        else if (compat_to_int(L, -1, &k) && k >= 1) {
            has_int = 1;
            if ((size_t)k > max)
                max = (size_t)k;
        } else {
            has_int = has_string = 1;
        }
    }
    if (lua_getmetatable(L, idx)) {
        int marked;

        push_array_mt(L);
        marked = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
        if (marked && !has_string)
            return max == *n ? 1 : -1;
    }
    if (has_int && has_string)
        return -1;
    if (has_int)
        return max == *n ? 1 : -1;
    return 0;
}

static json_t *build_array(lua_State *L, int idx, size_t n, int depth, struct build *b)
{
    json_t *a = json_array();

    for (size_t i = 1; i <= n && a; i++) {
        json_t *item;

        lua_rawgeti(L, idx, (int)i);
        item = build_value(L, lua_gettop(L), depth + 1, b);
        lua_pop(L, 1);
        if (!item || json_array_append_new(a, item) != 0) {
            json_decref(a);
            a = NULL;
        }
    }
    return a;
}

static json_t *build_object(lua_State *L, int idx, int depth, struct build *b)
{
    json_t *o = json_object();

    lua_pushnil(L);
    while (lua_next(L, idx)) {
        size_t key_len;
        const char *key = lua_tolstring(L, -2, &key_len);
        json_t *item = build_value(L, lua_gettop(L), depth + 1, b);

        lua_pop(L, 1);
        if (item && json_object_setn_new(o, key, key_len, item) != 0) {
            b->error = "an object key that is not UTF-8";
            item = NULL;
        }
        if (!item) {
            lua_pop(L, 1);
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static json_t *build_number(lua_State *L, int idx, struct build *b)
{
    lua_Number d = lua_tonumber(L, idx);
    long long i;

    /* An integral float up to 2^53 is written as an integer: LuaJIT has no
     * other kind of integer, and 1.0 reads as 1 in JSON anyway. */
    if (compat_to_int(L, idx, &i) && (lua_Number)i == d && fabs(d) <= 9007199254740992.0)
        return json_integer(i);
#if LUA_VERSION_NUM >= 503
    if (lua_isinteger(L, idx))
        return json_integer((json_int_t)lua_tointeger(L, idx));
#endif
    if (!isfinite(d)) {
        b->error = "NaN and infinity have no JSON form";
        return NULL;
    }
    return json_real(d);
}

static json_t *build_value(lua_State *L, int idx, int depth, struct build *b)
{
    size_t len, n;
    const char *s;
    json_t *v;

    if (depth > SCRIPT_JSON_MAX_DEPTH) {
        b->error = "nested too deep (a table that holds itself?)";
        return NULL;
    }
    luaL_checkstack(L, 4, "brink.json.encode");
    switch (lua_type(L, idx)) {
    case LUA_TNIL: return json_null();
    case LUA_TBOOLEAN: return json_boolean(lua_toboolean(L, idx));
    case LUA_TNUMBER: return build_number(L, idx, b);
    case LUA_TSTRING:
        s = lua_tolstring(L, idx, &len);
        v = json_stringn(s, len);
        if (!v)
            b->error = "a string that is not UTF-8 (encode bytes with brink.base64 or brink.hex)";
        return v;
    case LUA_TLIGHTUSERDATA:
        if (lua_touserdata(L, idx) == NULL)
            return json_null();
        break;
    case LUA_TTABLE:
        switch (table_shape(L, idx, &n)) {
        case 1: return build_array(L, idx, n, depth, b);
        case 0: return build_object(L, idx, depth, b);
        default:
            b->error = "a table that is neither an array (keys 1..n) nor an object (string keys)";
            return NULL;
        }
    default: break;
    }
    b->error = "a value JSON has no form for (a function, userdata or thread)";
    return NULL;
}

/* brink.json.encode(value): compact JSON with object keys sorted, so that
 * the same value always gives the same text. */
static int encode(lua_State *L)
{
    struct build b = {NULL};
    json_t *tree;
    char *text;

    luaL_checkany(L, 1);
    lua_settop(L, 1);
    tree = build_value(L, 1, 0, &b);
    if (!tree)
        return luaL_error(L, "brink.json.encode: %s", b.error);
    text = json_dumps(tree, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    json_decref(tree);
    if (!text)
        return luaL_error(L, "brink.json.encode: out of memory");
    lua_pushstring(L, text);
    free(text);
    return 1;
}

/* brink.json.array(t): marks t (a new table when absent) as an array. */
static int mark_array(lua_State *L)
{
    if (lua_isnoneornil(L, 1)) {
        lua_settop(L, 0);
        lua_newtable(L);
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    push_array_mt(L);
    lua_setmetatable(L, 1);
    return 1;
}

void script__json_open(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"decode", decode}, {"encode", encode}, {"array", mark_array}, {NULL, NULL}};

    lua_pushlightuserdata(L, (void *)&array_key);
    lua_newtable(L);
    lua_pushliteral(L, "array");
    lua_setfield(L, -2, "__name");
    lua_rawset(L, LUA_REGISTRYINDEX);

    lua_newtable(L);
    luaL_setfuncs(L, fns, 0);
    push_null(L);
    lua_setfield(L, -2, "null");
    lua_setfield(L, -2, "json");
}
