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
/* Spins on the monotonic clock in user space (the vDSO clock: no system
 * call) until until_ns (clock_now_ns's clock) or for slice_ns, whichever
 * comes first, and returns the time it read last: what a loop that must
 * not sleep does between looks at its sockets. */
uint64_t clock_spin(uint64_t until_ns, uint64_t slice_ns);
/* Wall-clock time in milliseconds since the Unix epoch. */
uint64_t clock_wall_ms(void);

#endif
