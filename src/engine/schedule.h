/*
 * schedule: when the open model's requests are meant to start. Pure
 * arithmetic on a clock the caller passes in (ns since the run started):
 * no libuv, no queue. Arrivals are due every 1/rate seconds from an anchor;
 * requests not yet started are a count and the intended time of the first,
 * so memory stays the same however far behind the sender falls. One
 * schedule belongs to one worker and is used on its thread only.
 */
#ifndef BRINK_ENGINE_SCHEDULE_H
#define BRINK_ENGINE_SCHEDULE_H

#include <stdint.h>

#define SCHEDULE_NONE UINT64_MAX /* no arrival is coming (rate 0) */

struct schedule {
    double rate_per_s;  /* arrivals per second; 0: none */
    uint64_t anchor_ns; /* arrival i of the stream is due at anchor + i / rate */
    uint64_t issued;    /* arrivals of the stream taken since the anchor */
    /* Arrivals that were due before the last rate change and not taken
     * then: they keep (about) their intended times and go first. */
    uint64_t backlog;
    double backlog_first_ns;  /* intended start of the first of them */
    double backlog_period_ns; /* between two of them */
    uint64_t backlog_taken;   /* taken since backlog_first_ns was set */
};

/* Starts afresh at rate_per_s (0 or more): nothing is due before now and the
 * first arrival is due at now. Used at the start, on resume, and when the
 * model changes to open (a pause is not a stall to measure). */
void schedule_start(struct schedule *s, double rate_per_s, uint64_t now_ns);

/* Changes the rate at now: arrivals already due keep their intended times
 * and are sent first; later ones follow at the new rate, the first no later
 * than one new period from now. */
void schedule_set_rate(struct schedule *s, double rate_per_s, uint64_t now_ns);

/* Arrivals due at now (intended start <= now) and not taken yet. */
uint64_t schedule_due(const struct schedule *s, uint64_t now_ns);

/* The intended start of the next arrival, SCHEDULE_NONE when none will come. */
uint64_t schedule_next_ns(const struct schedule *s);

/* Takes the next arrival (the caller checked it is due): returns its
 * intended start, the time its latency counts from. */
uint64_t schedule_take(struct schedule *s);

/* How late the oldest arrival not taken is at now (0 when none is due). */
uint64_t schedule_lag_ns(const struct schedule *s, uint64_t now_ns);

/* How many due arrivals may start now with in_flight of cap requests in
 * flight: fewer than due when the cap is reached. *is_capped is set to 1
 * when the cap held some back, left alone otherwise. */
uint64_t schedule_may_start(const struct schedule *s, uint64_t now_ns, uint32_t in_flight,
                            uint32_t cap, int *is_capped);

#endif
