/*
 * brink.pack and brink.unpack: a subset of Lua 5.3's string.pack formats,
 * which LuaJIT lacks, for the binary protocols a scenario speaks over
 * brink.tcp. Integers are Lua numbers, exact only up to 2^53 in LuaJIT, so
 * a value past that is refused both ways rather than rounded. Every loop is
 * bounded by the format (PACK_FMT_MAX characters), the data given, or
 * PACK_MAX_BYTES of output.
 */
#include "script/lib.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PACK_FMT_MAX 256                  /* characters of a format */
#define PACK_MAX_BYTES (16u << 20)        /* of a packed string, as c:send queues at most */
#define PACK_EXACT_MAX 9007199254740992.0 /* 2^53: the largest |n| a double holds exactly */

/* One option of a format, as parsed. */
struct pack_opt {
    char kind;     /* 'i' (integer), 's', 'z', 'x', 'c', or 0 (endianness only) */
    int is_signed; /* for 'i' */
    size_t size;   /* bytes: of the integer, of the length before 's', of 'c' */
    int pos;       /* 1-based position of the option in the format */
    int len;       /* characters of the option in the format (with its size) */
};

/* Where a format is read, for the errors. */
struct pack_state {
    lua_State *L;
    const char *fn; /* "brink.pack" or "brink.unpack" */
    const char *fmt;
    size_t fmt_len;
    size_t at;         /* next character of fmt to read */
    int is_little;     /* current endianness */
    struct pack_opt o; /* the option read last */
};

static int native_is_little(void)
{
    const uint16_t one = 1;

    return *(const unsigned char *)&one == 1;
}

/* Raises "FN: format position P ('OPT'): WHAT" (formatted here: Lua 5.1's
 * luaL_error knows no precision). */
static int opt_error(struct pack_state *ps, const char *what)
{
    char msg[320];

    snprintf(msg, sizeof(msg), "%s: format position %d ('%.*s'): %s", ps->fn, ps->o.pos, ps->o.len,
             ps->fmt + ps->o.pos - 1, what);
    return luaL_error(ps->L, "%s", msg);
}

/* Reads the digits after an option (none: dflt), from lo to hi. */
static size_t read_size(struct pack_state *ps, size_t dflt, size_t lo, size_t hi)
{
    size_t n = 0;
    int digits = 0;

    while (ps->at < ps->fmt_len && ps->fmt[ps->at] >= '0' && ps->fmt[ps->at] <= '9') {
        if (n <= hi)
            n = n * 10 + (size_t)(ps->fmt[ps->at] - '0');
        ps->at++;
        digits++;
    }
    ps->o.len = (int)(ps->at - (size_t)ps->o.pos + 1);
    if (!digits) {
        if (dflt)
            return dflt;
        opt_error(ps, "expected a size after 'c'");
    }
    if (n < lo || n > hi) {
        char why[64];

        snprintf(why, sizeof(why), "size out of range: expected %zu to %zu", lo, hi);
        opt_error(ps, why);
    }
    return n;
}

/* Reads the next option into ps->o; returns 0 at the end of the format.
 * Endianness marks and spaces are options of kind 0. */
static int next_opt(struct pack_state *ps)
{
    char c;

    if (ps->at >= ps->fmt_len)
        return 0;
    c = ps->fmt[ps->at++];
    memset(&ps->o, 0, sizeof(ps->o));
    ps->o.pos = (int)ps->at;
    ps->o.len = 1;
    switch (c) {
    case ' ': break;
    case '<': ps->is_little = 1; break;
    case '>': ps->is_little = 0; break;
    case '=': ps->is_little = native_is_little(); break;
    case 'b':
    case 'B': ps->o.kind = 'i', ps->o.is_signed = c == 'b', ps->o.size = 1; break;
    case 'h':
    case 'H': ps->o.kind = 'i', ps->o.is_signed = c == 'h', ps->o.size = 2; break;
    case 'j':
    case 'J': ps->o.kind = 'i', ps->o.is_signed = c == 'j', ps->o.size = 8; break;
    case 'i':
    case 'I':
        ps->o.kind = 'i', ps->o.is_signed = c == 'i';
        ps->o.size = read_size(ps, 4, 1, 8);
        break;
    case 's': ps->o.kind = 's', ps->o.size = read_size(ps, 8, 1, 8); break;
    case 'c': ps->o.kind = 'c', ps->o.size = read_size(ps, 0, 0, PACK_MAX_BYTES); break;
    case 'z': ps->o.kind = 'z'; break;
    case 'x': ps->o.kind = 'x'; break;
    default:
        opt_error(ps, "unknown option: expected one of < > = b B h H i I j J s z x c, "
                      "or a space");
    }
    return 1;
}

/* Opens ps over the format at argument 1, which fn takes. */
static void pack_begin(struct pack_state *ps, lua_State *L, const char *fn)
{
    memset(ps, 0, sizeof(*ps));
    ps->L = L;
    ps->fn = fn;
    ps->fmt = luaL_checklstring(L, 1, &ps->fmt_len);
    ps->is_little = native_is_little();
    if (ps->fmt_len > PACK_FMT_MAX) {
        luaL_error(L, "%s: a format of at most %d characters, got %d", fn, PACK_FMT_MAX,
                   (int)ps->fmt_len);
    }
}

/* The values an integer option takes, capped at +-2^53. */
static void int_range(const struct pack_opt *o, double *lo, double *hi)
{
    unsigned bits = 8 * (unsigned)o->size - (o->is_signed ? 1u : 0u);

    *hi = bits >= 53 ? PACK_EXACT_MAX : (double)((UINT64_C(1) << bits) - 1);
    *lo = !o->is_signed ? 0 : bits >= 53 ? -PACK_EXACT_MAX : -(double)(UINT64_C(1) << bits);
}

/* ---- pack ------------------------------------------------------------- */

/* Argument arg as an integer that option o's size holds. Compared as an
 * integer where it is one (Lua 5.4's 2^53 + 1 would round to 2^53). */
static int64_t check_int(struct pack_state *ps, int arg)
{
    const long long exact_max = 1LL << 53;
    const char *not_exact = "past which a Lua number is not exact";
    char why[160];
    long long v = 0;
    double lo, hi;

    if (lua_type(ps->L, arg) != LUA_TNUMBER) {
        snprintf(why, sizeof(why), "argument %d: expected an integer, got %s", arg,
                 luaL_typename(ps->L, arg));
        opt_error(ps, why);
    }
    if (compat_to_int(ps->L, arg, &v)) {
        if (v < -exact_max || v > exact_max) {
            snprintf(why, sizeof(why), "argument %d: %lld is beyond 2^53, %s", arg, v, not_exact);
            opt_error(ps, why);
        }
    } else {
        double d = (double)lua_tonumber(ps->L, arg);

        if (d < -PACK_EXACT_MAX || d > PACK_EXACT_MAX)
            snprintf(why, sizeof(why), "argument %d: %.17g is beyond 2^53, %s", arg, d, not_exact);
        else
            snprintf(why, sizeof(why), "argument %d: expected an integer, got %.17g", arg, d);
        opt_error(ps, why);
    }
    int_range(&ps->o, &lo, &hi);
    if ((double)v < lo || (double)v > hi) {
        snprintf(why, sizeof(why), "argument %d: %lld does not fit: expected %.17g to %.17g", arg,
                 v, lo, hi);
        opt_error(ps, why);
    }
    return (int64_t)v;
}

static void add_int(luaL_Buffer *b, uint64_t v, size_t size, int is_little)
{
    char out[8];

    for (size_t i = 0; i < size; i++) {
        out[is_little ? i : size - 1 - i] = (char)(v & 0xff);
        v >>= 8;
    }
    luaL_addlstring(b, out, size);
}

/* Option o's bytes for argument arg (o takes one) into b. */
static void pack_one(struct pack_state *ps, luaL_Buffer *b, int arg)
{
    char why[160];
    size_t len;
    const char *s;

    if (ps->o.kind == 'i') {
        add_int(b, (uint64_t)check_int(ps, arg), ps->o.size, ps->is_little);
        return;
    }
    if (lua_type(ps->L, arg) != LUA_TSTRING) {
        snprintf(why, sizeof(why), "argument %d: expected a string, got %s", arg,
                 luaL_typename(ps->L, arg));
        opt_error(ps, why);
    }
    s = lua_tolstring(ps->L, arg, &len);
    if (ps->o.kind == 's') {
        struct pack_opt len_opt = {.kind = 'i', .size = ps->o.size};
        double lo, hi;

        int_range(&len_opt, &lo, &hi);
        if ((double)len > hi) {
            snprintf(why, sizeof(why),
                     "argument %d: a string of %zu bytes is too long for a length of %zu bytes",
                     arg, len, ps->o.size);
            opt_error(ps, why);
        }
        add_int(b, (uint64_t)len, ps->o.size, ps->is_little);
    } else if (ps->o.kind == 'z' && memchr(s, 0, len)) {
        snprintf(why, sizeof(why), "argument %d: expected a string without zero bytes", arg);
        opt_error(ps, why);
    } else if (ps->o.kind == 'c' && len > ps->o.size) {
        snprintf(why, sizeof(why), "argument %d: a string of %zu bytes is longer than %zu", arg,
                 len, ps->o.size);
        opt_error(ps, why);
    }
    luaL_addlstring(b, s, len);
    if (ps->o.kind == 'z')
        luaL_addchar(b, '\0');
    for (size_t i = len; ps->o.kind == 'c' && i < ps->o.size; i++)
        luaL_addchar(b, '\0');
}

/* The bytes option o adds for a string of len bytes (0 for the others). */
static size_t opt_bytes(const struct pack_opt *o, size_t len)
{
    switch (o->kind) {
    case 'i': return o->size;
    case 's': return o->size + len;
    case 'z': return len + 1;
    case 'x': return 1;
    case 'c': return o->size;
    default: return 0;
    }
}

static int pack(lua_State *L)
{
    struct pack_state ps;
    luaL_Buffer b;
    int arg = 2, n_args = lua_gettop(L);
    size_t total = 0;

    pack_begin(&ps, L, "brink.pack");
    luaL_buffinit(L, &b);
    while (next_opt(&ps)) {
        size_t len = 0;

        if (!ps.o.kind)
            continue;
        if (ps.o.kind != 'x' && arg > n_args) {
            char why[64];

            snprintf(why, sizeof(why), "argument %d: expected a value, got none", arg);
            opt_error(&ps, why);
        }
        if (ps.o.kind != 'x' && ps.o.kind != 'i' && lua_type(L, arg) == LUA_TSTRING)
            lua_tolstring(L, arg, &len);
        total += opt_bytes(&ps.o, len);
        if (total > PACK_MAX_BYTES)
            opt_error(&ps, "the packed string would be longer than 16 MiB");
        if (ps.o.kind == 'x') {
            luaL_addchar(&b, '\0');
            continue;
        }
        pack_one(&ps, &b, arg);
        arg++;
    }
    if (arg <= n_args) {
        luaL_error(L, "brink.pack: the format takes %d value%s, %d given", arg - 2,
                   arg == 3 ? "" : "s", n_args - 1);
    }
    luaL_pushresult(&b);
    return 1;
}

/* ---- unpack ----------------------------------------------------------- */

/* Raises "data too short" unless need_bytes follow data[at]. */
static void need(struct pack_state *ps, size_t at, uint64_t need_bytes, size_t len)
{
    char why[160];

    if (need_bytes > len - at) {
        snprintf(why, sizeof(why), "data too short: need %llu bytes at position %zu, have %zu",
                 (unsigned long long)need_bytes, at + 1, len - at);
        opt_error(ps, why);
    }
}

/* The unsigned integer of size bytes at p, in the current endianness. */
static uint64_t read_raw(const struct pack_state *ps, const unsigned char *p, size_t size)
{
    uint64_t v = 0;

    for (size_t i = 0; i < size; i++)
        v = v << 8 | p[ps->is_little ? size - 1 - i : i];
    return v;
}

/* The integer of size bytes at p, checked to be exact as a Lua number
 * (compared as an integer: 2^53 + 1 would round to 2^53 as a double). */
static double read_int(struct pack_state *ps, const unsigned char *p, size_t size, int is_signed)
{
    const uint64_t exact_max = UINT64_C(1) << 53;
    char why[160];
    uint64_t v = read_raw(ps, p, size);
    int64_t sv;

    if (!is_signed) {
        if (v > exact_max) {
            snprintf(why, sizeof(why), "%llu is beyond 2^53, past which a Lua number is not exact",
                     (unsigned long long)v);
            opt_error(ps, why);
        }
        return (double)v;
    }
    if (size < 8 && (v >> (8 * size - 1)) & 1)
        v |= ~UINT64_C(0) << (8 * size);
    sv = (int64_t)v;
    if (sv > (int64_t)exact_max || sv < -(int64_t)exact_max) {
        snprintf(why, sizeof(why), "%lld is beyond 2^53, past which a Lua number is not exact",
                 (long long)sv);
        opt_error(ps, why);
    }
    return (double)sv;
}

/* Pushes the value of option o at data[*at] (none for 'x'), moving *at past it. */
static int unpack_one(struct pack_state *ps, const char *data, size_t len, size_t *at)
{
    const unsigned char *p = (const unsigned char *)data;
    size_t n = ps->o.size;
    const char *end;

    switch (ps->o.kind) {
    case 'i':
        need(ps, *at, n, len);
        compat_push_int(ps->L, (long long)read_int(ps, p + *at, n, ps->o.is_signed));
        break;
    case 's':
        need(ps, *at, n, len);
        {
            uint64_t str_len = read_raw(ps, p + *at, n);

            *at += n;
            need(ps, *at, str_len, len);
            n = (size_t)str_len;
        }
        lua_pushlstring(ps->L, data + *at, n);
        break;
    case 'z':
        end = memchr(data + *at, 0, len - *at);
        if (!end) {
            char why[160];

            snprintf(why, sizeof(why),
                     "data too short: no zero byte ends the string at position %zu (%zu bytes "
                     "left)",
                     *at + 1, len - *at);
            return opt_error(ps, why);
        }
        n = (size_t)(end - (data + *at));
        lua_pushlstring(ps->L, data + *at, n);
        n++;
        break;
    case 'x':
        need(ps, *at, 1, len);
        *at += 1;
        return 0;
    case 'c':
        need(ps, *at, n, len);
        lua_pushlstring(ps->L, data + *at, n);
        break;
    default: return 0;
    }
    *at += n;
    return 1;
}

static int unpack(lua_State *L)
{
    struct pack_state ps;
    size_t len, at;
    const char *data;
    long long pos = 1;
    int n = 0;

    pack_begin(&ps, L, "brink.unpack");
    data = luaL_checklstring(L, 2, &len);
    if (!lua_isnoneornil(L, 3) &&
        (!compat_to_int(L, 3, &pos) || pos < 1 || pos > (long long)len + 1))
        luaL_error(L, "brink.unpack: argument 3: expected a position from 1 to %d", (int)len + 1);
    at = (size_t)(pos - 1);
    luaL_checkstack(L, PACK_FMT_MAX + 1, "brink.unpack");
    while (next_opt(&ps))
        n += unpack_one(&ps, data, len, &at);
    compat_push_int(L, (long long)at + 1);
    return n + 1;
}

void script__pack_open(lua_State *L)
{
    lua_pushcfunction(L, pack);
    lua_setfield(L, -2, "pack");
    lua_pushcfunction(L, unpack);
    lua_setfield(L, -2, "unpack");
}
