/*
 * steps: the step table of a run, built from its ticks. A step is a stretch of
 * consecutive ticks that held one target level: the target concurrency, or
 * for open-model ticks the target rate. Reads ticks only, so it serves a live
 * run and a recording alike. Memory is bounded whatever the run's length.
 * One thread at a time; no curses, no libcurl.
 *
 * Which ticks hold a level: RUNNING and STARTING ticks do; a change of model
 * or level between them closes the open row and opens a new one (returning
 * to an earlier level later opens a new row too), and so does a new step of
 * a ramp plan. PAUSED, STOPPING and DONE
 * ticks are folded into the open row: their completions, errors, latencies
 * and probe values count in it (so the rows add up to the run's totals), but
 * they never open or close a row. A pause's length goes to folded_us, not
 * to duration_us, so it does not dilute the step's req/s. Of the run's
 * tail (STOPPING and DONE ticks) the length up to the stop counts in
 * duration_us and the drain after it (the tick's drain_us) in folded_us;
 * a run that ended on its request limit has no stop, so all of its tail
 * counts in duration_us. A row opened by folded ticks alone
 * takes the level of the first tick that holds one.
 *
 * A plan step whose level changes within it (an agent of a run with
 * agents lost, before its share reached the others) has a row per level;
 * a row at another level than the plan's that the plan did not judge is
 * closed with VERDICT_OFF_LEVEL.
 *
 * A plan's warm-up ticks stay out of their step's figures: only their length
 * is counted, in warmup_us. So the rows of a run with a plan add up to its
 * totals less the warm-ups.
 */
#ifndef BRINK_CORE_STEPS_H
#define BRINK_CORE_STEPS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/errclass.h"
#include "core/tick.h"

#define STEPS_MAX_ROWS 1000  /* rows kept; later rows are counted, see steps_rows_not_kept */
#define STEPS_MAX_LEVELS 256 /* distinct levels grouped by steps_level; others are counted */
#define STEPS_MAX_KINDS 16   /* request kinds with rows of their own; more count in the total */

struct steps;

/* A probe's values in one row; has_value is 0 when it had none there. */
struct step_probe {
    int has_value;
    double max;      /* largest value seen in the row's ticks */
    double min;      /* smallest */
    double last;     /* value in the last tick of the row that had one */
    double sum;      /* a script's check or counter: its values summed (a check's failures) */
    uint64_t passed; /* a check: its passes */
};

/* One request kind's figures in a row ("PUT times at 25 and at 250 users"),
 * by index of steps_kind_name; completed is 0 when it had none there. */
struct step_kind {
    uint64_t completed; /* finished with any outcome */
    uint64_t ok;        /* finished without an error class */
    uint64_t timed;     /* successes its latency covers */
    uint64_t p50_us;    /* successes' latency percentiles, µs; 0 when timed is 0 */
    uint64_t p90_us;
    uint64_t p95_us;
    uint64_t p99_us;
    uint64_t max_us;
};

/* One row of the step table, or (from steps_level) all rows of one level. */
struct step_row {
    enum load_model model;       /* LOAD_CLOSED: level is a concurrency; LOAD_OPEN: a rate */
    double level;                /* target concurrency (whole) or target rate per s */
    uint32_t n_rows;             /* rows merged: 1 for a row of steps_row */
    uint64_t start_us;           /* start of its first tick, µs since the run started */
    uint64_t duration_us;        /* sum of the lengths of the ticks that held the level */
    uint64_t folded_us;          /* sum of the lengths of the folded ticks */
    uint64_t warmup_us;          /* sum of the lengths of its plan step's warm-up ticks */
    uint32_t plan_step;          /* 1-based step of a ramp plan; 0: not a plan step */
    uint32_t plan_n_steps;       /* steps in that plan */
    double plan_level;           /* the level that plan set for the step */
    enum plan_verdict verdict;   /* how the plan judged the step; VERDICT_OFF_LEVEL also for a
                                    stretch of it at another level that the plan did not judge */
    char why[TICK_TEXT_MAX];     /* VERDICT_FAIL: the condition that tripped (raw) */
    uint64_t n_ticks;            /* ticks in the row, folded ones included */
    uint64_t held_ticks;         /* ticks that held the level (not folded, not warm-up) */
    double rate_sum, rate_sum2;  /* their ok/s, summed and squared: see steps_row_rate_se */
    uint64_t started;            /* requests started */
    uint64_t completed;          /* requests finished with any outcome */
    uint64_t ok;                 /* finished without an error class */
    uint64_t bytes_in;           /* response bytes */
    uint64_t bytes_out;          /* request bytes */
    uint64_t errors[ERR__COUNT]; /* failed requests by class */
    uint64_t timed;              /* requests the latency figures cover (histograms merged) */
    uint64_t hist_gaps;          /* ticks whose histogram was damaged or missing */
    uint64_t mean_us;            /* latency mean of the merged histogram, µs */
    uint64_t p50_us;             /* latency percentiles of the merged histogram, µs; */
    uint64_t p90_us;             /* all 0 when timed is 0 */
    uint64_t p95_us;
    uint64_t p99_us;
    uint64_t p999_us;
    uint64_t max_us;
    uint64_t resent[RESEND__COUNT];            /* requests sent again, by cause */
    struct step_probe probes[TICK_MAX_PROBES]; /* by index of steps_probe_name */
    struct step_kind kinds[STEPS_MAX_KINDS];   /* by index of steps_kind_name */
};

/* An empty table. Memory: two histograms (HIST_BYTES each: the open row's
 * and a scratch one), at most STEPS_MAX_ROWS rows of about 1 KB, and one
 * encoded histogram per level (usually a few KB, at most HIST_ENCODED_MAX).
 * Aborts on exhaustion; free with steps_free (NULL is a no-op). */
struct steps *steps_new(void);
void steps_free(struct steps *s);

/*
 * Adds t (borrowed; read only during the call) to the open row, opening or
 * closing rows as the header comment says. Probes are matched by name across
 * ticks (the first TICK_MAX_PROBES names; later names are ignored). Returns
 * 0, or -EINVAL when t's total histogram is damaged (the counts are still
 * added; the row's timed count says how many requests its latency covers).
 */
int steps_add_tick(struct steps *s, const struct tick *t);

/* Closes the open row, computing its percentiles. Call after the last tick,
 * before reading rows or levels; a tick added afterwards opens a new row.
 * Calling it twice is harmless. */
void steps_finish(struct steps *s);

/* The open row so far (percentiles computed now), for a live table: 0 and
 * *out, or -ENOENT when no row is open. */
int steps_current(const struct steps *s, struct step_row *out);

/* The whole run as one row, for thresholds: every tick's counts (plan
 * warm-ups included), its length less pauses, the successes' latency of all
 * its ticks merged, each probe's extremes; level is the time-weighted mean
 * of the levels held and model the latest. 0 and *out, or -ENOENT before
 * the first tick. */
int steps_run(const struct steps *s, struct step_row *out);

/* Closed rows in order, 0 to steps_count - 1; NULL past the end. Valid until
 * the next steps_add_tick, steps_finish or steps_free. */
size_t steps_count(const struct steps *s);
const struct step_row *steps_row(const struct steps *s, size_t i);
/* Rows past STEPS_MAX_ROWS: how many, and their completed requests (they are
 * still in steps_level). */
uint64_t steps_rows_not_kept(const struct steps *s);
uint64_t steps_completed_not_kept(const struct steps *s);

/* Request kind names seen, in order of first sight (the first
 * STEPS_MAX_KINDS; raw: sanitize before display). */
uint32_t steps_n_kinds(const struct steps *s);
const char *steps_kind_name(const struct steps *s, uint32_t i);
/* Its req/s in row r (over the row's duration). */
double steps_kind_rate(const struct step_row *r, uint32_t i);

/* Probe names seen, in order of first sight (raw: sanitize before display). */
uint32_t steps_n_probes(const struct steps *s);
const char *steps_probe_name(const struct steps *s, uint32_t i);
/* What probe i is: TICK_MARK_NONE for a probe, else a script's check,
 * counter or gauge (as its first tick said). */
enum tick_mark steps_probe_mark(const struct steps *s, uint32_t i);
/* Whether probe i is a script's check or counter: its figures are totals
 * (sum, passed), shown in a table of their own, not as the step table's
 * max and last. */
int steps_probe_is_total(const struct steps *s, uint32_t i);

/*
 * Grouping by level, for compare: one merged row per distinct (model, level),
 * sorted closed before open, then by level. Counts, durations and errors are
 * sums, start_us is the first row's, the percentiles are those of the rows'
 * histograms merged (exact, not averaged), a probe's max is the largest and
 * its last the one of the latest row. Levels past STEPS_MAX_LEVELS distinct
 * ones are not grouped; steps_levels_not_kept counts their rows.
 * steps_level fills out and returns 0, or -ENOENT when i is out of range.
 */
size_t steps_level_count(const struct steps *s);
int steps_level(const struct steps *s, size_t i, struct step_row *out);
uint64_t steps_levels_not_kept(const struct steps *s);

/* Failed requests of a row: the sum over the classes. */
uint64_t steps_row_failed(const struct step_row *r);
/* How a plan judged a closed row, for display: "pass", "FAIL" (the
 * condition is in why), "cut short", "not judged: off level", for a
 * stretch of a plan step at its level that a change of level cut before
 * the step's end "not judged: level changed", and "" for a row outside a
 * plan. */
const char *steps_verdict_label(const struct step_row *r);
/* Whether a plan step's row held another level than its plan's. */
int steps_row_is_off_level(const struct step_row *r);
/* Its successes per second over the time it held its level (0 for none):
 * the throughput a plan judges, never failures, which at the breaking
 * point come fast and would read as a gain. */
double steps_row_ok_rate(const struct step_row *r);
/* The standard error of that rate, from the spread of its held ticks'
 * rates; 0 with fewer than two. */
double steps_row_rate_se(const struct step_row *r);
/* The mean of its held ticks' successes per second (0 for none): the
 * rate while the level held, without the run's drain that a last row's
 * completions include (the capacity fit's throughput). */
double steps_row_held_ok_rate(const struct step_row *r);

#endif
