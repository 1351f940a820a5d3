/*
 * brink.tcp and brink.ws: a user's connections, as the script sees them.
 * A connection object (a userdata) says where it goes and keeps what
 * c:send queued; c:receive yields to the engine, which opens the
 * connection if it is not open, writes the queued bytes and reads the
 * reply (src/engine/stream/). The sockets are the engine's: c:close() and
 * the collector only note which connection closes, and the engine closes
 * it before the user's next exchange. brink.ws frames its messages here
 * (masked, RFC 6455, 5.3); the engine reads the server's frames.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/redact.h"
#include "core/rng.h"
#include "core/ws.h"
#include "core/xalloc.h"
#include "script/internal.h"

#define HOST_MAX 255
#define PATH_MAX_WS 2048
#define CONN_META "brink.connection"

/* A connection object's state (the userdata's memory). */
struct script_conn {
    struct script_user *u; /* NULL once its user is freed */
    uint32_t index;        /* in u->conns, unless closed */
    int is_closed; /* c:close(): out of u->conns (u may then be freed) until its next receive */
    struct script_conn_spec spec;
    char host[HOST_MAX + 1];
    char *path;         /* brink.ws: the request target */
    char **lines;       /* brink.ws: the upgrade's extra header lines */
    unsigned char *out; /* what send queued */
    size_t out_len, out_cap;
};

/* ---- Objects ------------------------------------------------------------ */

static struct script_conn *check_conn(lua_State *L, int i, const char *fn)
{
    struct script_conn *c = lua_touserdata(L, i);
    int is_conn = 0;

    if (c && lua_getmetatable(L, i)) {
        luaL_getmetatable(L, CONN_META);
        is_conn = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
    }
    if (!is_conn)
        luaL_error(L, "%s: a connection expected (call it as c:%s(...))", fn, fn + 2);
    return c;
}

/* The user running now, who alone may use its connections. */
static struct script_user *owner(lua_State *L, struct script_conn *c, const char *fn)
{
    struct script_user *u = script__running(L);

    if (!u)
        luaL_error(L, "%s: only inside iteration()", fn);
    if (c && c->u != u)
        luaL_error(L, "%s: the connection belongs to another user", fn);
    return u;
}

static void conn_forget(struct script_conn *c)
{
    free(c->path);
    if (c->lines) {
        for (size_t i = 0; i < c->spec.n_headers; i++)
            free(c->lines[i]);
        free(c->lines);
    }
    free(c->out);
    c->path = NULL;
    c->lines = NULL;
    c->out = NULL;
    c->out_len = c->out_cap = 0;
}

/* __gc: an object no script holds any more: its connection closes. */
static int l_gc(lua_State *L)
{
    struct script_conn *c = luaL_checkudata(L, 1, CONN_META);

    /* A closed object is in no table of its user, who may be gone: it is
     * never exchanging (a receive opens it first). */
    if (c->u && !c->is_closed) {
        if (c->u->exchanging == c)
            c->u->exchanging = NULL;
        c->u->conns[c->index] = NULL;
        c->u->closes |= 1u << c->index;
    }
    c->u = NULL;
    conn_forget(c);
    return 0;
}

/* Reads field f of the table at t as seconds, in µs (0 when absent). */
static uint64_t seconds_field(lua_State *L, int t, const char *fn, const char *f)
{
    uint64_t us;

    lua_getfield(L, t, f);
    if (script__seconds_us(L, -1, &us) < 0)
        luaL_error(L, "%s: %s must be seconds, more than 0 and at most 86400", fn, f);
    lua_pop(L, 1);
    return us;
}

/* The first free connection index of u: objects the script dropped are
 * collected first when none is. */
static uint32_t free_index(lua_State *L, struct script_user *u, const char *fn)
{
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < SCRIPT_CONNS_MAX; i++) {
            if (!u->conns[i])
                return i;
        }
        if (pass == 0)
            lua_gc(L, LUA_GCCOLLECT, 0);
    }
    luaL_error(L,
               "%s: a user holds at most %d connections open (keep one in the user table and use "
               "it again, or close() those done with)",
               fn, SCRIPT_CONNS_MAX);
    return 0;
}

/* A new object of u at its first free index, on top of L's stack. */
static struct script_conn *conn_new(lua_State *L, struct script_user *u, const char *fn)
{
    struct script_conn *c;
    uint32_t i = free_index(L, u, fn);

    c = lua_newuserdata(L, sizeof(*c));
    memset(c, 0, sizeof(*c));
    c->u = u;
    c->index = i;
    c->spec.host = c->host;
    luaL_getmetatable(L, CONN_META);
    lua_setmetatable(L, -2);
    u->conns[i] = c;
    return c;
}

static void set_host(lua_State *L, struct script_conn *c, const char *fn, const char *host,
                     size_t n)
{
    if (n == 0 || n > HOST_MAX || memchr(host, '\0', n))
        luaL_error(L, "%s: host must be a name or an address of 1 to %d bytes", fn, HOST_MAX);
    /* Not shown: a user:password@ would be. */
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)host[i] <= ' ' || host[i] == '/' || host[i] == '@' || host[i] == 127)
            luaL_error(L,
                       "%s: host: character %d is none a host name has (expected a name or an "
                       "address, no user, no blank)",
                       fn, (int)i + 1);
    }
    memcpy(c->host, host, n);
    c->host[n] = '\0';
}

/* brink.tcp{host =, port =, tls =, connect_timeout =}: no yield. */
static int l_tcp(lua_State *L)
{
    static const char fn[] = "brink.tcp";
    struct script_user *u = owner(L, NULL, fn);
    struct script_conn *c;
    const char *host;
    size_t n;
    double port;

    if (!lua_istable(L, 1))
        return luaL_error(L, "%s: a table expected: {host = ..., port = ...}", fn);
    lua_getfield(L, 1, "host");
    if (lua_type(L, -1) != LUA_TSTRING)
        return luaL_error(L, "%s: host must be a string (a name or an address)", fn);
    host = lua_tolstring(L, -1, &n);
    lua_getfield(L, 1, "port");
    port = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !(port >= 1 && port <= 65535) ||
        port != (double)(int)port)
        return luaL_error(L, "%s: port must be a whole number from 1 to 65535", fn);
    c = conn_new(L, u, fn);
    set_host(L, c, fn, host, n);
    c->spec.port = (uint16_t)port;
    lua_getfield(L, 1, "tls");
    c->spec.is_tls = lua_toboolean(L, -1);
    lua_pop(L, 1);
    c->spec.connect_timeout_us = seconds_field(L, 1, fn, "connect_timeout");
    return 1;
}

/* Reads brink.ws's url ("ws://host[:port][/path]" or wss://) into c.
 * Messages show the URL redacted (a password or a token in it). */
static void parse_ws_url(lua_State *L, struct script_conn *c, const char *url)
{
    static const char fn[] = "brink.ws";
    char shown[512];
    const char *p, *host, *end;
    size_t n;
    long port;

    redact_url(url, shown, sizeof(shown));
    if (strncmp(url, "ws://", 5) == 0) {
        p = url + 5;
        c->spec.port = 80;
    } else if (strncmp(url, "wss://", 6) == 0) {
        p = url + 6;
        c->spec.port = 443;
        c->spec.is_tls = 1;
    } else {
        luaL_error(L, "%s: url must be ws://HOST[:PORT]/PATH or wss://..., got \"%s\"", fn, shown);
        return;
    }
    n = strcspn(p, "/?#");
    end = p + n;
    if (memchr(p, '@', n))
        luaL_error(L,
                   "%s: url \"%s\": no user or password in a WebSocket URL (send them in "
                   "headers, e.g. Authorization)",
                   fn, shown);
    host = p;
    if (*p == '[') {
        const char *close = memchr(p, ']', n);

        if (!close)
            luaL_error(L, "%s: url \"%s\": an IPv6 address without its ]", fn, shown);
        host = p + 1;
        set_host(L, c, fn, host, (size_t)(close - host));
        p = close + 1;
    } else {
        const char *colon = memchr(p, ':', n);

        set_host(L, c, fn, host, (size_t)((colon ? colon : end) - host));
        p = colon ? colon : end;
    }
    if (p < end) {
        char *stop;

        if (*p != ':')
            luaL_error(L, "%s: url \"%s\": expected :PORT after the host", fn, shown);
        port = strtol(p + 1, &stop, 10);
        if (stop != end || port < 1 || port > 65535)
            luaL_error(L, "%s: url \"%s\": the port must be from 1 to 65535", fn, shown);
        c->spec.port = (uint16_t)port;
    }
    if (*end == '#')
        luaL_error(L, "%s: url \"%s\": a WebSocket URL has no fragment", fn, shown);
    n = strlen(end);
    if (n > PATH_MAX_WS)
        luaL_error(L, "%s: url: a path over %d bytes", fn, PATH_MAX_WS);
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)end[i] <= ' ' || end[i] == 127)
            luaL_error(L, "%s: url \"%s\": a blank or control character in the path", fn, shown);
    }
    c->path = xmalloc(n + 2);
    snprintf(c->path, n + 2, "%s%s", end[0] == '/' ? "" : "/", end);
}

/* brink.ws{url =, headers =, connect_timeout =}: no yield. */
static int l_ws(lua_State *L)
{
    static const char fn[] = "brink.ws";
    struct script_user *u = owner(L, NULL, fn);
    struct script_conn *c;
    size_t n = 0;

    if (!lua_istable(L, 1))
        return luaL_error(L, "%s: a table expected: {url = \"ws://...\"}", fn);
    lua_getfield(L, 1, "url");
    if (lua_type(L, -1) != LUA_TSTRING)
        return luaL_error(L, "%s: url must be a string (ws://HOST:PORT/PATH)", fn);
    c = conn_new(L, u, fn);
    c->spec.is_ws = 1;
    parse_ws_url(L, c, lua_tostring(L, -2));
    c->spec.path = c->path;
    c->spec.connect_timeout_us = seconds_field(L, 1, fn, "connect_timeout");
    lua_getfield(L, 1, "headers");
    if (!lua_isnil(L, -1)) {
        if (!lua_istable(L, -1))
            return luaL_error(L, "%s: headers must be a table of name = value", fn);
        c->lines = xcalloc(SCRIPT_HEADERS_MAX, sizeof(*c->lines));
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            size_t kn, vn;
            const char *k, *v;

            if (lua_type(L, -2) != LUA_TSTRING || !lua_isstring(L, -1))
                return luaL_error(L, "%s: headers must be a table of name = value", fn);
            k = lua_tolstring(L, -2, &kn);
            v = lua_tolstring(L, -1, &vn);
            if (!script__is_header_text(k, kn, 1) || !script__is_header_text(v, vn, 0) ||
                kn + vn > 8192)
                return luaL_error(L, "%s: header \"%s\": a name or value HTTP cannot carry", fn, k);
            if (n == SCRIPT_HEADERS_MAX)
                return luaL_error(L, "%s: more than %d headers", fn, SCRIPT_HEADERS_MAX);
            c->lines[n] = xmalloc(kn + vn + 3);
            snprintf(c->lines[n], kn + vn + 3, "%s: %s", k, v);
            c->spec.n_headers = ++n;
            lua_pop(L, 1);
        }
        c->spec.headers = (const char *const *)c->lines;
    }
    lua_settop(L, 3);
    return 1;
}

/* ---- Sending ------------------------------------------------------------ */

static unsigned char *out_room(lua_State *L, struct script_conn *c, size_t n, const char *fn)
{
    if (n > SCRIPT_SEND_MAX - c->out_len)
        luaL_error(L, "%s: more than %u bytes queued before a receive", fn, SCRIPT_SEND_MAX);
    if (c->out_len + n > c->out_cap) {
        size_t cap = c->out_cap ? c->out_cap : 256;

        while (cap < c->out_len + n)
            cap *= 2;
        c->out = xrealloc(c->out, cap);
        c->out_cap = cap;
    }
    return c->out + c->out_len;
}

/* Queues one brink.ws frame of op with payload p (n bytes), masked. */
static void queue_frame(lua_State *L, struct script_conn *c, enum ws_opcode op, const char *p,
                        size_t n, const char *fn)
{
    unsigned char *at;

    if (n > SCRIPT_SEND_MAX)
        luaL_error(L, "%s: a message over %u bytes", fn, SCRIPT_SEND_MAX);
    at = out_room(L, c, n + WS_HEAD_MAX, fn);
    c->out_len += ws_frame_write(at, op, p, n, rng_next(&c->u->mask_rng));
}

/* c:send(bytes) (brink.tcp) or c:send(message [, "binary"]) (brink.ws). */
static int l_send(lua_State *L)
{
    static const char fn[] = "c:send";
    struct script_conn *c = check_conn(L, 1, fn);
    size_t n;
    const char *p;

    owner(L, c, fn);
    if (lua_type(L, 2) != LUA_TSTRING && lua_type(L, 2) != LUA_TNUMBER)
        return luaL_error(L, "%s: a string expected", fn);
    p = lua_tolstring(L, 2, &n);
    if (c->spec.is_ws) {
        const char *type = luaL_optstring(L, 3, "text");
        int is_binary = strcmp(type, "binary") == 0;

        if (!is_binary && strcmp(type, "text") != 0)
            return luaL_error(L, "%s: the type must be \"text\" or \"binary\", got \"%s\"", fn,
                              type);
        queue_frame(L, c, is_binary ? WS_BINARY : WS_TEXT, p, n, fn);
        return 0;
    }
    memcpy(out_room(L, c, n, fn), p, n);
    c->out_len += n;
    return 0;
}

/* c:ping([data]) (brink.ws): the pong is a reply c:receive returns. */
static int l_ping(lua_State *L)
{
    static const char fn[] = "c:ping";
    struct script_conn *c = check_conn(L, 1, fn);
    size_t n = 0;
    const char *p = luaL_optlstring(L, 2, "", &n);

    owner(L, c, fn);
    if (!c->spec.is_ws)
        return luaL_error(L, "%s: a brink.ws connection expected (brink.tcp has no ping)", fn);
    if (n > WS_CONTROL_MAX)
        return luaL_error(L, "%s: at most %d bytes of data, got %d", fn, WS_CONTROL_MAX, (int)n);
    queue_frame(L, c, WS_PING, p, n, fn);
    return 0;
}

/* c:close(): the connection closes before the user's next exchange; what
 * was queued goes. The object stays usable: its next receive connects. */
static int l_close(lua_State *L)
{
    static const char fn[] = "c:close";
    struct script_conn *c = check_conn(L, 1, fn);
    struct script_user *u = owner(L, c, fn);

    c->out_len = 0;
    if (!c->is_closed) {
        u->closes |= 1u << c->index;
        u->conns[c->index] = NULL;
        c->is_closed = 1;
    }
    return 0;
}

/* ---- Receiving ---------------------------------------------------------- */

static size_t size_field(lua_State *L, const char *f, size_t max, int *is_set)
{
    double v;

    lua_getfield(L, 2, f);
    *is_set = !lua_isnil(L, -1);
    v = lua_tonumber(L, -1);
    if (*is_set &&
        (lua_type(L, -1) != LUA_TNUMBER || !(v >= 0) || v > (double)max || v != (double)(size_t)v))
        luaL_error(L, "c:receive: %s must be a whole number of bytes from 0 to %u", f,
                   (unsigned)max);
    lua_pop(L, 1);
    return *is_set ? (size_t)v : 0;
}

/* Reads the framing of a brink.tcp receive: exactly one of upto, bytes,
 * pattern and complete. */
static void read_frame(lua_State *L, struct script_user *u, struct script_exchange *x)
{
    static const char *const names[] = {"upto", "bytes", "pattern", "complete"};
    int given = 0, is_set;

    for (int i = 0; i < 4; i++) {
        lua_getfield(L, 2, names[i]);
        if (!lua_isnil(L, -1)) {
            given++;
            x->frame = (enum script_frame)i;
        }
        lua_pop(L, 1);
    }
    if (given != 1)
        luaL_error(L,
                   "c:receive: say how the reply ends with one of upto = \"...\", bytes = N, "
                   "pattern = \"...\" or complete = function(buf) (got %d)",
                   given);
    switch (x->frame) {
    case SCRIPT_FRAME_UPTO:
        lua_getfield(L, 2, "upto");
        if (lua_type(L, -1) != LUA_TSTRING || compat_rawlen(L, -1) == 0)
            luaL_error(L, "c:receive: upto must be a string of 1 byte or more");
        x->upto = lua_tolstring(L, -1, &x->upto_len);
        /* Held with the exchange, like a pattern or a function. */
        u->frame_ref = luaL_ref(L, LUA_REGISTRYINDEX);
        break;
    case SCRIPT_FRAME_BYTES:
        x->bytes = size_field(L, "bytes", SCRIPT_REPLY_MAX_MAX, &is_set);
        break;
    case SCRIPT_FRAME_PATTERN:
        lua_getfield(L, 2, "pattern");
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "c:receive: pattern must be a string (a Lua pattern)");
        u->frame_ref = luaL_ref(L, LUA_REGISTRYINDEX);
        break;
    case SCRIPT_FRAME_FUNCTION:
        lua_getfield(L, 2, "complete");
        if (!lua_isfunction(L, -1))
            luaL_error(L, "c:receive: complete must be a function(buf) returning the length of "
                          "the whole reply, or nil");
        u->frame_ref = luaL_ref(L, LUA_REGISTRYINDEX);
        break;
    case SCRIPT_FRAME_MESSAGE: break;
    }
}

/* c:receive{...}: one exchange, a request of its kind (yields). The
 * engine never refuses one: a failure is in the reply (r.error). */
static int l_receive(lua_State *L)
{
    static const char fn[] = "c:receive";
    struct script_conn *c = check_conn(L, 1, fn);
    struct script_user *u = owner(L, c, fn);
    struct script_exchange *x = &u->exchange;
    const char *name;
    size_t n;
    int is_set;

    if (lua_isnoneornil(L, 2))
        lua_newtable(L);
    if (!lua_istable(L, 2))
        return luaL_error(L, "%s: a table expected: {upto = ..., name = ...}", fn);
    lua_settop(L, 2);
    if (c->is_closed) {
        /* Closed and used again: it takes a free index, and connects. */
        c->index = free_index(L, u, fn);
        u->conns[c->index] = c;
        c->is_closed = 0;
    }
    script__stream_done(u);
    memset(&u->req, 0, sizeof(u->req));
    memset(x, 0, sizeof(*x));
    x->conn = c->index;
    x->spec = &c->spec;
    if (c->spec.is_ws) {
        static const char *const tcp_only[] = {"upto", "bytes", "pattern", "complete"};

        for (int i = 0; i < 4; i++) {
            lua_getfield(L, 2, tcp_only[i]);
            if (!lua_isnil(L, -1))
                return luaL_error(L, "%s: a brink.ws receive takes one message: no %s", fn,
                                  tcp_only[i]);
            lua_pop(L, 1);
        }
        x->frame = SCRIPT_FRAME_MESSAGE;
    } else {
        read_frame(L, u, x);
    }
    x->max = size_field(L, "max", SCRIPT_REPLY_MAX_MAX, &is_set);
    if (!is_set)
        x->max = SCRIPT_REPLY_MAX;
    if (x->frame == SCRIPT_FRAME_BYTES && x->bytes > x->max)
        return luaL_error(L, "%s: bytes = %u is over max (%u): raise max", fn, (unsigned)x->bytes,
                          (unsigned)x->max);
    lua_getfield(L, 2, "name");
    if (lua_isnil(L, -1)) {
        name = c->spec.is_ws ? "ws" : "tcp";
        n = strlen(name);
    } else if (lua_type(L, -1) != LUA_TSTRING) {
        return luaL_error(L, "%s: name must be a string", fn);
    } else {
        name = lua_tolstring(L, -1, &n);
    }
    if (n == 0 || n >= TICK_NAME_MAX || n >= SCRIPT_HEAD_MAX)
        return luaL_error(L, "%s: name must have 1 to %d bytes", fn, TICK_NAME_MAX - 1);
    memcpy(u->head, name, n + 1);
    u->req.name = u->head;
    lua_pop(L, 1);
    u->req.timeout_us = seconds_field(L, 2, fn, "timeout");
    x->out = c->out;
    x->out_len = c->out_len;
    u->exchanging = c;
    u->req.exchange = x;
    u->step = SCRIPT_STEP_REQUEST;
    return lua_yield(L, 0);
}

void script__stream_done(struct script_user *u)
{
    if (u->exchanging) {
        u->exchanging->out_len = 0;
        u->exchanging = NULL;
    }
    if (u->frame_ref != LUA_NOREF) {
        luaL_unref(u->sc->L, LUA_REGISTRYINDEX, u->frame_ref);
        u->frame_ref = LUA_NOREF;
    }
}

void script__stream_user_free(struct script_user *u)
{
    for (uint32_t i = 0; i < SCRIPT_CONNS_MAX; i++) {
        if (u->conns[i])
            u->conns[i]->u = NULL;
        u->conns[i] = NULL;
    }
}

uint32_t script_user_take_closes(struct script_user *u)
{
    uint32_t closes = u->closes;

    u->closes = 0;
    return closes;
}

long script_user_frame(struct script_user *u, const char *buf, size_t n, char *why, size_t why_len)
{
    struct script *sc = u->sc;
    lua_State *L = sc->L;
    int top = lua_gettop(L), rc, is_guard;
    long len = -1;
    double v;

    if (u->frame_ref == LUA_NOREF) {
        snprintf(why, why_len, "c:receive: no framing for this exchange");
        return -1;
    }
    if (!lua_checkstack(L, 4)) {
        snprintf(why, why_len, "c:receive: no room on the Lua stack");
        return -1;
    }
    if (u->exchange.frame == SCRIPT_FRAME_PATTERN) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, sc->find_ref);
        lua_pushlstring(L, buf, n);
        lua_rawgeti(L, LUA_REGISTRYINDEX, u->frame_ref);
    } else {
        lua_rawgeti(L, LUA_REGISTRYINDEX, u->frame_ref);
        lua_pushlstring(L, buf, n);
    }
    sc->current = NULL;
    script__guard_enter(&sc->guard, L);
    rc = lua_pcall(L, u->exchange.frame == SCRIPT_FRAME_PATTERN ? 2 : 1, 2, 0);
    is_guard = script__guard_leave(&sc->guard, L, rc, why, why_len);
    if (rc != 0) {
        if (!is_guard) {
            const char *m = lua_tostring(L, -1);

            snprintf(why, why_len, "complete: %.*s", m ? (int)strcspn(m, "\n") : 5,
                     m ? m : "error");
        }
        lua_settop(L, top);
        return -1;
    }
    if (u->exchange.frame == SCRIPT_FRAME_PATTERN) {
        /* string.find(buf, pattern): a match from the first byte on. */
        if (lua_isnil(L, -2)) {
            len = 0;
        } else if (lua_tonumber(L, -2) != 1) {
            len = 0;
        } else {
            len = (long)lua_tonumber(L, -1);
            if (len == 0) {
                snprintf(why, why_len, "c:receive: the pattern matched no byte");
                len = -1;
            }
        }
        lua_settop(L, top);
        return len;
    }
    if (lua_isnil(L, -2)) {
        len = 0;
    } else {
        v = lua_tonumber(L, -2);
        if (lua_type(L, -2) != LUA_TNUMBER || !(v >= 1) || v > (double)n || v != (double)(long)v) {
            snprintf(why, why_len,
                     "complete: returned %s, expected nil or a length from 1 to %zu (the bytes "
                     "read)",
                     lua_type(L, -2) == LUA_TNUMBER ? "a number out of range" : "no number", n);
            len = -1;
        } else {
            len = (long)v;
        }
    }
    lua_settop(L, top);
    return len;
}

/* ---- The library -------------------------------------------------------- */

void script__stream_open(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"send", l_send},       {"ping", l_ping}, {"close", l_close},
        {"receive", l_receive}, {NULL, NULL},
    };

    luaL_newmetatable(L, CONN_META);
    lua_pushcfunction(L, l_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushliteral(L, "brink connection");
    lua_setfield(L, -2, "__metatable");
    lua_newtable(L);
    for (const luaL_Reg *m = methods; m->name; m++) {
        lua_pushcfunction(L, m->func);
        lua_setfield(L, -2, m->name);
    }
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    lua_getglobal(L, "brink");
    lua_pushcfunction(L, l_tcp);
    lua_setfield(L, -2, "tcp");
    lua_pushcfunction(L, l_ws);
    lua_setfield(L, -2, "ws");
    lua_pop(L, 1);
}
