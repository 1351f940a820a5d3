/*
 * pace: how many new connections a worker may begin in one pass of its
 * loop. Thousands of connects in one pass hold the loop, and every timer
 * and tick with it, for as long as they take; and each can take
 * milliseconds once the ephemeral ports fill (the kernel's search for a
 * free one). So a pass spends a budget: at most PACE_PASS_MAX connects, and
 * none more once those begun took PACE_PASS_NS; the measured cost of one
 * also sizes the count for a transport that learns the cost only after the
 * fact (libcurl connects inside one call). The rest wait for later passes.
 * Pure (no clock, no libuv); the worker's thread.
 */
#ifndef BRINK_ENGINE_PACE_H
#define BRINK_ENGINE_PACE_H

#include <stdint.h>

#define PACE_PASS_NS 10000000ULL /* connect time a pass may spend */
#define PACE_PASS_MAX 64u        /* connects a pass may begin */

struct pace {
    uint32_t begun;    /* connects begun in this pass */
    uint64_t spent_ns; /* time they were measured to take */
    uint64_t cost_ns;  /* of one connect, 0 while unknown: up at once, down slowly */
};

/* A pass with nothing begun and no cost known. */
void pace_init(struct pace *p);
/* A new pass of the loop begins: its budget is whole again. */
void pace_new_pass(struct pace *p);
/* How many more connects this pass may begin (0: wait for the next pass). */
uint32_t pace_left(const struct pace *p);
/* n connects were begun in this pass. */
void pace_begun(struct pace *p, uint32_t n);
/* n connects begun in this pass took took_ns together (n > 0). */
void pace_took(struct pace *p, uint32_t n, uint64_t took_ns);

#endif
