#include "core/tickmerge.h"

#include <stdlib.h>
#include <string.h>

#include "core/errclass.h"
#include "core/hist.h"
#include "core/tick.h"
#include "core/xalloc.h"

/* One merged latency series: this tick's histogram and the run's. */
struct series {
    struct hist *window;
    struct hist *run;
};

/* A request kind of the merged stream, found by name (tick_name_row). */
struct kind_row {
    char name[TICK_NAME_MAX];
    struct series s;
};

struct tick_merge {
    struct tick *acc; /* the merged tick being built, without histograms */
    struct hist *scratch;
    struct series total, service, failed, send_lag;
    struct series phases[PHASE__COUNT];
    struct kind_row kinds[TICK_MAX_KINDS];
    uint32_t n_kinds;
    uint64_t kinds_dropped;
    uint64_t hist_gaps;
};

static void series_init(struct series *s)
{
    s->window = hist_new();
    s->run = hist_new();
}

static void series_free(struct series *s)
{
    hist_free(s->window);
    hist_free(s->run);
}

struct tick_merge *tick_merge_new(void)
{
    struct tick_merge *m = xcalloc(1, sizeof(*m));

    m->acc = tick_new(0);
    m->scratch = hist_new();
    series_init(&m->total);
    series_init(&m->service);
    series_init(&m->failed);
    series_init(&m->send_lag);
    for (int p = 0; p < PHASE__COUNT; p++)
        series_init(&m->phases[p]);
    return m;
}

void tick_merge_free(struct tick_merge *m)
{
    if (!m)
        return;
    tick_free(m->acc);
    hist_free(m->scratch);
    series_free(&m->total);
    series_free(&m->service);
    series_free(&m->failed);
    series_free(&m->send_lag);
    for (int p = 0; p < PHASE__COUNT; p++)
        series_free(&m->phases[p]);
    for (uint32_t i = 0; i < m->n_kinds; i++)
        series_free(&m->kinds[i].s);
    free(m);
}

uint64_t tick_merge_kinds_dropped(const struct tick_merge *m)
{
    return m->kinds_dropped;
}

uint64_t tick_merge_hist_gaps(const struct tick_merge *m)
{
    return m->hist_gaps;
}

/* Adds a source's histogram (decoded by get) to s's window; a series that
 * timed requests without a readable histogram is a gap. */
static void add_hist(struct tick_merge *m, struct series *s, int rc, uint64_t timed)
{
    if (rc == 0)
        hist_merge(s->window, m->scratch);
    else if (timed > 0)
        m->hist_gaps++;
}

/* Adds source kind k of tick t into dst and its series. */
static void add_kind(struct tick_merge *m, struct tick_kind *dst, struct series *s,
                     const struct tick *t, const struct tick_kind *k)
{
    dst->started += k->started;
    dst->completed += k->completed;
    dst->ok += k->ok;
    dst->bytes_in += k->bytes_in;
    dst->bytes_out += k->bytes_out;
    for (int c = 0; c < ERR__COUNT; c++)
        dst->errors[c] += k->errors[c];
    add_hist(m, s, tick_get_hist(t, k, m->scratch), k->window.count);
}

/* The merged figures of s: the window's, then the run's with the window in. */
static void finish_series(struct series *s, struct tick_latency *window, struct tick_latency *run)
{
    hist_merge(s->run, s->window);
    tick_latency_from_hist(window, s->window);
    tick_latency_from_hist(run, s->run);
}

static void add_kinds(struct tick_merge *m, const struct tick *t)
{
    struct tick *acc = m->acc;

    add_kind(m, &acc->total, &m->total, t, &t->total);
    add_kind(m, &acc->service, &m->service, t, &t->service);
    add_kind(m, &acc->failed, &m->failed, t, &t->failed);
    add_kind(m, &acc->send_lag, &m->send_lag, t, &t->send_lag);
    for (uint32_t i = 0; i < t->n_kinds; i++) {
        uint32_t before = m->n_kinds;
        int row = tick_name_row(m->kinds, sizeof(m->kinds[0]), &m->n_kinds, TICK_MAX_KINDS,
                                t->kinds[i].name);

        if (row < 0) {
            m->kinds_dropped++;
            continue;
        }
        if (m->n_kinds != before)
            series_init(&m->kinds[row].s);
        add_kind(m, &acc->kinds[row], &m->kinds[row].s, t, &t->kinds[i]);
    }
    for (int p = 0; p < PHASE__COUNT; p++)
        add_hist(m, &m->phases[p], tick_get_phase_hist(t, p, m->scratch),
                 t->phases[p].window.count);
}

static void add_probes(struct tick *acc, const struct tick *t)
{
    for (uint32_t i = 0; i < t->n_probes; i++) {
        const struct tick_probe *p = &t->probes[i];
        uint32_t before = acc->n_probes;
        int row = tick_name_row(acc->probes, sizeof(acc->probes[0]), &acc->n_probes,
                                TICK_MAX_PROBES, p->name);

        if (row < 0)
            continue; /* each source holds at most TICK_MAX_PROBES: only names beyond them */
        /* A script's checks and counters count in every source: they add up. */
        if (acc->n_probes == before && p->has_value && acc->probes[row].has_value &&
            (p->mark == TICK_MARK_CHECK || p->mark == TICK_MARK_COUNTER) &&
            acc->probes[row].mark == p->mark) {
            acc->probes[row].value += p->value;
            acc->probes[row].passed += p->passed;
            acc->probes[row].alerting |= p->alerting;
            continue;
        }
        if (acc->n_probes != before ||
            (p->has_value &&
             (!acc->probes[row].has_value || p->sampled_ms > acc->probes[row].sampled_ms)))
            acc->probes[row] = *p;
    }
}

/* Inserts e in time order, after the events of the same time; a full tick
 * keeps its earliest events. */
static void add_event(struct tick *acc, const struct tick_event *e)
{
    uint32_t at = acc->n_events;

    while (at > 0 && acc->events[at - 1].at_ms > e->at_ms)
        at--;
    if (acc->n_events == TICK_MAX_EVENTS) {
        acc->events_dropped++;
        if (at == TICK_MAX_EVENTS)
            return;
        acc->n_events--; /* the latest gives way */
    }
    memmove(&acc->events[at + 1], &acc->events[at], (acc->n_events - at) * sizeof(acc->events[0]));
    acc->events[at] = *e;
    acc->n_events++;
}

/* The counters and gauges of t added into acc (the first source's fields
 * are already there). */
static void add_fields(struct tick *acc, const struct tick *t)
{
    if (t->duration_us > acc->duration_us)
        acc->duration_us = t->duration_us;
    acc->is_restart |= t->is_restart;
    if (t->state < acc->state)
        acc->state = t->state;
    if (strcmp(acc->transport, t->transport) != 0)
        tick_copy_text(acc->transport, sizeof(acc->transport), "mixed");
    if (strcmp(acc->http_version, t->http_version) != 0)
        tick_copy_text(acc->http_version, sizeof(acc->http_version), "mixed");
    acc->target_concurrency += t->target_concurrency;
    acc->actual_concurrency += t->actual_concurrency;
    acc->target_rate_per_s += t->target_rate_per_s;
    acc->in_flight += t->in_flight;
    acc->connections_opened += t->connections_opened;
    acc->connections += t->connections;
    acc->dropped += t->dropped;
    acc->aborted += t->aborted;
    acc->bodies_cut += t->bodies_cut;
    acc->cookies_dropped += t->cookies_dropped;
    acc->marks_dropped += t->marks_dropped;
    /* The stop reaches the sources within a round trip: the longest drain. */
    if (t->drain_us > acc->drain_us)
        acc->drain_us = t->drain_us;
    for (int c = 0; c < RESEND__COUNT; c++)
        acc->resent[c] += t->resent[c];
    /* Each source's share of the run: the requests add up, the end is the
     * last one's. */
    if (t->bound.end_us > acc->bound.end_us)
        acc->bound.end_us = t->bound.end_us;
    acc->bound.requests += t->bound.requests;
    acc->bound.completed += t->bound.completed;
    acc->max_in_flight += t->max_in_flight;
    acc->sched_called += t->sched_called;
    acc->sched_backlog += t->sched_backlog;
    acc->sched_capped += t->sched_capped;
    if (t->sched_lag_us > acc->sched_lag_us)
        acc->sched_lag_us = t->sched_lag_us;
    if (t->health.loop_lag_us > acc->health.loop_lag_us)
        acc->health.loop_lag_us = t->health.loop_lag_us;
    acc->health.fds_used += t->health.fds_used;
    acc->health.fds_limit += t->health.fds_limit;
}

static void add_source(struct tick_merge *m, const struct tick *t, int is_first)
{
    struct tick *acc = m->acc;

    if (is_first) {
        acc->seq = t->seq;
        acc->start_us = t->start_us;
        acc->model = t->model;
        acc->plan = t->plan;
        acc->state = t->state;
        tick_copy_text(acc->transport, sizeof(acc->transport), t->transport);
        tick_copy_text(acc->http_version, sizeof(acc->http_version), t->http_version);
    }
    add_fields(acc, t);
    add_kinds(m, t);
    for (int c = 0; c < ERR__COUNT; c++) {
        if (acc->first_error[c][0] == '\0')
            memcpy(acc->first_error[c], t->first_error[c], sizeof(acc->first_error[c]));
    }
    for (uint32_t i = 0; i < t->n_status; i++)
        tick_count_status(acc, t->status[i].code, t->status[i].count);
    acc->status_other += t->status_other;
    add_probes(acc, t);
    for (uint32_t i = 0; i < t->n_events; i++)
        add_event(acc, &t->events[i]);
    acc->events_dropped += t->events_dropped;
}

/* Encoded size of h in a tick: 0 when it timed nothing (no histogram). */
static size_t hist_room(const struct hist *h)
{
    return hist_count(h) ? hist_encode(h, NULL, 0) : 0;
}

static void put_kind(struct tick *out, struct tick_kind *k, const struct hist *h)
{
    if (hist_count(h))
        (void)tick_put_hist(out, k, h); /* sized below: cannot fail */
}

struct tick *tick_merge_next(struct tick_merge *m, const struct tick *const *src, size_t n)
{
    struct tick *acc = m->acc, *out;
    size_t cap;

    memset(acc, 0, sizeof(*acc));
    tick_copy_text(acc->total.name, sizeof(acc->total.name), "total");
    tick_copy_text(acc->service.name, sizeof(acc->service.name), "service");
    tick_copy_text(acc->failed.name, sizeof(acc->failed.name), "failed");
    tick_copy_text(acc->send_lag.name, sizeof(acc->send_lag.name), "send_lag");
    hist_reset(m->total.window);
    hist_reset(m->service.window);
    hist_reset(m->failed.window);
    hist_reset(m->send_lag.window);
    for (int p = 0; p < PHASE__COUNT; p++)
        hist_reset(m->phases[p].window);
    for (uint32_t i = 0; i < m->n_kinds; i++)
        hist_reset(m->kinds[i].s.window);

    for (size_t i = 0; i < n; i++)
        add_source(m, src[i], i == 0);

    /* Every kind of the stream so far, in order of first appearance. */
    acc->n_kinds = m->n_kinds;
    cap = hist_room(m->total.window) + hist_room(m->service.window) + hist_room(m->failed.window) +
          hist_room(m->send_lag.window);
    for (uint32_t i = 0; i < m->n_kinds; i++) {
        tick_copy_text(acc->kinds[i].name, sizeof(acc->kinds[i].name), m->kinds[i].name);
        finish_series(&m->kinds[i].s, &acc->kinds[i].window, &acc->kinds[i].run);
        cap += hist_room(m->kinds[i].s.window);
    }
    finish_series(&m->total, &acc->total.window, &acc->total.run);
    finish_series(&m->service, &acc->service.window, &acc->service.run);
    finish_series(&m->failed, &acc->failed.window, &acc->failed.run);
    finish_series(&m->send_lag, &acc->send_lag.window, &acc->send_lag.run);
    for (int p = 0; p < PHASE__COUNT; p++) {
        finish_series(&m->phases[p], &acc->phases[p].window, &acc->phases[p].run);
        cap += hist_room(m->phases[p].window);
    }

    out = tick_new(cap);
    memcpy(out, acc, sizeof(*out));
    out->data_cap = cap;
    out->data_len = 0;
    put_kind(out, &out->total, m->total.window);
    put_kind(out, &out->service, m->service.window);
    put_kind(out, &out->failed, m->failed.window);
    put_kind(out, &out->send_lag, m->send_lag.window);
    for (uint32_t i = 0; i < m->n_kinds; i++)
        put_kind(out, &out->kinds[i], m->kinds[i].s.window);
    for (int p = 0; p < PHASE__COUNT; p++) {
        if (hist_count(m->phases[p].window))
            (void)tick_put_phase_hist(out, p, m->phases[p].window);
    }
    return out;
}
