/*
 * ramp: the step plan and the detections. A pure state machine fed one tick
 * at a time (after the tick's figures are final, before it is published):
 * it stamps the plan's state into the tick, adds detections to its events,
 * and says what the engine should do next (a new level, or stop). It owns
 * no thread and no clock: the ticks' durations are its time, so the tests
 * drive it with synthetic ticks. Not thread-safe; the engine guards it.
 *
 * A plan walks [ramp] steps: each step sets a level, runs a warm-up that
 * stays out of its figures, then holds for a time or an amount of work
 * (requests_per_user x users). When the hold ends, the step is judged
 * against stop_when; a step that fails takes the action (stop, hold, back).
 * Any manual change pauses the plan; resuming restarts the current step.
 *
 * Detections, plan or not: the knee (throughput stops growing with users
 * while latency grows as Little's law predicts), and a percentile crossing
 * its stop_when limit. When a closed-model plan ends (its last step, or a
 * failed one), the Universal Scalability Law fitted to its steps
 * (core/usl.h), citing the knee. (The first error of each class and probe alerts are
 * detected where they happen: the merger and the probes.)
 */
#ifndef BRINK_RAMP_RAMP_H
#define BRINK_RAMP_RAMP_H

#include <stddef.h>
#include <stdint.h>

#include "core/command.h"
#include "core/tick.h"

struct config_ramp;

#define RAMP_OUT_EVENTS 4

/* What a call asks of the engine. */
struct ramp_out {
    int set_level;                             /* move the load to level */
    double level;                              /* users, or requests/s (open model) */
    int stop;                                  /* end the run (drain) */
    char stop_why[TICK_TEXT_MAX];              /* what to say when it does */
    uint32_t n_events;                         /* events to log (controls only; */
    struct tick_event events[RAMP_OUT_EVENTS]; /* ramp_on_tick adds to the tick) */
};

struct ramp;

/* A ramp for the plan of cfg (borrowed; n_steps 0: no plan, detections
 * only). think_us is [load] think_time, for Little's law; model is the
 * load model at the start (the ticks say when it changes): under the open
 * model the levels are rates and there is no knee to find (arrivals do not
 * wait for replies, so Little's law ties nothing to the level). Aborts on
 * exhaustion. */
struct ramp *ramp_new(const struct config_ramp *cfg, uint64_t think_us, enum load_model model);
void ramp_free(struct ramp *r);

/* Whether cfg had steps. */
int ramp_has_plan(const struct ramp *r);

/* Starts the plan at step 1 (the `--ramp` flag). */
void ramp_start(struct ramp *r, uint64_t at_ms, struct ramp_out *out);
/* The console's r: starts the plan when off, resumes it when paused
 * (restarting the current step), stops it when running or holding. */
void ramp_toggle(struct ramp *r, uint64_t at_ms, struct ramp_out *out);
/* The console's n: ends the current step now (judged on what it measured)
 * and moves on as its verdict says. */
void ramp_next(struct ramp *r, uint64_t at_ms, struct ramp_out *out);
/* The operator changed the load by hand (what names the change): a running
 * plan pauses. */
void ramp_manual(struct ramp *r, uint64_t at_ms, const char *what, struct ramp_out *out);

/* What names a command that changes the load by hand, for ramp_manual
 * ("double"), or NULL for one that does not. */
const char *ramp_manual_change(enum cmd_kind k);

/* Feeds tick t: stamps t->plan, adds detections and step verdicts to t's
 * events, and fills out with what to do next. While a plan that holds by
 * time runs, t->bound.end_us becomes its end when that comes sooner. */
void ramp_on_tick(struct ramp *r, struct tick *t, struct ramp_out *out);

/* ---- the knee, for ramp_on_tick and its tests ---- */

/* One judged step, as the knee sees it. */
struct knee_point {
    double users;          /* concurrency held */
    double throughput;     /* completed requests per second */
    double throughput_se;  /* standard error of throughput (0: unknown) */
    double mean_latency_s; /* mean response time */
};

/* Why knee_find chose its step. */
struct knee_why {
    size_t scaled;   /* the last step that still scaled (before the knee) */
    double gain;     /* throughput gain over it, as a fraction of the ideal */
    double little_s; /* the latency Little's law predicts at the knee step */
};

/*
 * The first step i whose users grew over the step before (by enough to
 * measure, given the throughput's standard error) but whose throughput did
 * not: less than a quarter of the gain linear scaling would give, while
 * its mean latency is within 25% of Little's law (users / throughput minus
 * think time) and grew. Returns i, or -1 when no step is a knee.
 */
long knee_find(const struct knee_point *pts, size_t n, double think_s, struct knee_why *why);

#endif
