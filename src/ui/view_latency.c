/*
 * Latency: one bar per figure (p50, p90, p99, p99.9, max) for this tick, on
 * a log scale chosen from the figures shown, with the whole run's figure as
 * a marker on the same bar and in the right column. A legend row heads the
 * columns (tick, the scale, "┃ run"), so the marker and the right column
 * are explained at every width. Units are chosen per value by
 * units_format_duration.
 */
#include "ui/internal.h"

#include <stdio.h>
#include <string.h>

#include "core/units.h"

#define ROWS 5
#define LABEL_W 6
#define VALUE_W 8

struct row {
    const char *label;
    uint64_t now_us;
    uint64_t run_us;
};

static void rows_of(const struct tick_kind *k, struct row rows[ROWS])
{
    static const char *const labels[ROWS] = {"p50", "p90", "p99", "p99.9", "max"};

    for (int i = 0; i < ROWS; i++) {
        rows[i].label = labels[i];
        rows[i].now_us = i < TICK_NPCT ? k->window.pct_us[i] : k->window.max_us;
        rows[i].run_us = i < TICK_NPCT ? k->run.pct_us[i] : k->run.max_us;
    }
}

/* The log scale of the bars, around every figure shown. */
static void scale(const struct row rows[ROWS], double *lo, double *hi)
{
    uint64_t us[2 * ROWS];

    for (int i = 0; i < ROWS; i++) {
        us[2 * i] = rows[i].now_us;
        us[2 * i + 1] = rows[i].run_us;
    }
    ui__log_scale(us, 2 * ROWS, lo, hi);
}

/* The bars' width in a panel w wide: what the label and the two value
 * columns leave (a value is at most 7 columns: one blank stays). */
static int bar_width(int w)
{
    return w - LABEL_W - 2 * VALUE_W;
}

/*
 * The legend: a heading over each column, "tick" over this tick's figures,
 * the scale over the bars and "┃ run" over the whole run's column, the
 * marker's glyph in it. The scale's heading is the longest that fits the
 * bars' width.
 */
static void legend(const struct view *v, int y, int x, int w, double lo, double hi)
{
    const struct theme *th = v->th;
    const char *run = th->glyph[GL_RUN_TICK];
    char lo_s[UNITS_FMT_MAX], hi_s[UNITS_FMT_MAX], head[3][128];
    const char *const heads[3] = {head[0], head[1], head[2]};
    int bar_w = bar_width(w);

    units_format_duration((uint64_t)lo, lo_s, sizeof(lo_s));
    units_format_duration((uint64_t)hi, hi_s, sizeof(hi_s));
    snprintf(head[0], sizeof(head[0]), "on a log scale %s..%s, %s marks the whole run", lo_s, hi_s,
             run);
    snprintf(head[1], sizeof(head[1]), "on a log scale %s..%s", lo_s, hi_s);
    snprintf(head[2], sizeof(head[2]), "log %s..%s", lo_s, hi_s);
    ui__draw_fmt(th, y, x + LABEL_W, VALUE_W, th->attr[ROLE_DIM], "%*s", VALUE_W - 1, "tick");
    if (bar_w > 0)
        ui__draw_first_fit(th, y, x + LABEL_W + VALUE_W, bar_w, th->attr[ROLE_DIM], heads, 3);
    ui__draw_fmt(th, y, x + w - VALUE_W, VALUE_W, th->attr[ROLE_RUN], "%*s%s run", VALUE_W - 5, "",
                 run);
}

static void bar_row(const struct view *v, int y, int x, int w, const struct row *row, double lo,
                    double hi)
{
    const struct theme *th = v->th;
    int bar_w = bar_width(w);
    char now[UNITS_FMT_MAX], run[UNITS_FMT_MAX];

    if (row->now_us)
        units_format_duration(row->now_us, now, sizeof(now));
    else
        snprintf(now, sizeof(now), "-");
    units_format_duration(row->run_us, run, sizeof(run));
    ui__draw_text(th, y, x, LABEL_W, th->attr[ROLE_LABEL], row->label);
    ui__draw_fmt(th, y, x + LABEL_W, VALUE_W, th->attr[ROLE_VALUE], "%*s", VALUE_W - 1, now);
    if (bar_w > 0)
        ui__draw_log_bar(th, y, x + LABEL_W + VALUE_W, bar_w, lo, hi, row->now_us,
                         row->run_us ? &row->run_us : NULL);
    ui__draw_fmt(th, y, x + w - VALUE_W, VALUE_W, th->attr[ROLE_RUN], "%*s", VALUE_W, run);
}

/* min, mean, sd and how many the tick timed; narrow panels leave the
 * count out rather than cut it. */
static void moments(const struct view *v, int y, int x, int w, const struct tick_kind *k)
{
    char mean[UNITS_FMT_MAX], sd[UNITS_FMT_MAX], min[UNITS_FMT_MAX], line[3][128];
    const char *const lines[3] = {line[0], line[1], line[2]};

    units_format_duration((uint64_t)(k->window.mean_us + 0.5), mean, sizeof(mean));
    units_format_duration((uint64_t)(k->window.stddev_us + 0.5), sd, sizeof(sd));
    units_format_duration(k->window.min_us, min, sizeof(min));
    snprintf(line[0], sizeof(line[0]), "min %s  mean %s  sd %s  timed %llu requests", min, mean, sd,
             (unsigned long long)k->window.count);
    snprintf(line[1], sizeof(line[1]), "min %s  mean %s  sd %s  timed %llu", min, mean, sd,
             (unsigned long long)k->window.count);
    snprintf(line[2], sizeof(line[2]), "min %s  mean %s  sd %s", min, mean, sd);
    ui__draw_first_fit(v->th, y, x, w, v->th->attr[ROLE_DIM], lines, 3);
}

/* The p99 of each tick over the same span as the throughput chart, so a
 * latency knee lines up with the load that caused it. */
static void p99_chart(const struct view *v, struct rect c)
{
    double values[MODEL_HISTORY + 1], top = 0;
    int roles[MODEL_HISTORY + 1];
    unsigned k, n = ui__model_columns(v->m, (unsigned)c.w, &k);
    char top_s[UNITS_FMT_MAX];

    for (unsigned i = 0; i < n; i++) {
        struct ui__model_point p;

        ui__model_column(v->m, k, i, &p);
        values[i] = (double)p.p99_us;
        roles[i] = p.err_per_s > 0 ? ROLE_CHART_ERR : ROLE_CHART;
        if (values[i] > top)
            top = values[i];
    }
    ui__draw_fmt(v->th, c.y, c.x, c.w, v->th->attr[ROLE_DIM], "p99 per tick, top %s",
                 units_format_duration((uint64_t)top, top_s, sizeof(top_s)));
    c.y++;
    c.h--;
    ui__draw_chart(v->th, c, values, roles, n, top);
}

enum latency_shown ui__latency_next(enum latency_shown now, int is_open)
{
    switch (now) {
    case LATENCY_SUCCESSES: return is_open ? LATENCY_SERVICE : LATENCY_FAILED;
    case LATENCY_SERVICE: return LATENCY_FAILED;
    case LATENCY_FAILED: break;
    }
    return LATENCY_SUCCESSES;
}

/* The figures shown and the title that says which they are: the successes
 * by default (under the open model from each request's intended start);
 * l moves to their service time (open model) and to the failed requests.
 * title[1] is a shorter form for narrow panels (80 columns: 39). */
static const struct tick_kind *shown(const struct view *v, const char *title[2])
{
    const struct tick *t = v->m->last;
    int is_open = t->model == LOAD_OPEN;

    if (v->latency == LATENCY_FAILED) {
        title[0] = is_open ? "Latency of failures, from intended start (l: successes)"
                           : "Latency of failures (l: successes)";
        title[1] = is_open ? "Failures, intended start (l: ok)" : title[0];
        return &t->failed;
    }
    if (is_open && v->latency == LATENCY_SERVICE) {
        title[0] = "Latency of successes: service time (l: failures)";
        title[1] = "Latency, service time (l: failures)";
        return &t->service;
    }
    title[0] = is_open ? "Latency of successes, from intended start (l: service)"
                       : "Latency of successes (l: failures)";
    title[1] = is_open ? "Latency, intended start (l: service)" : title[0];
    return &t->total;
}

void ui__view_latency(const struct view *v, struct rect r)
{
    const struct tick_kind *k;
    const char *title[2];
    struct row rows[ROWS];
    double lo, hi;
    int y;

    if (r.h < 1 || r.w < 1)
        return;
    if (v->show_phases) {
        ui__view_phases(v, r);
        return;
    }
    if (!v->m->last) {
        ui__draw_title(v->th, r, "Latency", NULL);
        return;
    }
    k = shown(v, title);
    rows_of(k, rows);
    scale(rows, &lo, &hi);
    /* The title and its rule: " ─" at least after it. */
    ui__draw_title(v->th, r, ui__text_width(title[0]) + 2 <= r.w ? title[0] : title[1], NULL);
    y = r.y + 1;
    if (y < r.y + r.h)
        legend(v, y++, r.x, r.w, lo, hi);
    for (int i = 0; i < ROWS && y < r.y + r.h; i++, y++)
        bar_row(v, y, r.x, r.w, &rows[i], lo, hi);
    if (y < r.y + r.h)
        moments(v, y++, r.x, r.w, k);
    if (r.y + r.h - y >= 3)
        p99_chart(v, (struct rect){.y = y, .x = r.x, .h = r.y + r.h - y, .w = r.w});
}
