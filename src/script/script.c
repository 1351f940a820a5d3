/*
 * The engine's side of a scenario script: the setup state, a worker's
 * state, and one coroutine per virtual user that yields at each request
 * and sleep. brink.request and brink.sleep are here; the rest of the
 * `brink` table is lib.c's.
 */
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/msg.h"
#include "core/regfile.h"
#include "core/xalloc.h"
#include "script/guard.h"
#include "script/internal.h"
#include "script/lib.h"
#include "script/lua_compat.h"
#include "script/script.h"

_Static_assert(SCRIPT_MARK_NAMES_MAX == SCRIPT_NAMES_MAX, "script.h says what lib.h keeps");

static const char sc_key = 's'; /* the registry key of the struct script */

struct script *script__of(lua_State *L)
{
    struct script *sc;

    lua_pushlightuserdata(L, (void *)&sc_key);
    lua_rawget(L, LUA_REGISTRYINDEX);
    sc = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return sc;
}

/* ---- brink.request ---------------------------------------------------- */

/* Raises a Lua error at the script's line: brink.request is a Lua wrapper
 * (REQUEST_WRAPPER) around l_request, so the script is two levels up. */
static int fail(lua_State *L, const char *fmt, ...)
{
    va_list ap;

    luaL_where(L, 2);
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    lua_concat(L, 2);
    return lua_error(L);
}

/* Copies n bytes of s into u's head buffer; returns where, or NULL when
 * the head is full. */
static const char *keep(struct script_user *u, const char *s, size_t n)
{
    char *at;

    if (u->head_len + n + 1 > SCRIPT_HEAD_MAX)
        return NULL;
    at = u->head + u->head_len;
    memcpy(at, s, n);
    at[n] = '\0';
    u->head_len += n + 1;
    return at;
}

static const char *keep_field(lua_State *L, struct script_user *u, const char *field,
                              const char *dflt)
{
    const char *v = dflt;
    size_t n = dflt ? strlen(dflt) : 0;
    const char *at;

    lua_getfield(L, 1, field);
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TSTRING)
            fail(L, "brink.request: %s must be a string", field);
        v = lua_tolstring(L, -1, &n);
    }
    if (!v)
        fail(L, "brink.request: %s is missing", field);
    at = keep(u, v, n);
    lua_pop(L, 1);
    if (!at)
        fail(L, "brink.request: method, url, name and headers over %u bytes", SCRIPT_HEAD_MAX);
    return at;
}

struct script_user *script__running(lua_State *L)
{
    struct script_user *u = script__of(L)->current;

    return u && u->co == L ? u : NULL;
}

int script__is_header_text(const char *s, size_t n, int is_name)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c == '\r' || c == '\n' || c == 0 || (is_name && (c == ':' || c <= ' ')))
            return 0;
    }
    return n > 0 || !is_name;
}

static void keep_headers(lua_State *L, struct script_user *u)
{
    lua_getfield(L, 1, "headers");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    if (!lua_istable(L, -1))
        fail(L, "brink.request: headers must be a table of name = value");
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        size_t kn, vn;
        const char *k, *v;
        char *line;

        if (lua_type(L, -2) != LUA_TSTRING || !lua_isstring(L, -1))
            fail(L, "brink.request: headers must be a table of name = value");
        k = lua_tolstring(L, -2, &kn);
        v = lua_tolstring(L, -1, &vn);
        if (!script__is_header_text(k, kn, 1) || !script__is_header_text(v, vn, 0))
            fail(L, "brink.request: header \"%s\": a name or value that HTTP cannot carry", k);
        if (u->req.n_headers == SCRIPT_HEADERS_MAX)
            fail(L, "brink.request: more than %d headers", SCRIPT_HEADERS_MAX);
        if (u->head_len + kn + vn + 3 > SCRIPT_HEAD_MAX)
            fail(L, "brink.request: method, url, name and headers over %u bytes", SCRIPT_HEAD_MAX);
        line = u->head + u->head_len;
        memcpy(line, k, kn);
        memcpy(line + kn, ": ", 2);
        memcpy(line + kn + 2, v, vn);
        line[kn + 2 + vn] = '\0';
        u->head_len += kn + vn + 3;
        u->lines[u->req.n_headers++] = line;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    u->req.headers = u->lines;
}

static void keep_expect(lua_State *L, struct script_user *u)
{
    lua_getfield(L, 1, "expect");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    if (!lua_istable(L, -1))
        fail(L, "brink.request: expect must be a list of statuses, e.g. {200, 404}");
    memset(&u->req.expect, 0, sizeof(u->req.expect));
    for (size_t i = 1; i <= compat_rawlen(L, -1); i++) {
        long long code = 0;

        lua_rawgeti(L, -1, (int)i);
        if (!compat_to_int(L, -1, &code) || code < 100 || code > 599)
            fail(L, "brink.request: expect: an HTTP status (100 to 599) expected");
        status_set_add(&u->req.expect, (unsigned)code, (unsigned)code);
        lua_pop(L, 1);
    }
    u->req.has_expect = !status_set_is_empty(&u->req.expect);
    lua_pop(L, 1);
}

static int flag(lua_State *L, const char *field)
{
    int v;

    lua_getfield(L, 1, field);
    v = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return v;
}

static void keep_body(lua_State *L, struct script_user *u)
{
    lua_getfield(L, 1, "body");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    if (lua_type(L, -1) != LUA_TSTRING)
        fail(L, "brink.request: body must be a string");
    u->req.body = (const unsigned char *)lua_tolstring(L, -1, &u->req.body_len);
    /* The string stays where it is, held by the registry until the reply. */
    u->body_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

int script__seconds_us(lua_State *L, int idx, uint64_t *us)
{
    double s = lua_tonumber(L, idx);

    *us = 0;
    if (lua_isnil(L, idx))
        return 0;
    if (lua_type(L, idx) != LUA_TNUMBER || !(s > 0) || s > 86400)
        return -1;
    *us = s * 1e6 < 1 ? 1 : (uint64_t)(s * 1e6);
    return 1;
}

static void keep_timeout(lua_State *L, struct script_user *u)
{
    uint64_t us;

    lua_getfield(L, 1, "timeout");
    switch (script__seconds_us(L, -1, &us)) {
    case 1: u->req.timeout_us = us; break;
    case -1: fail(L, "brink.request: timeout must be seconds, more than 0 and at most 86400");
    default: break;
    }
    lua_pop(L, 1);
}

static void keep_follow(lua_State *L, struct script_user *u)
{
    lua_Number v;

    u->req.follow_redirects = -1;
    lua_getfield(L, 1, "follow_redirects");
    if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
        u->req.follow_redirects = 0;
    } else if (!lua_isnil(L, -1)) {
        v = lua_tonumber(L, -1);
        if (lua_type(L, -1) != LUA_TNUMBER || !(v >= 0) || v > SCRIPT_REDIRECTS_MAX ||
            v != (lua_Number)(int)v)
            fail(L, "brink.request: follow_redirects must be false or 0 to %d",
                 SCRIPT_REDIRECTS_MAX);
        u->req.follow_redirects = (int)v;
    }
    lua_pop(L, 1);
}

static void release_body(struct script_user *u)
{
    if (u->body_ref != LUA_NOREF) {
        luaL_unref(u->sc->L, LUA_REGISTRYINDEX, u->body_ref);
        u->body_ref = LUA_NOREF;
    }
}

/* brink.request{method =, url =, headers =, body =, name =, timeout =,
 * expect =, skip_body =, aws_sigv4 =, follow_redirects =}: yields to the engine, which resumes
 * with the reply table. */
static int l_request(lua_State *L)
{
    struct script_user *u = script__running(L);

    if (!u)
        return fail(L, "brink.request: only inside iteration()");
    if (!lua_istable(L, 1))
        return fail(L, "brink.request: a table expected: {method = ..., url = ..., ...}");
    lua_settop(L, 1);
    memset(&u->req, 0, sizeof(u->req));
    u->head_len = 0;
    release_body(u);
    u->req.method = keep_field(L, u, "method", "GET");
    for (const char *m = u->req.method; *m; m++) {
        if (*m <= ' ' || *m == 127 || *m == '(' || *m == ')' || *m == ':')
            return fail(L, "brink.request: method \"%s\" is no HTTP method", u->req.method);
    }
    u->req.url = keep_field(L, u, "url", NULL);
    u->req.name = keep_field(L, u, "name", u->req.method);
    if (!u->req.name[0] || strlen(u->req.name) >= TICK_NAME_MAX)
        return fail(L, "brink.request: name must have 1 to %d bytes", TICK_NAME_MAX - 1);
    keep_headers(L, u);
    keep_expect(L, u);
    keep_timeout(L, u);
    u->req.skip_body = flag(L, "skip_body");
    lua_getfield(L, 1, "aws_sigv4");
    u->req.aws_sigv4 = lua_isnil(L, -1) ? -1 : lua_toboolean(L, -1);
    lua_pop(L, 1);
    keep_follow(L, u);
    keep_body(L, u);
    u->step = SCRIPT_STEP_REQUEST;
    return lua_yield(L, 0);
}

/* brink.sleep(seconds): think time, on the worker's timer. */
static int l_sleep(lua_State *L)
{
    struct script_user *u = script__running(L);
    double s = luaL_checknumber(L, 1);

    if (!u)
        return luaL_error(L, "brink.sleep: only inside iteration()");
    if (!(s >= 0) || s > 86400)
        return luaL_error(L, "brink.sleep: seconds from 0 to 86400 expected");
    u->sleep_us = (uint64_t)(s * 1e6);
    u->step = SCRIPT_STEP_SLEEP;
    return lua_yield(L, 0);
}

/* brink.cookies.clear(): the user's jar is emptied before its next
 * request (the engine holds the jar). */
static int l_cookies_clear(lua_State *L)
{
    struct script_user *u = script__running(L);

    if (!u)
        return luaL_error(L, "brink.cookies.clear: only inside iteration()");
    u->is_clear = 1;
    return 0;
}

/* ---- States ----------------------------------------------------------- */

/* brink.request around l_request: the engine refuses a request it cannot
 * send (a URL the transport cannot reach) by resuming with (nil, why),
 * which becomes an error at the script's line. */
static const char request_wrapper[] = "local raw = ...\n"
                                      "local error = error\n"
                                      "brink.request = function(t)\n"
                                      "  local r, why = raw(t)\n"
                                      "  if why then error(why, 2) end\n"
                                      "  return r\n"
                                      "end\n";

/* The first line of the error on top of L, as "FILE:LINE: message". */
static void error_text(lua_State *L, char *buf, size_t cap)
{
    const char *m = lua_tostring(L, -1);
    size_t n;

    if (!m)
        m = "an error that is not a string";
    n = strcspn(m, "\n");
    snprintf(buf, cap, "%.*s", (int)n, m);
}

/*
 * Calls the function on top of sc's state without arguments, under its
 * guard. Returns 0, or -EINTR (the run stops) or -EINVAL with why
 * ("FILE:LINE: message").
 */
static int guarded_pcall(struct script *sc, char *why, size_t why_len)
{
    int rc;

    script__guard_enter(&sc->guard, sc->L);
    rc = lua_pcall(sc->L, 0, 0, 0);
    if (rc == LUA_OK) {
        script__guard_leave(&sc->guard, sc->L, rc, why, why_len);
        return 0;
    }
    if (!script__guard_leave(&sc->guard, sc->L, rc, why, why_len))
        error_text(sc->L, why, why_len);
    lua_pop(sc->L, 1);
    return script__guard_is_stopping(&sc->su->stop, clock_now_ns()) ? -EINTR : -EINVAL;
}

/* A new sandboxed state with the brink table and the script's globals
 * (its main chunk run). */
static int state_new(struct script *sc, const struct script_setup *su, int may_load, char *err,
                     size_t err_len)
{
    char why[SCRIPT_WHY_MAX];
    char chunk[PATH_MAX + 2];
    lua_State *L;
    int rc;

    sc->guard.budget_ns = su->limits.budget_us * 1000;
    sc->guard.memory_max_bytes = (size_t)su->limits.memory_bytes;
    sc->guard.stop = &su->stop;
    sc->guard.name = su->name;
    L = script__guard_state(&sc->guard);
    if (!L) {
        msg_set(err, err_len, "brink: %s: no memory for a Lua state", su->name);
        return -ENOMEM;
    }
    sc->L = L;
    sc->lib.seed = su->seed;
    sc->lib.data = su->data;
    sc->lib.may_load = may_load;
    sc->lib.script_dir = su->dir;
    if (script__sandbox(L, su->dir, why, sizeof(why)) < 0) {
        msg_set(err, err_len, "brink: %s: %s", su->name, why);
        return -ENOMEM;
    }
    script__guard_sandbox(L);
    script__lib_open(L, &sc->lib);
    lua_pushlightuserdata(L, (void *)&sc_key);
    lua_pushlightuserdata(L, sc);
    lua_rawset(L, LUA_REGISTRYINDEX);
    lua_getglobal(L, "brink");
    lua_pushcfunction(L, l_sleep);
    lua_setfield(L, -2, "sleep");
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, l_cookies_clear);
    lua_setfield(L, -2, "clear");
    lua_setfield(L, -2, "cookies");
    lua_pop(L, 1);
    if (luaL_loadbuffer(L, request_wrapper, sizeof(request_wrapper) - 1, "=brink.request") != 0) {
        msg_set(err, err_len, "brink: %s: no memory for a Lua state", su->name);
        return -ENOMEM;
    }
    lua_pushcfunction(L, l_request);
    lua_call(L, 1, 0);
    script__stream_open(L);
    lua_getglobal(L, "string");
    lua_getfield(L, -1, "find");
    sc->find_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pop(L, 1);
    snprintf(chunk, sizeof(chunk), "@%s", su->name);
    if (script__load_file(L, su->path, chunk, why, sizeof(why)) < 0) {
        msg_set(err, err_len, "brink: %s", why);
        return -EINVAL;
    }
    rc = guarded_pcall(sc, why, sizeof(why));
    if (rc < 0) {
        msg_set(err, err_len, "brink: %s", why);
        return rc;
    }
    lua_getglobal(L, "iteration");
    if (!lua_isfunction(L, -1)) {
        msg_set(err, err_len, "brink: %s: no function iteration(user): each virtual user runs it",
                su->name);
        return -EINVAL;
    }
    lua_pop(L, 1);
    return 0;
}

int script_check(const char *path, const char *name, char *err, size_t err_len)
{
    lua_State *L = luaL_newstate();
    char chunk[PATH_MAX + 2], why[SCRIPT_ERR_MAX];
    int rc;

    if (!L) {
        msg_set(err, err_len, "brink: %s: no memory for a Lua state", name);
        return -ENOMEM;
    }
    snprintf(chunk, sizeof(chunk), "@%s", name);
    rc = script__load_file(L, path, chunk, why, sizeof(why));
    if (rc < 0)
        msg_set(err, err_len, "brink: %s", why);
    lua_close(L);
    return rc;
}

int script_setup(const char *path, const char *name, uint64_t seed,
                 const struct script_limits *limits, char *err, size_t err_len,
                 struct script_setup **out)
{
    struct script_setup *su = xcalloc(1, sizeof(*su));
    struct script sc = {0};
    int rc;

    su->path = xstrdup(path);
    su->name = xstrdup(name);
    su->dir = regfile_dir(path);
    su->seed = seed;
    su->limits = *limits;
    atomic_init(&su->stop.is_stopping, 0);
    atomic_init(&su->stop.deadline_ns, 0);
    su->data = script__data_set_new();
    sc.su = su;
    rc = state_new(&sc, su, 1, err, err_len);
    if (rc == 0) {
        char why[SCRIPT_WHY_MAX];

        lua_getglobal(sc.L, "setup");
        if (!lua_isfunction(sc.L, -1))
            lua_pop(sc.L, 1);
        else if ((rc = guarded_pcall(&sc, why, sizeof(why))) < 0)
            msg_set(err, err_len, "brink: %s: setup: %s", su->name, why);
    }
    if (sc.L)
        lua_close(sc.L);
    if (rc < 0) {
        script_setup_free(su);
        return rc;
    }
    *out = su;
    return 0;
}

void script_setup_free(struct script_setup *su)
{
    if (!su)
        return;
    script__data_set_free(su->data);
    free(su->path);
    free(su->name);
    free(su->dir);
    free(su);
}

int script_open(const struct script_setup *su, uint32_t id, char *err, size_t err_len,
                struct script **out)
{
    struct script *sc = xcalloc(1, sizeof(*sc));
    int rc;

    sc->su = su;
    sc->id = id;
    rc = state_new(sc, su, 0, err, err_len);
    if (rc < 0) {
        script_close(sc);
        return rc;
    }
    *out = sc;
    return 0;
}

void script_close(struct script *sc)
{
    if (!sc)
        return;
    if (sc->L)
        lua_close(sc->L);
    free(sc);
}

/* ---- Users ------------------------------------------------------------ */

struct script_user *script_user_new(struct script *sc, uint32_t vu)
{
    struct script_user *u = xcalloc(1, sizeof(*u));
    lua_State *L = sc->L;

    u->sc = sc;
    u->vu = vu;
    u->thread_ref = LUA_NOREF;
    u->body_ref = LUA_NOREF;
    u->frame_ref = LUA_NOREF;
    u->mask_rng = ~(uint64_t)vu;
    u->head = xmalloc(SCRIPT_HEAD_MAX);
    script__rng_seed(&u->rng, sc->su->seed, vu);
    lua_newtable(L);
    lua_pushinteger(L, (lua_Integer)vu + 1);
    lua_setfield(L, -2, "id");
    u->state_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return u;
}

static void drop_thread(struct script_user *u)
{
    if (u->thread_ref != LUA_NOREF)
        luaL_unref(u->sc->L, LUA_REGISTRYINDEX, u->thread_ref);
    u->thread_ref = LUA_NOREF;
    u->co = NULL;
}

void script_user_free(struct script_user *u)
{
    if (!u)
        return;
    release_body(u);
    script__stream_done(u);
    script__stream_user_free(u);
    drop_thread(u);
    luaL_unref(u->sc->L, LUA_REGISTRYINDEX, u->state_ref);
    free(u->head);
    free(u);
}

int script_user_is_busy(const struct script_user *u)
{
    return u->is_busy;
}

/* Runs u's coroutine with the nargs values on its stack. */
static enum script_step run(struct script_user *u, int nargs)
{
    struct script *sc = u->sc;
    int rc, is_guard;

    sc->current = u;
    sc->lib.rng = &u->rng;
    u->step = SCRIPT_STEP_END;
    script__guard_enter(&sc->guard, u->co);
    rc = compat_resume(u->co, sc->L, nargs);
    is_guard = script__guard_leave(&sc->guard, u->co, rc, u->error, sizeof(u->error));
    sc->current = NULL;
    if (rc == LUA_YIELD && (u->step == SCRIPT_STEP_REQUEST || u->step == SCRIPT_STEP_SLEEP))
        return u->step;
    u->is_busy = 0;
    release_body(u);
    script__stream_done(u);
    if (rc == LUA_YIELD) {
        /* coroutine.yield() at the top of the iteration: nothing to do for
         * the engine, and nobody to resume it. */
        snprintf(u->error, sizeof(u->error), "coroutine.yield outside a coroutine of the script");
        drop_thread(u);
        return u->step = SCRIPT_STEP_ERROR;
    }
    if (rc != 0) {
        if (!is_guard)
            error_text(u->co, u->error, sizeof(u->error));
        drop_thread(u);
        return u->step = SCRIPT_STEP_ERROR;
    }
    lua_settop(u->co, 0);
    return u->step = SCRIPT_STEP_END;
}

enum script_step script_user_begin(struct script_user *u)
{
    lua_State *L = u->sc->L;

    if (!u->co) {
        u->co = lua_newthread(L);
        u->thread_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    u->is_busy = 1;
    u->iterations++;
    lua_getglobal(u->co, "iteration");
    lua_rawgeti(u->co, LUA_REGISTRYINDEX, u->state_ref);
    lua_pushinteger(u->co, (lua_Integer)u->iterations);
    lua_setfield(u->co, -2, "iteration");
    return run(u, 1);
}

/* Pushes the header lines as a table keyed by lower-case names; a repeated
 * name keeps its values joined by ", " (RFC 9110, 5.3). */
static void push_headers(lua_State *L, const char *h, size_t len)
{
    const char *end = h + len;
    char name[256];

    lua_newtable(L);
    while (h < end) {
        const char *nl = memchr(h, '\n', (size_t)(end - h));
        const char *line_end = nl ? nl : end;
        const char *colon = memchr(h, ':', (size_t)(line_end - h));
        const char *v;
        size_t n;

        if (colon && (size_t)(colon - h) < sizeof(name)) {
            n = (size_t)(colon - h);
            for (size_t i = 0; i < n; i++)
                name[i] = (char)((h[i] >= 'A' && h[i] <= 'Z') ? h[i] + 32 : h[i]);
            v = colon + 1;
            while (v < line_end && (*v == ' ' || *v == '\t'))
                v++;
            n = (size_t)(line_end - v);
            while (n && (v[n - 1] == '\r' || v[n - 1] == ' ' || v[n - 1] == '\t'))
                n--;
            lua_pushlstring(L, name, (size_t)(colon - h));
            lua_pushvalue(L, -1);
            lua_rawget(L, -3);
            if (lua_isstring(L, -1)) {
                lua_pushliteral(L, ", ");
                lua_pushlstring(L, v, n);
                lua_concat(L, 3);
            } else {
                lua_pop(L, 1);
                lua_pushlstring(L, v, n);
            }
            lua_rawset(L, -3);
        }
        h = line_end + 1;
    }
}

enum script_step script_user_reply(struct script_user *u, const struct script_reply *r)
{
    lua_State *co = u->co;

    release_body(u);
    lua_settop(co, 0);
    if (u->req.exchange) {
        script__stream_done(u);
        lua_createtable(co, 0, 4);
        lua_pushlstring(co, r->body ? r->body : "", r->body ? r->body_len : 0);
        lua_setfield(co, -2, "data");
        if (r->error) {
            lua_pushstring(co, r->error);
            lua_setfield(co, -2, "error");
        }
        if (r->type) {
            lua_pushstring(co, r->type);
            lua_setfield(co, -2, "type");
        }
        lua_pushnumber(co, (lua_Number)r->latency_us / 1e6);
        lua_setfield(co, -2, "time");
        return run(u, 1);
    }
    lua_createtable(co, 0, 7);
    lua_pushinteger(co, r->status);
    lua_setfield(co, -2, "status");
    lua_pushinteger(co, (lua_Integer)r->redirects);
    lua_setfield(co, -2, "redirects");
    if (r->url) {
        lua_pushstring(co, r->url);
        lua_setfield(co, -2, "url");
    }
    if (r->error) {
        lua_pushstring(co, r->error);
        lua_setfield(co, -2, "error");
    }
    push_headers(co, r->headers ? r->headers : "", r->headers ? r->headers_len : 0);
    lua_setfield(co, -2, "headers");
    lua_pushlstring(co, r->body ? r->body : "", r->body ? r->body_len : 0);
    lua_setfield(co, -2, "body");
    lua_pushnumber(co, (lua_Number)r->latency_us / 1e6);
    lua_setfield(co, -2, "time");
    return run(u, 1);
}

enum script_step script_user_refuse(struct script_user *u, const char *why)
{
    release_body(u);
    script__stream_done(u);
    lua_settop(u->co, 0);
    lua_pushnil(u->co);
    lua_pushstring(u->co, why);
    return run(u, 2);
}

void script_take_marks(struct script *sc, script_mark_fn *fn, void *arg)
{
    struct script_lib *lib = &sc->lib;

    for (unsigned i = 0; i < lib->n_checks; i++) {
        const struct script_check *c = &lib->checks[i];

        fn(arg, c->name, SCRIPT_MARK_CHECK, (double)c->failed, c->passed, c->passed + c->failed);
    }
    for (unsigned i = 0; i < lib->n_metrics; i++) {
        const struct script_metric *m = &lib->metrics[i];

        if (m->is_gauge)
            fn(arg, m->name, SCRIPT_MARK_GAUGE, m->value, 0, m->calls);
        else
            fn(arg, m->name, SCRIPT_MARK_COUNTER, m->is_set ? m->value : 0, 0, m->calls);
    }
    script__lib_reset(lib);
}

uint64_t script_dropped(const struct script *sc, int is_check, const char **first)
{
    const char *name = sc->lib.dropped_name[is_check ? 0 : 1];

    *first = name[0] ? name : NULL;
    return sc->lib.dropped[is_check ? 0 : 1];
}

enum script_step script_user_resume(struct script_user *u)
{
    lua_settop(u->co, 0);
    return run(u, 0);
}

void script_user_cancel(struct script_user *u)
{
    if (!u->is_busy)
        return;
    u->is_busy = 0;
    release_body(u);
    script__stream_done(u);
    drop_thread(u);
}

const struct script_request *script_user_request(const struct script_user *u)
{
    return &u->req;
}

int script_user_take_clear(struct script_user *u)
{
    int was = u->is_clear;

    u->is_clear = 0;
    return was;
}

uint64_t script_user_sleep_us(const struct script_user *u)
{
    return u->sleep_us;
}

const char *script_user_error(const struct script_user *u)
{
    return u->error;
}

void script_setup_stop(struct script_setup *su)
{
    atomic_store(&su->stop.is_stopping, 1);
}

void script_setup_set_deadline(struct script_setup *su, uint64_t deadline_ns)
{
    atomic_store(&su->stop.deadline_ns, deadline_ns);
}

const char *script_lua_version(void)
{
#ifdef LUAJIT_VERSION
    return LUAJIT_VERSION;
#else
    return LUA_RELEASE;
#endif
}
