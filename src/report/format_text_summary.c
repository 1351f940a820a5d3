/*
 * The text report's summary, like wrk's and ab's (docs/report.md): the
 * figures summary.c added up, read through summary.h's calls, laid out as
 * text. Prints, never adds up.
 */
#include "report/summary.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/cookies.h"
#include "core/errclass.h"
#include "core/hist.h"
#include "core/tick.h"
#include "core/units.h"
#include "report/internal.h"

/* A sanitized error message or event text, whole: each byte shows as at
 * most four (\xNN), so a report in a pipe or a file loses none of it. */
#define MESSAGE_SHOWN_MAX (TICK_TEXT_MAX * 4 + 1)
#define NAME_SHOWN_MAX 80 /* bytes of a sanitized kind name shown */
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

/* ---- formatting figures (the shared helpers are in fmt.c) ---- */

static char *fmt_duration(double us, char *buf)
{
    return units_format_duration(report__round_u64(us), buf, UNITS_FMT_MAX);
}

/* ---- the report ---- */

/* "93,512 requests, ok 3,100 req/s, failed 17/s, 3.12 MB/s in, 0.10 MB/s
 * out": successes and failures apart, as the console's throughput line. */
static void print_volume(FILE *out, const struct summary_totals *k, uint64_t duration_us)
{
    char n[NUM_MAX], rate[NUM_MAX], failed[NUM_MAX], in[NUM_MAX], sent[NUM_MAX];
    uint64_t n_failed = errclass_sum(k->errors);

    fprintf(out, "%s request%s, ok %s req/s, failed %s/s, %s MB/s in, %s MB/s out\n",
            report__fmt_grouped(k->completed, n), k->completed == 1 ? "" : "s",
            report__fmt_rate(tick_per_s(report__minus(k->completed, n_failed), duration_us), rate),
            report__fmt_rate(tick_per_s(n_failed, duration_us), failed),
            report__fmt_fixed(tick_per_s(k->bytes_in, duration_us) / 1e6, 2, in),
            report__fmt_fixed(tick_per_s(k->bytes_out, duration_us) / 1e6, 2, sent));
}

static void print_gap_note(FILE *out, const struct summary_totals *k)
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

static void print_latency(FILE *out, const struct summary_totals *k)
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

/* Errors by class, with the run's first message per class from first_errors,
 * or none (NULL: per kind, where the ticks keep none). */
static void print_errors(FILE *out, const struct summary_totals *k,
                         const struct summary *first_errors)
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
        if (first_errors != NULL)
            report__shown(summary_first_error(first_errors, (enum errclass)c), TICK_TEXT_MAX, msg,
                          sizeof(msg));
        fprintf(out, "  %-15s %11s %7s%s%s\n", errclass_name((enum errclass)c),
                report__fmt_grouped(k->errors[c], n),
                report__fmt_percent(k->errors[c], k->completed, 2, pct), msg[0] ? "  " : "", msg);
    }
}

/* "sent again: N (closed_idle N, refused_stream N)", when any was. */
static void print_resent(FILE *out, const uint64_t resent[RESEND__COUNT])
{
    char text[REPORT_RESENT_MAX];

    if (tick_resent_sum(resent) != 0)
        fprintf(out, "sent again: %s, each counted once above by its last outcome\n",
                report__fmt_resent(resent, text));
}

/* Latency and errors of one kind or of the run; a run without completions
 * says so instead of printing a table of zeros. */
static void print_outcomes(FILE *out, const struct summary_totals *k,
                           const struct summary *first_errors)
{
    if (k->completed == 0) {
        fputs("no requests completed\n", out);
        return;
    }
    print_latency(out, k);
    print_errors(out, k, first_errors);
}

/* The latency of failed requests, timed apart from the successes' above. */
static void print_failed_latency(FILE *out, const struct summary *s)
{
    struct summary_totals failed;
    const struct hist *h;
    char n[NUM_MAX], a[UNITS_FMT_MAX], b[UNITS_FMT_MAX], c[UNITS_FMT_MAX], d[UNITS_FMT_MAX];

    summary_totals(s, SUMMARY_FAILED, &failed);
    h = failed.hist;
    if (hist_count(h) == 0)
        return;
    fprintf(out, "latency of failed requests (%s timed): p50 %s, p90 %s, p99 %s, max %s\n",
            report__fmt_grouped(hist_count(h), n),
            units_format_duration(hist_percentile(h, 50.0), a, sizeof(a)),
            units_format_duration(hist_percentile(h, 90.0), b, sizeof(b)),
            units_format_duration(hist_percentile(h, 99.0), c, sizeof(c)),
            units_format_duration(hist_max(h), d, sizeof(d)));
}

static void print_concurrency(FILE *out, const struct summary_run *r)
{
    char rate[NUM_MAX];

    if (r->models_seen & (1u << LOAD_CLOSED)) {
        if (r->min_target_concurrency == r->max_target_concurrency)
            fprintf(out, "concurrency: target %" PRIu32, r->max_target_concurrency);
        else
            fprintf(out, "concurrency: target %" PRIu32 " to %" PRIu32, r->min_target_concurrency,
                    r->max_target_concurrency);
        fprintf(out, ", max active %" PRIu32 "\n", r->max_actual_concurrency);
    }
    if (r->models_seen & (1u << LOAD_OPEN))
        fprintf(out, "rate: max target %s/s, max in flight %" PRIu32 " (cap %" PRIu32 ")\n",
                report__fmt_rate(r->max_target_rate_per_s, rate), r->max_in_flight,
                r->in_flight_cap);
}

static void print_model(FILE *out, const struct summary_run *r)
{
    unsigned closed = 1u << LOAD_CLOSED, open = 1u << LOAD_OPEN;

    if (r->models_seen == closed)
        fprintf(out, "latency: closed-loop, from the actual send (load model %s); successes only\n",
                load_model_name(LOAD_CLOSED));
    else if (r->models_seen == open)
        fprintf(out, "latency: from the intended send (load model %s); successes only\n",
                load_model_name(LOAD_OPEN));
    else if (r->models_seen != 0)
        fputs("latency: closed-loop in closed intervals, from the intended send in open ones "
              "(load model mixed); successes only\n",
              out);
}

/* "HTTP version: h2 (curl transport)", when the ticks said. */
static void print_http_version(FILE *out, const struct summary_run *r)
{
    char version[sizeof(r->http_version) * 4 + 4], transport[sizeof(r->transport) * 4 + 4];

    if (!r->http_version[0])
        return;
    fprintf(out, "HTTP version: %s",
            report__shown(r->http_version, sizeof(r->http_version), version, sizeof(version)));
    if (r->transport[0])
        fprintf(out, " (%s transport)",
                report__shown(r->transport, sizeof(r->transport), transport, sizeof(transport)));
    fputc('\n', out);
}

/* Open model: how late brink sent its requests (intended start to send), the
 * part of the corrected latency that is brink's, not the server's. */
static void print_send_lag(FILE *out, const struct summary_totals *k)
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
    const struct summary_schedule *sc = summary_schedule(s);
    struct summary_totals service, send_lag;
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
    summary_totals(s, SUMMARY_SERVICE, &service);
    if (service.completed == 0)
        return;
    fputs("service time (actual start to end, not corrected):\n", out);
    print_latency(out, &service);
    summary_totals(s, SUMMARY_SEND_LAG, &send_lag);
    print_send_lag(out, &send_lag);
}

/* Where the time went: a row per phase (count, p50, p90, p99, max), then
 * the connections; left out when no phase was timed (a session written
 * before phases were). */
static void print_phases(FILE *out, const struct summary *s)
{
    static const double pcts[] = {50.0, 90.0, 99.0};
    char n[NUM_MAX], v[UNITS_FMT_MAX], rate[NUM_MAX];
    struct summary_connections conn;
    uint64_t timed = 0;

    for (int p = 0; p < PHASE__COUNT; p++)
        timed += hist_count(summary_phase(s, (enum tick_phase)p));
    if (timed == 0)
        return;
    fprintf(out, "where the time goes: %11s %9s %9s %9s %9s\n", "count", "p50", "p90", "p99",
            "max");
    for (int p = 0; p < PHASE__COUNT; p++) {
        const struct hist *h = summary_phase(s, (enum tick_phase)p);

        fprintf(out, "  %-18s %11s", tick_phase_name((enum tick_phase)p),
                report__fmt_grouped(hist_count(h), n));
        for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
            fprintf(out, " %9s",
                    hist_count(h) ? units_format_duration(hist_percentile(h, pcts[i]), v, sizeof(v))
                                  : "-");
        fprintf(out, " %9s\n",
                hist_count(h) ? units_format_duration(hist_max(h), v, sizeof(v)) : "-");
    }
    summary_connections(s, &conn);
    if (conn.phase_gaps)
        fprintf(out, "note: %" PRIu64 " phase histogram%s damaged\n", conn.phase_gaps,
                conn.phase_gaps == 1 ? " was" : "s were");
    fprintf(out, "connections: %s opened (%s/s), at most %" PRIu32 " open\n",
            report__fmt_grouped(conn.opened, n),
            report__fmt_rate(tick_per_s(conn.opened, summary_duration_us(s)), rate), conn.max_open);
}

/* "HTTP statuses: 200=N ...", or "none"; nothing for a run that spoke no
 * HTTP (a scenario's TCP and WebSocket exchanges alone: transport stream). */
static void print_statuses(FILE *out, const struct summary *s, const struct summary_run *r)
{
    char n[NUM_MAX];
    uint32_t n_status;
    const struct tick_status *status = summary_statuses(s, &n_status);
    uint64_t other = summary_statuses_other(s);

    if (n_status == 0 && other == 0 && strncmp(r->transport, "stream", sizeof(r->transport)) == 0)
        return;
    fputs("HTTP statuses:", out);
    if (n_status == 0 && other == 0)
        fputs(" none", out);
    for (uint32_t i = 0; i < n_status; i++)
        fprintf(out, " %u=%s", (unsigned)status[i].code, report__fmt_grouped(status[i].count, n));
    if (other)
        fprintf(out, " other=%s", report__fmt_grouped(other, n));
    fputc('\n', out);
}

static void print_events(FILE *out, const struct summary *s)
{
    char n[NUM_MAX], at[UNITS_FMT_MAX], text[MESSAGE_SHOWN_MAX];
    uint32_t n_events;
    const struct tick_event *events = summary_events(s, &n_events);
    uint64_t more = summary_events_more(s);

    if (n_events == 0 && more == 0)
        return;
    fprintf(out, "events: %s\n", report__fmt_grouped(n_events + more, n));
    for (uint32_t i = 0; i < n_events; i++) {
        const struct tick_event *e = &events[i];

        fprintf(out, "  %8s %s: %s\n", units_format_duration(e->at_ms * 1000, at, sizeof(at)),
                event_kind_name(e->kind),
                report__shown(e->text, sizeof(e->text), text, sizeof(text)));
    }
    if (more)
        fprintf(out, "  and %s more, not kept\n", report__fmt_grouped(more, n));
}

static void print_probes(FILE *out, const struct summary *s)
{
    char name[NAME_SHOWN_MAX], last[NUM_MAX], max[NUM_MAX], n[NUM_MAX], why[MESSAGE_SHOWN_MAX];
    const struct summary_probe *p;

    if (summary_probe(s, 0) == NULL)
        return;
    fputs("server counters:\n", out);
    for (uint32_t i = 0; (p = summary_probe(s, i)) != NULL; i++) {
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

/* What each lost agent may have done after its last tick in the merge, one
 * indented line each (docs/agents.md, "Faults"). */
static void print_lost(FILE *out, const struct summary *s)
{
    char name[REPORT_NAME_MAX], at[UNITS_FMT_MAX], from[UNITS_FMT_MAX], to[UNITS_FMT_MAX];
    char span[UNITS_FMT_MAX], rate[REPORT_NUM_MAX], n[REPORT_NUM_MAX];
    struct summary_lost l;

    for (uint32_t i = 0; summary_lost(s, i, &l) == 0; i++) {
        report__shown(l.name, TICK_NAME_MAX, name, sizeof(name));
        units_format_duration(l.lost_at_us, at, sizeof(at));
        if (!l.has_tick) {
            fprintf(out,
                    "  %s lost at %s before any tick of it was merged: what it sent is "
                    "counted nowhere\n",
                    name, at);
            continue;
        }
        fprintf(out,
                "  %s lost at %s: it may have run %s after its last tick (%s to %s) at %s req/s "
                "with %u in flight: up to about %s requests counted nowhere\n",
                name, at, units_format_duration(l.until_us - l.last_end_us, span, sizeof(span)),
                units_format_duration(l.last_end_us, from, sizeof(from)),
                units_format_duration(l.until_us, to, sizeof(to)),
                report__fmt_rate(l.rate_per_s, rate), l.in_flight,
                report__fmt_grouped(l.requests, n));
    }
}

static void print_agents(FILE *out, const struct summary *s)
{
    char n[NUM_MAX], from[UNITS_FMT_MAX], to[UNITS_FMT_MAX], who[MESSAGE_SHOWN_MAX];
    uint32_t n_agents = summary_n_agents(s);
    uint64_t partial = summary_partial_ticks(s), more = summary_spans_more(s);
    struct summary_span sp;

    if (n_agents == 0)
        return;
    if (partial == 0) {
        fprintf(out, "agents: %u, every tick whole\n", n_agents);
        return;
    }
    fprintf(out, "agents: %u; partial ticks (an agent's figures missing): %s\n", n_agents,
            report__fmt_grouped(partial, n));
    for (uint32_t i = 0; summary_span(s, i, &sp) == 0; i++)
        fprintf(out, "  %s to %s without %s\n",
                units_format_duration(sp.from_us, from, sizeof(from)),
                units_format_duration(sp.to_us, to, sizeof(to)),
                report__shown(sp.lost, TICK_TEXT_MAX, who, sizeof(who)));
    if (more)
        fprintf(out, "  and %s more spans\n", report__fmt_grouped(more, n));
    print_lost(out, s);
}

static void print_kinds(FILE *out, const struct summary *s, const struct summary_run *r)
{
    char name[NAME_SHOWN_MAX], n[NUM_MAX];
    uint32_t n_kinds = summary_n_kinds(s);
    struct summary_totals k;

    if (n_kinds < 2)
        return;
    for (uint32_t i = 0; i < n_kinds; i++) {
        summary_totals(s, (int)i, &k);
        fprintf(out, "\nkind %s: ", report__shown(k.name, TICK_NAME_MAX, name, sizeof(name)));
        print_volume(out, &k, summary_duration_us(s));
        print_outcomes(out, &k, NULL);
    }
    if (r->unmatched_completed)
        fprintf(out, "\nnote: %s requests of kinds past the first %d are in the totals only\n",
                report__fmt_grouped(r->unmatched_completed, n), TICK_MAX_KINDS);
}

/* "dropped D, aborted at stop A, bodies cut B, connections opened C". */
static void print_counts(FILE *out, const struct summary_run *r, uint64_t opened)
{
    char d[NUM_MAX], a[NUM_MAX], b[NUM_MAX], c[NUM_MAX];

    fprintf(out, "dropped %s, aborted at stop %s, bodies cut %s, connections opened %s\n",
            report__fmt_grouped(r->dropped, d), report__fmt_grouped(r->aborted, a),
            report__fmt_grouped(r->bodies_cut, b), report__fmt_grouped(opened, c));
}

int summary_print(const struct summary *s, FILE *out)
{
    char d[UNITS_FMT_MAX];
    uint64_t duration_us = summary_duration_us(s);
    struct summary_totals total;
    struct summary_run r;
    struct summary_connections conn;

    summary_totals(s, SUMMARY_TOTAL, &total);
    summary_run(s, &r);
    summary_connections(s, &conn);
    fprintf(out, "duration %s, ", units_format_duration(duration_us, d, sizeof(d)));
    print_volume(out, &total, duration_us);
    print_concurrency(out, &r);
    print_model(out, &r);
    print_outcomes(out, &total, s);
    print_resent(out, conn.resent);
    print_failed_latency(out, s);
    print_schedule(out, s);
    print_statuses(out, s, &r);
    print_http_version(out, &r);
    print_counts(out, &r, conn.opened);
    if (r.cookies_dropped)
        fprintf(out, "cookies dropped %" PRIu64 " (a user's jar holds %d cookies, %u KiB)\n",
                r.cookies_dropped, COOKIES_MAX, COOKIES_BYTES_MAX >> 10);
    if (r.marks_dropped)
        fprintf(out,
                "check and counter calls dropped %" PRIu64
                " (names past %d a tick shows, with the probes: see the events)\n",
                r.marks_dropped, TICK_MAX_PROBES);
    print_phases(out, s);
    print_probes(out, s);
    print_agents(out, s);
    print_events(out, s);
    print_kinds(out, s, &r);
    if (fflush(out) != 0 || ferror(out))
        return -EIO;
    return 0;
}
