/* The merger: the open model's send lags of several workers become one
 * tick's figures, interval by interval and over the run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config/config.h"
#include "core/chan.h"
#include "core/hist.h"
#include "core/tick.h"
#include "engine/internal.h"
#include "engine/workload.h"

#define TICK_NS 1000000000ULL
#define ERR_MAX 512

/* A workload of one kind, as a run against one URL has. */
static struct workload *one_kind(void)
{
    struct config c;
    struct workload *wl = NULL;
    char err[ERR_MAX] = "";

    config_init(&c);
    assert_int_equal(
        config_load_string(&c, "t.ini", "[target]\nurl = http://h.test/\n", NULL, stderr), 0);
    assert_int_equal(workload_new(&c, 1, err, sizeof(err), &wl), 0);
    config_free(&c);
    return wl;
}

/* An empty interval of one kind: the seq-th of a run, one tick long. */
static void interval_at(struct interval *iv, uint64_t seq)
{
    engine__interval_init(iv, 1);
    iv->seq = seq;
    iv->start_ns = seq * TICK_NS;
    iv->end_ns = (seq + 1) * TICK_NS;
}

/* Worker w's interval seq of an open run: n requests sent from the schedule
 * with send lags from_us, from_us + 1, ..., and completed in 1 ms each. */
static void submit_open(struct merger *m, uint32_t w, uint64_t seq, uint64_t from_us, uint64_t n,
                        int is_final)
{
    struct interval iv;

    interval_at(&iv, seq);
    for (uint64_t i = 0; i < n; i++) {
        hist_record(iv.send_lag, from_us + i);
        hist_record(iv.service, 1000);
        hist_record(iv.total.hist, 1000 + from_us + i);
    }
    iv.total.started = iv.total.completed = iv.total.ok = n;
    iv.kinds[0].started = iv.kinds[0].completed = iv.kinds[0].ok = n;
    hist_merge(iv.kinds[0].hist, iv.total.hist);
    iv.sched_taken = iv.sched_called = n;
    iv.service_completed = n;
    engine__merger_submit(m, w, &iv, is_final);
    engine__interval_free(&iv);
}

static void send_lags_of_two_workers_merge_into_one_tick_and_the_run(void **state)
{
    struct workload *wl = one_kind();
    struct chan *ch = chan_new(8, 8);
    struct merger *m = engine__merger_new(2, wl, NULL, ch, TICK_NS);
    struct hist *h = hist_new();
    struct tick *t;

    (void)state;
    engine__merger_set_load(m, LOAD_OPEN, 200, 10);
    submit_open(m, 0, 0, 0, 50, 0);
    submit_open(m, 1, 0, 50, 50, 0);
    submit_open(m, 0, 1, 200, 10, 1);
    submit_open(m, 1, 1, 300, 10, 1);

    t = chan_take(ch);
    assert_non_null(t);
    assert_string_equal(t->send_lag.name, "send_lag");
    /* One lag per request sent: 0 .. 99 us over both workers. */
    assert_int_equal(t->send_lag.started, 100);
    assert_int_equal(t->send_lag.completed, 100);
    assert_int_equal(t->send_lag.window.count, t->service.started);
    assert_int_equal(t->send_lag.window.min_us, 0);
    assert_int_equal(t->send_lag.window.max_us, 99);
    assert_int_equal(t->send_lag.window.pct_us[0], 49);
    assert_int_equal(t->send_lag.window.pct_us[2], 98);
    assert_int_equal(tick_get_hist(t, &t->send_lag, h), 0);
    assert_int_equal(hist_count(h), 100);
    tick_free(t);

    t = chan_take(ch);
    assert_non_null(t);
    assert_int_equal(t->send_lag.completed, 20);
    assert_int_equal(t->send_lag.window.min_us, 200);
    assert_int_equal(t->send_lag.window.max_us, 309);
    assert_true(t->send_lag.window.pct_us[2] <= t->send_lag.window.max_us);
    /* The run's figures cover both intervals. */
    assert_int_equal(t->send_lag.run.count, 120);
    assert_int_equal(t->send_lag.run.min_us, 0);
    assert_int_equal(t->send_lag.run.max_us, 309);
    assert_int_equal(tick_get_hist(t, &t->send_lag, h), 0);
    assert_int_equal(hist_count(h), 20);
    tick_free(t);
    assert_true(chan_is_done(ch));

    hist_free(h);
    engine__merger_free(m);
    chan_free(ch);
    workload_free(wl);
}

/* A closed interval sends nothing from a schedule: no lag, no histogram. */
static void a_closed_interval_has_no_send_lag(void **state)
{
    struct workload *wl = one_kind();
    struct chan *ch = chan_new(8, 8);
    struct merger *m = engine__merger_new(1, wl, NULL, ch, TICK_NS);
    struct interval iv;
    struct tick *t;

    (void)state;
    engine__interval_init(&iv, 1);
    iv.end_ns = TICK_NS;
    hist_record(iv.total.hist, 700);
    iv.total.started = iv.total.completed = iv.total.ok = 1;
    engine__merger_submit(m, 0, &iv, 1);
    engine__interval_free(&iv);
    t = chan_take(ch);
    assert_non_null(t);
    assert_int_equal(t->send_lag.completed, 0);
    assert_int_equal(t->send_lag.window.count, 0);
    assert_int_equal(t->send_lag.hist_len, 0);
    tick_free(t);
    engine__merger_free(m);
    chan_free(ch);
    workload_free(wl);
}

/* Worker w's closed interval seq: ok requests, and errors of one class
 * with their first message (cls < 0: none). */
static void submit_closed(struct merger *m, uint32_t w, uint64_t seq, uint64_t ok, int cls,
                          uint64_t errors, const char *first, int is_final)
{
    struct interval iv;

    interval_at(&iv, seq);
    for (uint64_t i = 0; i < ok; i++)
        hist_record(iv.total.hist, 1000 + i);
    iv.total.started = iv.total.completed = ok + errors;
    iv.total.ok = ok;
    if (cls >= 0) {
        iv.total.errors[cls] = errors;
        snprintf(iv.first_error[cls], TICK_TEXT_MAX, "%s", first);
    }
    engine__merger_submit(m, w, &iv, is_final);
    engine__interval_free(&iv);
}

/* A tick is published once every running worker delivered its interval,
 * with their counts summed and each class's first message kept. */
static void a_tick_waits_for_every_worker_and_sums_their_counts(void **state)
{
    struct workload *wl = one_kind();
    struct chan *ch = chan_new(8, 8);
    struct merger *m = engine__merger_new(2, wl, NULL, ch, TICK_NS);
    struct tick *t;

    (void)state;
    submit_closed(m, 0, 0, 10, ERR_RESET, 2, "reset on worker 0", 0);
    assert_null(chan_take(ch));
    submit_closed(m, 1, 0, 5, ERR_RESET, 1, "reset on worker 1", 0);
    t = chan_take(ch);
    assert_non_null(t);
    assert_int_equal(t->seq, 0);
    assert_int_equal(t->total.completed, 18);
    assert_int_equal(t->total.ok, 15);
    assert_int_equal(t->total.errors[ERR_RESET], 3);
    assert_string_equal(t->first_error[ERR_RESET], "reset on worker 0");
    assert_string_equal(t->first_error[ERR_TIMEOUT], "");
    assert_int_equal(t->total.window.count, 15);
    tick_free(t);
    submit_closed(m, 1, 1, 1, ERR_MALFORMED, 1, "malformed on worker 1", 1);
    assert_null(chan_take(ch));
    submit_closed(m, 0, 1, 1, -1, 0, "", 1);
    t = chan_take(ch);
    assert_non_null(t);
    assert_int_equal(t->seq, 1);
    assert_int_equal(t->total.errors[ERR_MALFORMED], 1);
    assert_string_equal(t->first_error[ERR_MALFORMED], "malformed on worker 1");
    assert_int_equal(t->state, RUN_DONE);
    tick_free(t);
    assert_null(chan_take(ch));
    assert_true(chan_is_done(ch));
    engine__merger_free(m);
    chan_free(ch);
    workload_free(wl);
}

/* A worker that has finished, or one far behind, holds nobody's ticks
 * back; ticks still come out in order. */
static void finished_or_late_workers_do_not_hold_ticks_back(void **state)
{
    struct workload *wl = one_kind();
    struct chan *ch = chan_new(32, 8);
    struct merger *m = engine__merger_new(3, wl, NULL, ch, TICK_NS);
    struct tick *t;
    uint64_t seq = 0, n = 0, completed = 0;

    (void)state;
    /* Worker 2 ends at once; worker 1 hands in nothing for a while. */
    submit_closed(m, 2, 0, 1, -1, 0, "", 1);
    for (uint64_t k = 0; k < 10; k++)
        submit_closed(m, 0, k, 1, -1, 0, "", 0);
    for (uint64_t k = 0; k < 10; k++)
        submit_closed(m, 1, k, 1, -1, 0, "", k == 9);
    submit_closed(m, 0, 10, 1, -1, 0, "", 1);
    while ((t = chan_take(ch)) != NULL) {
        if (n > 0)
            assert_true(t->seq > seq);
        seq = t->seq;
        completed += t->total.completed;
        n++;
        tick_free(t);
    }
    /* Nothing is lost: every request is in some tick. */
    assert_int_equal(completed, 1 + 10 + 10 + 1);
    assert_int_equal(seq, 10);
    assert_true(chan_is_done(ch));
    engine__merger_free(m);
    chan_free(ch);
    workload_free(wl);
}

/* Worker w's interval seq of a closed run: one reset, seen at seen_ns, with
 * the message text. */
static void submit_reset(struct merger *m, uint32_t w, uint64_t seq, uint64_t seen_ns,
                         const char *text, int is_final)
{
    struct interval iv;

    interval_at(&iv, seq);
    if (text) {
        iv.total.started = iv.total.completed = 1;
        iv.total.errors[ERR_RESET] = 1;
        iv.kinds[0].started = iv.kinds[0].completed = 1;
        iv.kinds[0].errors[ERR_RESET] = 1;
        snprintf(iv.first_error[ERR_RESET], TICK_TEXT_MAX, "%s", text);
        iv.first_error_ns[ERR_RESET] = seen_ns;
    }
    engine__merger_submit(m, w, &iv, is_final);
    engine__interval_free(&iv);
}

/* A first error is stamped with the time it was seen, the earliest over the
 * workers, never with its tick's start: faults switched on at 1.5 s must not
 * show a first reset at 1.0 s. Events stay in time order. */
static void a_first_error_event_carries_the_time_it_was_seen(void **state)
{
    struct workload *wl = one_kind();
    struct chan *ch = chan_new(8, 8);
    struct merger *m = engine__merger_new(2, wl, NULL, ch, TICK_NS);
    struct tick *t;

    (void)state;
    submit_reset(m, 0, 0, 0, NULL, 0);
    submit_reset(m, 1, 0, 0, NULL, 0);
    t = chan_take(ch);
    assert_non_null(t);
    assert_int_equal(t->n_events, 0);
    tick_free(t);

    engine__merger_event(m, EV_COMMAND, 1500000000ULL, "faults on");
    submit_reset(m, 0, 1, 1800000000ULL, "late reset", 1);
    /* A command of the next tick, noted before tick 1 is built. */
    engine__merger_event(m, EV_COMMAND, 2100000000ULL, "concurrency 20");
    submit_reset(m, 1, 1, 1600000000ULL, "early reset", 1);
    t = chan_take(ch);
    assert_non_null(t);
    assert_int_equal(t->n_events, 3);
    assert_int_equal(t->events[0].at_ms, 1500);
    assert_int_equal(t->events[1].kind, EV_FIRST_ERROR);
    assert_int_equal(t->events[1].at_ms, 1600);
    assert_non_null(strstr(t->events[1].text, "early reset"));
    assert_int_equal(t->events[2].at_ms, 2100);
    tick_free(t);

    engine__merger_free(m);
    chan_free(ch);
    workload_free(wl);
}

/* Worker w's interval seq with n samples of each phase p at base_us + p *
 * 1000 + i, and opened new connections of which open are open at its end. */
static void submit_phases(struct merger *m, uint32_t w, uint64_t seq, uint64_t n, uint64_t opened,
                          uint32_t open, int is_final)
{
    struct interval iv;

    interval_at(&iv, seq);
    for (int p = 0; p < PHASE__COUNT; p++) {
        for (uint64_t i = 0; i < n; i++)
            hist_record(iv.phases[p], (uint64_t)p * 1000 + w * 100 + i);
    }
    iv.connections_opened = opened;
    iv.connections = open;
    engine__merger_submit(m, w, &iv, is_final);
    engine__interval_free(&iv);
}

/* Where the time goes: every worker's phase samples merge into the tick's
 * interval figures and histograms and into the run's, and connections
 * opened and open add up over workers (open is a gauge, never summed over
 * ticks). */
static void phases_and_connections_of_two_workers_merge_into_one_tick(void **state)
{
    struct workload *wl = one_kind();
    struct chan *ch = chan_new(8, 8);
    struct merger *m = engine__merger_new(2, wl, NULL, ch, TICK_NS);
    struct hist *h = hist_new();
    struct tick *t;

    (void)state;
    submit_phases(m, 0, 0, 10, 10, 4, 0);
    submit_phases(m, 1, 0, 5, 7, 3, 0);
    t = chan_take(ch);
    assert_non_null(t);
    assert_int_equal(t->connections_opened, 17);
    assert_int_equal(t->connections, 7);
    for (int p = 0; p < PHASE__COUNT; p++) {
        const struct tick_phase_stats *ph = &t->phases[p];

        assert_int_equal(ph->window.count, 15);
        assert_int_equal(ph->window.min_us, (uint64_t)p * 1000);
        assert_int_equal(ph->window.max_us, (uint64_t)p * 1000 + 104);
        assert_int_equal(ph->run.count, 15);
        assert_int_equal(tick_get_phase_hist(t, (enum tick_phase)p, h), 0);
        assert_int_equal(hist_count(h), 15);
        assert_int_equal(hist_max(h), (uint64_t)p * 1000 + 104);
    }
    tick_free(t);

    /* A tick that timed nothing has no phase histogram; the run keeps its
     * figures. */
    submit_phases(m, 0, 1, 0, 0, 4, 1);
    submit_phases(m, 1, 1, 2, 2, 1, 1);
    t = chan_take(ch);
    assert_non_null(t);
    assert_int_equal(t->connections_opened, 2);
    assert_int_equal(t->connections, 5);
    assert_int_equal(t->phases[PHASE_TTFB].window.count, 2);
    assert_int_equal(t->phases[PHASE_TTFB].run.count, 17);
    assert_int_equal(t->phases[PHASE_TTFB].run.max_us, 3104);
    tick_free(t);
    assert_true(chan_is_done(ch));

    hist_free(h);
    engine__merger_free(m);
    chan_free(ch);
    workload_free(wl);
}

/* A phase nobody timed in an interval carries no histogram. */
static void a_phase_without_samples_has_no_histogram(void **state)
{
    struct workload *wl = one_kind();
    struct chan *ch = chan_new(8, 8);
    struct merger *m = engine__merger_new(1, wl, NULL, ch, TICK_NS);
    struct interval iv;
    struct tick *t;

    (void)state;
    interval_at(&iv, 0);
    hist_record(iv.phases[PHASE_TTFB], 250);
    engine__merger_submit(m, 0, &iv, 1);
    engine__interval_free(&iv);
    t = chan_take(ch);
    assert_non_null(t);
    assert_int_equal(t->phases[PHASE_TTFB].window.count, 1);
    assert_int_not_equal(t->phases[PHASE_TTFB].hist_len, 0);
    assert_int_equal(t->phases[PHASE_TLS].window.count, 0);
    assert_int_equal(t->phases[PHASE_TLS].hist_len, 0);
    assert_int_equal(t->phases[PHASE_DNS].hist_len, 0);
    tick_free(t);
    engine__merger_free(m);
    chan_free(ch);
    workload_free(wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_first_error_event_carries_the_time_it_was_seen),
        cmocka_unit_test(send_lags_of_two_workers_merge_into_one_tick_and_the_run),
        cmocka_unit_test(a_closed_interval_has_no_send_lag),
        cmocka_unit_test(phases_and_connections_of_two_workers_merge_into_one_tick),
        cmocka_unit_test(a_phase_without_samples_has_no_histogram),
        cmocka_unit_test(a_tick_waits_for_every_worker_and_sums_their_counts),
        cmocka_unit_test(finished_or_late_workers_do_not_hold_ticks_back),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
