/*
 * Shared inside src/engine only. One struct engine owns N workers; each
 * worker is a thread with its own uv_loop_t and one transport (libcurl's
 * multi handle, or brink's own HTTP/1.1 client), and owns its slots
 * (virtual users), its sockets and its interval statistics outright, so the
 * request path takes no lock. Workers meet in two places: the control state
 * (commands, under engine.lock) and the merger (intervals, under its lock).
 */
#ifndef BRINK_ENGINE_INTERNAL_H
#define BRINK_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/socket.h>

#include <uv.h>

#include "core/command.h"
#include "core/container.h"
#include "core/errclass.h"
#include "core/tick.h"
#include "engine/control.h"
#include "engine/engine.h"
#include "engine/interval.h"
#include "engine/merger.h"
#include "engine/open.h"
#include "engine/scene.h"
#include "engine/slot.h"
#include "engine/transport.h"
#include "engine/worker.h"
#include "ramp/ramp.h"

struct engine {
    const struct config *config;
    const struct transport_ops *tp;
    void *tp_setup; /* what tp->setup built for every worker; NULL: nothing */
    /* A scenario run's exchanges over its users' connections (brink.tcp,
     * brink.ws): transport_stream, which is tp too in a run without
     * [target] url; NULL in a run without a script. It has no setup. */
    const struct transport_ops *sp;
    struct chan *chan;
    struct workload *workload;
    struct merger *merger;
    uint64_t seed;
    uint64_t start_ns; /* uv_hrtime at the start */
    uint64_t tick_ns;
    uint32_t fds_limit;
    uint32_t max_concurrency;
    uint64_t request_limit;       /* 0: none */
    uint64_t think_ms;            /* [load] think_time as applied: whole ms, rounded up */
    uint64_t busy_poll_ns;        /* [load] busy_poll; 0: the loop sleeps when idle */
    atomic_uint_fast64_t tickets; /* requests started so far, all workers */
    /* Per request kind: requests of it started so far, all workers; {seq}
     * takes the next value, so no two requests of a kind share one. */
    atomic_uint_fast64_t *kind_seq;
    pthread_mutex_t lock;
    struct control control;
    uint32_t *drop_pending; /* per worker: transfers to abort */
    uint32_t n_workers;
    struct worker **workers;
    /* A scenario run ([scenario] script): the script loaded and set up
     * once, and the request kinds its names make (scene.c); else NULL. */
    struct script_setup *script;
    struct scene_kinds *scene_kinds;
    /* The ramp plan and detections (plan.c), under ramp_lock. */
    pthread_mutex_t ramp_lock;
    struct ramp *ramp;
    struct ramp_out ramp_todo; /* what the plan asked, for worker 0 to apply */
    int ramp_is_detached;      /* worker 0's wake is closing: nobody to ask */
};

/* engine.c: engine_start without the threads: the engine and its workers
 * built, no loop running, no wake set on the channel. In-process tests run
 * a worker with engine__worker_run, then engine_free. */
int engine__build(const struct engine_params *p, char *err, size_t err_len, struct engine **out);

/* plan.c: the ramp plan. engine__plan_init creates it and hooks it to the merger,
 * starting it when start is set (before the workers start); with none set
 * there is no plan (e->ramp NULL: a coordinator judges it); engine__plan_command
 * handles CMD_RAMP and CMD_RAMP_NEXT (returns 1) and tells the plan about
 * manual changes (returns 0: the engine applies them); engine__plan_apply_todo
 * does, on worker 0, what the plan asked; engine__plan_detach is worker 0's last
 * word before its wake closes. */
void engine__plan_init(struct engine *e, int start, int none);
void engine__plan_free(struct engine *e);
int engine__plan_command(struct engine *e, const struct command *cmd);
/* Returns whether there was anything to do. */
int engine__plan_apply_todo(struct engine *e);
void engine__plan_detach(struct engine *e);
/* The run's transports, each once: tp, then sp when it is another.
 * Returns how many (1 or 2). */
static inline size_t engine__transports(const struct engine *e, const struct transport_ops *out[2])
{
    out[0] = e->tp;
    out[1] = e->sp;
    return e->sp && e->sp != e->tp ? 2 : 1;
}

/* The transport the request of s goes by: sp for an exchange of a
 * script's connection, else tp. */
static inline const struct transport_ops *engine__slot_tp(const struct slot *s)
{
    return s->req && s->req->exchange ? s->w->e->sp : s->w->e->tp;
}

#endif
