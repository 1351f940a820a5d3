/*
 * The step table as aligned text: each cell is formatted twice, once to
 * measure its column and once to print it, so no table of strings is kept
 * whatever the number of rows.
 */
#include "report/formats.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/errclass.h"
#include "core/tick.h"
#include "core/units.h"
#include "report/internal.h"
#include "report/steps.h"

#define CELL_MAX (REPORT_NAME_MAX + 8) /* a cell: a number, or a probe name and " last" */

enum col {
    COL_LEVEL,
    COL_START,
    COL_DURATION,
    COL_REQUESTS,
    COL_RATE,
    COL_MBIN,
    COL_P50,
    COL_P99,
    COL_MAX,
    COL__FIXED, /* then one per error class seen, then two per probe */
};

static const char *const fixed_heads[COL__FIXED] = {
    "level", "start", "duration", "requests", "req/s", "MB/s in", "p50", "p99", "max",
};

/* The columns of a table: the fixed ones, the error classes seen, the probes. */
struct layout {
    int n_err;
    enum errclass err[ERR__COUNT];
    uint32_t n_probes;
    int n_cols;
    size_t width[COL__FIXED + ERR__COUNT + 2 * TICK_MAX_PROBES];
};

static const char *latency(const struct step_row *r, uint64_t us, char *buf)
{
    if (r->timed == 0)
        return "-";
    return units_format_duration(us, buf, CELL_MAX);
}

static const char *probe_cell(const struct step_row *r, int col, char *buf)
{
    const struct step_probe *p = &r->probes[col / 2];

    if (!p->has_value)
        return "-";
    return report_fmt_g(col % 2 == 0 ? p->max : p->last, 6, buf);
}

/* The text of column col in row r (r NULL: the header). */
static const char *cell(const struct steps *st, const struct layout *l, const struct step_row *r,
                        int col, char *buf)
{
    char name[REPORT_NAME_MAX];

    if (col >= COL__FIXED + l->n_err) {
        col -= COL__FIXED + l->n_err;
        if (r != NULL)
            return probe_cell(r, col, buf);
        snprintf(buf, CELL_MAX, "%s %s",
                 report_shown(steps_probe_name(st, (uint32_t)col / 2), TICK_NAME_MAX, name,
                              sizeof(name)),
                 col % 2 == 0 ? "max" : "last");
        return buf;
    }
    if (col >= COL__FIXED) {
        enum errclass c = l->err[col - COL__FIXED];

        return r ? report_fmt_grouped(r->errors[c], buf) : errclass_name(c);
    }
    if (r == NULL)
        return fixed_heads[col];
    switch ((enum col)col) {
    case COL_LEVEL:
        return report_fmt_level(r->model == LOAD_OPEN, r->level, buf);
    case COL_START:
        return units_format_duration(r->start_ms * 1000, buf, CELL_MAX);
    case COL_DURATION:
        return units_format_duration(r->duration_ms * 1000, buf, CELL_MAX);
    case COL_REQUESTS:
        return report_fmt_grouped(r->completed, buf);
    case COL_RATE:
        return report_fmt_rate(report_per_second(r->completed, r->duration_ms), buf);
    case COL_MBIN:
        return report_fmt_fixed(report_per_second(r->bytes_in, r->duration_ms) / 1e6, 2, buf);
    case COL_P50:
        return latency(r, r->p50_us, buf);
    case COL_P99:
        return latency(r, r->p99_us, buf);
    case COL_MAX:
        return latency(r, r->max_us, buf);
    case COL__FIXED:
        break;
    }
    return "";
}

static void plan(const struct steps *st, struct layout *l)
{
    char buf[CELL_MAX];
    size_t n = steps_count(st);

    memset(l, 0, sizeof(*l));
    for (int c = 0; c < ERR__COUNT; c++) {
        for (size_t i = 0; i < n; i++) {
            if (steps_row(st, i)->errors[c] != 0) {
                l->err[l->n_err++] = (enum errclass)c;
                break;
            }
        }
    }
    l->n_probes = steps_n_probes(st);
    l->n_cols = COL__FIXED + l->n_err + 2 * (int)l->n_probes;
    for (int col = 0; col < l->n_cols; col++) {
        l->width[col] = strlen(cell(st, l, NULL, col, buf));
        for (size_t i = 0; i < n; i++) {
            size_t w = strlen(cell(st, l, steps_row(st, i), col, buf));

            if (w > l->width[col])
                l->width[col] = w;
        }
    }
}

/* One line: the level left-aligned, every other column right-aligned, two
 * spaces between columns. */
static void print_line(FILE *out, const struct steps *st, const struct layout *l,
                       const struct step_row *r)
{
    char buf[CELL_MAX];

    fprintf(out, "  %-*s", (int)l->width[0], cell(st, l, r, 0, buf));
    for (int col = 1; col < l->n_cols; col++)
        fprintf(out, "  %*s", (int)l->width[col], cell(st, l, r, col, buf));
    fputc('\n', out);
}

int format_steps_text(const struct steps *st, FILE *out)
{
    struct layout l;
    char n[REPORT_NUM_MAX], m[REPORT_NUM_MAX];
    size_t rows = steps_count(st);

    plan(st, &l);
    fprintf(out, "\nsteps: %s\n", report_fmt_grouped(rows + steps_rows_not_kept(st), n));
    if (rows > 0) {
        print_line(out, st, &l, NULL);
        for (size_t i = 0; i < rows; i++)
            print_line(out, st, &l, steps_row(st, i));
    }
    if (steps_rows_not_kept(st))
        fprintf(out, "  and %s more steps (%s requests), not kept\n",
                report_fmt_grouped(steps_rows_not_kept(st), n),
                report_fmt_grouped(steps_completed_not_kept(st), m));
    return report_finish(out);
}
