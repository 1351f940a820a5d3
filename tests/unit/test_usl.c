/*
 * The Universal Scalability Law fit (core/usl.h) on synthetic staircases:
 * exact curves, curves with noise, Amdahl's and linear ones, and the
 * staircases it must refuse.
 */
#include "core/usl.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#define WHY_MAX 256

static const double levels[] = {1, 2, 4, 8, 16, 24, 32, 48, 64};
#define N_LEVELS (sizeof(levels) / sizeof(levels[0]))

static double law(double lambda, double sigma, double kappa, double n)
{
    return lambda * n / (1 + sigma * (n - 1) + kappa * n * (n - 1));
}

/* Noise of amplitude amp (a share, e.g. 0.02), the same every run: a
 * fixed pseudo-random sequence in [-amp, amp]. */
static double noise(uint32_t *state, double amp)
{
    *state = *state * 1664525u + 1013904223u;
    return amp * (2.0 * (double)(*state >> 8) / (double)(1u << 24) - 1.0);
}

static void staircase(struct usl_point *p, double lambda, double sigma, double kappa, double amp,
                      uint32_t seed)
{
    for (size_t i = 0; i < N_LEVELS; i++) {
        p[i].users = levels[i];
        p[i].throughput = law(lambda, sigma, kappa, levels[i]) * (1 + noise(&seed, amp));
        p[i].failed = 0;
    }
}

static void within(double got, double want, double share)
{
    if (fabs(got - want) > share * fabs(want))
        fail_msg("%g is not within %g%% of %g", got, share * 100, want);
}

static void exact_curve_recovered(void **state)
{
    struct usl_point p[N_LEVELS];
    struct usl_fit f;
    char why[WHY_MAX] = "";

    (void)state;
    staircase(p, 200, 0.05, 0.001, 0, 1);
    assert_int_equal(usl_fit(p, N_LEVELS, &f, why, sizeof(why)), 0);
    within(f.lambda, 200, 1e-4);
    within(f.sigma, 0.05, 1e-3);
    within(f.kappa, 0.001, 1e-3);
    assert_true(f.r2 > 0.99999);
    assert_int_equal(f.steps, N_LEVELS);
    assert_true(f.has_peak);
    assert_false(f.has_ceiling);
    within(f.peak_users, sqrt(0.95 / 0.001), 1e-3);
    within(f.peak_throughput, law(200, 0.05, 0.001, sqrt(0.95 / 0.001)), 1e-4);
}

/* 3% noise, several sequences: sigma and kappa within 20%, N* within 10%. */
static void noisy_curve_within_bounds(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 20; seed++) {
        struct usl_point p[N_LEVELS];
        struct usl_fit f;
        char why[WHY_MAX];

        staircase(p, 200, 0.05, 0.001, 0.03, seed);
        assert_int_equal(usl_fit(p, N_LEVELS, &f, why, sizeof(why)), 0);
        within(f.sigma, 0.05, 0.2);
        within(f.kappa, 0.001, 0.2);
        assert_true(f.has_peak);
        within(f.peak_users, sqrt(0.95 / 0.001), 0.1);
        assert_true(f.r2 > 0.95);
    }
}

/* kappa 0 with noise: the fit says no peak, and the ceiling lambda/sigma. */
static void amdahl_has_no_peak(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 20; seed++) {
        struct usl_point p[N_LEVELS];
        struct usl_fit f;
        char why[WHY_MAX], text[USL_TEXT_MAX];

        staircase(p, 200, 0.05, 0, 0.02, seed);
        assert_int_equal(usl_fit(p, N_LEVELS, &f, why, sizeof(why)), 0);
        assert_false(f.has_peak);
        assert_true(f.kappa == 0);
        assert_true(f.has_ceiling);
        within(f.sigma, 0.05, 0.2);
        within(f.ceiling, 200 / 0.05, 0.2);
        assert_non_null(strstr(usl_format(&f, text, sizeof(text)), "no peak (kappa 0): ceiling"));
    }
}

static void linear_has_no_ceiling(void **state)
{
    struct usl_point p[N_LEVELS];
    struct usl_fit f;
    char why[WHY_MAX], text[USL_TEXT_MAX];

    (void)state;
    staircase(p, 100, 0, 0, 0.01, 7);
    assert_int_equal(usl_fit(p, N_LEVELS, &f, why, sizeof(why)), 0);
    assert_true(f.sigma == 0 && f.kappa == 0);
    assert_false(f.has_peak);
    assert_false(f.has_ceiling);
    within(f.lambda, 100, 0.02);
    assert_non_null(strstr(usl_format(&f, text, sizeof(text)), ": linear, no ceiling"));
}

/* A steep retrograde curve (the target past its peak): kappa dominates. */
static void retrograde_curve(void **state)
{
    struct usl_point p[N_LEVELS];
    struct usl_fit f;
    char why[WHY_MAX], text[USL_TEXT_MAX];

    (void)state;
    staircase(p, 50, 0.2, 0.02, 0.02, 3);
    assert_int_equal(usl_fit(p, N_LEVELS, &f, why, sizeof(why)), 0);
    within(f.sigma, 0.2, 0.2);
    within(f.kappa, 0.02, 0.2);
    assert_true(f.peak_users > 5 && f.peak_users < 7.5);
    usl_format(&f, text, sizeof(text));
    assert_memory_equal(text, "USL fit: sigma 0.", 17);
    assert_non_null(strstr(text, "steps): peak c=6 at "));
}

/* One step 30% low (a pause during it): left out, the rest fits the law;
 * kept in, it would pull sigma and kappa off. */
static void a_step_far_off_the_law_is_left_out(void **state)
{
    struct usl_point p[N_LEVELS];
    struct usl_fit f;
    char why[WHY_MAX], text[USL_TEXT_MAX];

    (void)state;
    staircase(p, 50, 0.05, 0.001, 0.02, 5);
    p[6].throughput *= 0.7; /* c=32 */
    assert_int_equal(usl_fit(p, N_LEVELS, &f, why, sizeof(why)), 0);
    assert_true(f.left_out);
    assert_true(f.left_out_users == 32);
    assert_int_equal(f.steps, N_LEVELS - 1);
    within(f.sigma, 0.05, 0.2);
    within(f.kappa, 0.001, 0.2);
    assert_true(f.r2 > 0.99);
    assert_non_null(strstr(usl_format(&f, text, sizeof(text)), ", 8 steps, c=32 out): peak c=3"));
    /* Steps that follow it leave none out. */
    staircase(p, 50, 0.05, 0.001, 0.03, 5);
    assert_int_equal(usl_fit(p, N_LEVELS, &f, why, sizeof(why)), 0);
    assert_false(f.left_out);
    assert_int_equal(f.steps, N_LEVELS);
}

static void refused(const struct usl_point *p, size_t n, const char *want_why)
{
    struct usl_fit f;
    char why[WHY_MAX] = "";

    memset(&f, 0x5a, sizeof(f));
    assert_int_equal(usl_fit(p, n, &f, why, sizeof(why)), -1);
    assert_string_equal(why, want_why);
}

static void too_few_levels_refused(void **state)
{
    struct usl_point p[N_LEVELS];

    (void)state;
    staircase(p, 200, 0.05, 0.001, 0, 1);
    refused(p, 3,
            "3 levels with successes: the fit needs 4 levels, from 1 user up to well past "
            "the knee");
    /* The same level twice is one level. */
    p[3].users = 4;
    refused(p, 4,
            "3 levels with successes: the fit needs 4 levels, from 1 user up to well past "
            "the knee");
    refused(p, 0,
            "0 levels with successes: the fit needs 4 levels, from 1 user up to well past "
            "the knee");
}

/* Steps with no successes (or nonsense figures) are not levels. */
static void empty_steps_left_out(void **state)
{
    struct usl_point p[N_LEVELS];
    struct usl_fit f;
    char why[WHY_MAX];

    (void)state;
    staircase(p, 200, 0.05, 0.001, 0, 1);
    p[2].throughput = 0;
    p[3].throughput = NAN;
    p[4].users = 0;
    assert_int_equal(usl_fit(p, N_LEVELS, &f, why, sizeof(why)), 0);
    assert_int_equal(f.steps, N_LEVELS - 3);
    within(f.kappa, 0.001, 1e-3);
    for (size_t i = 2; i < N_LEVELS; i++)
        p[i].throughput = 0;
    refused(p, N_LEVELS,
            "2 levels with successes: the fit needs 4 levels, from 1 user up to well "
            "past the knee");
}

static void failed_only_refused(void **state)
{
    struct usl_point p[N_LEVELS];
    struct usl_fit f;
    char why[WHY_MAX];

    (void)state;
    staircase(p, 200, 0.05, 0.001, 0, 1);
    for (size_t i = 0; i < N_LEVELS; i++)
        p[i].failed = 1;
    refused(p, N_LEVELS, "only failed steps (9): the fit needs steps that passed");
    /* One that passed is enough: failed steps' successes are throughput. */
    p[0].failed = 0;
    assert_int_equal(usl_fit(p, N_LEVELS, &f, why, sizeof(why)), 0);
}

static void no_spread_refused(void **state)
{
    struct usl_point p[4];

    (void)state;
    for (size_t i = 0; i < 4; i++) {
        p[i].users = 100 + (double)i * 10;
        p[i].throughput = law(200, 0.05, 0.001, p[i].users);
        p[i].failed = 0;
    }
    refused(p, 4,
            "no spread: levels c=100 to c=130, the fit needs the highest at least twice the "
            "lowest");
}

static void throughput_of_the_fit(void **state)
{
    struct usl_fit f = {.lambda = 100, .sigma = 0.1, .kappa = 0.01};

    (void)state;
    within(usl_throughput(&f, 1), 100, 1e-12);
    within(usl_throughput(&f, 10), 1000 / (1 + 0.9 + 0.9), 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_curve_recovered),
        cmocka_unit_test(noisy_curve_within_bounds),
        cmocka_unit_test(amdahl_has_no_peak),
        cmocka_unit_test(linear_has_no_ceiling),
        cmocka_unit_test(retrograde_curve),
        cmocka_unit_test(too_few_levels_refused),
        cmocka_unit_test(empty_steps_left_out),
        cmocka_unit_test(failed_only_refused),
        cmocka_unit_test(no_spread_refused),
        cmocka_unit_test(throughput_of_the_fit),
        cmocka_unit_test(a_step_far_off_the_law_is_left_out),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
