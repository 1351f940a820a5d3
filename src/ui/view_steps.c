/*
 * The step table, in the event log's place while t is on: one row per
 * level held (per plan step when a ramp runs), the newest at the bottom,
 * the open one marked as running. Warm-ups are out of the figures, as in
 * brink report. Requests sent again get a column when some row has any.
 * The failed condition quotes a probe name: sanitized.
 */
#include "ui/internal.h"

#include <stdio.h>
#include <string.h>

#include "core/steps.h"
#include "core/units.h"

/* Columns: step, level, held, ok/s, failed/s (successes and failures
 * apart, as the throughput line), p99, err%, [resent,] then the verdict. */
#define HEAD_FMT "%-6s %-9s %7s %8s %8s %8s %6s  %s"
#define HEAD_RESENT_FMT "%-6s %-9s %7s %8s %8s %8s %6s %7s  %s"

static double err_pct(const struct step_row *r)
{
    return r->completed ? 100.0 * (double)steps_row_failed(r) / (double)r->completed : 0;
}

static int verdict_role(const struct step_row *r, int is_open)
{
    if (is_open)
        return ROLE_MARK;
    switch (r->verdict) {
    case VERDICT_PASS: return ROLE_GOOD;
    case VERDICT_FAIL: return ROLE_BAD;
    default: return ROLE_DIM;
    }
}

static void row_line(const struct view *v, int y, struct rect r, const struct step_row *row,
                     int is_open, int has_resent)
{
    const struct theme *th = v->th;
    char step[16] = "-", level[24], held[UNITS_FMT_MAX], rate[16], failed[16], p99[UNITS_FMT_MAX],
         err[16], resent[UNITS_FMT_MAX], verdict[32];
    int used;

    if (row->plan_step)
        snprintf(step, sizeof(step), "%u/%u", row->plan_step, row->plan_n_steps);
    if (row->model == LOAD_OPEN)
        snprintf(level, sizeof(level), "%.0f/s", row->level);
    else
        snprintf(level, sizeof(level), "c=%.0f", row->level);
    units_format_duration(row->duration_us, held, sizeof(held));
    ui__fmt_rate(tick_per_s(row->ok, row->duration_us), rate, sizeof(rate));
    ui__fmt_rate(tick_per_s(steps_row_failed(row), row->duration_us), failed, sizeof(failed));
    if (row->timed)
        units_format_duration(row->p99_us, p99, sizeof(p99));
    else
        snprintf(p99, sizeof(p99), "-");
    snprintf(err, sizeof(err), "%.1f%%", err_pct(row));
    /* A judged step stays open while the run ends after it: its verdict
     * shows, not "running". */
    is_open = is_open && row->verdict == VERDICT_NONE;
    if (is_open)
        snprintf(verdict, sizeof(verdict), "%s",
                 row->plan_step                                         ? "running"
                 : v->m->last && v->m->last->plan.phase == PLAN_HOLDING ? "holding"
                                                                        : "now");
    else
        snprintf(verdict, sizeof(verdict), "%s%s", steps_verdict_label(row),
                 row->verdict == VERDICT_FAIL ? ": " : "");
    if (has_resent)
        used = ui__draw_fmt(
            th, y, r.x, r.w, th->attr[ROLE_VALUE], "%-6s %-9s %7s %8s %8s %8s %6s %7s  ", step,
            level, held, rate, failed, p99, err,
            units_format_count(tick_resent_sum(row->resent), resent, sizeof(resent)));
    else
        used =
            ui__draw_fmt(th, y, r.x, r.w, th->attr[ROLE_VALUE], "%-6s %-9s %7s %8s %8s %8s %6s  ",
                         step, level, held, rate, failed, p99, err);
    used +=
        ui__draw_text(th, y, r.x + used, r.w - used, th->attr[verdict_role(row, is_open)], verdict);
    if (!is_open && row->verdict == VERDICT_FAIL)
        ui__draw_outside(th, y, r.x + used, r.w - used, th->attr[ROLE_BAD], row->why);
}

void ui__view_steps(const struct view *v, struct rect r)
{
    const struct steps *st = v->m->steps;
    struct step_row cur;
    int has_cur = steps_current(st, &cur) == 0;
    size_t n = steps_count(st), first;
    int room = r.h - 2 - has_cur, y = r.y + 2;
    int has_resent = has_cur && tick_resent_sum(cur.resent) != 0;
    char extra[48];

    if (r.h < 1 || r.w < 1)
        return;
    snprintf(extra, sizeof(extra), "%zu closed  t: events", n);
    ui__draw_title(v->th, r, "Steps", extra);
    if (r.h < 2)
        return;
    /* The newest rows that fit, oldest first, the open one last. */
    if (room < 0)
        room = 0;
    first = n > (size_t)room ? n - (size_t)room : 0;
    for (size_t i = 0; i < n; i++)
        has_resent |= tick_resent_sum(steps_row(st, i)->resent) != 0;
    if (has_resent)
        ui__draw_fmt(v->th, r.y + 1, r.x, r.w, v->th->attr[ROLE_LABEL], HEAD_RESENT_FMT, "step",
                     "level", "held", "ok/s", "failed/s", "p99", "err", "resent", "verdict");
    else
        ui__draw_fmt(v->th, r.y + 1, r.x, r.w, v->th->attr[ROLE_LABEL], HEAD_FMT, "step", "level",
                     "held", "ok/s", "failed/s", "p99", "err", "verdict");
    for (size_t i = first; i < n; i++)
        row_line(v, y++, r, steps_row(st, i), 0, has_resent);
    if (has_cur && y < r.y + r.h)
        row_line(v, y, r, &cur, 1, has_resent);
    if (!has_cur && n == 0 && r.h >= 3)
        ui__draw_text(v->th, r.y + 2, r.x, r.w, v->th->attr[ROLE_DIM], "no step yet");
}
