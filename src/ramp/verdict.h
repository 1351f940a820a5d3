/*
 * verdict: whether a stretch of a run meets conditions of the stop_when
 * grammar ([ramp] stop_when, [thresholds] fail_on, --fail-on). A condition
 * is judged on a step_row: a step of the table, or the whole run
 * (steps_run). Latency conditions read the successes' percentiles. Pure
 * functions of their arguments; any thread.
 */
#ifndef BRINK_RAMP_VERDICT_H
#define BRINK_RAMP_VERDICT_H

#include <stddef.h>

#include "config/config.h"
#include "core/steps.h"

#define VERDICT_MAX_FAILS CONFIG_MAX_RULES

/* The name of rule's metric as written ("p99.9"), or its probe's NAME. */
const char *verdict_rule_name(const struct config_rule *rule);

/*
 * Whether rule holds on f (it "trips"): 1, with the measured figures in why
 * ("error_rate 5.02% > 1.00% (502 of 10000 failed)"), or 0. st gives the
 * probes' names; model is the load model of f; best_rate is the best req/s
 * of an earlier step that passed (throughput_drop; 0 when none, and then it
 * never trips).
 */
int verdict_rule_trips(const struct config_rule *rule, const struct step_row *f,
                       const struct steps *st, enum load_model model, double best_rate, char *why,
                       size_t len);

/* One condition that failed, for reports. */
struct verdict_fail {
    char why[TICK_TEXT_MAX]; /* the condition with its measured value */
};

/* Judges the whole run of st (finished) against rules: the conditions that
 * hold go to fails (at most VERDICT_MAX_FAILS); returns how many. */
uint32_t verdict_run(const struct config_rules *rules, const struct steps *st,
                     struct verdict_fail *fails);

#endif
