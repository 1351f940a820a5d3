/* Merging ticks of one interval from several sources: counts add and
 * histograms merge exactly, kinds and probes by name, events in time order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/hist.h"
#include "core/tick.h"
#include "core/tickmerge.h"

/* A tick of seq with room for histograms; values recorded through put(). */
static struct tick *new_tick(uint64_t seq, const char *transport)
{
    struct tick *t = tick_new(64 * 1024);

    t->seq = seq;
    t->start_us = seq * 1000000;
    t->duration_us = 1000000;
    t->state = RUN_RUNNING;
    tick_copy_text(t->transport, sizeof(t->transport), transport);
    return t;
}

/* Records n values lo, lo + step, ... into k of t (window, histogram and
 * counts), and the same into the total. */
static void put(struct tick *t, struct tick_kind *k, uint64_t lo, uint64_t step, uint64_t n,
                struct hist *union_h)
{
    struct hist *h = hist_new();

    for (uint64_t i = 0; i < n; i++) {
        hist_record(h, lo + i * step);
        if (union_h)
            hist_record(union_h, lo + i * step);
    }
    k->started += n;
    k->completed += n;
    k->ok += n;
    k->bytes_in += 100 * n;
    tick_latency_from_hist(&k->window, h);
    assert_int_equal(tick_put_hist(t, k, h), 0);
    hist_free(h);
}

static void counts_add_and_histograms_merge_exactly(void **state)
{
    struct tick *a = new_tick(3, "h1"), *b = new_tick(3, "h1"), *out;
    struct hist *all = hist_new(), *back = hist_new();
    struct tick_merge *m = tick_merge_new();
    const struct tick *src[2];

    (void)state;
    /* Two agents with different latencies: an average of their p99s would
     * say ~5 ms; the union's p99 is in the slow agent's range. */
    tick_copy_text(a->kinds[0].name, sizeof(a->kinds[0].name), "get");
    a->n_kinds = 1;
    put(a, &a->kinds[0], 1000, 1, 900, NULL);
    put(a, &a->total, 1000, 1, 900, all);
    tick_copy_text(b->kinds[0].name, sizeof(b->kinds[0].name), "get");
    b->n_kinds = 1;
    put(b, &b->kinds[0], 9000, 10, 100, NULL);
    put(b, &b->total, 9000, 10, 100, all);
    a->total.errors[ERR_TIMEOUT] = 2;
    b->total.errors[ERR_TIMEOUT] = 3;
    a->target_concurrency = 10;
    b->target_concurrency = 30;
    a->health.loop_lag_us = 700;
    b->health.loop_lag_us = 90;
    tick_count_status(a, 200, 900);
    tick_count_status(b, 200, 100);
    tick_count_status(b, 503, 7);

    src[0] = a;
    src[1] = b;
    out = tick_merge_next(m, src, 2);
    assert_int_equal(out->seq, 3);
    assert_string_equal(out->transport, "h1");
    assert_int_equal(out->total.completed, 1000);
    assert_int_equal(out->total.bytes_in, 100000);
    assert_int_equal(out->total.errors[ERR_TIMEOUT], 5);
    assert_int_equal(out->target_concurrency, 40);
    assert_int_equal(out->health.loop_lag_us, 700);
    assert_int_equal(out->n_status, 2);
    assert_int_equal(out->status[0].code, 200);
    assert_int_equal(out->status[0].count, 1000);
    assert_int_equal(out->status[1].count, 7);
    assert_int_equal(out->total.window.count, 1000);
    assert_int_equal(out->total.window.pct_us[2], hist_percentile(all, 99.0));
    assert_int_equal(out->total.window.max_us, hist_max(all));
    assert_int_equal(tick_get_hist(out, &out->total, back), 0);
    assert_int_equal(hist_count(back), 1000);
    assert_int_equal(hist_percentile(back, 99.0), hist_percentile(all, 99.0));
    assert_int_equal(out->n_kinds, 1);
    assert_string_equal(out->kinds[0].name, "get");
    assert_int_equal(out->kinds[0].window.pct_us[2], hist_percentile(all, 99.0));
    assert_int_equal(tick_merge_hist_gaps(m), 0);

    tick_free(out);
    tick_free(a);
    tick_free(b);
    hist_free(all);
    hist_free(back);
    tick_merge_free(m);
}

static void run_figures_carry_across_ticks(void **state)
{
    struct tick_merge *m = tick_merge_new();
    struct hist *all = hist_new();

    (void)state;
    for (uint64_t seq = 0; seq < 3; seq++) {
        struct tick *a = new_tick(seq, "curl"), *b = new_tick(seq, "curl"), *out;
        const struct tick *src[2] = {a, b};

        put(a, &a->total, 100 * (seq + 1), 3, 50, all);
        put(b, &b->total, 5000 * (seq + 1), 7, 20, all);
        out = tick_merge_next(m, src, 2);
        assert_int_equal(out->total.window.count, 70);
        assert_int_equal(out->total.run.count, 70 * (seq + 1));
        assert_int_equal(out->total.run.pct_us[1], hist_percentile(all, 90.0));
        assert_int_equal(out->total.run.max_us, hist_max(all));
        tick_free(out);
        tick_free(a);
        tick_free(b);
    }
    hist_free(all);
    tick_merge_free(m);
}

static void kinds_and_probes_meet_by_name(void **state)
{
    struct tick *a = new_tick(0, "h1"), *b = new_tick(0, "curl"), *out;
    struct tick_merge *m = tick_merge_new();
    const struct tick *src[2] = {a, b};

    (void)state;
    tick_copy_text(a->kinds[0].name, sizeof(a->kinds[0].name), "put");
    tick_copy_text(a->kinds[1].name, sizeof(a->kinds[1].name), "get");
    a->n_kinds = 2;
    put(a, &a->kinds[0], 10, 1, 5, NULL);
    put(a, &a->kinds[1], 10, 1, 6, NULL);
    tick_copy_text(b->kinds[0].name, sizeof(b->kinds[0].name), "get");
    tick_copy_text(b->kinds[1].name, sizeof(b->kinds[1].name), "delete");
    b->n_kinds = 2;
    put(b, &b->kinds[0], 10, 1, 7, NULL);
    b->kinds[1].completed = 4; /* timed, but its histogram is missing */
    b->kinds[1].window.count = 4;
    tick_copy_text(a->probes[0].name, sizeof(a->probes[0].name), "siblings");
    a->probes[0].has_value = 1;
    a->probes[0].value = 3;
    a->probes[0].sampled_ms = 500;
    a->n_probes = 1;
    b->probes[0] = a->probes[0];
    b->probes[0].value = 9;
    b->probes[0].sampled_ms = 800;
    tick_copy_text(b->probes[1].name, sizeof(b->probes[1].name), "cpu");
    b->n_probes = 2;
    tick_copy_text(a->first_error[ERR_RESET], TICK_TEXT_MAX, "reset by peer (a)");
    tick_copy_text(b->first_error[ERR_RESET], TICK_TEXT_MAX, "reset by peer (b)");
    tick_copy_text(b->first_error[ERR_DNS], TICK_TEXT_MAX, "no such name");

    out = tick_merge_next(m, src, 2);
    assert_string_equal(out->transport, "mixed");
    assert_int_equal(out->n_kinds, 3);
    assert_string_equal(out->kinds[0].name, "put");
    assert_string_equal(out->kinds[1].name, "get");
    assert_string_equal(out->kinds[2].name, "delete");
    assert_int_equal(out->kinds[1].completed, 13);
    assert_int_equal(out->kinds[1].window.count, 13);
    assert_int_equal(out->kinds[2].completed, 4);
    assert_int_equal(out->kinds[2].window.count, 0);
    assert_int_equal(tick_merge_hist_gaps(m), 1);
    assert_int_equal(out->n_probes, 2);
    assert_string_equal(out->probes[0].name, "siblings");
    assert_true(out->probes[0].value == 9);
    assert_int_equal(out->probes[0].sampled_ms, 800);
    assert_string_equal(out->probes[1].name, "cpu");
    assert_string_equal(out->first_error[ERR_RESET], "reset by peer (a)");
    assert_string_equal(out->first_error[ERR_DNS], "no such name");
    tick_free(out);
    tick_free(a);
    tick_free(b);
    tick_merge_free(m);
}

/* Every agent counts its own checks and counters: they add up, where a
 * probe (or a gauge) shows the latest sample; the longest drain counts,
 * and the request limits of the run's bound add up as their shares. */
static void checks_and_counters_add_up_across_sources(void **state)
{
    struct tick *a = new_tick(0, "h1"), *b = new_tick(0, "h1"), *out;
    struct tick_merge *m = tick_merge_new();
    const struct tick *src[2] = {a, b};
    static const char *const names[3] = {"check:read is 200", "flows", "open"};
    static const enum tick_mark marks[3] = {TICK_MARK_CHECK, TICK_MARK_COUNTER, TICK_MARK_GAUGE};

    (void)state;
    for (int i = 0; i < 3; i++) {
        tick_copy_text(a->probes[i].name, sizeof(a->probes[i].name), names[i]);
        a->probes[i].has_value = 1;
        a->probes[i].mark = marks[i];
        a->probes[i].value = 2 + i;
        a->probes[i].passed = i == 0 ? 40 : 0;
        b->probes[i] = a->probes[i];
        b->probes[i].value = 10 + i;
        b->probes[i].passed = i == 0 ? 7 : 0;
        b->probes[i].sampled_ms = 800;
    }
    a->n_probes = b->n_probes = 3;
    a->drain_us = 300000;
    b->drain_us = 250000;
    a->bound = (struct tick_bound){.end_us = 30000000, .requests = 500, .completed = 120};
    b->bound = (struct tick_bound){.end_us = 30000000, .requests = 500, .completed = 80};
    out = tick_merge_next(m, src, 2);
    assert_int_equal(out->n_probes, 3);
    assert_true(out->probes[0].value == 12);
    assert_int_equal(out->probes[0].passed, 47);
    assert_int_equal(out->probes[0].mark, TICK_MARK_CHECK);
    assert_true(out->probes[1].value == 14);
    assert_true(out->probes[2].value == 12); /* a gauge: the latest sample */
    assert_int_equal(out->drain_us, 300000);
    /* Each agent's share of the requests adds up; the end is common. */
    assert_int_equal(out->bound.end_us, 30000000);
    assert_int_equal(out->bound.requests, 1000);
    assert_int_equal(out->bound.completed, 200);
    tick_free(out);
    tick_free(a);
    tick_free(b);
    tick_merge_free(m);
}

static void events_merge_in_time_order_and_a_full_tick_keeps_the_earliest(void **state)
{
    struct tick *a = new_tick(1, "h1"), *b = new_tick(1, "h1"), *out;
    struct tick_merge *m = tick_merge_new();
    const struct tick *src[2] = {a, b};

    (void)state;
    for (uint64_t i = 0; i < 10; i++) {
        tick_add_event(a, EV_NOTICE, 1000 + 20 * i, "a");
        tick_add_event(b, EV_NOTICE, 1010 + 20 * i, "b");
    }
    b->events_dropped = 2;
    out = tick_merge_next(m, src, 2);
    assert_int_equal(out->n_events, TICK_MAX_EVENTS);
    assert_int_equal(out->events_dropped, 20 - TICK_MAX_EVENTS + 2);
    for (uint32_t i = 0; i < out->n_events; i++) {
        assert_int_equal(out->events[i].at_ms, 1000 + 10 * i);
        assert_string_equal(out->events[i].text, i % 2 ? "b" : "a");
    }
    tick_free(out);
    tick_free(a);
    tick_free(b);
    tick_merge_free(m);
}

static void state_is_done_only_when_every_source_is(void **state)
{
    struct tick *a = new_tick(7, "h1"), *b = new_tick(7, "h1"), *out;
    struct tick_merge *m = tick_merge_new();
    const struct tick *src[2] = {a, b};

    (void)state;
    a->state = RUN_DONE;
    b->state = RUN_STOPPING;
    b->duration_us = 1500000;
    out = tick_merge_next(m, src, 2);
    assert_int_equal(out->state, RUN_STOPPING);
    assert_int_equal(out->duration_us, 1500000);
    tick_free(out);
    b->state = RUN_DONE;
    out = tick_merge_next(m, src, 2);
    assert_int_equal(out->state, RUN_DONE);
    assert_int_equal(out->n_kinds, 0);
    assert_int_equal(out->data_len, 0);
    tick_free(out);
    tick_free(a);
    tick_free(b);
    tick_merge_free(m);
}

static void kinds_past_the_limit_are_counted_not_kept(void **state)
{
    struct tick *a = new_tick(0, "h1"), *b = new_tick(0, "h1"), *out;
    struct tick_merge *m = tick_merge_new();
    const struct tick *src[2] = {a, b};
    char name[TICK_NAME_MAX];

    (void)state;
    for (uint32_t i = 0; i < TICK_MAX_KINDS; i++) {
        snprintf(name, sizeof(name), "a%u", i);
        tick_copy_text(a->kinds[i].name, sizeof(a->kinds[i].name), name);
        snprintf(name, sizeof(name), "b%u", i);
        tick_copy_text(b->kinds[i].name, sizeof(b->kinds[i].name), name);
        b->kinds[i].completed = 1;
    }
    a->n_kinds = b->n_kinds = TICK_MAX_KINDS;
    b->total.completed = TICK_MAX_KINDS;
    out = tick_merge_next(m, src, 2);
    assert_int_equal(out->n_kinds, TICK_MAX_KINDS);
    assert_true(tick_is_bounded(out));
    assert_int_equal(out->total.completed, TICK_MAX_KINDS);
    assert_int_equal(tick_merge_kinds_dropped(m), TICK_MAX_KINDS);
    tick_free(out);
    tick_free(a);
    tick_free(b);
    tick_merge_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_add_and_histograms_merge_exactly),
        cmocka_unit_test(run_figures_carry_across_ticks),
        cmocka_unit_test(kinds_and_probes_meet_by_name),
        cmocka_unit_test(checks_and_counters_add_up_across_sources),
        cmocka_unit_test(events_merge_in_time_order_and_a_full_tick_keeps_the_earliest),
        cmocka_unit_test(state_is_done_only_when_every_source_is),
        cmocka_unit_test(kinds_past_the_limit_are_counted_not_kept),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
