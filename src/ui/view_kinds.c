/*
 * Request kinds: one row per [request NAME] of a mix, so an "average mix"
 * shows PUT latency apart from GET latency. Figures of the last tick
 * (successes and failures per second apart, as the throughput line), plus
 * the run's p99. Kind names come from the config but are sanitized like
 * anything else shown.
 */
#include "ui/internal.h"

#include <stdio.h>

#include "core/units.h"

#define NAME_W 16
#define COL_W 9

static void cell_duration(const struct theme *th, int y, int x, uint64_t us, int has)
{
    char buf[UNITS_FMT_MAX];

    ui__draw_fmt(th, y, x, COL_W, th->attr[ROLE_VALUE], "%*s", COL_W - 1,
                 has ? units_format_duration(us, buf, sizeof(buf)) : "-");
}

static void kind_row(const struct view *v, int y, int x, int w, const struct tick_kind *k,
                     uint64_t duration_us)
{
    const struct theme *th = v->th;
    uint64_t failed = errclass_sum(k->errors);
    char rate[16], err[16];
    int cx = x + NAME_W;

    ui__draw_outside(th, y, x, NAME_W - 1, th->attr[ROLE_LABEL], k->name);
    if (cx + 2 * COL_W <= x + w) {
        ui__draw_fmt(
            th, y, cx, COL_W, th->attr[ROLE_VALUE], "%*s", COL_W - 1,
            ui__fmt_rate(tick_per_s(k->completed > failed ? k->completed - failed : 0, duration_us),
                         rate, sizeof(rate)));
        ui__draw_fmt(th, y, cx + COL_W, COL_W, th->attr[failed ? ROLE_BAD : ROLE_DIM], "%*s",
                     COL_W - 1, ui__fmt_rate(tick_per_s(failed, duration_us), err, sizeof(err)));
    }
    cx += 2 * COL_W;
    for (int i = 0; i < TICK_NPCT && cx + COL_W <= x + w; i++, cx += COL_W)
        cell_duration(th, y, cx, k->window.pct_us[i], k->window.count > 0);
    if (cx + COL_W <= x + w)
        cell_duration(th, y, cx, k->window.max_us, k->window.count > 0);
    cx += COL_W;
    if (cx + COL_W <= x + w)
        cell_duration(th, y, cx, k->run.pct_us[2], k->run.count > 0);
}

void ui__view_kinds(const struct view *v, struct rect r)
{
    static const char *const heads[] = {"ok/s", "failed/s", "p50", "p90",
                                        "p99",  "p99.9",    "max", "run p99"};
    const struct tick *t = v->m->last;
    int x = r.x + NAME_W;

    if (r.h < 1 || r.w < 1)
        return;
    ui__draw_title(v->th, r, "Request kinds", NULL);
    if (!t || r.h < 2)
        return;
    ui__draw_text(v->th, r.y + 1, r.x, NAME_W, v->th->attr[ROLE_DIM], "kind");
    for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]) && x + COL_W <= r.x + r.w;
         i++, x += COL_W)
        ui__draw_fmt(v->th, r.y + 1, x, COL_W, v->th->attr[ROLE_DIM], "%*s", COL_W - 1, heads[i]);
    for (uint32_t i = 0; i < t->n_kinds && (int)i + 2 < r.h; i++)
        kind_row(v, r.y + 2 + (int)i, r.x, r.w, &t->kinds[i], t->duration_us);
}
