/* Ticks: one allocation holding counts, events, statuses and histograms. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/hist.h"
#include "core/tick.h"

static void new_tick_is_zeroed_and_names_its_total(void **state)
{
    struct tick *t = tick_new(128);

    (void)state;
    assert_int_equal(t->data_cap, 128);
    assert_int_equal(t->data_len, 0);
    assert_int_equal(t->n_events, 0);
    assert_int_equal(t->total.completed, 0);
    assert_string_equal(t->total.name, "total");
    tick_free(t);
    tick_free(NULL);
}

static void histogram_survives_the_trip_through_a_tick(void **state)
{
    struct hist *h = hist_new(), *back = hist_new();
    struct tick *t;

    (void)state;
    for (uint64_t v = 1; v <= 5000; v++)
        hist_record(h, v * 37);
    t = tick_new(hist_encode(h, NULL, 0) + hist_encode(h, NULL, 0));
    assert_int_equal(tick_put_hist(t, &t->total, h), 0);
    assert_int_equal(tick_put_hist(t, &t->kinds[0], h), 0);
    assert_int_equal(t->kinds[0].hist_offset, t->total.hist_len);
    assert_int_equal(tick_get_hist(t, &t->kinds[0], back), 0);
    assert_int_equal(hist_count(back), 5000);
    assert_int_equal(hist_max(back), 5000 * 37);
    assert_int_equal(hist_percentile(back, 99.0), hist_percentile(h, 99.0));
    hist_free(h);
    hist_free(back);
    tick_free(t);
}

static void histogram_that_does_not_fit_is_refused_not_cut(void **state)
{
    struct hist *h = hist_new(), *back = hist_new();
    struct tick *t = tick_new(4);

    (void)state;
    for (uint64_t v = 1; v <= 1000; v++)
        hist_record(h, v * 1000);
    assert_int_equal(tick_put_hist(t, &t->total, h), -ENOSPC);
    assert_int_equal(t->data_len, 0);
    assert_int_equal(tick_get_hist(t, &t->total, back), -ENOENT);
    hist_free(h);
    hist_free(back);
    tick_free(t);
}

static void damaged_histogram_reference_is_reported(void **state)
{
    struct hist *h = hist_new();
    struct tick *t = tick_new(16);

    (void)state;
    t->total.hist_offset = 10;
    t->total.hist_len = 100;
    assert_int_equal(tick_get_hist(t, &t->total, h), -EINVAL);
    hist_free(h);
    tick_free(t);
}

static void latency_figures_come_from_the_histogram(void **state)
{
    struct hist *h = hist_new();
    struct tick_latency lat;

    (void)state;
    tick_latency_from_hist(&lat, h);
    assert_int_equal(lat.count, 0);
    assert_int_equal(lat.pct_us[0], 0);
    for (uint64_t v = 1; v <= 1000; v++)
        hist_record(h, v);
    tick_latency_from_hist(&lat, h);
    assert_int_equal(lat.count, 1000);
    assert_int_equal(lat.min_us, 1);
    assert_int_equal(lat.max_us, 1000);
    assert_int_equal(lat.pct_us[0], 500); /* p50 */
    assert_int_equal(lat.pct_us[1], 900); /* p90 */
    assert_int_equal(lat.pct_us[2], 990); /* p99 */
    assert_int_equal(lat.pct_us[3], 999); /* p99.9 */
    hist_free(h);
}

static void statuses_are_summed_per_code_and_overflow_is_kept(void **state)
{
    struct tick *t = tick_new(0);

    (void)state;
    tick_count_status(t, 200, 5);
    tick_count_status(t, 503, 1);
    tick_count_status(t, 200, 2);
    assert_int_equal(t->n_status, 2);
    assert_int_equal(t->status[0].code, 200);
    assert_int_equal(t->status[0].count, 7);
    for (uint16_t c = 300; c < 300 + TICK_MAX_STATUS; c++)
        tick_count_status(t, c, 1);
    assert_int_equal(t->n_status, TICK_MAX_STATUS);
    assert_int_equal(t->status_other, 2);
    tick_free(t);
}

static void events_beyond_the_table_are_counted_as_dropped(void **state)
{
    struct tick *t = tick_new(0);

    (void)state;
    for (int i = 0; i < TICK_MAX_EVENTS + 3; i++)
        tick_add_event(t, EV_MARK, (uint64_t)i, "mark");
    assert_int_equal(t->n_events, TICK_MAX_EVENTS);
    assert_int_equal(t->events_dropped, 3);
    assert_int_equal(t->events[2].at_ms, 2);
    assert_string_equal(t->events[2].text, "mark");
    tick_free(t);
}

static void long_text_is_cut_at_a_character_boundary(void **state)
{
    char src[TICK_TEXT_MAX + 8];
    char dst[8];

    (void)state;
    /* "abcd" then a 3-byte character straddling the 7-byte limit. */
    assert_int_equal(tick_copy_text(dst, sizeof(dst), "abcde\xe2\x82\xac"), 5);
    assert_string_equal(dst, "abcde");
    memset(src, 'x', sizeof(src) - 1);
    src[sizeof(src) - 1] = '\0';
    assert_int_equal(tick_copy_text(dst, sizeof(dst), src), 7);
    assert_int_equal(tick_copy_text(dst, 0, src), 0);
}

static void state_names_are_stable(void **state)
{
    (void)state;
    assert_string_equal(run_state_name(RUN_PAUSED), "paused");
    assert_string_equal(event_kind_name(EV_FIRST_ERROR), "first_error");
    assert_string_equal(probe_state_name(PROBE_FAILING), "failing");
    assert_string_equal(load_model_name(LOAD_OPEN), "open");
    assert_string_equal(run_state_name((enum run_state)99), "?");
    assert_string_equal(event_kind_name(EV__COUNT), "?");
}

struct named_row {
    char name[TICK_NAME_MAX];
    int payload;
};

static void name_rows_are_found_or_added_until_the_table_is_full(void **state)
{
    struct named_row rows[3];
    uint32_t n = 0;
    char longest[TICK_NAME_MAX + 10];

    (void)state;
    memset(longest, 'x', sizeof(longest) - 1);
    longest[sizeof(longest) - 1] = '\0';
    assert_int_equal(tick_name_row(rows, sizeof(rows[0]), &n, 3, "get"), 0);
    rows[0].payload = 7;
    assert_int_equal(tick_name_row(rows, sizeof(rows[0]), &n, 3, "put"), 1);
    assert_int_equal(rows[1].payload, 0); /* a new row is zeroed */
    assert_int_equal(tick_name_row(rows, sizeof(rows[0]), &n, 3, "get"), 0);
    assert_int_equal(rows[0].payload, 7);
    /* A name cut to the array still matches itself next time. */
    assert_int_equal(tick_name_row(rows, sizeof(rows[0]), &n, 3, longest), 2);
    assert_int_equal(tick_name_row(rows, sizeof(rows[0]), &n, 3, longest), 2);
    assert_int_equal(tick_name_row(rows, sizeof(rows[0]), &n, 3, "delete"), -1);
    assert_int_equal(n, 3);
}

static void names_read_back_as_their_values(void **state)
{
    (void)state;
    for (int s = RUN_STARTING; s <= RUN_DONE; s++)
        assert_int_equal(run_state_from_name(run_state_name(s)), s);
    for (int k = 0; k < EV__COUNT; k++)
        assert_int_equal(event_kind_from_name(event_kind_name(k)), k);
    for (int p = PROBE_PENDING; p <= PROBE_FAILING; p++)
        assert_int_equal(probe_state_from_name(probe_state_name(p)), p);
    assert_int_equal(load_model_from_name("closed"), LOAD_CLOSED);
    assert_int_equal(load_model_from_name("open"), LOAD_OPEN);
    assert_int_equal(run_state_from_name("?"), -1);
    assert_int_equal(event_kind_from_name("Mark"), -1);
    assert_int_equal(probe_state_from_name(""), -1);
    assert_int_equal(load_model_from_name("half-open"), -1);
}

static void a_tick_within_its_arrays_is_bounded_and_one_past_is_not(void **state)
{
    struct tick *t = tick_new(0);

    (void)state;
    assert_true(tick_is_bounded(t));
    t->n_kinds = TICK_MAX_KINDS;
    t->n_status = TICK_MAX_STATUS;
    t->n_probes = TICK_MAX_PROBES;
    t->n_events = TICK_MAX_EVENTS;
    assert_true(tick_is_bounded(t));
    t->n_events = TICK_MAX_EVENTS + 1;
    assert_false(tick_is_bounded(t));
    t->n_events = 0;
    t->n_kinds = TICK_MAX_KINDS + 1;
    assert_false(tick_is_bounded(t));
    tick_free(t);
}

/* A probe on agents: SERIES@AGENT, the agent's name made plain, cut and
 * said when too long; a rule on the probe names all its agents' series. */
static void agent_series_are_named_for_their_agent(void **state)
{
    char out[TICK_NAME_MAX], longer[TICK_NAME_MAX + 8];

    (void)state;
    assert_int_equal(tick_agent_series("cpu", "load2", out), 0);
    assert_string_equal(out, "cpu@load2");
    assert_int_equal(tick_agent_series("st/a", "[::1]:2222", out), 0);
    assert_string_equal(out, "st/a@___1__2222");
    assert_int_equal(tick_agent_series("cpu", "u@10.0.0.5\x1b", out), 0);
    assert_string_equal(out, "cpu@u_10.0.0.5_");
    memset(longer, 'h', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = '\0';
    assert_int_equal(tick_agent_series("cpu", longer, out), -ENAMETOOLONG);
    assert_int_equal(strlen(out), TICK_NAME_MAX - 1);
    memset(longer, 'h', TICK_NAME_MAX - 5);
    longer[TICK_NAME_MAX - 5] = '\0';
    assert_int_equal(tick_agent_series("cpu", longer, out), 0); /* 63 bytes */
    assert_int_equal(strlen(out), TICK_NAME_MAX - 1);
    assert_true(tick_series_is("cpu", "cpu"));
    assert_true(tick_series_is("cpu@load2", "cpu"));
    assert_false(tick_series_is("cpu2@load2", "cpu"));
    assert_false(tick_series_is("cp", "cpu"));
    assert_false(tick_series_is("cpu/x", "cpu"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(name_rows_are_found_or_added_until_the_table_is_full),
        cmocka_unit_test(agent_series_are_named_for_their_agent),
        cmocka_unit_test(new_tick_is_zeroed_and_names_its_total),
        cmocka_unit_test(histogram_survives_the_trip_through_a_tick),
        cmocka_unit_test(histogram_that_does_not_fit_is_refused_not_cut),
        cmocka_unit_test(damaged_histogram_reference_is_reported),
        cmocka_unit_test(latency_figures_come_from_the_histogram),
        cmocka_unit_test(statuses_are_summed_per_code_and_overflow_is_kept),
        cmocka_unit_test(events_beyond_the_table_are_counted_as_dropped),
        cmocka_unit_test(long_text_is_cut_at_a_character_boundary),
        cmocka_unit_test(state_names_are_stable),
        cmocka_unit_test(names_read_back_as_their_values),
        cmocka_unit_test(a_tick_within_its_arrays_is_bounded_and_one_past_is_not),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
