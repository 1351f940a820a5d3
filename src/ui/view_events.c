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
    case EV_ALERT:
        return ROLE_BAD;
    case EV_MARK:
        return ROLE_MARK;
    case EV_DETECTION:
    case EV_PROBE:
        return ROLE_WARN;
    default:
        return ROLE_LABEL;
    }
}

static void event_row(const struct view *v, int y, int x, int w, const struct model_event *e)
{
    const struct theme *th = v->th;
    uint64_t s = e->at_ms / 1000;
    int used;

    used = draw_fmt(th, y, x, w, th->attr[ROLE_DIM], "%02llu:%02llu:%02llu ",
                    (unsigned long long)(s / 3600), (unsigned long long)(s / 60 % 60),
                    (unsigned long long)(s % 60));
    used += draw_fmt(th, y, x + used, w - used, th->attr[kind_role(e->kind)], "%-12s",
                     event_kind_name(e->kind));
    draw_outside(th, y, x + used, w - used, th->attr[ROLE_NORMAL], e->text);
}

void view_events(const struct view *v, struct rect r)
{
    const struct model *m = v->m;
    char extra[48] = "";
    unsigned n;

    if (r.h < 1 || r.w < 1)
        return;
    if (m->events_lost)
        snprintf(extra, sizeof(extra), "%llu more not shown", (unsigned long long)m->events_lost);
    draw_title(v->th, r, "Events", extra);
    n = (unsigned)(r.h - 1) < m->n_events ? (unsigned)(r.h - 1) : m->n_events;
    if (!n && r.h >= 2)
        draw_text(v->th, r.y + 1, r.x, r.w, v->th->attr[ROLE_DIM], "none yet");
    for (unsigned i = 0; i < n; i++)
        event_row(v, r.y + r.h - 1 - (int)i, r.x, r.w, model_event(m, i));
}

void view_keys(const struct view *v, struct rect r)
{
    static const char *const keys[][2] = {
        {"+/-", "step"}, {"]/[", "x2 /2"}, {"=", "set"},   {"p", "pause"},
        {"d", "drop"},   {"m", "mark"},    {"?", "help"}, {"q", "quit"},
    };
    const struct theme *th = v->th;
    int x = r.x;

    if (r.h < 1 || r.w < 1)
        return;
    if (v->prompt) {
        x += draw_fmt(th, r.y, x, r.w, th->attr[ROLE_KEY], "%s: ", v->prompt);
        x += draw_outside(th, r.y, x, r.w - (x - r.x), th->attr[ROLE_VALUE], v->input);
        draw_text(th, r.y, x, r.w - (x - r.x), th->attr[ROLE_DIM], "_  (Enter: send, Esc: cancel)");
        return;
    }
    if (v->status) {
        draw_outside(th, r.y, x, r.w, th->attr[ROLE_MARK], v->status);
        return;
    }
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]) && x < r.x + r.w; i++) {
        x += draw_text(th, r.y, x, r.w - (x - r.x), th->attr[ROLE_KEY], keys[i][0]);
        x += draw_fmt(th, r.y, x, r.w - (x - r.x), th->attr[ROLE_LABEL], " %s  ", keys[i][1]);
    }
}
