/*
 * Setup data: lines and CSV files parsed once into one block of text and
 * one array of offsets, never written again, and read in place by every
 * worker's state through a userdata (brink.data(name)[i], #data).
 */
#include "script/lib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/msg.h"
#include "core/xalloc.h"

#define DATA_MT "brink.data" /* registry name of the data userdata's metatable */

/* One loaded file. Item i is text[off[i]..off[i + 1]): a line, or a CSV
 * field, records one after another (the header first when there is one). */
struct script_data {
    char *name;
    enum script_data_kind kind;
    int has_header;
    size_t n_fields; /* fields per record; 1 for lines */
    size_t n_rows;   /* records or lines, the header left out */
    char *text;
    uint32_t *off; /* n_items + 1 entries */
    size_t n_items;
};

struct script_data_set {
    struct script_data *items[SCRIPT_DATA_SETS_MAX];
    unsigned n;
};

struct script_data_set *script__data_set_new(void)
{
    return xcalloc(1, sizeof(struct script_data_set));
}

static void data_free(struct script_data *d)
{
    if (!d)
        return;
    free(d->name);
    free(d->text);
    free(d->off);
    free(d);
}

void script__data_set_free(struct script_data_set *set)
{
    if (!set)
        return;
    for (unsigned i = 0; i < set->n; i++)
        data_free(set->items[i]);
    free(set);
}

/* ---- parsing ---------------------------------------------------------- */

struct parse {
    const char *in;
    size_t len;
    size_t pos;
    unsigned line; /* of in[pos], from 1 */
    struct script_data *d;
    size_t out_len; /* bytes in d->text */
    size_t off_cap;
    const char *file;
    char *err;
    size_t errlen;
};

/* Ends the item whose bytes were appended since the last one. */
static int end_item(struct parse *p)
{
    struct script_data *d = p->d;

    if (d->n_items == SCRIPT_DATA_MAX_ITEMS) {
        msg_set(p->err, p->errlen, "%s: more than %u %s (the limit of a data file)", p->file,
                SCRIPT_DATA_MAX_ITEMS, d->kind == SCRIPT_DATA_CSV ? "fields" : "lines");
        return -EFBIG;
    }
    if (d->n_items + 2 > p->off_cap) {
        p->off_cap *= 2;
        d->off = xrealloc(d->off, p->off_cap * sizeof(*d->off));
    }
    d->off[++d->n_items] = (uint32_t)p->out_len;
    return 0;
}

static int fail_at(struct parse *p, unsigned line, const char *what)
{
    msg_set(p->err, p->errlen, "%s:%u: %s", p->file, line, what);
    return -EINVAL;
}

/* Bytes of the line break at pos: "\n", "\r\n", or a "\r" ending the input;
 * 0 when there is none. */
static size_t newline_at(const struct parse *p, size_t pos)
{
    if (pos >= p->len)
        return 0;
    if (p->in[pos] == '\n')
        return 1;
    if (p->in[pos] == '\r')
        return pos + 1 == p->len ? 1 : p->in[pos + 1] == '\n' ? 2 : 0;
    return 0;
}

static int parse_lines(struct parse *p)
{
    while (p->pos < p->len) {
        const char *start = p->in + p->pos;
        const char *nl = memchr(start, '\n', p->len - p->pos);
        size_t n = nl ? (size_t)(nl - start) : p->len - p->pos;

        p->pos += n + (nl != NULL);
        if (n > 0 && start[n - 1] == '\r')
            n--;
        if (n == 0)
            continue;
        memcpy(p->d->text + p->out_len, start, n);
        p->out_len += n;
        if (end_item(p) != 0)
            return -EFBIG;
        p->d->n_rows++;
    }
    return 0;
}

/* The bytes of a quoted field, from its opening quote to the closing one. */
static int csv_quoted(struct parse *p)
{
    unsigned open_line = p->line;

    p->pos++;
    for (;;) {
        char c;

        if (p->pos >= p->len)
            return fail_at(p, open_line, "a quoted field is not closed");
        c = p->in[p->pos++];
        if (c == '"') {
            if (p->pos >= p->len || p->in[p->pos] != '"')
                break;
            p->pos++;
        } else if (c == '\n') {
            p->line++;
        }
        p->d->text[p->out_len++] = c;
    }
    if (p->pos < p->len && p->in[p->pos] != ',' && !newline_at(p, p->pos))
        return fail_at(
            p, p->line,
            "text after the closing quote of a field (a quote inside a quoted field is written \"\")");
    return 0;
}

static int csv_plain(struct parse *p)
{
    while (p->pos < p->len && p->in[p->pos] != ',' && !newline_at(p, p->pos)) {
        if (p->in[p->pos] == '"')
            return fail_at(
                p, p->line,
                "a quote inside an unquoted field (quote the whole field and write the quote as \"\")");
        p->d->text[p->out_len++] = p->in[p->pos++];
    }
    return 0;
}

/* Parses one field and what ends it. Returns ',' when another field of the
 * record follows, '\n' at the end of the record, or a negative errno. */
static int csv_field(struct parse *p)
{
    size_t nl;
    int rc = p->pos < p->len && p->in[p->pos] == '"' ? csv_quoted(p) : csv_plain(p);

    if (rc == 0)
        rc = end_item(p);
    if (rc != 0)
        return rc;
    if (p->pos < p->len && p->in[p->pos] == ',') {
        p->pos++;
        return ',';
    }
    nl = newline_at(p, p->pos);
    if (nl) {
        p->pos += nl;
        p->line++;
    }
    return '\n';
}

static int parse_csv(struct parse *p)
{
    size_t records = 0;

    while (p->pos < p->len) {
        size_t nl = newline_at(p, p->pos), n = 0;
        unsigned line = p->line;
        int rc;

        if (nl) {
            p->pos += nl;
            p->line++;
            continue;
        }
        do {
            rc = csv_field(p);
            n++;
        } while (rc == ',');
        if (rc < 0)
            return rc;
        if (records++ == 0) {
            p->d->n_fields = n;
        } else if (n != p->d->n_fields) {
            char what[96];

            msg_set(what, sizeof(what), "%zu fields, but the first record has %zu", n,
                    p->d->n_fields);
            return fail_at(p, line, what);
        }
    }
    if (p->d->has_header && records == 0) {
        msg_set(p->err, p->errlen, "%s: no header record (the file is empty)", p->file);
        return -EINVAL;
    }
    p->d->n_rows = records - (records > 0 && p->d->has_header);
    return 0;
}

static struct script_data *find(const struct script_data_set *set, const char *name)
{
    for (unsigned i = 0; set && i < set->n; i++) {
        if (strcmp(set->items[i]->name, name) == 0)
            return set->items[i];
    }
    return NULL;
}

int script__data_parse(struct script_data_set *set, const char *name, enum script_data_kind kind,
                       int has_header, const char *file, const char *text, size_t len, char *err,
                       size_t errlen)
{
    struct parse p = {.in = text,
                      .len = len,
                      .line = 1,
                      .off_cap = 1024,
                      .file = file,
                      .err = err,
                      .errlen = errlen};
    int rc;

    if (find(set, name)) {
        msg_set(err, errlen, "%s: a data set named \"%s\" is loaded already", file, name);
        return -EEXIST;
    }
    if (set->n == SCRIPT_DATA_SETS_MAX) {
        msg_set(err, errlen, "%s: more than %d data sets", file, SCRIPT_DATA_SETS_MAX);
        return -ENOSPC;
    }
    if (len > SCRIPT_DATA_MAX_BYTES) {
        msg_set(err, errlen, "%s: larger than %u bytes (the limit of a data file)", file,
                SCRIPT_DATA_MAX_BYTES);
        return -EFBIG;
    }
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        p.pos = 3;
    p.d = xcalloc(1, sizeof(*p.d));
    p.d->kind = kind;
    p.d->has_header = kind == SCRIPT_DATA_CSV && has_header;
    p.d->n_fields = 1;
    /* Unquoting only removes bytes: the items fit in the input's size. */
    p.d->text = xmalloc(len + 1);
    p.d->off = xmalloc(p.off_cap * sizeof(*p.d->off));
    p.d->off[0] = 0;
    rc = kind == SCRIPT_DATA_CSV ? parse_csv(&p) : parse_lines(&p);
    if (rc != 0) {
        data_free(p.d);
        return rc;
    }
    p.d->name = xstrdup(name);
    set->items[set->n++] = p.d;
    return 0;
}

/* ---- the Lua side ----------------------------------------------------- */

static struct script_lib *lib_of(lua_State *L)
{
    return lua_touserdata(L, lua_upvalueindex(1));
}

static void push_data(lua_State *L, const struct script_data *d)
{
    const struct script_data **box = lua_newuserdata(L, sizeof(*box));

    *box = d;
    luaL_getmetatable(L, DATA_MT);
    lua_setmetatable(L, -2);
}

static const struct script_data *data_arg(lua_State *L)
{
    return *(const struct script_data **)luaL_checkudata(L, 1, DATA_MT);
}

static void push_item(lua_State *L, const struct script_data *d, size_t i)
{
    lua_pushlstring(L, d->text + d->off[i], d->off[i + 1] - d->off[i]);
}

/* data[i]: row i (1-based): a string for lines; for CSV a table of the
 * fields, keyed by the header's names when there is one. nil past the end. */
static int data_index(lua_State *L)
{
    const struct script_data *d = data_arg(L);
    long long i;
    size_t first;

    if (!compat_to_int(L, 2, &i)) {
        return luaL_error(L, "brink.data \"%s\": rows are numbered 1 to %d, got a %s", d->name,
                          (int)d->n_rows, luaL_typename(L, 2));
    }
    if (i < 1 || (unsigned long long)i > d->n_rows) {
        lua_pushnil(L);
        return 1;
    }
    first = ((size_t)i - 1 + (size_t)d->has_header) * d->n_fields;
    if (d->kind == SCRIPT_DATA_LINES) {
        push_item(L, d, first);
        return 1;
    }
    lua_createtable(L, d->has_header ? 0 : (int)d->n_fields, d->has_header ? (int)d->n_fields : 0);
    for (size_t f = 0; f < d->n_fields; f++) {
        if (d->has_header)
            push_item(L, d, f);
        push_item(L, d, first + f);
        if (d->has_header)
            lua_rawset(L, -3);
        else
            lua_rawseti(L, -2, (int)f + 1);
    }
    return 1;
}

static int data_len(lua_State *L)
{
    compat_push_int(L, (long long)data_arg(L)->n_rows);
    return 1;
}

static int data_tostring(lua_State *L)
{
    const struct script_data *d = data_arg(L);

    lua_pushfstring(L, "data set \"%s\" (%d rows)", d->name, (int)d->n_rows);
    return 1;
}

/* brink.data(name): the data set setup loaded under name. */
static int data_get(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    const struct script_data *d = find(lib_of(L)->data, name);

    if (!d) {
        return luaL_error(
            L,
            "brink.data: no data set named \"%s\" (setup loads them with brink.load_lines or brink.load_csv)",
            name);
    }
    push_data(L, d);
    return 1;
}

/* Whether path is relative and stays below its folder: parts that are not
 * empty, ".", or "..", and no NUL. */
static int is_inner_path(const char *path, size_t len)
{
    size_t part = 0;

    if (len == 0 || path[0] == '/' || strlen(path) != len)
        return 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && path[i] != '/')
            continue;
        if (i == part || (i - part == 1 && path[part] == '.') ||
            (i - part == 2 && path[part] == '.' && path[part + 1] == '.'))
            return 0;
        part = i + 1;
    }
    return 1;
}

/* Refuses keys of the options table (argument 2, if given) that are not in
 * allowed. */
static void check_options(lua_State *L, const char *fn, const char *const *allowed)
{
    if (lua_isnoneornil(L, 2))
        return;
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        const char *const *a = allowed;

        lua_pop(L, 1);
        while (*a && !(key && strcmp(key, *a) == 0))
            a++;
        if (!*a)
            luaL_error(L, "%s: unknown option \"%s\"", fn, key ? key : luaL_typename(L, -1));
    }
}

static void push_option(lua_State *L, const char *key)
{
    if (lua_istable(L, 2))
        lua_getfield(L, 2, key);
    else
        lua_pushnil(L);
}

/* brink.load_lines(file [, {name=}]) and brink.load_csv(file [, {name=,
 * header=}]): upvalue 2 is the kind. */
static int data_load(lua_State *L)
{
    static const char *const csv_options[] = {"name", "header", NULL};
    static const char *const lines_options[] = {"name", NULL};
    struct script_lib *lib = lib_of(L);
    enum script_data_kind kind = (enum script_data_kind)lua_tointeger(L, lua_upvalueindex(2));
    const char *fn = kind == SCRIPT_DATA_CSV ? "brink.load_csv" : "brink.load_lines";
    size_t len;
    const char *file = luaL_checklstring(L, 1, &len), *name;
    char err[SCRIPT_ERR_MAX], *text, *path;
    int has_header, rc;

    if (!lib->may_load || !lib->data)
        return luaL_error(L, "%s: data is loaded by the setup function only", fn);
    check_options(L, fn, kind == SCRIPT_DATA_CSV ? csv_options : lines_options);
    if (!is_inner_path(file, len)) {
        return luaL_error(
            L, "%s: \"%s\": expected a path relative to the script's folder, without \"..\"", fn,
            file);
    }
    push_option(L, "name");
    name = lua_isnil(L, -1) ? file : luaL_checkstring(L, -1);
    push_option(L, "header");
    has_header = lua_toboolean(L, -1);
    lua_pushfstring(L, "%s/%s", lib->script_dir ? lib->script_dir : ".", file);
    path = xstrdup(lua_tostring(L, -1));
    rc = script__read_file(path, SCRIPT_DATA_MAX_BYTES, &text, &len, err, sizeof(err));
    free(path);
    if (rc != 0) {
        return luaL_error(L, "%s: %s: %s%s", fn, file, err,
                          rc == -EFBIG ? " (the limit of a data file)" : "");
    }
    rc = script__data_parse(lib->data, name, kind, has_header, file, text, len, err, sizeof(err));
    free(text);
    if (rc != 0)
        return luaL_error(L, "%s: %s", fn, err);
    push_data(L, find(lib->data, name));
    return 1;
}

void script__data_open(lua_State *L, struct script_lib *lib)
{
    static const luaL_Reg mt[] = {
        {"__index", data_index}, {"__len", data_len}, {"__tostring", data_tostring}, {NULL, NULL}};

    if (luaL_newmetatable(L, DATA_MT)) {
        luaL_setfuncs(L, mt, 0);
        lua_pushliteral(L, "brink.data");
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    lua_pushlightuserdata(L, lib);
    lua_pushcclosure(L, data_get, 1);
    lua_setfield(L, -2, "data");
    lua_pushlightuserdata(L, lib);
    lua_pushinteger(L, SCRIPT_DATA_LINES);
    lua_pushcclosure(L, data_load, 2);
    lua_setfield(L, -2, "load_lines");
    lua_pushlightuserdata(L, lib);
    lua_pushinteger(L, SCRIPT_DATA_CSV);
    lua_pushcclosure(L, data_load, 2);
    lua_setfield(L, -2, "load_csv");
}
