/*
 * Fuzzes the setup data parsers (script__data_parse). The first byte picks
 * lines (even) or CSV (odd), and a header (bit 1); the rest is the file.
 * Properties, beyond not crashing or leaking:
 *   - only the documented codes come back, a failure names the file, and a
 *     success writes no error;
 *   - CSV without a header survives a round trip: every row written back
 *     with each field quoted parses to the same rows.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "script/lib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes data set t back as CSV, every field quoted; returns it or NULL. */
static const char write_back[] =
    "local d, out = brink.data('t'), {}\n"
    "for i = 1, #d do\n"
    "  local r, f = d[i], {}\n"
    "  for j = 1, #r do f[j] = '\"' .. r[j]:gsub('\"', '\"\"') .. '\"' end\n"
    "  out[i] = table.concat(f, ',')\n"
    "end\n"
    "return table.concat(out, '\\r\\n')";

static const char compare[] = "local a, b = brink.data('t'), brink.data('u')\n"
                              "if #a ~= #b then return false end\n"
                              "for i = 1, #a do\n"
                              "  local x, y = a[i], b[i]\n"
                              "  if #x ~= #y then return false end\n"
                              "  for j = 1, #x do if x[j] ~= y[j] then return false end end\n"
                              "end\n"
                              "return true";

/* Runs code in L; returns its string or boolean result as a new copy
 * ("1" for true), NULL for false. Aborts on a Lua error. */
static char *run(lua_State *L, const char *code, size_t *len)
{
    char *out;
    const char *s;

    if (luaL_loadstring(L, code) != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK)
        abort();
    if (lua_type(L, -1) == LUA_TBOOLEAN) {
        out = lua_toboolean(L, -1) ? strdup("1") : NULL;
        lua_pop(L, 1);
        return out;
    }
    s = lua_tolstring(L, -1, len);
    out = malloc(*len + 1);
    if (!out)
        abort();
    memcpy(out, s, *len);
    lua_pop(L, 1);
    return out;
}

/* One state for every input (a new one each time would be most of the
 * time spent); it is never closed, as libFuzzer never says it is done. */
static lua_State *state(struct script_lib *lib)
{
    static lua_State *L;
    char err[SCRIPT_ERR_MAX];

    if (L)
        return L;
    L = luaL_newstate();
    if (!L || script__sandbox(L, ".", err, sizeof(err)) != 0)
        abort();
    script__lib_open(L, lib);
    return L;
}

static void round_trip(struct script_data_set *set)
{
    static struct script_lib lib;
    lua_State *L = state(&lib);
    char err[SCRIPT_ERR_MAX];
    size_t len = 0;
    char *text, *same;

    lib.data = set;
    text = run(L, write_back, &len);
    if (script__data_parse(set, "u", SCRIPT_DATA_CSV, 0, "u.csv", text, len, err, sizeof(err)) != 0)
        abort();
    same = run(L, compare, &len);
    if (!same)
        abort();
    free(same);
    free(text);
    lib.data = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct script_data_set *set;
    enum script_data_kind kind;
    char err[SCRIPT_ERR_MAX] = "";
    int has_header, rc;

    if (size == 0)
        return 0;
    kind = data[0] & 1 ? SCRIPT_DATA_CSV : SCRIPT_DATA_LINES;
    has_header = !!(data[0] & 2);
    set = script__data_set_new();
    rc = script__data_parse(set, "t", kind, has_header, "t.csv", (const char *)data + 1, size - 1,
                            err, sizeof(err));
    if (rc != 0 && rc != -EINVAL && rc != -EFBIG)
        abort();
    if ((rc != 0) != (strncmp(err, "t.csv", 5) == 0))
        abort();
    if (rc == 0 && kind == SCRIPT_DATA_CSV && !has_header)
        round_trip(set);
    script__data_set_free(set);
    return 0;
}
