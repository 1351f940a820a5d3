/* The header: what is loaded, how, in which state, for how long (and, in a
 * run with an end, how far it has gone: core/gauge.h), and how brink
 * itself is doing (a saturated generator is not a slow server). */
#include "ui/internal.h"

#include <stdio.h>
#include <string.h>

#include "core/gauge.h"
#include "core/sanitize.h"
#include "core/units.h"

/* Event-loop lag above this means brink, not the server, may be the limit. */
#define LAG_WARN_US 50000
#define TITLE "brink "
#define TITLE_W ((int)sizeof(TITLE) - 1)
#define GAUGE_BAR_W 10 /* cells of the gauge's bar */
#define TARGET_MIN 24  /* columns of the target the gauge leaves at least */

static const char *state_label(const struct model *m)
{
    static const char *const labels[] = {
        [RUN_STARTING] = "STARTING", [RUN_RUNNING] = "RUNNING", [RUN_PAUSED] = "PAUSED",
        [RUN_STOPPING] = "STOPPING", [RUN_DONE] = "DONE",
    };

    if (!m->last || m->last->state > RUN_DONE)
        return labels[RUN_STARTING];
    return labels[m->last->state];
}

static void elapsed(const struct model *m, char *buf, size_t len)
{
    ui__fmt_clock(m->last ? tick_end_ms(m->last) : 0, buf, len);
}

/* The run's gauge, as much of it as fits in avail columns with two spaces
 * before it and one after: the bar (when may_bar) goes first, then detail
 * (core/gauge.h). Returns the columns it takes (0: none fits, or a run
 * without an end); *has_bar says whether the bar leads it. */
static int gauge_fit(const struct tick *t, int avail, int may_bar, char *text, size_t len,
                     int *has_bar)
{
    struct gauge g;

    *has_bar = 0;
    text[0] = '\0';
    if (!t || !gauge_of_tick(t, &g))
        return 0;
    for (int d = 0; d < GAUGE_DETAILS; d++) {
        int w = 3 + (int)strlen(gauge_brief(&g, d, text, len));

        if (d == 0 && may_bar && w + GAUGE_BAR_W + 1 <= avail) {
            *has_bar = 1;
            return w + GAUGE_BAR_W + 1;
        }
        if (w <= avail)
            return w;
    }
    text[0] = '\0';
    return 0;
}

/* The gauge in room columns beside the target (tw columns) and the load
 * model (hw): in the room they leave, with the bar if it fits; short of
 * it, the load model gives way (the caller drops it when the gauge is
 * wider than that room), then the target down to TARGET_MIN columns. */
static int gauge_place(const struct tick *t, int room, int tw, int hw, char *text, size_t len,
                       int *has_bar)
{
    int w = gauge_fit(t, room - tw - hw, 1, text, len, has_bar);

    if (w == 0)
        w = gauge_fit(t, room - tw, 0, text, len, has_bar);
    if (w == 0)
        w = gauge_fit(t, room - (tw < TARGET_MIN ? tw : TARGET_MIN), 0, text, len, has_bar);
    return w;
}

/* "  ██████░░░░ 12s/1m00s 20% left 48s " at x, w columns: the bar of
 * width GAUGE_BAR_W when has_bar. */
static void gauge_draw(const struct view *v, int y, int x, int w, const char *text, int has_bar)
{
    const struct theme *th = v->th;
    struct gauge g;
    int fill;

    x += ui__draw_text(th, y, x, w, th->attr[ROLE_LABEL], "  ");
    if (has_bar && gauge_of_tick(v->m->last, &g)) {
        fill = (int)(gauge_permille(&g) * GAUGE_BAR_W / 1000);
        ui__draw_repeat(y, x, fill, th->attr[ROLE_CHART], th->glyph[GL_BAR_FULL]);
        ui__draw_repeat(y, x + fill, GAUGE_BAR_W - fill, th->attr[ROLE_DIM],
                        th->glyph[GL_BAR_EMPTY]);
        x += GAUGE_BAR_W + 1;
    }
    ui__draw_text(th, y, x, w - 3 - (has_bar ? GAUGE_BAR_W + 1 : 0), th->attr[ROLE_VALUE], text);
}

static void first_row(const struct view *v, struct rect r)
{
    const struct theme *th = v->th;
    const struct tick *t = v->m->last;
    char right[64], clock[32], how[48] = "", gauge[GAUGE_TEXT_MAX];
    int used, rw, hw, gw, tw, has_bar;

    elapsed(v->m, clock, sizeof(clock));
    snprintf(right, sizeof(right), " %s ", state_label(v->m));
    rw = (int)strlen(right) + 1 + (int)strlen(clock);
    if (t)
        snprintf(how, sizeof(how), "  %s%s%.*s%s%.*s", load_model_name(t->model),
                 t->transport[0] ? " via " : "", (int)sizeof(t->transport), t->transport,
                 t->http_version[0] ? " " : "", (int)sizeof(t->http_version), t->http_version);
    hw = (int)strlen(how);
    tw = v->target ? (int)strlen(v->target) : 0;
    gw = gauge_place(t, r.w - TITLE_W - rw - 1, tw, hw, gauge, sizeof(gauge), &has_bar);
    if (gw > 0 && r.w - TITLE_W - tw - hw - rw - 1 < gw) {
        how[0] = '\0';
        hw = 0;
    }
    /* The target gives way first: the state and the clock matter more. */
    used = ui__draw_text(th, r.y, r.x, r.w, th->attr[ROLE_TITLE], TITLE);
    used += ui__draw_outside(th, r.y, r.x + used, r.w - used - rw - gw - hw - 1,
                             th->attr[ROLE_VALUE], v->target ? v->target : "");
    used += ui__draw_text(th, r.y, r.x + used, r.w - used - rw - gw - 1, th->attr[ROLE_DIM], how);
    if (gw > 0 && r.w - rw - gw >= used)
        gauge_draw(v, r.y, r.x + r.w - rw - gw, gw, gauge, has_bar);
    if (r.w - rw > used) {
        int state_role = t && t->state == RUN_RUNNING ? ROLE_STATE : ROLE_WARN;

        ui__draw_text(th, r.y, r.x + r.w - rw, (int)strlen(right), th->attr[state_role], right);
        ui__draw_text(th, r.y, r.x + r.w - (int)strlen(clock), (int)strlen(clock),
                      th->attr[ROLE_VALUE], clock);
    }
}

/* Where the ramp plan is: "  ramp 3/5 warm-up"; nothing when none runs. */
static int plan_badge(const struct view *v, int y, int x, int w, const struct tick_plan *p)
{
    static const char *const phases[] = {
        [PLAN_OFF] = "",
        [PLAN_WARMUP] = "warm-up",
        [PLAN_MEASURE] = "measuring",
        [PLAN_HOLDING] = "holding",
        [PLAN_PAUSED] = "paused (r resumes)",
    };
    const struct theme *th = v->th;
    int used;

    if (p->phase == PLAN_OFF || p->phase > PLAN_PAUSED)
        return 0;
    used = ui__draw_text(th, y, x, w, th->attr[ROLE_LABEL], "  ramp ");
    return used + ui__draw_fmt(th, y, x + used, w - used,
                               th->attr[p->phase == PLAN_PAUSED ? ROLE_WARN : ROLE_MARK],
                               "%u/%u %s", p->step, p->n_steps, phases[p->phase]);
}

/* Closed model: the users active against the target, and in flight. */
static int closed_load(const struct view *v, int y, int x, int end)
{
    const struct theme *th = v->th;
    const struct tick *t = v->m->last;
    int x0 = x;

    x += ui__draw_text(th, y, x, end - x, th->attr[ROLE_LABEL], "users ");
    x += ui__draw_fmt(th, y, x, end - x, th->attr[ROLE_VALUE], "%u/%u", t->actual_concurrency,
                      t->target_concurrency);
    if (v->pending)
        x += ui__draw_fmt(th, y, x, end - x, th->attr[ROLE_MARK], " [%s]", v->pending);
    x += plan_badge(v, y, x, end - x, &t->plan);
    x += ui__draw_text(th, y, x, end - x, th->attr[ROLE_LABEL], "  in flight ");
    x += ui__draw_fmt(th, y, x, end - x, th->attr[ROLE_VALUE], "%u", t->in_flight);
    return x - x0;
}

/* Open model: the rate asked for and the one achieved, in flight against
 * the cap, and, loud, a schedule that was not kept (the latency shown then
 * includes the wait, which is the point). */
static int open_load(const struct view *v, int y, int x, int end)
{
    const struct theme *th = v->th;
    const struct tick *t = v->m->last;
    double got = tick_per_s(t->total.started, t->duration_us);
    char lag[UNITS_FMT_MAX];
    int x0 = x;

    x += ui__draw_text(th, y, x, end - x, th->attr[ROLE_LABEL], "rate ");
    x += ui__draw_fmt(th, y, x, end - x, th->attr[ROLE_VALUE], "%.0f/s", t->target_rate_per_s);
    x += ui__draw_text(th, y, x, end - x, th->attr[ROLE_LABEL], " got ");
    x += ui__draw_fmt(th, y, x, end - x, th->attr[ROLE_VALUE], "%.0f/s", got);
    if (v->pending)
        x += ui__draw_fmt(th, y, x, end - x, th->attr[ROLE_MARK], " [%s]", v->pending);
    x += plan_badge(v, y, x, end - x, &t->plan);
    x += ui__draw_text(th, y, x, end - x, th->attr[ROLE_LABEL], "  in flight ");
    x += ui__draw_fmt(th, y, x, end - x, th->attr[ROLE_VALUE], "%u/%u", t->in_flight,
                      t->max_in_flight);
    units_format_duration(t->sched_lag_us, lag, sizeof(lag));
    if (!tick_schedule_kept(t))
        x += ui__draw_fmt(th, y, x, end - x, th->attr[ROLE_BAD], "  %s SCHEDULE NOT KEPT: lag %s%s",
                          th->glyph[GL_MARK_ERROR], lag, t->sched_capped ? ", cap reached" : "");
    else
        x += ui__draw_fmt(th, y, x, end - x, th->attr[ROLE_DIM], "  sched lag %s", lag);
    return x - x0;
}

/* A file path in w columns: whole when it fits, else its folders elided
 * before the file name ("…/NAME"), which is what tells sessions apart;
 * cut as ui__draw_outside cuts only when the name alone does not fit. */
static int draw_path(const struct theme *th, int y, int x, int w, int attr, const char *path)
{
    char shown[DRAW_LINE_MAX];
    const char *name = strrchr(path, '/');
    int n;

    sanitize_display(path, strlen(path), shown, sizeof(shown), !th->is_utf8);
    if (!name || name == path || ui__text_width(shown) <= w)
        return ui__draw_outside(th, y, x, w, attr, path);
    sanitize_display(name, strlen(name), shown, sizeof(shown), !th->is_utf8);
    if (ui__text_width(shown) + 1 > w)
        return ui__draw_outside(th, y, x, w, attr, name + 1);
    n = ui__draw_text(th, y, x, w, attr, th->glyph[GL_ELLIPSIS]);
    return n + ui__draw_text(th, y, x + n, w - n, attr, shown);
}

static void second_row(const struct view *v, struct rect r)
{
    const struct theme *th = v->th;
    const struct tick *t = v->m->last;
    int x = r.x, end = r.x + r.w;
    char lag[UNITS_FMT_MAX], conns[16], health[2][UNITS_FMT_MAX + 40];

    if (!t) {
        ui__draw_text(th, r.y + 1, x, r.w, th->attr[ROLE_DIM], "waiting for the first tick");
        return;
    }
    if (t->model == LOAD_OPEN)
        x += open_load(v, r.y + 1, x, end);
    else
        x += closed_load(v, r.y + 1, x, end);
    x += ui__draw_fmt(
        th, r.y + 1, x, end - x, th->attr[ROLE_LABEL], "  conns %u +%s/s", t->connections,
        ui__fmt_rate(tick_per_s(t->connections_opened, t->duration_us), conns, sizeof(conns)));
    if (v->recording_problem && v->recording_problem[0]) {
        /* Loud: the operator may be counting on this session file. */
        x += ui__draw_fmt(th, r.y + 1, x, end - x, th->attr[ROLE_BAD], "  %s ",
                          th->glyph[GL_MARK_ERROR]);
        x += ui__draw_outside(th, r.y + 1, x, end - x, th->attr[ROLE_BAD], v->recording_problem);
    } else {
        x += ui__draw_text(th, r.y + 1, x, end - x, th->attr[ROLE_LABEL], "  rec ");
        x += draw_path(th, r.y + 1, x, end - x, th->attr[ROLE_DIM],
                       v->recording ? v->recording : "off");
    }
    /* The loop's health, whole or left out: "lag 1.35ms fds 2…" says
     * nothing. */
    units_format_duration(t->health.loop_lag_us, lag, sizeof(lag));
    snprintf(health[0], sizeof(health[0]), "  lag %s fds %u/%u", lag, t->health.fds_used,
             t->health.fds_limit);
    snprintf(health[1], sizeof(health[1]), "  lag %s", lag);
    for (int i = 0; i < 2; i++) {
        if (ui__text_width(health[i]) <= end - x) {
            ui__draw_text(th, r.y + 1, x, end - x,
                          th->attr[t->health.loop_lag_us > LAG_WARN_US ? ROLE_WARN : ROLE_DIM],
                          health[i]);
            break;
        }
    }
}

void ui__view_header(const struct view *v, struct rect r)
{
    if (r.h < 1 || r.w < 1)
        return;
    first_row(v, r);
    if (r.h >= 2)
        second_row(v, r);
}
