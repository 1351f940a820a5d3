/*
 * The event log (operator commands as applied, marks, first errors, alerts,
 * detections), newest at the bottom; and the key line with its prompt and
 * status message. Event texts may quote the server: sanitized.
 */
#include "ui/internal.h"

#include <stdio.h>
#include <string.h>

static int kind_role(enum event_kind k)
{
    switch (k) {
    case EV_FIRST_ERROR:
    case EV_ALERT: return ROLE_BAD;
    case EV_MARK: return ROLE_MARK;
    case EV_DETECTION:
    case EV_PROBE: return ROLE_WARN;
    default: return ROLE_LABEL;
    }
}

static void event_row(const struct view *v, int y, int x, int w, const struct ui__model_event *e)
{
    const struct theme *th = v->th;
    char at[16];
    int used;

    ui__fmt_clock(e->at_ms, at, sizeof(at));
    used = ui__draw_fmt(th, y, x, w, th->attr[ROLE_DIM], "%s ", at);
    used += ui__draw_fmt(th, y, x + used, w - used, th->attr[kind_role(e->kind)], "%-12s",
                         event_kind_name(e->kind));
    ui__draw_outside(th, y, x + used, w - used, th->attr[ROLE_NORMAL], e->text);
}

void ui__view_events(const struct view *v, struct rect r)
{
    const struct model *m = v->m;
    char extra[48] = "";
    unsigned n;

    if (r.h < 1 || r.w < 1)
        return;
    if (m->events_lost)
        snprintf(extra, sizeof(extra), "%llu more not shown", (unsigned long long)m->events_lost);
    ui__draw_title(v->th, r, "Events", extra);
    n = (unsigned)(r.h - 1) < m->n_events ? (unsigned)(r.h - 1) : m->n_events;
    if (!n && r.h >= 2)
        ui__draw_text(v->th, r.y + 1, r.x, r.w, v->th->attr[ROLE_DIM], "none yet");
    for (unsigned i = 0; i < n; i++)
        event_row(v, r.y + r.h - 1 - (int)i, r.x, r.w, ui__model_event(m, i));
}

/* A replay's line: play or pause, the speed, a position bar, the time. */
static void replay_line(const struct view *v, struct rect r)
{
    const struct theme *th = v->th;
    uint64_t at = v->m->last ? tick_end_ms(v->m->last) : 0;
    char now[16], total[16];
    int x = r.x, bar, fill;

    ui__fmt_clock(at, now, sizeof(now));
    ui__fmt_clock(v->replay_total_ms, total, sizeof(total));
    x += ui__draw_fmt(th, r.y, x, r.w, th->attr[ROLE_STATE], " %s x%g ",
                      v->is_replay_paused ? "PAUSED" : "PLAY", v->replay_speed);
    x += ui__draw_fmt(th, r.y, x, r.w - (x - r.x), th->attr[ROLE_VALUE], " %s/%s ", now, total);
    bar = r.w - (x - r.x) - (int)sizeof(" ? keys") + 1;
    if (bar >= 4) {
        fill = v->replay_total_ms ? (int)((double)at / (double)v->replay_total_ms * bar + 0.5) : 0;
        fill = fill > bar ? bar : fill;
        ui__draw_repeat(r.y, x, fill, th->attr[ROLE_CHART], th->glyph[GL_BAR_FULL]);
        ui__draw_repeat(r.y, x + fill, bar - fill, th->attr[ROLE_DIM], th->glyph[GL_BAR_EMPTY]);
        x += bar;
    }
    ui__draw_text(th, r.y, x, r.w - (x - r.x), th->attr[ROLE_KEY], " ? keys");
}

/* The key line's entries: key and word. */
struct key_word {
    const char *key, *word;
};

/* Columns the entries take: "key word  " each. */
static int keys_width(const struct key_word *keys, size_t n)
{
    int w = 0;

    for (size_t i = 0; i < n; i++)
        w += (int)strlen(keys[i].key) + 1 + (int)strlen(keys[i].word) + 2;
    return w;
}

void ui__view_keys(const struct view *v, struct rect r)
{
    /* At 80 columns d (drop), m (mark) and the panel keys are in the help
     * only; a wide line has them all, after the same start. */
    static const struct key_word narrow[] = {
        {"+/-", "step"}, {"]/[", "x2 /2"}, {"=", "set"},  {"p", "pause"},
        {"r", "ramp"},   {"t", "steps"},   {"?", "help"}, {"q", "quit"},
    };
    static const struct key_word wide[] = {
        {"+/-", "step"},      {"]/[", "x2 /2"}, {"=", "set"},  {"p", "pause"},
        {"r", "ramp"},        {"t", "steps"},   {"?", "help"}, {"q", "quit"},
        {"o", "open/closed"}, {"d", "drop"},    {"m", "mark"}, {"n", "next step"},
        {"l", "ok/failed"},   {"w", "phases"},
    };
    const struct key_word *keys = narrow;
    size_t n_keys = sizeof(narrow) / sizeof(narrow[0]);
    const struct theme *th = v->th;
    int x = r.x;

    if (r.h < 1 || r.w < 1)
        return;
    if (v->prompt) {
        x += ui__draw_fmt(th, r.y, x, r.w, th->attr[ROLE_KEY], "%s: ", v->prompt);
        x += ui__draw_outside(th, r.y, x, r.w - (x - r.x), th->attr[ROLE_VALUE], v->input);
        ui__draw_text(th, r.y, x, r.w - (x - r.x), th->attr[ROLE_DIM],
                      "_  (Enter: send, Esc: cancel)");
        return;
    }
    if (v->status) {
        ui__draw_outside(th, r.y, x, r.w, th->attr[ROLE_MARK], v->status);
        return;
    }
    if (v->is_replay) {
        replay_line(v, r);
        return;
    }
    if (keys_width(wide, sizeof(wide) / sizeof(wide[0])) - 2 <= r.w) {
        keys = wide;
        n_keys = sizeof(wide) / sizeof(wide[0]);
    }
    /* Whole entries only. */
    for (size_t i = 0; i < n_keys && x + keys_width(&keys[i], 1) - 2 <= r.x + r.w; i++) {
        x += ui__draw_text(th, r.y, x, r.w - (x - r.x), th->attr[ROLE_KEY], keys[i].key);
        x += ui__draw_fmt(th, r.y, x, r.w - (x - r.x), th->attr[ROLE_LABEL], " %s  ", keys[i].word);
    }
}
