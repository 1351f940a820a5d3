/*
 * The step plan: which step runs, when its warm-up and hold end, how it is
 * judged, and what a failed step does. A step's figures are its row of a
 * step table (core/steps.h) fed every tick once the plan's state is stamped
 * in it, so they leave the warm-up out exactly as the reports' table does;
 * the knee and the stop conditions read that row when the step ends.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/steps.h"
#include "core/units.h"
#include "core/usl.h"
#include "core/xalloc.h"
#include "ramp/ramp.h"
#include "ramp/verdict.h"

#define POINTS_MAX 256 /* judged steps the knee looks at; older ones are dropped */

struct ramp {
    const struct config_ramp *cfg;
    double think_s;
    enum load_model model; /* of the latest tick: what a level means */
    enum plan_phase phase;
    uint32_t step;           /* 0-based index of the current step */
    double level;            /* the level the plan set last */
    uint64_t warm_us;        /* warm-up done in the current step */
    int has_passed;          /* some step passed */
    double last_good;        /* the level of the last step that passed */
    uint32_t last_good_step; /* and its index */
    double last_good_rate;   /* its throughput */
    uint64_t last_good_p99;  /* and its p99, µs */
    double best_rate;        /* the best throughput of a passed step */
    int cut_now;             /* n was pressed: end the step on the next tick */
    struct steps *steps;     /* every tick's figures, by step or level held */
    uint64_t rows_seen;      /* closed rows of steps looked at for the knee */
    struct knee_point points[POINTS_MAX];
    int failed[POINTS_MAX]; /* each point's step failed its conditions (for the USL fit) */
    size_t n_points;
    int knee_found;
    double knee_users; /* the knee's level, once found */
    int pct_over;      /* a percentile limit was crossed in this step */
    uint64_t stop_us;  /* where the plan stopped the run (its end), µs; 0: it has not */
};

static const struct config_ramp empty_plan;

struct ramp *ramp_new(const struct config_ramp *cfg, uint64_t think_us, enum load_model model)
{
    struct ramp *r = xcalloc(1, sizeof(*r));

    r->cfg = cfg ? cfg : &empty_plan;
    r->model = model;
    r->think_s = (double)think_us / 1e6;
    r->steps = steps_new();
    return r;
}

void ramp_free(struct ramp *r)
{
    if (!r)
        return;
    steps_free(r->steps);
    free(r);
}

int ramp_has_plan(const struct ramp *r)
{
    return r->cfg->n_steps > 0;
}

/* ---- text ---- */

static void fmt_level(const struct ramp *r, double level, char *buf, size_t len)
{
    if (r->model == LOAD_OPEN)
        snprintf(buf, len, "%.0f/s", level);
    else
        snprintf(buf, len, "c=%.0f", level);
}

#if defined(__GNUC__)
#define RAMP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define RAMP_PRINTF(f, a)
#endif

static void out_event(struct ramp_out *out, uint64_t at_ms, enum event_kind kind, const char *fmt,
                      ...) RAMP_PRINTF(4, 5);
static void tick_event(struct tick *t, enum event_kind kind, const char *fmt, ...)
    RAMP_PRINTF(3, 4);

static void out_event(struct ramp_out *out, uint64_t at_ms, enum event_kind kind, const char *fmt,
                      ...)
{
    struct tick_event *e;
    va_list ap;

    if (out->n_events == RAMP_OUT_EVENTS)
        return;
    e = &out->events[out->n_events++];
    e->at_ms = at_ms;
    e->kind = kind;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof(e->text), fmt, ap);
    va_end(ap);
}

static void tick_event(struct tick *t, enum event_kind kind, const char *fmt, ...)
{
    char text[TICK_TEXT_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    tick_add_event(t, kind, tick_end_ms(t), text);
}

/* ---- figures ---- */

/* The figures of the current step so far: the open row of the table when
 * it is the step's, else an empty row (nothing measured yet). */
static void current_row(const struct ramp *r, struct step_row *row)
{
    if (steps_current(r->steps, row) != 0 || row->plan_step != r->step + 1) {
        memset(row, 0, sizeof(*row));
        row->level = r->level;
    }
}

static struct knee_point row_point(const struct step_row *row)
{
    struct knee_point p = {.users = row->level,
                           .throughput = steps_row_ok_rate(row),
                           .throughput_se = steps_row_rate_se(row),
                           .mean_latency_s = (double)row->mean_us / 1e6};

    return p;
}

/* VERDICT_PASS or VERDICT_FAIL, with the first condition that tripped. */
static enum plan_verdict judge(const struct ramp *r, const struct step_row *f, char *why,
                               size_t len)
{
    char d[32];

    if (f->completed == 0) {
        snprintf(why, len, "no request completed in %s",
                 units_format_duration(f->duration_us, d, sizeof(d)));
        return VERDICT_FAIL;
    }
    for (uint32_t i = 0; i < r->cfg->stop_when.n_rules; i++) {
        if (verdict_rule_trips(&r->cfg->stop_when.rules[i], f, r->steps, r->model,
                               r->has_passed ? r->best_rate : 0, why, len))
            return VERDICT_FAIL;
    }
    why[0] = '\0';
    return VERDICT_PASS;
}

/* ---- the knee and the percentile limits ---- */

static void add_point(struct ramp *r, struct tick *t, const struct step_row *f, int failed)
{
    struct knee_why why;
    char a[UNITS_FMT_MAX], b[UNITS_FMT_MAX];
    long k;

    if (f->held_ticks == 0)
        return;
    if (r->n_points == POINTS_MAX) {
        memmove(r->points, r->points + 1, (POINTS_MAX - 1) * sizeof(r->points[0]));
        memmove(r->failed, r->failed + 1, (POINTS_MAX - 1) * sizeof(r->failed[0]));
        r->n_points--;
    }
    r->failed[r->n_points] = failed;
    r->points[r->n_points++] = row_point(f);
    if (r->knee_found || r->model == LOAD_OPEN)
        return;
    k = knee_find(r->points, r->n_points, r->think_s, &why);
    if (k < 0 || (size_t)k != r->n_points - 1)
        return;
    r->knee_found = 1;
    r->knee_users = r->points[k].users;
    tick_event(
        t, EV_DETECTION,
        "knee: c=%.0f adds no throughput over c=%.0f (ok %.0f vs %.0f req/s, %.0f%% of linear); mean latency %s, Little's law predicts %s",
        r->points[k].users, r->points[why.scaled].users, r->points[k].throughput,
        r->points[why.scaled].throughput, why.gain * 100,
        units_format_duration((uint64_t)(r->points[k].mean_latency_s * 1e6), a, sizeof(a)),
        units_format_duration((uint64_t)(why.little_s * 1e6), b, sizeof(b)));
}

/* A percentile limit of stop_when crossed in this tick: said once a step. */
static void check_pct_limits(struct ramp *r, struct tick *t)
{
    static const int pct_index[] = {[CONFIG_RULE_P50] = 0,
                                    [CONFIG_RULE_P90] = 1,
                                    [CONFIG_RULE_P99] = 2,
                                    [CONFIG_RULE_P999] = 3};
    char a[UNITS_FMT_MAX], b[UNITS_FMT_MAX];

    if (r->pct_over || t->total.window.count == 0)
        return;
    for (uint32_t i = 0; i < r->cfg->stop_when.n_rules; i++) {
        const struct config_rule *rule = &r->cfg->stop_when.rules[i];
        uint64_t v;

        if (rule->metric < CONFIG_RULE_P50 || rule->metric > CONFIG_RULE_P999)
            continue;
        v = t->total.window.pct_us[pct_index[rule->metric]];
        if ((double)v <= rule->value)
            continue;
        r->pct_over = 1;
        if (t->model == LOAD_OPEN)
            tick_event(t, EV_DETECTION, "%s %s crossed its limit %s at %.0f requests/s",
                       verdict_rule_name(rule), units_format_duration(v, a, sizeof(a)),
                       units_format_duration((uint64_t)rule->value, b, sizeof(b)),
                       t->target_rate_per_s);
        else
            tick_event(t, EV_DETECTION, "%s %s crossed its limit %s at concurrency %u",
                       verdict_rule_name(rule), units_format_duration(v, a, sizeof(a)),
                       units_format_duration((uint64_t)rule->value, b, sizeof(b)),
                       t->target_concurrency);
        return;
    }
}

/* ---- moving through the plan ---- */

static uint32_t n_steps(const struct ramp *r)
{
    return r->cfg->n_steps;
}

/* Enters step i: its level, its warm-up, fresh figures. */
static void enter_step(struct ramp *r, uint32_t i, uint64_t at_ms, struct ramp_out *out,
                       struct tick *t)
{
    char lv[32], hold[UNITS_FMT_MAX + 32], warm[UNITS_FMT_MAX];

    r->step = i;
    r->level = r->cfg->steps[i];
    r->warm_us = 0;
    r->pct_over = 0;
    r->phase = r->cfg->warmup_us ? PLAN_WARMUP : PLAN_MEASURE;
    out->set_level = 1;
    out->level = r->level;
    fmt_level(r, r->level, lv, sizeof(lv));
    if (r->cfg->requests_per_user)
        snprintf(hold, sizeof(hold), "%u requests per user", (unsigned)r->cfg->requests_per_user);
    else
        units_format_duration(r->cfg->hold_us, hold, sizeof(hold));
    units_format_duration(r->cfg->warmup_us, warm, sizeof(warm));
    if (t)
        tick_event(t, EV_COMMAND, "ramp step %u/%u: %s (warm-up %s, then hold %s)", i + 1,
                   n_steps(r), lv, warm, hold);
    else
        out_event(out, at_ms, EV_COMMAND, "ramp step %u/%u: %s (warm-up %s, then hold %s)", i + 1,
                  n_steps(r), lv, warm, hold);
}

static void begin_plan(struct ramp *r, uint64_t at_ms, struct ramp_out *out)
{
    r->has_passed = 0;
    r->best_rate = 0;
    r->n_points = 0;
    r->knee_found = 0;
    enter_step(r, 0, at_ms, out, NULL);
}

void ramp_start(struct ramp *r, uint64_t at_ms, struct ramp_out *out)
{
    if (!ramp_has_plan(r)) {
        out_event(out, at_ms, EV_NOTICE,
                  "no ramp plan: add a [ramp] section (steps = 1, 8, 16, 32) to the config");
        return;
    }
    begin_plan(r, at_ms, out);
}

void ramp_toggle(struct ramp *r, uint64_t at_ms, struct ramp_out *out)
{
    switch (r->phase) {
    case PLAN_OFF: ramp_start(r, at_ms, out); return;
    case PLAN_PAUSED:
        out_event(out, at_ms, EV_COMMAND, "ramp resumed: step %u/%u starts again", r->step + 1,
                  n_steps(r));
        enter_step(r, r->step, at_ms, out, NULL);
        return;
    case PLAN_WARMUP:
    case PLAN_MEASURE:
    case PLAN_HOLDING:
        r->phase = PLAN_OFF;
        out_event(out, at_ms, EV_COMMAND, "ramp stopped at step %u/%u; the load stays as it is",
                  r->step + 1, n_steps(r));
        return;
    }
}

const char *ramp_manual_change(enum cmd_kind k)
{
    switch (k) {
    case CMD_SET_CONCURRENCY: return "concurrency change";
    case CMD_STEP: return "step";
    case CMD_DOUBLE: return "double";
    case CMD_HALVE: return "halve";
    case CMD_PAUSE: return "pause";
    case CMD_SET_RATE: return "rate change";
    case CMD_SET_MODEL: return "model switch";
    default: return NULL;
    }
}

void ramp_manual(struct ramp *r, uint64_t at_ms, const char *what, struct ramp_out *out)
{
    if (r->phase != PLAN_WARMUP && r->phase != PLAN_MEASURE && r->phase != PLAN_HOLDING)
        return;
    r->phase = PLAN_PAUSED;
    out_event(out, at_ms, EV_NOTICE, "ramp paused at step %u/%u by a manual %s (r resumes it)",
              r->step + 1, n_steps(r), what);
}

/* The breaking point, said when a step fails. */
static void say_breaking_point(struct ramp *r, struct tick *t, const char *why)
{
    char lv[32], good[32], p99[UNITS_FMT_MAX];

    fmt_level(r, r->level, lv, sizeof(lv));
    if (!r->has_passed) {
        tick_event(t, EV_DETECTION, "breaking point: step %u (%s) failed, no step passed: %s",
                   r->step + 1, lv, why);
        return;
    }
    fmt_level(r, r->last_good, good, sizeof(good));
    units_format_duration(r->last_good_p99, p99, sizeof(p99));
    tick_event(
        t, EV_DETECTION,
        "breaking point: step %u (%s) failed: %s; last good: step %u (%s, ok %.0f req/s, p99 %s)",
        r->step + 1, lv, why, r->last_good_step + 1, good, r->last_good_rate, p99);
}

/* At the plan's end, what its steps say of the server's capacity: the
 * Universal Scalability Law fitted to them (or why it cannot be), with the
 * knee where one was found, so the two are read together. Closed model
 * only: rates are no users. */
static void say_capacity(struct ramp *r, struct tick *t)
{
    struct usl_point pts[POINTS_MAX];
    struct usl_fit fit;
    char why[USL_TEXT_MAX], line[USL_TEXT_MAX], knee[64] = "";

    if (r->model == LOAD_OPEN)
        return;
    for (size_t i = 0; i < r->n_points; i++) {
        pts[i].users = r->points[i].users;
        pts[i].throughput = r->points[i].throughput;
        pts[i].failed = r->failed[i];
    }
    if (usl_fit(pts, r->n_points, &fit, why, sizeof(why)) != 0) {
        tick_event(t, EV_DETECTION, "capacity: %s", usl_format_refused(why, line, sizeof(line)));
        return;
    }
    if (r->knee_found && fit.has_peak)
        snprintf(knee, sizeof(knee), "; knee c=%.0f (%.0f%% of N*)", r->knee_users,
                 100 * r->knee_users / fit.peak_users);
    else if (r->knee_found)
        snprintf(knee, sizeof(knee), "; knee c=%.0f", r->knee_users);
    tick_event(t, EV_DETECTION, "capacity: %s%s", usl_format(&fit, line, sizeof(line)), knee);
}

/* The step's action after a failure. */
static void act_on_failure(struct ramp *r, struct tick *t, const char *why, struct ramp_out *out)
{
    char lv[32];

    say_breaking_point(r, t, why);
    say_capacity(r, t);
    switch (r->cfg->action) {
    case CONFIG_ACTION_STOP:
        r->phase = PLAN_OFF;
        out->stop = 1;
        snprintf(out->stop_why, sizeof(out->stop_why), "ramp: step %u failed", r->step + 1);
        return;
    case CONFIG_ACTION_HOLD:
        r->phase = PLAN_HOLDING;
        fmt_level(r, r->level, lv, sizeof(lv));
        tick_event(t, EV_COMMAND, "ramp holds at step %u (%s)", r->step + 1, lv);
        return;
    case CONFIG_ACTION_BACK:
        r->phase = PLAN_HOLDING;
        if (!r->has_passed) {
            fmt_level(r, r->level, lv, sizeof(lv));
            tick_event(t, EV_COMMAND, "ramp holds at step %u (%s): no step passed to go back to",
                       r->step + 1, lv);
            return;
        }
        r->step = r->last_good_step;
        r->level = r->last_good;
        out->set_level = 1;
        out->level = r->level;
        fmt_level(r, r->level, lv, sizeof(lv));
        tick_event(t, EV_COMMAND, "ramp goes back to step %u (%s) and holds", r->step + 1, lv);
        return;
    }
}

/* Ends the current step on tick t (its last): verdict, knee, what next. */
static void end_step(struct ramp *r, struct tick *t, struct ramp_out *out)
{
    struct step_row row, *f = &row;
    char why[TICK_TEXT_MAX], lv[32], p99[UNITS_FMT_MAX];
    enum plan_verdict v;

    current_row(r, f);
    fmt_level(r, r->level, lv, sizeof(lv));
    if (f->held_ticks == 0) {
        t->plan.verdict = VERDICT_CUT;
        tick_event(t, EV_NOTICE, "ramp step %u/%u (%s) ended before it measured anything",
                   r->step + 1, n_steps(r), lv);
    } else if (steps_row_is_off_level(f)) {
        char ran[32];

        /* Its figures are another level's: judging them as the plan's
         * would pass or fail a level that never ran. */
        t->plan.verdict = VERDICT_OFF_LEVEL;
        fmt_level(r, f->level, ran, sizeof(ran));
        tick_event(t, EV_NOTICE, "ramp step %u/%u (%s) ran at %s: not judged as the plan's level",
                   r->step + 1, n_steps(r), lv, ran);
    } else {
        v = judge(r, f, why, sizeof(why));
        t->plan.verdict = v;
        add_point(r, t, f, v == VERDICT_FAIL);
        units_format_duration(f->p99_us, p99, sizeof(p99));
        if (v == VERDICT_FAIL) {
            tick_copy_text(t->plan.why, sizeof(t->plan.why), why);
            act_on_failure(r, t, why, out);
            return;
        }
        tick_event(t, EV_DETECTION, "ramp step %u/%u (%s) passed: ok %.0f req/s, p99 %s",
                   r->step + 1, n_steps(r), lv, steps_row_ok_rate(f), p99);
        r->has_passed = 1;
        r->last_good = r->level;
        r->last_good_step = r->step;
        r->last_good_rate = steps_row_ok_rate(f);
        r->last_good_p99 = f->p99_us;
        if (steps_row_ok_rate(f) > r->best_rate)
            r->best_rate = steps_row_ok_rate(f);
    }
    if (r->step + 1 < n_steps(r)) {
        enter_step(r, r->step + 1, 0, out, t);
        return;
    }
    r->phase = PLAN_OFF;
    out->stop = 1;
    snprintf(out->stop_why, sizeof(out->stop_why), "ramp: the last step ended");
    tick_event(t, EV_DETECTION, "ramp done: all %u steps ran, none failed its conditions",
               n_steps(r));
    say_capacity(r, t);
}

void ramp_next(struct ramp *r, uint64_t at_ms, struct ramp_out *out)
{
    if (r->phase != PLAN_WARMUP && r->phase != PLAN_MEASURE) {
        out_event(out, at_ms, EV_NOTICE, "n: no ramp step is running (r starts the plan)");
        return;
    }
    r->cut_now = 1;
}

/* Whether us of ticks cover want_us: ticks are whole, and one a little short
 * (ticks add up to the wall time, so one may be 999.8 ms) still counts, so
 * the cover is taken to half a tick (tick_us, the latest one's length). */
static int covers(uint64_t us, uint64_t tick_us, uint64_t want_us)
{
    return us + tick_us / 2 >= want_us;
}

/* Whether the current step's hold is over after a tick of tick_us. */
static int hold_done(const struct ramp *r, uint64_t tick_us)
{
    struct step_row f;

    current_row(r, &f);
    if (r->cfg->requests_per_user)
        return f.completed >= (uint64_t)r->cfg->requests_per_user * (uint64_t)r->level;
    return covers(f.duration_us, tick_us, r->cfg->hold_us);
}

/* Adds t to the step table; a level held by hand (no plan step) that has
 * just closed is a step for the knee, and a new level may cross its
 * percentile limit again. */
static void add_to_table(struct ramp *r, struct tick *t)
{
    uint64_t closed;

    (void)steps_add_tick(r->steps, t); /* a damaged histogram only leaves latency out */
    closed = steps_count(r->steps) + steps_rows_not_kept(r->steps);
    for (; r->rows_seen < closed; r->rows_seen++) {
        const struct step_row *row = steps_row(r->steps, (size_t)r->rows_seen);

        r->pct_over = 0;
        if (row && row->plan_step == 0 && row->model == LOAD_CLOSED)
            add_point(r, t, row, 0);
    }
}

/* Whether the plan's end is known after the tick just seen: a step running
 * and holding by time; *left_us is then the time to it (the rest of this
 * step, then the warm-up and hold of each step after it). */
static int plan_left(const struct ramp *r, uint64_t *left_us)
{
    const struct config_ramp *c = r->cfg;
    struct step_row f;
    uint64_t now;

    if (c->requests_per_user || (r->phase != PLAN_WARMUP && r->phase != PLAN_MEASURE))
        return 0;
    if (r->phase == PLAN_WARMUP) {
        now = (c->warmup_us > r->warm_us ? c->warmup_us - r->warm_us : 0) + c->hold_us;
    } else {
        current_row(r, &f);
        now = c->hold_us > f.duration_us ? c->hold_us - f.duration_us : 0;
    }
    *left_us = now + (uint64_t)(n_steps(r) - r->step - 1) * (c->warmup_us + c->hold_us);
    return 1;
}

static void on_tick(struct ramp *r, struct tick *t, struct ramp_out *out);

void ramp_on_tick(struct ramp *r, struct tick *t, struct ramp_out *out)
{
    uint64_t left_us, end_us;

    on_tick(r, t, out);
    /* A plan that holds by time ends the run when its last step does: the
     * run's gauge (t->bound) shows the sooner of that end and its own, and
     * where the plan stopped the run, once it has. */
    if (out->stop && !r->stop_us)
        r->stop_us = t->start_us + t->duration_us;
    if (r->stop_us)
        end_us = r->stop_us;
    else if (plan_left(r, &left_us))
        end_us = t->start_us + t->duration_us + left_us;
    else
        return;
    if (!t->bound.end_us || end_us < t->bound.end_us)
        t->bound.end_us = end_us;
}

static void on_tick(struct ramp *r, struct tick *t, struct ramp_out *out)
{
    int is_running = r->phase == PLAN_WARMUP || r->phase == PLAN_MEASURE;
    int run_ends = t->state == RUN_STOPPING || t->state == RUN_DONE;

    memset(out, 0, sizeof(*out));
    memset(&t->plan, 0, sizeof(t->plan));
    r->model = t->model;
    t->plan.phase = r->phase;
    if (r->phase != PLAN_OFF) {
        t->plan.step = r->step + 1;
        t->plan.n_steps = n_steps(r);
        t->plan.level = r->level;
    }
    add_to_table(r, t);
    check_pct_limits(r, t);
    if (!is_running)
        return;
    if (r->phase == PLAN_WARMUP &&
        covers(r->warm_us += t->duration_us, t->duration_us, r->cfg->warmup_us))
        r->phase = PLAN_MEASURE;
    if (run_ends) {
        r->phase = PLAN_OFF;
        t->plan.verdict = VERDICT_CUT;
        tick_event(t, EV_NOTICE, "ramp stopped: the run ends during step %u/%u", r->step + 1,
                   n_steps(r));
        return;
    }
    if (r->cut_now || (t->plan.phase == PLAN_MEASURE && hold_done(r, t->duration_us))) {
        r->cut_now = 0;
        end_step(r, t, out);
    }
}
