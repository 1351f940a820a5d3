/*
 * grow: whether an open-model arrival that finds every connection of its
 * worker busy gets a new one, or waits for one to free. A new connection
 * costs a connect on both sides (100 us of the loop's time on the machine
 * that measured it), and one the server does not need slows it. At 40,000/s
 * against one nginx core, two connections kept the schedule; but a stall
 * of brink's own loop (its first connects, a tick's work on the same core)
 * left arrivals owed, each opened a connection, and within 100 ms the pool
 * was at max_in_flight, the server doing 27,000/s on a thousand connections
 * and the schedule never catching up. So the pool grows only while the
 * server holds its requests: when neither the arrival nor any reply has
 * come for as long as a reply usually takes. While replies flow, owed
 * arrivals take the connections they free; but a pool smaller than the
 * rate needs grows without waiting, since the wait would be every other
 * request's: twice the rate times the shortest reply time, and 2 (Little's
 * law with room for the replies' spread). Not the average reply time: it
 * grows as the server queues, and the pool with it, which is the spiral
 * again. It grows by one connection a
 * loop pass at most, so that the replies that came during a stall of the
 * loop are read before it grows again. Before the first reply there is
 * nothing to go by, and the pool grows as the arrivals need. Pure: the caller
 * passes the clock (the engine's, ns). One per worker, on its thread.
 */
#ifndef BRINK_ENGINE_GROW_H
#define BRINK_ENGINE_GROW_H

#include <stdint.h>

struct grow {
    uint64_t reply_avg_ns; /* service time of the scheduled requests, averaged; 0: none yet */
    /* The shortest of them in this second of the clock and in the one
     * before: a minimum over the last one to two seconds. */
    uint64_t low_now_ns, low_before_ns;
    uint64_t low_second;
    uint64_t last_reply_ns; /* when the last of them ended */
    uint64_t pass;          /* loop passes so far */
    uint64_t grew_pass;     /* the pass the pool last grew in; UINT64_MAX: never */
};

/* No reply seen, no growth yet. */
void grow_init(struct grow *g);
/* A new pass of the worker's loop begins. */
void grow_new_pass(struct grow *g);
/* A scheduled request ended (reply or failure) at now_ns, service_ns after
 * it started. */
void grow_replied(struct grow *g, uint64_t now_ns, uint64_t service_ns);
/* Whether an arrival due at at_ns gets a new connection at now_ns, the
 * pool having n_conns, with in_flight requests on the busy ones, for the
 * worker's part of the rate, rate_per_s. */
int grow_may(const struct grow *g, double rate_per_s, uint32_t n_conns, uint32_t in_flight,
             uint64_t now_ns, uint64_t at_ns);
/* The pool grew by one connection in this pass. */
void grow_grew(struct grow *g);
/* When an arrival due at at_ns that may not grow now is to be looked at
 * again, should no reply come first (at or before now: the next pass). */
uint64_t grow_retry_ns(const struct grow *g, uint64_t at_ns);

#endif
