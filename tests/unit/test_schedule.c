/* The open model's schedule, on a clock the tests move by hand: no sleeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "engine/schedule.h"

#define MS 1000000ULL
#define S (1000 * MS)

static void steady_rate_spaces_intended_starts_evenly(void **state)
{
    struct schedule s;

    (void)state;
    schedule_start(&s, 1000, 5 * S);
    assert_int_equal(schedule_due(&s, 5 * S - 1), 0);
    assert_int_equal(schedule_due(&s, 5 * S), 1);
    assert_int_equal(schedule_due(&s, 5 * S + MS - 1), 1);
    assert_int_equal(schedule_due(&s, 5 * S + MS), 2);
    for (uint64_t i = 0; i < 1000; i++)
        assert_int_equal(schedule_take(&s), 5 * S + i * MS);
    assert_int_equal(schedule_next_ns(&s), 6 * S);
    assert_int_equal(schedule_lag_ns(&s, 6 * S), 0);
}

static void a_rate_change_mid_run_keeps_due_arrivals_then_follows_the_new_rate(void **state)
{
    struct schedule s;

    (void)state;
    schedule_start(&s, 100, 0); /* due at 0, 10, 20, 30 ms ... */
    assert_int_equal(schedule_due(&s, 25 * MS), 3);
    assert_int_equal(schedule_take(&s), 0);
    /* Faster at 25 ms: 10 and 20 ms are still owed with their own times;
     * the new stream starts one new period on, not at the old 30 ms. */
    schedule_set_rate(&s, 1000, 25 * MS);
    assert_int_equal(schedule_due(&s, 25 * MS), 2);
    assert_int_equal(schedule_due(&s, 27 * MS), 4);
    assert_int_equal(schedule_take(&s), 10 * MS);
    assert_int_equal(schedule_take(&s), 20 * MS);
    assert_int_equal(schedule_take(&s), 26 * MS);
    assert_int_equal(schedule_take(&s), 27 * MS);
    /* Slower at 27.5 ms, nothing owed: the next arrival keeps its place
     * (28 ms), then 10 per second. */
    schedule_set_rate(&s, 10, 27 * MS + MS / 2);
    assert_int_equal(schedule_next_ns(&s), 28 * MS);
    assert_int_equal(schedule_take(&s), 28 * MS);
    assert_int_equal(schedule_next_ns(&s), 128 * MS);
}

static void catch_up_after_a_stall_sends_the_backlog_with_its_intended_times(void **state)
{
    struct schedule s;

    (void)state;
    schedule_start(&s, 100, 0);
    /* Nothing could start for one second: 101 arrivals (0 to 1000 ms) are
     * owed, the oldest one second late. */
    assert_int_equal(schedule_due(&s, S), 101);
    assert_int_equal(schedule_lag_ns(&s, S), S);
    for (uint64_t i = 0; i <= 100; i++)
        assert_int_equal(schedule_take(&s), i * 10 * MS);
    assert_int_equal(schedule_due(&s, S), 0);
    assert_int_equal(schedule_lag_ns(&s, S), 0);
    assert_int_equal(schedule_next_ns(&s), S + 10 * MS);
}

static void rate_changes_during_a_stall_keep_the_count_owed(void **state)
{
    struct schedule s;

    (void)state;
    schedule_start(&s, 100, 0);
    schedule_set_rate(&s, 200, 95 * MS); /* 10 owed: 0..90 ms */
    schedule_set_rate(&s, 50, 200 * MS); /* and 21 more: 100..200 ms at 5 ms */
    assert_int_equal(schedule_due(&s, 200 * MS), 31);
    assert_int_equal(schedule_lag_ns(&s, 200 * MS), 200 * MS);
    /* Merged into one count: the first and the last keep their times. */
    assert_int_equal(schedule_take(&s), 0);
    for (int i = 1; i < 30; i++)
        schedule_take(&s);
    assert_int_equal(schedule_take(&s), 200 * MS);
    assert_int_equal(schedule_due(&s, 200 * MS), 0);
    assert_int_equal(schedule_next_ns(&s), 205 * MS);
}

static void the_in_flight_cap_holds_arrivals_back_and_says_so(void **state)
{
    struct schedule s;
    uint32_t in_flight = 0;
    int is_capped = 0;

    (void)state;
    schedule_start(&s, 1000, 0);
    /* No reply comes back for 10 ms: 4 start, the other 7 wait. */
    for (uint64_t now = 0; now <= 10 * MS; now += MS) {
        uint64_t n = schedule_may_start(&s, now, in_flight, 4, &is_capped);

        assert_int_equal(is_capped, now >= 4 * MS);
        for (uint64_t i = 0; i < n; i++, in_flight++)
            schedule_take(&s);
    }
    assert_int_equal(in_flight, 4);
    assert_int_equal(schedule_due(&s, 10 * MS), 7);
    assert_int_equal(schedule_lag_ns(&s, 10 * MS), 6 * MS);
    /* Two replies free two places: the two oldest owed go, late. */
    is_capped = 0;
    in_flight -= 2;
    assert_int_equal(schedule_may_start(&s, 10 * MS, in_flight, 4, &is_capped), 2);
    assert_int_equal(is_capped, 1);
    assert_int_equal(schedule_take(&s), 4 * MS);
    assert_int_equal(schedule_take(&s), 5 * MS);
}

static void rate_zero_schedules_nothing_until_a_rate_is_set(void **state)
{
    struct schedule s;

    (void)state;
    schedule_start(&s, 0, 0);
    assert_int_equal(schedule_next_ns(&s), SCHEDULE_NONE);
    assert_int_equal(schedule_due(&s, 100 * S), 0);
    assert_int_equal(schedule_lag_ns(&s, 100 * S), 0);
    schedule_set_rate(&s, 10, 100 * S);
    assert_int_equal(schedule_next_ns(&s), 100 * S + 100 * MS);
    /* And down to 0 again: what is owed stays owed. */
    schedule_set_rate(&s, 0, 100 * S + 250 * MS);
    assert_int_equal(schedule_due(&s, 200 * S), 2);
    schedule_take(&s);
    schedule_take(&s);
    assert_int_equal(schedule_next_ns(&s), SCHEDULE_NONE);
}

static void a_long_run_keeps_exact_times_without_drift(void **state)
{
    struct schedule s;

    (void)state;
    schedule_start(&s, 3, 0); /* a period of 333333333.3 ns */
    assert_int_equal(schedule_due(&s, 3600 * S), 3 * 3600 + 1);
    for (int i = 0; i < 3 * 3600; i++)
        schedule_take(&s);
    assert_int_equal(schedule_take(&s), 3600 * S);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(steady_rate_spaces_intended_starts_evenly),
        cmocka_unit_test(a_rate_change_mid_run_keeps_due_arrivals_then_follows_the_new_rate),
        cmocka_unit_test(catch_up_after_a_stall_sends_the_backlog_with_its_intended_times),
        cmocka_unit_test(rate_changes_during_a_stall_keep_the_count_owed),
        cmocka_unit_test(the_in_flight_cap_holds_arrivals_back_and_says_so),
        cmocka_unit_test(rate_zero_schedules_nothing_until_a_rate_is_set),
        cmocka_unit_test(a_long_run_keeps_exact_times_without_drift),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
