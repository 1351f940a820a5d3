/*
 * guard: the limits of a script's Lua state, so that nothing a script does
 * can take the run down. A state made by script__guard_state counts its
 * memory through its own allocator and refuses to grow past a cap; a hook
 * stops a resume that runs longer than a budget without yielding, that
 * nests callbacks deep into the C stack, or that runs on while the run
 * stops. LuaJIT's compiler is off in such a state: a compiled loop never
 * calls a hook (docs/design.md, "Scripts that never yield").
 * Internal to the script module. Threads: a guard belongs to its state's
 * thread; struct script__stop is written from any thread (or a signal
 * handler) and read by the hook.
 */
#ifndef BRINK_SCRIPT_GUARD_H
#define BRINK_SCRIPT_GUARD_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "script/lib.h"
#include "script/lua_compat.h"

#define SCRIPT_HOOK_COUNT 1000                 /* VM instructions between two checks */
#define SCRIPT_STOP_SLACK_NS (10 * 1000000ull) /* a resume's run once the run stops */
#define SCRIPT_C_STACK_MAX_BYTES (512u << 10)  /* C stack below the resume */
#define SCRIPT_COROUTINE_DEPTH_MAX 100         /* coroutines resumed inside each other */

/* Whether the run is ending, for every state of one run. */
struct script__stop {
    atomic_int is_stopping;    /* set once the run is asked to stop */
    atomic_ullong deadline_ns; /* clock_now_ns() when the run's duration ends; 0: none */
};

struct script_guard {
    /* Set before script__guard_state, read-only after. */
    uint64_t budget_ns;              /* longest resume without a yield */
    size_t memory_max_bytes;         /* what the state's allocator may hold */
    const struct script__stop *stop; /* the run's (borrowed), or NULL */
    const char *name;                /* the script's, for an error with no line (borrowed) */
    /* The guard's own. */
    size_t used_bytes;        /* held by the state now */
    int is_running;           /* inside script__guard_enter .. _leave: the caps hold */
    int has_refused;          /* the allocator refused since script__guard_enter */
    int is_tripped;           /* the hook raised: it raises again at every instruction */
    uint64_t start_ns;        /* of the resume */
    uintptr_t stack_base;     /* the C stack at the resume */
    unsigned co_depth;        /* coroutine.resume calls inside each other */
    char why[SCRIPT_ERR_MAX]; /* "FILE:LINE: what" the hook raised */
};

/* A new state whose allocator is g's (g must outlive it), with the hook
 * set. NULL when there is no memory. */
lua_State *script__guard_state(struct script_guard *g);

/* Before a resume (or a pcall) of co, a thread of g's state: the clock and
 * the caps start. */
void script__guard_enter(struct script_guard *g, lua_State *co);

/*
 * After it, with what it returned (rc): 1 with why (one line,
 * "FILE:LINE: what") when the guard ended it (budget, memory, C stack,
 * stop), else 0 (the error, if any, is the script's own). Collects the
 * state's garbage after a refused allocation, so that the next resume
 * starts below the cap.
 */
int script__guard_leave(struct script_guard *g, lua_State *co, int rc, char *why, size_t why_len);

/* Whether the run stops at now_ns (clock_now_ns): the run's flag (stop:
 * NULL for none), script_interrupt_all, or the run's deadline passed.
 * Any thread. */
int script__guard_is_stopping(const struct script__stop *stop, uint64_t now_ns);

/* After script__sandbox: switches LuaJIT's compiler off (the sandbox
 * switched it on), and puts coroutine.resume and coroutine.wrap behind a
 * depth count (SCRIPT_COROUTINE_DEPTH_MAX): deeper nesting is an error,
 * never a crash. */
void script__guard_sandbox(lua_State *L);

#endif
