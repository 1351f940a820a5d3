/*
 * The knee of a staircase: where adding users stops adding throughput. In a
 * closed system Little's law ties the three figures together (users =
 * throughput x (latency + think time)), so past the knee the extra users
 * only queue: throughput stays flat and latency grows in proportion. Both
 * are checked, so that a flat throughput for another reason (brink itself
 * saturated, requests failing fast) is not called a knee.
 */
#include <math.h>

#include "ramp/ramp.h"

#define KNEE_GAIN 0.25    /* below this share of linear scaling, users add nothing */
#define LITTLE_SLACK 0.25 /* measured latency within 25% of Little's prediction */
#define NOISE_SIGMAS 2.0  /* a gain smaller than this many standard errors is noise */

long knee_find(const struct knee_point *pts, size_t n, double think_s, struct knee_why *why)
{
    for (size_t i = 1; i < n; i++) {
        const struct knee_point *a = &pts[i - 1], *b = &pts[i];
        double ideal, noise, gain, little;

        if (b->users <= a->users || a->throughput <= 0 || b->throughput <= 0)
            continue;
        /* What the extra users would add if the server scaled linearly. */
        ideal = a->throughput * (b->users / a->users - 1.0);
        noise = NOISE_SIGMAS *
                sqrt(a->throughput_se * a->throughput_se + b->throughput_se * b->throughput_se);
        if (ideal <= noise)
            continue; /* a step too small to tell scaling from noise */
        gain = (b->throughput - a->throughput) / ideal;
        if (gain >= KNEE_GAIN)
            continue;
        little = b->users / b->throughput - think_s;
        if (little <= 0 || fabs(b->mean_latency_s - little) > LITTLE_SLACK * little)
            continue;
        if (b->mean_latency_s <= a->mean_latency_s)
            continue;
        if (why) {
            why->scaled = i - 1;
            why->gain = gain;
            why->little_s = little;
        }
        return (long)i;
    }
    return -1;
}
