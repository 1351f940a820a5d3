/*
 * format_html: the report page of a session, and of several overlaid. One
 * file: inline CSS and SVG, no script, no link, no image from anywhere, and a
 * Content-Security-Policy that forbids all three, so what a session's
 * strings might hold never runs even if it got through the escaping.
 */
#include "report/html.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/hist.h"
#include "core/redact.h"
#include "core/steps.h"
#include "core/units.h"
#include "core/usl.h"
#include "core/xalloc.h"
#include "report/formats.h"
#include "report/html_internal.h"
#include "report/internal.h"
#include "report/summary.h"

#define CONFIG_LINE_MAX 1024

/* ---- curves built from points ---- */

/* x, y and has arrays of n entries (freed by curve_free). */
struct curve {
    size_t n;
    double *x, *y;
    unsigned char *has;
};

static void curve_init(struct curve *c, size_t n)
{
    c->n = n;
    c->x = xcalloc(n ? n : 1, sizeof(*c->x));
    c->y = xcalloc(n ? n : 1, sizeof(*c->y));
    c->has = xcalloc(n ? n : 1, 1);
}

static void curve_free(struct curve *c)
{
    free(c->x);
    free(c->y);
    free(c->has);
}

static struct html_series curve_series(const struct curve *c, const char *name, int colour,
                                       enum html_value_fmt fmt)
{
    return (struct html_series){
        .name = name, .colour = colour, .n = c->n, .x = c->x, .y = c->y, .has = c->has, .fmt = fmt};
}

/* What a time curve plots of a point. */
enum measure {
    M_OK_PER_S, /* successes per second */
    M_OK_LAT,   /* successes' latency; arg: 0 p50, 1 p90, 2 p99, 3 max */
    M_FAILED_LAT,
    M_ERRORS_PER_S, /* arg: the class; ERR__COUNT: all */
    M_PROBE,        /* arg: the probe */
};

static void time_curve(const struct html_run *run, enum measure m, int arg, struct curve *c)
{
    curve_init(c, run->n_points);
    for (size_t i = 0; i < run->n_points; i++) {
        const struct html_point *p = &run->points[i];
        double secs = (double)p->duration_us / 1e6;

        c->x[i] = (double)(p->start_us + p->duration_us) / 1e6;
        c->has[i] = 1;
        switch (m) {
        case M_OK_PER_S: c->y[i] = tick_per_s(p->completed - p->failed, p->duration_us); break;
        case M_OK_LAT:
            c->y[i] = (double)p->ok_us[arg];
            c->has[i] = p->ok_timed > 0;
            break;
        case M_FAILED_LAT:
            c->y[i] = (double)p->failed_us[arg];
            c->has[i] = p->failed_timed > 0;
            break;
        case M_ERRORS_PER_S:
            c->y[i] =
                secs > 0 ? (double)(arg == ERR__COUNT ? p->failed : p->errors[arg]) / secs : 0;
            break;
        case M_PROBE:
            c->y[i] = p->probe[arg];
            c->has[i] = (p->has_probe >> arg) & 1u;
            break;
        }
    }
}

static double run_end_s(const struct html_run *run)
{
    const struct html_point *p;

    if (run->n_points == 0)
        return 1.0;
    p = &run->points[run->n_points - 1];
    return (double)(p->start_us + p->duration_us) / 1e6;
}

static void time_chart(struct html_chart *c, FILE *out, const char *id, const char *title,
                       const char *unit, const struct html_run *run, double x_hi)
{
    *c = (struct html_chart){.out = out,
                             .id = id,
                             .title = title,
                             .y_unit = unit,
                             .x_is_time = 1,
                             .x_hi = x_hi,
                             .n_points = run->n_points};
}

/* data-t: the end of each point in ms, as a paragraph the chart follows. */
static void write_times(FILE *out, const struct html_run *run)
{
    fputs("<p class=\"times\" hidden data-t=\"", out);
    for (size_t i = 0; i < run->n_points; i++)
        fprintf(out, "%s%" PRIu64, i ? "," : "",
                (run->points[i].start_us + run->points[i].duration_us) / 1000);
    fputs("\"></p>\n", out);
}

static const char *event_class(int kind)
{
    return kind == HTML_EV_LEVEL ? "level" : event_kind_name((enum event_kind)kind);
}

/* The changes of level first: where labels crowd, theirs are kept. */
static void draw_events(struct html_chart *c, const struct html_run *run)
{
    char label[REPORT_NUM_MAX];

    for (int is_level = 1; is_level >= 0; is_level--) {
        for (size_t i = 0; i < run->n_events; i++) {
            const struct html_event *e = &run->events[i];
            char cls[40];

            if ((e->kind == HTML_EV_LEVEL) != is_level)
                continue;
            snprintf(cls, sizeof(cls), "ev-%s", event_class(e->kind));
            if (e->kind == HTML_EV_LEVEL)
                snprintf(label, sizeof(label), "%.40s", e->text); /* written by html_run, ASCII */
            else
                snprintf(label, sizeof(label), "%zu", i + 1);
            html__chart_vline(c, (double)e->at_ms / 1000.0, cls, label, e->text);
        }
    }
}

/* ---- the charts of one session ---- */

/* Successes and failures are two charts, each on its own scale: a flood of
 * fast failures at the breaking point is not throughput, and must not
 * flatten the successes against the axis. */
static void chart_throughput(FILE *out, const struct html_run *run)
{
    struct html_chart c;
    struct curve cv;
    struct html_series s;

    time_curve(run, M_OK_PER_S, 0, &cv);
    s = curve_series(&cv, "ok/s", HTML_C_OK, HTML_V_FIXED3);
    time_chart(&c, out, "throughput", "Successes over time", "successful requests per second", run,
               run_end_s(run));
    html__chart_fit(&c, &s, 1, NAN);
    html__chart_open(&c, NULL);
    html__chart_series(&c, &s);
    draw_events(&c, run);
    html__chart_close(&c, &s, 1);
    curve_free(&cv);
}

static void chart_latency(FILE *out, const struct html_run *run, int is_failed)
{
    static const char *const names[4] = {"p50", "p90", "p99", "max"};
    struct html_chart c;
    struct curve cv[4];
    struct html_series s[4];

    for (int i = 0; i < 4; i++) {
        time_curve(run, is_failed ? M_FAILED_LAT : M_OK_LAT, i, &cv[i]);
        s[i] = curve_series(&cv[i], names[i], i, HTML_V_INT);
    }
    time_chart(&c, out, is_failed ? "latency-failed" : "latency-ok",
               is_failed ? "Latency of failed requests" : "Latency of successes",
               "p50, p90, p99, max", run, run_end_s(run));
    c.y_is_log = c.y_is_duration = 1;
    html__chart_fit(&c, s, 4, NAN);
    html__chart_open(&c, NULL);
    for (int i = 0; i < 4; i++)
        html__chart_series(&c, &s[i]);
    html__chart_close(&c, s, 4);
    for (int i = 0; i < 4; i++)
        curve_free(&cv[i]);
}

/* A class's colour: the palette without the successes' and the failures'. */
static int class_colour(size_t i)
{
    static const int palette[] = {1, 2, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14};

    return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

static void chart_errors(FILE *out, const struct html_run *run)
{
    struct html_chart c;
    struct curve cv[ERR__COUNT + 1];
    struct html_series s[ERR__COUNT + 1];
    size_t n = 1;

    time_curve(run, M_ERRORS_PER_S, ERR__COUNT, &cv[0]);
    s[0] = curve_series(&cv[0], "failed/s", HTML_C_FAILED, HTML_V_FIXED3);
    for (int k = 0; k < ERR__COUNT; k++) {
        int seen = 0;

        for (size_t i = 0; i < run->n_points && !seen; i++)
            seen = run->points[i].errors[k] > 0;
        if (!seen)
            continue;
        time_curve(run, M_ERRORS_PER_S, k, &cv[n]);
        s[n] = curve_series(&cv[n], errclass_name((enum errclass)k), class_colour(n - 1),
                            HTML_V_FIXED3);
        s[n].is_dashed = 1;
        n++;
    }
    time_chart(&c, out, "errors", "Failures over time",
               "failed requests per second: all, and by class", run, run_end_s(run));
    html__chart_fit(&c, s, n, NAN);
    html__chart_open(&c, NULL);
    for (size_t i = n; i-- > 0;) /* all failures last: on top of a lone class */
        html__chart_series(&c, &s[i]);
    html__chart_close(&c, s, n);
    for (size_t i = 0; i < n; i++)
        curve_free(&cv[i]);
}

static void chart_probe(FILE *out, const struct html_run *run, uint32_t k)
{
    const struct html_alert *a = &run->alerts[k];
    struct html_chart c;
    struct curve cv;
    struct html_series s;
    char id[32], label[REPORT_NUM_MAX + 16], v[REPORT_NUM_MAX];

    snprintf(id, sizeof(id), "probe-%u", k);
    time_curve(run, M_PROBE, (int)k, &cv);
    s = curve_series(&cv, "value", 4, HTML_V_G9);
    time_chart(&c, out, id, "Server counter", "value; a counter's rate per second", run,
               run_end_s(run));
    html__chart_fit(&c, &s, 1, a->op ? a->value : NAN);
    html__chart_open(&c, run->probe_names[k]);
    html__chart_series(&c, &s);
    if (a->op) {
        snprintf(label, sizeof(label), "alert %s %s", a->op == '>' ? "&gt;" : "&lt;",
                 report__fmt_g(a->value, 6, v));
        html__chart_hline(&c, a->value, "threshold", label);
    }
    html__chart_close(&c, &s, 1);
    curve_free(&cv);
}

/* The first plan step that failed, and the last that passed before it. */
static void breaking_rows(const struct steps *st, const struct step_row **broke,
                          const struct step_row **last_good)
{
    *broke = *last_good = NULL;
    for (size_t i = 0; i < steps_count(st) && !*broke; i++) {
        const struct step_row *r = steps_row(st, i);

        if (r->verdict == VERDICT_FAIL)
            *broke = r;
        else if (r->verdict == VERDICT_PASS)
            *last_good = r;
    }
}

/* What a step curve plots of a row. */
enum step_measure { S_OK_PER_S, S_FAILED_PER_S, S_P50, S_P90, S_P99 };

static void step_curve(const struct steps *st, enum step_measure m, struct curve *c)
{
    size_t n = steps_count(st);

    curve_init(c, n);
    for (size_t i = 0; i < n; i++) {
        const struct step_row *r = steps_row(st, i);

        c->x[i] = r->level;
        c->has[i] = 1;
        switch (m) {
        case S_OK_PER_S: c->y[i] = tick_per_s(r->ok, r->duration_us); break;
        case S_FAILED_PER_S: c->y[i] = tick_per_s(steps_row_failed(r), r->duration_us); break;
        case S_P50: c->y[i] = (double)r->p50_us; break;
        case S_P90: c->y[i] = (double)r->p90_us; break;
        case S_P99: c->y[i] = (double)r->p99_us; break;
        }
        if (m >= S_P50)
            c->has[i] = r->timed > 0;
    }
}

static double max_level(const struct steps *st)
{
    double hi = 1.0;

    for (size_t i = 0; i < steps_count(st); i++)
        hi = fmax(hi, steps_row(st, i)->level);
    return hi;
}

static void step_chart(struct html_chart *c, FILE *out, const char *id, const char *title,
                       const char *unit, const struct steps *st, double x_hi)
{
    *c = (struct html_chart){.out = out,
                             .id = id,
                             .title = title,
                             .y_unit = unit,
                             .x_hi = x_hi * 1.05,
                             .n_points = steps_count(st)};
}

/* The knee and the breaking point on a chart against load; y_of gives the
 * breaking row's value on that chart. */
static void mark_steps(struct html_chart *c, const struct html_run *run, const struct steps *st,
                       enum step_measure m)
{
    const struct step_row *broke, *last_good;
    char label[REPORT_NUM_MAX + 8], lv[REPORT_NUM_MAX];
    double y;

    if (run->has_knee) {
        snprintf(label, sizeof(label), "knee %s", report__fmt_level(0, run->knee_level, lv));
        html__chart_vline(c, run->knee_level, "knee", label, "knee");
    }
    breaking_rows(st, &broke, &last_good);
    if (!broke)
        return;
    y = m == S_OK_PER_S       ? tick_per_s(broke->ok, broke->duration_us)
        : m == S_FAILED_PER_S ? tick_per_s(steps_row_failed(broke), broke->duration_us)
        : m == S_P50          ? (double)broke->p50_us
        : m == S_P90          ? (double)broke->p90_us
                              : (double)broke->p99_us;
    html__chart_ring(c, broke->level, y, "breaking", "breaking point");
}

#define USL_CURVE_POINTS 100 /* the fitted curve's values, 1 user to the chart's end */

/* The Universal Scalability Law fitted to the steps (report__usl), as a
 * curve from 1 user to hi; 0 when there is no fit (cv then empty). */
static int usl_curve(const struct steps *st, double hi, struct usl_fit *fit, struct curve *cv)
{
    char why[USL_TEXT_MAX];

    if (report__usl(st, fit, why, sizeof(why)) != 1) {
        curve_init(cv, 0);
        return 0;
    }
    curve_init(cv, USL_CURVE_POINTS);
    for (size_t i = 0; i < USL_CURVE_POINTS; i++) {
        cv->x[i] = 1 + (hi - 1) * (double)i / (USL_CURVE_POINTS - 1);
        cv->y[i] = usl_throughput(fit, cv->x[i]);
        cv->has[i] = 1;
    }
    return 1;
}

/* A chart of one rate per step: successes or failures, on its own scale;
 * over the successes, the Universal Scalability Law fitted to them (dashed)
 * and its peak N* marked. */
static void step_rate_chart(FILE *out, const struct html_run *run, const struct steps *st,
                            enum step_measure m)
{
    int is_ok = m == S_OK_PER_S, has_fit;
    struct html_chart c;
    struct curve cv, fc;
    struct html_series s[2];
    struct usl_fit fit;
    char label[REPORT_NUM_MAX + 8];

    step_curve(st, m, &cv);
    s[0] = curve_series(&cv, is_ok ? "ok/s" : "failed/s", is_ok ? HTML_C_OK : HTML_C_FAILED,
                        HTML_V_FIXED3);
    s[0].is_dots = 1;
    step_chart(&c, out, is_ok ? "steps-throughput" : "steps-failures",
               is_ok ? "Successes against load" : "Failures against load",
               is_ok ? "successful requests/s, one point per step"
                     : "failed requests/s, one point per step",
               st, max_level(st));
    has_fit = is_ok && usl_curve(st, c.x_hi, &fit, &fc);
    if (has_fit) {
        s[1] = curve_series(&fc, "usl", 1, HTML_V_G9);
        s[1].is_dashed = s[1].has_xs = 1;
    }
    html__chart_fit(&c, s, 1 + (size_t)has_fit, NAN);
    html__chart_open(&c, NULL);
    html__chart_series(&c, &s[0]);
    if (has_fit)
        html__chart_series(&c, &s[1]);
    if (has_fit && fit.has_peak && fit.peak_users <= c.x_hi) {
        snprintf(label, sizeof(label), "N* %.0f", fit.peak_users);
        html__chart_vline(&c, fit.peak_users, "usl-peak", label,
                          "the peak the Universal Scalability Law fitted puts here");
    }
    mark_steps(&c, run, st, m);
    html__chart_close(&c, s, 1 + (size_t)has_fit);
    if (is_ok)
        curve_free(&fc);
    curve_free(&cv);
}

static void charts_steps(FILE *out, const struct html_run *run, const struct steps *st)
{
    static const char *const names[3] = {"p50", "p90", "p99"};
    struct html_chart c;
    struct curve cv[3];
    struct html_series s[3];

    step_rate_chart(out, run, st, S_OK_PER_S);
    step_rate_chart(out, run, st, S_FAILED_PER_S);
    for (int i = 0; i < 3; i++) {
        step_curve(st, (enum step_measure)(S_P50 + i), &cv[i]);
        s[i] = curve_series(&cv[i], names[i], i, HTML_V_INT);
        s[i].is_dots = 1;
    }
    step_chart(&c, out, "steps-latency", "Latency of successes against load",
               "p50, p90, p99 per step", st, max_level(st));
    c.y_is_log = c.y_is_duration = 1;
    html__chart_fit(&c, s, 3, NAN);
    html__chart_open(&c, NULL);
    for (int i = 0; i < 3; i++)
        html__chart_series(&c, &s[i]);
    mark_steps(&c, run, st, S_P99);
    html__chart_close(&c, s, 3);
    for (int i = 0; i < 3; i++)
        curve_free(&cv[i]);
}

/* ---- tables of format_html alone ---- */

static void table_events(FILE *out, const struct html_run *run)
{
    char b[UNITS_FMT_MAX];

    if (run->n_events == 0)
        return;
    fputs("<h2>Events</h2>\n<table id=\"events\"><tr><th>#</th><th>at</th>"
          "<th class=\"l\">kind</th><th class=\"l\">text</th></tr>\n",
          out);
    for (size_t i = 0; i < run->n_events; i++) {
        const struct html_event *e = &run->events[i];

        fprintf(out, "<tr><td>%zu</td><td>%s</td><td class=\"l\">%s</td><td class=\"l\">", i + 1,
                units_format_duration(e->at_ms * 1000, b, sizeof(b)), event_class(e->kind));
        html__text(out, e->text, sizeof(e->text), TICK_TEXT_MAX);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
    if (run->events_not_kept)
        fprintf(out, "<p class=\"meta\">and %" PRIu64 " more, not kept</p>\n",
                run->events_not_kept);
}

/* The recorded configuration, each line redacted again (a file written by
 * hand or by an older brink may hold a secret) and escaped. */
static void settings(FILE *out, const struct html_run *run)
{
    char line[CONFIG_LINE_MAX], redacted[CONFIG_LINE_MAX];

    fputs("<h2>Settings</h2>\n", out);
    if (!run->config_text[0]) {
        fputs("<p class=\"meta\">The session recorded no configuration.</p>\n", out);
        return;
    }
    fputs("<pre id=\"settings\">", out);
    for (const char *p = run->config_text; *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);

        snprintf(line, sizeof(line), "%.*s", (int)len, p);
        redact_text(line, redacted, sizeof(redacted));
        html__text(out, redacted, sizeof(redacted), sizeof(redacted) - 1);
        fputc('\n', out);
        p = end ? end + 1 : p + len;
    }
    fputs("</pre>\n", out);
}

static void verdict(FILE *out, const struct report_verdicts *v, const struct steps *st)
{
    const struct step_row *broke, *last_good;
    char b[REPORT_NUM_MAX], r[REPORT_NUM_MAX], d[UNITS_FMT_MAX];
    int failed = v->n_failed + v->steps_failed > 0;

    fprintf(out, "<h2>Verdict</h2>\n<p id=\"verdict\" class=\"%s\">%s</p>\n<ul>\n",
            failed ? "fail" : "pass", failed ? "FAILED" : "passed");
    if (v->n_rules == 0)
        fputs("<li>thresholds: none</li>\n", out);
    else if (v->n_failed == 0)
        fprintf(out, "<li>thresholds: all %u held</li>\n", v->n_rules);
    else
        fprintf(out, "<li>thresholds: %u of %u failed</li>\n", v->n_failed, v->n_rules);
    for (uint32_t i = 0; i < v->n_failed; i++) {
        fputs("<li class=\"fail\">FAIL ", out);
        html__text(out, v->why[i], sizeof(v->why[i]), TICK_TEXT_MAX);
        fputs("</li>\n", out);
    }
    if (v->steps_failed)
        fprintf(out, "<li>ramp steps failed: %u</li>\n", v->steps_failed);
    breaking_rows(st, &broke, &last_good);
    if (last_good)
        fprintf(out, "<li>highest step that passed: %u (%s, ok %s req/s, p99 %s)</li>\n",
                last_good->plan_step,
                report__fmt_level(last_good->model == LOAD_OPEN, last_good->level, b),
                report__fmt_rate(tick_per_s(last_good->ok, last_good->duration_us), r),
                units_format_duration(last_good->p99_us, d, sizeof(d)));
    if (broke) {
        fprintf(out, "<li>breaking point: step %u (%s) failed: ", broke->plan_step,
                report__fmt_level(broke->model == LOAD_OPEN, broke->level, b));
        html__text(out, broke->why, sizeof(broke->why), TICK_TEXT_MAX);
        fputs("</li>\n", out);
    }
    fputs("</ul>\n", out);
}

static void page_head(FILE *out, const char *raw_title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'\">\n<title>brink report: ",
          out);
    html__text(out, raw_title, 512, 120);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", html__css);
}

static void run_meta(FILE *out, const struct html_run *run, const struct summary *sum)
{
    char when[40] = "?", d[UNITS_FMT_MAX];
    time_t secs = (time_t)(run->start_wall_ms / 1000);
    struct tm tm;

    if (gmtime_r(&secs, &tm))
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
    fputs("<p class=\"meta\">Session ", out);
    html__text(out, run->path, sizeof(run->path), 200);
    fputs(", recorded by brink ", out);
    html__text(out, run->brink, sizeof(run->brink), 31);
    fputs(" on ", out);
    html__text(out, run->host, sizeof(run->host), 64);
    fprintf(out, ", started %s, %s long", when,
            units_format_duration(summary_duration_us(sum), d, sizeof(d)));
    if (run->n_files > 1) {
        fprintf(out, ", merged with %zu more sessions recorded at the same time", run->n_files - 1);
    } else if (run->has_trailer) {
        fputs(run->is_complete ? ", complete (" : ", incomplete (", out);
        html__text(out, run->end_reason, sizeof(run->end_reason), 80);
        fputs(")", out);
    } else {
        fputs(", no trailer (cut short)", out);
    }
    fputs(".</p>\n", out);
    if (run->ticks_per_point > 1)
        fprintf(out,
                "<p class=\"meta\">Each point of the time charts merges %" PRIu64 " ticks.</p>\n",
                run->ticks_per_point);
}

/* The run in one line, successes first; each figure in a buffer of its own.
 * Then the requests sent again, when any was. */
static void overview(FILE *out, const struct summary *sum)
{
    struct summary_connections conn;
    struct summary_totals t;
    char resent[REPORT_RESENT_MAX];
    char n[REPORT_NUM_MAX], ok[REPORT_NUM_MAX], ok_rate[REPORT_NUM_MAX], bad[REPORT_NUM_MAX],
        bad_rate[REPORT_NUM_MAX], pct[REPORT_NUM_MAX];
    uint64_t d = summary_duration_us(sum), failed, succeeded;

    summary_totals(sum, SUMMARY_TOTAL, &t);
    failed = errclass_sum(t.errors);
    succeeded = t.completed > failed ? t.completed - failed : 0;
    fprintf(out,
            "<p id=\"overview\">%s requests: %s succeeded (%s req/s), %s failed (%s, %s/s).</p>\n",
            report__fmt_grouped(t.completed, n), report__fmt_grouped(succeeded, ok),
            report__fmt_rate(tick_per_s(succeeded, d), ok_rate), report__fmt_grouped(failed, bad),
            report__fmt_percent(failed, t.completed, 2, pct),
            report__fmt_rate(tick_per_s(failed, d), bad_rate));
    summary_connections(sum, &conn);
    if (tick_resent_sum(conn.resent) != 0)
        fprintf(out,
                "<p id=\"resent\">Sent again: %s, each counted once above by its last "
                "outcome.</p>\n",
                report__fmt_resent(conn.resent, resent));
}

/* The sessions' latency distributions: one, or several overlaid and
 * labelled. */
static void chart_percentiles(FILE *out, const struct html_session *s, size_t n)
{
    const struct hist **h = xcalloc(n, sizeof(*h));
    const char **labels = xcalloc(n, sizeof(*labels));
    struct summary_totals t;

    fputs("<h2>Latency distribution</h2>\n", out);
    for (size_t i = 0; i < n; i++) {
        summary_totals(s[i].sum, SUMMARY_TOTAL, &t);
        h[i] = t.hist;
        labels[i] = s[i].label;
    }
    html__chart_percentiles(out, h, n > 1 ? labels : NULL, n);
    free(h);
    free(labels);
}

int format_html(const struct html_session *s, FILE *out)
{
    const struct html_run *run = s->run;

    page_head(out, s->label);
    fputs("<h1>brink report: ", out);
    html__text(out, s->label, 512, 120);
    fputs("</h1>\n", out);
    run_meta(out, run, s->sum);
    overview(out, s->sum);
    verdict(out, s->verdicts, s->steps);
    html__agents(out, s->sum);
    fputs("<h2>Over time</h2>\n", out);
    write_times(out, run);
    chart_throughput(out, run);
    chart_errors(out, run);
    chart_latency(out, run, 0);
    chart_latency(out, run, 1);
    for (uint32_t k = 0; k < run->n_probes; k++)
        chart_probe(out, run, k);
    chart_percentiles(out, s, 1);
    if (steps_count(s->steps) > 1) {
        fputs("<h2>Against load</h2>\n", out);
        charts_steps(out, run, s->steps);
    }
    table_events(out, run);
    html__table_kinds(out, s->sum);
    html__table_steps(out, s->steps);
    html__table_marks(out, s->steps);
    settings(out, run);
    fputs("</body>\n</html>\n", out);
    return report__finish(out);
}

/* ---- several sessions overlaid ---- */

/* Draws chart c of the n series of an overlay, then frees their curves
 * (cv) and the arrays. */
static void draw_overlay(struct html_chart *c, struct curve *cv, struct html_series *ser, size_t n)
{
    html__chart_fit(c, ser, n, NAN);
    html__chart_open(c, NULL);
    for (size_t i = 0; i < n; i++)
        html__chart_series(c, &ser[i]);
    html__chart_close(c, ser, n);
    for (size_t i = 0; i < n; i++)
        curve_free(&cv[i]);
    free(cv);
    free(ser);
}

static void compare_time(FILE *out, const struct html_session *s, size_t n, const char *id,
                         const char *title, const char *unit, enum measure m, int arg, int is_log)
{
    struct curve *cv = xcalloc(n, sizeof(*cv));
    struct html_series *ser = xcalloc(n, sizeof(*ser));
    struct html_chart c;
    double x_hi = 1.0;
    size_t most = 0;

    for (size_t i = 0; i < n; i++) {
        time_curve(s[i].run, m, arg, &cv[i]);
        ser[i] = curve_series(&cv[i],
                              m == M_OK_PER_S       ? "ok/s"
                              : m == M_ERRORS_PER_S ? "failed/s"
                                                    : "p99",
                              (int)(i % 16), m == M_OK_LAT ? HTML_V_INT : HTML_V_FIXED3);
        ser[i].label = s[i].label;
        x_hi = fmax(x_hi, run_end_s(s[i].run));
        most = s[i].run->n_points > most ? s[i].run->n_points : most;
    }
    c = (struct html_chart){.out = out,
                            .id = id,
                            .title = title,
                            .y_unit = unit,
                            .x_is_time = 1,
                            .x_hi = x_hi,
                            .n_points = most,
                            .y_is_log = is_log,
                            .y_is_duration = is_log};
    draw_overlay(&c, cv, ser, n);
}

static void compare_steps(FILE *out, const struct html_session *s, size_t n, const char *id,
                          const char *title, const char *unit, enum step_measure m)
{
    struct curve *cv = xcalloc(n, sizeof(*cv));
    struct html_series *ser = xcalloc(n, sizeof(*ser));
    struct html_chart c;
    double x_hi = 1.0;
    size_t most = 0;

    for (size_t i = 0; i < n; i++) {
        step_curve(s[i].steps, m, &cv[i]);
        ser[i] = curve_series(&cv[i],
                              m == S_OK_PER_S       ? "ok/s"
                              : m == S_FAILED_PER_S ? "failed/s"
                                                    : "p99",
                              (int)(i % 16), m < S_P50 ? HTML_V_FIXED3 : HTML_V_INT);
        ser[i].label = s[i].label;
        ser[i].is_dots = 1;
        x_hi = fmax(x_hi, max_level(s[i].steps));
        most = steps_count(s[i].steps) > most ? steps_count(s[i].steps) : most;
    }
    c = (struct html_chart){.out = out,
                            .id = id,
                            .title = title,
                            .y_unit = unit,
                            .x_hi = x_hi * 1.05,
                            .n_points = most,
                            .y_is_log = m >= S_P50,
                            .y_is_duration = m >= S_P50};
    draw_overlay(&c, cv, ser, n);
}

static void compare_table(FILE *out, const struct html_session *s, size_t n)
{
    fputs("<h2>Sessions</h2>\n<table id=\"sessions\"><tr><th class=\"l\">label</th>"
          "<th class=\"l\">file</th><th>requests</th><th>ok/s</th><th>failed/s</th><th>failed</th>"
          "<th>p50</th><th>p99</th><th>max</th><th class=\"l\">verdict</th></tr>\n",
          out);
    for (size_t i = 0; i < n; i++) {
        struct summary_totals t;
        uint64_t d = summary_duration_us(s[i].sum), timed;
        int failed = s[i].verdicts->n_failed + s[i].verdicts->steps_failed > 0;

        summary_totals(s[i].sum, SUMMARY_TOTAL, &t);
        timed = hist_count(t.hist);
        fprintf(out, "<tr><td class=\"l\"><span class=\"key c%zu\"></span>", i % 16);
        html__text(out, s[i].label, 512, 38);
        fputs("</td><td class=\"l\">", out);
        html__text(out, s[i].run->path, sizeof(s[i].run->path), 120);
        fputs("</td>", out);
        html__td_count(out, t.completed);
        html__td_rates(out, report__minus(t.completed, errclass_sum(t.errors)),
                       errclass_sum(t.errors), d);
        html__td_count(out, errclass_sum(t.errors));
        html__td_duration(out, timed ? hist_percentile(t.hist, 50.0) : 0, timed);
        html__td_duration(out, timed ? hist_percentile(t.hist, 99.0) : 0, timed);
        html__td_duration(out, timed ? hist_max(t.hist) : 0, timed);
        fprintf(out, "<td class=\"l %s\">%s</td></tr>\n", failed ? "fail" : "pass",
                failed ? "FAILED" : "passed");
    }
    fputs("</table>\n", out);
}

int format_html_compare(const struct html_session *s, size_t n, FILE *out)
{
    size_t with_steps = 0;

    page_head(out, "comparison");
    fputs("<h1>brink compare</h1>\n", out);
    compare_table(out, s, n);
    html__table_deltas(out, s, n);
    fputs("<h2>Over time</h2>\n", out);
    compare_time(out, s, n, "throughput", "Successes over time", "successful requests/s",
                 M_OK_PER_S, 0, 0);
    compare_time(out, s, n, "errors", "Failures over time", "failed requests/s", M_ERRORS_PER_S,
                 ERR__COUNT, 0);
    compare_time(out, s, n, "latency-ok", "p99 latency of successes over time", "p99", M_OK_LAT, 2,
                 1);
    for (size_t i = 0; i < n; i++)
        with_steps += steps_count(s[i].steps) > 1;
    if (with_steps) {
        fputs("<h2>Against load</h2>\n", out);
        compare_steps(out, s, n, "steps-throughput", "Successes against load",
                      "successful requests/s, one point per step", S_OK_PER_S);
        compare_steps(out, s, n, "steps-failures", "Failures against load",
                      "failed requests/s, one point per step", S_FAILED_PER_S);
        compare_steps(out, s, n, "steps-latency", "p99 latency of successes against load",
                      "p99 per step", S_P99);
        html__table_steps_compare(out, s, n);
    }
    chart_percentiles(out, s, n);
    fputs("</body>\n</html>\n", out);
    return report__finish(out);
}
