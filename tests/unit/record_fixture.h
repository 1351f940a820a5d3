/*
 * Ticks for the record tests: deterministic (their own random generator),
 * shaped like a c=100 run (log-normal latencies of a few ms, a few status
 * codes, two probes, events and first errors), and a field-by-field
 * comparison. Included by test_record.c and test_record_io.c only.
 */
#ifndef BRINK_TESTS_RECORD_FIXTURE_H
#define BRINK_TESTS_RECORD_FIXTURE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/hist.h"
#include "core/tick.h"
#include "record/record.h"

/* xorshift64*: the same numbers on every libc. */
static inline double fx_unit(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* Log-normal around median_us (Box-Muller). */
static inline uint64_t fx_latency_us(uint64_t *s, double median_us, double sigma)
{
    double u1 = fx_unit(s), u2 = fx_unit(s);
    double z = sqrt(-2.0 * log(u1 + 1e-300)) * cos(6.283185307179586 * u2);

    return (uint64_t)(median_us * exp(sigma * z));
}

static const char *const fx_kind_names[] = {"home", "search", "checkout"};

/*
 * Tick seq of a run: n_kinds kinds sharing `requests` requests, and, when
 * is_busy, the rest a console shows: errors, statuses, probes, events.
 */
static inline struct tick *fx_tick(uint64_t seq, uint32_t n_kinds, uint32_t requests, int is_busy)
{
    uint64_t s = 0x9E3779B97F4A7C15ULL ^ (seq + 1) * 0x100000001B3ULL;
    struct hist *total = hist_new(), *kinds[3], *failed = hist_new();
    size_t need;
    struct tick *t;

    for (uint32_t k = 0; k < n_kinds; k++)
        kinds[k] = hist_new();
    for (uint32_t i = 0; i < requests; i++) {
        uint32_t k = i % n_kinds;
        uint64_t v = fx_latency_us(&s, 2500.0 + 1500.0 * k, 0.6);

        hist_record(kinds[k], v);
        hist_record(total, v);
    }
    hist_record_n(failed, 250 + seq, 9); /* the busy ticks' 503s, fast */
    /* and its 3 timeouts, at 1 ms: the every-prefix test decodes this tick
     * thousands of times, and a 30 s spread would scan 15k buckets each */
    hist_record_n(failed, 1000, 3);
    need = hist_encode(total, NULL, 0) + hist_encode(failed, NULL, 0);
    for (uint32_t k = 0; k < n_kinds; k++)
        need += hist_encode(kinds[k], NULL, 0);
    t = tick_new(need);
    t->seq = seq;
    t->start_us = seq * 1000000;
    t->duration_us = 1000000;
    t->state = seq == 0 ? RUN_STARTING : RUN_RUNNING;
    t->model = LOAD_CLOSED;
    memcpy(t->transport, "h1", 3);
    t->target_concurrency = 100;
    t->actual_concurrency = 100;
    t->target_rate_per_s = seq % 2 ? 0.0 : 1234.5;
    t->in_flight = 37 + (uint32_t)seq;
    t->connections_opened = seq == 0 ? 100 : 0;
    t->health.loop_lag_us = 150 + seq;
    t->health.fds_used = 117;
    t->health.fds_limit = 1024;
    for (uint32_t k = 0; k < n_kinds; k++) {
        struct tick_kind *kd = &t->kinds[k];

        tick_copy_text(kd->name, sizeof(kd->name), fx_kind_names[k]);
        kd->completed = hist_count(kinds[k]);
        kd->started = kd->completed + 3;
        kd->ok = kd->completed;
        kd->bytes_in = kd->completed * 612;
        kd->bytes_out = kd->completed * 81;
        tick_latency_from_hist(&kd->window, kinds[k]);
        tick_latency_from_hist(&kd->run, kinds[k]);
        kd->run.count *= seq + 1;
        tick_put_hist(t, kd, kinds[k]);
        t->total.started += kd->started;
        t->total.completed += kd->completed;
        t->total.bytes_in += kd->bytes_in;
        t->total.bytes_out += kd->bytes_out;
    }
    t->n_kinds = n_kinds;
    t->total.ok = t->total.completed;
    tick_latency_from_hist(&t->total.window, total);
    tick_latency_from_hist(&t->total.run, total);
    tick_put_hist(t, &t->total, total);
    tick_count_status(t, 200, t->total.completed);
    if (is_busy) {
        t->total.ok -= 12;
        t->kinds[0].ok -= 12;
        t->total.errors[ERR_HTTP_5XX] = t->kinds[0].errors[ERR_HTTP_5XX] = 9;
        t->total.errors[ERR_TIMEOUT] = t->kinds[0].errors[ERR_TIMEOUT] = 3;
        tick_count_status(t, 503, 9);
        tick_count_status(t, 404, 2);
        t->status[0].count -= 11;
        t->failed.completed = 12;
        tick_latency_from_hist(&t->failed.window, failed);
        tick_latency_from_hist(&t->failed.run, failed);
        tick_put_hist(t, &t->failed, failed);
        if (seq == 2) {
            tick_copy_text(t->first_error[ERR_HTTP_5XX], TICK_TEXT_MAX,
                           "HTTP 503 from /search?q=\"x\"\t\x1b[31mred\x1b[0m");
            tick_add_event(t, EV_FIRST_ERROR, 2100, "first http_5xx: HTTP 503");
        }
        if (seq == 3)
            tick_add_event(t, EV_MARK, 3500, "deploy v2 \xc3\xa9t\xc3\xa9");
        if (seq == 4)
            tick_add_event(t, EV_COMMAND, 4000, "concurrency 100 -> 150 (clamped to 120)");
        t->n_probes = 2;
        tick_copy_text(t->probes[0].name, TICK_NAME_MAX, "cpu");
        t->probes[0].state = PROBE_OK;
        t->probes[0].has_value = 1;
        t->probes[0].value = 0.25 + 0.01 * (double)seq;
        t->probes[0].sampled_ms = t->start_us / 1000 + 500;
        t->probes[0].alerting = seq == 5;
        tick_copy_text(t->probes[1].name, TICK_NAME_MAX, "db_conns");
        t->probes[1].state = seq == 6 ? PROBE_FAILING : PROBE_OK;
        t->probes[1].has_value = seq != 6;
        t->probes[1].value = 42.0 + (double)seq;
        t->probes[1].sampled_ms = t->start_us / 1000 + 700;
        if (seq == 6)
            tick_copy_text(t->probes[1].error, TICK_TEXT_MAX, "connect: refused");
    }
    for (uint32_t k = 0; k < n_kinds; k++)
        hist_free(kinds[k]);
    hist_free(total);
    hist_free(failed);
    return t;
}

/* Both histograms within the stored precision: count, min, max, clamped
 * exact, percentiles within 1% (and 1 µs). */
static inline void fx_assert_same_hist(const struct tick *a, const struct tick_kind *ka,
                                       const struct tick *b, const struct tick_kind *kb)
{
    static const double pcts[] = {1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99};
    struct hist *ha = hist_new(), *hb = hist_new();

    assert_int_equal(tick_get_hist(a, ka, ha) == 0, tick_get_hist(b, kb, hb) == 0);
    assert_int_equal(hist_count(ha), hist_count(hb));
    assert_int_equal(hist_min(ha), hist_min(hb));
    assert_int_equal(hist_max(ha), hist_max(hb));
    assert_int_equal(hist_clamped(ha), hist_clamped(hb));
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
        double x = (double)hist_percentile(ha, pcts[i]), y = (double)hist_percentile(hb, pcts[i]);

        if (fabs(x - y) > RECORD_HIST_PRECISION * x + 1.0)
            fail_msg("p%g: %.0f written, %.0f read", pcts[i], x, y);
    }
    hist_free(ha);
    hist_free(hb);
}

static inline void fx_assert_same_kind(const struct tick *a, const struct tick_kind *ka,
                                       const struct tick *b, const struct tick_kind *kb)
{
    assert_string_equal(ka->name, kb->name);
    assert_int_equal(ka->started, kb->started);
    assert_int_equal(ka->completed, kb->completed);
    assert_int_equal(ka->ok, kb->ok);
    assert_int_equal(ka->bytes_in, kb->bytes_in);
    assert_int_equal(ka->bytes_out, kb->bytes_out);
    assert_memory_equal(ka->errors, kb->errors, sizeof(ka->errors));
    /* Latency figures are stored as numbers, exactly (17 digits for doubles). */
    assert_memory_equal(&ka->window, &kb->window, sizeof(ka->window));
    assert_memory_equal(&ka->run, &kb->run, sizeof(ka->run));
    fx_assert_same_hist(a, ka, b, kb);
}

/* Where the time went: counts, min and max exact, the interval's other
 * figures from the stored histogram (so within its precision, coarser than
 * the latencies': RECORD_PHASE_PRECISION), the run's
 * exactly as written. */
static inline void fx_assert_same_phases(const struct tick *a, const struct tick *b)
{
    struct hist *ha = hist_new(), *hb = hist_new();

    assert_int_equal(a->connections, b->connections);
    for (int p = 0; p < PHASE__COUNT; p++) {
        const struct tick_phase_stats *pa = &a->phases[p], *pb = &b->phases[p];

        assert_int_equal(pa->window.count, pb->window.count);
        assert_int_equal(pa->window.min_us, pb->window.min_us);
        assert_int_equal(pa->window.max_us, pb->window.max_us);
        assert_memory_equal(&pa->run, &pb->run, sizeof(pa->run));
        assert_int_equal(tick_get_phase_hist(a, (enum tick_phase)p, ha),
                         tick_get_phase_hist(b, (enum tick_phase)p, hb));
        if (pa->hist_len) {
            assert_int_equal(hist_count(ha), hist_count(hb));
            assert_int_equal(hist_max(ha), hist_max(hb));
            for (double pct = 1; pct < 100; pct += 7) {
                double x = (double)hist_percentile(ha, pct), y = (double)hist_percentile(hb, pct);

                if (fabs(x - y) > RECORD_PHASE_PRECISION * x + 1.0)
                    fail_msg("%s p%g: %.0f written, %.0f read", tick_phase_name((enum tick_phase)p),
                             pct, x, y);
            }
        }
    }
    hist_free(ha);
    hist_free(hb);
}

/* Every field of two ticks, histograms within the stored precision. */
static inline void fx_assert_same_tick(const struct tick *a, const struct tick *b)
{
    assert_int_equal(a->seq, b->seq);
    assert_int_equal(a->start_us, b->start_us);
    assert_int_equal(a->duration_us, b->duration_us);
    assert_int_equal(a->state, b->state);
    assert_int_equal(a->model, b->model);
    assert_string_equal(a->transport, b->transport);
    assert_int_equal(a->target_concurrency, b->target_concurrency);
    assert_int_equal(a->actual_concurrency, b->actual_concurrency);
    assert_true(a->target_rate_per_s == b->target_rate_per_s);
    assert_int_equal(a->in_flight, b->in_flight);
    assert_int_equal(a->connections_opened, b->connections_opened);
    fx_assert_same_phases(a, b);
    assert_int_equal(a->dropped, b->dropped);
    assert_int_equal(a->aborted, b->aborted);
    assert_int_equal(a->bodies_cut, b->bodies_cut);
    fx_assert_same_kind(a, &a->total, b, &b->total);
    assert_int_equal(a->n_kinds, b->n_kinds);
    for (uint32_t i = 0; i < a->n_kinds; i++)
        fx_assert_same_kind(a, &a->kinds[i], b, &b->kinds[i]);
    fx_assert_same_kind(a, &a->service, b, &b->service);
    assert_int_equal(a->failed.completed, b->failed.completed); /* figures: from the histogram */
    fx_assert_same_hist(a, &a->failed, b, &b->failed);
    fx_assert_same_kind(a, &a->send_lag, b, &b->send_lag);
    assert_int_equal(a->max_in_flight, b->max_in_flight);
    assert_int_equal(a->sched_called, b->sched_called);
    assert_int_equal(a->sched_backlog, b->sched_backlog);
    assert_int_equal(a->sched_lag_us, b->sched_lag_us);
    assert_int_equal(a->sched_capped, b->sched_capped);
    assert_int_equal(a->plan.phase, b->plan.phase);
    assert_int_equal(a->plan.step, b->plan.step);
    assert_int_equal(a->plan.n_steps, b->plan.n_steps);
    assert_true(a->plan.level == b->plan.level);
    assert_int_equal(a->plan.verdict, b->plan.verdict);
    assert_string_equal(a->plan.why, b->plan.why);
    for (int c = 0; c < ERR__COUNT; c++)
        assert_string_equal(a->first_error[c], b->first_error[c]);
    assert_int_equal(a->n_status, b->n_status);
    assert_memory_equal(a->status, b->status, a->n_status * sizeof(a->status[0]));
    assert_int_equal(a->status_other, b->status_other);
    assert_int_equal(a->n_probes, b->n_probes);
    for (uint32_t i = 0; i < a->n_probes; i++) {
        const struct tick_probe *p = &a->probes[i], *q = &b->probes[i];

        assert_string_equal(p->name, q->name);
        assert_int_equal(p->state, q->state);
        assert_int_equal(p->has_value, q->has_value);
        if (p->has_value)
            assert_true(p->value == q->value);
        assert_int_equal(p->sampled_ms, q->sampled_ms);
        assert_int_equal(p->alerting, q->alerting);
        assert_string_equal(p->error, q->error);
    }
    assert_int_equal(a->n_events, b->n_events);
    assert_int_equal(a->events_dropped, b->events_dropped);
    for (uint32_t i = 0; i < a->n_events; i++) {
        assert_int_equal(a->events[i].at_ms, b->events[i].at_ms);
        assert_int_equal(a->events[i].kind, b->events[i].kind);
        assert_string_equal(a->events[i].text, b->events[i].text);
    }
    assert_memory_equal(&a->health, &b->health, sizeof(a->health));
}

/* A fresh path under the build's temporary directory. */
static inline void fx_temp_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "/tmp/brink-rec-%ld-%s", (long)getpid(), name);
    unlink(buf);
}

#endif
