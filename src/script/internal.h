/*
 * The script module's own state, shared by its files: the setup, a
 * worker's state and a user (script.c), which brink.tcp and brink.ws
 * (stream.c) extend. Internal to src/script.
 */
#ifndef BRINK_SCRIPT_INTERNAL_H
#define BRINK_SCRIPT_INTERNAL_H

#include <stdint.h>

#include "script/guard.h"
#include "script/lib.h"
#include "script/script.h"

struct script_conn;

struct script_setup {
    char *path;
    char *name; /* as messages call it */
    char *dir;
    uint64_t seed;
    struct script_data_set *data;
    struct script_limits limits;
    struct script__stop stop; /* written by any thread, read by every state's hook */
};

struct script {
    const struct script_setup *su;
    lua_State *L;
    struct script_lib lib;
    struct script_guard guard;
    uint32_t id;
    struct script_user *current; /* the user running, during a resume */
    int find_ref;                /* string.find, for SCRIPT_FRAME_PATTERN (the registry) */
};

struct script_user {
    struct script *sc;
    uint32_t vu;
    int state_ref;  /* its table, in the registry */
    int thread_ref; /* its coroutine, in the registry; LUA_NOREF: none */
    lua_State *co;
    int is_busy;
    int is_clear; /* brink.cookies.clear() was called */
    uint64_t iterations;
    uint64_t rng;
    enum script_step step;
    uint64_t sleep_us;
    struct script_request req;
    int body_ref; /* the request's body string, kept alive until the resume */
    char *head;   /* method, URL, name and header lines, one after another */
    size_t head_len;
    const char *lines[SCRIPT_HEADERS_MAX];
    char error[SCRIPT_WHY_MAX];
    /* brink.tcp and brink.ws (stream.c): its connections, those the
     * script closed since the engine last asked, the exchange it waits
     * for and the connection it goes over, the complete function or
     * pattern of that exchange (in the registry; LUA_NOREF: none), and
     * the random stream of brink.ws's masks. */
    struct script_conn *conns[SCRIPT_CONNS_MAX];
    uint32_t closes;
    struct script_exchange exchange;
    struct script_conn *exchanging;
    int frame_ref;
    uint64_t mask_rng;
};

/* The struct script of L's state. */
struct script *script__of(lua_State *L);
/* The user whose coroutine L is, running now; NULL outside iteration(). */
struct script_user *script__running(lua_State *L);
/* Whether a header name (is_name) or value of n bytes can go on the wire as
 * it is: no CR, LF or NUL; a name also no ':' or blank, and not empty. */
int script__is_header_text(const char *s, size_t n, int is_name);
/* The value at idx as seconds, more than 0 and at most a day: 1 and *us its
 * µs (at least 1); nil: 0 and *us 0; anything else: -1. The caller raises
 * its own error. */
int script__seconds_us(lua_State *L, int idx, uint64_t *us);

/* stream.c: brink.tcp and brink.ws. */
/* Adds brink.tcp and brink.ws to the brink table of L. */
void script__stream_open(lua_State *L);
/* The exchange of u ended (its reply came, or it was refused or
 * cancelled): its queued bytes go, its complete function is let go. */
void script__stream_done(struct script_user *u);
/* u is freed: its connection objects (still in the Lua state) forget it. */
void script__stream_user_free(struct script_user *u);

#endif
