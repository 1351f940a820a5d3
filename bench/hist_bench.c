/*
 * bench_hist: what the histogram costs the engine thread. Prints ns per
 * hist_record, hist_percentile and hist_merge, the bytes of one histogram and
 * the encoded size of a typical 1 s tick. Figures only, no pass or fail.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/hist.h"
#include "core/xalloc.h"

#define TICK_VALUES 20000  /* one 1 s tick at 20,000 requests/s */
#define RECORD_VALUES 4096 /* a power of two, so the index is a mask */
#define RECORD_ROUNDS 5000 /* 20 M records */
#define PERCENTILE_CALLS 200000
#define MERGE_CALLS 20000

/* Keeps results alive so the compiler cannot drop the timed work. */
static volatile uint64_t sink;

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* splitmix64, seeded: every run measures the same values. */
static uint64_t next_u64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Log-normal latency in µs: median 2 ms, p99.99 around half a second. */
static uint64_t draw_latency_us(uint64_t *state)
{
    double u = ((double)(next_u64(state) >> 11) + 1.0) / 9007199254740992.0;
    double v = ((double)(next_u64(state) >> 11) + 1.0) / 9007199254740992.0;
    double z = sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);

    return (uint64_t)exp(log(2000.0) + 1.5 * z);
}

static struct hist *tick_hist(uint64_t seed)
{
    struct hist *h = hist_new();
    uint64_t state = seed;

    for (int i = 0; i < TICK_VALUES; i++)
        hist_record(h, draw_latency_us(&state));
    return h;
}

/* Values are drawn beforehand so the loop times hist_record, not libm. */
static double bench_record(void)
{
    uint64_t *values = xcalloc(RECORD_VALUES, sizeof(*values));
    struct hist *h = hist_new();
    uint64_t state = 1;
    uint64_t t0;
    uint64_t t1;

    for (int i = 0; i < RECORD_VALUES; i++)
        values[i] = draw_latency_us(&state);
    t0 = now_ns();
    for (int r = 0; r < RECORD_ROUNDS; r++) {
        for (int i = 0; i < RECORD_VALUES; i++)
            hist_record(h, values[i]);
    }
    t1 = now_ns();
    sink = hist_count(h);
    hist_free(h);
    free(values);
    return (double)(t1 - t0) / ((double)RECORD_ROUNDS * RECORD_VALUES);
}

/* The percentiles a tick precomputes, in turn. */
static double bench_percentile(const struct hist *h)
{
    static const double pcts[] = {50.0, 90.0, 99.0, 99.9};
    uint64_t t0 = now_ns();
    uint64_t sum = 0;

    for (int i = 0; i < PERCENTILE_CALLS; i++)
        sum += hist_percentile(h, pcts[i % 4]);
    sink = sum;
    return (double)(now_ns() - t0) / PERCENTILE_CALLS;
}

/* Merging one tick into a run total, as the engine does each second. */
static double bench_merge(const struct hist *h)
{
    struct hist *total = hist_new();
    uint64_t t0 = now_ns();

    for (int i = 0; i < MERGE_CALLS; i++)
        hist_merge(total, h);
    sink = hist_count(total);
    hist_free(total);
    return (double)(now_ns() - t0) / MERGE_CALLS;
}

int main(void)
{
    struct hist *h = tick_hist(2);
    struct hist *empty = hist_new();

    printf("hist_record:      %8.2f ns per value\n", bench_record());
    printf("hist_percentile:  %8.1f ns per call (p50/p90/p99/p99.9 of a %d-value tick)\n",
           bench_percentile(h), TICK_VALUES);
    printf("hist_merge:       %8.1f ns per merge (a %d-value tick into a total)\n", bench_merge(h),
           TICK_VALUES);
    printf("histogram size:   %8d bytes (HIST_BYTES, fixed whatever is recorded)\n",
           (int)HIST_BYTES);
    printf("encoded tick:     %8zu bytes (%d log-normal values, median 2 ms)\n",
           hist_encode(h, NULL, 0), TICK_VALUES);
    printf("encoded empty:    %8zu bytes\n", hist_encode(empty, NULL, 0));
    printf("encoded max:      %8zu bytes (HIST_ENCODED_MAX)\n", (size_t)HIST_ENCODED_MAX);
    hist_free(h);
    hist_free(empty);
    return 0;
}
