/* Connection pacing, with connect costs the tests make up: no clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "engine/pace.h"

#define US 1000ULL
#define MS (1000 * US)

/* Begins connects one at a time, each costing cost_ns, as h1 does, until
 * the pass's budget says stop; returns how many it began. */
static uint32_t one_pass(struct pace *p, uint64_t cost_ns, uint32_t want)
{
    uint32_t n = 0;

    pace_new_pass(p);
    while (n < want && pace_left(p) > 0) {
        pace_begun(p, 1);
        pace_took(p, 1, cost_ns);
        n++;
    }
    return n;
}

static void cheap_connects_go_by_the_count(void **state)
{
    struct pace p;

    (void)state;
    pace_init(&p);
    assert_int_equal(pace_left(&p), PACE_PASS_MAX);
    assert_int_equal(one_pass(&p, 5 * US, 100000), PACE_PASS_MAX);
    assert_int_equal(pace_left(&p), 0);
    /* The next pass has its whole budget again. */
    pace_new_pass(&p);
    assert_int_equal(pace_left(&p), PACE_PASS_MAX);
}

static void dear_connects_stop_when_the_pass_has_spent_its_time(void **state)
{
    struct pace p;
    uint32_t n;

    (void)state;
    pace_init(&p);
    /* 5 ms each, as when the ephemeral ports are nearly all taken. */
    n = one_pass(&p, 5 * MS, 100000);
    assert_true(n * 5 * MS >= PACE_PASS_NS);
    assert_true((n - 1) * 5 * MS < PACE_PASS_NS);
    assert_int_equal(pace_left(&p), 0);
}

/* The burst of the issue: 19,000 connects, the last 5,000 at 5 ms each. No
 * pass spends more than its time and one connect more. */
static void a_burst_is_spread_over_passes_that_each_keep_their_time(void **state)
{
    struct pace p;
    uint32_t done = 0, passes = 0;

    (void)state;
    pace_init(&p);
    while (done < 19000) {
        uint64_t cost = done < 14000 ? 40 * US : 5 * MS;
        uint32_t n = one_pass(&p, cost, 19000 - done);

        assert_true(n >= 1);
        assert_true((n - 1) * cost < PACE_PASS_NS);
        done += n;
        passes++;
    }
    assert_true(passes > 19000 / PACE_PASS_MAX);
}

/* libcurl connects inside one call: the count is taken when a transfer is
 * handed over, the time only after. The measured cost sizes the count. */
static void a_measured_cost_sizes_the_count_of_later_passes(void **state)
{
    struct pace p;

    (void)state;
    pace_init(&p);
    pace_begun(&p, 4);
    pace_took(&p, 4, 4 * 2 * MS);
    pace_new_pass(&p);
    assert_int_equal(pace_left(&p), PACE_PASS_NS / (2 * MS));
    /* Dearer than a whole pass: still one, or it would never learn that
     * connects got cheap again. */
    pace_begun(&p, 1);
    pace_took(&p, 1, 50 * MS);
    pace_new_pass(&p);
    assert_int_equal(pace_left(&p), 1);
}

static void the_cost_falls_slowly_and_rises_at_once(void **state)
{
    struct pace p;
    uint32_t left;

    (void)state;
    pace_init(&p);
    pace_begun(&p, 1);
    pace_took(&p, 1, 5 * MS);
    /* One cheap connect does not open the gates... */
    pace_new_pass(&p);
    pace_begun(&p, 1);
    pace_took(&p, 1, 10 * US);
    pace_new_pass(&p);
    left = pace_left(&p);
    assert_true(left < 4);
    /* ...many do. */
    for (int i = 0; i < 100; i++) {
        pace_begun(&p, 1);
        pace_took(&p, 1, 10 * US);
        pace_new_pass(&p);
    }
    assert_int_equal(pace_left(&p), PACE_PASS_MAX);
    /* And one dear one closes them again. */
    pace_begun(&p, 1);
    pace_took(&p, 1, 5 * MS);
    pace_new_pass(&p);
    assert_int_equal(pace_left(&p), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cheap_connects_go_by_the_count),
        cmocka_unit_test(dear_connects_stop_when_the_pass_has_spent_its_time),
        cmocka_unit_test(a_burst_is_spread_over_passes_that_each_keep_their_time),
        cmocka_unit_test(a_measured_cost_sizes_the_count_of_later_passes),
        cmocka_unit_test(the_cost_falls_slowly_and_rises_at_once),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
