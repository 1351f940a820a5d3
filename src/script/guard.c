/*
 * The limits of a script's Lua state: its allocator with a cap, the hook
 * that preempts it, and the depth count of coroutines resumed inside each
 * other.
 */
#include "script/guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/units.h"
#include "script/script.h"

#define HOOK_MASK (LUA_MASKCALL | LUA_MASKCOUNT)

/* script_interrupt_all: one lock-free store, so a signal handler may call it. */
static atomic_int every_stop;

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "script_interrupt_all is called from signal handlers");

void script_interrupt_all(void)
{
    atomic_store(&every_stop, 1);
}

static struct script_guard *guard_of(lua_State *L)
{
    void *ud = NULL;

    lua_getallocf(L, &ud);
    return ud;
}

/* The allocator (lua_Alloc): counts what the state holds, and refuses to
 * grow past the cap while a script runs. Outside a run the engine's own
 * pushes (a reply's body) may pass it: a refusal there would not be an
 * error of the script but a panic of the process. */
static void *guard_alloc(void *ud, void *ptr, size_t old_size, size_t new_size)
{
    struct script_guard *g = ud;
    size_t old = ptr ? old_size : 0; /* Lua 5.4 passes a type for a new block */
    void *p;

    if (new_size == 0) {
        free(ptr);
        g->used_bytes -= old;
        return NULL;
    }
    if (new_size > old && g->is_running && g->used_bytes - old + new_size > g->memory_max_bytes) {
        g->has_refused = 1;
        return NULL;
    }
    p = realloc(ptr, new_size);
    if (!p)
        return new_size <= old ? ptr : NULL; /* Lua may not see a shrink fail */
    g->used_bytes = g->used_bytes - old + new_size;
    return p;
}

/* "FILE:LINE" of the innermost Lua function running in L, or the
 * script's name when none runs: LuaJIT unwinds a coroutine's stack when
 * an allocation fails, so a memory error raised by the allocator itself
 * has no line. */
static void where(const struct script_guard *g, lua_State *L, char *buf, size_t len)
{
    lua_Debug ar;

    for (int level = 0; level < 32 && lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
            snprintf(buf, len, "%s:%d", ar.short_src, ar.currentline);
            return;
        }
    }
    snprintf(buf, len, "%s", g->name ? g->name : "the script");
}

static void hook(lua_State *L, lua_Debug *ar);

/* Where the C stack is: the frame's address, not a local's, which ASan's
 * detect_stack_use_after_return moves to the heap. */
static inline uintptr_t stack_here(void)
{
    return (uintptr_t)__builtin_frame_address(0);
}

/* Raises why from the hook, and again at every later instruction of this
 * resume, so that a pcall in the script cannot hold the resume running. */
static void trip(lua_State *L, struct script_guard *g, const char *what)
{
    char at[SCRIPT_ERR_MAX / 3];

    if (!g->is_tripped) {
        where(g, L, at, sizeof(at));
        snprintf(g->why, sizeof(g->why), "%s: %s", at, what);
        g->is_tripped = 1;
        lua_sethook(L, hook, HOOK_MASK, 1);
    }
    lua_pushstring(L, g->why);
    lua_error(L);
}

static void memory_text(const struct script_guard *g, char *buf, size_t len)
{
    snprintf(buf, len, "over the memory cap of %zu MiB ([scenario] memory)",
             g->memory_max_bytes >> 20);
}

static void hook(lua_State *L, lua_Debug *ar)
{
    struct script_guard *g = guard_of(L);
    char text[SCRIPT_ERR_MAX / 2], d[32];
    uint64_t now_ns, ran_ns;
    uintptr_t here = stack_here();

    if (!g->is_running)
        return;
    if (g->is_tripped)
        trip(L, g, NULL);
    /* The C stack grows down; every nested callback (a gsub's function,
     * a coroutine) adds its C frames below the resume's. */
    if (g->stack_base > here && g->stack_base - here > SCRIPT_C_STACK_MAX_BYTES) {
        snprintf(text, sizeof(text), "callbacks nested too deep (C stack over %u KiB)",
                 SCRIPT_C_STACK_MAX_BYTES >> 10);
        trip(L, g, text);
    }
    /* Calls too: a loop of a few instructions around a C function (s =
     * s:gsub(...)) may not reach the count before the memory cap. */
    (void)ar;
    if (g->has_refused) {
        memory_text(g, text, sizeof(text));
        trip(L, g, text);
    }
    now_ns = clock_now_ns();
    ran_ns = now_ns - g->start_ns;
    if (ran_ns > g->budget_ns) {
        snprintf(text, sizeof(text), "ran for more than %s without yielding ([scenario] budget)",
                 units_format_duration(g->budget_ns / 1000, d, sizeof(d)));
        trip(L, g, text);
    }
    if (ran_ns > SCRIPT_STOP_SLACK_NS && script__guard_is_stopping(g->stop, now_ns))
        trip(L, g, "stopped: the run is ending");
}

int script__guard_is_stopping(const struct script__stop *stop, uint64_t now_ns)
{
    uint64_t deadline_ns;

    if (atomic_load_explicit(&every_stop, memory_order_relaxed))
        return 1;
    if (!stop)
        return 0;
    if (atomic_load_explicit(&stop->is_stopping, memory_order_relaxed))
        return 1;
    deadline_ns = atomic_load_explicit(&stop->deadline_ns, memory_order_relaxed);
    return deadline_ns && now_ns >= deadline_ns;
}

lua_State *script__guard_state(struct script_guard *g)
{
    lua_State *L = lua_newstate(guard_alloc, g);

    if (!L)
        return NULL;
    lua_sethook(L, hook, HOOK_MASK, SCRIPT_HOOK_COUNT);
    return L;
}

void script__guard_enter(struct script_guard *g, lua_State *co)
{

    if (g->has_refused) {
        /* What the last resume left behind goes before this one runs:
         * LuaJIT does not collect and retry when its allocator refuses. */
        lua_gc(co, LUA_GCCOLLECT, 0);
        g->has_refused = 0;
    }
    if (g->is_tripped) {
        lua_sethook(co, hook, HOOK_MASK, SCRIPT_HOOK_COUNT);
        g->is_tripped = 0;
    }
    g->why[0] = '\0';
    g->co_depth = 0;
    g->stack_base = stack_here();
    g->start_ns = clock_now_ns();
    g->is_running = 1;
}

int script__guard_leave(struct script_guard *g, lua_State *co, int rc, char *why, size_t why_len)
{
    char at[SCRIPT_ERR_MAX / 3], text[SCRIPT_ERR_MAX / 2];

    g->is_running = 0;
    if (rc == LUA_OK || rc == LUA_YIELD)
        return 0;
    if (g->is_tripped) {
        snprintf(why, why_len, "%s", g->why);
        return 1;
    }
    if (g->has_refused) {
        where(g, co, at, sizeof(at));
        memory_text(g, text, sizeof(text));
        snprintf(why, why_len, "%s: %s", at, text);
        return 1;
    }
    return 0;
}

/* ---- Coroutines ------------------------------------------------------- */

/* LuaJIT resumes a coroutine on the C stack of the one resuming it and
 * checks no depth: a script resuming coroutines inside each other without
 * end overflows the thread's stack (SIGSEGV) long before its memory cap. */
static int enter_coroutine(lua_State *L)
{
    struct script_guard *g = guard_of(L);

    if (g->co_depth >= SCRIPT_COROUTINE_DEPTH_MAX)
        return luaL_error(L, "coroutines resumed inside each other more than %d deep",
                          SCRIPT_COROUTINE_DEPTH_MAX);
    g->co_depth++;
    return 0;
}

/* coroutine.resume(co, ...): the original (upvalue 1), one level deeper.
 * An error past the count is raised before it, so the count stays right;
 * the hook's errors end the resume anyway. */
static int l_resume(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTHREAD);
    enter_coroutine(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    guard_of(L)->co_depth--;
    return lua_gettop(L);
}

/* What coroutine.wrap returns: resumes its coroutine (upvalue 1) with the
 * original resume (upvalue 2); an error in it is raised again as it is. */
static int l_wrapped(lua_State *L)
{
    enter_coroutine(L);
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_insert(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 2);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    guard_of(L)->co_depth--;
    if (!lua_toboolean(L, 1)) {
        lua_settop(L, 2);
        return lua_error(L);
    }
    return lua_gettop(L) - 1;
}

/* coroutine.wrap(f): upvalues the original create and resume. */
static int l_wrap(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushcclosure(L, l_wrapped, 2);
    return 1;
}

void script__guard_sandbox(lua_State *L)
{
#ifdef LUAJIT_VERSION
    /* A loop LuaJIT has compiled runs as machine code that never calls the
     * hook: with the compiler on, `while true do end` could not be
     * stopped. After the sandbox, whose luaopen_jit switches it on. */
    luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
#endif
    lua_getglobal(L, "coroutine");
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    lua_getfield(L, -1, "create");
    lua_getfield(L, -2, "resume");
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, l_resume, 1);
    lua_setfield(L, -4, "resume");
    lua_pushcclosure(L, l_wrap, 2);
    lua_setfield(L, -2, "wrap");
    lua_pop(L, 1);
}
