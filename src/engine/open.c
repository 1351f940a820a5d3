/*
 * The open model on one worker: requests start when its schedule says, on
 * whichever connection (slot) of its pool is idle, up to its part of
 * max_in_flight. Arrivals the cap or a busy loop holds back stay owed (a
 * count in the schedule) and go out as soon as a slot frees, each with its
 * intended start, so their latency shows the wait. Runs on the worker's
 * thread.
 */
#include <stdio.h>

#include "config/config.h"
#include "core/hist.h"
#include "engine/internal.h"
#include "engine/workload.h"

/* An idle slot under the cap: hint when it is one, else the first idle one,
 * else a new one when grow.h says so (the pool grows only as far as the
 * load needs); NULL when the arrival due at at_ns waits. */
static struct slot *idle_slot(struct worker *w, struct slot *hint, uint64_t now_ns, uint64_t at_ns)
{
    if (hint && !hint->view.is_in_flight && !hint->is_sleeping && hint->view.index < w->cap)
        return hint;
    /* Every slot busy (a burst growing the pool): no scan, which would make
     * a burst of n starts cost n * n / 2 looks. */
    for (uint32_t i = 0; w->in_flight < w->n_slots && i < w->n_slots && i < w->cap; i++) {
        if (!w->slots[i]->view.is_in_flight && !w->slots[i]->is_sleeping)
            return w->slots[i];
    }
    if (w->n_slots >= w->cap ||
        !grow_may(&w->grow, w->rate_per_s, w->n_slots, w->in_flight, now_ns, at_ns))
        return NULL;
    grow_grew(&w->grow);
    engine__slot_grow(w, w->n_slots + 1);
    return w->slots[w->n_slots - 1];
}

/* Wakes the worker at the next intended start, to the microsecond (a
 * request that still goes late is charged from its time). now_ns is when
 * the caller counted what was due: anything due then has started or
 * waits, for the cap or for a connection to free. One that waits for a
 * connection (waits_ns: when it may have a new one) is looked at again
 * then, should no reply come first. */
static void arm(struct worker *w, uint64_t now_ns, uint64_t waits_ns)
{
    uint64_t next = schedule_next_ns(&w->sched);

    if (next != SCHEDULE_NONE && next <= now_ns)
        next = waits_ns;
    if (next == SCHEDULE_NONE) {
        /* Nothing coming, or owed and waiting for the cap: a reply pumps. */
        deadline_disarm(&w->sched_deadline);
        return;
    }
    /* The engine's clock is uv_hrtime() - start_ns, and uv_hrtime reads
     * CLOCK_MONOTONIC on Linux, the timerfd's clock (test_deadline checks
     * that they agree). */
    deadline_arm(&w->sched_deadline, w->e->start_ns + next);
}

void engine__open_pump(struct worker *w, struct slot *hint)
{
    uint64_t now = engine__now_ns(w), n;
    uint64_t t0 = uv_hrtime(), waits = SCHEDULE_NONE;
    int is_capped = 0;

    if (!w->is_open || w->is_paused || w->is_stopping || w->is_done)
        return;
    n = schedule_may_start(&w->sched, now, w->in_flight, w->cap, &is_capped);
    if (is_capped)
        w->iv.sched_capped++;
    for (; n > 0; n--) {
        struct slot *s;
        uint64_t at = schedule_next_ns(&w->sched);

        if (uv_hrtime() - t0 > ENGINE_START_SLICE_NS) {
            /* Due and not started: the next pass, at once. */
            deadline_arm(&w->sched_deadline, w->e->start_ns + at);
            return;
        }
        s = idle_slot(w, hint, now, at);
        if (!s) {
            if (w->n_slots < w->cap)
                waits = grow_retry_ns(&w->grow, at);
            break;
        }
        if (engine__slot_start(s, at) != 0)
            break;
        schedule_take(&w->sched);
        w->iv.sched_taken++;
        /* The send lag ends where the service time begins (s->start_ns, just
         * before the transport got the request), so that corrected latency
         * is exactly send lag plus service time. */
        hist_record(w->iv.send_lag, (s->start_ns - s->intended_ns) / 1000);
        if (now - at > w->iv.sched_lag_us * 1000)
            w->iv.sched_lag_us = (now - at) / 1000;
        hint = NULL;
    }
    /* The same now as the count: with a later one, an arrival that came due
     * meanwhile would stop the timer although nothing is in flight to pump. */
    arm(w, now, waits);
}

/*
 * Before the worker's first request: what the transport would set up for
 * each new connection of a burst (a libcurl easy handle costs more to make
 * than its request takes to start), made now for the connections the
 * schedule's first second can open, so that a burst's requests start when
 * the schedule says. At most its part of the rate times the longest
 * timeout (a request ends by then, and its slot frees) or times one
 * second, whichever is less, and at most its part of max_in_flight: a
 * slow schedule makes little ahead, and later slots are made as before,
 * when first needed. The schedule starts after this (engine__open_apply),
 * so no request is charged for it.
 */
void engine__open_prepare(struct worker *w)
{
    struct engine *e = w->e;
    uint64_t longest_us = 0, t0, n, cap;
    struct control c;
    double ahead;
    char text[TICK_TEXT_MAX];

    if (!e->tp->prepare || e->script)
        return;
    pthread_mutex_lock(&e->lock);
    c = e->control;
    pthread_mutex_unlock(&e->lock);
    if (c.model != LOAD_OPEN || c.is_paused || c.is_stopping || !c.max_in_flight)
        return;
    for (size_t i = 0; i < workload_n_kinds(e->workload); i++) {
        if (workload_kind(e->workload, i)->timeout_us > longest_us)
            longest_us = workload_kind(e->workload, i)->timeout_us;
    }
    cap = engine__share(c.max_in_flight, e->n_workers, w->view.id);
    if (longest_us > ENGINE_PREPARE_AHEAD_US)
        longest_us = ENGINE_PREPARE_AHEAD_US;
    ahead = c.rate_per_s * (double)cap / c.max_in_flight * (double)longest_us / 1e6;
    n = ahead < (double)cap ? (uint64_t)ahead + 1 : cap;
    if (n <= w->n_slots)
        return;
    t0 = uv_hrtime();
    e->tp->prepare(&w->view, (uint32_t)(n - w->n_slots));
    if (uv_hrtime() - t0 >= ENGINE_PREPARE_NOTE_NS) {
        snprintf(text, sizeof(text),
                 "set up %llu connections' handles in %llu ms before the first request (worker %u)",
                 (unsigned long long)(n - w->n_slots),
                 (unsigned long long)((uv_hrtime() - t0) / 1000000), w->view.id);
        engine__merger_event(e->merger, EV_NOTICE, engine__now_ns(w), text);
    }
}

void engine__open_apply(struct worker *w, const struct control *c, int was_paused)
{
    struct engine *e = w->e;
    uint64_t now = engine__now_ns(w);
    int is_open = c->model == LOAD_OPEN;
    double rate;

    w->cap = (uint32_t)engine__share(c->max_in_flight, e->n_workers, w->view.id);
    /* The rate follows the cap's split, so a worker without a slot gets no
     * arrivals it could never send. */
    rate = c->max_in_flight ? c->rate_per_s * w->cap / c->max_in_flight : 0;
    if (c->is_paused || c->is_stopping)
        rate = 0;
    if (is_open && (!w->is_open || was_paused != c->is_paused)) {
        /* A new start: what would be owed over a pause, or was under the
         * closed model, is not a stall of the server. */
        schedule_start(&w->sched, rate, now);
        w->owed_at_start = 0;
    } else if (is_open && rate != w->rate_per_s) {
        schedule_set_rate(&w->sched, rate, now);
    }
    if (!is_open)
        deadline_disarm(&w->sched_deadline);
    w->is_open = is_open;
    w->rate_per_s = rate;
}

void engine__open_interval_end(struct worker *w, uint64_t now_ns)
{
    struct interval *iv = &w->iv;
    uint64_t owed, lag;

    if (!w->is_open)
        return;
    owed = schedule_due(&w->sched, now_ns);
    lag = schedule_lag_ns(&w->sched, now_ns) / 1000;
    iv->sched_backlog = owed;
    /* Called for = started + now owed - owed before: every due request is
     * either started or still owed. A restart (pause) can drop what was
     * owed, hence the floor. */
    iv->sched_called =
        iv->sched_taken + owed > w->owed_at_start ? iv->sched_taken + owed - w->owed_at_start : 0;
    if (lag > iv->sched_lag_us)
        iv->sched_lag_us = lag;
    w->owed_at_start = owed;
}
