/*
 * The control state (control.c): what the commands asked for, which the
 * workers re-read when woken. Below plan.c and worker.c, which change it.
 */
#ifndef BRINK_ENGINE_CONTROL_H
#define BRINK_ENGINE_CONTROL_H

#include <stdint.h>

#include "core/tick.h"

struct command;
struct engine;

/* Control state: what the commands asked for. Guarded by engine.lock. */
struct control {
    uint32_t concurrency; /* total target across workers */
    int is_paused;
    int is_stopping;
    int is_aborting;     /* a second stop, or the drain timed out */
    uint64_t stop_at_ns; /* since the run started; when the drain gives up */
    enum load_model model;
    double rate_per_s;      /* open model: total arrivals per second (kept while closed) */
    uint32_t max_in_flight; /* open model: total cap, within the fd limit */
};

/* Applies cmd to the control state and says what it did in the event log
 * (clamped values included); the caller wakes the workers. */
void engine__control_apply(struct engine *e, const struct command *cmd);
/* Tells the merger what ticks should show of the control state, and a
 * running script that the run stops (engine.lock held, or no worker yet). */
void engine__control_publish(struct engine *e);
/* Wakes every worker to re-read the control state (any thread). */
void engine__wake_all(struct engine *e);
/* Sets the load to level: the concurrency, or under the open model the
 * rate (clamped, said in an event that names who asked), resuming a paused
 * run. engine.lock not held; the caller wakes the workers. */
void engine__set_level(struct engine *e, double level, const char *who);
/* Stops the run (the duration reached, the drain timed out, the plan's
 * end): drains the requests in flight, or aborts them; says why. */
void engine__request_stop(struct engine *e, const char *why, int abort_now);

#endif
