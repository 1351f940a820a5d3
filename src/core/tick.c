#include "core/tick.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "core/xalloc.h"

const double tick_pcts[TICK_NPCT] = {50.0, 90.0, 99.0, 99.9};

struct tick *tick_new(size_t data_cap)
{
    struct tick *t = xcalloc(1, sizeof(*t) + data_cap);

    t->data_cap = data_cap;
    tick_copy_text(t->total.name, sizeof(t->total.name), "total");
    tick_copy_text(t->service.name, sizeof(t->service.name), "service");
    tick_copy_text(t->failed.name, sizeof(t->failed.name), "failed");
    tick_copy_text(t->send_lag.name, sizeof(t->send_lag.name), "send_lag");
    return t;
}

int tick_schedule_kept(const struct tick *t)
{
    return t->model != LOAD_OPEN ||
           (t->sched_capped == 0 && t->sched_lag_us <= TICK_SCHED_SLACK_US);
}

int tick_is_bounded(const struct tick *t)
{
    return t->n_kinds <= TICK_MAX_KINDS && t->n_status <= TICK_MAX_STATUS &&
           t->n_probes <= TICK_MAX_PROBES && t->n_events <= TICK_MAX_EVENTS &&
           t->n_agents <= TICK_MAX_AGENTS;
}

int tick_is_partial(const struct tick *t)
{
    for (uint32_t i = 0; i < t->n_agents; i++) {
        if (!t->agents[i].is_in)
            return 1;
    }
    return 0;
}

void tick_free(struct tick *t)
{
    free(t);
}

void tick_latency_from_hist(struct tick_latency *lat, const struct hist *h)
{
    memset(lat, 0, sizeof(*lat));
    lat->count = hist_count(h);
    if (lat->count == 0)
        return;
    lat->min_us = hist_min(h);
    lat->max_us = hist_max(h);
    lat->mean_us = hist_mean(h);
    lat->stddev_us = hist_stddev(h);
    for (int i = 0; i < TICK_NPCT; i++)
        lat->pct_us[i] = hist_percentile(h, tick_pcts[i]);
}

/* Encodes h at the end of t's data; *offset and *len say where. */
static int put_at(struct tick *t, uint32_t *offset, uint32_t *len, const struct hist *h)
{
    size_t room = t->data_cap - t->data_len;
    size_t need = hist_encode(h, t->data + t->data_len, room);

    if (need > room || t->data_len + need > UINT32_MAX) {
        *offset = 0;
        *len = 0;
        return -ENOSPC;
    }
    *offset = (uint32_t)t->data_len;
    *len = (uint32_t)need;
    t->data_len += need;
    return 0;
}

static int get_at(const struct tick *t, uint32_t offset, uint32_t len, struct hist *h)
{
    if (len == 0)
        return -ENOENT;
    if ((size_t)offset + len > t->data_len)
        return -EINVAL;
    return hist_decode(h, t->data + offset, len);
}

int tick_put_hist(struct tick *t, struct tick_kind *k, const struct hist *h)
{
    return put_at(t, &k->hist_offset, &k->hist_len, h);
}

int tick_get_hist(const struct tick *t, const struct tick_kind *k, struct hist *h)
{
    return get_at(t, k->hist_offset, k->hist_len, h);
}

int tick_put_phase_hist(struct tick *t, enum tick_phase p, const struct hist *h)
{
    return put_at(t, &t->phases[p].hist_offset, &t->phases[p].hist_len, h);
}

int tick_get_phase_hist(const struct tick *t, enum tick_phase p, struct hist *h)
{
    return get_at(t, t->phases[p].hist_offset, t->phases[p].hist_len, h);
}

void tick_status_add(struct tick_status *table, uint32_t *n_used, uint64_t *other, uint16_t code,
                     uint64_t n)
{
    for (uint32_t i = 0; i < *n_used; i++) {
        if (table[i].code == code) {
            table[i].count += n;
            return;
        }
    }
    if (*n_used == TICK_MAX_STATUS) {
        *other += n;
        return;
    }
    table[*n_used].code = code;
    table[*n_used].count = n;
    (*n_used)++;
}

void tick_count_status(struct tick *t, uint16_t code, uint64_t n)
{
    tick_status_add(t->status, &t->n_status, &t->status_other, code, n);
}

void tick_add_event(struct tick *t, enum event_kind kind, uint64_t at_ms, const char *text)
{
    struct tick_event *e;

    if (t->n_events == TICK_MAX_EVENTS) {
        t->events_dropped++;
        return;
    }
    e = &t->events[t->n_events++];
    e->at_ms = at_ms;
    e->kind = kind;
    tick_copy_text(e->text, sizeof(e->text), text);
}

size_t tick_copy_text(char *dst, size_t cap, const char *src)
{
    size_t n;

    if (cap == 0)
        return 0;
    n = strnlen(src, cap);
    if (n >= cap) {
        n = cap - 1;
        /* Back off over UTF-8 continuation bytes so a cut never splits a
         * character: the sanitizer would show the stub as an invalid byte. */
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(dst, src, n);
    dst[n] = '\0';
    return n;
}

static const char *run_state_names[] = {
    [RUN_STARTING] = "starting", [RUN_RUNNING] = "running", [RUN_PAUSED] = "paused",
    [RUN_STOPPING] = "stopping", [RUN_DONE] = "done",
};

static const char *event_kind_names[EV__COUNT] = {
    [EV_COMMAND] = "command", [EV_MARK] = "mark",           [EV_FIRST_ERROR] = "first_error",
    [EV_ALERT] = "alert",     [EV_DETECTION] = "detection", [EV_PROBE] = "probe",
    [EV_NOTICE] = "notice",
};

static const char *tick_mark_names[] = {
    [TICK_MARK_NONE] = "",
    [TICK_MARK_CHECK] = "check",
    [TICK_MARK_COUNTER] = "counter",
    [TICK_MARK_GAUGE] = "gauge",
};

static const char *probe_state_names[] = {
    [PROBE_PENDING] = "pending",
    [PROBE_OK] = "ok",
    [PROBE_STALE] = "stale",
    [PROBE_FAILING] = "failing",
};

static const char *load_model_names[] = {
    [LOAD_CLOSED] = "closed",
    [LOAD_OPEN] = "open",
};

static const char *plan_phase_names[] = {
    [PLAN_OFF] = "off",         [PLAN_WARMUP] = "warmup", [PLAN_MEASURE] = "measure",
    [PLAN_HOLDING] = "holding", [PLAN_PAUSED] = "paused",
};

static const char *plan_verdict_names[] = {
    [VERDICT_NONE] = "none", [VERDICT_PASS] = "pass",           [VERDICT_FAIL] = "fail",
    [VERDICT_CUT] = "cut",   [VERDICT_OFF_LEVEL] = "off_level",
};

static const char *tick_phase_names[PHASE__COUNT] = {
    [PHASE_DNS] = "dns",
    [PHASE_CONNECT] = "connect",
    [PHASE_TLS] = "tls",
    [PHASE_TTFB] = "ttfb",
};

static const char *resend_cause_names[RESEND__COUNT] = {
    [RESEND_CLOSED_IDLE] = "closed_idle",
    [RESEND_REFUSED_STREAM] = "refused_stream",
};

static const char *name_in(const char *const *table, size_t n, unsigned v)
{
    return v < n && table[v] ? table[v] : "?";
}

#define NAME_OF(table, v) name_in(table, sizeof(table) / sizeof(table[0]), (unsigned)(v))

const char *run_state_name(enum run_state s)
{
    return NAME_OF(run_state_names, s);
}

const char *event_kind_name(enum event_kind k)
{
    return NAME_OF(event_kind_names, k);
}

const char *probe_state_name(enum probe_state s)
{
    return NAME_OF(probe_state_names, s);
}

const char *load_model_name(enum load_model m)
{
    return NAME_OF(load_model_names, m);
}

const char *plan_phase_name(enum plan_phase p)
{
    return NAME_OF(plan_phase_names, p);
}

const char *plan_verdict_name(enum plan_verdict v)
{
    return NAME_OF(plan_verdict_names, v);
}

const char *tick_phase_name(enum tick_phase p)
{
    return NAME_OF(tick_phase_names, p);
}

const char *resend_cause_name(enum resend_cause c)
{
    return NAME_OF(resend_cause_names, c);
}

uint64_t tick_resent_sum(const uint64_t counts[RESEND__COUNT])
{
    uint64_t n = 0;

    for (int c = 0; c < RESEND__COUNT; c++)
        n += counts[c];
    return n;
}

static int value_of(const char *const *table, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (table[i] && strcmp(table[i], name) == 0)
            return (int)i;
    }
    return -1;
}

#define VALUE_OF(table, name) value_of(table, sizeof(table) / sizeof(table[0]), name)

int run_state_from_name(const char *name)
{
    return VALUE_OF(run_state_names, name);
}

int event_kind_from_name(const char *name)
{
    return VALUE_OF(event_kind_names, name);
}

const char *tick_mark_name(enum tick_mark m)
{
    return NAME_OF(tick_mark_names, m);
}

int tick_mark_from_name(const char *name)
{
    return VALUE_OF(tick_mark_names, name);
}

int probe_state_from_name(const char *name)
{
    return VALUE_OF(probe_state_names, name);
}

int load_model_from_name(const char *name)
{
    return VALUE_OF(load_model_names, name);
}

int plan_phase_from_name(const char *name)
{
    return VALUE_OF(plan_phase_names, name);
}

int resend_cause_from_name(const char *name)
{
    return VALUE_OF(resend_cause_names, name);
}

int plan_verdict_from_name(const char *name)
{
    return VALUE_OF(plan_verdict_names, name);
}

int tick_phase_from_name(const char *name)
{
    return VALUE_OF(tick_phase_names, name);
}

int tick_name_row(void *rows, size_t stride, uint32_t *n, uint32_t max, const char *name)
{
    char key[TICK_NAME_MAX];
    char *row = rows;

    tick_copy_text(key, sizeof(key), name);
    for (uint32_t i = 0; i < *n; i++, row += stride) {
        if (strcmp(row, key) == 0)
            return (int)i;
    }
    if (*n >= max)
        return -1;
    memset(row, 0, stride);
    memcpy(row, key, sizeof(key));
    return (int)(*n)++;
}

int tick_agent_series(const char *series, const char *agent, char out[TICK_NAME_MAX])
{
    size_t n = 0, need = strlen(series) + 1 + strlen(agent);

    for (const char *p = series; *p && n < TICK_NAME_MAX - 1; p++)
        out[n++] = *p;
    if (n < TICK_NAME_MAX - 1)
        out[n++] = '@';
    for (const char *p = agent; *p && n < TICK_NAME_MAX - 1; p++) {
        unsigned char ch = (unsigned char)*p;
        int is_plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                       (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-';

        out[n++] = is_plain ? (char)ch : '_';
    }
    out[n] = '\0';
    return need > TICK_NAME_MAX - 1 ? -ENAMETOOLONG : 0;
}

int tick_series_is(const char *series, const char *probe)
{
    size_t n = strlen(probe);

    return strncmp(series, probe, n) == 0 && (series[n] == '\0' || series[n] == '@');
}

uint64_t tick_agent_uncounted(double rate_per_s, uint32_t in_flight, uint64_t interval_us)
{
    return (uint64_t)ceil((rate_per_s + in_flight) * (double)interval_us / 1e6) +
           2 * (uint64_t)in_flight;
}
