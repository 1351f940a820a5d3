/*
 * The brink table: encodings, hashes, uuid and random numbers, checks,
 * counters and gauges. JSON is json.c's, setup data data.c's.
 */
#include "script/lib.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "core/base64.h"
#include "core/msg.h"
#include "core/rng.h"

/* The struct script_lib a function is bound to (its first upvalue). */
static struct script_lib *lib_of(lua_State *L)
{
    return lua_touserdata(L, lua_upvalueindex(1));
}

/* Whether optional argument i is the word `word` (absent or nil: no; any
 * other value is an error naming fn). */
static int has_option(lua_State *L, int i, const char *word, const char *fn)
{
    const char *s;

    if (lua_isnoneornil(L, i))
        return 0;
    s = lua_tostring(L, i);
    if (lua_type(L, i) != LUA_TSTRING || strcmp(s, word) != 0)
        return luaL_error(L, "%s: argument %d: expected \"%s\" or nothing", fn, i, word);
    return 1;
}

/* ---- base64 and hex --------------------------------------------------- */

/* Pushes room for n bytes that the collector frees (a userdata), as Lua 5.1
 * has no luaL_prepbuffsize. */
static char *scratch(lua_State *L, size_t n)
{
    return lua_newuserdata(L, n ? n : 1);
}

/* Replaces the scratch at the top by the string out[0..len). */
static void push_scratch(lua_State *L, const char *out, size_t len)
{
    lua_pushlstring(L, out, len);
    lua_remove(L, -2);
}

static int b64_encode(lua_State *L)
{
    size_t len;
    const unsigned char *in = (const unsigned char *)luaL_checklstring(L, 1, &len);
    int is_url = has_option(L, 2, "url", "brink.base64.encode");
    char *out = scratch(L, base64_encoded_len(len) + 1);

    push_scratch(L, out, base64_encode(in, len, out, is_url));
    return 1;
}

static int b64_decode(lua_State *L)
{
    size_t len;
    const char *in = luaL_checklstring(L, 1, &len);
    int is_url = has_option(L, 2, "url", "brink.base64.decode");
    char *out = scratch(L, len / 4 * 3 + 3);
    long n = base64_decode(in, len, (unsigned char *)out, is_url);

    if (n < 0) {
        return luaL_error(L, "brink.base64.decode: not %s (%d bytes given)",
                          is_url ? "URL-safe base64" : "padded base64", (int)len);
    }
    push_scratch(L, out, (size_t)n);
    return 1;
}

static void push_hex(lua_State *L, const unsigned char *in, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    char *out = scratch(L, 2 * len);

    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    push_scratch(L, out, 2 * len);
}

static int hex_encode(lua_State *L)
{
    size_t len;
    const char *in = luaL_checklstring(L, 1, &len);

    push_hex(L, (const unsigned char *)in, len);
    return 1;
}

static int nibble(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int hex_decode(lua_State *L)
{
    size_t len;
    const char *in = luaL_checklstring(L, 1, &len);
    char *out;

    if (len % 2 != 0)
        return luaL_error(L, "brink.hex.decode: an odd number of digits (%d)", (int)len);
    out = scratch(L, len / 2);
    for (size_t i = 0; i < len; i += 2) {
        int hi = nibble(in[i]), lo = nibble(in[i + 1]);

        if (hi < 0 || lo < 0)
            return luaL_error(L, "brink.hex.decode: character %d is not a hex digit",
                              (int)(hi < 0 ? i + 1 : i + 2));
        out[i / 2] = (char)(hi << 4 | lo);
    }
    push_scratch(L, out, len / 2);
    return 1;
}

/* ---- SHA-256 and HMAC-SHA256 ------------------------------------------ */

/* Pushes a digest in lower-case hex, or raw when argument i is "raw". */
static int push_digest(lua_State *L, const unsigned char *md, size_t len, int i, const char *fn)
{
    if (has_option(L, i, "raw", fn))
        lua_pushlstring(L, (const char *)md, len);
    else
        push_hex(L, md, len);
    return 1;
}

static int sha256(lua_State *L)
{
    size_t len;
    const char *in = luaL_checklstring(L, 1, &len);
    unsigned char md[SHA256_DIGEST_LENGTH];

    SHA256((const unsigned char *)in, len, md);
    return push_digest(L, md, sizeof(md), 2, "brink.sha256");
}

static int hmac_sha256(lua_State *L)
{
    size_t key_len, len;
    const char *key = luaL_checklstring(L, 1, &key_len);
    const char *in = luaL_checklstring(L, 2, &len);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;

    if (!HMAC(EVP_sha256(), key, (int)key_len, (const unsigned char *)in, len, md, &md_len))
        return luaL_error(L, "brink.hmac_sha256: libcrypto failed (key of %d bytes)", (int)key_len);
    return push_digest(L, md, md_len, 3, "brink.hmac_sha256");
}

/* ---- uuid and random numbers ------------------------------------------ */

void script__rng_seed(uint64_t *rng, uint64_t seed, uint64_t stream)
{
    /* Two splitmix64 steps mix seed and stream, so neighbouring streams
     * start far apart. */
    uint64_t s = seed;

    *rng = rng_next(&s) ^ stream;
    *rng = rng_next(rng);
}

static int uuid(lua_State *L)
{
    char out[RNG_UUID_LEN];

    rng_uuid(lib_of(L)->rng, out);
    lua_pushlstring(L, out, sizeof(out));
    return 1;
}

static long long int_arg(lua_State *L, int i, const char *fn)
{
    long long v;

    if (!compat_to_int(L, i, &v))
        return luaL_error(L, "%s: argument %d: expected an integer", fn, i);
    return v;
}

/* brink.random(), (n) or (m, n), as Lua's math.random: a float in [0, 1),
 * or an integer in [1, n] or [m, n], from the bound state's stream. */
static int random_number(lua_State *L)
{
    uint64_t *rng = lib_of(L)->rng;
    long long lo = 1, hi;
    uint64_t draw;

    switch (lua_gettop(L)) {
    case 0:
        /* The top 53 bits, so every float is one of 2^53 equally spaced. */
        lua_pushnumber(L, (lua_Number)(rng_next(rng) >> 11) * 0x1.0p-53);
        return 1;
    case 1: hi = int_arg(L, 1, "brink.random"); break;
    case 2:
        lo = int_arg(L, 1, "brink.random");
        hi = int_arg(L, 2, "brink.random");
        break;
    default: return luaL_error(L, "brink.random: expected at most 2 arguments");
    }
    if (lo > hi) {
        char why[96];

        /* lua_pushfstring knows no %lld. */
        msg_set(why, sizeof(why), "the interval [%lld, %lld] is empty", lo, hi);
        return luaL_error(L, "brink.random: %s", why);
    }
    /* hi - lo + 1 in modular arithmetic: 0 stands for all 2^64 values. */
    draw = (uint64_t)lo + rng_below(rng, (uint64_t)hi - (uint64_t)lo + 1);
    compat_push_int(L, (long long)draw);
    return 1;
}

/* ---- checks, counters and gauges -------------------------------------- */

/* The name argument at i, checked; its length in *len. */
static const char *name_arg(lua_State *L, int i, const char *fn, size_t *len)
{
    const char *name = luaL_checklstring(L, i, len);

    if (*len == 0 || *len >= SCRIPT_NAME_MAX)
        luaL_error(L, "%s: a name of 1 to %d bytes, got %d", fn, SCRIPT_NAME_MAX - 1, (int)*len);
    if (strlen(name) != *len)
        luaL_error(L, "%s: a name without NUL bytes", fn);
    return name;
}

/* Counts a call whose new name found the table of its class (0: checks,
 * 1: counters and gauges) full. */
static void drop_name(struct script_lib *lib, int cls, const char *name, size_t len)
{
    lib->names_dropped++;
    lib->dropped[cls]++;
    if (!lib->dropped_name[cls][0])
        memcpy(lib->dropped_name[cls], name, len + 1);
}

/* brink.check(cond, name): counts cond's truth under name; returns it. */
static int check(lua_State *L)
{
    struct script_lib *lib = lib_of(L);
    int ok = lua_toboolean(L, 1);
    size_t len;
    const char *name = name_arg(L, 2, "brink.check", &len);
    struct script_check *c = NULL;

    for (unsigned i = 0; i < lib->n_checks && !c; i++) {
        if (strcmp(lib->checks[i].name, name) == 0)
            c = &lib->checks[i];
    }
    if (!c && lib->n_checks < SCRIPT_NAMES_MAX) {
        c = &lib->checks[lib->n_checks++];
        memcpy(c->name, name, len + 1);
    }
    if (!c)
        drop_name(lib, 0, name, len);
    else if (ok)
        c->passed++;
    else
        c->failed++;
    lua_pushboolean(L, ok);
    return 1;
}

/* Finds or adds the metric name of the given kind; NULL when the table is
 * full (counted as dropped). A name of the other kind is an error. */
static struct script_metric *metric(lua_State *L, int is_gauge, const char *fn)
{
    struct script_lib *lib = lib_of(L);
    size_t len;
    const char *name = name_arg(L, 1, fn, &len);
    struct script_metric *m;

    for (unsigned i = 0; i < lib->n_metrics; i++) {
        m = &lib->metrics[i];
        if (strcmp(m->name, name) != 0)
            continue;
        if (m->is_gauge != is_gauge) {
            luaL_error(L, "%s: \"%s\" is a %s already", fn, name,
                       m->is_gauge ? "gauge" : "counter");
        }
        return m;
    }
    if (lib->n_metrics == SCRIPT_NAMES_MAX) {
        drop_name(lib, 1, name, len);
        return NULL;
    }
    m = &lib->metrics[lib->n_metrics++];
    memcpy(m->name, name, len + 1);
    m->is_gauge = is_gauge;
    return m;
}

static lua_Number finite_arg(lua_State *L, int i, lua_Number dflt, const char *fn)
{
    lua_Number v = luaL_optnumber(L, i, dflt);

    if (!isfinite(v))
        luaL_error(L, "%s: argument %d: expected a finite number", fn, i);
    return v;
}

/* brink.counter(name [, delta]): adds delta (default 1). */
static int counter(lua_State *L)
{
    lua_Number delta = finite_arg(L, 2, 1, "brink.counter");
    struct script_metric *m = metric(L, 0, "brink.counter");

    if (m) {
        m->value += delta;
        m->is_set = 1;
        m->calls++;
    }
    return 0;
}

/* brink.gauge(name, value): sets the value. */
static int gauge(lua_State *L)
{
    lua_Number v;
    struct script_metric *m;

    luaL_checknumber(L, 2);
    v = finite_arg(L, 2, 0, "brink.gauge");
    m = metric(L, 1, "brink.gauge");
    if (m) {
        m->value = v;
        m->is_set = 1;
        m->calls++;
    }
    return 0;
}

void script__lib_reset(struct script_lib *lib)
{
    for (unsigned i = 0; i < lib->n_checks; i++)
        lib->checks[i].passed = lib->checks[i].failed = 0;
    for (unsigned i = 0; i < lib->n_metrics; i++) {
        if (!lib->metrics[i].is_gauge)
            lib->metrics[i].value = 0;
        lib->metrics[i].is_set = 0;
        lib->metrics[i].calls = 0;
    }
    lib->dropped[0] = lib->dropped[1] = 0;
}

/* ---- the table -------------------------------------------------------- */

/* Sets t[name] = a new table of fns, t at the top. */
static void add_table(lua_State *L, const char *name, const luaL_Reg *fns)
{
    lua_newtable(L);
    luaL_setfuncs(L, fns, 0);
    lua_setfield(L, -2, name);
}

void script__lib_open(lua_State *L, struct script_lib *lib)
{
    static const luaL_Reg b64_fns[] = {
        {"encode", b64_encode}, {"decode", b64_decode}, {NULL, NULL}};
    static const luaL_Reg hex_fns[] = {
        {"encode", hex_encode}, {"decode", hex_decode}, {NULL, NULL}};
    static const luaL_Reg bound_fns[] = {{"uuid", uuid},   {"random", random_number},
                                         {"check", check}, {"counter", counter},
                                         {"gauge", gauge}, {NULL, NULL}};

    if (!lib->rng) {
        script__rng_seed(&lib->own_rng, lib->seed, 0);
        lib->rng = &lib->own_rng;
    }
    lua_newtable(L);
    add_table(L, "base64", b64_fns);
    add_table(L, "hex", hex_fns);
    lua_pushcfunction(L, sha256);
    lua_setfield(L, -2, "sha256");
    lua_pushcfunction(L, hmac_sha256);
    lua_setfield(L, -2, "hmac_sha256");
    lua_pushlightuserdata(L, lib);
    luaL_setfuncs(L, bound_fns, 1);
    script__json_open(L);
    script__pack_open(L);
    script__data_open(L, lib);
    lua_setglobal(L, "brink");

    /* math.random draws from the same seeded stream, so that scripts
     * written for plain Lua repeat too; reseeding is not the script's. */
    lua_getglobal(L, LUA_MATHLIBNAME);
    lua_getglobal(L, "brink");
    lua_getfield(L, -1, "random");
    lua_setfield(L, -3, "random");
    lua_pop(L, 1);
    lua_pushnil(L);
    lua_setfield(L, -2, "randomseed");
    lua_pop(L, 1);
}
