/*
 * The summary: a run's totals, added up tick by tick, and the calls every
 * format of the report reads them through. Computes, never prints.
 */
#include "report/summary.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errclass.h"
#include "core/hist.h"
#include "core/tick.h"
#include "core/xalloc.h"
#include "report/internal.h"

#define SUMMARY_MAX_EVENTS 100 /* events kept for the report; the rest are only counted */
#define SUMMARY_MAX_STATUS 64  /* distinct HTTP codes kept; the rest go to status_other */
#define SUMMARY_MAX_SPANS 8    /* spans of partial ticks kept */

/* summary.h spells out the sizes of struct tick's names it copies. */
_Static_assert(sizeof(((struct summary_run *)0)->transport) ==
                   sizeof(((struct tick *)0)->transport),
               "summary_run.transport is tick.transport's size");
_Static_assert(sizeof(((struct summary_run *)0)->http_version) ==
                   sizeof(((struct tick *)0)->http_version),
               "summary_run.http_version is tick.http_version's size");

/* One request kind's totals over the run, or those of all kinds (summary.total). */
struct kind_totals {
    char name[TICK_NAME_MAX];
    uint64_t completed;
    uint64_t bytes_in;
    uint64_t bytes_out;
    uint64_t errors[ERR__COUNT];
    uint64_t timed;     /* requests its histogram should cover: successes, or failures */
    uint64_t hist_gaps; /* interval histograms that were damaged or missing */
    struct hist *hist;  /* the interval histograms merged */
};

struct summary {
    uint64_t n_ticks;
    uint64_t duration_us;   /* sum of the ticks' durations */
    struct summary_run run; /* the load, and what could not be counted */
    uint64_t connections_opened;
    uint32_t max_connections; /* the most open at a tick's end */
    uint64_t resent[RESEND__COUNT];
    struct kind_totals total;
    struct kind_totals service;  /* open model: service times (actual start to end) */
    struct kind_totals failed;   /* the latency of failed requests, all kinds */
    struct kind_totals send_lag; /* open model: intended start to send, brink's own delay */
    struct summary_schedule sched;
    struct hist *phases[PHASE__COUNT]; /* where the time went, merged */
    uint64_t phase_gaps;               /* phase histograms damaged */
    uint32_t n_kinds;
    struct kind_totals kinds[TICK_MAX_KINDS];
    char first_error[ERR__COUNT][TICK_TEXT_MAX];
    uint32_t n_status;
    struct tick_status status[SUMMARY_MAX_STATUS]; /* sorted by code */
    uint64_t status_other;
    uint32_t n_events;
    struct tick_event events[SUMMARY_MAX_EVENTS];
    uint64_t events_more; /* events not kept: past the table, or dropped by a tick */
    uint32_t n_probes;
    struct summary_probe probes[TICK_MAX_PROBES];
    struct hist *scratch; /* one decoded interval histogram */
    /* A run with agents: how many, and the ticks some agent was missing
     * from, as spans of ticks (the first SUMMARY_MAX_SPANS). */
    uint32_t n_agents;
    uint64_t partial_ticks;
    uint32_t n_spans;
    struct {
        uint64_t from_us, to_us; /* the first tick's start, the last one's end */
        uint64_t last_seq;
        char lost[TICK_TEXT_MAX]; /* the agents missing at its first tick */
    } spans[SUMMARY_MAX_SPANS];
    uint64_t spans_more;
    struct report__trails trails; /* each agent's last tick, and when it was lost */
};

struct summary *summary_new(void)
{
    struct summary *s = xcalloc(1, sizeof(*s));

    tick_copy_text(s->total.name, sizeof(s->total.name), "total");
    s->total.hist = hist_new();
    tick_copy_text(s->service.name, sizeof(s->service.name), "service");
    s->service.hist = hist_new();
    tick_copy_text(s->failed.name, sizeof(s->failed.name), "failed");
    s->failed.hist = hist_new();
    tick_copy_text(s->send_lag.name, sizeof(s->send_lag.name), "send_lag");
    s->send_lag.hist = hist_new();
    for (int p = 0; p < PHASE__COUNT; p++)
        s->phases[p] = hist_new();
    s->scratch = hist_new();
    return s;
}

void summary_free(struct summary *s)
{
    if (s == NULL)
        return;
    for (uint32_t i = 0; i < s->n_kinds; i++)
        hist_free(s->kinds[i].hist);
    hist_free(s->total.hist);
    hist_free(s->service.hist);
    hist_free(s->failed.hist);
    hist_free(s->send_lag.hist);
    for (int p = 0; p < PHASE__COUNT; p++)
        hist_free(s->phases[p]);
    hist_free(s->scratch);
    free(s);
}

/* ---- adding ticks ---- */

/* The totals of the kind named name, created on first sight; NULL when the
 * table is full. */
static struct kind_totals *kind_named(struct summary *s, const char *name)
{
    uint32_t before = s->n_kinds;
    int i = tick_name_row(s->kinds, sizeof(s->kinds[0]), &s->n_kinds, TICK_MAX_KINDS, name);

    if (i < 0)
        return NULL;
    if ((uint32_t)i == before)
        s->kinds[i].hist = hist_new();
    return &s->kinds[i];
}

/* Adds the counts of k and merges its interval histogram. Returns 0, or
 * -EINVAL when the histogram is damaged (the counts are added anyway). */
/* Adds k, whose histogram times `timed` of its requests (its successes, or
 * for tick.failed and tick.service all it counts), to acc. */
static int add_kind(struct kind_totals *acc, const struct tick *t, const struct tick_kind *k,
                    uint64_t timed, struct hist *scratch)
{
    int rc;

    acc->timed += timed;
    acc->completed += k->completed;
    acc->bytes_in += k->bytes_in;
    acc->bytes_out += k->bytes_out;
    errclass_add(acc->errors, k->errors);
    rc = tick_get_hist(t, k, scratch);
    if (rc == 0) {
        hist_merge(acc->hist, scratch);
        return 0;
    }
    /* An interval without requests to time may carry no histogram at all. */
    if (rc == -ENOENT && timed == 0 && k->window.count == 0)
        return 0;
    acc->hist_gaps++;
    return rc == -EINVAL ? -EINVAL : 0;
}

static void add_status(struct summary *s, uint16_t code, uint64_t n)
{
    uint32_t i = 0;

    while (i < s->n_status && s->status[i].code < code)
        i++;
    if (i < s->n_status && s->status[i].code == code) {
        s->status[i].count += n;
        return;
    }
    if (s->n_status == SUMMARY_MAX_STATUS) {
        s->status_other += n;
        return;
    }
    memmove(&s->status[i + 1], &s->status[i], (s->n_status - i) * sizeof(s->status[0]));
    s->status[i].code = code;
    s->status[i].count = n;
    s->n_status++;
}

static void add_events(struct summary *s, const struct tick *t)
{
    uint32_t n = t->n_events;

    for (uint32_t i = 0; i < n; i++) {
        struct tick_event *e;

        if (s->n_events == SUMMARY_MAX_EVENTS) {
            s->events_more++;
            continue;
        }
        e = &s->events[s->n_events++];
        e->at_ms = t->events[i].at_ms;
        e->kind = t->events[i].kind;
        tick_copy_text(e->text, sizeof(e->text), t->events[i].text);
    }
    s->events_more += t->events_dropped;
}

/* Concurrency is the closed model's level; an open interval's is its rate
 * and what was in flight (its concurrency fields hold no user's choice). */
static void add_run_figures(struct summary *s, const struct tick *t)
{
    int is_first_closed = !(s->run.models_seen & (1u << LOAD_CLOSED));

    if (t->model == LOAD_CLOSED) {
        if (is_first_closed || t->target_concurrency < s->run.min_target_concurrency)
            s->run.min_target_concurrency = t->target_concurrency;
        if (t->target_concurrency > s->run.max_target_concurrency)
            s->run.max_target_concurrency = t->target_concurrency;
        if (t->actual_concurrency > s->run.max_actual_concurrency)
            s->run.max_actual_concurrency = t->actual_concurrency;
    } else if (t->model == LOAD_OPEN) {
        if (t->target_rate_per_s > s->run.max_target_rate_per_s)
            s->run.max_target_rate_per_s = t->target_rate_per_s;
        if (t->in_flight > s->run.max_in_flight)
            s->run.max_in_flight = t->in_flight;
        if (t->max_in_flight > s->run.in_flight_cap)
            s->run.in_flight_cap = t->max_in_flight;
    }
    if (t->model == LOAD_CLOSED || t->model == LOAD_OPEN)
        s->run.models_seen |= 1u << t->model;
    s->n_ticks++;
    s->duration_us += t->duration_us;
    s->connections_opened += t->connections_opened;
    if (t->http_version[0])
        memcpy(s->run.http_version, t->http_version, sizeof(s->run.http_version));
    if (t->transport[0])
        memcpy(s->run.transport, t->transport, sizeof(s->run.transport));
    if (t->connections > s->max_connections)
        s->max_connections = t->connections;
    s->run.dropped += t->dropped;
    s->run.aborted += t->aborted;
    s->run.bodies_cut += t->bodies_cut;
    s->run.cookies_dropped += t->cookies_dropped;
    s->run.marks_dropped += t->marks_dropped;
    for (int c = 0; c < RESEND__COUNT; c++)
        s->resent[c] += t->resent[c];
}

/* How the open model's schedule was kept, over its ticks. */
static void add_schedule(struct summary *s, const struct tick *t)
{
    struct summary_schedule *sc = &s->sched;

    if (t->model != LOAD_OPEN)
        return;
    sc->open_ticks++;
    sc->open_us += t->duration_us;
    sc->started += t->total.started;
    sc->called += t->sched_called;
    sc->capped += t->sched_capped;
    sc->rate_us += t->target_rate_per_s * (double)t->duration_us;
    if (t->sched_lag_us > sc->max_lag_us)
        sc->max_lag_us = t->sched_lag_us;
    if (!tick_schedule_kept(t))
        sc->ticks_not_kept++;
}

static struct summary_probe *probe_named(struct summary *s, const char *name)
{
    int i = tick_name_row(s->probes, sizeof(s->probes[0]), &s->n_probes, TICK_MAX_PROBES, name);

    return i < 0 ? NULL : &s->probes[i];
}

static void add_probes(struct summary *s, const struct tick *t)
{
    uint32_t n = t->n_probes;

    for (uint32_t i = 0; i < n; i++) {
        const struct tick_probe *tp = &t->probes[i];
        struct summary_probe *p = probe_named(s, tp->name);

        if (!p)
            continue;
        if (!p->has_value && !p->failing_ticks)
            p->mark = tp->mark;
        if (tp->has_value) {
            p->sum += tp->value;
            p->passed += tp->passed;
        }
        if (tp->state == PROBE_FAILING || tp->state == PROBE_STALE) {
            p->failing_ticks++;
            tick_copy_text(p->last_error, sizeof(p->last_error), tp->error);
        }
        if (!tp->has_value)
            continue;
        if (!p->has_value || tp->value > p->max)
            p->max = tp->value;
        p->last = tp->value;
        p->has_value = 1;
    }
}

/* Merges the phases' interval histograms; returns -EINVAL when one is
 * damaged. */
static int add_phases(struct summary *s, const struct tick *t)
{
    int rc = 0;

    for (int p = 0; p < PHASE__COUNT; p++) {
        int got;

        if (t->phases[p].hist_len == 0)
            continue;
        got = tick_get_phase_hist(t, (enum tick_phase)p, s->scratch);
        if (got == 0) {
            hist_merge(s->phases[p], s->scratch);
        } else {
            s->phase_gaps++;
            rc = -EINVAL;
        }
    }
    return rc;
}

/* A merged tick that missed an agent's: the partial spans. */
static void add_partial(struct summary *s, const struct tick *t)
{
    size_t used = 0;

    if (t->n_agents > s->n_agents)
        s->n_agents = t->n_agents;
    if (t->n_agents)
        report__trails_add(&s->trails, t);
    if (!tick_is_partial(t))
        return;
    s->partial_ticks++;
    if (s->n_spans && s->spans[s->n_spans - 1].last_seq + 1 == t->seq) {
        s->spans[s->n_spans - 1].last_seq = t->seq;
        s->spans[s->n_spans - 1].to_us = t->start_us + t->duration_us;
        return;
    }
    if (s->n_spans == SUMMARY_MAX_SPANS) {
        s->spans_more++;
        return;
    }
    s->spans[s->n_spans].from_us = t->start_us;
    s->spans[s->n_spans].to_us = t->start_us + t->duration_us;
    s->spans[s->n_spans].last_seq = t->seq;
    s->spans[s->n_spans].lost[0] = '\0';
    for (uint32_t i = 0; i < t->n_agents; i++) {
        if (!t->agents[i].is_in && used + 2 < sizeof(s->spans[0].lost))
            used +=
                (size_t)snprintf(s->spans[s->n_spans].lost + used, sizeof(s->spans[0].lost) - used,
                                 "%s%s", used ? ", " : "", t->agents[i].name);
        if (used >= sizeof(s->spans[0].lost))
            used = sizeof(s->spans[0].lost) - 1;
    }
    s->n_spans++;
}

int summary_add_tick(struct summary *s, const struct tick *t)
{
    uint32_t n_kinds = t->n_kinds;
    uint32_t n_status = t->n_status;
    int rc = add_kind(&s->total, t, &t->total, t->total.ok, s->scratch);

    if (t->service.completed &&
        add_kind(&s->service, t, &t->service, t->service.completed, s->scratch) != 0)
        rc = -EINVAL;
    if (t->failed.completed &&
        add_kind(&s->failed, t, &t->failed, t->failed.completed, s->scratch) != 0)
        rc = -EINVAL;
    if (t->send_lag.completed &&
        add_kind(&s->send_lag, t, &t->send_lag, t->send_lag.completed, s->scratch) != 0)
        rc = -EINVAL;
    add_schedule(s, t);
    add_run_figures(s, t);
    add_partial(s, t);
    if (add_phases(s, t) != 0)
        rc = -EINVAL;
    for (uint32_t i = 0; i < n_kinds; i++) {
        struct kind_totals *k = kind_named(s, t->kinds[i].name);

        if (k == NULL) {
            s->run.unmatched_completed += t->kinds[i].completed;
            continue;
        }
        if (add_kind(k, t, &t->kinds[i], t->kinds[i].ok, s->scratch) != 0)
            rc = -EINVAL;
    }
    for (int c = 0; c < ERR__COUNT; c++) {
        if (s->first_error[c][0] == '\0' && t->first_error[c][0] != '\0')
            tick_copy_text(s->first_error[c], TICK_TEXT_MAX, t->first_error[c]);
    }
    for (uint32_t i = 0; i < n_status; i++)
        add_status(s, t->status[i].code, t->status[i].count);
    s->status_other += t->status_other;
    add_events(s, t);
    add_probes(s, t);
    return rc;
}

uint32_t summary_n_agents(const struct summary *s)
{
    return s->n_agents;
}

uint64_t summary_partial_ticks(const struct summary *s)
{
    return s->partial_ticks;
}

uint32_t summary_n_lost(const struct summary *s)
{
    return report__trails_n_lost(&s->trails);
}

int summary_lost(const struct summary *s, uint32_t i, struct summary_lost *out)
{
    return report__trails_lost(&s->trails, i, out);
}

/* ---- accessors for the other formats ---- */

const struct hist *summary_phase(const struct summary *s, enum tick_phase p)
{
    return s->phases[p];
}

void summary_connections(const struct summary *s, struct summary_connections *out)
{
    out->opened = s->connections_opened;
    out->resent = s->resent;
    out->max_open = s->max_connections;
    out->phase_gaps = s->phase_gaps;
}

const struct tick_status *summary_statuses(const struct summary *s, uint32_t *n)
{
    *n = s->n_status;
    return s->status;
}

uint64_t summary_statuses_other(const struct summary *s)
{
    return s->status_other;
}

uint64_t summary_duration_us(const struct summary *s)
{
    return s->duration_us;
}

const struct summary_schedule *summary_schedule(const struct summary *s)
{
    return &s->sched;
}

uint32_t summary_n_kinds(const struct summary *s)
{
    return s->n_kinds;
}

int summary_totals(const struct summary *s, int kind, struct summary_totals *out)
{
    const struct kind_totals *k;

    if (kind == SUMMARY_TOTAL)
        k = &s->total;
    else if (kind == SUMMARY_SERVICE)
        k = &s->service;
    else if (kind == SUMMARY_FAILED)
        k = &s->failed;
    else if (kind == SUMMARY_SEND_LAG)
        k = &s->send_lag;
    else if (kind >= 0 && (uint32_t)kind < s->n_kinds)
        k = &s->kinds[kind];
    else
        return -ENOENT;
    out->name = k->name;
    out->completed = k->completed;
    out->timed = k->timed;
    out->bytes_in = k->bytes_in;
    out->bytes_out = k->bytes_out;
    out->errors = k->errors;
    out->hist_gaps = k->hist_gaps;
    out->hist = k->hist;
    return 0;
}

void summary_run(const struct summary *s, struct summary_run *out)
{
    *out = s->run;
}

const char *summary_first_error(const struct summary *s, enum errclass c)
{
    return s->first_error[c];
}

const struct tick_event *summary_events(const struct summary *s, uint32_t *n)
{
    *n = s->n_events;
    return s->events;
}

uint64_t summary_events_more(const struct summary *s)
{
    return s->events_more;
}

const struct summary_probe *summary_probe(const struct summary *s, uint32_t i)
{
    return i < s->n_probes ? &s->probes[i] : NULL;
}

int summary_span(const struct summary *s, uint32_t i, struct summary_span *out)
{
    if (i >= s->n_spans)
        return -ENOENT;
    out->from_us = s->spans[i].from_us;
    out->to_us = s->spans[i].to_us;
    out->lost = s->spans[i].lost;
    return 0;
}

uint64_t summary_spans_more(const struct summary *s)
{
    return s->spans_more;
}
