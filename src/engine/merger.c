/*
 * The merger: every worker hands in its interval k; once every worker that
 * is still running has handed in k (or moved past it), tick k is built and
 * published. Workers call in from their own threads, so everything here is
 * under one mutex; the work done under it is a few histogram merges a tick.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/board.h"
#include "core/chan.h"
#include "core/errclass.h"
#include "core/hist.h"
#include "core/xalloc.h"
#include "engine/internal.h"
#include "engine/workload.h"

#define PENDING_MAX 4 /* intervals in progress at once; workers are never far apart */
#define EVENTS_MAX 64 /* events waiting for the next tick */

struct pending {
    int is_used;
    uint64_t seq;
    struct interval acc;
};

struct merger {
    pthread_mutex_t lock;
    struct chan *chan;
    const struct workload *wl;
    size_t n_kinds;
    const struct kind_names *names; /* a scenario run's kinds, else NULL */
    uint32_t n_workers;
    uint64_t tick_ns;
    uint64_t *next_seq; /* per worker: the first interval it has not handed in */
    uint64_t next_tick; /* the seq after the last tick published */
    int *is_done;       /* per worker: handed in its last interval */
    uint32_t n_done;
    struct pending pending[PENDING_MAX];
    struct hist *run_total;
    struct hist *run_service;
    struct hist *run_failed;
    struct hist *run_send_lag;
    struct hist *run_phases[PHASE__COUNT];
    struct hist **run_kinds;
    uint64_t run_errors[ERR__COUNT];
    struct tick_event events[EVENTS_MAX];
    uint32_t n_events;
    uint32_t events_dropped;
    enum run_state state;
    uint32_t target;
    enum load_model model;
    double rate_per_s;
    uint32_t max_in_flight;
    double last_rate_per_s; /* completions per second in the last tick */
    uint32_t fds_limit;
    const char *transport; /* "curl" or "h1" */
    struct board *board;   /* NULL: no probes */
    void (*observer)(void *arg, struct tick *t);
    void *observer_arg;
    uint64_t last_end_ns;    /* where the last published tick ended */
    uint64_t last_end_us;    /* the same in whole µs, so durations add up exactly */
    uint64_t stop_ns;        /* when the run's stop began; 0: not yet */
    struct tick_bound bound; /* the run's end, and its requests completed so far */
    int is_closed;
    const char *http_version; /* static: of the latest replies, NULL: none yet */
};

struct merger *engine__merger_new(uint32_t n_workers, const struct workload *wl,
                                  const struct kind_names *names, struct chan *ch, uint64_t tick_ns)
{
    struct merger *m = xcalloc(1, sizeof(*m));

    pthread_mutex_init(&m->lock, NULL);
    m->chan = ch;
    m->wl = wl;
    m->names = names;
    m->n_kinds = names ? TICK_MAX_KINDS : workload_n_kinds(wl);
    m->n_workers = n_workers;
    m->tick_ns = tick_ns;
    m->next_seq = xcalloc(n_workers, sizeof(*m->next_seq));
    m->is_done = xcalloc(n_workers, sizeof(*m->is_done));
    m->run_total = hist_new();
    m->run_service = hist_new();
    m->run_failed = hist_new();
    m->run_send_lag = hist_new();
    for (int p = 0; p < PHASE__COUNT; p++)
        m->run_phases[p] = hist_new();
    m->run_kinds = xcalloc(m->n_kinds, sizeof(*m->run_kinds));
    for (size_t i = 0; i < m->n_kinds; i++)
        m->run_kinds[i] = hist_new();
    m->state = RUN_RUNNING;
    return m;
}

void engine__merger_free(struct merger *m)
{
    if (!m)
        return;
    for (int i = 0; i < PENDING_MAX; i++)
        engine__interval_free(&m->pending[i].acc);
    for (size_t i = 0; i < m->n_kinds; i++)
        hist_free(m->run_kinds[i]);
    free(m->run_kinds);
    hist_free(m->run_total);
    hist_free(m->run_service);
    hist_free(m->run_failed);
    hist_free(m->run_send_lag);
    for (int p = 0; p < PHASE__COUNT; p++)
        hist_free(m->run_phases[p]);
    free(m->next_seq);
    free(m->is_done);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

void engine__merger_set_fds_limit(struct merger *m, uint32_t limit)
{
    m->fds_limit = limit;
}

void engine__merger_set_transport(struct merger *m, const char *name)
{
    m->transport = name;
}

void engine__merger_set_board(struct merger *m, struct board *b)
{
    m->board = b;
}

void engine__merger_set_bound(struct merger *m, uint64_t end_us, uint64_t requests)
{
    m->bound.end_us = end_us;
    m->bound.requests = requests;
}

void engine__merger_set_observer(struct merger *m, void (*fn)(void *arg, struct tick *t), void *arg)
{
    m->observer = fn;
    m->observer_arg = arg;
}

static void add_event(struct merger *m, enum event_kind kind, uint64_t at_ns, const char *text)
{
    struct tick_event *e;

    if (m->n_events == EVENTS_MAX) {
        m->events_dropped++;
        return;
    }
    /* Waiting events stay in time order: a first error is added when its
     * tick is built, after commands that came later than it. */
    e = &m->events[m->n_events];
    while (e > m->events && e[-1].at_ms > at_ns / 1000000) {
        e[0] = e[-1];
        e--;
    }
    m->n_events++;
    e->at_ms = at_ns / 1000000;
    e->kind = kind;
    tick_copy_text(e->text, sizeof(e->text), text);
}

void engine__merger_event(struct merger *m, enum event_kind kind, uint64_t at_ns, const char *text)
{
    pthread_mutex_lock(&m->lock);
    add_event(m, kind, at_ns, text);
    pthread_mutex_unlock(&m->lock);
}

void engine__merger_set_state(struct merger *m, enum run_state state, uint32_t target)
{
    pthread_mutex_lock(&m->lock);
    m->state = state;
    m->target = target;
    pthread_mutex_unlock(&m->lock);
}

void engine__merger_set_stop(struct merger *m, uint64_t at_ns)
{
    pthread_mutex_lock(&m->lock);
    if (m->stop_ns == 0)
        m->stop_ns = at_ns ? at_ns : 1;
    pthread_mutex_unlock(&m->lock);
}

void engine__merger_set_load(struct merger *m, enum load_model model, double rate_per_s,
                             uint32_t max_in_flight)
{
    pthread_mutex_lock(&m->lock);
    m->model = model;
    m->rate_per_s = rate_per_s;
    m->max_in_flight = max_in_flight;
    pthread_mutex_unlock(&m->lock);
}

double engine__merger_last_rate(struct merger *m)
{
    double r;

    pthread_mutex_lock(&m->lock);
    r = m->last_rate_per_s;
    pthread_mutex_unlock(&m->lock);
    return r;
}

/* The open model's send lags: every request started from the schedule has
 * one, so started and completed are both its count. */
static void fill_send_lag(struct merger *m, struct tick *t, const struct interval *iv)
{
    struct tick_kind *k = &t->send_lag;

    hist_merge(m->run_send_lag, iv->send_lag);
    k->started = k->completed = hist_count(iv->send_lag);
    tick_latency_from_hist(&k->window, iv->send_lag);
    tick_latency_from_hist(&k->run, m->run_send_lag);
    if (k->completed)
        tick_put_hist(t, k, iv->send_lag);
}

/* The open model's figures: service times and how the schedule was kept.
 * A closed interval has none, unless requests started open were still
 * finishing after a switch. */
static void fill_open(struct merger *m, struct tick *t, const struct interval *iv)
{
    struct tick_kind *k = &t->service;

    if (m->model == LOAD_OPEN) {
        t->target_rate_per_s = m->rate_per_s;
        t->max_in_flight = m->max_in_flight;
    }
    t->sched_called = iv->sched_called;
    t->sched_backlog = iv->sched_backlog;
    t->sched_lag_us = iv->sched_lag_us;
    t->sched_capped = iv->sched_capped;
    hist_merge(m->run_service, iv->service);
    k->started = iv->sched_taken;
    k->completed = iv->service_completed;
    tick_latency_from_hist(&k->window, iv->service);
    tick_latency_from_hist(&k->run, m->run_service);
    if (iv->service_completed)
        tick_put_hist(t, k, iv->service);
    fill_send_lag(m, t, iv);
}

/* The latency of failed requests, all kinds together, kept apart from the
 * successes' (struct tick.failed). */
static void fill_failed(struct merger *m, struct tick *t, const struct interval *iv)
{
    struct tick_kind *k = &t->failed;

    hist_merge(m->run_failed, iv->failed);
    k->completed = errclass_sum(iv->total.errors); /* their classes are the total's */
    tick_latency_from_hist(&k->window, iv->failed);
    tick_latency_from_hist(&k->run, m->run_failed);
    if (k->completed)
        tick_put_hist(t, k, iv->failed);
}

/* Where the time went: each phase's interval and run figures, and its
 * interval histogram when it timed anything. */
static void fill_phases(struct merger *m, struct tick *t, const struct interval *iv)
{
    for (int p = 0; p < PHASE__COUNT; p++) {
        struct tick_phase_stats *ph = &t->phases[p];

        hist_merge(m->run_phases[p], iv->phases[p]);
        tick_latency_from_hist(&ph->window, iv->phases[p]);
        tick_latency_from_hist(&ph->run, m->run_phases[p]);
        if (ph->window.count)
            tick_put_phase_hist(t, (enum tick_phase)p, iv->phases[p]);
    }
}

/* Copies the counts of s into the tick kind k and encodes its histogram. */
static void fill_kind(struct tick *t, struct tick_kind *k, const struct kind_stats *s,
                      const struct hist *run)
{
    k->started = s->started;
    k->completed = s->completed;
    k->ok = s->ok;
    k->bytes_in = s->bytes_in;
    k->bytes_out = s->bytes_out;
    memcpy(k->errors, s->errors, sizeof(k->errors));
    tick_latency_from_hist(&k->window, s->hist);
    tick_latency_from_hist(&k->run, run);
    if (s->ok)
        tick_put_hist(t, k, s->hist);
}

/* When the first error of class c in iv was seen; an interval that has the
 * count but not the time (a worker that kept no message) gives its start. */
static uint64_t first_error_ns(const struct interval *iv, int c)
{
    if (iv->first_error[c][0] && iv->first_error_ns[c] > iv->start_ns)
        return iv->first_error_ns[c];
    return iv->start_ns;
}

/* Events for the first error of each class in the run, at the time each
 * was seen. */
static void note_first_errors(struct merger *m, const struct interval *iv)
{
    char text[2 * TICK_TEXT_MAX]; /* add_event cuts it to fit */

    for (int c = 0; c < ERR__COUNT; c++) {
        if (iv->total.errors[c] == 0 || m->run_errors[c] != 0)
            continue;
        if (m->model == LOAD_OPEN)
            snprintf(text, sizeof(text), "first %s at rate %.0f/s: %s",
                     errclass_name((enum errclass)c), m->rate_per_s, iv->first_error[c]);
        else
            snprintf(text, sizeof(text), "first %s at concurrency %u: %s",
                     errclass_name((enum errclass)c), m->target, iv->first_error[c]);
        add_event(m, EV_FIRST_ERROR, first_error_ns(iv, c), text);
    }
    errclass_add(m->run_errors, iv->total.errors);
}

/* A scenario's checks and counters, after the probes, as far as room
 * allows (the script module keeps at most SCRIPT_NAMES_MAX names each). */
static void fill_marks(struct tick *t, const struct interval *iv)
{
    uint64_t at_ms = iv->end_ns / 1000000;

    for (uint32_t i = 0; i < iv->n_marks && t->n_probes < TICK_MAX_PROBES; i++) {
        const struct scene_mark *mk = &iv->marks[i];
        struct tick_probe *p = &t->probes[t->n_probes++];

        memset(p, 0, sizeof(*p));
        tick_copy_text(p->name, TICK_NAME_MAX, mk->name);
        p->state = PROBE_OK;
        p->has_value = 1;
        p->value = mk->value;
        p->sampled_ms = at_ms;
        /* A check that failed in the interval is flagged as an alert is. */
        p->alerting = mk->is_check && mk->value > 0;
        p->mark = mk->is_check   ? TICK_MARK_CHECK
                  : mk->is_gauge ? TICK_MARK_GAUGE
                                 : TICK_MARK_COUNTER;
        p->passed = mk->passed;
    }
}

/* The part of t after the run's stop began: time the load no longer held,
 * whatever state the tick is labelled with. */
static uint64_t drain_us(const struct merger *m, const struct tick *t)
{
    uint64_t stop_us = m->stop_ns / 1000, end_us = t->start_us + t->duration_us;

    if (m->stop_ns == 0 || stop_us >= end_us)
        return 0;
    return stop_us <= t->start_us ? t->duration_us : end_us - stop_us;
}

static struct tick *build(struct merger *m, struct pending *p, int is_last)
{
    const struct interval *iv = &p->acc;
    size_t cap = hist_encode(iv->total.hist, NULL, 0);
    struct tick *t;
    uint32_t n;

    for (size_t i = 0; i < m->n_kinds; i++)
        cap += hist_encode(iv->kinds[i].hist, NULL, 0);
    cap += hist_encode(iv->service, NULL, 0);
    cap += hist_encode(iv->failed, NULL, 0);
    cap += hist_encode(iv->send_lag, NULL, 0);
    for (int ph = 0; ph < PHASE__COUNT; ph++)
        cap += hist_encode(iv->phases[ph], NULL, 0);
    hist_merge(m->run_total, iv->total.hist);
    for (size_t i = 0; i < m->n_kinds; i++)
        hist_merge(m->run_kinds[i], iv->kinds[i].hist);
    note_first_errors(m, iv);

    t = tick_new(cap);
    t->seq = p->seq;
    /* Ticks follow each other without gap or overlap: one starts where the
     * last one ended, so their durations add up to the run's wall time even
     * when a late timer stretched one of them. */
    if (iv->end_ns > m->last_end_ns)
        m->last_end_ns = iv->end_ns;
    t->start_us = m->last_end_us;
    t->duration_us = m->last_end_ns / 1000 - m->last_end_us;
    m->last_end_us += t->duration_us;
    t->drain_us = drain_us(m, t);
    t->state = is_last ? RUN_DONE : m->state;
    t->model = m->model;
    tick_copy_text(t->transport, sizeof(t->transport), m->transport ? m->transport : "");
    /* Kept from tick to tick: an interval without a reply changes nothing. */
    if (iv->http_version)
        m->http_version = iv->http_version;
    tick_copy_text(t->http_version, sizeof(t->http_version),
                   m->http_version ? m->http_version : "");
    t->target_concurrency = m->target;
    t->actual_concurrency = iv->active;
    t->in_flight = iv->in_flight;
    t->connections_opened = iv->connections_opened;
    t->connections = iv->connections;
    t->dropped = iv->dropped;
    t->aborted = iv->aborted;
    t->bodies_cut = iv->bodies_cut;
    t->cookies_dropped = iv->cookies_dropped;
    t->marks_dropped = iv->marks_dropped;
    m->bound.completed += iv->total.completed;
    t->bound = m->bound;
    memcpy(t->resent, iv->resent, sizeof(t->resent));
    fill_kind(t, &t->total, &iv->total, m->run_total);
    t->n_kinds =
        m->names ? atomic_load_explicit(&m->names->n, memory_order_acquire) : (uint32_t)m->n_kinds;
    for (size_t i = 0; i < t->n_kinds; i++) {
        tick_copy_text(t->kinds[i].name, TICK_NAME_MAX,
                       m->names ? m->names->names[i] : workload_kind(m->wl, i)->name);
        fill_kind(t, &t->kinds[i], &iv->kinds[i], m->run_kinds[i]);
    }
    memcpy(t->first_error, iv->first_error, sizeof(t->first_error));
    memcpy(t->status, iv->status, sizeof(t->status));
    t->n_status = iv->n_status;
    t->status_other = iv->status_other;
    /* Events beyond one tick's table wait for the next tick, in order. */
    n = m->n_events < TICK_MAX_EVENTS ? m->n_events : TICK_MAX_EVENTS;
    memcpy(t->events, m->events, n * sizeof(*t->events));
    t->n_events = n;
    memmove(m->events, m->events + n, (m->n_events - n) * sizeof(*m->events));
    m->n_events -= n;
    t->events_dropped = m->events_dropped;
    m->events_dropped = 0;
    /* The probes' latest samples, each with the time it was taken. */
    if (m->board)
        board_fill(m->board, t);
    fill_marks(t, iv);
    t->health.loop_lag_us = iv->loop_lag_us;
    t->health.fds_used = iv->fds_used;
    t->health.fds_limit = m->fds_limit;
    fill_open(m, t, iv);
    fill_failed(m, t, iv);
    fill_phases(m, t, iv);
    assert(tick_is_bounded(t));
    if (t->duration_us)
        m->last_rate_per_s = (double)iv->total.completed * 1000.0 / (double)t->duration_us;
    if (m->observer)
        m->observer(m->observer_arg, t);
    return t;
}

/* True once no running worker can still hand in interval seq. */
static int is_complete(const struct merger *m, uint64_t seq)
{
    for (uint32_t w = 0; w < m->n_workers; w++) {
        if (!m->is_done[w] && m->next_seq[w] <= seq)
            return 0;
    }
    return 1;
}

static struct pending *oldest(struct merger *m)
{
    struct pending *best = NULL;

    for (int i = 0; i < PENDING_MAX; i++) {
        if (m->pending[i].is_used && (!best || m->pending[i].seq < best->seq))
            best = &m->pending[i];
    }
    return best;
}

static int n_pending(const struct merger *m)
{
    int n = 0;

    for (int i = 0; i < PENDING_MAX; i++)
        n += m->pending[i].is_used;
    return n;
}

/* Publishes, in order, every interval that is complete; after the last
 * worker's last interval, closes the channel. */
static void publish_ready(struct merger *m)
{
    struct pending *p;

    while ((p = oldest(m)) != NULL && is_complete(m, p->seq)) {
        int is_last = m->n_done == m->n_workers && n_pending(m) == 1;

        chan_publish(m->chan, build(m, p, is_last));
        m->next_tick = p->seq + 1;
        p->is_used = 0;
    }
    if (m->n_done == m->n_workers && !m->is_closed) {
        m->is_closed = 1;
        chan_close(m->chan);
    }
}

static struct pending *pending_for(struct merger *m, uint64_t seq)
{
    struct pending *p;

    for (int i = 0; i < PENDING_MAX; i++) {
        if (m->pending[i].is_used && m->pending[i].seq == seq)
            return &m->pending[i];
    }
    for (int i = 0; i < PENDING_MAX; i++) {
        p = &m->pending[i];
        if (p->is_used)
            continue;
        if (!p->acc.kinds)
            engine__interval_init(&p->acc, m->n_kinds);
        engine__interval_reset(&p->acc);
        p->acc.seq = seq;
        p->acc.start_ns = seq * m->tick_ns;
        p->seq = seq;
        p->is_used = 1;
        return p;
    }
    return NULL;
}

void engine__merger_submit(struct merger *m, uint32_t w, const struct interval *iv, int is_final)
{
    struct pending *p;
    uint64_t seq;

    pthread_mutex_lock(&m->lock);
    /* A worker so late that its interval's tick went out without it: its
     * counts join the next tick, so that none is lost and ticks keep their
     * order (a second tick with an old seq would go back in time). */
    seq = iv->seq < m->next_tick ? m->next_tick : iv->seq;
    while ((p = pending_for(m, seq)) == NULL) {
        /* Every slot holds an older interval a worker far behind has not
         * handed in: publish the oldest with what it has, not block. */
        struct pending *old = oldest(m);

        chan_publish(m->chan, build(m, old, 0));
        m->next_tick = old->seq + 1;
        old->is_used = 0;
    }
    engine__interval_add(&p->acc, iv);
    if (iv->seq + 1 > m->next_seq[w])
        m->next_seq[w] = iv->seq + 1;
    if (is_final && !m->is_done[w]) {
        m->is_done[w] = 1;
        m->n_done++;
    }
    publish_ready(m);
    pthread_mutex_unlock(&m->lock);
}
