/*
 * A worker: one thread, one uv_loop_t, one transport, and the slots of its share
 * of the concurrency. Everything here runs on the worker's own thread except
 * engine__worker_new, engine__worker_start, engine__worker_join and engine__worker_free (main's
 * thread, before the thread starts or after it ended).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/chan.h"
#include "core/clock.h"
#include "core/hist.h"
#include "core/msg.h"
#include "core/xalloc.h"
#include "engine/internal.h"
#include "engine/workload.h"

/* [load] busy_poll: the longest the loop spins in user space between looks
 * at its sockets (an epoll_wait that does not sleep) while it keeps from
 * sleeping after a reply: a reply is read at most this late, short beside
 * its round trip on loopback (tens of us), and the loop makes about one
 * system call a microsecond, not one after another. */
#define BUSY_SLICE_NS 1000

/* The worker whose view a transport handed back (transport.h). */
static struct worker *worker_of(const struct transport_worker *tw)
{
    return container_of(tw, struct worker, view);
}

uint64_t engine__worker_now_ns(const struct transport_worker *tw)
{
    return engine__now_ns(worker_of(tw));
}

void engine__worker_event(struct transport_worker *tw, enum event_kind kind, uint64_t at_ns,
                          const char *text)
{
    struct worker *w = worker_of(tw);

    engine__merger_event(w->e->merger, kind, at_ns, text);
}

uint32_t engine__worker_in_flight(const struct transport_worker *tw)
{
    return worker_of(tw)->in_flight;
}

int engine__worker_is_done(const struct transport_worker *tw)
{
    return worker_of(tw)->is_done;
}

uint32_t engine__worker_n_slots(const struct transport_worker *tw)
{
    return worker_of(tw)->n_slots;
}

struct transport_slot *engine__worker_slot(struct transport_worker *tw, uint32_t i)
{
    return &worker_of(tw)->slots[i]->view;
}

void engine__worker_http_version(struct transport_worker *tw, const char *version)
{
    worker_of(tw)->iv.http_version = version;
}

static int may_run(const struct worker *w, const struct slot *s)
{
    return !w->is_paused && !w->is_stopping && !w->is_done && s->view.index < w->share;
}

/* Whether s is a user the closed model's share has left out: it stops, and
 * its connection goes (transport_ops.retire). Not while stopping: the run's
 * end closes every connection. */
static int is_retired(const struct worker *w, const struct slot *s)
{
    return !w->is_open && !w->is_stopping && !w->is_done && s->view.index >= w->share;
}

static void retire(struct worker *w, struct slot *s)
{
    const struct transport_ops *tp[2];
    size_t n = engine__transports(w->e, tp);

    for (size_t i = 0; i < n; i++) {
        if (tp[i]->retire)
            tp[i]->retire(&s->view);
    }
}

/* Closes the handles and connections of every transport of w. */
static void close_transports(struct worker *w)
{
    const struct transport_ops *tp[2];
    size_t n = engine__transports(w->e, tp);

    for (size_t i = 0; i < n; i++)
        tp[i]->close(&w->view);
}

static int tickets_left(const struct worker *w)
{
    const struct engine *e = w->e;

    return !e->request_limit || atomic_load(&e->tickets) < e->request_limit;
}

void engine__worker_phase(struct transport_worker *tw, enum tick_phase p, uint64_t us)
{
    struct worker *w = worker_of(tw);

    hist_record(w->iv.phases[p], hist_coarse_round(us, TICK_PHASE_SUB_BITS));
}

void engine__worker_conn_opened(struct transport_worker *tw)
{
    struct worker *w = worker_of(tw);

    w->conns_open++;
    w->iv.connections_opened++;
}

void engine__worker_conn_closed(struct transport_worker *tw)
{
    struct worker *w = worker_of(tw);

    w->conns_open--;
}

/* Fills the gauges of the interval and hands it to the merger. */
static void submit(struct worker *w, uint64_t end_ns, int is_final)
{
    struct interval *iv = &w->iv;

    iv->end_ns = end_ns;
    iv->target = w->share;
    iv->active = w->share < w->n_slots ? w->share : w->n_slots;
    if (w->is_paused || w->is_stopping)
        iv->active = 0;
    iv->in_flight = w->in_flight;
    iv->fds_used = w->view.fds_used;
    iv->connections = w->conns_open;
    if (w->is_open) {
        /* The pool and its cap, not the closed model's users. */
        iv->target = w->cap;
        iv->active = w->is_paused || w->is_stopping ? 0 : w->n_slots < w->cap ? w->n_slots : w->cap;
    }
    engine__open_interval_end(w, end_ns);
    engine__scene_interval_end(w);
    engine__merger_submit(w->e->merger, w->view.id, iv, is_final);
}

/* Closes the handles the worker itself owns (the transport's are its own). */
static void close_own_handles(struct worker *w)
{
    for (uint32_t i = 0; i < w->n_slots; i++)
        uv_close((uv_handle_t *)&w->slots[i]->think_timer, NULL);
    uv_close((uv_handle_t *)&w->tick_timer, NULL);
    uv_close((uv_handle_t *)&w->end_timer, NULL);
    uv_close((uv_handle_t *)&w->filling, NULL);
    uv_close((uv_handle_t *)&w->pace_pass, NULL);
    uv_close((uv_handle_t *)&w->busy, NULL);
    closer_close_all(&w->view.closer);
    deadline_close(&w->sched_deadline);
    uv_close((uv_handle_t *)&w->wake, NULL);
}

/* Closes everything of the worker; the loop then ends by itself. Runs from
 * a timer, never from inside a libcurl callback chain. */
static void on_teardown(uv_timer_t *t)
{
    struct worker *w = container_of(t, struct worker, end_timer);

    if (w->view.id == 0)
        engine__plan_detach(w->e);
    close_transports(w);
    close_own_handles(w);
}

/* Ends the pause of every thinking user that may no longer run (paused,
 * stopped, retired, the worker done) or that the open model now serves:
 * its timer must not start a request later. When it may run again it
 * starts at once, as a user that was not thinking does. */
static void end_thinking(struct worker *w)
{
    for (uint32_t i = 0; i < w->n_slots; i++) {
        struct slot *s = w->slots[i];

        if (s->is_thinking && (w->is_open || !may_run(w, s))) {
            uv_timer_stop(&s->think_timer);
            s->is_thinking = 0;
        }
    }
}

/* The worker has nothing left to do: its last interval goes to the merger
 * and its handles close once the current callback has returned. */
static void finish(struct worker *w)
{
    if (w->is_done)
        return;
    w->is_done = 1;
    end_thinking(w);
    submit(w, engine__now_ns(w), 1);
    uv_timer_stop(&w->tick_timer);
    deadline_disarm(&w->sched_deadline);
    uv_timer_start(&w->end_timer, on_teardown, 0, 0);
}

static void check_finished(struct worker *w)
{
    if (w->in_flight == 0 && (w->is_stopping || !tickets_left(w)))
        finish(w);
}

static void on_think(uv_timer_t *t)
{
    struct slot *s = container_of(t, struct slot, think_timer);
    struct worker *w = s->w;

    s->is_thinking = 0;
    if (!w->is_open && may_run(w, s) && engine__slot_start(s, SLOT_NOW) == 0)
        return;
    check_finished(w);
}

/* Starts the think pause of s, which just had its reply. */
static void think(struct worker *w, struct slot *s)
{
    /* The loop's clock was read before this pass's callbacks ran: refresh
     * it so the pause counts from the reply, not from earlier. */
    uv_update_time(&w->view.loop);
    s->is_thinking = 1;
    uv_timer_start(&s->think_timer, on_think, w->e->think_ms, 0);
}

static void next(struct worker *w, struct slot *s)
{
    if (w->is_open) {
        engine__open_pump(w, s);
    } else if (may_run(w, s) && w->e->think_ms && tickets_left(w)) {
        /* With no ticket left there is nothing to think about: the worker
         * may end as soon as the requests in flight have. */
        think(w, s);
        return;
    } else if (may_run(w, s) && engine__slot_start(s, SLOT_NOW) == 0) {
        return;
    } else if (is_retired(w, s)) {
        retire(w, s);
    }
    check_finished(w);
}

static void fill(struct worker *w);

static void on_filling(uv_idle_t *i)
{
    uv_idle_stop(i);
    fill(container_of(i, struct worker, filling));
}

static void fill(struct worker *w)
{
    if (w->is_done)
        return;
    if (w->is_open) {
        engine__open_pump(w, NULL);
    } else if (!w->is_paused && !w->is_stopping) {
        uint64_t t0 = uv_hrtime();

        for (uint32_t i = 0; i < w->share; i++) {
            struct slot *s;

            if (uv_hrtime() - t0 > ENGINE_START_SLICE_NS) {
                /* The rest of the users join on the next pass. */
                uv_idle_start(&w->filling, on_filling);
                return;
            }
            if (i == w->n_slots)
                engine__slot_grow(w, i + 1);
            s = w->slots[i];
            if (s->view.is_in_flight || s->is_thinking || s->is_sleeping)
                continue;
            if (engine__slot_start(s, SLOT_NOW) != 0)
                break;
        }
    }
    check_finished(w);
}

/* Aborts up to n transfers in flight (only those unsent, when is_unsent),
 * newest users first, counted as dropped (the operator's drop) or aborted
 * (a stop that gave up waiting, or that does not wait for them). */
static uint32_t abort_in_flight(struct worker *w, uint32_t n, int is_stop, int is_unsent)
{
    uint32_t done = 0;

    for (uint32_t i = w->n_slots; i-- > 0 && done < n;) {
        struct slot *s = w->slots[i];

        if (!s->view.is_in_flight || (is_unsent && !engine__slot_tp(s)->is_unsent(&s->view)))
            continue;
        engine__slot_tp(s)->abort(&s->view);
        s->view.is_in_flight = 0;
        w->in_flight--;
        if (is_stop)
            w->iv.aborted++;
        else
            w->iv.dropped++;
        done++;
    }
    return done;
}

static void on_end(uv_timer_t *t)
{
    struct worker *w = container_of(t, struct worker, end_timer);

    if (!w->is_stopping)
        engine__request_stop(w->e, "duration reached", 0);
    else
        engine__request_stop(w->e, "drain timed out", 1);
    /* At once, not at the wake on the next pass: a request that ends in a
     * timer due in this same pass must not start another past the end. */
    engine__worker_apply_control(w);
}

/* The share changed: the transport learns the new number of users, and
 * the users left out that are not waiting for a reply let go of their
 * connections (those waiting do when their reply comes). */
static void users_changed(struct worker *w)
{
    if (w->is_open)
        return;
    if (w->e->tp->users_changed)
        w->e->tp->users_changed(&w->view, w->share);
    for (uint32_t i = w->share; i < w->n_slots; i++) {
        if (!w->slots[i]->view.is_in_flight && is_retired(w, w->slots[i]))
            retire(w, w->slots[i]);
    }
}

void engine__worker_apply_control(struct worker *w)
{
    struct engine *e = w->e;
    struct control c;
    uint32_t drop, was_share = w->share;
    int was_paused = w->is_paused;

    if (w->is_done)
        return;
    pthread_mutex_lock(&e->lock);
    c = e->control;
    drop = e->drop_pending[w->view.id];
    e->drop_pending[w->view.id] = 0;
    pthread_mutex_unlock(&e->lock);

    w->share = (uint32_t)engine__share(c.concurrency, e->n_workers, w->view.id);
    w->is_paused = c.is_paused;
    if (c.is_stopping && !w->is_stopping) {
        w->is_stopping = 1;
        /* From now on the end timer is the drain deadline (on worker 0 it
         * replaces the duration, which no longer matters). */
        uv_timer_start(&w->end_timer, on_end, ENGINE_DRAIN_MS, 0);
        /* A request still waiting for its name lookup (a DNS server that
         * never answers) or for a connect has nothing to drain: the server
         * never saw it. Waiting would hold the stop for its timeout. */
        abort_in_flight(w, w->in_flight, 1, 1);
    }
    engine__open_apply(w, &c, was_paused);
    end_thinking(w);
    if (w->share != was_share)
        users_changed(w);
    if (drop)
        abort_in_flight(w, drop, 0, 0);
    if (c.is_aborting)
        abort_in_flight(w, w->in_flight, 1, 0);
    fill(w);
}

/* Worker 0 reads the commands: what the ramp plan asked, then the
 * channel's (the plan takes its own); any applied wakes every worker. */
static void drain_commands(struct engine *e)
{
    struct command cmd;
    int n = 0;

    n += engine__plan_apply_todo(e);
    while (chan_recv(e->chan, &cmd)) {
        if (!engine__plan_command(e, &cmd))
            engine__control_apply(e, &cmd);
        n++;
    }
    if (n)
        engine__wake_all(e);
}

static void on_wake(uv_async_t *a)
{
    struct worker *w = container_of(a, struct worker, wake);

    /* libuv coalesces wakes, so one call may stand for several commands. */
    if (w->view.id == 0)
        drain_commands(w->e);
    engine__worker_apply_control(w);
}

/* The open model's schedule says a request is due. */
static void on_sched_deadline(struct deadline *d)
{
    struct worker *w = container_of(d, struct worker, sched_deadline);

    engine__open_pump(w, NULL);
    check_finished(w);
}

/* Each pass while busy_poll lasts: a slice of spinning, then the loop
 * polls its sockets without sleeping (an active idle handle makes libuv's
 * poll timeout 0). */
static void on_busy(uv_idle_t *i)
{
    struct worker *w = container_of(i, struct worker, busy);

    if (w->is_done || uv_hrtime() >= w->busy_until_ns) {
        uv_idle_stop(i);
        return;
    }
    clock_spin(w->busy_until_ns, BUSY_SLICE_NS);
}

/* [load] busy_poll: a pass that handled a reply keeps the loop from
 * sleeping for busy_poll. A server that replies to a sleeping client pays
 * for waking it (a cross-CPU wake-up, tens of us in a VM) on almost every
 * reply; one that finds it awake does not, at the cost of brink's CPU. */
static void keep_busy(struct worker *w)
{
    if (!w->e->busy_poll_ns || w->replies == w->replies_seen || w->is_done)
        return;
    w->replies_seen = w->replies;
    w->busy_until_ns = uv_hrtime() + w->e->busy_poll_ns;
    uv_idle_start(&w->busy, on_busy);
}

static void on_pace_pass(uv_prepare_t *p)
{
    struct worker *w = container_of(p, struct worker, pace_pass);

    grow_new_pass(&w->grow);
    pace_new_pass(&w->view.pace);
    closer_new_pass(&w->view.closer);
    keep_busy(w);
}

static void on_tick(uv_timer_t *t);

/* Arms the tick timer for the next boundary (rounded up to libuv's ms). */
static void arm_tick(struct worker *w)
{
    uint64_t now, delay_ms;

    /* libuv counts timers from its cached loop time, which may be a few ms
     * old: refresh it so the timer is due at the boundary, not before. */
    uv_update_time(&w->view.loop);
    now = engine__now_ns(w);
    delay_ms = w->next_tick_ns > now ? (w->next_tick_ns - now + 999999) / 1000000 : 0;
    uv_timer_start(&w->tick_timer, on_tick, delay_ms, 0);
}

static void on_tick(uv_timer_t *t)
{
    struct worker *w = container_of(t, struct worker, tick_timer);
    uint64_t now = engine__now_ns(w);
    uint64_t tick_ns = w->e->tick_ns;
    uint64_t seq;

    if (now < w->next_tick_ns) {
        /* Early by libuv's rounding: the interval is not over yet. */
        arm_tick(w);
        return;
    }
    w->iv.loop_lag_us = (now - w->next_tick_ns) / 1000;
    submit(w, now, 0);
    /* Boundaries are fixed multiples of the tick from the start, so a late
     * timer shortens the next interval instead of shifting every later one;
     * a timer late by more than a tick skips to the current interval. */
    seq = now / tick_ns;
    if (seq <= w->iv.seq)
        seq = w->iv.seq + 1;
    engine__interval_reset(&w->iv);
    w->iv.seq = seq;
    w->iv.start_ns = now;
    w->next_tick_ns = (seq + 1) * tick_ns;
    arm_tick(w);
}

void engine__worker_run(struct worker *w)
{
    const struct config *c = w->e->config;

    /* Before the first tick is armed: a long set-up is not loop lag. */
    engine__open_prepare(w);
    w->next_tick_ns = w->e->tick_ns;
    arm_tick(w);
    if (w->view.id == 0 && c->load.duration_us) {
        uv_timer_start(&w->end_timer, on_end, c->load.duration_us / 1000, 0);
        /* The timer cannot fire while a script holds this loop. */
        engine__scene_set_deadline(w->e, clock_now_ns() + c->load.duration_us * 1000);
    }
    engine__worker_apply_control(w);
    uv_run(&w->view.loop, UV_RUN_DEFAULT);
    w->has_run = 1;
}

static void *worker_main(void *arg)
{
    engine__worker_run(arg);
    return NULL;
}

int engine__worker_new(struct engine *e, uint32_t id, char *err, size_t err_len,
                       struct worker **out)
{
    struct worker *w = xcalloc(1, sizeof(*w));
    size_t n_kinds = e->scene_kinds ? TICK_MAX_KINDS : workload_n_kinds(e->workload);
    const struct transport_ops *tp[2];
    size_t n_tp, n_ready;
    int rc;

    w->e = e;
    w->next = next;
    w->check_finished = check_finished;
    w->view.config = e->config;
    w->view.workload = e->workload;
    w->view.setup = e->tp_setup;
    w->start_ns = e->start_ns;
    w->view.max_concurrency = e->max_concurrency;
    w->view.id = id;
    w->view.rng = e->seed ^ (0x9e3779b97f4a7c15ULL * (id + 1));
    rc = uv_loop_init(&w->view.loop);
    if (rc != 0) {
        snprintf(err, err_len, "brink: engine: uv_loop_init: %s", msg_errno(-rc).text);
        free(w);
        return rc;
    }
    uv_timer_init(&w->view.loop, &w->tick_timer);
    uv_timer_init(&w->view.loop, &w->end_timer);
    uv_idle_init(&w->view.loop, &w->filling);
    uv_async_init(&w->view.loop, &w->wake, on_wake);
    /* Once per loop pass, before it polls; it does not keep the loop alive. */
    pace_init(&w->view.pace);
    grow_init(&w->grow);
    closer_init(&w->view.loop, &w->view.closer);
    uv_prepare_init(&w->view.loop, &w->pace_pass);
    uv_prepare_start(&w->pace_pass, on_pace_pass);
    uv_unref((uv_handle_t *)&w->pace_pass);
    /* Started by on_pace_pass; it does not keep the loop alive either (the
     * loop ends once everything else has closed, busy_poll or not). */
    uv_idle_init(&w->view.loop, &w->busy);
    uv_unref((uv_handle_t *)&w->busy);
    rc = deadline_init(&w->view.loop, &w->sched_deadline, on_sched_deadline, err, err_len);
    if (rc == 0)
        rc = engine__scene_worker_init(w, err, err_len);
    n_tp = engine__transports(e, tp);
    n_ready = 0;
    while (rc == 0 && n_ready < n_tp) {
        rc = tp[n_ready]->init(&w->view, err, err_len);
        if (rc == 0)
            n_ready++;
    }
    if (rc != 0) {
        /* Nothing has run: close the handles (those of the transports
         * that are ready too) and let the loop finish them. */
        for (size_t i = 0; i < n_ready; i++)
            tp[i]->close(&w->view);
        close_own_handles(w);
        uv_run(&w->view.loop, UV_RUN_DEFAULT);
        for (size_t i = 0; i < n_ready; i++)
            tp[i]->fini(&w->view);
        uv_loop_close(&w->view.loop);
        engine__scene_worker_free(w);
        free(w);
        return rc;
    }
    engine__interval_init(&w->iv, n_kinds);
    *out = w;
    return 0;
}

int engine__worker_start(struct worker *w, char *err, size_t err_len)
{
    int rc = pthread_create(&w->thread, NULL, worker_main, w);

    w->is_started = rc == 0;
    if (rc != 0) {
        snprintf(err, err_len, "brink: engine: cannot start worker thread: %s", msg_errno(rc).text);
        return -rc;
    }
    return 0;
}

void engine__worker_join(struct worker *w)
{
    pthread_join(w->thread, NULL);
}

void engine__worker_free(struct worker *w)
{
    const struct transport_ops *tp[2];
    size_t n_tp;
    int rc;

    if (!w)
        return;
    n_tp = engine__transports(w->e, tp);
    if (!w->has_run) {
        /* Its loop never ran: close its handles here, on this thread. */
        close_transports(w);
        close_own_handles(w);
        uv_run(&w->view.loop, UV_RUN_DEFAULT);
    }
    for (uint32_t i = 0; i < w->n_slots; i++)
        engine__slot_free(w->slots[i]);
    free(w->slots);
    engine__scene_worker_free(w);
    for (size_t i = 0; i < n_tp; i++)
        tp[i]->fini(&w->view);
    engine__interval_free(&w->iv);
    free(w->sigv4_out);
    rc = uv_loop_close(&w->view.loop);
    /* Every handle was closed in on_teardown; a busy loop here is a leak. */
    if (rc != 0)
        fprintf(stderr, "brink: engine: worker %u loop still busy at exit: %s\n", w->view.id,
                msg_errno(-rc).text);
    free(w);
}
