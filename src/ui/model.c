/*
 * The console's model: the latest tick plus fixed-size histories (throughput
 * points for the chart, the event log, probe samples) and run totals. Built
 * from ticks alone, so a live run and a replay look the same. Pure.
 */
#include "ui/internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/errclass.h"
#include "core/steps.h"
#include "core/xalloc.h"

struct model *ui__model_new(void)
{
    struct model *m = xcalloc(1, sizeof(struct model));

    m->steps = steps_new();
    return m;
}

void ui__model_free(struct model *m)
{
    if (!m)
        return;
    tick_free(m->last);
    steps_free(m->steps);
    free(m);
}

static unsigned marks_of(const struct model *m, const struct tick *t)
{
    unsigned marks = 0;

    if (m->last && (m->last->target_concurrency != t->target_concurrency ||
                    m->last->target_rate_per_s != t->target_rate_per_s))
        marks |= MARK_CONCURRENCY;
    for (uint32_t i = 0; i < t->n_events && i < TICK_MAX_EVENTS; i++) {
        switch (t->events[i].kind) {
        case EV_MARK:
        case EV_ALERT:
        case EV_DETECTION: marks |= MARK_EVENT; break;
        case EV_FIRST_ERROR: marks |= MARK_ERROR; break;
        default: break;
        }
    }
    return marks;
}

static void add_point(struct model *m, const struct tick *t)
{
    struct ui__model_point *p = &m->points[m->head];

    p->req_per_s = tick_per_s(t->total.completed, t->duration_us);
    p->ok_per_s = tick_per_s(t->total.ok, t->duration_us);
    p->bytes_per_s = tick_per_s(t->total.bytes_in, t->duration_us);
    p->err_per_s = tick_per_s(errclass_sum(t->total.errors), t->duration_us);
    p->p99_us = t->total.window.count ? t->total.window.pct_us[2] : 0;
    p->target_concurrency = t->target_concurrency;
    p->marks = marks_of(m, t);
    m->head = (m->head + 1) % MODEL_HISTORY;
    if (m->n_points < MODEL_HISTORY)
        m->n_points++;
    if (p->req_per_s > m->peak_req_per_s)
        m->peak_req_per_s = p->req_per_s;
}

static void add_totals(struct model *m, const struct tick *t)
{
    m->completed += t->total.completed;
    m->ok += t->total.ok;
    m->bytes_in += t->total.bytes_in;
    errclass_add(m->errors, t->total.errors);
    for (int c = 0; c < RESEND__COUNT; c++)
        m->resent[c] += t->resent[c];
    for (int c = 0; c < ERR__COUNT; c++) {
        if (t->first_error[c][0])
            tick_copy_text(m->latest_error[c], TICK_TEXT_MAX, t->first_error[c]);
    }
    for (uint32_t i = 0; i < t->n_status && i < TICK_MAX_STATUS; i++)
        tick_status_add(m->status, &m->n_status, &m->status_other, t->status[i].code,
                        t->status[i].count);
    m->status_other += t->status_other;
}

static void add_events(struct model *m, const struct tick *t)
{
    for (uint32_t i = 0; i < t->n_events && i < TICK_MAX_EVENTS; i++) {
        struct ui__model_event *e = &m->events[m->events_head];

        e->at_ms = t->events[i].at_ms;
        e->kind = t->events[i].kind;
        tick_copy_text(e->text, sizeof(e->text), t->events[i].text);
        m->events_head = (m->events_head + 1) % MODEL_EVENTS;
        if (m->n_events < MODEL_EVENTS)
            m->n_events++;
    }
    m->events_lost += t->events_dropped;
}

/* Probes are matched by name, so a probe keeps its history if the order of
 * the tick's table changes; a name not seen before takes a free row. */
static struct model_probe *probe_row(struct model *m, const char *name)
{
    int i = tick_name_row(m->probes, sizeof(m->probes[0]), &m->n_probes, TICK_MAX_PROBES, name);

    return i < 0 ? NULL : &m->probes[i];
}

static void add_probes(struct model *m, const struct tick *t)
{
    for (uint32_t i = 0; i < t->n_probes && i < TICK_MAX_PROBES; i++) {
        const struct tick_probe *tp = &t->probes[i];
        struct model_probe *p = probe_row(m, tp->name);

        if (!p)
            continue;
        p->state = tp->state;
        p->alerting = tp->alerting;
        tick_copy_text(p->error, sizeof(p->error), tp->error);
        if (!tp->has_value)
            continue;
        p->has_change = p->has_value;
        p->change = p->has_value ? tp->value - p->value : 0.0;
        p->has_value = 1;
        p->value = tp->value;
        p->history[p->head] = tp->value;
        p->head = (p->head + 1) % MODEL_PROBE_HISTORY;
        if (p->n_history < MODEL_PROBE_HISTORY)
            p->n_history++;
    }
}

void ui__model_add_tick(struct model *m, const struct tick *t)
{
    add_point(m, t);
    add_totals(m, t);
    add_events(m, t);
    add_probes(m, t);
    /* A damaged histogram only leaves latency out of its row. */
    (void)steps_add_tick(m->steps, t);
    if (!m->last)
        m->last = tick_new(0);
    /* The histograms stay behind: the views need only the figures. */
    memcpy(m->last, t, offsetof(struct tick, data_cap));
    m->ticks++;
}

const struct ui__model_point *ui__model_point(const struct model *m, unsigned i)
{
    return &m->points[(m->head + MODEL_HISTORY - 1 - i) % MODEL_HISTORY];
}

const struct ui__model_event *ui__model_event(const struct model *m, unsigned i)
{
    return &m->events[(m->events_head + MODEL_EVENTS - 1 - i) % MODEL_EVENTS];
}

double ui__model_probe_sample(const struct model_probe *p, unsigned i)
{
    return p->history[(p->head + MODEL_PROBE_HISTORY - 1 - i) % MODEL_PROBE_HISTORY];
}

unsigned ui__model_columns(const struct model *m, unsigned w, unsigned *per_column)
{
    static const unsigned steps[] = {1, 2, 5, 10, 15, 20, 30};
    unsigned k = steps[0], first, last;

    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        k = steps[i];
        /* +1: the oldest and newest columns may both be partial. */
        if (m->n_points / k + 1 <= w)
            break;
    }
    *per_column = k;
    if (!m->n_points || !w)
        return 0;
    last = (unsigned)((m->ticks - 1) / k);
    first = (unsigned)((m->ticks - m->n_points) / k);
    return last - first + 1 < w ? last - first + 1 : w;
}

void ui__model_column(const struct model *m, unsigned k, unsigned c, struct ui__model_point *out)
{
    uint64_t newest = m->ticks - 1, oldest = m->ticks - m->n_points;
    uint64_t bucket = newest / k - c, from = bucket * k, to = from + k - 1;
    unsigned n = 0;

    memset(out, 0, sizeof(*out));
    if (from < oldest)
        from = oldest;
    if (to > newest)
        to = newest;
    for (uint64_t idx = to + 1; idx-- > from;) {
        const struct ui__model_point *p = ui__model_point(m, (unsigned)(newest - idx));

        if (!n)
            out->target_concurrency = p->target_concurrency;
        out->req_per_s += p->req_per_s;
        out->ok_per_s += p->ok_per_s;
        out->bytes_per_s += p->bytes_per_s;
        out->err_per_s += p->err_per_s;
        if (p->p99_us > out->p99_us)
            out->p99_us = p->p99_us;
        out->marks |= p->marks;
        n++;
    }
    if (n) {
        out->req_per_s /= n;
        out->ok_per_s /= n;
        out->bytes_per_s /= n;
        out->err_per_s /= n;
    }
}
