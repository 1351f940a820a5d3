/*
 * A tick as the JSON object of one session line. Every field of struct tick
 * is written, except that zero counters, false flags and empty texts and
 * tables are left out (the reader reads a missing field as zero, false or
 * empty): a busy tick must stay near 2 KB. Class, state and kind values are
 * written by name.
 */
#include "record/internal.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "core/xalloc.h"

json_t *record__json_count(uint64_t v)
{
    return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* Sets key to v unless v is 0. */
static int put_nonzero(json_t *o, const char *key, uint64_t v)
{
    return v ? json_object_set_new(o, key, record__json_count(v)) : 0;
}

/* Sets key to the table a unless it is empty (a is then released). */
static int put_nonempty(json_t *o, const char *key, json_t *a)
{
    if (a && ((json_is_array(a) && json_array_size(a) == 0) ||
              (json_is_object(a) && json_object_size(a) == 0))) {
        json_decref(a);
        return 0;
    }
    return json_object_set_new(o, key, a);
}

/* NaN and infinities have no JSON form: null stands for them. */
static json_t *real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* json_object_set_new and json_array_append_new take the value even when
 * they fail, and fail on a NULL value: errors just accumulate in bad. */
static json_t *latency_json(const struct tick_latency *lat)
{
    static const struct tick_latency none;
    json_t *o = json_object(), *p = json_array();
    int bad = !o || !p;

    bad |= json_object_set_new(o, "count", record__json_count(lat->count));
    /* All zero (no request yet) is written as {"count":0}. */
    if (memcmp(lat, &none, sizeof(none)) == 0) {
        json_decref(p);
        return bad ? (json_decref(o), NULL) : o;
    }
    bad |= json_object_set_new(o, "min_us", record__json_count(lat->min_us));
    bad |= json_object_set_new(o, "max_us", record__json_count(lat->max_us));
    bad |= json_object_set_new(o, "mean_us", real_or_null(lat->mean_us));
    bad |= json_object_set_new(o, "stddev_us", real_or_null(lat->stddev_us));
    for (int i = 0; i < TICK_NPCT; i++)
        bad |= json_array_append_new(p, record__json_count(lat->pct_us[i]));
    bad |= json_object_set_new(o, "pct_us", p);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Sets "hist" to the stored form, at the precision of version, of the
 * histogram at offset, len in t's data (none when len is 0). */
static int put_hist_at(json_t *o, const struct tick *t, uint32_t offset, uint32_t len,
                       unsigned char version)
{
    struct hist *h;
    char *text;
    int rc;

    if (len == 0)
        return 0;
    h = hist_new();
    rc = (size_t)offset + len <= t->data_len ? hist_decode(h, t->data + offset, len) : -EINVAL;
    /* A damaged histogram in a tick is left out rather than losing the line. */
    if (rc != 0) {
        hist_free(h);
        return 0;
    }
    text = record__hist_pack(h, version);
    hist_free(h);
    rc = json_object_set_new(o, "hist", json_string(text));
    free(text);
    return rc;
}

static int put_hist(json_t *o, const struct tick *t, const struct tick_kind *k)
{
    return put_hist_at(o, t, k->hist_offset, k->hist_len, RECH_VERSION);
}

/*
 * Where the time went: {"ttfb":{"run":{...},"hist":"..."},...}, only the
 * phases that timed something in the interval. The interval's figures come
 * back from the histogram; the run's are written with it, and a reader
 * carries them over the ticks that have none (record_read_next), so a
 * keep-alive run does not repeat its connects' figures every tick.
 */
static json_t *phases_json(const struct tick *t)
{
    json_t *a = json_object();
    int bad = !a;

    for (int p = 0; p < PHASE__COUNT; p++) {
        const struct tick_phase_stats *ph = &t->phases[p];
        json_t *o;

        if (ph->window.count == 0 || ph->hist_len == 0)
            continue;
        o = json_object();
        bad |= !o;
        bad |= json_object_set_new(o, "run", latency_json(&ph->run));
        bad |= put_hist_at(o, t, ph->hist_offset, ph->hist_len, RECH_VERSION_COARSE);
        bad |= json_object_set_new(a, tick_phase_name((enum tick_phase)p), o);
    }
    return bad ? (json_decref(a), NULL) : a;
}

/* How a kind's histogram is stored. */
enum hist_form {
    HIST_OWN,      /* "hist": its own */
    HIST_IS_TOTAL, /* "hist_is_total": a kind's that equals the total's */
    HIST_IS_MERGE, /* "hist_is_merge": the total's, the sum of the kinds' */
};

static json_t *kind_json(const struct tick *t, const struct tick_kind *k, enum hist_form form)
{
    json_t *o = json_object(), *e = json_object();
    int bad = !o || !e;

    bad |= json_object_set_new(o, "name", json_string(k->name));
    bad |= json_object_set_new(o, "started", record__json_count(k->started));
    bad |= json_object_set_new(o, "completed", record__json_count(k->completed));
    bad |= json_object_set_new(o, "ok", record__json_count(k->ok));
    bad |= json_object_set_new(o, "bytes_in", record__json_count(k->bytes_in));
    bad |= json_object_set_new(o, "bytes_out", record__json_count(k->bytes_out));
    for (int c = 0; c < ERR__COUNT; c++) {
        if (k->errors[c] > 0)
            bad |= json_object_set_new(e, errclass_name(c), record__json_count(k->errors[c]));
    }
    bad |= put_nonempty(o, "errors", e);
    bad |= json_object_set_new(o, "window", latency_json(&k->window));
    bad |= json_object_set_new(o, "run", latency_json(&k->run));
    if (form == HIST_IS_TOTAL)
        bad |= json_object_set_new(o, "hist_is_total", json_true());
    else if (form == HIST_IS_MERGE)
        bad |= json_object_set_new(o, "hist_is_merge", json_true());
    else
        bad |= put_hist(o, t, k);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* A kind's histogram equal to the total's (always so with one kind) is
 * stored once, in the total: per-kind histograms cost space only when there
 * are several kinds. */
static int same_hist_as_total(const struct tick *t, const struct tick_kind *k)
{
    const struct tick_kind *a = &t->total;

    return k->hist_len > 0 && k->hist_len == a->hist_len &&
           (size_t)k->hist_offset + k->hist_len <= t->data_len &&
           (size_t)a->hist_offset + a->hist_len <= t->data_len &&
           memcmp(t->data + k->hist_offset, t->data + a->hist_offset, k->hist_len) == 0;
}

/*
 * With several kinds, the total's histogram is usually the sum of theirs:
 * the reader rebuilds it, at the cost of a merge here, instead of the file
 * storing the same values twice.
 */
static int total_is_merge(const struct tick *t)
{
    struct hist *sum, *one;
    unsigned char *buf;
    size_t len;
    int is_merge = t->n_kinds >= 2 && t->n_kinds <= TICK_MAX_KINDS && t->total.hist_len > 0;

    if (!is_merge)
        return 0;
    sum = hist_new();
    one = hist_new();
    for (uint32_t i = 0; i < t->n_kinds && is_merge; i++) {
        const struct tick_kind *k = &t->kinds[i];

        if (k->hist_len == 0)
            continue;
        is_merge = !same_hist_as_total(t, k) && tick_get_hist(t, k, one) == 0;
        hist_merge(sum, one);
    }
    len = hist_encode(sum, NULL, 0);
    if (is_merge && len == t->total.hist_len) {
        buf = xmalloc(len);
        hist_encode(sum, buf, len);
        is_merge = memcmp(buf, t->data + t->total.hist_offset, len) == 0;
        free(buf);
    } else {
        is_merge = 0;
    }
    hist_free(one);
    hist_free(sum);
    return is_merge;
}

/* The latency of failed requests: their count and histogram only, to keep
 * a tick small (their classes are the total's; the reader takes the
 * interval's figures from the histogram; the run's are not kept). */
static json_t *failed_json(const struct tick *t)
{
    json_t *o = json_object();
    int bad = !o;

    bad |= json_object_set_new(o, "completed", record__json_count(t->failed.completed));
    bad |= put_hist(o, t, &t->failed);
    return bad ? (json_decref(o), NULL) : o;
}

static json_t *kinds_json(const struct tick *t)
{
    json_t *a = json_array();
    uint32_t n = t->n_kinds;
    int bad = !a;

    for (uint32_t i = 0; i < n; i++) {
        const struct tick_kind *k = &t->kinds[i];

        bad |= json_array_append_new(
            a, kind_json(t, k, same_hist_as_total(t, k) ? HIST_IS_TOTAL : HIST_OWN));
    }
    return bad ? (json_decref(a), NULL) : a;
}

static json_t *status_json(const struct tick *t)
{
    json_t *a = json_array();
    uint32_t n = t->n_status;
    int bad = !a;

    for (uint32_t i = 0; i < n; i++) {
        json_t *row = json_array();

        bad |= !row;
        bad |= json_array_append_new(row, json_integer(t->status[i].code));
        bad |= json_array_append_new(row, record__json_count(t->status[i].count));
        bad |= json_array_append_new(a, row);
    }
    return bad ? (json_decref(a), NULL) : a;
}

static json_t *probe_json(const struct tick_probe *p)
{
    json_t *o = json_object();
    int bad = !o;

    bad |= json_object_set_new(o, "name", json_string(p->name));
    bad |= json_object_set_new(o, "state", json_string(probe_state_name(p->state)));
    if (p->has_value)
        bad |= json_object_set_new(o, "value", real_or_null(p->value));
    bad |= json_object_set_new(o, "sampled_ms", record__json_count(p->sampled_ms));
    if (p->alerting)
        bad |= json_object_set_new(o, "alerting", json_true());
    if (p->error[0])
        bad |= json_object_set_new(o, "error", json_string(p->error));
    if (p->mark != TICK_MARK_NONE)
        bad |= json_object_set_new(o, "mark", json_string(tick_mark_name(p->mark)));
    if (p->mark == TICK_MARK_CHECK)
        bad |= json_object_set_new(o, "passed", record__json_count(p->passed));
    return bad ? (json_decref(o), NULL) : o;
}

static json_t *probes_json(const struct tick *t)
{
    json_t *a = json_array();
    uint32_t n = t->n_probes;
    int bad = !a;

    for (uint32_t i = 0; i < n; i++)
        bad |= json_array_append_new(a, probe_json(&t->probes[i]));
    return bad ? (json_decref(a), NULL) : a;
}

static json_t *events_json(const struct tick *t)
{
    json_t *a = json_array();
    uint32_t n = t->n_events;
    int bad = !a;

    for (uint32_t i = 0; i < n; i++) {
        const struct tick_event *ev = &t->events[i];
        json_t *o = json_object();

        bad |= !o;
        bad |= json_object_set_new(o, "at_ms", record__json_count(ev->at_ms));
        bad |= json_object_set_new(o, "kind", json_string(event_kind_name(ev->kind)));
        bad |= json_object_set_new(o, "text", json_string(ev->text));
        bad |= json_array_append_new(a, o);
    }
    return bad ? (json_decref(a), NULL) : a;
}

static json_t *first_error_json(const struct tick *t)
{
    json_t *o = json_object();
    int bad = !o;

    for (int c = 0; c < ERR__COUNT; c++) {
        if (t->first_error[c][0])
            bad |= json_object_set_new(o, errclass_name(c), json_string(t->first_error[c]));
    }
    return bad ? (json_decref(o), NULL) : o;
}

static json_t *resent_json(const struct tick *t)
{
    json_t *o = json_object();
    int bad = !o;

    for (int c = 0; c < RESEND__COUNT; c++) {
        if (t->resent[c] > 0)
            bad |= json_object_set_new(o, resend_cause_name(c), record__json_count(t->resent[c]));
    }
    return bad ? (json_decref(o), NULL) : o;
}

static json_t *health_json(const struct tick_health *h)
{
    json_t *o = json_object();
    int bad = !o;

    bad |= json_object_set_new(o, "loop_lag_us", record__json_count(h->loop_lag_us));
    bad |= json_object_set_new(o, "fds_used", json_integer(h->fds_used));
    bad |= json_object_set_new(o, "fds_limit", json_integer(h->fds_limit));
    return bad ? (json_decref(o), NULL) : o;
}

/* Where the run ends, when it has an end: {"end_us":N,"requests":N,
 * "completed":N}, each absent when 0. */
static json_t *bound_json(const struct tick_bound *b)
{
    json_t *o = json_object();
    int bad = !o;

    bad |= put_nonzero(o, "end_us", b->end_us);
    bad |= put_nonzero(o, "requests", b->requests);
    bad |= put_nonzero(o, "completed", b->completed);
    return bad ? (json_decref(o), NULL) : o;
}

/* A merged tick's agents (docs/agents.md). */
static json_t *agents_json(const struct tick *t)
{
    json_t *a = json_array();
    int bad = !a;

    for (uint32_t i = 0; i < t->n_agents; i++) {
        const struct tick_agent *g = &t->agents[i];
        json_t *o = json_object();

        bad |= !o;
        bad |= json_object_set_new(o, "name", json_string(g->name));
        bad |= json_object_set_new(o, "state", json_string(g->is_lost ? "lost" : "ok"));
        if (g->is_in)
            bad |= json_object_set_new(o, "in", json_true());
        bad |= put_nonzero(o, "completed", g->completed);
        bad |= put_nonzero(o, "errors", g->errors);
        bad |= put_nonzero(o, "loop_lag_us", g->loop_lag_us);
        bad |= json_object_set_new(o, "offset_us", json_integer(g->offset_us));
        bad |= put_nonzero(o, "in_flight", g->in_flight);
        bad |= put_nonzero(o, "lost_at_us", g->lost_at_us);
        bad |= put_nonzero(o, "lost_until_us", g->lost_until_us);
        bad |= json_array_append_new(a, o);
    }
    return bad ? (json_decref(a), NULL) : a;
}

/* The ramp plan's state (written only while a plan runs or ends a step). */
static json_t *plan_json(const struct tick_plan *p)
{
    json_t *o = json_object();
    int bad = !o;

    bad |= json_object_set_new(o, "phase", json_string(plan_phase_name(p->phase)));
    bad |= json_object_set_new(o, "step", json_integer(p->step));
    bad |= json_object_set_new(o, "n_steps", json_integer(p->n_steps));
    bad |= json_object_set_new(o, "level", real_or_null(p->level));
    if (p->verdict != VERDICT_NONE)
        bad |= json_object_set_new(o, "verdict", json_string(plan_verdict_name(p->verdict)));
    if (p->why[0])
        bad |= json_object_set_new(o, "why", json_string(p->why));
    return bad ? (json_decref(o), NULL) : o;
}

/* The open model's figures, left out of closed ticks (older readers and
 * closed runs see nothing new). */
static int put_open(json_t *o, const struct tick *t)
{
    int bad = 0;

    bad |= put_nonzero(o, "max_in_flight", t->max_in_flight);
    bad |= put_nonzero(o, "sched_called", t->sched_called);
    bad |= put_nonzero(o, "sched_backlog", t->sched_backlog);
    bad |= put_nonzero(o, "sched_lag_us", t->sched_lag_us);
    bad |= put_nonzero(o, "sched_capped", t->sched_capped);
    if (t->service.completed || t->service.started || t->service.hist_len)
        bad |= json_object_set_new(o, "service", kind_json(t, &t->service, HIST_OWN));
    if (t->failed.completed || t->failed.hist_len)
        bad |= json_object_set_new(o, "failed", failed_json(t));
    if (t->send_lag.completed || t->send_lag.hist_len)
        bad |= json_object_set_new(o, "send_lag", kind_json(t, &t->send_lag, HIST_OWN));
    return bad;
}

json_t *record__tick_to_json(const struct tick *t)
{
    json_t *o = json_object();
    int bad = !o;

    assert(tick_is_bounded(t));
    bad |= json_object_set_new(o, "type", json_string(t->agent[0] ? "agent_tick" : "tick"));
    if (t->agent[0])
        bad |= json_object_set_new(o, "agent", json_string(t->agent));
    bad |= json_object_set_new(o, "seq", record__json_count(t->seq));
    bad |= json_object_set_new(o, "start_us", record__json_count(t->start_us));
    bad |= json_object_set_new(o, "duration_us", record__json_count(t->duration_us));
    bad |= json_object_set_new(o, "state", json_string(run_state_name(t->state)));
    bad |= json_object_set_new(o, "model", json_string(load_model_name(t->model)));
    bad |= json_object_set_new(o, "transport", json_string(t->transport));
    if (t->http_version[0])
        bad |= json_object_set_new(o, "http_version", json_string(t->http_version));
    bad |= json_object_set_new(o, "target_concurrency", json_integer(t->target_concurrency));
    bad |= json_object_set_new(o, "actual_concurrency", json_integer(t->actual_concurrency));
    bad |= json_object_set_new(o, "target_rate_per_s", real_or_null(t->target_rate_per_s));
    bad |= json_object_set_new(o, "in_flight", json_integer(t->in_flight));
    bad |= put_nonzero(o, "connections_opened", t->connections_opened);
    bad |= put_nonzero(o, "connections", t->connections);
    bad |= put_nonzero(o, "dropped", t->dropped);
    bad |= put_nonzero(o, "aborted", t->aborted);
    bad |= put_nonzero(o, "bodies_cut", t->bodies_cut);
    bad |= put_nonzero(o, "cookies_dropped", t->cookies_dropped);
    bad |= put_nonzero(o, "marks_dropped", t->marks_dropped);
    bad |= put_nonzero(o, "drain_us", t->drain_us);
    bad |= put_nonempty(o, "resent", resent_json(t));
    bad |= json_object_set_new(
        o, "total", kind_json(t, &t->total, total_is_merge(t) ? HIST_IS_MERGE : HIST_OWN));
    bad |= put_nonempty(o, "kinds", kinds_json(t));
    bad |= put_nonempty(o, "first_error", first_error_json(t));
    bad |= json_object_set_new(o, "status", status_json(t));
    bad |= put_nonzero(o, "status_other", t->status_other);
    bad |= put_nonempty(o, "probes", probes_json(t));
    bad |= put_nonempty(o, "events", events_json(t));
    bad |= put_nonzero(o, "events_dropped", t->events_dropped);
    bad |= json_object_set_new(o, "health", health_json(&t->health));
    if (t->plan.phase != PLAN_OFF || t->plan.verdict != VERDICT_NONE)
        bad |= json_object_set_new(o, "plan", plan_json(&t->plan));
    if (t->bound.end_us || t->bound.requests)
        bad |= json_object_set_new(o, "bound", bound_json(&t->bound));
    bad |= put_open(o, t);
    bad |= put_nonempty(o, "phases", phases_json(t));
    bad |= put_nonempty(o, "agents", agents_json(t));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
