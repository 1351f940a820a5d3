/*
 * html_compare: the compare page's tables. Each session after the first
 * against the first (B vs A): its figures, the change and the change in
 * percent, coloured better or worse; and the sessions' step tables side by
 * side, by level (the levels of format_compare.c). Every name from a
 * session goes through html__text.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/errclass.h"
#include "core/hist.h"
#include "core/steps.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "report/html_internal.h"
#include "report/internal.h"
#include "report/summary.h"

/* The figures compared, in the rows' order. */
enum figure { F_OK_PER_S, F_FAILED_PER_S, F_P50, F_P90, F_P99, F_MAX, F_ERRORS, F__COUNT };

static const char *const figure_name[F__COUNT] = {"ok/s", "failed/s", "p50",   "p90",
                                                  "p99",  "max",      "errors"};

/* A session's figure; *has 0 when it has none (a latency with no success
 * timed). */
static double figure_of(const struct html_session *s, enum figure f, int *has)
{
    struct summary_totals t;
    uint64_t d = summary_duration_us(s->sum), failed;
    static const double pct[] = {50.0, 90.0, 99.0};

    summary_totals(s->sum, SUMMARY_TOTAL, &t);
    failed = errclass_sum(t.errors);
    *has = 1;
    switch (f) {
    case F_OK_PER_S: return tick_per_s(report__minus(t.completed, failed), d);
    case F_FAILED_PER_S: return tick_per_s(failed, d);
    case F_ERRORS: return (double)failed;
    case F_MAX: *has = hist_count(t.hist) > 0; return (double)hist_max(t.hist);
    default: *has = hist_count(t.hist) > 0; return (double)hist_percentile(t.hist, pct[f - F_P50]);
    }
}

/* v as the figure is shown: a rate, a duration or a count. */
static const char *shown(enum figure f, double v, char *buf)
{
    if (f <= F_FAILED_PER_S)
        return report__fmt_rate(v, buf);
    if (f == F_ERRORS)
        return report__fmt_grouped(report__round_u64(v), buf);
    return units_format_duration(report__round_u64(v), buf, UNITS_FMT_MAX);
}

/* v in data-v: three decimals for a rate, whole for µs and counts. */
static const char *raw(enum figure f, double v, char *buf)
{
    return report__fmt_fixed(fabs(v), f <= F_FAILED_PER_S ? 3 : 0, buf);
}

/* A cell of figure f, its value v also in data-v; "-" when not has. */
static void td_figure(FILE *out, enum figure f, double v, int has)
{
    char s[REPORT_NUM_MAX], r[REPORT_NUM_MAX];

    if (has)
        fprintf(out, "<td data-v=\"%s\">%s</td>", raw(f, v, r), shown(f, v, s));
    else
        fputs("<td>-</td>", out);
}

/* The value, the change and its percentage of B (b) against A (a). */
static void delta_cells(FILE *out, enum figure f, double a, int has_a, double b, int has_b)
{
    char v[REPORT_NUM_MAX], r[REPORT_NUM_MAX];
    double d = b - a;
    /* More successes per second is better; more of anything else worse. */
    int is_better = f == F_OK_PER_S ? d > 0 : d < 0;
    const char *cls = d == 0 ? "same" : is_better ? "better" : "worse";
    const char *sign = d > 0 ? "+" : d < 0 ? "-" : "";

    if (!has_b) {
        fputs("<td>-</td><td>-</td><td>-</td>", out);
        return;
    }
    td_figure(out, f, b, 1);
    if (!has_a) {
        fputs("<td>-</td><td>-</td>", out);
        return;
    }
    fprintf(out, "<td class=\"%s\" data-delta=\"%s%s\">%s%s</td>", cls, d < 0 ? "-" : "",
            raw(f, d, r), sign, shown(f, fabs(d), v));
    if (a == 0) {
        fputs("<td>-</td>", out);
        return;
    }
    fprintf(out, "<td class=\"%s\" data-pct=\"%s%s\">%s%s%%</td>", cls, d < 0 ? "-" : "",
            report__fmt_fixed(fabs(d) / a * 100.0, 1, r), sign,
            report__fmt_fixed(fabs(d) / a * 100.0, 1, v));
}

void html__table_deltas(FILE *out, const struct html_session *s, size_t n)
{
    fputs("<h2>Change</h2>\n<table id=\"deltas\"><tr><th class=\"l\">figure</th><th>", out);
    html__text(out, s[0].label, 512, 38);
    fputs("</th>", out);
    for (size_t i = 1; i < n; i++) {
        fputs("<th>", out);
        html__text(out, s[i].label, 512, 38);
        fputs("</th><th>change</th><th>%</th>", out);
    }
    fputs("</tr>\n", out);
    for (int f = 0; f < F__COUNT; f++) {
        int has_a, has_b;
        double a = figure_of(&s[0], (enum figure)f, &has_a);

        fprintf(out, "<tr data-figure=\"%s\"><td class=\"l\">%s</td>", figure_name[f],
                figure_name[f]);
        td_figure(out, (enum figure)f, a, has_a);
        for (size_t i = 1; i < n; i++) {
            double b = figure_of(&s[i], (enum figure)f, &has_b);

            delta_cells(out, (enum figure)f, a, has_a, b, has_b);
        }
        fputs("</tr>\n", out);
    }
    fputs("</table>\n<p class=\"meta\">Each session against the first: the change and its "
          "percentage, <span class=\"better\">better</span> or <span "
          "class=\"worse\">worse</span> (more successes per second; fewer failures, lower "
          "latency).</p>\n",
          out);
}

/* One session's cells at a level: ok/s, failed/s, p50, p90, p99, failed
 * (blank when it did not hold the level). */
static void level_cells(FILE *out, const struct step_row *r)
{
    if (r == NULL) {
        fputs("<td></td><td></td><td></td><td></td><td></td><td></td>", out);
        return;
    }
    td_figure(out, F_OK_PER_S, tick_per_s(r->ok, r->duration_us), 1);
    td_figure(out, F_FAILED_PER_S, tick_per_s(steps_row_failed(r), r->duration_us), 1);
    td_figure(out, F_P50, (double)r->p50_us, r->timed > 0);
    td_figure(out, F_P90, (double)r->p90_us, r->timed > 0);
    td_figure(out, F_P99, (double)r->p99_us, r->timed > 0);
    td_figure(out, F_ERRORS, (double)steps_row_failed(r), 1);
}

void html__table_steps_compare(FILE *out, const struct html_session *s, size_t n)
{
    const struct steps **tables = xcalloc(n, sizeof(*tables));
    struct report__level *keys;
    size_t n_keys;
    struct step_row r;
    char b[REPORT_NUM_MAX];

    for (size_t i = 0; i < n; i++)
        tables[i] = s[i].steps;
    keys = report__union_levels(tables, n, &n_keys);
    fputs("<h2>Steps side by side</h2>\n<table id=\"compare-steps\"><tr><th></th>", out);
    for (size_t i = 0; i < n; i++) {
        fputs("<th colspan=\"6\" class=\"l\">", out);
        html__text(out, s[i].label, 512, 38);
        fputs("</th>", out);
    }
    fputs("</tr>\n<tr><th class=\"l\">level</th>", out);
    for (size_t i = 0; i < n; i++)
        fputs("<th>ok/s</th><th>failed/s</th><th>p50</th><th>p90</th><th>p99</th><th>failed</th>",
              out);
    fputs("</tr>\n", out);
    for (size_t k = 0; k < n_keys; k++) {
        fprintf(out, "<tr data-level=\"%s\"><td class=\"l\">", report__fmt_g(keys[k].level, 9, b));
        fprintf(out, "%s</td>", report__fmt_level(keys[k].model == LOAD_OPEN, keys[k].level, b));
        for (size_t i = 0; i < n; i++)
            level_cells(out, report__find_level(tables[i], &keys[k], &r) == 0 ? &r : NULL);
        fputs("</tr>\n", out);
    }
    fputs("</table>\n<p class=\"meta\">A level a session held more than once is one row, its "
          "steps merged.</p>\n",
          out);
    free(keys);
    free(tables);
}
