/*
 * capacity: the Universal Scalability Law (core/usl.h) fitted to a step
 * table, for the reports: text (format_text.c, format_compare.c), JSON
 * (format_json.c) and HTML (format_html.c). One place chooses the rows the
 * fit sees, so every format says the same.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/steps.h"
#include "core/usl.h"
#include "core/xalloc.h"
#include "report/internal.h"

/* Whether row r is a step the fit may use: a closed-model level that was
 * held and judged as what it was (not cut short, not another level's). */
static int fit_row(const struct step_row *r)
{
    return r->model == LOAD_CLOSED && r->held_ticks > 0 && r->verdict != VERDICT_CUT &&
           r->verdict != VERDICT_OFF_LEVEL;
}

int report__usl(const struct steps *st, struct usl_fit *fit, char *why, size_t len)
{
    struct usl_point pts[STEPS_MAX_ROWS];
    size_t n = 0, levels = 0;
    int has_plan = 0;
    double last = -1;

    for (size_t i = 0; i < steps_count(st); i++) {
        const struct step_row *r = steps_row(st, i);

        if (!fit_row(r))
            continue;
        has_plan |= r->plan_step != 0;
        levels += r->level != last;
        last = r->level;
        pts[n].users = r->level;
        pts[n].throughput = steps_row_held_ok_rate(r);
        pts[n].failed = r->verdict == VERDICT_FAIL;
        n++;
    }
    /* A run at one level or two held by hand asked no question of it. */
    if (!has_plan && levels < USL_MIN_LEVELS)
        return -1;
    return usl_fit(pts, n, fit, why, len) == 0 ? 1 : 0;
}

void report__print_usl(FILE *out, const struct steps *st)
{
    struct usl_fit fit;
    char why[USL_TEXT_MAX], line[USL_TEXT_MAX];

    switch (report__usl(st, &fit, why, sizeof(why))) {
    case 1: fprintf(out, "capacity: %s\n", usl_format(&fit, line, sizeof(line))); break;
    case 0: fprintf(out, "capacity: %s\n", usl_format_refused(why, line, sizeof(line))); break;
    default: break;
    }
}

/* What a fit says the server can carry at most: the peak's throughput, or
 * the ceiling; INFINITY for linear scaling. */
static double capacity_of(const struct usl_fit *f)
{
    return f->has_peak ? f->peak_throughput : f->has_ceiling ? f->ceiling : INFINITY;
}

/* "peak c=31" / "no peak" for the comparison line. */
static const char *peak_of(const struct usl_fit *f, char *buf, size_t len)
{
    if (f->has_peak)
        snprintf(buf, len, "peak at c=%.0f", f->peak_users);
    else
        snprintf(buf, len, "no peak");
    return buf;
}

/* Which of the sessions with a fit scales best, against the next best. */
static void print_winner(FILE *out, const struct usl_fit *fits, const int *has,
                         const char *const *labels, size_t n)
{
    size_t best = n, next = n;
    char a[REPORT_NAME_MAX], b[REPORT_NAME_MAX], pa[48], pb[48], ra[REPORT_NUM_MAX],
        rb[REPORT_NUM_MAX];
    double ca, cb;

    for (size_t i = 0; i < n; i++) {
        if (!has[i])
            continue;
        if (best == n || capacity_of(&fits[i]) > capacity_of(&fits[best])) {
            next = best;
            best = i;
        } else if (next == n || capacity_of(&fits[i]) > capacity_of(&fits[next])) {
            next = i;
        }
    }
    if (next == n)
        return;
    ca = capacity_of(&fits[best]);
    cb = capacity_of(&fits[next]);
    report__shown(labels[best], strlen(labels[best]) + 1, a, sizeof(a));
    report__shown(labels[next], strlen(labels[next]) + 1, b, sizeof(b));
    if (isinf(ca) && isinf(cb))
        fprintf(out, "  %s and %s both scale linearly over the levels measured\n", a, b);
    else if (isinf(ca))
        fprintf(out,
                "  %s scales better: linearly over the levels measured, %s has a %s of %s req/s\n",
                a, b, fits[next].has_peak ? "peak" : "ceiling", report__fmt_rate(cb, rb));
    else if (ca <= cb * 1.0005)
        fprintf(out, "  %s and %s scale alike: %s req/s at most each\n", a, b,
                report__fmt_rate(ca, ra));
    else
        fprintf(out, "  %s scales better: %.2fx %s's capacity (%s vs %s req/s, %s vs %s)\n", a,
                ca / cb, b, report__fmt_rate(ca, ra), report__fmt_rate(cb, rb),
                peak_of(&fits[best], pa, sizeof(pa)), peak_of(&fits[next], pb, sizeof(pb)));
}

void report__print_usl_compare(FILE *out, const struct steps *const *tables,
                               const char *const *labels, size_t n)
{
    struct usl_fit *fits = xcalloc(n, sizeof(*fits));
    int *has = xcalloc(n, sizeof(*has));
    char name[REPORT_NAME_MAX], why[USL_TEXT_MAX], line[USL_TEXT_MAX];
    int any = 0;

    for (size_t i = 0; i < n; i++) {
        int rc = report__usl(tables[i], &fits[i], why, sizeof(why));

        if (rc < 0)
            continue;
        if (!any)
            fputs("capacity (the Universal Scalability Law fitted to each):\n", out);
        any = 1;
        has[i] = rc == 1;
        fprintf(out, "  %s: %s\n",
                report__shown(labels[i], strlen(labels[i]) + 1, name, sizeof(name)),
                has[i] ? usl_format(&fits[i], line, sizeof(line))
                       : usl_format_refused(why, line, sizeof(line)));
    }
    if (any)
        print_winner(out, fits, has, labels, n);
    free(has);
    free(fits);
}
