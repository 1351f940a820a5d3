#include "core/clock.h"

#include <time.h>

static uint64_t read_clock(clockid_t id)
{
    struct timespec ts;

    /* Cannot fail for these clock ids on Linux. */
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t clock_now_ns(void)
{
    return read_clock(CLOCK_MONOTONIC);
}

uint64_t clock_spin(uint64_t until_ns, uint64_t slice_ns)
{
    uint64_t now = clock_now_ns();
    uint64_t until = until_ns > now + slice_ns ? now + slice_ns : until_ns;

    while (now < until)
        now = clock_now_ns();
    return now;
}

uint64_t clock_wall_ms(void)
{
    return read_clock(CLOCK_REALTIME) / 1000000u;
}
