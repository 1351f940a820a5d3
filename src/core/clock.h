/*
 * clock: the time sources. Intervals and latencies use the monotonic clock
 * only (it never jumps); the wall clock is for labels in session files.
 * Any thread.
 */
#ifndef BRINK_CORE_CLOCK_H
#define BRINK_CORE_CLOCK_H

#include <stdint.h>

/* Monotonic time in nanoseconds since an arbitrary point. */
uint64_t clock_now_ns(void);
/* Wall-clock time in milliseconds since the Unix epoch. */
uint64_t clock_wall_ms(void);

#endif
