/*
 * Throughput: the figures of the last tick and a chart of requests per
 * second, one column per tick, newest on the right. Columns of ticks with
 * errors are drawn in the error role; the row under the chart marks
 * concurrency changes (with the new target), events and first errors.
 */
#include "ui/internal.h"

#include <stdio.h>
#include <string.h>

#include "core/units.h"

/* Room for every column ui__model_columns can return. */
#define MAX_COLUMNS (MODEL_HISTORY + 1)

static void figures(const struct view *v, int y, int x, int w)
{
    const struct theme *th = v->th;
    const struct ui__model_point *p = ui__model_point(v->m, 0);
    const struct tick_kind *k = &v->m->last->total;
    char rate[16], size[UNITS_FMT_MAX];
    int used = 0;

    used += ui__draw_text(th, y, x, w, th->attr[ROLE_VALUE], ui__fmt_rate(p->req_per_s, rate, 16));
    used += ui__draw_text(th, y, x + used, w - used, th->attr[ROLE_LABEL], " req/s ");
    units_format_size((uint64_t)p->bytes_per_s, size, sizeof(size));
    used += ui__draw_text(th, y, x + used, w - used, th->attr[ROLE_VALUE], size);
    used += ui__draw_text(th, y, x + used, w - used, th->attr[ROLE_LABEL], "/s ");
    if (k->completed) {
        used += ui__draw_fmt(th, y, x + used, w - used, th->attr[ROLE_LABEL], "ok %.1f%% ",
                             100.0 * (double)k->ok / (double)k->completed);
    }
    if (p->err_per_s > 0)
        ui__draw_fmt(th, y, x + used, w - used, th->attr[ROLE_BAD], "%s%s err/s",
                     th->glyph[GL_MARK_ERROR], ui__fmt_rate(p->err_per_s, rate, 16));
}

static void chart(const struct view *v, struct rect c, const struct ui__model_point *cols,
                  unsigned n, double top)
{
    double values[MAX_COLUMNS];
    int roles[MAX_COLUMNS];

    for (unsigned i = 0; i < n; i++) {
        values[i] = cols[i].req_per_s;
        roles[i] = cols[i].err_per_s > 0 ? ROLE_CHART_ERR : ROLE_CHART;
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
 * several ticks: "last 1m30s, 5.00s/col, top 11.8k/s". */
static void title(const struct view *v, struct rect r, unsigned n, unsigned k, double top)
{
    const struct model *m = v->m;
    uint64_t ticks = (uint64_t)n * k < m->n_points ? (uint64_t)n * k : m->n_points;
    char extra[80], top_s[16], span[UNITS_FMT_MAX], col[UNITS_FMT_MAX];

    units_format_duration(ticks * m->last->duration_us, span, sizeof(span));
    units_format_duration(k * m->last->duration_us, col, sizeof(col));
    ui__fmt_rate(top, top_s, sizeof(top_s));
    snprintf(extra, sizeof(extra), "last %s, %s/col, top %s/s", span, col, top_s);
    /* Narrow panels drop the column's span first: the top matters more. */
    if (k == 1 || (int)strlen(extra) > r.w - 14)
        snprintf(extra, sizeof(extra), "last %s, top %s/s", span, top_s);
    ui__draw_title(v->th, r, "Throughput", extra);
}

void ui__view_throughput(const struct view *v, struct rect r)
{
    struct rect c = {.y = r.y + 2, .x = r.x, .h = r.h - 3, .w = r.w};
    struct ui__model_point cols[MAX_COLUMNS];
    unsigned k, n;
    double top = 1.0;

    if (r.h < 1 || r.w < 1)
        return;
    if (!v->m->last) {
        ui__draw_title(v->th, r, "Throughput", NULL);
        return;
    }
    n = ui__model_columns(v->m, (unsigned)r.w, &k);
    for (unsigned i = 0; i < n; i++) {
        ui__model_column(v->m, k, i, &cols[i]);
        if (cols[i].req_per_s > top)
            top = cols[i].req_per_s;
    }
    title(v, r, n, k, top);
    if (r.h >= 2)
        figures(v, r.y + 1, r.x, r.w);
    if (c.h >= 1)
        chart(v, c, cols, n, top);
    if (r.h >= 4)
        marks(v, r.y + r.h - 1, r.x, r.w, cols, n);
}
