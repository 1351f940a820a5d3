/*
 * Agents: in a run with agents (docs/agents.md), one row per agent from
 * the merged tick's rows: its name, ok or lost, its successes and failures
 * per second in the tick (as the throughput line), its event-loop lag and its clock's offset from
 * the coordinator's. Agent names come from the config, but are shown
 * sanitized like anything else from outside.
 */
#include "ui/internal.h"

#include <stdio.h>

#include "core/units.h"

#define NAME_W 18

static void agent_row(const struct view *v, int y, int x, int w, const struct tick_agent *a,
                      uint64_t duration_us)
{
    const struct theme *th = v->th;
    char rate[16], err[16], lag[UNITS_FMT_MAX], off[UNITS_FMT_MAX];
    uint64_t off_us = (uint64_t)(a->offset_us < 0 ? -a->offset_us : a->offset_us);
    int cx = x + NAME_W;

    ui__draw_outside(th, y, x, NAME_W - 1, th->attr[ROLE_LABEL], a->name);
    if (cx >= x + w)
        return;
    cx += ui__draw_text(th, y, cx, x + w - cx, th->attr[a->is_lost ? ROLE_BAD : ROLE_GOOD],
                        a->is_lost ? "lost"
                        : a->is_in ? "ok  "
                                   : "late");
    if (a->is_lost || cx >= x + w)
        return;
    ui__draw_fmt(th, y, cx, x + w - cx, th->attr[ROLE_VALUE], " ok %7s req/s",
                 ui__fmt_rate(tick_per_s(a->completed > a->errors ? a->completed - a->errors : 0,
                                         duration_us),
                              rate, sizeof(rate)));
    cx += 17;
    if (cx >= x + w)
        return;
    ui__draw_fmt(th, y, cx, x + w - cx, th->attr[a->errors ? ROLE_BAD : ROLE_DIM], "  failed %6s/s",
                 ui__fmt_rate(tick_per_s(a->errors, duration_us), err, sizeof(err)));
    cx += 17;
    if (cx >= x + w)
        return;
    {
        /* The offset gives way when it does not fit whole (80 columns). */
        char line[2][64];
        const char *const lines[2] = {line[0], line[1]};

        units_format_duration(a->loop_lag_us, lag, sizeof(lag));
        snprintf(line[0], sizeof(line[0]), "  lag %-7s offset %s%s", lag,
                 a->offset_us < 0 ? "-" : "+", units_format_duration(off_us, off, sizeof(off)));
        snprintf(line[1], sizeof(line[1]), "  lag %s", lag);
        ui__draw_first_fit(th, y, cx, x + w - cx, th->attr[ROLE_DIM], lines, 2);
    }
}

void ui__view_agents(const struct view *v, struct rect r)
{
    const struct tick *t = v->m->last;
    uint32_t lost = 0, shown;
    char extra[48];

    if (r.h < 1 || r.w < 1 || !t)
        return;
    for (uint32_t i = 0; i < t->n_agents; i++)
        lost += t->agents[i].is_lost;
    snprintf(extra, sizeof(extra), "%u of %u running", t->n_agents - lost, t->n_agents);
    ui__draw_title(v->th, r, "Agents", extra);
    shown = (uint32_t)(r.h - 1);
    if (shown < t->n_agents && shown > 0)
        shown--; /* the last row says how many more */
    for (uint32_t i = 0; i < t->n_agents && i < shown; i++)
        agent_row(v, r.y + 1 + (int)i, r.x, r.w, &t->agents[i], t->duration_us);
    if (shown < t->n_agents && r.h >= 2)
        ui__draw_fmt(v->th, r.y + r.h - 1, r.x, r.w, v->th->attr[ROLE_DIM], "and %u more agents",
                     t->n_agents - shown);
}
