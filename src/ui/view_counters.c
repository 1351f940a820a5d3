/*
 * Server counters: one row per probe with its latest value (a counter's
 * rate), the change since the previous sample, a chart of its recent
 * samples and its state. Alerting rows are marked "!", stale ones "~",
 * failing ones "x" with the reason, so the meaning survives without colour.
 * Names and reasons come from outside and are sanitized.
 */
#include "ui/internal.h"

#include <stdio.h>

#define NAME_W 18
#define VALUE_W 10
#define CHANGE_W 10
#define SPARK_MIN 6

#define HINT "add [probe NAME]: see docs/probes.md"

static void spark(const struct view *v, int y, int x, int w, const struct model_probe *p)
{
    unsigned n = p->n_history < (unsigned)w ? p->n_history : (unsigned)w;
    double lo = 0, hi = 0;

    for (unsigned i = 0; i < n; i++) {
        double s = ui__model_probe_sample(p, i);

        if (i == 0 || s < lo)
            lo = s;
        if (i == 0 || s > hi)
            hi = s;
    }
    for (unsigned i = 0; i < n; i++) {
        double s = ui__model_probe_sample(p, i);
        /* A flat series sits on the baseline; levels 1..8 otherwise. */
        int level = hi > lo ? 1 + (int)((s - lo) / (hi - lo) * 7 + 0.5) : 1;

        ui__draw_text(v->th, y, x + w - 1 - (int)i, 1,
                      v->th->attr[p->alerting ? ROLE_BAD : ROLE_CHART], v->th->levels[level]);
    }
}

static void state_mark(const struct view *v, int y, int x, const struct model_probe *p)
{
    const struct theme *th = v->th;

    if (p->state == PROBE_FAILING)
        ui__draw_text(th, y, x, 1, th->attr[ROLE_BAD], th->glyph[GL_FAILING]);
    else if (p->state == PROBE_STALE)
        ui__draw_text(th, y, x, 1, th->attr[ROLE_WARN], th->glyph[GL_STALE]);
    else if (p->alerting)
        ui__draw_text(th, y, x, 1, th->attr[ROLE_BAD], th->glyph[GL_ALERT]);
}

static void probe_row(const struct view *v, int y, int x, int w, const struct model_probe *p)
{
    const struct theme *th = v->th;
    char value[32], change[32];
    int used = 2;

    state_mark(v, y, x, p);
    used += ui__draw_outside(th, y, x + used, NAME_W - 1, th->attr[ROLE_LABEL], p->name);
    used = 2 + NAME_W;
    if (p->has_value)
        ui__fmt_value(p->value, value, sizeof(value));
    else
        snprintf(value, sizeof(value), "-");
    ui__draw_fmt(th, y, x + used, VALUE_W, th->attr[p->alerting ? ROLE_BAD : ROLE_VALUE], "%*s",
                 VALUE_W - 1, value);
    used += VALUE_W;
    if (p->has_change) {
        ui__fmt_value(p->change, change, sizeof(change));
        ui__draw_fmt(th, y, x + used, CHANGE_W, th->attr[ROLE_DIM], "%s%*s",
                     p->change > 0 ? "+" : " ", CHANGE_W - 2, change);
    }
    used += CHANGE_W;
    if (p->state == PROBE_FAILING || p->state == PROBE_STALE) {
        ui__draw_fmt(th, y, x + used, w - used, th->attr[ROLE_WARN],
                     "%s: ", probe_state_name(p->state));
        used += (int)sizeof("failing: ") - 1;
        ui__draw_outside(th, y, x + used, w - used, th->attr[ROLE_DIM], p->error);
    } else if (w - used >= SPARK_MIN) {
        spark(v, y, x + used, w - used, p);
    }
}

void ui__view_counters(const struct view *v, struct rect r)
{
    const struct model *m = v->m;

    if (r.h < 1 || r.w < 1)
        return;
    ui__draw_title(v->th, r, "Server counters", NULL);
    if (!m->n_probes) {
        ui__draw_text(v->th, r.y + 1, r.x, r.w, v->th->attr[ROLE_DIM], "no probes configured");
        if (r.h >= 3)
            ui__draw_text(v->th, r.y + 2, r.x, r.w, v->th->attr[ROLE_DIM], HINT);
        return;
    }
    for (uint32_t i = 0; i < m->n_probes && (int)i + 1 < r.h; i++)
        probe_row(v, r.y + 1 + (int)i, r.x, r.w, &m->probes[i]);
}
