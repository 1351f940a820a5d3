/*
 * deadline: a wake-up of a worker's loop at an absolute time, to the
 * microsecond, where libuv's own timers count whole ms: a timerfd on
 * CLOCK_MONOTONIC, watched by a uv_poll_t, armed early by the median
 * wake-up latency it has seen (at most DEADLINE_LEAD_MAX_NS); over that
 * last stretch, and over any wait shorter than a sleep costs, the loop
 * polls without sleeping (a uv_idle_t, spinning in user space between
 * looks at its sockets). Linux only. One deadline belongs to one loop and
 * is used on its thread.
 */
#ifndef BRINK_ENGINE_DEADLINE_H
#define BRINK_ENGINE_DEADLINE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <uv.h>

#define DEADLINE_NONE UINT64_MAX       /* struct deadline.at_ns: not armed */
#define DEADLINE_LEAD_MAX_NS 100000ULL /* the longest lead, and the longest sleep cost */

struct deadline;
typedef void deadline_fn(struct deadline *d);

struct deadline {
    uv_poll_t poll;        /* watches the timerfd */
    uv_idle_t idle;        /* running: the loop polls without sleeping until at_ns */
    int fd;                /* the timerfd; -1 when there is none */
    uint64_t at_ns;        /* CLOCK_MONOTONIC time it is armed for, or DEADLINE_NONE */
    uint64_t woken_for_ns; /* the time the timerfd is set for (at_ns - lead_ns), or DEADLINE_NONE */
    uint64_t lead_ns;      /* how early it is set: the wake-up latency (deadline_lead_update) */
    uint64_t sleep_cost_ns; /* what arming the timer takes (deadline_cost_update) */
    deadline_fn *fn;
};

/* Creates d's timerfd and starts watching it on loop; fn(d) runs on the
 * loop once an armed time is reached, on the first loop pass at or after
 * it. Returns 0, or a negative errno (or UV_E*) with one line in err; d
 * must still go through deadline_close. */
int deadline_init(uv_loop_t *loop, struct deadline *d, deadline_fn *fn, char *err, size_t err_len);
/* Arms d for at_ns, an absolute CLOCK_MONOTONIC time in ns (uv_hrtime's
 * clock on Linux), replacing any earlier time; a time already past fires on
 * the next loop pass. Arming the time it already has costs no system call. */
void deadline_arm(struct deadline *d, uint64_t at_ns);
/* Disarms d; fn will not run until it is armed again. */
void deadline_disarm(struct deadline *d);
/* Closes d's handles, and its fd once they are closed; the loop must run
 * for that. Safe on a d whose init failed, and twice; arming or disarming
 * d after it does nothing. */
void deadline_close(struct deadline *d);
/* ns as a struct timespec (pure; exposed for its test). */
struct timespec deadline_timespec(uint64_t ns);
/* The next lead after a wake-up that came latency_ns after the time the
 * timerfd was set for: it tracks the median of the latencies, in steps of
 * half a us, never above DEADLINE_LEAD_MAX_NS (pure). */
uint64_t deadline_lead_update(uint64_t lead_ns, uint64_t latency_ns);
/* The next estimate of what a sleep costs, beside its latency, after
 * arming the timer took took_ns: a moving average, never above
 * DEADLINE_LEAD_MAX_NS (pure). A wait shorter than the lead and this
 * together is polled for, not slept. */
uint64_t deadline_cost_update(uint64_t cost_ns, uint64_t took_ns);

#endif
