/*
 * Throughput: the figures of the last tick, successes first, and a chart
 * of them, one column per tick, newest on the right. Successes and failures
 * are plotted apart, each against its own top: failures in a band of their
 * own under the successes (in the error role), so that a flood of fast
 * failures neither looks like throughput nor flattens the successes. The
 * row under the successes marks concurrency changes (with the new target),
 * events and first errors.
 */
#include "ui/internal.h"

#include <stdio.h>
#include <string.h>

#include "core/units.h"

/* Room for every column ui__model_columns can return. */
#define MAX_COLUMNS (MODEL_HISTORY + 1)

/* "ok 712 req/s  !failed 41.8k/s  2.1MB/s": the failures dim when none. */
static void figures(const struct view *v, int y, int x, int w)
{
    const struct theme *th = v->th;
    const struct ui__model_point *p = ui__model_point(v->m, 0);
    char rate[16], size[UNITS_FMT_MAX];
    int used = 0;

    used += ui__draw_text(th, y, x, w, th->attr[ROLE_LABEL], "ok ");
    used += ui__draw_text(th, y, x + used, w - used, th->attr[ROLE_VALUE],
                          ui__fmt_rate(p->ok_per_s, rate, 16));
    used += ui__draw_text(th, y, x + used, w - used, th->attr[ROLE_LABEL], " req/s  ");
    if (p->err_per_s > 0)
        used += ui__draw_fmt(th, y, x + used, w - used, th->attr[ROLE_BAD], "%sfailed %s/s  ",
                             th->glyph[GL_MARK_ERROR], ui__fmt_rate(p->err_per_s, rate, 16));
    else
        used += ui__draw_text(th, y, x + used, w - used, th->attr[ROLE_DIM], "failed 0/s  ");
    units_format_size((uint64_t)p->bytes_per_s, size, sizeof(size));
    used += ui__draw_text(th, y, x + used, w - used, th->attr[ROLE_VALUE], size);
    ui__draw_text(th, y, x + used, w - used, th->attr[ROLE_LABEL], "/s");
}

/* The rows of the chart the failures take: none when no column failed,
 * else a third (at least one, and one is left to the successes). */
static int failed_rows(int chart_h, double top_failed)
{
    if (top_failed <= 0 || chart_h < 2)
        return 0;
    return chart_h / 3 ? chart_h / 3 : 1;
}

/* One band: values of cols (ok_per_s or err_per_s) against top, in role. */
static void band(const struct view *v, struct rect c, const struct ui__model_point *cols,
                 unsigned n, int is_failed, double top)
{
    double values[MAX_COLUMNS];
    int roles[MAX_COLUMNS];

    for (unsigned i = 0; i < n; i++) {
        values[i] = is_failed ? cols[i].err_per_s : cols[i].ok_per_s;
        roles[i] = is_failed ? ROLE_CHART_ERR : ROLE_CHART;
    }
    ui__draw_chart(v->th, c, values, roles, n, top);
}

/*
 * The row under the chart: a glyph under each marked column, and beside a
 * concurrency change its new target, on the right when it fits before the
 * next mark, else on the left for the newest one when nothing is there.
 */
static void marks(const struct view *v, int y, int x0, int w, const struct ui__model_point *cols,
                  unsigned n)
{
    const struct theme *th = v->th;
    int prev_x = -1;

    for (unsigned i = n; i-- > 0;) {
        const struct ui__model_point *p = &cols[i];
        int x = x0 + w - 1 - (int)i, next_x = x0 + w;
        char label[16];
        int len, right_end = x;

        if (!p->marks)
            continue;
        for (unsigned j = i; j-- > 0;) {
            if (cols[j].marks) {
                next_x = x0 + w - 1 - (int)j;
                break;
            }
        }
        if (p->marks & MARK_CONCURRENCY) {
            ui__draw_text(th, y, x, 1, th->attr[ROLE_MARK], th->glyph[GL_MARK_CONC]);
            len = snprintf(label, sizeof(label), "%u", p->target_concurrency);
            if (x + 1 + len < next_x) {
                ui__draw_text(th, y, x + 1, len, th->attr[ROLE_MARK], label);
                right_end = x + len;
            } else if (next_x == x0 + w && x - len > prev_x && x - len >= x0) {
                ui__draw_text(th, y, x - len, len, th->attr[ROLE_MARK], label);
            }
        } else if (p->marks & MARK_ERROR) {
            ui__draw_text(th, y, x, 1, th->attr[ROLE_BAD], th->glyph[GL_MARK_ERROR]);
        } else {
            ui__draw_text(th, y, x, 1, th->attr[ROLE_MARK], th->glyph[GL_MARK_EVENT]);
        }
        prev_x = right_end;
    }
}

/* "last 66s, top 11.8k/s", with the time a column spans when it holds
 * several ticks ("last 1m30s, 5.00s/col, top 11.8k/s") and the failures'
 * top when any failed ("last 66s, top 712/s, failed 41.8k/s"). */
static void title(const struct view *v, struct rect r, unsigned n, unsigned k, double top_ok,
                  double top_failed)
{
    const struct model *m = v->m;
    uint64_t ticks = (uint64_t)n * k < m->n_points ? (uint64_t)n * k : m->n_points;
    char extra[96], top_s[16], failed_s[32] = "", span[UNITS_FMT_MAX], col[UNITS_FMT_MAX];
    char rate[16];

    units_format_duration(ticks * m->last->duration_us, span, sizeof(span));
    units_format_duration(k * m->last->duration_us, col, sizeof(col));
    ui__fmt_rate(top_ok, top_s, sizeof(top_s));
    if (top_failed > 0)
        snprintf(failed_s, sizeof(failed_s), ", failed %s/s",
                 ui__fmt_rate(top_failed, rate, sizeof(rate)));
    snprintf(extra, sizeof(extra), "last %s, %s/col, top %s/s%s", span, col, top_s, failed_s);
    /* Narrow panels drop the column's span first, then the time shown:
     * the tops matter more. */
    if (k == 1 || (int)strlen(extra) > r.w - 14)
        snprintf(extra, sizeof(extra), "last %s, top %s/s%s", span, top_s, failed_s);
    if ((int)strlen(extra) > r.w - 14)
        snprintf(extra, sizeof(extra), "top %s/s%s", top_s, failed_s);
    ui__draw_title(v->th, r, "Throughput", extra);
}

/*
 * Top to bottom: the title, the figures, the successes' chart, the marks,
 * and, when any column failed, the failures' band, so that the row of
 * marks parts the two.
 */
void ui__view_throughput(const struct view *v, struct rect r)
{
    struct ui__model_point cols[MAX_COLUMNS];
    unsigned k, n;
    double top_ok = 1.0, top_failed = 0.0;
    int fh;

    if (r.h < 1 || r.w < 1)
        return;
    if (!v->m->last) {
        ui__draw_title(v->th, r, "Throughput", NULL);
        return;
    }
    n = ui__model_columns(v->m, (unsigned)r.w, &k);
    for (unsigned i = 0; i < n; i++) {
        ui__model_column(v->m, k, i, &cols[i]);
        if (cols[i].ok_per_s > top_ok)
            top_ok = cols[i].ok_per_s;
        if (cols[i].err_per_s > top_failed)
            top_failed = cols[i].err_per_s;
    }
    fh = failed_rows(r.h - 3, top_failed);
    title(v, r, n, k, top_ok, top_failed);
    if (r.h >= 2)
        figures(v, r.y + 1, r.x, r.w);
    if (r.h >= 4) {
        band(v, (struct rect){.y = r.y + 2, .x = r.x, .h = r.h - 3 - fh, .w = r.w}, cols, n, 0,
             top_ok);
        marks(v, r.y + r.h - 1 - fh, r.x, r.w, cols, n);
    }
    if (fh)
        band(v, (struct rect){.y = r.y + r.h - fh, .x = r.x, .h = fh, .w = r.w}, cols, n, 1,
             top_failed);
}
