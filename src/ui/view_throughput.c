/*
 * Throughput: the figures of the last tick and a chart of requests per
 * second, one column per tick, newest on the right. Columns of ticks with
 * errors are drawn in the error role; the row under the chart marks
 * concurrency changes (with the new target), events and first errors.
 */
#include "ui/internal.h"

#include <stdio.h>

#include "core/units.h"

static double chart_top(const struct model *m, unsigned n)
{
    double top = 1.0;

    for (unsigned i = 0; i < n; i++) {
        if (model_point(m, i)->req_per_s > top)
            top = model_point(m, i)->req_per_s;
    }
    return top;
}

static void figures(const struct view *v, int y, int x, int w)
{
    const struct theme *th = v->th;
    const struct model_point *p = model_point(v->m, 0);
    const struct tick_kind *k = &v->m->last->total;
    char rate[16], size[UNITS_FMT_MAX];
    int used = 0;

    used += draw_text(th, y, x, w, th->attr[ROLE_VALUE], fmt_rate(p->req_per_s, rate, 16));
    used += draw_text(th, y, x + used, w - used, th->attr[ROLE_LABEL], " req/s ");
    units_format_size((uint64_t)p->bytes_per_s, size, sizeof(size));
    used += draw_text(th, y, x + used, w - used, th->attr[ROLE_VALUE], size);
    used += draw_text(th, y, x + used, w - used, th->attr[ROLE_LABEL], "/s ");
    if (k->completed) {
        used += draw_fmt(th, y, x + used, w - used, th->attr[ROLE_LABEL], "ok %.1f%% ",
                         100.0 * (double)k->ok / (double)k->completed);
    }
    if (p->err_per_s > 0)
        draw_fmt(th, y, x + used, w - used, th->attr[ROLE_BAD], "%s%s err/s",
                 th->glyph[GL_MARK_ERROR], fmt_rate(p->err_per_s, rate, 16));
}

static void chart(const struct view *v, struct rect c, unsigned n, double top)
{
    double values[MODEL_HISTORY];
    int roles[MODEL_HISTORY];

    for (unsigned i = 0; i < n; i++) {
        const struct model_point *p = model_point(v->m, i);

        values[i] = p->req_per_s;
        roles[i] = p->err_per_s > 0 ? ROLE_CHART_ERR : ROLE_CHART;
    }
    draw_chart(v->th, c, values, roles, n, top);
}

/*
 * The row under the chart: a glyph under each marked column, and beside a
 * concurrency change its new target, on the right when it fits before the
 * next mark, else on the left for the newest one when nothing is there.
 */
static void marks(const struct view *v, int y, int x0, int w, unsigned n)
{
    const struct theme *th = v->th;
    int prev_x = -1;

    for (unsigned i = n; i-- > 0;) {
        const struct model_point *p = model_point(v->m, i);
        int x = x0 + w - 1 - (int)i, next_x = x0 + w;
        char label[16];
        int len, right_end = x;

        if (!p->marks)
            continue;
        for (unsigned j = i; j-- > 0;) {
            if (model_point(v->m, j)->marks) {
                next_x = x0 + w - 1 - (int)j;
                break;
            }
        }
        if (p->marks & MARK_CONCURRENCY) {
            draw_text(th, y, x, 1, th->attr[ROLE_MARK], th->glyph[GL_MARK_CONC]);
            len = snprintf(label, sizeof(label), "%u", p->target_concurrency);
            if (x + 1 + len < next_x) {
                draw_text(th, y, x + 1, len, th->attr[ROLE_MARK], label);
                right_end = x + len;
            } else if (next_x == x0 + w && x - len > prev_x && x - len >= x0)
                draw_text(th, y, x - len, len, th->attr[ROLE_MARK], label);
        } else if (p->marks & MARK_ERROR) {
            draw_text(th, y, x, 1, th->attr[ROLE_BAD], th->glyph[GL_MARK_ERROR]);
        } else {
            draw_text(th, y, x, 1, th->attr[ROLE_MARK], th->glyph[GL_MARK_EVENT]);
        }
        prev_x = right_end;
    }
}

void view_throughput(const struct view *v, struct rect r)
{
    struct rect c = {.y = r.y + 2, .x = r.x, .h = r.h - 3, .w = r.w};
    unsigned n = v->m->n_points < (unsigned)(r.w > 0 ? r.w : 0) ? v->m->n_points : (unsigned)r.w;
    char extra[64], top_s[16];
    double top;

    if (r.h < 1 || r.w < 1)
        return;
    if (!v->m->last) {
        draw_title(v->th, r, "Throughput", NULL);
        return;
    }
    top = chart_top(v->m, n);
    snprintf(extra, sizeof(extra), "last %us, top %s/s",
             (unsigned)((n * v->m->last->duration_ms + 500) / 1000), fmt_rate(top, top_s, 16));
    draw_title(v->th, r, "Throughput", extra);
    if (r.h >= 2)
        figures(v, r.y + 1, r.x, r.w);
    if (c.h >= 1)
        chart(v, c, n, top);
    if (r.h >= 4)
        marks(v, r.y + r.h - 1, r.x, r.w, n);
}
