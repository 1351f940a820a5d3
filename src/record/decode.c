/*
 * A session line's JSON object back into a struct tick. Nothing in the line
 * is trusted: counts must be non-negative integers, 32-bit fields must fit,
 * names are cut to their arrays, states, kinds and classes must be known
 * names, and tables no longer than the tick's. Any violation rejects the
 * line with a reason naming the field. Missing numbers read as 0 and missing
 * texts as "", so later minor versions may leave out what is empty.
 */
#include "record/internal.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "core/msg.h"
#include "core/xalloc.h"

/* What a line is being decoded into. */
struct ctx {
    struct tick *t;      /* fields, data not yet attached */
    struct hist *h;      /* scratch for stored histograms */
    unsigned char *data; /* the full-precision encodings, in order */
    size_t data_len;
    size_t data_cap;
    char *why;
    size_t why_len;
};

static int fail(struct ctx *c, const char *field, const char *what)
{
    msg_set(c->why, c->why_len, "%s: %s", field, what);
    return -EINVAL;
}

static int get_count(struct ctx *c, json_t *o, const char *key, uint64_t *out)
{
    json_t *v = json_object_get(o, key);

    *out = 0;
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return fail(c, key, "expected a non-negative integer");
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

/* A time in µs: key_us, or in a version 1 file key_ms (whole ms). */
static int get_time_us(struct ctx *c, json_t *o, const char *us_key, const char *ms_key,
                       uint64_t *out)
{
    if (json_object_get(o, us_key) || !json_object_get(o, ms_key))
        return get_count(c, o, us_key, out);
    if (get_count(c, o, ms_key, out) != 0)
        return -EINVAL;
    if (*out > UINT64_MAX / 1000)
        return fail(c, ms_key, "out of range");
    *out *= 1000;
    return 0;
}

static int get_u32(struct ctx *c, json_t *o, const char *key, uint32_t *out)
{
    uint64_t v;

    if (get_count(c, o, key, &v) != 0)
        return -EINVAL;
    if (v > UINT32_MAX)
        return fail(c, key, "out of range");
    *out = (uint32_t)v;
    return 0;
}

/* Missing reads as 0, null as NaN (written for a non-finite value). */
static int get_real(struct ctx *c, json_t *o, const char *key, double *out)
{
    json_t *v = json_object_get(o, key);

    *out = 0.0;
    if (!v)
        return 0;
    if (json_is_null(v)) {
        *out = NAN;
        return 0;
    }
    if (!json_is_number(v))
        return fail(c, key, "expected a number");
    *out = json_number_value(v);
    return 0;
}

static int get_text(struct ctx *c, json_t *o, const char *key, char *dst, size_t cap)
{
    json_t *v = json_object_get(o, key);

    dst[0] = '\0';
    if (!v)
        return 0;
    if (!json_is_string(v))
        return fail(c, key, "expected a string");
    tick_copy_text(dst, cap, json_string_value(v));
    return 0;
}

typedef int from_name_fn(const char *name);

static int get_name(struct ctx *c, json_t *o, const char *key, from_name_fn *from, int *out)
{
    json_t *v = json_object_get(o, key);

    if (!json_is_string(v))
        return fail(c, key, "expected a name");
    *out = from(json_string_value(v));
    if (*out < 0)
        return fail(c, key, "unknown name");
    return 0;
}

/* An object or array member, NULL when missing. */
static int get_kind_of(struct ctx *c, json_t *o, const char *key, int is_array, json_t **out)
{
    json_t *v = json_object_get(o, key);

    *out = v;
    if (!v)
        return 0;
    if (is_array ? !json_is_array(v) : !json_is_object(v))
        return fail(c, key, is_array ? "expected an array" : "expected an object");
    return 0;
}

static int get_latency(struct ctx *c, json_t *o, const char *key, struct tick_latency *lat)
{
    json_t *l, *p;
    int bad;

    memset(lat, 0, sizeof(*lat));
    if (get_kind_of(c, o, key, 0, &l) != 0)
        return -EINVAL;
    if (!l)
        return 0;
    bad = get_count(c, l, "count", &lat->count) || get_count(c, l, "min_us", &lat->min_us) ||
          get_count(c, l, "max_us", &lat->max_us) || get_real(c, l, "mean_us", &lat->mean_us) ||
          get_real(c, l, "stddev_us", &lat->stddev_us) || get_kind_of(c, l, "pct_us", 1, &p);
    if (bad)
        return -EINVAL;
    if (p && json_array_size(p) != TICK_NPCT)
        return fail(c, "pct_us", "expected 4 percentiles");
    for (size_t i = 0; p && i < TICK_NPCT; i++) {
        json_t *v = json_array_get(p, i);

        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return fail(c, "pct_us", "expected non-negative integers");
        lat->pct_us[i] = (uint64_t)json_integer_value(v);
    }
    return 0;
}

/* Appends the full-precision encoding of c->h to the data; *offset and
 * *len say where. */
static void append_hist_at(struct ctx *c, uint32_t *offset, uint32_t *len)
{
    size_t room = c->data_cap - c->data_len;
    /* One pass when it fits (hist_encode scans the whole range of h). */
    size_t need = hist_encode(c->h, c->data ? c->data + c->data_len : NULL, room);

    if (need > room) {
        c->data_cap = 2 * (c->data_len + need);
        c->data = xrealloc(c->data, c->data_cap);
        hist_encode(c->h, c->data + c->data_len, need);
    }
    *offset = (uint32_t)c->data_len;
    *len = (uint32_t)need;
    c->data_len += need;
}

static void append_hist(struct ctx *c, struct tick_kind *k)
{
    append_hist_at(c, &k->hist_offset, &k->hist_len);
}

/* Unpacks the stored histogram "hist" of o into c->h and the data. */
static int get_hist_at(struct ctx *c, json_t *o, uint32_t *offset, uint32_t *len)
{
    json_t *v = json_object_get(o, "hist");

    *offset = 0;
    *len = 0;
    if (!v)
        return 0;
    if (!json_is_string(v) ||
        record__hist_unpack(c->h, json_string_value(v), json_string_length(v)) != 0)
        return fail(c, "hist", "not a stored histogram");
    append_hist_at(c, offset, len);
    return 0;
}

static int get_hist(struct ctx *c, json_t *o, struct tick_kind *k)
{
    return get_hist_at(c, o, &k->hist_offset, &k->hist_len);
}

/* Rebuilds the total's histogram as the sum of the kinds'. */
static int merge_kinds(struct ctx *c)
{
    struct hist *one = hist_new();
    int rc = 0;

    hist_reset(c->h);
    for (uint32_t i = 0; i < c->t->n_kinds && rc == 0; i++) {
        const struct tick_kind *k = &c->t->kinds[i];

        if (k->hist_len == 0)
            continue;
        /* Each was encoded here a moment ago, so it decodes. */
        rc = hist_decode(one, c->data + k->hist_offset, k->hist_len);
        hist_merge(c->h, one);
    }
    hist_free(one);
    if (rc != 0)
        return fail(c, "hist", "damaged");
    append_hist(c, &c->t->total);
    return 0;
}

static int get_errors(struct ctx *c, json_t *o, uint64_t *errors)
{
    json_t *e, *v;
    const char *name;

    if (get_kind_of(c, o, "errors", 0, &e) != 0)
        return -EINVAL;
    json_object_foreach(e, name, v)
    {
        int cls = errclass_from_name(name);

        if (cls < 0)
            return fail(c, "errors", "unknown error class");
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return fail(c, "errors", "expected non-negative integers");
        errors[cls] = (uint64_t)json_integer_value(v);
    }
    return 0;
}

/* "resent": requests sent again by cause; absent in sessions before it. */
static int get_resent(struct ctx *c, json_t *o, uint64_t *resent)
{
    json_t *e, *v;
    const char *name;

    if (get_kind_of(c, o, "resent", 0, &e) != 0)
        return -EINVAL;
    json_object_foreach(e, name, v)
    {
        int cause = resend_cause_from_name(name);

        if (cause < 0)
            return fail(c, "resent", "unknown cause");
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return fail(c, "resent", "expected non-negative integers");
        resent[cause] = (uint64_t)json_integer_value(v);
    }
    return 0;
}

static int get_kind(struct ctx *c, json_t *o, struct tick_kind *k, const struct tick_kind *total)
{
    if (!json_is_object(o))
        return fail(c, "kinds", "expected objects");
    if (get_text(c, o, "name", k->name, sizeof(k->name)) ||
        get_count(c, o, "started", &k->started) || get_count(c, o, "completed", &k->completed) ||
        get_count(c, o, "ok", &k->ok) || get_count(c, o, "bytes_in", &k->bytes_in) ||
        get_count(c, o, "bytes_out", &k->bytes_out) || get_errors(c, o, k->errors) ||
        get_latency(c, o, "window", &k->window) || get_latency(c, o, "run", &k->run))
        return -EINVAL;
    if (total && json_is_true(json_object_get(o, "hist_is_total"))) {
        k->hist_offset = total->hist_offset;
        k->hist_len = total->hist_len;
        return 0;
    }
    return get_hist(c, o, k);
}

/* An array member no longer than max entries. */
static int get_table(struct ctx *c, json_t *o, const char *key, size_t max, json_t **out)
{
    if (get_kind_of(c, o, key, 1, out) != 0)
        return -EINVAL;
    if (*out && json_array_size(*out) > max)
        return fail(c, key, "more entries than a tick holds");
    return 0;
}

static int get_kinds(struct ctx *c, json_t *o)
{
    struct tick *t = c->t;
    json_t *total = json_object_get(o, "total"), *a, *v;
    int is_merge = json_is_true(json_object_get(total, "hist_is_merge"));
    size_t i;

    if (!json_is_object(total))
        return fail(c, "total", "expected an object");
    if (get_kind(c, total, &t->total, NULL) || get_table(c, o, "kinds", TICK_MAX_KINDS, &a))
        return -EINVAL;
    json_array_foreach(a, i, v)
    {
        if (is_merge && json_is_object(v) && json_object_get(v, "hist_is_total"))
            return fail(c, "hist_is_total", "the total is the sum of the kinds");
        if (get_kind(c, v, &t->kinds[i], &t->total) != 0)
            return -EINVAL;
        t->n_kinds = (uint32_t)i + 1;
    }
    return is_merge ? merge_kinds(c) : 0;
}

static int get_first_errors(struct ctx *c, json_t *o)
{
    json_t *e, *v;
    const char *name;

    if (get_kind_of(c, o, "first_error", 0, &e) != 0)
        return -EINVAL;
    json_object_foreach(e, name, v)
    {
        int cls = errclass_from_name(name);

        if (cls < 0 || !json_is_string(v))
            return fail(c, "first_error", "expected texts by error class");
        tick_copy_text(c->t->first_error[cls], TICK_TEXT_MAX, json_string_value(v));
    }
    return 0;
}

static int get_status(struct ctx *c, json_t *o)
{
    json_t *a, *row;
    size_t i;

    if (get_table(c, o, "status", TICK_MAX_STATUS, &a) ||
        get_count(c, o, "status_other", &c->t->status_other))
        return -EINVAL;
    json_array_foreach(a, i, row)
    {
        json_t *code = json_array_get(row, 0), *n = json_array_get(row, 1);

        if (!json_is_array(row) || json_array_size(row) != 2 || !json_is_integer(code) ||
            !json_is_integer(n) || json_integer_value(code) < 0 ||
            json_integer_value(code) > UINT16_MAX || json_integer_value(n) < 0)
            return fail(c, "status", "expected [code, count] rows");
        c->t->status[i].code = (uint16_t)json_integer_value(code);
        c->t->status[i].count = (uint64_t)json_integer_value(n);
        c->t->n_status = (uint32_t)i + 1;
    }
    return 0;
}

static int get_probe(struct ctx *c, json_t *o, struct tick_probe *p)
{
    json_t *mark = json_object_get(o, "mark");
    int state, m = TICK_MARK_NONE;

    if (!json_is_object(o))
        return fail(c, "probes", "expected objects");
    if (get_text(c, o, "name", p->name, sizeof(p->name)) ||
        get_name(c, o, "state", probe_state_from_name, &state) ||
        get_real(c, o, "value", &p->value) || get_count(c, o, "sampled_ms", &p->sampled_ms) ||
        get_text(c, o, "error", p->error, sizeof(p->error)) ||
        get_count(c, o, "passed", &p->passed))
        return -EINVAL;
    /* Optional: files written before it have none (their marks read as probes). */
    if (mark && (!json_is_string(mark) || (m = tick_mark_from_name(json_string_value(mark))) < 0))
        return fail(c, "mark", "expected check, counter or gauge");
    p->mark = (enum tick_mark)m;
    p->state = (enum probe_state)state;
    p->has_value = json_object_get(o, "value") != NULL;
    p->alerting = json_is_true(json_object_get(o, "alerting"));
    return 0;
}

static int get_probes_and_events(struct ctx *c, json_t *o)
{
    struct tick *t = c->t;
    json_t *a, *v;
    size_t i;

    if (get_table(c, o, "probes", TICK_MAX_PROBES, &a))
        return -EINVAL;
    json_array_foreach(a, i, v)
    {
        if (get_probe(c, v, &t->probes[i]) != 0)
            return -EINVAL;
        t->n_probes = (uint32_t)i + 1;
    }
    if (get_table(c, o, "events", TICK_MAX_EVENTS, &a) ||
        get_u32(c, o, "events_dropped", &t->events_dropped))
        return -EINVAL;
    json_array_foreach(a, i, v)
    {
        struct tick_event *ev = &t->events[i];
        int kind;

        if (!json_is_object(v))
            return fail(c, "events", "expected objects");
        if (get_count(c, v, "at_ms", &ev->at_ms) ||
            get_name(c, v, "kind", event_kind_from_name, &kind) ||
            get_text(c, v, "text", ev->text, sizeof(ev->text)))
            return -EINVAL;
        ev->kind = (enum event_kind)kind;
        t->n_events = (uint32_t)i + 1;
    }
    return 0;
}

/* Files written before plans existed have no plan: it reads as off. */
static int get_plan(struct ctx *c, json_t *o, struct tick_plan *p)
{
    json_t *v;
    int phase, verdict = VERDICT_NONE;

    memset(p, 0, sizeof(*p));
    if (get_kind_of(c, o, "plan", 0, &v) != 0)
        return -EINVAL;
    if (!v)
        return 0;
    if (get_name(c, v, "phase", plan_phase_from_name, &phase) ||
        (json_object_get(v, "verdict") &&
         get_name(c, v, "verdict", plan_verdict_from_name, &verdict)) ||
        get_u32(c, v, "step", &p->step) || get_u32(c, v, "n_steps", &p->n_steps) ||
        get_real(c, v, "level", &p->level) || get_text(c, v, "why", p->why, sizeof(p->why)))
        return -EINVAL;
    p->phase = (enum plan_phase)phase;
    p->verdict = (enum plan_verdict)verdict;
    return 0;
}

/* Where the run ends: absent in files written before it, and in runs
 * without an end (all 0). */
static int get_bound(struct ctx *c, json_t *o, struct tick_bound *b)
{
    json_t *v;

    memset(b, 0, sizeof(*b));
    if (get_kind_of(c, o, "bound", 0, &v) != 0)
        return -EINVAL;
    if (!v)
        return 0;
    if (get_count(c, v, "end_us", &b->end_us) || get_count(c, v, "requests", &b->requests) ||
        get_count(c, v, "completed", &b->completed))
        return -EINVAL;
    return 0;
}

static int get_top(struct ctx *c, json_t *o)
{
    struct tick *t = c->t;
    json_t *health;
    int state, model;

    if (get_count(c, o, "seq", &t->seq) ||
        get_time_us(c, o, "start_us", "start_ms", &t->start_us) ||
        get_time_us(c, o, "duration_us", "duration_ms", &t->duration_us) ||
        get_name(c, o, "state", run_state_from_name, &state) ||
        get_name(c, o, "model", load_model_from_name, &model) ||
        get_text(c, o, "transport", t->transport, sizeof(t->transport)) ||
        get_text(c, o, "http_version", t->http_version, sizeof(t->http_version)) ||
        get_u32(c, o, "target_concurrency", &t->target_concurrency) ||
        get_u32(c, o, "actual_concurrency", &t->actual_concurrency) ||
        get_real(c, o, "target_rate_per_s", &t->target_rate_per_s) ||
        get_u32(c, o, "in_flight", &t->in_flight) ||
        get_count(c, o, "connections_opened", &t->connections_opened) ||
        get_u32(c, o, "connections", &t->connections) || get_count(c, o, "dropped", &t->dropped) ||
        get_count(c, o, "aborted", &t->aborted) || get_count(c, o, "bodies_cut", &t->bodies_cut) ||
        get_count(c, o, "cookies_dropped", &t->cookies_dropped) ||
        get_count(c, o, "marks_dropped", &t->marks_dropped) ||
        get_count(c, o, "drain_us", &t->drain_us) || get_resent(c, o, t->resent) ||
        get_kind_of(c, o, "health", 0, &health) || get_plan(c, o, &t->plan) ||
        get_bound(c, o, &t->bound))
        return -EINVAL;
    t->state = (enum run_state)state;
    t->model = (enum load_model)model;
    if (health && (get_count(c, health, "loop_lag_us", &t->health.loop_lag_us) ||
                   get_u32(c, health, "fds_used", &t->health.fds_used) ||
                   get_u32(c, health, "fds_limit", &t->health.fds_limit)))
        return -EINVAL;
    return 0;
}

/* The open model's figures; a tick without them (closed, or written before
 * they existed) reads as zeros. */
static int get_open(struct ctx *c, json_t *o)
{
    struct tick *t = c->t;
    json_t *service, *send_lag;

    if (get_u32(c, o, "max_in_flight", &t->max_in_flight) ||
        get_count(c, o, "sched_called", &t->sched_called) ||
        get_count(c, o, "sched_backlog", &t->sched_backlog) ||
        get_count(c, o, "sched_lag_us", &t->sched_lag_us) ||
        get_count(c, o, "sched_capped", &t->sched_capped) ||
        get_kind_of(c, o, "service", 0, &service) || get_kind_of(c, o, "send_lag", 0, &send_lag))
        return -EINVAL;
    if (service && get_kind(c, service, &t->service, NULL) != 0)
        return -EINVAL;
    if (send_lag && get_kind(c, send_lag, &t->send_lag, NULL) != 0)
        return -EINVAL;
    tick_copy_text(t->service.name, sizeof(t->service.name), "service");
    tick_copy_text(t->send_lag.name, sizeof(t->send_lag.name), "send_lag");
    return 0;
}

/* The latency of failed requests (absent before version 2, and when none
 * failed: a version 1 file timed them with the successes). */
static int get_failed(struct ctx *c, json_t *o)
{
    json_t *failed;

    if (get_kind_of(c, o, "failed", 0, &failed) != 0)
        return -EINVAL;
    tick_copy_text(c->t->failed.name, sizeof(c->t->failed.name), "failed");
    if (!failed)
        return 0;
    if (!json_is_object(failed) || get_count(c, failed, "completed", &c->t->failed.completed) ||
        get_hist(c, failed, &c->t->failed))
        return fail(c, "failed", "expected an object with completed and hist");
    /* The interval's figures are those of the stored histogram. */
    if (c->t->failed.hist_len)
        tick_latency_from_hist(&c->t->failed.window, c->h);
    return 0;
}

/* Where the time went (absent before it existed, and in a tick that timed
 * no phase): each phase present has its stored histogram, with samples,
 * whence the interval's figures; the run's are as written (a reader
 * carries them over the ticks without them). */
static int get_phases(struct ctx *c, json_t *o)
{
    json_t *phases, *v;
    const char *name;

    if (get_kind_of(c, o, "phases", 0, &phases) != 0)
        return -EINVAL;
    json_object_foreach(phases, name, v)
    {
        int p = tick_phase_from_name(name);
        struct tick_phase_stats *ph;

        if (p < 0)
            return fail(c, "phases", "unknown phase");
        ph = &c->t->phases[p];
        if (!json_is_object(v))
            return fail(c, "phases", "expected objects");
        if (get_latency(c, v, "run", &ph->run) ||
            get_hist_at(c, v, &ph->hist_offset, &ph->hist_len))
            return -EINVAL;
        /* A phase is written only when it timed something: with its samples. */
        if (ph->hist_len == 0 || hist_count(c->h) == 0)
            return fail(c, "phases", "expected a histogram with samples");
        tick_latency_from_hist(&ph->window, c->h);
    }
    return 0;
}

/* A merged tick's agents, and an agent's tick's name (docs/agents.md). */
static int get_agents(struct ctx *c, json_t *o)
{
    struct tick *t = c->t;
    json_t *a, *v, *off;
    size_t i;

    if (get_text(c, o, "agent", t->agent, sizeof(t->agent)) ||
        get_table(c, o, "agents", TICK_MAX_AGENTS, &a))
        return -EINVAL;
    json_array_foreach(a, i, v)
    {
        struct tick_agent *g = &t->agents[i];
        const char *state;
        uint64_t in_flight;

        if (!json_is_object(v))
            return fail(c, "agents", "expected objects");
        state = json_string_value(json_object_get(v, "state"));
        off = json_object_get(v, "offset_us");
        if (!state || (strcmp(state, "ok") != 0 && strcmp(state, "lost") != 0))
            return fail(c, "agents", "expected a state ok or lost");
        if (off && !json_is_integer(off))
            return fail(c, "offset_us", "expected an integer");
        if (get_text(c, v, "name", g->name, sizeof(g->name)) ||
            get_count(c, v, "completed", &g->completed) || get_count(c, v, "errors", &g->errors) ||
            get_count(c, v, "loop_lag_us", &g->loop_lag_us) ||
            get_count(c, v, "in_flight", &in_flight) ||
            get_count(c, v, "lost_at_us", &g->lost_at_us) ||
            get_count(c, v, "lost_until_us", &g->lost_until_us))
            return -EINVAL;
        if (in_flight > UINT32_MAX)
            return fail(c, "in_flight", "expected at most 4294967295");
        g->in_flight = (uint32_t)in_flight;
        g->is_lost = strcmp(state, "lost") == 0;
        g->is_in = json_is_true(json_object_get(v, "in"));
        g->offset_us = off ? (int64_t)json_integer_value(off) : 0;
        t->n_agents = (uint32_t)i + 1;
    }
    return 0;
}

int record__tick_from_json(json_t *obj, struct tick **out, char *why, size_t why_len)
{
    struct ctx c = {.why = why, .why_len = why_len};
    int rc;

    *out = NULL;
    c.t = tick_new(0);
    c.h = hist_new();
    rc = get_top(&c, obj);
    if (rc == 0)
        rc = get_kinds(&c, obj);
    if (rc == 0)
        rc = get_first_errors(&c, obj);
    if (rc == 0)
        rc = get_status(&c, obj);
    if (rc == 0)
        rc = get_probes_and_events(&c, obj);
    if (rc == 0)
        rc = get_open(&c, obj);
    if (rc == 0)
        rc = get_failed(&c, obj);
    if (rc == 0)
        rc = get_phases(&c, obj);
    if (rc == 0)
        rc = get_agents(&c, obj);
    if (rc == 0) {
        /* The fields are final: move them to a tick with room for the data. */
        *out = tick_new(c.data_len);
        memcpy(*out, c.t, offsetof(struct tick, data_cap));
        if (c.data_len > 0)
            memcpy((*out)->data, c.data, c.data_len);
        (*out)->data_len = c.data_len;
        assert(tick_is_bounded(*out));
    }
    free(c.data);
    hist_free(c.h);
    tick_free(c.t);
    return rc;
}
