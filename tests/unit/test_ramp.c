/*
 * ramp: the knee on synthetic step figures (a clean plateau, a noisy one,
 * none at all, a plateau that Little's law does not explain), and the plan
 * driven by synthetic ticks: warm-ups, holds by time and by work, verdicts,
 * the three actions, manual changes, n, and a run that ends mid-step.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config/config.h"
#include "core/hist.h"
#include "core/tick.h"
#include "ramp/ramp.h"

#define DATA_CAP 65536

/* ---- the knee ---- */

/* Users doubling from 1 to 64, the staircase most tests climb. */
static const double doubling[] = {1, 2, 4, 8, 16, 32, 64};
#define N_DOUBLING (sizeof(doubling) / sizeof(doubling[0]))

/* A closed system of n users that serves at most cap requests per second,
 * each user 1000 per second on its own; noise (a fraction) is applied to
 * the throughput of step i as +noise, -noise, +noise... */
static void staircase(struct knee_point *pts, const double *users, size_t n, double cap,
                      double noise)
{
    for (size_t i = 0; i < n; i++) {
        double x = users[i] * 1000.0 < cap ? users[i] * 1000.0 : cap;

        x *= 1.0 + (i % 2 ? -noise : noise);
        pts[i].users = users[i];
        pts[i].throughput = x;
        pts[i].throughput_se = x * noise / 2;
        pts[i].mean_latency_s = users[i] / x; /* Little's law, no think time */
    }
}

static void knee_on_a_clean_plateau(void **state)
{
    static const double users[] = {1, 2, 4, 8, 16, 32};
    struct knee_point pts[6];
    struct knee_why why;

    (void)state;
    staircase(pts, users, 6, 4000, 0);
    assert_int_equal(knee_find(pts, 6, 0, &why), 3); /* 8 users serve what 4 did */
    assert_int_equal(why.scaled, 2);
    assert_true(fabs(why.gain) < 1e-9);
    assert_true(fabs(why.little_s - 8.0 / 4000) < 1e-9);
    /* Only the steps up to the knee: none yet. */
    assert_int_equal(knee_find(pts, 3, 0, NULL), -1);
}

static void knee_on_a_noisy_plateau(void **state)
{
    struct knee_point pts[N_DOUBLING];

    (void)state;
    /* +-4%: the rising steps still gain most of what linear scaling would,
     * the plateau gains at most 8% of 8000. */
    staircase(pts, doubling, N_DOUBLING, 8000, 0.04);
    assert_int_equal(knee_find(pts, 7, 0, NULL), 4);
    /* A plateau that starts between two steps: 6000 is reached at 8 users
     * only partly (8000 would be linear), then flat. */
    staircase(pts, doubling, N_DOUBLING, 6000, 0.04);
    assert_int_equal(knee_find(pts, 7, 0, NULL), 4);
}

static void knee_needs_a_step_big_enough_to_measure(void **state)
{
    /* 40 to 42 users would add 5%: within two standard errors of noise of
     * 3% a step, so it tells nothing; 42 to 84 does. */
    struct knee_point pts[3] = {
        {40, 40000, 1200, 40.0 / 40000},
        {42, 40100, 1200, 42.0 / 40100},
        {84, 40300, 1200, 84.0 / 40300},
    };

    (void)state;
    assert_int_equal(knee_find(pts, 3, 0, NULL), 2);
    assert_int_equal(knee_find(pts, 2, 0, NULL), -1);
}

static void no_knee_while_throughput_scales(void **state)
{
    struct knee_point pts[N_DOUBLING];

    (void)state;
    staircase(pts, doubling, N_DOUBLING, 1e9, 0.04);
    assert_int_equal(knee_find(pts, 7, 0, NULL), -1);
    /* Users going down is no knee either. */
    staircase(pts, doubling, N_DOUBLING, 4000, 0);
    for (size_t i = 0; i < 7; i++)
        pts[i].users = 64.0 / (double)(1u << i);
    assert_int_equal(knee_find(pts, 7, 0, NULL), -1);
}

static void no_knee_when_latency_does_not_follow_littles_law(void **state)
{
    static const double users[] = {1, 2, 4, 8, 16};
    struct knee_point pts[5];

    (void)state;
    staircase(pts, users, 5, 4000, 0);
    /* Flat throughput but flat latency too: the users are not queueing at
     * the server (they think, or fail fast); no knee. */
    for (size_t i = 0; i < 5; i++)
        pts[i].mean_latency_s = 0.001;
    assert_int_equal(knee_find(pts, 5, 0, NULL), -1);
    /* With think time Little's law predicts less latency: users / X - Z. */
    staircase(pts, users, 5, 4000, 0);
    for (size_t i = 0; i < 5; i++)
        pts[i].mean_latency_s -= 0.0005;
    assert_int_equal(knee_find(pts, 5, 0.0005, NULL), 3);
}

static void knee_of_thinking_users_takes_their_think_time_off_littles_law(void **state)
{
    /* Users who think 100 ms between replies of 1 ms, against a server
     * that serves at most 200 requests per second: each adds 1 / 0.101 s
     * until 20 users saturate it; past that they queue, and their latency
     * is users / throughput - think. */
    const double think_s = 0.1, service_s = 0.001, cap = 200;
    struct knee_point pts[N_DOUBLING];
    struct knee_why why;

    (void)state;
    for (size_t i = 0; i < N_DOUBLING; i++) {
        double x = doubling[i] / (service_s + think_s);

        pts[i].users = doubling[i];
        pts[i].throughput = x < cap ? x : cap;
        pts[i].throughput_se = 0;
        pts[i].mean_latency_s = x < cap ? service_s : doubling[i] / pts[i].throughput - think_s;
    }
    /* 32 users still gain 26% of linear over 16; 64 gain nothing. */
    assert_int_equal(knee_find(pts, N_DOUBLING, think_s, &why), 6);
    assert_int_equal(why.scaled, 5);
    assert_true(fabs(why.little_s - (64.0 / 200 - think_s)) < 1e-9);
    /* Without the think time, Little's law predicts 320 ms for 220 ms
     * measured: the users would not seem to queue. */
    assert_int_equal(knee_find(pts, N_DOUBLING, 0, NULL), -1);
}

/* ---- the plan ---- */

struct fixture {
    struct config_ramp cfg;
    struct ramp *r;
    uint64_t seq;
    double level;        /* what the plan set last */
    int stopped;         /* it asked for a stop */
    uint64_t run_end_us; /* the run's own end ([load] duration) in each tick */
    struct ramp_out out;
};

static void plan_setup(struct fixture *f, const double *steps, uint32_t n)
{
    memset(f, 0, sizeof(*f));
    f->cfg.n_steps = n;
    if (n)
        memcpy(f->cfg.steps, steps, n * sizeof(*steps));
    f->cfg.hold_us = 2000000;
    f->cfg.warmup_us = 1000000;
    f->cfg.action = CONFIG_ACTION_STOP;
}

static void add_rule(struct fixture *f, enum config_rule_metric m, int below, double v,
                     const char *probe)
{
    struct config_rule *rule = &f->cfg.stop_when.rules[f->cfg.stop_when.n_rules++];

    rule->metric = m;
    rule->is_below = below;
    rule->value = v;
    if (probe)
        snprintf(rule->probe, sizeof(rule->probe), "%s", probe);
}

static void take_out(struct fixture *f)
{
    if (f->out.set_level)
        f->level = f->out.level;
    if (f->out.stop)
        f->stopped = 1;
}

static void start(struct fixture *f)
{
    f->r = ramp_new(&f->cfg, 0, LOAD_CLOSED);
    memset(&f->out, 0, sizeof(f->out));
    ramp_start(f->r, 0, &f->out);
    take_out(f);
}

/* One second at the plan's level: n requests of latency_us, failed of them
 * failing, a probe "p" at probe (NAN: none). */
static struct tick *feed(struct fixture *f, uint64_t n, uint64_t failed, uint64_t latency_us,
                         double probe, enum run_state state)
{
    struct tick *t = tick_new(DATA_CAP);
    struct hist *h = hist_new();

    t->seq = f->seq;
    t->start_us = f->seq * 1000000;
    t->duration_us = 1000000;
    t->state = state;
    t->target_concurrency = (uint32_t)f->level;
    t->bound.end_us = f->run_end_us;
    hist_record_n(h, latency_us, n);
    t->total.completed = n;
    t->total.ok = n - failed;
    t->total.errors[ERR_HTTP_5XX] = failed;
    tick_latency_from_hist(&t->total.window, h);
    if (n)
        assert_int_equal(tick_put_hist(t, &t->total, h), 0);
    if (!isnan(probe)) {
        tick_copy_text(t->probes[0].name, TICK_NAME_MAX, "p");
        t->probes[0].has_value = 1;
        t->probes[0].value = probe;
        t->n_probes = 1;
    }
    hist_free(h);
    ramp_on_tick(f->r, t, &f->out);
    take_out(f);
    f->seq++;
    return t;
}

/* feed, keeping only the stamped plan. */
static struct tick_plan feed_plan(struct fixture *f, uint64_t n, uint64_t failed)
{
    struct tick *t = feed(f, n, failed, 1000, NAN, RUN_RUNNING);
    struct tick_plan p = t->plan;

    tick_free(t);
    return p;
}

static int has_event(const struct tick *t, enum event_kind kind, const char *part)
{
    for (uint32_t i = 0; i < t->n_events; i++) {
        if (t->events[i].kind == kind && strstr(t->events[i].text, part))
            return 1;
    }
    return 0;
}

static void plan_walks_its_steps_with_warmups_and_holds(void **state)
{
    static const double steps[] = {1, 4, 8};
    struct fixture f;
    struct tick_plan p;

    (void)state;
    plan_setup(&f, steps, 3);
    start(&f);
    assert_true(f.level == 1);
    for (int s = 0; s < 3; s++) {
        p = feed_plan(&f, 100, 0);
        assert_int_equal(p.phase, PLAN_WARMUP);
        assert_int_equal(p.step, s + 1);
        assert_int_equal(p.n_steps, 3);
        assert_true(p.level == steps[s]);
        p = feed_plan(&f, 100, 0);
        assert_int_equal(p.phase, PLAN_MEASURE);
        assert_int_equal(p.verdict, VERDICT_NONE);
        p = feed_plan(&f, 100, 0);
        assert_int_equal(p.phase, PLAN_MEASURE);
        assert_int_equal(p.verdict, VERDICT_PASS);
        if (s < 2) {
            assert_true(f.level == steps[s + 1]);
            assert_false(f.stopped);
        }
    }
    /* The last step passed: the plan is over and the run stops. */
    assert_true(f.stopped);
    assert_string_equal(f.out.stop_why, "ramp: the last step ended");
    p = feed_plan(&f, 100, 0);
    assert_int_equal(p.phase, PLAN_OFF);
    ramp_free(f.r);
}

/* Issue 31: while a plan holding by time runs, every tick says when the
 * plan ends the run: 3 steps of 1 s warm-up and 2 s hold end at 9 s; a
 * run's own end that comes sooner stays; a plan held by work has no end. */
static void a_plan_holding_by_time_says_when_it_ends(void **state)
{
    static const double steps[] = {1, 4, 8};
    struct fixture f;
    struct tick *t;

    (void)state;
    plan_setup(&f, steps, 3);
    start(&f);
    for (int i = 0; i < 9; i++) {
        t = feed(&f, 100, 0, 1000, NAN, RUN_RUNNING);
        assert_int_equal(t->bound.end_us, 9000000);
        tick_free(t);
    }
    assert_true(f.stopped);
    /* The drain after the plan's stop still shows where it ended. */
    t = feed(&f, 100, 0, 1000, NAN, RUN_STOPPING);
    assert_int_equal(t->bound.end_us, 9000000);
    tick_free(t);
    ramp_free(f.r);

    plan_setup(&f, steps, 3);
    f.run_end_us = 5000000;
    start(&f);
    t = feed(&f, 100, 0, 1000, NAN, RUN_RUNNING);
    assert_int_equal(t->bound.end_us, 5000000);
    tick_free(t);
    ramp_free(f.r);

    plan_setup(&f, steps, 3);
    f.cfg.requests_per_user = 10;
    f.cfg.hold_us = 0;
    start(&f);
    t = feed(&f, 100, 0, 1000, NAN, RUN_RUNNING);
    assert_int_equal(t->bound.end_us, 0);
    tick_free(t);
    ramp_free(f.r);
}

/* A step that ran at another level than the plan's (2 users cannot be
 * split over 3 agents of one user at least; an agent's share that did not
 * reach the others): its figures are not judged as the plan's level, said
 * once, and the plan goes on. */
static void a_step_at_another_level_is_not_judged(void **state)
{
    static const double steps[] = {2, 6};
    struct fixture f;
    struct tick *t;

    (void)state;
    plan_setup(&f, steps, 2); /* warm-up 1 s, hold 2 s */
    start(&f);
    f.level = 3; /* what ran */
    for (int i = 0; i < 2; i++)
        tick_free(feed(&f, 100, 0, 1000, NAN, RUN_RUNNING));
    t = feed(&f, 100, 0, 1000, NAN, RUN_RUNNING);
    assert_int_equal(t->plan.verdict, VERDICT_OFF_LEVEL);
    assert_true(
        has_event(t, EV_NOTICE, "ramp step 1/2 (c=2) ran at c=3: not judged as the plan's level"));
    assert_false(has_event(t, EV_DETECTION, "passed"));
    tick_free(t);
    assert_true(f.level == 6);
    assert_false(f.stopped);
    ramp_free(f.r);
}

static void a_tick_a_millisecond_short_still_counts(void **state)
{
    static const double steps[] = {1, 2};
    struct fixture f;
    struct tick *t;

    (void)state;
    plan_setup(&f, steps, 2); /* warm-up 1 s, hold 2 s */
    start(&f);
    for (int i = 0; i < 3; i++) {
        t = tick_new(DATA_CAP);
        t->duration_us = i == 1 ? 999000 : 1000000; /* ticks add up to the wall time */
        t->state = RUN_RUNNING;
        t->target_concurrency = (uint32_t)f.level; /* the level the plan set */
        t->total.completed = t->total.ok = 10;
        ramp_on_tick(f.r, t, &f.out);
        take_out(&f);
        assert_int_equal(t->plan.phase, i == 0 ? PLAN_WARMUP : PLAN_MEASURE);
        assert_int_equal(t->plan.verdict, i == 2 ? VERDICT_PASS : VERDICT_NONE);
        tick_free(t);
    }
    assert_true(f.level == 2);
    ramp_free(f.r);
}

static void hold_by_work_counts_requests_per_user(void **state)
{
    static const double steps[] = {10, 20};
    struct fixture f;

    (void)state;
    plan_setup(&f, steps, 2);
    f.cfg.hold_us = 0;
    f.cfg.requests_per_user = 4; /* 40 requests at 10 users */
    f.cfg.warmup_us = 0;
    start(&f);
    assert_int_equal(feed_plan(&f, 15, 0).verdict, VERDICT_NONE);
    assert_int_equal(feed_plan(&f, 15, 0).verdict, VERDICT_NONE);
    assert_int_equal(feed_plan(&f, 15, 0).verdict, VERDICT_PASS); /* 45 >= 40 */
    assert_true(f.level == 20);
    assert_int_equal(feed_plan(&f, 79, 0).verdict, VERDICT_NONE);
    assert_int_equal(feed_plan(&f, 1, 0).verdict, VERDICT_PASS); /* 80 */
    ramp_free(f.r);
}

/* Steps 1, 2, 3 at 100 users' worth: the third fails its error rate. */
static struct tick *fail_third_step(struct fixture *f)
{
    struct tick *t = NULL;

    f->cfg.warmup_us = 0;
    f->cfg.hold_us = 1000000;
    add_rule(f, CONFIG_RULE_ERROR_RATE, 0, 0.01, NULL);
    start(f);
    assert_int_equal(feed_plan(f, 100, 1).verdict, VERDICT_PASS); /* 1% is not above 1% */
    assert_int_equal(feed_plan(f, 100, 0).verdict, VERDICT_PASS);
    t = feed(f, 100, 5, 1000, NAN, RUN_RUNNING);
    assert_int_equal(t->plan.verdict, VERDICT_FAIL);
    assert_int_equal(t->plan.step, 3);
    assert_string_equal(t->plan.why, "error_rate 5.00% > 1.00% (5 of 100 failed)");
    assert_true(has_event(t, EV_DETECTION, "breaking point: step 3 (c=30) failed: error_rate"));
    assert_true(has_event(t, EV_DETECTION, "last good: step 2 (c=20, ok 100 req/s, p99"));
    /* Three levels are too few for the Universal Scalability Law. */
    assert_true(has_event(t, EV_DETECTION, "capacity: USL fit: none: 3 levels with successes"));
    return t;
}

static void failed_step_stops_holds_or_goes_back(void **state)
{
    static const double steps[] = {10, 20, 30, 40};
    struct fixture f;
    struct tick *t;
    struct tick_plan p;

    (void)state;
    plan_setup(&f, steps, 4);
    f.cfg.action = CONFIG_ACTION_STOP;
    t = fail_third_step(&f);
    assert_true(f.stopped);
    assert_string_equal(f.out.stop_why, "ramp: step 3 failed");
    assert_true(f.level == 30);
    tick_free(t);
    ramp_free(f.r);

    plan_setup(&f, steps, 4);
    f.cfg.action = CONFIG_ACTION_HOLD;
    t = fail_third_step(&f);
    assert_false(f.stopped);
    assert_false(f.out.set_level);
    assert_true(has_event(t, EV_COMMAND, "ramp holds at step 3 (c=30)"));
    tick_free(t);
    p = feed_plan(&f, 100, 50);
    assert_int_equal(p.phase, PLAN_HOLDING);
    assert_int_equal(p.verdict, VERDICT_NONE); /* holding judges nothing */
    assert_true(f.level == 30);
    ramp_free(f.r);

    plan_setup(&f, steps, 4);
    f.cfg.action = CONFIG_ACTION_BACK;
    t = fail_third_step(&f);
    assert_false(f.stopped);
    assert_true(f.level == 20);
    assert_true(has_event(t, EV_COMMAND, "ramp goes back to step 2 (c=20) and holds"));
    tick_free(t);
    p = feed_plan(&f, 100, 0);
    assert_int_equal(p.phase, PLAN_HOLDING);
    assert_int_equal(p.step, 2);
    ramp_free(f.r);
}

/* A probe on agents is one series per agent (p@a1, p@a2) in the merged
 * ticks: probe.p trips when any of them does, and says which. */
static void probe_on_agents_trips_on_any_agent(void **state)
{
    static const double steps[] = {1, 2};
    struct fixture f;
    struct tick *t;

    (void)state;
    plan_setup(&f, steps, 2);
    f.cfg.warmup_us = 0;
    f.cfg.hold_us = 1000000;
    add_rule(&f, CONFIG_RULE_PROBE, 0, 100, "p");
    start(&f);
    t = tick_new(DATA_CAP);
    t->duration_us = 1000000;
    t->state = RUN_RUNNING;
    t->target_concurrency = 1;
    t->total.completed = t->total.ok = 10;
    for (uint32_t i = 0; i < 3; i++) {
        static const char *const names[] = {"p@a1", "p@a2", "px@a3"};
        static const double values[] = {50, 150, 500};

        tick_copy_text(t->probes[i].name, TICK_NAME_MAX, names[i]);
        t->probes[i].has_value = 1;
        t->probes[i].value = values[i];
    }
    t->n_probes = 3;
    ramp_on_tick(f.r, t, &f.out);
    assert_int_equal(t->plan.verdict, VERDICT_FAIL);
    assert_string_equal(t->plan.why, "probe p@a2 150 > 100");
    tick_free(t);
    ramp_free(f.r);
}

static void probe_percentile_and_drop_conditions(void **state)
{
    static const double steps[] = {1, 2, 3};
    struct fixture f;
    struct tick *t;

    (void)state;
    plan_setup(&f, steps, 3);
    f.cfg.warmup_us = 0;
    f.cfg.hold_us = 2000000;
    add_rule(&f, CONFIG_RULE_PROBE, 0, 100, "p");
    start(&f);
    tick_free(feed(&f, 50, 0, 1000, 150, RUN_RUNNING)); /* the step's max counts */
    t = feed(&f, 50, 0, 1000, 10, RUN_RUNNING);
    assert_int_equal(t->plan.verdict, VERDICT_FAIL);
    assert_string_equal(t->plan.why, "probe p 150 > 100");
    assert_true(has_event(t, EV_DETECTION, "no step passed"));
    tick_free(t);
    ramp_free(f.r);

    plan_setup(&f, steps, 3);
    f.cfg.warmup_us = 0;
    f.cfg.hold_us = 1000000;
    add_rule(&f, CONFIG_RULE_P99, 0, 50000, NULL);
    add_rule(&f, CONFIG_RULE_THROUGHPUT_DROP, 0, 0.20, NULL);
    start(&f);
    t = feed(&f, 1000, 0, 1000, NAN, RUN_RUNNING);
    assert_int_equal(t->plan.verdict, VERDICT_PASS);
    tick_free(t);
    t = feed(&f, 790, 0, 1000, NAN, RUN_RUNNING);
    assert_int_equal(t->plan.verdict, VERDICT_FAIL);
    assert_string_equal(t->plan.why, "throughput_drop 21.0% > 20.0% (ok 790 req/s, best 1000)");
    tick_free(t);
    ramp_free(f.r);

    /* Fast failures are no throughput: 1,500 replies of which 900 failed
     * are 600 ok/s, 40% below the best step. */
    plan_setup(&f, steps, 3);
    f.cfg.warmup_us = 0;
    f.cfg.hold_us = 1000000;
    add_rule(&f, CONFIG_RULE_THROUGHPUT_DROP, 0, 0.20, NULL);
    start(&f);
    t = feed(&f, 1000, 0, 1000, NAN, RUN_RUNNING);
    assert_int_equal(t->plan.verdict, VERDICT_PASS);
    assert_true(has_event(t, EV_DETECTION, "ramp step 1/3 (c=1) passed: ok 1000 req/s"));
    tick_free(t);
    t = feed(&f, 1500, 900, 1000, NAN, RUN_RUNNING);
    assert_int_equal(t->plan.verdict, VERDICT_FAIL);
    assert_string_equal(t->plan.why, "throughput_drop 40.0% > 20.0% (ok 600 req/s, best 1000)");
    tick_free(t);
    ramp_free(f.r);

    plan_setup(&f, steps, 3);
    f.cfg.warmup_us = 0;
    f.cfg.hold_us = 1000000;
    add_rule(&f, CONFIG_RULE_P99, 0, 50000, NULL);
    start(&f);
    t = feed(&f, 1000, 0, 80000, NAN, RUN_RUNNING);
    assert_int_equal(t->plan.verdict, VERDICT_FAIL);
    assert_true(strncmp(t->plan.why, "p99 ", 4) == 0 && strstr(t->plan.why, " > 50.0ms"));
    /* The crossing itself is a detection of the tick it happened in. */
    assert_true(has_event(t, EV_DETECTION, "crossed its limit 50.0ms at concurrency 1"));
    tick_free(t);
    ramp_free(f.r);
}

static void manual_change_pauses_and_r_resumes_the_step(void **state)
{
    static const double steps[] = {5, 10};
    struct fixture f;
    struct tick_plan p;

    (void)state;
    plan_setup(&f, steps, 2);
    start(&f);
    feed_plan(&f, 100, 0);
    feed_plan(&f, 100, 0);
    memset(&f.out, 0, sizeof(f.out));
    ramp_manual(f.r, 2000, "double", &f.out);
    assert_int_equal(f.out.n_events, 1);
    assert_string_equal(f.out.events[0].text,
                        "ramp paused at step 1/2 by a manual double (r resumes it)");
    assert_false(f.out.set_level);
    p = feed_plan(&f, 100, 0);
    assert_int_equal(p.phase, PLAN_PAUSED);
    assert_int_equal(p.verdict, VERDICT_NONE);
    p = feed_plan(&f, 100, 0); /* paused for good: nothing is judged */
    assert_int_equal(p.phase, PLAN_PAUSED);
    memset(&f.out, 0, sizeof(f.out));
    ramp_toggle(f.r, 4000, &f.out);
    take_out(&f);
    assert_true(f.out.set_level && f.level == 5); /* the step starts again */
    assert_int_equal(feed_plan(&f, 100, 0).phase, PLAN_WARMUP);
    /* r while it runs stops the plan; the load stays. */
    memset(&f.out, 0, sizeof(f.out));
    ramp_toggle(f.r, 5000, &f.out);
    assert_false(f.out.set_level);
    assert_string_equal(f.out.events[0].text, "ramp stopped at step 1/2; the load stays as it is");
    assert_int_equal(feed_plan(&f, 100, 0).phase, PLAN_OFF);
    /* Manual changes with no plan running say nothing. */
    memset(&f.out, 0, sizeof(f.out));
    ramp_manual(f.r, 6000, "step", &f.out);
    assert_int_equal(f.out.n_events, 0);
    ramp_free(f.r);
}

static void next_ends_the_step_now(void **state)
{
    static const double steps[] = {1, 2, 3};
    struct fixture f;
    struct tick_plan p;

    (void)state;
    plan_setup(&f, steps, 3);
    f.cfg.hold_us = 60000000;
    start(&f);
    feed_plan(&f, 100, 0); /* warm-up */
    feed_plan(&f, 100, 0); /* measured */
    ramp_next(f.r, 2000, &f.out);
    p = feed_plan(&f, 100, 0);
    assert_int_equal(p.verdict, VERDICT_PASS); /* judged on its 2 s */
    assert_true(f.level == 2);
    ramp_next(f.r, 3000, &f.out); /* during the warm-up: nothing measured */
    p = feed_plan(&f, 100, 0);
    assert_int_equal(p.verdict, VERDICT_CUT);
    assert_true(f.level == 3);
    ramp_free(f.r);
}

static void run_ending_mid_step_cuts_it(void **state)
{
    static const double steps[] = {1, 2};
    struct fixture f;
    struct tick *t;

    (void)state;
    plan_setup(&f, steps, 2);
    start(&f);
    feed_plan(&f, 100, 0);
    feed_plan(&f, 100, 0);
    t = feed(&f, 100, 0, 1000, NAN, RUN_STOPPING);
    assert_int_equal(t->plan.verdict, VERDICT_CUT);
    assert_true(has_event(t, EV_NOTICE, "ramp stopped: the run ends during step 1/2"));
    assert_false(f.stopped); /* the run stops anyway; the plan asks nothing */
    tick_free(t);
    ramp_free(f.r);
}

static void plan_reports_the_knee_it_meets(void **state)
{
    static const double steps[] = {1, 2, 4, 8};
    struct fixture f;
    struct tick *t = NULL;
    int seen = 0;

    (void)state;
    plan_setup(&f, steps, 4);
    f.cfg.warmup_us = 0;
    f.cfg.hold_us = 3000000;
    start(&f);
    for (int s = 0; s < 4; s++) {
        double x = steps[s] * 1000 < 2000 ? steps[s] * 1000 : 2000;
        /* Little: latency = users / throughput. */
        uint64_t lat = (uint64_t)(steps[s] / x * 1e6);

        for (int i = 0; i < 3; i++) {
            t = feed(&f, (uint64_t)x + (uint64_t)(i % 2) * 20, 0, lat, NAN, RUN_RUNNING);
            if (has_event(t, EV_DETECTION, "knee: c=4 adds no throughput over c=2")) {
                assert_int_equal(s, 2);
                seen++;
            }
            tick_free(t);
        }
    }
    assert_int_equal(seen, 1);
    ramp_free(f.r);
}

/* At the plan's end, the Universal Scalability Law fitted to its steps,
 * citing the knee: a server of sigma 0.05, kappa 0.001 peaks at c=31. */
static void plan_ends_with_the_capacity_its_steps_fit(void **state)
{
    static const double steps[] = {1, 2, 4, 8, 16, 24, 32, 48, 64};
    struct fixture f;
    struct tick *t = NULL;

    (void)state;
    plan_setup(&f, steps, 9);
    f.cfg.warmup_us = 0;
    f.cfg.hold_us = 1000000;
    start(&f);
    for (int s = 0; s < 9; s++) {
        double n = steps[s], x = 200 * n / (1 + 0.05 * (n - 1) + 0.001 * n * (n - 1));

        if (t)
            tick_free(t);
        t = feed(&f, (uint64_t)(x + 0.5), 0, (uint64_t)(n / x * 1e6), NAN, RUN_RUNNING);
        assert_false(has_event(t, EV_DETECTION, "capacity:") && s < 8);
    }
    assert_true(f.stopped);
    assert_true(has_event(t, EV_DETECTION, "ramp done: all 9 steps ran"));
    assert_true(has_event(t, EV_DETECTION,
                          "capacity: USL fit: sigma 0.0499, kappa 0.001, lambda 199.9 req/s (r2 "
                          "1.000, 9 steps): peak c=31 at 1807 req/s; knee c="));
    tick_free(t);
    ramp_free(f.r);
}

static void rates_are_levels_under_the_open_model(void **state)
{
    static const double steps[] = {100, 400};
    struct fixture f;
    struct tick *t;

    (void)state;
    plan_setup(&f, steps, 2);
    f.cfg.warmup_us = 0;
    f.cfg.hold_us = 1000000;
    add_rule(&f, CONFIG_RULE_RATE_SHORTFALL, 0, 0.10, NULL);
    f.r = ramp_new(&f.cfg, 0, LOAD_OPEN);
    memset(&f.out, 0, sizeof(f.out));
    ramp_start(f.r, 0, &f.out);
    take_out(&f);
    assert_true(f.level == 100);
    assert_string_equal(f.out.events[0].text,
                        "ramp step 1/2: 100/s (warm-up 0us, then hold 1.00s)");
    /* 95 of 100 requests/s started: 5% short, within the 10%. */
    t = tick_new(DATA_CAP);
    t->duration_us = 1000000;
    t->state = RUN_RUNNING;
    t->model = LOAD_OPEN;
    t->target_rate_per_s = 100;
    t->total.started = 95;
    t->total.completed = 95;
    t->total.ok = 95;
    ramp_on_tick(f.r, t, &f.out);
    take_out(&f);
    assert_int_equal(t->plan.verdict, VERDICT_PASS);
    assert_true(f.level == 400);
    /* 300 of 400: 25% short. */
    memset(&t->plan, 0, sizeof(t->plan));
    t->n_events = 0;
    t->target_rate_per_s = 400;
    t->total.started = 300;
    t->total.completed = 300;
    t->total.ok = 300;
    ramp_on_tick(f.r, t, &f.out);
    assert_int_equal(t->plan.verdict, VERDICT_FAIL);
    assert_string_equal(t->plan.why,
                        "rate_shortfall 25.0% > 10.0% (300 of 400 requests/s started)");
    assert_true(
        has_event(t, EV_DETECTION, "breaking point: step 2 (400/s) failed: rate_shortfall"));
    tick_free(t);
    ramp_free(f.r);
}

static void levels_held_by_hand_are_steps_for_the_knee(void **state)
{
    struct fixture f;
    struct tick *t;
    int seen_at = -1;

    (void)state;
    plan_setup(&f, NULL, 0);
    f.r = ramp_new(&f.cfg, 0, LOAD_CLOSED);
    /* No plan: 4 users for 3 s at 4000/s, 8 users for 3 s at 4100/s (the
     * server is full), then 16. The 8-user level closes at the first tick
     * of 16, and that is where the knee is said. */
    for (int i = 0; i < 7; i++) {
        f.level = i < 3 ? 4 : i < 6 ? 8 : 16;
        t = feed(&f, i < 3 ? 4000 + (uint64_t)(i % 2) * 10 : 4100 + (uint64_t)(i % 2) * 10, 0,
                 (uint64_t)(f.level / (i < 3 ? 4000.0 : 4100.0) * 1e6), NAN, RUN_RUNNING);
        assert_int_equal(t->plan.phase, PLAN_OFF);
        if (has_event(t, EV_DETECTION, "knee: c=8 adds no throughput over c=4"))
            seen_at = i;
        tick_free(t);
    }
    assert_int_equal(seen_at, 6);
    ramp_free(f.r);
}

static void no_plan_says_so(void **state)
{
    struct ramp_out out;
    struct ramp *r = ramp_new(NULL, 0, LOAD_CLOSED);

    (void)state;
    memset(&out, 0, sizeof(out));
    assert_false(ramp_has_plan(r));
    ramp_toggle(r, 0, &out);
    assert_false(out.set_level);
    assert_int_equal(out.n_events, 1);
    assert_string_equal(out.events[0].text,
                        "no ramp plan: add a [ramp] section (steps = 1, 8, 16, 32) to the config");
    memset(&out, 0, sizeof(out));
    ramp_next(r, 0, &out);
    assert_string_equal(out.events[0].text, "n: no ramp step is running (r starts the plan)");
    ramp_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(knee_on_a_clean_plateau),
        cmocka_unit_test(knee_on_a_noisy_plateau),
        cmocka_unit_test(knee_needs_a_step_big_enough_to_measure),
        cmocka_unit_test(no_knee_while_throughput_scales),
        cmocka_unit_test(no_knee_when_latency_does_not_follow_littles_law),
        cmocka_unit_test(knee_of_thinking_users_takes_their_think_time_off_littles_law),
        cmocka_unit_test(plan_walks_its_steps_with_warmups_and_holds),
        cmocka_unit_test(a_plan_holding_by_time_says_when_it_ends),
        cmocka_unit_test(a_tick_a_millisecond_short_still_counts),
        cmocka_unit_test(a_step_at_another_level_is_not_judged),
        cmocka_unit_test(hold_by_work_counts_requests_per_user),
        cmocka_unit_test(failed_step_stops_holds_or_goes_back),
        cmocka_unit_test(probe_percentile_and_drop_conditions),
        cmocka_unit_test(probe_on_agents_trips_on_any_agent),
        cmocka_unit_test(manual_change_pauses_and_r_resumes_the_step),
        cmocka_unit_test(next_ends_the_step_now),
        cmocka_unit_test(run_ending_mid_step_cuts_it),
        cmocka_unit_test(plan_reports_the_knee_it_meets),
        cmocka_unit_test(plan_ends_with_the_capacity_its_steps_fit),
        cmocka_unit_test(rates_are_levels_under_the_open_model),
        cmocka_unit_test(levels_held_by_hand_are_steps_for_the_knee),
        cmocka_unit_test(no_plan_says_so),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
