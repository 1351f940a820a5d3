/*
 * A worker (worker.c): a thread with its own uv_loop_t, its slots, its
 * transport's state and its interval. The open model's part of it is in
 * open.c (engine/open.h).
 */
#ifndef BRINK_ENGINE_WORKER_H
#define BRINK_ENGINE_WORKER_H

#include <pthread.h>
#include <stdint.h>

#include <uv.h>

#include "engine/deadline.h"
#include "engine/grow.h"
#include "engine/interval.h"
#include "engine/schedule.h"
#include "engine/sigv4.h"
#include "engine/transport.h"

struct control;
struct engine;
struct script;
struct slot;

struct worker {
    struct engine *e;
    /* The worker's decisions, for the files below it (slot.c, scene.c),
     * which call up through these and never worker.c itself (worker.c sets
     * them). next: s is free (its reply came, its iteration ended): its
     * next request, its think time, or the worker's end. check_finished:
     * ends the worker when nothing is in flight and nothing more may
     * start. */
    void (*next)(struct worker *w, struct slot *s);
    void (*check_finished)(struct worker *w);
    /* What its transport sees of it (transport.h): its loop, the run's
     * config, workload and setup, its id, its pace, closer, rng and
     * fds_used, and the transport's own state. */
    struct transport_worker view;
    uint64_t start_ns; /* uv_hrtime at the run's start */
    pthread_t thread;
    uv_timer_t tick_timer;  /* interval boundaries */
    uv_timer_t end_timer;   /* duration and drain deadlines (worker 0 only) */
    uv_idle_t filling;      /* closed model: users a pass's slice left unstarted, next pass */
    uv_async_t wake;        /* control state changed */
    uv_prepare_t pace_pass; /* each loop pass: a new connect budget */
    /* [load] busy_poll: after a pass that handled a reply, the loop keeps
     * looking at its sockets without sleeping until busy_until_ns. */
    uv_idle_t busy;
    uint64_t busy_until_ns; /* uv_hrtime's clock (CLOCK_MONOTONIC, as clock_spin's) */
    uint64_t replies;       /* requests completed (slot.c counts them) */
    uint64_t replies_seen;  /* replies when a pass last looked */
    struct slot **slots;
    uint32_t n_slots;
    uint32_t slots_cap; /* room in slots */
    uint32_t share;     /* slots [0, share) may run */
    int is_paused;
    int is_stopping;
    int is_done;
    int is_started; /* its thread was created */
    int has_run;    /* its loop ran to the end (its handles are closed) */
    uint32_t in_flight;
    uint32_t conns_open;   /* connections open (engine__worker_conn_opened, _closed) */
    uint64_t next_tick_ns; /* the boundary the tick timer waits for */
    /* Open model: its part of the rate and of the cap, and its schedule. */
    struct deadline sched_deadline; /* the next intended start */
    struct schedule sched;
    int is_open;
    double rate_per_s;
    uint32_t cap;
    uint64_t owed_at_start; /* requests due and not started when the interval began */
    struct grow grow;       /* when its pool takes one more connection */
    struct script *script;  /* a scenario run: this worker's Lua state */
    struct interval iv;
    /* aws_sigv4: the day's signing key, and where requests are signed
     * (allocated at the first). */
    struct sigv4_cache sigv4_cache;
    struct sigv4_out *sigv4_out;
};

/* Worker i's part of a total split over n workers: the first (total % n)
 * get one more. Concurrency and drops are split the same way. */
static inline uint64_t engine__share(uint64_t total, uint32_t n, uint32_t i)
{
    return total / n + (i < total % n ? 1 : 0);
}

/* ns since the run started, on the monotonic clock (the engine's clock). */
static inline uint64_t engine__now_ns(const struct worker *w)
{
    return uv_hrtime() - w->start_ns;
}

/* worker.c */
int engine__worker_new(struct engine *e, uint32_t id, char *err, size_t err_len,
                       struct worker **out);
int engine__worker_start(struct worker *w, char *err, size_t err_len);
/* Runs the worker's loop on the calling thread until the worker is done:
 * what its thread does, and what in-process tests call instead. */
void engine__worker_run(struct worker *w);
void engine__worker_join(struct worker *w);
void engine__worker_free(struct worker *w);
/* Re-reads the control state and acts on it (engine.lock not held). */
void engine__worker_apply_control(struct worker *w);

#endif
