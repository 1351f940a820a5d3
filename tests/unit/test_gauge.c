/* The progress gauge of a bounded run (issue 31): elapsed, total and time
 * left from one tick, for a time bound, a count bound with its estimate,
 * both, and the texts of the headless line and of the header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/gauge.h"
#include "core/tick.h"
#include "core/units.h"

#define S 1000000ULL

/* A 1 s running tick ending at end_s with completed requests in it. */
static struct tick *tick_at(uint64_t end_s, uint64_t completed)
{
    struct tick *t = tick_new(0);

    t->start_us = (end_s - 1) * S;
    t->duration_us = S;
    t->state = RUN_RUNNING;
    t->total.completed = completed;
    return t;
}

static const char *line(const struct tick *t)
{
    static char buf[GAUGE_TEXT_MAX];
    struct gauge g;

    gauge_of_tick(t, &g);
    return gauge_line(&g, buf, sizeof(buf));
}

static const char *brief(const struct tick *t, int detail)
{
    static char buf[GAUGE_TEXT_MAX];
    struct gauge g;

    gauge_of_tick(t, &g);
    return gauge_brief(&g, detail, buf, sizeof(buf));
}

static void spans_are_whole_seconds_brink_parses(void **state)
{
    char buf[GAUGE_TEXT_MAX];
    uint64_t us;

    (void)state;
    assert_string_equal(gauge_fmt_span(0, buf, sizeof(buf)), "0s");
    assert_string_equal(gauge_fmt_span(499999, buf, sizeof(buf)), "0s");
    assert_string_equal(gauge_fmt_span(500000, buf, sizeof(buf)), "1s");
    assert_string_equal(gauge_fmt_span(48 * S, buf, sizeof(buf)), "48s");
    assert_string_equal(gauge_fmt_span(60 * S, buf, sizeof(buf)), "1m00s");
    assert_string_equal(gauge_fmt_span(90 * S, buf, sizeof(buf)), "1m30s");
    assert_string_equal(gauge_fmt_span(65 * S, buf, sizeof(buf)), "1m05s");
    assert_string_equal(gauge_fmt_span(3723 * S, buf, sizeof(buf)), "1h02m");
    assert_int_equal(units_parse_duration("1m05s", &us, NULL, 0), 0);
    assert_int_equal(us, 65 * S);
    assert_int_equal(units_parse_duration("1h02m", &us, NULL, 0), 0);
    assert_int_equal(us, 3720 * S);
}

static void a_run_without_an_end_has_no_gauge(void **state)
{
    struct tick *t = tick_at(12, 100);
    struct gauge g;

    (void)state;
    t->bound.completed = 1200; /* counted, but no bound */
    assert_int_equal(gauge_of_tick(t, &g), 0);
    assert_string_equal(line(t), "");
    assert_string_equal(brief(t, 0), "");
    tick_free(t);
}

static void a_duration_run_shows_elapsed_total_and_left(void **state)
{
    struct tick *t = tick_at(12, 100);

    (void)state;
    t->bound.end_us = 60 * S;
    assert_string_equal(line(t), " 12s/1m00s 20% left 48s");
    assert_string_equal(brief(t, 0), "12s/1m00s 20% left 48s");
    assert_string_equal(brief(t, 1), "20% left 48s");
    assert_string_equal(brief(t, 2), "left 48s");
    /* Elapsed and total are rounded each; left is their difference. */
    t->duration_us = S - 300; /* ends at 11.9997 s */
    assert_string_equal(line(t), " 12s/1m00s 20% left 48s");
    tick_free(t);
}

static void the_last_second_of_a_duration_run_is_all_done(void **state)
{
    struct tick *t = tick_at(3, 100);
    struct gauge g;

    (void)state;
    t->bound.end_us = 3 * S;
    t->duration_us = S - 200; /* 2.9998 s: shown as 3s, so 100% */
    assert_string_equal(line(t), " 3s/3s 100% left 0s");
    gauge_of_tick(t, &g);
    assert_int_equal(gauge_permille(&g), 1000);
    /* Past the end, in the drain: no time left to speak of. */
    t->state = RUN_DONE;
    t->duration_us = S + 40000;
    assert_string_equal(line(t), " 3s/3s 100%");
    assert_string_equal(brief(t, 2), "100%");
    tick_free(t);
}

static void a_count_run_estimates_its_time_left_from_the_tick_rate(void **state)
{
    struct tick *t = tick_at(12, 1000);

    (void)state;
    t->bound.requests = 100000;
    t->bound.completed = 12000;
    /* 88000 left at 1000/s: 88 s. */
    assert_string_equal(line(t), " 12000/100000 req 12% left ~1m28s");
    assert_string_equal(brief(t, 0), "12.0k/100k req 12% left ~1m28s");
    assert_string_equal(brief(t, 1), "12% left ~1m28s");
    assert_string_equal(brief(t, 2), "left ~1m28s");
    /* An estimate is rounded up: it never says 0s while requests are left. */
    t->bound.completed = 99999;
    assert_string_equal(line(t), " 99999/100000 req 99% left ~1s");
    tick_free(t);
}

static void a_count_run_without_a_rate_says_left_unknown(void **state)
{
    struct tick *t = tick_at(1, 0);

    (void)state;
    t->bound.requests = 500;
    assert_string_equal(line(t), " 0/500 req 0% left ?");
    assert_string_equal(brief(t, 2), "left ?");
    tick_free(t);
}

static void a_count_run_reaches_n_of_n(void **state)
{
    struct tick *t = tick_at(4, 4191);
    struct gauge g;

    (void)state;
    t->bound.requests = 50000;
    t->bound.completed = 50000;
    assert_string_equal(line(t), " 50000/50000 req 100% left 0s");
    t->state = RUN_DONE;
    assert_string_equal(line(t), " 50000/50000 req 100%");
    gauge_of_tick(t, &g);
    assert_int_equal(gauge_permille(&g), 1000);
    tick_free(t);
}

static void with_both_bounds_the_line_shows_both_and_the_header_the_sooner(void **state)
{
    struct tick *t = tick_at(2, 180);
    struct gauge g;

    (void)state;
    t->bound.end_us = 10 * S;
    t->bound.requests = 500;
    t->bound.completed = 360;
    /* 140 left at 180/s: under a second; the time has 8 s. */
    assert_string_equal(line(t), " 2s/10s 20% left 8s 360/500 req 72% left ~1s");
    gauge_of_tick(t, &g);
    assert_true(gauge_shows_count(&g));
    assert_string_equal(brief(t, 1), "72% left ~1s");
    assert_int_equal(gauge_permille(&g), 720);
    /* At 10/s the count would take 14 s: the time ends first. */
    t->total.completed = 10;
    gauge_of_tick(t, &g);
    assert_false(gauge_shows_count(&g));
    assert_string_equal(brief(t, 1), "20% left 8s");
    /* Without a rate the time is the only end known. */
    t->total.completed = 0;
    gauge_of_tick(t, &g);
    assert_false(gauge_shows_count(&g));
    tick_free(t);
}

static void details_get_shorter(void **state)
{
    struct tick *t = tick_at(125, 70);
    size_t last = SIZE_MAX;

    (void)state;
    t->bound.end_us = 3600 * S;
    t->bound.requests = 1000000;
    t->bound.completed = 9000;
    for (int d = 0; d < GAUGE_DETAILS; d++) {
        size_t n = strlen(brief(t, d));

        assert_true(n > 0);
        assert_true(n < last);
        last = n;
    }
    tick_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spans_are_whole_seconds_brink_parses),
        cmocka_unit_test(a_run_without_an_end_has_no_gauge),
        cmocka_unit_test(a_duration_run_shows_elapsed_total_and_left),
        cmocka_unit_test(the_last_second_of_a_duration_run_is_all_done),
        cmocka_unit_test(a_count_run_estimates_its_time_left_from_the_tick_rate),
        cmocka_unit_test(a_count_run_without_a_rate_says_left_unknown),
        cmocka_unit_test(a_count_run_reaches_n_of_n),
        cmocka_unit_test(with_both_bounds_the_line_shows_both_and_the_header_the_sooner),
        cmocka_unit_test(details_get_shorter),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
