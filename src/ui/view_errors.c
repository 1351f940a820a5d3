/*
 * Errors: the HTTP statuses seen in the run, then one row per error class
 * seen: failures per second in the last tick, the run's total and the
 * latest first-of-tick message of the class (from outside: sanitized);
 * then one row per cause of requests sent again, alike.
 */
#include "ui/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errclass.h"
#include "core/units.h"

#define NAME_W 15
#define RATE_W 8
#define TOTAL_W 8

static int by_code(const void *a, const void *b)
{
    const struct tick_status *x = a, *y = b;

    return (int)x->code - (int)y->code;
}

static void statuses(const struct view *v, int y, int x, int w)
{
    struct tick_status s[TICK_MAX_STATUS];
    const struct model *m = v->m;
    char n[16];
    int used;

    memcpy(s, m->status, sizeof(s));
    qsort(s, m->n_status, sizeof(s[0]), by_code);
    used = ui__draw_text(v->th, y, x, w, v->th->attr[ROLE_LABEL], "status");
    for (uint32_t i = 0; i < m->n_status && used < w; i++) {
        int role = s[i].code >= 500 ? ROLE_BAD : s[i].code >= 400 ? ROLE_WARN : ROLE_VALUE;

        used += ui__draw_fmt(v->th, y, x + used, w - used, role, " %u:%s", s[i].code,
                             units_format_count(s[i].count, n, sizeof(n)));
    }
    if (m->status_other && used < w)
        ui__draw_fmt(v->th, y, x + used, w - used, v->th->attr[ROLE_DIM], " other:%llu",
                     (unsigned long long)m->status_other);
}

static void class_row(const struct view *v, int y, int x, int w, int c)
{
    const struct theme *th = v->th;
    const struct tick *t = v->m->last;
    double rate = tick_per_s(t->total.errors[c], t->duration_us);
    char r[16], total[16];
    int used;

    used = ui__draw_fmt(th, y, x, w, th->attr[ROLE_BAD], "%s %-*s", th->glyph[GL_MARK_ERROR],
                        NAME_W - 2, errclass_name((enum errclass)c));
    used += ui__draw_fmt(th, y, x + used, w - used, th->attr[rate > 0 ? ROLE_BAD : ROLE_DIM],
                         "%*s/s", RATE_W - 2, ui__fmt_rate(rate, r, sizeof(r)));
    used += ui__draw_fmt(th, y, x + used, w - used, th->attr[ROLE_VALUE], "%*s ", TOTAL_W,
                         units_format_count(v->m->errors[c], total, sizeof(total)));
    if (used + 1 < w)
        ui__draw_outside(th, y, x + used + 1, w - used - 1, th->attr[ROLE_DIM],
                         v->m->latest_error[c]);
}

/* Why requests of this cause went again, in a few words. */
static const char *const resent_words[RESEND__COUNT] = {
    [RESEND_CLOSED_IDLE] = "sent again: the server had closed the kept-alive connection",
    [RESEND_REFUSED_STREAM] = "sent again: the server refused the HTTP/2 stream unprocessed",
};

static void resent_row(const struct view *v, int y, int x, int w, int c)
{
    const struct theme *th = v->th;
    double rate = tick_per_s(v->m->last->resent[c], v->m->last->duration_us);
    char r[16], total[16];
    int used;

    used = ui__draw_fmt(th, y, x, w, th->attr[ROLE_WARN], "  %-*s", NAME_W - 2,
                        resend_cause_name((enum resend_cause)c));
    used += ui__draw_fmt(th, y, x + used, w - used, th->attr[rate > 0 ? ROLE_WARN : ROLE_DIM],
                         "%*s/s", RATE_W - 2, ui__fmt_rate(rate, r, sizeof(r)));
    used += ui__draw_fmt(th, y, x + used, w - used, th->attr[ROLE_VALUE], "%*s ", TOTAL_W,
                         units_format_count(v->m->resent[c], total, sizeof(total)));
    if (used + 1 < w)
        ui__draw_text(th, y, x + used + 1, w - used - 1, th->attr[ROLE_DIM], resent_words[c]);
}

void ui__view_errors(const struct view *v, struct rect r)
{
    const struct model *m = v->m;
    uint64_t failed = 0;
    char extra[64], n[16];
    int y = r.y + 1;

    if (r.h < 1 || r.w < 1)
        return;
    failed = errclass_sum(m->errors);
    if (m->completed)
        snprintf(extra, sizeof(extra), "%s failed (%.2f%%)",
                 units_format_count(failed, n, sizeof(n)),
                 100.0 * (double)failed / (double)m->completed);
    else
        extra[0] = '\0';
    ui__draw_title(v->th, r, "Errors", extra);
    if (!m->last || r.h < 2)
        return;
    statuses(v, y++, r.x, r.w);
    if (!failed && y < r.y + r.h)
        ui__draw_text(v->th, y++, r.x, r.w, v->th->attr[ROLE_GOOD], "no errors");
    for (int c = 0; c < ERR__COUNT && y < r.y + r.h; c++) {
        if (m->errors[c])
            class_row(v, y++, r.x, r.w, c);
    }
    for (int c = 0; c < RESEND__COUNT && y < r.y + r.h; c++) {
        if (m->resent[c])
            resent_row(v, y++, r.x, r.w, c);
    }
}
