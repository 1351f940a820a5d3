/* The open model on a worker (open.c): its schedule, the cap, the set-up
 * made ahead of a burst. */
#ifndef BRINK_ENGINE_OPEN_H
#define BRINK_ENGINE_OPEN_H

#include <stdint.h>

struct control;
struct slot;
struct worker;

/* open.c: the open model on a worker. */
/* Takes the model, rate and cap of c (engine.lock not held; c a copy);
 * was_paused is the worker's state before c. */
/* Before the first request: the transport's set-up of the slots a burst
 * will need, made ahead (an event says so when it took
 * ENGINE_PREPARE_NOTE_NS or more). */
void engine__open_prepare(struct worker *w);
void engine__open_apply(struct worker *w, const struct control *c, int was_paused);
/* Starts the requests due, on hint first when it is idle, up to the cap,
 * and arms the timer for the next. A no-op unless open and running. */
void engine__open_pump(struct worker *w, struct slot *hint);
/* Fills the schedule's figures of the interval ending at now_ns. */
void engine__open_interval_end(struct worker *w, uint64_t now_ns);

#endif
