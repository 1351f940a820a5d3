/*
 * stopper: how a front end (console or headless) turns stop requests into
 * commands. The first request drains (CMD_STOP), the second aborts what is
 * in flight (another CMD_STOP); later ones add nothing. If the engine has
 * not closed the channel within a grace period of the first, the front end
 * gives up on it: brink must never hang on the operator. Pure state plus
 * chan_send; one thread (the front end's).
 */
#ifndef BRINK_CORE_STOPPER_H
#define BRINK_CORE_STOPPER_H

#include <stdint.h>

struct chan;

struct stopper {
    unsigned sent;     /* CMD_STOPs queued so far (0, 1 or 2) */
    uint64_t first_ns; /* clock_now_ns() of the first one; 0 before */
    uint64_t grace_ns; /* how long after the first to wait for the engine */
};

/* A stopper that waits grace_ms after the first stop. */
void stopper_init(struct stopper *s, uint64_t grace_ms);

/*
 * Sends a CMD_STOP for each of the first two of `requested` stop requests
 * (a running count, e.g. signals seen plus quit keys) not sent yet; a full
 * command ring is retried on the next call. now_ns is clock_now_ns().
 * Returns 0, or -ETIMEDOUT once the grace period after the first stop has
 * passed (the caller should report what ran and leave).
 */
int stopper_update(struct stopper *s, struct chan *ch, unsigned requested, uint64_t now_ns);

#endif
