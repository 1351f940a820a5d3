/*
 * hist: accuracy against exact sorted values, exact merging, and a sparse
 * encoding whose decoder trusts nothing it reads.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/hist.h"
#include "core/varint.h"

#define ACCURACY_VALUES 1000000
#define MAX_REL_ERROR 0.001 /* 0.1%, what the UI and reports may rely on */
#define TEN_SECONDS_US 10000000ULL

/* Percentiles checked, in hundredths of a percent so exact ranks need no
 * floating point: p1 .. p99, then p99.5, p99.9, p99.99. */
#define N_CHECKED_PCTS (99 + 3)
static unsigned checked_pcts[N_CHECKED_PCTS];

static void init_checked_pcts(void)
{
    for (unsigned i = 0; i < 99; i++)
        checked_pcts[i] = (i + 1) * 100;
    checked_pcts[99] = 9950;
    checked_pcts[100] = 9990;
    checked_pcts[101] = 9999;
}

/* splitmix64: seeded, so a failure reproduces. */
static uint64_t next_u64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1]: never 0, so log() below is finite. */
static double next_unit(uint64_t *state)
{
    return ((double)(next_u64(state) >> 11) + 1.0) / 9007199254740992.0;
}

static double next_normal(uint64_t *state)
{
    double u = next_unit(state);
    double v = next_unit(state);

    return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

static uint64_t in_latency_range(double us)
{
    if (us < 1.0)
        return 1;
    if (us > (double)TEN_SECONDS_US)
        return TEN_SECONDS_US;
    return (uint64_t)us;
}

/* 1 µs .. 10 s, evenly. */
static uint64_t draw_uniform(uint64_t *state)
{
    return 1 + next_u64(state) % TEN_SECONDS_US;
}

/* Median 2 ms, p1 about 60 µs, p99.99 about 0.5 s: a typical service. */
static uint64_t draw_lognormal(uint64_t *state)
{
    return in_latency_range(exp(log(2000.0) + 1.5 * next_normal(state)));
}

/* 70% cache hits near 300 µs, 30% slow path near 50 ms. */
static uint64_t draw_bimodal(uint64_t *state)
{
    if (next_u64(state) % 10 < 7)
        return in_latency_range(exp(log(300.0) + 0.3 * next_normal(state)));
    return in_latency_range(exp(log(50000.0) + 0.5 * next_normal(state)));
}

struct dist {
    const char *name;
    uint64_t (*draw)(uint64_t *state);
    uint64_t seed;
};

static const struct dist uniform = {"uniform", draw_uniform, 1};
static const struct dist lognormal = {"log-normal", draw_lognormal, 2};
static const struct dist bimodal = {"bimodal", draw_bimodal, 3};

/* Draws n values of d into values (if not NULL) and h (if not NULL). */
static void fill(const struct dist *d, uint64_t seed, uint64_t *values, size_t n, struct hist *h)
{
    uint64_t state = seed;

    for (size_t i = 0; i < n; i++) {
        uint64_t v = d->draw(&state);

        if (values)
            values[i] = v;
        if (h)
            hist_record(h, v);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a;
    uint64_t y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* The exact value of rank ceil(cp/10000 * n) (at least 1) of sorted[0..n). */
static uint64_t exact_percentile(const uint64_t *sorted, size_t n, unsigned cp)
{
    uint64_t rank = ((uint64_t)cp * n + 9999) / 10000;

    return sorted[rank ? rank - 1 : 0];
}

static double rel_error(uint64_t got, uint64_t want)
{
    if (want == 0)
        return got == 0 ? 0.0 : INFINITY;
    return fabs((double)got - (double)want) / (double)want;
}

static size_t encode_alloc(const struct hist *h, unsigned char **out)
{
    size_t n = hist_encode(h, NULL, 0);

    *out = malloc(n);
    assert_non_null(*out);
    assert_int_equal(hist_encode(h, *out, n), n);
    return n;
}

static void assert_same_encoding(const struct hist *a, const struct hist *b)
{
    unsigned char *ea;
    unsigned char *eb;
    size_t na = encode_alloc(a, &ea);
    size_t nb = encode_alloc(b, &eb);

    assert_int_equal(na, nb);
    assert_memory_equal(ea, eb, na);
    free(ea);
    free(eb);
}

static void assert_is_empty(const struct hist *h)
{
    assert_int_equal(hist_count(h), 0);
    assert_int_equal(hist_clamped(h), 0);
    assert_int_equal(hist_min(h), 0);
    assert_int_equal(hist_max(h), 0);
    assert_true(hist_mean(h) == 0.0);
    assert_true(hist_stddev(h) == 0.0);
    for (double p = 0.0; p <= 100.0; p += 12.5)
        assert_int_equal(hist_percentile(h, p), 0);
}

/* Every checked percentile of d within MAX_REL_ERROR of the exact one; the
 * worst error is printed because the release note quotes it. */
static void check_accuracy(const struct dist *d)
{
    uint64_t *values = malloc(ACCURACY_VALUES * sizeof(*values));
    struct hist *h = hist_new();
    double worst = 0.0;
    unsigned worst_cp = 0;

    assert_non_null(values);
    init_checked_pcts();
    fill(d, d->seed, values, ACCURACY_VALUES, h);
    qsort(values, ACCURACY_VALUES, sizeof(*values), cmp_u64);
    assert_true(values[0] < HIST_EXACT_BELOW);
    assert_true(values[ACCURACY_VALUES - 1] > 100000);

    for (size_t i = 0; i < N_CHECKED_PCTS; i++) {
        unsigned cp = checked_pcts[i];
        uint64_t want = exact_percentile(values, ACCURACY_VALUES, cp);
        uint64_t got = hist_percentile(h, cp / 100.0);
        double err = rel_error(got, want);

        if (err > MAX_REL_ERROR)
            fail_msg("%s p%g: got %llu, exact %llu", d->name, cp / 100.0, (unsigned long long)got,
                     (unsigned long long)want);
        if (err > worst) {
            worst = err;
            worst_cp = cp;
        }
    }
    assert_int_equal(hist_percentile(h, 0.0), values[0]);
    assert_int_equal(hist_percentile(h, 100.0), values[ACCURACY_VALUES - 1]);
    /* The header promises half a bucket, 1/2048, which is tighter still. */
    assert_true(worst <= 1.0 / 2048);
    printf("hist accuracy: %-10s worst relative error %.4f%% at p%g (%d percentiles, %d values)\n",
           d->name, worst * 100.0, worst_cp / 100.0, N_CHECKED_PCTS, ACCURACY_VALUES);
    hist_free(h);
    free(values);
}

static void percentiles_of_uniform_values_are_within_a_tenth_of_a_percent(void **state)
{
    (void)state;
    check_accuracy(&uniform);
}

static void percentiles_of_lognormal_values_are_within_a_tenth_of_a_percent(void **state)
{
    (void)state;
    check_accuracy(&lognormal);
}

static void percentiles_of_bimodal_values_are_within_a_tenth_of_a_percent(void **state)
{
    (void)state;
    check_accuracy(&bimodal);
}

static void check_summary(const struct dist *d, size_t n)
{
    uint64_t *values = malloc(n * sizeof(*values));
    struct hist *h = hist_new();
    long double sum = 0.0L;
    long double sq = 0.0L;
    uint64_t lo = UINT64_MAX;
    uint64_t hi = 0;
    double mean;
    double stddev;

    assert_non_null(values);
    fill(d, d->seed + 100, values, n, h);
    for (size_t i = 0; i < n; i++) {
        sum += values[i];
        lo = values[i] < lo ? values[i] : lo;
        hi = values[i] > hi ? values[i] : hi;
    }
    mean = (double)(sum / n);
    for (size_t i = 0; i < n; i++)
        sq += ((long double)values[i] - mean) * ((long double)values[i] - mean);
    stddev = sqrt((double)(sq / n));

    assert_int_equal(hist_count(h), n);
    assert_int_equal(hist_min(h), lo);
    assert_int_equal(hist_max(h), hi);
    assert_int_equal(hist_clamped(h), 0);
    assert_true(fabs(hist_mean(h) - mean) <= MAX_REL_ERROR * mean);
    assert_true(fabs(hist_stddev(h) - stddev) <= MAX_REL_ERROR * stddev);
    /* Midpoints err both ways and cancel over a smooth distribution (about
     * 4e-6 here), where bucket low ends would all err one way (about 3e-4). */
    assert_true(fabs(hist_mean(h) - mean) <= 5e-5 * mean);
    assert_true(fabs(hist_stddev(h) - stddev) <= 5e-5 * stddev);
    hist_free(h);
    free(values);
}

static void count_min_max_mean_and_stddev_match_exact_values(void **state)
{
    (void)state;
    check_summary(&uniform, 200000);
    check_summary(&lognormal, 200000);
    check_summary(&bimodal, 200000);
}

static void percentile_of_empty_hist_is_zero(void **state)
{
    struct hist *h = hist_new();

    (void)state;
    assert_is_empty(h);
    hist_free(h);
    hist_free(NULL);
}

static void values_below_2048_are_exact(void **state)
{
    struct hist *h = hist_new();

    (void)state;
    for (uint64_t v = 0; v < HIST_EXACT_BELOW; v++)
        hist_record(h, v);
    /* Value v is rank v + 1: the smallest percentile reaching that rank. */
    for (uint64_t v = 0; v < HIST_EXACT_BELOW; v++)
        assert_int_equal(hist_percentile(h, (v + 0.5) * 100.0 / HIST_EXACT_BELOW), v);
    assert_true(hist_mean(h) == 1023.5);
    assert_true(fabs(hist_stddev(h) - sqrt((2048.0 * 2048.0 - 1.0) / 12.0)) < 1e-9);
    hist_free(h);
}

static void percentile_uses_the_nearest_rank_definition(void **state)
{
    struct hist *h = hist_new();

    (void)state;
    for (uint64_t v = 1; v <= 10; v++)
        hist_record(h, v * 100);
    assert_int_equal(hist_percentile(h, 0.0), 100);
    assert_int_equal(hist_percentile(h, 1.0), 100);
    assert_int_equal(hist_percentile(h, 10.0), 100);
    assert_int_equal(hist_percentile(h, 10.001), 200);
    assert_int_equal(hist_percentile(h, 50.0), 500);
    /* 90% of 10 is 9 exactly, though 90/100 * 10 is not in binary. */
    assert_int_equal(hist_percentile(h, 90.0), 900);
    assert_int_equal(hist_percentile(h, 90.5), 1000);
    assert_int_equal(hist_percentile(h, 100.0), 1000);
    hist_free(h);

    /* 99.9% of 1000 values is rank 999, not 1000. */
    h = hist_new();
    for (uint64_t v = 1; v <= 1000; v++)
        hist_record(h, v);
    assert_int_equal(hist_percentile(h, 99.9), 999);
    assert_int_equal(hist_percentile(h, 99.0), 990);
    assert_int_equal(hist_percentile(h, 0.1), 1);
    assert_int_equal(hist_percentile(h, 0.2), 2);
    hist_free(h);
}

static void percentile_argument_is_clamped_to_0_and_100(void **state)
{
    struct hist *h = hist_new();

    (void)state;
    hist_record(h, 7);
    hist_record(h, 5000);
    hist_record(h, 90000);
    assert_int_equal(hist_percentile(h, -5.0), 7);
    assert_int_equal(hist_percentile(h, NAN), 7);
    assert_int_equal(hist_percentile(h, 250.0), 90000);
    assert_int_equal(hist_percentile(h, INFINITY), 90000);
    hist_free(h);
}

/* 4096 .. 4099 share a bucket whose midpoint is 4097: the exact min and max
 * must win over it at the edges. */
static void percentile_stays_within_min_and_max(void **state)
{
    struct hist *h = hist_new();

    (void)state;
    hist_record_n(h, 4096, 3);
    for (double p = 0.0; p <= 100.0; p += 10.0)
        assert_int_equal(hist_percentile(h, p), 4096);
    hist_reset(h);
    hist_record_n(h, 4099, 3);
    for (double p = 0.0; p <= 100.0; p += 10.0)
        assert_int_equal(hist_percentile(h, p), 4099);
    /* 9000 .. 9007 have midpoint 9003: p0 and p100 are exact, not midpoints. */
    hist_reset(h);
    hist_record(h, 4096);
    hist_record(h, 9007);
    assert_int_equal(hist_percentile(h, 0.0), 4096);
    assert_int_equal(hist_percentile(h, 50.0), 4097);
    assert_int_equal(hist_percentile(h, 99.0), 9003);
    assert_int_equal(hist_percentile(h, 100.0), 9007);
    hist_free(h);
}

static void value_zero_is_recorded_exactly(void **state)
{
    struct hist *h = hist_new();

    (void)state;
    hist_record(h, 0);
    assert_int_equal(hist_count(h), 1);
    assert_int_equal(hist_min(h), 0);
    assert_int_equal(hist_max(h), 0);
    assert_int_equal(hist_percentile(h, 50.0), 0);
    assert_true(hist_mean(h) == 0.0);
    hist_record(h, 0);
    hist_record(h, 3000000);
    assert_int_equal(hist_percentile(h, 66.0), 0);
    assert_true(rel_error(hist_percentile(h, 67.0), 3000000) <= 1.0 / 2048);
    assert_int_equal(hist_min(h), 0);
    hist_free(h);
}

/* Values at every octave edge come back within half a bucket, 1/2048. The
 * neighbours 1 and HIST_MAX_VALUE_US keep min/max clamping out of the way. */
static void every_octave_edge_is_within_half_a_bucket(void **state)
{
    struct hist *h = hist_new();

    (void)state;
    for (unsigned k = 11; k < 32; k++) {
        uint64_t octave = (uint64_t)1 << k;
        uint64_t width = octave >> 10;
        /* Around the octave's start, its first bucket's edges, its end. */
        const uint64_t probes[] = {
            octave - 1,         octave,         octave + 1, octave + width - 1, octave + width,
            2 * octave - width, 2 * octave - 2,
        };

        for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
            uint64_t v = probes[i];
            uint64_t got;

            if (v >= HIST_MAX_VALUE_US)
                continue;
            hist_reset(h);
            hist_record(h, 1);
            hist_record(h, v);
            hist_record(h, HIST_MAX_VALUE_US);
            got = hist_percentile(h, 50.0);
            if (rel_error(got, v) > 1.0 / 2048)
                fail_msg("value %llu reported as %llu", (unsigned long long)v,
                         (unsigned long long)got);
        }
    }
    hist_free(h);
}

static void values_above_one_hour_are_clamped_and_counted(void **state)
{
    struct hist *h = hist_new();

    (void)state;
    hist_record(h, 1000);
    hist_record(h, HIST_MAX_VALUE_US);
    assert_int_equal(hist_clamped(h), 0);
    hist_record(h, HIST_MAX_VALUE_US + 1);
    hist_record(h, UINT64_MAX);
    hist_record_n(h, 10 * HIST_MAX_VALUE_US, 3);
    assert_int_equal(hist_count(h), 7);
    assert_int_equal(hist_clamped(h), 5);
    assert_int_equal(hist_max(h), HIST_MAX_VALUE_US);
    assert_int_equal(hist_percentile(h, 100.0), HIST_MAX_VALUE_US);
    assert_true(rel_error(hist_percentile(h, 50.0), HIST_MAX_VALUE_US) <= 1.0 / 2048);
    assert_int_equal(hist_percentile(h, 10.0), 1000);
    hist_free(h);
}

static void record_n_equals_n_records(void **state)
{
    struct hist *a = hist_new();
    struct hist *b = hist_new();

    (void)state;
    hist_record_n(a, 12345, 4);
    hist_record_n(a, 17, 2);
    for (int i = 0; i < 4; i++)
        hist_record(b, 12345);
    hist_record(b, 17);
    hist_record(b, 17);
    assert_same_encoding(a, b);
    /* Zero values must leave min and max alone. */
    hist_record_n(a, 0, 0);
    hist_record_n(a, 99999999, 0);
    assert_same_encoding(a, b);
    assert_int_equal(hist_min(a), 17);
    hist_free(a);
    hist_free(b);
}

static void assert_same_hist(const struct hist *a, const struct hist *b)
{
    assert_int_equal(hist_count(a), hist_count(b));
    assert_int_equal(hist_clamped(a), hist_clamped(b));
    assert_int_equal(hist_min(a), hist_min(b));
    assert_int_equal(hist_max(a), hist_max(b));
    assert_true(hist_mean(a) == hist_mean(b));
    assert_true(hist_stddev(a) == hist_stddev(b));
    for (unsigned cp = 0; cp <= 10000; cp += 25)
        assert_int_equal(hist_percentile(a, cp / 100.0), hist_percentile(b, cp / 100.0));
    assert_int_equal(hist_percentile(a, 99.99), hist_percentile(b, 99.99));
    assert_same_encoding(a, b);
}

static void merge_equals_recording_both_streams(void **state)
{
    struct hist *a = hist_new();
    struct hist *b = hist_new();
    struct hist *both = hist_new();

    (void)state;
    fill(&bimodal, 10, NULL, 100000, a);
    fill(&bimodal, 10, NULL, 100000, both);
    fill(&uniform, 11, NULL, 50000, b);
    hist_record(b, HIST_MAX_VALUE_US * 2);
    fill(&uniform, 11, NULL, 50000, both);
    hist_record(both, HIST_MAX_VALUE_US * 2);

    hist_merge(a, b);
    assert_same_hist(a, both);
    assert_int_equal(hist_count(b), 50001);
    assert_int_equal(hist_clamped(a), 1);
    hist_free(a);
    hist_free(b);
    hist_free(both);
}

static void merge_with_an_empty_hist_changes_nothing(void **state)
{
    struct hist *h = hist_new();
    struct hist *empty = hist_new();
    struct hist *dst = hist_new();
    struct hist *ref = hist_new();

    (void)state;
    fill(&lognormal, 20, NULL, 5000, h);
    fill(&lognormal, 20, NULL, 5000, ref);
    hist_merge(h, empty);
    assert_same_hist(h, ref);
    hist_merge(dst, h);
    assert_same_hist(dst, ref);
    hist_merge(empty, empty);
    assert_is_empty(empty);
    hist_free(h);
    hist_free(empty);
    hist_free(dst);
    hist_free(ref);
}

static void reset_empties_the_hist_for_reuse(void **state)
{
    struct hist *h = hist_new();
    struct hist *ref = hist_new();

    (void)state;
    fill(&uniform, 30, NULL, 20000, h);
    hist_record(h, UINT64_MAX);
    hist_reset(h);
    assert_is_empty(h);
    assert_same_encoding(h, ref);
    /* No count from before may survive in a bucket. */
    hist_record(h, 4242);
    hist_record(ref, 4242);
    fill(&bimodal, 31, NULL, 20000, h);
    fill(&bimodal, 31, NULL, 20000, ref);
    assert_same_hist(h, ref);
    hist_free(h);
    hist_free(ref);
}

static void copy_replaces_the_destination(void **state)
{
    struct hist *src = hist_new();
    struct hist *dst = hist_new();

    (void)state;
    fill(&lognormal, 40, NULL, 30000, src);
    hist_record(src, HIST_MAX_VALUE_US + 5);
    fill(&uniform, 41, NULL, 30000, dst);
    hist_copy(dst, src);
    assert_same_hist(dst, src);
    hist_reset(src);
    hist_copy(dst, src);
    assert_is_empty(dst);
    hist_free(src);
    hist_free(dst);
}

static void encode_decode_round_trips(void **state)
{
    static const size_t sizes[] = {0, 1, 2, 17, 1000, 20000, 300000};
    struct hist *h = hist_new();
    struct hist *back = hist_new();

    (void)state;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        unsigned char *buf;
        size_t n;

        hist_reset(h);
        fill(i % 2 ? &lognormal : &bimodal, 50 + i, NULL, sizes[i], h);
        if (i % 3 == 2)
            hist_record_n(h, HIST_MAX_VALUE_US + 1, i);
        n = encode_alloc(h, &buf);
        /* back holds other values first: decode must replace them. */
        fill(&uniform, 60 + i, NULL, 1000, back);
        assert_int_equal(hist_decode(back, buf, n), 0);
        assert_same_hist(back, h);
        free(buf);
    }
    hist_free(h);
    hist_free(back);
}

static void empty_hist_encodes_in_a_few_bytes(void **state)
{
    struct hist *h = hist_new();
    struct hist *back = hist_new();
    unsigned char buf[16];
    size_t n;

    (void)state;
    n = hist_encode(h, buf, sizeof(buf));
    assert_true(n <= 8);
    hist_record(back, 5);
    assert_int_equal(hist_decode(back, buf, n), 0);
    assert_is_empty(back);
    hist_free(h);
    hist_free(back);
}

static void encode_with_a_small_buffer_returns_the_size_needed(void **state)
{
    struct hist *h = hist_new();
    unsigned char *full;
    unsigned char *buf;
    size_t need;

    (void)state;
    fill(&lognormal, 70, NULL, 300, h);
    need = encode_alloc(h, &full);
    assert_true(need <= HIST_ENCODED_MAX);
    buf = malloc(need + 8);
    assert_non_null(buf);
    for (size_t cap = 0; cap <= need; cap++) {
        memset(buf, 0xa5, need + 8);
        assert_int_equal(hist_encode(h, buf, cap), need);
        /* Not one byte past cap. */
        for (size_t i = cap; i < need + 8; i++)
            assert_int_equal(buf[i], 0xa5);
    }
    assert_memory_equal(buf, full, need);
    assert_int_equal(hist_encode(h, NULL, 0), need);
    free(buf);
    free(full);
    hist_free(h);
}

static void decode_rejects_every_truncation(void **state)
{
    struct hist *h = hist_new();
    struct hist *back = hist_new();
    unsigned char *buf;
    size_t n;

    (void)state;
    fill(&bimodal, 80, NULL, 2000, h);
    hist_record(h, HIST_MAX_VALUE_US + 1);
    n = encode_alloc(h, &buf);
    for (size_t len = 0; len < n; len++) {
        hist_record(back, 77);
        if (hist_decode(back, buf, len) != -EINVAL)
            fail_msg("a prefix of %zu of %zu bytes was accepted", len, n);
        assert_int_equal(hist_count(back), 0);
    }
    assert_int_equal(hist_decode(back, buf, n), 0);
    free(buf);
    hist_free(h);
    hist_free(back);
}

/* Hand-made encodings: a LEB128 writer independent of the one under test. */
struct bytes {
    unsigned char b[64];
    size_t n;
};

static void put(struct bytes *out, uint64_t v)
{
    do {
        assert_true(out->n < sizeof(out->b));
        out->b[out->n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
}

/* Version 1, then the given varints. */
static struct bytes encoding(size_t n, const uint64_t *v)
{
    struct bytes out = {.b = {1}, .n = 1};

    for (size_t i = 0; i < n; i++)
        put(&out, v[i]);
    return out;
}

/* The bucket of v as hist.h lays it out, written from its formula. */
static uint64_t layout_bucket(uint64_t v)
{
    unsigned k = 63;

    if (v < 2048)
        return v;
    while (!(v >> k))
        k--;
    return 2048 + (k - 11) * 1024 + ((v >> (k - 10)) - 1024);
}

#define ENCODING(...)                                                                              \
    encoding(sizeof((uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t), (uint64_t[]){__VA_ARGS__})

/* Decoding into a hist that holds values: it must fail and leave h empty. */
static void assert_rejected(struct bytes e)
{
    struct hist *h = hist_new();

    hist_record(h, 31337);
    assert_int_equal(hist_decode(h, e.b, e.n), -EINVAL);
    assert_is_empty(h);
    hist_free(h);
}

static void assert_accepted(struct bytes e)
{
    struct hist *h = hist_new();
    unsigned char again[64];

    assert_int_equal(hist_decode(h, e.b, e.n), 0);
    assert_int_equal(hist_encode(h, again, sizeof(again)), e.n);
    assert_memory_equal(again, e.b, e.n);
    hist_free(h);
}

static void handmade_encodings_are_read_as_documented(void **state)
{
    struct hist *h = hist_new();
    uint64_t top = layout_bucket(HIST_MAX_VALUE_US);
    struct bytes e = ENCODING(3, 5, 3000, 0, 5, 2, 2518, 1);

    (void)state;
    /* count 3, min 5, max 3000, no clamped; bucket 5 holds 2, then bucket
     * 2048 + (3000 >> 1) - 1024 = 2524, after skipping 6 .. 2523, holds 1. */
    assert_int_equal(layout_bucket(3000), 2524);
    assert_int_equal(hist_decode(h, e.b, e.n), 0);
    assert_int_equal(hist_count(h), 3);
    assert_int_equal(hist_percentile(h, 66.0), 5);
    assert_int_equal(hist_percentile(h, 67.0), 3000);
    assert_accepted(e);
    assert_accepted(ENCODING(0, 0, 0, 0));
    assert_accepted(ENCODING(1, 0, 0, 0, 0, 1));
    /* Two values clamped into the top bucket. */
    assert_accepted(ENCODING(3, 5, HIST_MAX_VALUE_US, 2, 5, 1, top - 6, 2));
    hist_free(h);
}

static void decode_rejects_an_unknown_version(void **state)
{
    static const unsigned char versions[] = {0, 2, 0x7f, 0x81, 0xff};

    (void)state;
    for (size_t i = 0; i < sizeof(versions); i++) {
        struct bytes e = ENCODING(1, 9, 9, 0, 9, 1);

        e.b[0] = versions[i];
        assert_rejected(e);
    }
}

static void decode_rejects_a_bucket_out_of_range(void **state)
{
    (void)state;
    /* Past the bucket of max. */
    assert_rejected(ENCODING(2, 5, 10, 0, 5, 1, 5, 1));
    /* A gap beyond every bucket, and one that would wrap around. */
    assert_rejected(ENCODING(2, 5, 10, 0, 5, 1, 100000, 1));
    assert_rejected(ENCODING(2, 5, 10, 0, 5, 1, UINT64_MAX, 1));
    /* Past the last bucket even with max at its limit. */
    assert_rejected(ENCODING(2, 0, HIST_MAX_VALUE_US, 1, 0, 1, HIST_BUCKETS, 1));
    /* More pairs after max's bucket: the next index must not wrap past it. */
    assert_rejected(ENCODING(3, 5, 10, 0, 5, 1, 4, 1, 1000000, 1));
    assert_rejected(ENCODING(3, 5, 10, 0, 5, 1, 4, 1, 0, 1));
    /* The first bucket is not min's, or the last is not max's. */
    assert_rejected(ENCODING(1, 5, 5, 0, 6, 1));
    assert_rejected(ENCODING(2, 5, 10, 0, 6, 1, 3, 1));
    assert_rejected(ENCODING(2, 5, 10, 0, 5, 1, 3, 1));
}

static void decode_rejects_trailing_garbage(void **state)
{
    struct bytes e = ENCODING(2, 5, 10, 0, 5, 1, 4, 1);
    struct bytes empty = ENCODING(0, 0, 0, 0);

    (void)state;
    assert_accepted(e);
    e.b[e.n++] = 0;
    assert_rejected(e);
    empty.b[empty.n++] = 0;
    assert_rejected(empty);
}

static void decode_rejects_a_count_mismatch(void **state)
{
    (void)state;
    /* The buckets hold fewer values than the count, or more. */
    assert_rejected(ENCODING(3, 5, 10, 0, 5, 1, 4, 1));
    assert_rejected(ENCODING(2, 5, 10, 0, 5, 1, 4, 2));
    assert_rejected(ENCODING(1, 5, 10, 0, 5, 1, 4, 1));
    /* An empty bucket is never written. */
    assert_rejected(ENCODING(2, 5, 10, 0, 5, 0, 0, 1, 3, 1));
    assert_rejected(ENCODING(2, 5, 10, 0, 5, 1, 0, 0, 3, 1));
    /* A bucket holding more than the count, which must not wrap the sum. */
    assert_rejected(ENCODING(2, 5, 10, 0, 5, UINT64_MAX, 4, 3));
}

static void decode_rejects_an_inconsistent_header(void **state)
{
    struct bytes long_form = ENCODING(1, 5, 5, 0, 5, 1);
    struct bytes too_long = {.b = {1}, .n = 1};
    uint64_t top = layout_bucket(HIST_MAX_VALUE_US);

    (void)state;
    /* Empty, yet with a min, or with clamped values. */
    assert_rejected(ENCODING(0, 1, 0, 0));
    assert_rejected(ENCODING(0, 0, 0, 1));
    /* Min above max. */
    assert_rejected(ENCODING(2, 10, 5, 0, 10, 1, 0, 1));
    /* One value with two extremes, in two buckets or in one. */
    assert_rejected(ENCODING(1, 5, 6, 0, 5, 1));
    assert_rejected(ENCODING(1, 4096, 4099, 0, layout_bucket(4096), 1));
    /* More clamped values than values; clamped values with max below the limit. */
    assert_rejected(ENCODING(3, 5, 10, 4, 5, 1, 4, 2));
    assert_rejected(ENCODING(2, 5, 10, 1, 5, 1, 4, 1));
    /* Max above the limit. */
    assert_rejected(ENCODING(1, HIST_MAX_VALUE_US + 1, HIST_MAX_VALUE_US + 1, 0, top, 1));
    /* The top bucket holds one value but two were clamped. */
    assert_rejected(ENCODING(3, 5, HIST_MAX_VALUE_US, 2, 5, 2, top - 6, 1));

    /* A varint in a longer form than needed: 5 as 0x85 0x00. */
    long_form.b[2] = 0x85;
    memmove(&long_form.b[4], &long_form.b[3], long_form.n - 3);
    long_form.b[3] = 0x00;
    long_form.n++;
    assert_rejected(long_form);
    /* A varint of eleven bytes. */
    for (int i = 0; i < 10; i++)
        too_long.b[too_long.n++] = 0x81;
    too_long.b[too_long.n++] = 0x01;
    assert_rejected(too_long);
    /* A min of 5 in ten bytes whose last one carries a bit beyond the 64th,
     * in an encoding that is otherwise valid. */
    too_long = ENCODING(1);
    too_long.b[too_long.n++] = 0x85;
    for (int i = 0; i < 8; i++)
        too_long.b[too_long.n++] = 0x80;
    too_long.b[too_long.n++] = 0x02;
    for (size_t i = 0; i < 4; i++)
        put(&too_long, (const uint64_t[]){5, 0, 5, 1}[i]);
    assert_rejected(too_long);
}

/*
 * A 1 s tick of 20,000 values. Each value opens at most one bucket, and a
 * (gap, count) pair takes 2 bytes while the gap is under 128 buckets and the
 * count under 128 values; gaps add up to fewer than HIST_BUCKETS, so at most
 * 184 of them need a second byte (and one a third), and at most 156 buckets
 * can hold 128 values or more (2 more bytes each). Any 20,000-value histogram
 * thus encodes in under 31 + 2 * 20000 + 186 + 312 bytes, about 40.5 KB, a
 * fifth of HIST_BYTES. A log-normal tick shares many buckets and should need
 * well under half of that bound.
 */
static void encoding_of_a_tick_is_far_smaller_than_the_hist(void **state)
{
    struct hist *h = hist_new();
    size_t n;
    size_t bound = 31 + 2 * 20000 + 186 + 312;

    (void)state;
    fill(&lognormal, 90, NULL, 20000, h);
    n = hist_encode(h, NULL, 0);
    assert_true(bound < HIST_BYTES / 4);
    assert_true(n <= bound / 2);
    hist_free(h);
}

static void bucket_walk_visits_every_value_once_in_order(void **state)
{
    struct hist *h = hist_new();
    size_t cursor = 0;
    uint64_t low, width, n, sum = 0, prev_end = 0;

    (void)state;
    assert_int_equal(hist_next_bucket(h, &cursor, &low, &width, &n), 0);
    hist_record_n(h, 7, 3);
    hist_record(h, 2047);
    hist_record(h, 2048);
    hist_record(h, 123456);
    hist_record(h, HIST_MAX_VALUE_US + 5);
    while (hist_next_bucket(h, &cursor, &low, &width, &n)) {
        assert_true(low >= prev_end);
        assert_true(width >= 1);
        prev_end = low + width;
        sum += n;
    }
    assert_int_equal(sum, hist_count(h));
    cursor = 0;
    assert_int_equal(hist_next_bucket(h, &cursor, &low, &width, &n), 1);
    assert_int_equal(low, 7);
    assert_int_equal(width, 1);
    assert_int_equal(n, 3);
    assert_int_equal(hist_next_bucket(h, &cursor, &low, &width, &n), 1);
    assert_int_equal(low, 2047);
    assert_int_equal(hist_next_bucket(h, &cursor, &low, &width, &n), 1);
    assert_int_equal(low, 2048);
    assert_int_equal(width, 2);
    assert_int_equal(hist_next_bucket(h, &cursor, &low, &width, &n), 1);
    assert_true(low <= 123456 && 123456 < low + width);
    hist_free(h);
}

static void varints_round_trip_and_refuse_what_is_not_shortest(void **state)
{
    static const uint64_t values[] = {0, 1, 127, 128, 16383, 16384, UINT64_MAX};
    unsigned char buf[VARINT_MAX_BYTES],
        bad[][11] = {
            {0x80, 0x00},                                                       /* not shortest */
            {0x80},                                                             /* cut short */
            {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02},       /* over 64 bits */
            {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, /* 11 bytes */
        };
    static const size_t bad_len[] = {2, 1, 10, 11};
    uint64_t v;

    (void)state;
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        size_t n = varint_put(buf, sizeof(buf), 0, values[i]);
        struct varint_reader r = {buf, n, 0};

        assert_true(n >= 1 && n <= VARINT_MAX_BYTES);
        assert_int_equal(varint_get(&r, &v), 0);
        assert_true(v == values[i]);
        assert_int_equal(r.pos, n);
    }
    /* Past cap the bytes are counted, not written. */
    assert_int_equal(varint_put(buf, 0, 0, UINT64_MAX), VARINT_MAX_BYTES);
    for (size_t i = 0; i < sizeof(bad_len) / sizeof(bad_len[0]); i++) {
        struct varint_reader r = {bad[i], bad_len[i], 0};

        assert_int_equal(varint_get(&r, &v), -EINVAL);
    }
}

/* A value rounded to a coarse bucket stays in that bucket, within 1/32 at
 * 16 sub-buckets, exact below 32 µs; rounding twice changes nothing. */
static void coarse_round_keeps_the_bucket_within_its_precision(void **state)
{
    (void)state;
    for (uint64_t v = 0; v < HIST_MAX_VALUE_US; v = v < 100 ? v + 1 : v + v / 7 + 1) {
        uint64_t r = hist_coarse_round(v, 4);
        double err = v ? fabs((double)r - (double)v) / (double)v : 0.0;

        assert_int_equal(hist_coarse_index(r, 4), hist_coarse_index(v, 4));
        assert_true(err <= 1.0 / 32);
        assert_int_equal(hist_coarse_round(r, 4), r);
        if (v < 32)
            assert_int_equal(r, v);
    }
    assert_int_equal(hist_coarse_round(HIST_MAX_VALUE_US + 5, 4), HIST_MAX_VALUE_US + 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(varints_round_trip_and_refuse_what_is_not_shortest),
        cmocka_unit_test(percentiles_of_uniform_values_are_within_a_tenth_of_a_percent),
        cmocka_unit_test(percentiles_of_lognormal_values_are_within_a_tenth_of_a_percent),
        cmocka_unit_test(percentiles_of_bimodal_values_are_within_a_tenth_of_a_percent),
        cmocka_unit_test(count_min_max_mean_and_stddev_match_exact_values),
        cmocka_unit_test(percentile_of_empty_hist_is_zero),
        cmocka_unit_test(values_below_2048_are_exact),
        cmocka_unit_test(percentile_uses_the_nearest_rank_definition),
        cmocka_unit_test(percentile_argument_is_clamped_to_0_and_100),
        cmocka_unit_test(percentile_stays_within_min_and_max),
        cmocka_unit_test(value_zero_is_recorded_exactly),
        cmocka_unit_test(every_octave_edge_is_within_half_a_bucket),
        cmocka_unit_test(values_above_one_hour_are_clamped_and_counted),
        cmocka_unit_test(record_n_equals_n_records),
        cmocka_unit_test(merge_equals_recording_both_streams),
        cmocka_unit_test(merge_with_an_empty_hist_changes_nothing),
        cmocka_unit_test(reset_empties_the_hist_for_reuse),
        cmocka_unit_test(copy_replaces_the_destination),
        cmocka_unit_test(encode_decode_round_trips),
        cmocka_unit_test(empty_hist_encodes_in_a_few_bytes),
        cmocka_unit_test(encode_with_a_small_buffer_returns_the_size_needed),
        cmocka_unit_test(decode_rejects_every_truncation),
        cmocka_unit_test(handmade_encodings_are_read_as_documented),
        cmocka_unit_test(decode_rejects_an_unknown_version),
        cmocka_unit_test(decode_rejects_a_bucket_out_of_range),
        cmocka_unit_test(decode_rejects_trailing_garbage),
        cmocka_unit_test(decode_rejects_a_count_mismatch),
        cmocka_unit_test(decode_rejects_an_inconsistent_header),
        cmocka_unit_test(encoding_of_a_tick_is_far_smaller_than_the_hist),
        cmocka_unit_test(bucket_walk_visits_every_value_once_in_order),
        cmocka_unit_test(coarse_round_keeps_the_bucket_within_its_precision),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
