/*
 * Where the time goes: the latency panel's other face (w). One row per
 * phase of the last tick (enum tick_phase: dns, connect, tls, ttfb) with
 * its count and its p50, p99, max and p90, as many of them as the panel's
 * width holds, then, with room to spare, a bar of its p99 on a log scale
 * shared by the phases, with the run's p99 as a marker. The last row
 * counts the connections: open at the tick's end and new per second.
 */
#include "ui/internal.h"

#include <stdio.h>

#include "core/units.h"

#define LABEL_W 8
#define COL_W 7
#define BAR_MIN 6

/* The columns in the order they give way when the panel is narrow. */
enum col { COL_COUNT, COL_P50, COL_P99, COL_MAX, COL_P90, COL__COUNT };

static const char *const col_names[COL__COUNT] = {"count", "p50", "p99", "max", "p90"};

/* The screen order of the columns shown: count, p50, p90, p99, max. */
static const enum col screen_order[COL__COUNT] = {COL_COUNT, COL_P50, COL_P90, COL_P99, COL_MAX};

static uint64_t figure(const struct tick_latency *l, enum col c)
{
    switch (c) {
    case COL_COUNT: return l->count;
    case COL_P50: return l->pct_us[0];
    case COL_P90: return l->pct_us[1];
    case COL_P99: return l->pct_us[2];
    case COL_MAX: return l->max_us;
    case COL__COUNT: break;
    }
    return 0;
}

/* The log scale of the bars, around every p99 and max of the tick and p99
 * of the run. */
static void scale(const struct tick *t, double *lo, double *hi)
{
    uint64_t us[PHASE__COUNT * 3];

    for (int p = 0; p < PHASE__COUNT; p++) {
        us[3 * p] = t->phases[p].window.pct_us[2];
        us[3 * p + 1] = t->phases[p].window.max_us;
        us[3 * p + 2] = t->phases[p].run.pct_us[2];
    }
    ui__log_scale(us, PHASE__COUNT * 3, lo, hi);
}

/* One cell of a phase's row: its count, a duration, or "-" when it timed
 * nothing in the tick. */
static void cell(const struct view *v, int y, int x, const struct tick_latency *l, enum col c)
{
    char s[UNITS_FMT_MAX + 24];

    if (!l->count)
        snprintf(s, sizeof(s), "%s", c == COL_COUNT ? "0" : "-");
    else if (c == COL_COUNT)
        snprintf(s, sizeof(s), "%llu", (unsigned long long)l->count);
    else
        units_format_duration(figure(l, c), s, sizeof(s));
    ui__draw_fmt(v->th, y, x, COL_W, v->th->attr[c == COL_COUNT ? ROLE_LABEL : ROLE_VALUE], "%*s",
                 COL_W, s);
}

/* The connections of the tick: open at its end and new per second. */
static void connections(const struct view *v, int y, int x, int w)
{
    const struct tick *t = v->m->last;
    char rate[16];

    ui__draw_fmt(
        v->th, y, x, w, v->th->attr[ROLE_DIM], "connections %u open, %s/s new", t->connections,
        ui__fmt_rate(tick_per_s(t->connections_opened, t->duration_us), rate, sizeof(rate)));
}

void ui__view_phases(const struct view *v, struct rect r)
{
    const struct tick *t = v->m->last;
    int shown[COL__COUNT] = {0}, n_cols, bar_w, x, y;
    char extra[64], lo_s[UNITS_FMT_MAX], hi_s[UNITS_FMT_MAX];
    double lo, hi;

    if (r.h < 1 || r.w < 1)
        return;
    if (!t) {
        ui__draw_title(v->th, r, "Where the time goes", NULL);
        return;
    }
    n_cols = (r.w - LABEL_W) / COL_W;
    n_cols = n_cols < 0 ? 0 : n_cols > COL__COUNT ? COL__COUNT : n_cols;
    for (int c = 0; c < n_cols; c++)
        shown[c] = 1;
    bar_w = r.w - LABEL_W - n_cols * COL_W - 1;
    scale(t, &lo, &hi);
    if (bar_w >= BAR_MIN)
        snprintf(extra, sizeof(extra), "p99 log %s..%s, %s run",
                 units_format_duration((uint64_t)lo, lo_s, sizeof(lo_s)),
                 units_format_duration((uint64_t)hi, hi_s, sizeof(hi_s)),
                 v->th->glyph[GL_RUN_TICK]);
    ui__draw_title(v->th, r, "Where the time goes (w: latency)", bar_w >= BAR_MIN ? extra : NULL);
    y = r.y + 1;
    if (y < r.y + r.h) {
        x = r.x + LABEL_W;
        for (int i = 0; i < COL__COUNT; i++) {
            if (!shown[screen_order[i]])
                continue;
            ui__draw_fmt(v->th, y, x, COL_W, v->th->attr[ROLE_DIM], "%*s", COL_W,
                         col_names[screen_order[i]]);
            x += COL_W;
        }
        y++;
    }
    for (int p = 0; p < PHASE__COUNT && y < r.y + r.h; p++, y++) {
        const struct tick_phase_stats *ph = &t->phases[p];

        ui__draw_text(v->th, y, r.x, LABEL_W, v->th->attr[ROLE_LABEL],
                      tick_phase_name((enum tick_phase)p));
        x = r.x + LABEL_W;
        for (int i = 0; i < COL__COUNT; i++) {
            if (!shown[screen_order[i]])
                continue;
            cell(v, y, x, &ph->window, screen_order[i]);
            x += COL_W;
        }
        if (bar_w >= BAR_MIN)
            ui__draw_log_bar(v->th, y, x + 1, bar_w, lo, hi,
                             ph->window.count ? ph->window.pct_us[2] : 0,
                             ph->run.count ? &ph->run.pct_us[2] : NULL);
    }
    if (y < r.y + r.h)
        connections(v, y, r.x, r.w);
}
