/*
 * The step table as aligned text: each cell is formatted twice, once to
 * measure its column and once to print it, so no table of strings is kept
 * whatever the number of rows.
 */
#include "report/formats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/errclass.h"
#include "core/steps.h"
#include "core/tick.h"
#include "core/units.h"
#include "report/internal.h"
#include "report/summary.h"

#define CELL_MAX (REPORT_NAME_MAX + 8)  /* a cell: a number, or a probe name and " last" */
#define VERDICT_MAX (TICK_TEXT_MAX + 8) /* the verdict cell: "FAIL: " and why */

enum col {
    COL_PLAN,
    COL_LEVEL,
    COL_START,
    COL_DURATION,
    COL_REQUESTS,
    COL_RATE,
    COL_FAILED_RATE,
    COL_MBIN,
    COL_P50,
    COL_P99,
    COL_MAX,
    COL__FIXED, /* then one per error class seen, resent, two per probe, the verdict */
};

static const char *const fixed_heads[COL__FIXED] = {
    "step",     "level",   "start", "duration", "requests", "ok/s",
    "failed/s", "MB/s in", "p50",   "p99",      "max",
};

/* The columns of a table: the fixed ones, the error classes seen, the probes. */
struct layout {
    int n_err;
    enum errclass err[ERR__COUNT];
    uint32_t n_probes;
    uint32_t probe_of[TICK_MAX_PROBES]; /* the probes and gauges shown, by steps' index */
    int has_plan;                       /* some row is a ramp step: the step and verdict columns */
    int has_resent;                     /* some row sent requests again: their column */
    int first_col;
    int n_cols;
    size_t width[COL__FIXED + ERR__COUNT + 1 + 2 * TICK_MAX_PROBES + 1];
};

static const char *latency(const struct step_row *r, uint64_t us, char *buf)
{
    if (r->timed == 0)
        return "-";
    return units_format_duration(us, buf, CELL_MAX);
}

static const char *probe_cell(const struct layout *l, const struct step_row *r, int col, char *buf)
{
    const struct step_probe *p = &r->probes[l->probe_of[col / 2]];

    if (!p->has_value)
        return "-";
    return report__fmt_g(col % 2 == 0 ? p->max : p->last, 6, buf);
}

/* How the plan judged the row (the failed condition is last on the line,
 * so it may be long). */
static const char *verdict_cell(const struct step_row *r, char *buf)
{
    char why[TICK_TEXT_MAX];

    if (r->verdict == VERDICT_FAIL) {
        snprintf(buf, VERDICT_MAX, "%s: %s", steps_verdict_label(r),
                 report__shown(r->why, TICK_TEXT_MAX, why, sizeof(why)));
        return buf;
    }
    if (r->verdict == VERDICT_OFF_LEVEL) {
        char lv[REPORT_NUM_MAX];

        snprintf(buf, VERDICT_MAX, "not judged: the plan's level is %s",
                 report__fmt_level(r->model == LOAD_OPEN, r->plan_level, lv));
        return buf;
    }
    return r->plan_step ? steps_verdict_label(r) : "-";
}

/* The text of column col in row r (r NULL: the header). */
static const char *cell(const struct steps *st, const struct layout *l, const struct step_row *r,
                        int col, char *buf)
{
    char name[REPORT_NAME_MAX];

    if (l->has_plan && col == l->n_cols - 1)
        return r ? verdict_cell(r, buf) : "verdict";
    if (l->has_resent && col == COL__FIXED + l->n_err)
        return r ? report__fmt_grouped(tick_resent_sum(r->resent), buf) : "resent";
    if (col >= COL__FIXED + l->n_err + l->has_resent) {
        col -= COL__FIXED + l->n_err + l->has_resent;
        if (r != NULL)
            return probe_cell(l, r, col, buf);
        snprintf(buf, CELL_MAX, "%s %s",
                 report__shown(steps_probe_name(st, l->probe_of[col / 2]), TICK_NAME_MAX, name,
                               sizeof(name)),
                 col % 2 == 0 ? "max" : "last");
        return buf;
    }
    if (col >= COL__FIXED) {
        enum errclass c = l->err[col - COL__FIXED];

        return r ? report__fmt_grouped(r->errors[c], buf) : errclass_name(c);
    }
    if (r == NULL)
        return fixed_heads[col];
    switch ((enum col)col) {
    case COL_PLAN:
        if (r->plan_step == 0)
            return "-";
        snprintf(buf, CELL_MAX, "%" PRIu32 "/%" PRIu32, r->plan_step, r->plan_n_steps);
        return buf;
    case COL_LEVEL: return report__fmt_level(r->model == LOAD_OPEN, r->level, buf);
    case COL_START: return units_format_duration(r->start_us, buf, CELL_MAX);
    case COL_DURATION: return units_format_duration(r->duration_us, buf, CELL_MAX);
    case COL_REQUESTS: return report__fmt_grouped(r->completed, buf);
    case COL_RATE: return report__fmt_rate(tick_per_s(r->ok, r->duration_us), buf);
    case COL_FAILED_RATE:
        return report__fmt_rate(tick_per_s(steps_row_failed(r), r->duration_us), buf);
    case COL_MBIN: return report__fmt_fixed(tick_per_s(r->bytes_in, r->duration_us) / 1e6, 2, buf);
    case COL_P50: return latency(r, r->p50_us, buf);
    case COL_P99: return latency(r, r->p99_us, buf);
    case COL_MAX: return latency(r, r->max_us, buf);
    case COL__FIXED: break;
    }
    return "";
}

static void plan(const struct steps *st, struct layout *l)
{
    char buf[VERDICT_MAX];
    size_t n = steps_count(st);

    memset(l, 0, sizeof(*l));
    for (size_t i = 0; i < n; i++)
        l->has_plan |= steps_row(st, i)->plan_step != 0;
    l->first_col = l->has_plan ? COL_PLAN : COL_LEVEL;
    for (int c = 0; c < ERR__COUNT; c++) {
        for (size_t i = 0; i < n; i++) {
            if (steps_row(st, i)->errors[c] != 0) {
                l->err[l->n_err++] = (enum errclass)c;
                break;
            }
        }
    }
    /* A script's checks and counters have a table of their own (totals). */
    for (uint32_t i = 0; i < steps_n_probes(st); i++) {
        if (!steps_probe_is_total(st, i))
            l->probe_of[l->n_probes++] = i;
    }
    for (size_t i = 0; i < n; i++)
        l->has_resent |= tick_resent_sum(steps_row(st, i)->resent) != 0;
    l->n_cols = COL__FIXED + l->n_err + l->has_resent + 2 * (int)l->n_probes + l->has_plan;
    for (int col = l->first_col; col < l->n_cols; col++) {
        l->width[col] = strlen(cell(st, l, NULL, col, buf));
        for (size_t i = 0; i < n; i++) {
            size_t w = strlen(cell(st, l, steps_row(st, i), col, buf));

            if (w > l->width[col])
                l->width[col] = w;
        }
    }
}

/* One line: the step and level left-aligned, the numbers right-aligned,
 * the verdict left-aligned and last (unpadded), two spaces between columns. */
static void print_line(FILE *out, const struct steps *st, const struct layout *l,
                       const struct step_row *r)
{
    char buf[VERDICT_MAX];

    for (int col = l->first_col; col < l->n_cols; col++) {
        const char *text = cell(st, l, r, col, buf);

        if (l->has_plan && col == l->n_cols - 1)
            fprintf(out, "  %s", text);
        else if (col <= COL_LEVEL)
            fprintf(out, "  %-*s", (int)l->width[col], text);
        else
            fprintf(out, "  %*s", (int)l->width[col], text);
    }
    fputc('\n', out);
}

/* The plan's result in one line: the highest step that passed and the
 * first that failed, or that none did. */
static void print_breaking_point(FILE *out, const struct steps *st)
{
    const struct step_row *good = NULL, *bad = NULL;
    char lv[REPORT_NUM_MAX], rate[REPORT_NUM_MAX], p99[CELL_MAX], why[TICK_TEXT_MAX];

    for (size_t i = 0; i < steps_count(st); i++) {
        const struct step_row *r = steps_row(st, i);

        if (r->verdict == VERDICT_PASS && !bad && (!good || r->level >= good->level))
            good = r;
        if (r->verdict == VERDICT_FAIL && !bad)
            bad = r;
    }
    if (!good && !bad)
        return;
    fputs("breaking point: ", out);
    if (good)
        fprintf(out, "highest step that passed %" PRIu32 " (%s, ok %s req/s, p99 %s)",
                good->plan_step, report__fmt_level(good->model == LOAD_OPEN, good->level, lv),
                report__fmt_rate(tick_per_s(good->ok, good->duration_us), rate),
                latency(good, good->p99_us, p99));
    else
        fputs("no step passed", out);
    if (bad)
        fprintf(out, "; first failed %" PRIu32 " (%s): %s\n", bad->plan_step,
                report__fmt_level(bad->model == LOAD_OPEN, bad->level, lv),
                report__shown(bad->why, TICK_TEXT_MAX, why, sizeof(why)));
    else
        fputs("; no step failed\n", out);
}

/* One cell of the per-kind table of row r (NULL: the header). */
static const char *kind_cell(const struct steps *st, const struct step_row *r, uint32_t k, int col,
                             char *buf)
{
    static const char *const heads[] = {"level",    "kind", "requests", "ok/s", "failed",
                                        "failed/s", "p50",  "p99",      "max"};
    const struct step_kind *sk;

    if (r == NULL)
        return heads[col];
    sk = &r->kinds[k];
    switch (col) {
    case 0: return report__fmt_level(r->model == LOAD_OPEN, r->level, buf);
    case 1: return report__shown(steps_kind_name(st, k), TICK_NAME_MAX, buf, CELL_MAX);
    case 2: return report__fmt_grouped(sk->completed, buf);
    case 3: return report__fmt_rate(tick_per_s(sk->ok, r->duration_us), buf);
    case 4: return report__fmt_grouped(sk->completed - sk->ok, buf);
    case 5:
        return report__fmt_rate(tick_per_s(report__minus(sk->completed, sk->ok), r->duration_us),
                                buf);
    default: break;
    }
    if (sk->timed == 0)
        return "-";
    return units_format_duration(col == 6   ? sk->p50_us
                                 : col == 7 ? sk->p99_us
                                            : sk->max_us,
                                 buf, CELL_MAX);
}

#define KIND_COLS 9

/* "steps by kind:": each step's row again, one line per request kind that
 * ran in it, when the run had several kinds. Latency is the successes'. */
static void print_kinds(FILE *out, const struct steps *st)
{
    size_t width[KIND_COLS] = {0}, rows = steps_count(st);
    uint32_t n_kinds = steps_n_kinds(st);
    char buf[CELL_MAX];

    if (n_kinds < 2 || rows == 0)
        return;
    for (int c = 0; c < KIND_COLS; c++) {
        width[c] = strlen(kind_cell(st, NULL, 0, c, buf));
        for (size_t i = 0; i < rows; i++) {
            for (uint32_t k = 0; k < n_kinds; k++) {
                size_t w = strlen(kind_cell(st, steps_row(st, i), k, c, buf));

                if (w > width[c])
                    width[c] = w;
            }
        }
    }
    fputs("\nsteps by kind:\n", out);
    for (size_t i = 0; i <= rows; i++) {
        const struct step_row *r = i == 0 ? NULL : steps_row(st, i - 1);

        for (uint32_t k = 0; k < (r ? n_kinds : 1); k++) {
            if (r && r->kinds[k].completed == 0)
                continue;
            for (int c = 0; c < KIND_COLS; c++)
                fprintf(out, c < 2 ? "  %-*s" : "  %*s", (int)width[c],
                        kind_cell(st, r, k, c, buf));
            fputc('\n', out);
        }
    }
}

/* One cell of the checks and counters table: mark i in row r (NULL: the
 * header), whose level is "run" when is_run. */
static const char *mark_cell(const struct steps *st, const struct step_row *r, int is_run,
                             uint32_t i, int col, char *buf)
{
    static const char *const heads[] = {"level", "name", "passed", "failed", "total"};
    const struct step_probe *p;
    int is_check = steps_probe_mark(st, i) == TICK_MARK_CHECK;

    if (r == NULL)
        return heads[col];
    p = &r->probes[i];
    switch (col) {
    case 0: return is_run ? "run" : report__fmt_level(r->model == LOAD_OPEN, r->level, buf);
    case 1: return report__shown(steps_probe_name(st, i), TICK_NAME_MAX, buf, CELL_MAX);
    case 2: return is_check ? report__fmt_grouped(p->passed, buf) : "-";
    case 3: return is_check ? report__fmt_total(p->sum, buf) : "-";
    default: break;
    }
    return report__fmt_total(is_check ? p->sum + (double)p->passed : p->sum, buf);
}

#define MARK_COLS 5

/* The lines of the checks and counters table for row r (NULL: the
 * header): printed in width's columns, or when out is NULL measured into
 * width. */
static void mark_lines(FILE *out, const struct steps *st, const struct step_row *r, int is_run,
                       size_t *width)
{
    char buf[CELL_MAX];

    for (uint32_t i = 0; i < (r ? steps_n_probes(st) : 1); i++) {
        if (r && (!steps_probe_is_total(st, i) || !r->probes[i].has_value))
            continue;
        for (int c = 0; c < MARK_COLS; c++) {
            const char *text = mark_cell(st, r, is_run, i, c, buf);

            if (out == NULL && strlen(text) > width[c])
                width[c] = strlen(text);
            else if (out != NULL)
                fprintf(out, c < 2 ? "  %-*s" : "  %*s", (int)width[c], text);
        }
        if (out != NULL)
            fputc('\n', out);
    }
}

/* "checks and counters:": a scenario's checks (passed and failed) and
 * counters (their total) in each step, then in the whole run. */
static void print_marks(FILE *out, const struct steps *st)
{
    size_t width[MARK_COLS] = {0}, rows = steps_count(st);
    struct step_row run;
    int has_run = steps_run(st, &run) == 0, has_any = 0;

    for (uint32_t i = 0; i < steps_n_probes(st); i++)
        has_any |= steps_probe_is_total(st, i);
    if (!has_any)
        return;
    for (int pass = 0; pass < 2; pass++) {
        FILE *to = pass == 0 ? NULL : out;

        if (to)
            fputs("\nchecks and counters:\n", to);
        mark_lines(to, st, NULL, 0, width);
        for (size_t i = 0; i < rows; i++)
            mark_lines(to, st, steps_row(st, i), 0, width);
        if (has_run)
            mark_lines(to, st, &run, 1, width);
    }
}

int format_steps_text(const struct steps *st, FILE *out)
{
    struct layout l;
    char n[REPORT_NUM_MAX], m[REPORT_NUM_MAX];
    size_t rows = steps_count(st);

    plan(st, &l);
    fprintf(out, "\nsteps: %s\n", report__fmt_grouped(rows + steps_rows_not_kept(st), n));
    if (rows > 0) {
        print_line(out, st, &l, NULL);
        for (size_t i = 0; i < rows; i++)
            print_line(out, st, &l, steps_row(st, i));
    }
    print_breaking_point(out, st);
    report__print_usl(out, st);
    if (steps_rows_not_kept(st))
        fprintf(out, "  and %s more steps (%s requests), not kept\n",
                report__fmt_grouped(steps_rows_not_kept(st), n),
                report__fmt_grouped(steps_completed_not_kept(st), m));
    print_kinds(out, st);
    print_marks(out, st);
    return report__finish(out);
}

int format_final(const struct summary *sum, const struct steps *st, FILE *out)
{
    if (summary_print(sum, out) != 0)
        return -EIO;
    if (steps_count(st) + steps_rows_not_kept(st) < 2) {
        print_marks(out, st);
        return report__finish(out);
    }
    return format_steps_text(st, out);
}
