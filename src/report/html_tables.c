/*
 * html_tables: the report page's tables of figures (the kinds, the steps,
 * the checks and counters) and the cells they share with the compare page.
 * Every name from the session goes through html__text.
 */
#include <inttypes.h>
#include <stdio.h>

#include "core/errclass.h"
#include "core/hist.h"
#include "core/steps.h"
#include "core/units.h"
#include "report/html_internal.h"
#include "report/internal.h"
#include "report/summary.h"

void html__td_duration(FILE *out, uint64_t us, int has)
{
    char b[UNITS_FMT_MAX];

    fprintf(out, "<td>%s</td>", has ? units_format_duration(us, b, sizeof(b)) : "-");
}

void html__td_count(FILE *out, uint64_t n)
{
    char b[REPORT_NUM_MAX];

    fprintf(out, "<td>%s</td>", report__fmt_grouped(n, b));
}

/* Successes and failures per second, apart: "ok/s" and "failed/s". */
void html__td_rates(FILE *out, uint64_t ok, uint64_t failed, uint64_t duration_us)
{
    char b[REPORT_NUM_MAX];

    fprintf(out, "<td>%s</td>", report__fmt_rate(tick_per_s(ok, duration_us), b));
    fprintf(out, "<td>%s</td>", report__fmt_rate(tick_per_s(failed, duration_us), b));
}

/* One row of the per-kind table. */
static void kind_row(FILE *out, const struct summary_totals *t, uint64_t duration_us)
{
    char b[REPORT_NUM_MAX];
    uint64_t failed = errclass_sum(t->errors), timed = hist_count(t->hist);

    fputs("<tr><td class=\"l\">", out);
    html__text(out, t->name, TICK_NAME_MAX, REPORT_NAME_MAX);
    fputs("</td>", out);
    html__td_count(out, t->completed);
    html__td_rates(out, report__minus(t->completed, failed), failed, duration_us);
    fprintf(out, "<td>%s</td>",
            report__fmt_fixed(tick_per_s(t->bytes_in, duration_us) / 1e6, 2, b));
    html__td_count(out, failed);
    html__td_duration(out, timed ? hist_percentile(t->hist, 50.0) : 0, timed);
    html__td_duration(out, timed ? hist_percentile(t->hist, 90.0) : 0, timed);
    html__td_duration(out, timed ? hist_percentile(t->hist, 99.0) : 0, timed);
    html__td_duration(out, timed ? hist_percentile(t->hist, 99.9) : 0, timed);
    html__td_duration(out, timed ? hist_max(t->hist) : 0, timed);
    fputs("</tr>\n", out);
}

void html__table_kinds(FILE *out, const struct summary *sum)
{
    struct summary_totals t, k;
    uint64_t d = summary_duration_us(sum);
    uint32_t n_kinds = summary_n_kinds(sum);

    fputs("<h2>Requests by kind</h2>\n<table id=\"kinds\"><tr><th class=\"l\">kind</th>"
          "<th>requests</th><th>ok/s</th><th>failed/s</th><th>MB/s in</th><th>failed</th>"
          "<th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th></tr>\n",
          out);
    summary_totals(sum, SUMMARY_TOTAL, &t);
    kind_row(out, &t, d);
    /* One kind that holds every request is the total again: its row would
     * say the same. */
    if (summary_n_kinds(sum) == 1 && summary_totals(sum, 0, &k) == 0 && k.completed == t.completed)
        n_kinds = 0;
    for (uint32_t i = 0; i < n_kinds; i++) {
        if (summary_totals(sum, (int)i, &k) == 0)
            kind_row(out, &k, d);
    }
    if (summary_totals(sum, SUMMARY_FAILED, &t) == 0 && hist_count(t.hist) > 0) {
        fputs("<tr><td class=\"l\">failed requests (their latency)</td>", out);
        html__td_count(out, hist_count(t.hist));
        fputs("<td></td><td></td><td></td><td></td>", out);
        html__td_duration(out, hist_percentile(t.hist, 50.0), 1);
        html__td_duration(out, hist_percentile(t.hist, 90.0), 1);
        html__td_duration(out, hist_percentile(t.hist, 99.0), 1);
        html__td_duration(out, hist_percentile(t.hist, 99.9), 1);
        html__td_duration(out, hist_max(t.hist), 1);
        fputs("</tr>\n", out);
    }
    fputs("</table>\n<p class=\"meta\">Latency figures are those of the successes; failed "
          "requests are timed apart.</p>\n",
          out);
}

/* A scenario's checks and counters that counted in row r (level "run"
 * when is_run), one table row each. */
static void mark_rows(FILE *out, const struct steps *st, const struct step_row *r, int is_run)
{
    char b[REPORT_NUM_MAX];

    for (uint32_t i = 0; i < steps_n_probes(st); i++) {
        const struct step_probe *p = &r->probes[i];
        int is_check = steps_probe_mark(st, i) == TICK_MARK_CHECK;

        if (!steps_probe_is_total(st, i) || !p->has_value)
            continue;
        fprintf(out, "<tr><td class=\"l\">%s</td><td class=\"l\">",
                is_run ? "run" : report__fmt_level(r->model == LOAD_OPEN, r->level, b));
        html__text(out, steps_probe_name(st, i), TICK_NAME_MAX, TICK_NAME_MAX);
        fputs("</td>", out);
        if (is_check)
            fprintf(out, "<td>%s</td>", report__fmt_grouped(p->passed, b));
        fprintf(out, "<td>%s</td>", is_check ? report__fmt_total(p->sum, b) : "-");
        if (!is_check)
            fputs("<td>-</td>", out);
        fprintf(out, "<td>%s</td></tr>\n",
                report__fmt_total(is_check ? p->sum + (double)p->passed : p->sum, b));
    }
}

/* Checks passed and failed, counters' totals: per step, then the run. */
void html__table_marks(FILE *out, const struct steps *st)
{
    struct step_row run;
    int has_any = 0;

    for (uint32_t i = 0; i < steps_n_probes(st); i++)
        has_any |= steps_probe_is_total(st, i);
    if (!has_any || steps_run(st, &run) != 0)
        return;
    fputs("<h2>Checks and counters</h2>\n<table id=\"marks\"><tr><th class=\"l\">level</th>"
          "<th class=\"l\">name</th><th>passed</th><th>failed</th><th>total</th></tr>\n",
          out);
    for (size_t i = 0; i < steps_count(st); i++)
        mark_rows(out, st, steps_row(st, i), 0);
    mark_rows(out, st, &run, 1);
    fputs("</table>\n", out);
}

void html__table_steps(FILE *out, const struct steps *st)
{
    char b[REPORT_NUM_MAX];
    int has_resent = 0;

    for (size_t i = 0; i < steps_count(st); i++)
        has_resent |= tick_resent_sum(steps_row(st, i)->resent) != 0;
    fprintf(out,
            "<h2>Steps</h2>\n<table id=\"steps\"><tr><th class=\"l\">step</th>"
            "<th class=\"l\">level</th><th>start</th><th>duration</th><th>requests</th>"
            "<th>ok/s</th><th>failed/s</th><th>MB/s in</th><th>p50</th><th>p90</th><th>p99</th>"
            "<th>max</th><th>failed</th>%s<th class=\"l\">verdict</th></tr>\n",
            has_resent ? "<th>resent</th>" : "");
    for (size_t i = 0; i < steps_count(st); i++) {
        const struct step_row *r = steps_row(st, i);

        fputs("<tr><td class=\"l\">", out);
        if (r->plan_step)
            fprintf(out, "%u/%u", r->plan_step, r->plan_n_steps);
        else
            fputs("-", out);
        fprintf(out, "</td><td class=\"l\">%s</td>",
                report__fmt_level(r->model == LOAD_OPEN, r->level, b));
        html__td_duration(out, r->start_us, 1);
        html__td_duration(out, r->duration_us, 1);
        html__td_count(out, r->completed);
        html__td_rates(out, r->ok, steps_row_failed(r), r->duration_us);
        fprintf(out, "<td>%s</td>",
                report__fmt_fixed(tick_per_s(r->bytes_in, r->duration_us) / 1e6, 2, b));
        html__td_duration(out, r->p50_us, r->timed > 0);
        html__td_duration(out, r->p90_us, r->timed > 0);
        html__td_duration(out, r->p99_us, r->timed > 0);
        html__td_duration(out, r->max_us, r->timed > 0);
        html__td_count(out, errclass_sum(r->errors));
        if (has_resent)
            html__td_count(out, tick_resent_sum(r->resent));
        fputs("<td class=\"l\">", out);
        if (r->verdict == VERDICT_FAIL) {
            fputs("<span class=\"fail\">FAIL</span>: ", out);
            html__text(out, r->why, sizeof(r->why), TICK_TEXT_MAX);
        } else {
            fputs(r->plan_step ? steps_verdict_label(r) : "-", out);
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
    if (steps_rows_not_kept(st))
        fprintf(out, "<p class=\"meta\">and %" PRIu64 " more steps, not kept</p>\n",
                steps_rows_not_kept(st));
}
