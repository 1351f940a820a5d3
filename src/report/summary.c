#include "report/summary.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cookies.h"
#include "core/errclass.h"
#include "core/hist.h"
#include "core/sanitize.h"
#include "core/tick.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "report/internal.h"

#define SUMMARY_MAX_EVENTS 100 /* events kept for the report; the rest are only counted */
#define SUMMARY_MAX_STATUS 64  /* distinct HTTP codes kept; the rest go to status_other */
#define MESSAGE_SHOWN_MAX 73   /* bytes of a sanitized error message or event text shown */
#define NAME_SHOWN_MAX 80      /* bytes of a sanitized kind name shown */
#define NUM_MAX REPORT_NUM_MAX

/* The percentiles of the report's table, with labels written out so that no
 * printf conversion of a double (and so no LC_NUMERIC) is involved. */
static const struct {
    double pct;
    const char *label;
} report_pcts[] = {
    {50.0, "50%"}, {66.0, "66%"}, {75.0, "75%"}, {80.0, "80%"},   {90.0, "90%"},
    {95.0, "95%"}, {98.0, "98%"}, {99.0, "99%"}, {99.9, "99.9%"}, {100.0, "100%"},
};

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

/* A server counter over the run, matched by name across ticks. */
struct probe_totals {
    char name[TICK_NAME_MAX];
    int has_value;
    double last;
    double max;
    uint64_t failing_ticks; /* ticks that ended with it failing or stale */
    char last_error[TICK_TEXT_MAX];
    enum tick_mark mark; /* a probe, or a script's check, counter or gauge */
    double sum;          /* a check's failures, a counter's additions, over the run */
    uint64_t passed;     /* a check's passes over the run */
};

struct summary {
    uint64_t n_ticks;
    uint64_t duration_us; /* sum of the ticks' durations */
    unsigned models_seen; /* bit 1 << enum load_model for each model seen */
    uint32_t min_target_concurrency;
    uint32_t max_target_concurrency;
    uint32_t max_actual_concurrency;
    double max_target_rate_per_s; /* over open-model ticks */
    uint32_t max_in_flight;       /* the most in flight at a tick's end, open ticks */
    uint32_t in_flight_cap;       /* the largest max_in_flight of open ticks */
    uint64_t connections_opened;
    char transport[8];        /* of the latest tick that named one */
    char http_version[12];    /* of the latest tick that named one */
    uint32_t max_connections; /* the most open at a tick's end */
    uint64_t dropped;
    uint64_t aborted;
    uint64_t bodies_cut;
    uint64_t cookies_dropped;
    uint64_t marks_dropped;
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
    uint64_t unmatched_completed; /* completed requests of kinds past the table */
    char first_error[ERR__COUNT][TICK_TEXT_MAX];
    uint32_t n_status;
    struct tick_status status[SUMMARY_MAX_STATUS]; /* sorted by code */
    uint64_t status_other;
    uint32_t n_events;
    struct tick_event events[SUMMARY_MAX_EVENTS];
    uint64_t events_more; /* events not kept: past the table, or dropped by a tick */
    uint32_t n_probes;
    struct probe_totals probes[TICK_MAX_PROBES];
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
    } spans[8];
    uint64_t spans_more;
    struct report__trails trails; /* each agent's last tick, and when it was lost */
};

#define SUMMARY_MAX_SPANS 8

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
    int is_first_closed = !(s->models_seen & (1u << LOAD_CLOSED));

    if (t->model == LOAD_CLOSED) {
        if (is_first_closed || t->target_concurrency < s->min_target_concurrency)
            s->min_target_concurrency = t->target_concurrency;
        if (t->target_concurrency > s->max_target_concurrency)
            s->max_target_concurrency = t->target_concurrency;
        if (t->actual_concurrency > s->max_actual_concurrency)
            s->max_actual_concurrency = t->actual_concurrency;
    } else if (t->model == LOAD_OPEN) {
        if (t->target_rate_per_s > s->max_target_rate_per_s)
            s->max_target_rate_per_s = t->target_rate_per_s;
        if (t->in_flight > s->max_in_flight)
            s->max_in_flight = t->in_flight;
        if (t->max_in_flight > s->in_flight_cap)
            s->in_flight_cap = t->max_in_flight;
    }
    if (t->model == LOAD_CLOSED || t->model == LOAD_OPEN)
        s->models_seen |= 1u << t->model;
    s->n_ticks++;
    s->duration_us += t->duration_us;
    s->connections_opened += t->connections_opened;
    if (t->http_version[0]) {
        memcpy(s->http_version, t->http_version, sizeof(s->http_version));
        memcpy(s->transport, t->transport, sizeof(s->transport));
    }
    if (t->connections > s->max_connections)
        s->max_connections = t->connections;
    s->dropped += t->dropped;
    s->aborted += t->aborted;
    s->bodies_cut += t->bodies_cut;
    s->cookies_dropped += t->cookies_dropped;
    s->marks_dropped += t->marks_dropped;
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

static struct probe_totals *probe_named(struct summary *s, const char *name)
{
    int i = tick_name_row(s->probes, sizeof(s->probes[0]), &s->n_probes, TICK_MAX_PROBES, name);

    return i < 0 ? NULL : &s->probes[i];
}

static void add_probes(struct summary *s, const struct tick *t)
{
    uint32_t n = t->n_probes;

    for (uint32_t i = 0; i < n; i++) {
        const struct tick_probe *tp = &t->probes[i];
        struct probe_totals *p = probe_named(s, tp->name);

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
            s->unmatched_completed += t->kinds[i].completed;
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

/* ---- formatting figures (the shared helpers are in fmt.c) ---- */

static char *fmt_duration(double us, char *buf)
{
    return units_format_duration(report__round_u64(us), buf, UNITS_FMT_MAX);
}

/* ---- the report ---- */

/* "93,512 requests, 3,117 req/s, 3.12 MB/s in, 0.10 MB/s out" */
static void print_volume(FILE *out, const struct kind_totals *k, uint64_t duration_us)
{
    char n[NUM_MAX], rate[NUM_MAX], in[NUM_MAX], sent[NUM_MAX];

    fprintf(out, "%s request%s, %s req/s, %s MB/s in, %s MB/s out\n",
            report__fmt_grouped(k->completed, n), k->completed == 1 ? "" : "s",
            report__fmt_rate(tick_per_s(k->completed, duration_us), rate),
            report__fmt_fixed(tick_per_s(k->bytes_in, duration_us) / 1e6, 2, in),
            report__fmt_fixed(tick_per_s(k->bytes_out, duration_us) / 1e6, 2, sent));
}

static void print_gap_note(FILE *out, const struct kind_totals *k)
{
    char timed[NUM_MAX], all[NUM_MAX];

    if (k->hist_gaps == 0)
        return;
    fprintf(out,
            "note: %" PRIu64
            " interval histogram%s damaged or missing; latency covers %s of %s requests\n",
            k->hist_gaps, k->hist_gaps == 1 ? " was" : "s were",
            report__fmt_grouped(hist_count(k->hist), timed), report__fmt_grouped(k->timed, all));
}

static void print_latency(FILE *out, const struct kind_totals *k)
{
    char a[UNITS_FMT_MAX], b[UNITS_FMT_MAX], c[UNITS_FMT_MAX], d[UNITS_FMT_MAX];

    if (k->timed == 0) {
        fputs("latency: no request succeeded\n", out);
        return;
    }
    if (hist_count(k->hist) == 0) {
        fputs("latency: no histogram data\n", out);
        print_gap_note(out, k);
        return;
    }
    fputs("latency percentiles:\n", out);
    for (size_t i = 0; i < sizeof(report_pcts) / sizeof(report_pcts[0]); i++) {
        fprintf(out, "%8s %9s\n", report_pcts[i].label,
                units_format_duration(hist_percentile(k->hist, report_pcts[i].pct), a, sizeof(a)));
    }
    fprintf(out, "latency min %s, mean %s, max %s, stddev %s\n",
            units_format_duration(hist_min(k->hist), a, sizeof(a)),
            fmt_duration(hist_mean(k->hist), b),
            units_format_duration(hist_max(k->hist), c, sizeof(c)),
            fmt_duration(hist_stddev(k->hist), d));
    print_gap_note(out, k);
}

/* Errors by class; first_error is the run's first message per class, or NULL
 * (per kind, where the ticks keep none). */
static void print_errors(FILE *out, const struct kind_totals *k,
                         const char (*first_error)[TICK_TEXT_MAX])
{
    char n[NUM_MAX], all[NUM_MAX], pct[NUM_MAX], msg[MESSAGE_SHOWN_MAX];
    uint64_t failed = errclass_sum(k->errors);

    if (failed == 0) {
        fputs("errors: none\n", out);
        return;
    }
    fprintf(out, "errors: %s of %s requests (%s)\n", report__fmt_grouped(failed, n),
            report__fmt_grouped(k->completed, all),
            report__fmt_percent(failed, k->completed, 2, pct));
    for (int c = 0; c < ERR__COUNT; c++) {
        if (k->errors[c] == 0)
            continue;
        msg[0] = '\0';
        if (first_error != NULL)
            report__shown(first_error[c], TICK_TEXT_MAX, msg, sizeof(msg));
        fprintf(out, "  %-15s %11s %7s%s%s\n", errclass_name((enum errclass)c),
                report__fmt_grouped(k->errors[c], n),
                report__fmt_percent(k->errors[c], k->completed, 2, pct), msg[0] ? "  " : "", msg);
    }
}

/* "sent again: N (closed_idle N, refused_stream N)", when any was. */
static void print_resent(FILE *out, const uint64_t resent[RESEND__COUNT])
{
    char n[NUM_MAX];
    const char *sep = "";

    if (tick_resent_sum(resent) == 0)
        return;
    fprintf(out, "sent again: %s (", report__fmt_grouped(tick_resent_sum(resent), n));
    for (int c = 0; c < RESEND__COUNT; c++) {
        if (resent[c] == 0)
            continue;
        fprintf(out, "%s%s %s", sep, resend_cause_name((enum resend_cause)c),
                report__fmt_grouped(resent[c], n));
        sep = ", ";
    }
    fputs("), each counted once above by its last outcome\n", out);
}

/* Latency and errors of one kind or of the run; a run without completions
 * says so instead of printing a table of zeros. */
static void print_outcomes(FILE *out, const struct kind_totals *k,
                           const char (*first_error)[TICK_TEXT_MAX])
{
    if (k->completed == 0) {
        fputs("no requests completed\n", out);
        return;
    }
    print_latency(out, k);
    print_errors(out, k, first_error);
}

/* The latency of failed requests, timed apart from the successes' above. */
static void print_failed_latency(FILE *out, const struct summary *s)
{
    const struct hist *h = s->failed.hist;
    char n[NUM_MAX], a[UNITS_FMT_MAX], b[UNITS_FMT_MAX], c[UNITS_FMT_MAX], d[UNITS_FMT_MAX];

    if (hist_count(h) == 0)
        return;
    fprintf(out, "latency of failed requests (%s timed): p50 %s, p90 %s, p99 %s, max %s\n",
            report__fmt_grouped(hist_count(h), n),
            units_format_duration(hist_percentile(h, 50.0), a, sizeof(a)),
            units_format_duration(hist_percentile(h, 90.0), b, sizeof(b)),
            units_format_duration(hist_percentile(h, 99.0), c, sizeof(c)),
            units_format_duration(hist_max(h), d, sizeof(d)));
}

static void print_concurrency(FILE *out, const struct summary *s)
{
    char rate[NUM_MAX];

    if (s->models_seen & (1u << LOAD_CLOSED)) {
        if (s->min_target_concurrency == s->max_target_concurrency)
            fprintf(out, "concurrency: target %" PRIu32, s->max_target_concurrency);
        else
            fprintf(out, "concurrency: target %" PRIu32 " to %" PRIu32, s->min_target_concurrency,
                    s->max_target_concurrency);
        fprintf(out, ", max active %" PRIu32 "\n", s->max_actual_concurrency);
    }
    if (s->models_seen & (1u << LOAD_OPEN))
        fprintf(out, "rate: max target %s/s, max in flight %" PRIu32 " (cap %" PRIu32 ")\n",
                report__fmt_rate(s->max_target_rate_per_s, rate), s->max_in_flight,
                s->in_flight_cap);
}

static void print_model(FILE *out, const struct summary *s)
{
    unsigned closed = 1u << LOAD_CLOSED, open = 1u << LOAD_OPEN;

    if (s->models_seen == closed)
        fprintf(out, "latency: closed-loop, from the actual send (load model %s); successes only\n",
                load_model_name(LOAD_CLOSED));
    else if (s->models_seen == open)
        fprintf(out, "latency: from the intended send (load model %s); successes only\n",
                load_model_name(LOAD_OPEN));
    else if (s->models_seen != 0)
        fputs("latency: closed-loop in closed intervals, from the intended send in open ones "
              "(load model mixed); successes only\n",
              out);
}

/* "HTTP version: h2 (curl transport)", when the ticks said. */
static void print_http_version(FILE *out, const struct summary *s)
{
    char version[sizeof(s->http_version) * 4 + 4], transport[sizeof(s->transport) * 4 + 4];

    if (!s->http_version[0])
        return;
    fprintf(out, "HTTP version: %s",
            report__shown(s->http_version, sizeof(s->http_version), version, sizeof(version)));
    if (s->transport[0])
        fprintf(out, " (%s transport)",
                report__shown(s->transport, sizeof(s->transport), transport, sizeof(transport)));
    fputc('\n', out);
}

/* Open model: how late brink sent its requests (intended start to send), the
 * part of the corrected latency that is brink's, not the server's. */
static void print_send_lag(FILE *out, const struct kind_totals *k)
{
    char p50[UNITS_FMT_MAX], p99[UNITS_FMT_MAX], max[UNITS_FMT_MAX];

    if (hist_count(k->hist) == 0)
        return;
    fprintf(out, "send lag p50 %s p99 %s max %s\n",
            units_format_duration(hist_percentile(k->hist, 50.0), p50, sizeof(p50)),
            units_format_duration(hist_percentile(k->hist, 99.0), p99, sizeof(p99)),
            units_format_duration(hist_max(k->hist), max, sizeof(max)));
}

/* The open model: requested against achieved, and whether the schedule was
 * kept, then the service times beside the corrected latency above. */
static void print_schedule(FILE *out, const struct summary *s)
{
    const struct summary_schedule *sc = &s->sched;
    char req[NUM_MAX], got[NUM_MAX], lag[UNITS_FMT_MAX], n[NUM_MAX];

    if (sc->open_ticks == 0)
        return;
    fprintf(out, "schedule: requested %s/s, achieved %s/s over %s of open model; ",
            report__fmt_rate(sc->open_us ? sc->rate_us / (double)sc->open_us : 0, req),
            report__fmt_rate(tick_per_s(sc->started, sc->open_us), got),
            units_format_duration(sc->open_us, lag, sizeof(lag)));
    units_format_duration(sc->max_lag_us, lag, sizeof(lag));
    if (sc->ticks_not_kept == 0)
        fprintf(out, "kept (max lag %s)\n", lag);
    else
        fprintf(out, "NOT KEPT in %s of %s ticks (max lag %s, in-flight cap reached %s times)\n",
                report__fmt_grouped(sc->ticks_not_kept, n),
                report__fmt_grouped(sc->open_ticks, got), lag,
                report__fmt_grouped(sc->capped, req));
    if (s->service.completed == 0)
        return;
    fputs("service time (actual start to end, not corrected):\n", out);
    print_latency(out, &s->service);
    print_send_lag(out, &s->send_lag);
}

/* Where the time went: a row per phase (count, p50, p90, p99, max), then
 * the connections; left out when no phase was timed (a session written
 * before phases were). */
static void print_phases(FILE *out, const struct summary *s)
{
    static const double pcts[] = {50.0, 90.0, 99.0};
    char n[NUM_MAX], v[UNITS_FMT_MAX], rate[NUM_MAX];
    uint64_t timed = 0;

    for (int p = 0; p < PHASE__COUNT; p++)
        timed += hist_count(s->phases[p]);
    if (timed == 0)
        return;
    fprintf(out, "where the time goes: %11s %9s %9s %9s %9s\n", "count", "p50", "p90", "p99",
            "max");
    for (int p = 0; p < PHASE__COUNT; p++) {
        const struct hist *h = s->phases[p];

        fprintf(out, "  %-18s %11s", tick_phase_name((enum tick_phase)p),
                report__fmt_grouped(hist_count(h), n));
        for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
            fprintf(out, " %9s",
                    hist_count(h) ? units_format_duration(hist_percentile(h, pcts[i]), v, sizeof(v))
                                  : "-");
        fprintf(out, " %9s\n",
                hist_count(h) ? units_format_duration(hist_max(h), v, sizeof(v)) : "-");
    }
    if (s->phase_gaps)
        fprintf(out, "note: %" PRIu64 " phase histogram%s damaged\n", s->phase_gaps,
                s->phase_gaps == 1 ? " was" : "s were");
    fprintf(out, "connections: %s opened (%s/s), at most %" PRIu32 " open\n",
            report__fmt_grouped(s->connections_opened, n),
            report__fmt_rate(tick_per_s(s->connections_opened, s->duration_us), rate),
            s->max_connections);
}

static void print_statuses(FILE *out, const struct summary *s)
{
    char n[NUM_MAX];

    fputs("HTTP statuses:", out);
    if (s->n_status == 0 && s->status_other == 0)
        fputs(" none", out);
    for (uint32_t i = 0; i < s->n_status; i++)
        fprintf(out, " %u=%s", (unsigned)s->status[i].code,
                report__fmt_grouped(s->status[i].count, n));
    if (s->status_other)
        fprintf(out, " other=%s", report__fmt_grouped(s->status_other, n));
    fputc('\n', out);
}

static void print_events(FILE *out, const struct summary *s)
{
    char n[NUM_MAX], at[UNITS_FMT_MAX], text[MESSAGE_SHOWN_MAX];

    if (s->n_events == 0 && s->events_more == 0)
        return;
    fprintf(out, "events: %s\n", report__fmt_grouped(s->n_events + s->events_more, n));
    for (uint32_t i = 0; i < s->n_events; i++) {
        const struct tick_event *e = &s->events[i];

        fprintf(out, "  %8s %s: %s\n", units_format_duration(e->at_ms * 1000, at, sizeof(at)),
                event_kind_name(e->kind),
                report__shown(e->text, sizeof(e->text), text, sizeof(text)));
    }
    if (s->events_more)
        fprintf(out, "  and %s more, not kept\n", report__fmt_grouped(s->events_more, n));
}

static void print_probes(FILE *out, const struct summary *s)
{
    char name[NAME_SHOWN_MAX], last[NUM_MAX], max[NUM_MAX], n[NUM_MAX], why[MESSAGE_SHOWN_MAX];

    if (s->n_probes == 0)
        return;
    fputs("server counters:\n", out);
    for (uint32_t i = 0; i < s->n_probes; i++) {
        const struct probe_totals *p = &s->probes[i];

        fprintf(out, "  %s", report__shown(p->name, sizeof(p->name), name, sizeof(name)));
        if (p->has_value && p->mark == TICK_MARK_CHECK)
            fprintf(out, ": passed %s, failed %s", report__fmt_grouped(p->passed, last),
                    report__fmt_total(p->sum, max));
        else if (p->has_value && p->mark == TICK_MARK_COUNTER)
            fprintf(out, ": total %s", report__fmt_total(p->sum, n));
        else if (p->has_value)
            fprintf(out, ": last %s, max %s", report__fmt_g(p->last, 6, last),
                    report__fmt_g(p->max, 6, max));
        else
            fputs(": no value", out);
        if (p->failing_ticks)
            fprintf(out, "; failing or stale in %s ticks (%s)",
                    report__fmt_grouped(p->failing_ticks, n),
                    report__shown(p->last_error, sizeof(p->last_error), why, sizeof(why)));
        fputc('\n', out);
    }
}

static void print_agents(FILE *out, const struct summary *s)
{
    char n[NUM_MAX], from[UNITS_FMT_MAX], to[UNITS_FMT_MAX], who[MESSAGE_SHOWN_MAX];

    if (s->n_agents == 0)
        return;
    if (s->partial_ticks == 0) {
        fprintf(out, "agents: %u, every tick whole\n", s->n_agents);
        return;
    }
    fprintf(out, "agents: %u; partial ticks (an agent's figures missing): %s\n", s->n_agents,
            report__fmt_grouped(s->partial_ticks, n));
    for (uint32_t i = 0; i < s->n_spans; i++)
        fprintf(out, "  %s to %s without %s\n",
                units_format_duration(s->spans[i].from_us, from, sizeof(from)),
                units_format_duration(s->spans[i].to_us, to, sizeof(to)),
                report__shown(s->spans[i].lost, sizeof(s->spans[i].lost), who, sizeof(who)));
    if (s->spans_more)
        fprintf(out, "  and %s more spans\n", report__fmt_grouped(s->spans_more, n));
    report__trails_print(out, &s->trails);
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

static void print_kinds(FILE *out, const struct summary *s)
{
    char name[NAME_SHOWN_MAX], n[NUM_MAX];

    if (s->n_kinds < 2)
        return;
    for (uint32_t i = 0; i < s->n_kinds; i++) {
        const struct kind_totals *k = &s->kinds[i];

        fprintf(out, "\nkind %s: ", report__shown(k->name, sizeof(k->name), name, sizeof(name)));
        print_volume(out, k, s->duration_us);
        print_outcomes(out, k, NULL);
    }
    if (s->unmatched_completed)
        fprintf(out, "\nnote: %s requests of kinds past the first %d are in the totals only\n",
                report__fmt_grouped(s->unmatched_completed, n), TICK_MAX_KINDS);
}

/* "dropped D, aborted at stop A, bodies cut B, connections opened C". */
static void print_counts(FILE *out, const struct summary *s)
{
    char d[NUM_MAX], a[NUM_MAX], b[NUM_MAX], c[NUM_MAX];

    fprintf(out, "dropped %s, aborted at stop %s, bodies cut %s, connections opened %s\n",
            report__fmt_grouped(s->dropped, d), report__fmt_grouped(s->aborted, a),
            report__fmt_grouped(s->bodies_cut, b), report__fmt_grouped(s->connections_opened, c));
}

int summary_print(const struct summary *s, FILE *out)
{
    char d[UNITS_FMT_MAX];

    fprintf(out, "duration %s, ", units_format_duration(s->duration_us, d, sizeof(d)));
    print_volume(out, &s->total, s->duration_us);
    print_concurrency(out, s);
    print_model(out, s);
    print_outcomes(out, &s->total, s->first_error);
    print_resent(out, s->resent);
    print_failed_latency(out, s);
    print_schedule(out, s);
    print_statuses(out, s);
    print_http_version(out, s);
    print_counts(out, s);
    if (s->cookies_dropped)
        fprintf(out, "cookies dropped %" PRIu64 " (a user's jar holds %d cookies, %u KiB)\n",
                s->cookies_dropped, COOKIES_MAX, COOKIES_BYTES_MAX >> 10);
    if (s->marks_dropped)
        fprintf(out,
                "check and counter calls dropped %" PRIu64
                " (names past %d a tick shows, with the probes: see the events)\n",
                s->marks_dropped, TICK_MAX_PROBES);
    print_phases(out, s);
    print_probes(out, s);
    print_agents(out, s);
    print_events(out, s);
    print_kinds(out, s);
    if (fflush(out) != 0 || ferror(out))
        return -EIO;
    return 0;
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
    out->bytes_in = k->bytes_in;
    out->bytes_out = k->bytes_out;
    out->errors = k->errors;
    out->hist_gaps = k->hist_gaps;
    out->hist = k->hist;
    return 0;
}
