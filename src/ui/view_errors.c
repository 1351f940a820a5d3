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
/* Narrow panels (80 columns: 40) give the message the room: names as wide
 * as the longest shown, totals in 6 columns. */
#define NARROW_W 60
#define TOTAL_NARROW_W 6

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
    /* Whole entries only; what does not fit is counted ("+2"). */
    for (uint32_t i = 0; i < m->n_status; i++) {
        int role = s[i].code >= 500 ? ROLE_BAD : s[i].code >= 400 ? ROLE_WARN : ROLE_VALUE;
        int more = i + 1 < m->n_status || m->status_other;
        char item[32];

        snprintf(item, sizeof(item), " %u:%s", s[i].code,
                 units_format_count(s[i].count, n, sizeof(n)));
        if (used + (int)strlen(item) + (more ? 4 : 0) > w) {
            ui__draw_fmt(v->th, y, x + used, w - used, v->th->attr[ROLE_DIM], " +%u",
                         m->n_status - i + (m->status_other ? 1 : 0));
            return;
        }
        used += ui__draw_text(v->th, y, x + used, w - used, role, item);
    }
    if (m->status_other)
        ui__draw_fmt(v->th, y, x + used, w - used, v->th->attr[ROLE_DIM], " other:%llu",
                     (unsigned long long)m->status_other);
}

/* The width of the name column: NAME_W, or at narrow widths the longest
 * name shown (class or cause, after "! "). */
static int name_width(const struct view *v, int w)
{
    int name_w = 8;

    if (w >= NARROW_W)
        return NAME_W;
    for (int c = 0; c < ERR__COUNT; c++) {
        if (v->m->errors[c] && (int)strlen(errclass_name((enum errclass)c)) > name_w)
            name_w = (int)strlen(errclass_name((enum errclass)c));
    }
    for (int c = 0; c < RESEND__COUNT; c++) {
        if (v->m->resent[c] && (int)strlen(resend_cause_name((enum resend_cause)c)) > name_w)
            name_w = (int)strlen(resend_cause_name((enum resend_cause)c));
    }
    return 2 + name_w + 1;
}

static void class_row(const struct view *v, int y, int x, int w, int c)
{
    const struct theme *th = v->th;
    const struct tick *t = v->m->last;
    double rate = tick_per_s(t->total.errors[c], t->duration_us);
    char r[16], total[16];
    int used;

    used = ui__draw_fmt(th, y, x, w, th->attr[ROLE_BAD], "%s %-*s", th->glyph[GL_MARK_ERROR],
                        name_width(v, w) - 2, errclass_name((enum errclass)c));
    used += ui__draw_fmt(th, y, x + used, w - used, th->attr[rate > 0 ? ROLE_BAD : ROLE_DIM],
                         "%*s/s", RATE_W - 2, ui__fmt_rate(rate, r, sizeof(r)));
    used += ui__draw_fmt(th, y, x + used, w - used, th->attr[ROLE_VALUE], "%*s ",
                         w < NARROW_W ? TOTAL_NARROW_W : TOTAL_W,
                         units_format_count(v->m->errors[c], total, sizeof(total)));
    if (used + 1 < w)
        ui__draw_outside(th, y, x + used + 1, w - used - 1, th->attr[ROLE_DIM],
                         v->m->latest_error[c]);
}

/* Why requests of this cause went again, in a few words, and in fewer
 * for narrow panels. */
static const char *const resent_words[RESEND__COUNT][2] = {
    [RESEND_CLOSED_IDLE] = {"sent again: the server had closed the kept-alive connection",
                            "sent again: idle close"},
    [RESEND_REFUSED_STREAM] = {"sent again: the server refused the HTTP/2 stream unprocessed",
                               "sent again: refused"},
};

static void resent_row(const struct view *v, int y, int x, int w, int c)
{
    const struct theme *th = v->th;
    double rate = tick_per_s(v->m->last->resent[c], v->m->last->duration_us);
    char r[16], total[16];
    int used;

    used = ui__draw_fmt(th, y, x, w, th->attr[ROLE_WARN], "  %-*s", name_width(v, w) - 2,
                        resend_cause_name((enum resend_cause)c));
    used += ui__draw_fmt(th, y, x + used, w - used, th->attr[rate > 0 ? ROLE_WARN : ROLE_DIM],
                         "%*s/s", RATE_W - 2, ui__fmt_rate(rate, r, sizeof(r)));
    used += ui__draw_fmt(th, y, x + used, w - used, th->attr[ROLE_VALUE], "%*s ",
                         w < NARROW_W ? TOTAL_NARROW_W : TOTAL_W,
                         units_format_count(v->m->resent[c], total, sizeof(total)));
    if (used + 1 < w)
        ui__draw_first_fit(th, y, x + used + 1, w - used - 1, th->attr[ROLE_DIM], resent_words[c],
                           2);
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
