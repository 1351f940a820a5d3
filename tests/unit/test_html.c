/*
 * html: the HTML report's pieces. Text from a session escaped for HTML after
 * the display sanitizer; a session's ticks made points (one per tick, or
 * merged groups past HTML_POINTS_MAX, histograms merged), level changes,
 * the knee and the probes' alerts; and a page with hostile strings holding no
 * markup but its own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/hist.h"
#include "core/steps.h"
#include "core/tick.h"
#include "record/record.h"
#include "report/formats.h"
#include "report/html.h"
#include "report/html_internal.h"
#include "report/summary.h"

#define DATA_CAP 65536

static const char evil[] = "<script>alert(1)</script>\"'&\x1b[2J\xe2\x80\xae";

/* Whatever f wrote, NUL-terminated (the caller frees it). */
static char *captured(void (*fn)(FILE *, void *), void *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    fn(f, arg);
    fclose(f);
    return buf;
}

static void write_evil(FILE *f, void *arg)
{
    (void)arg;
    html__text(f, evil, sizeof(evil), 200);
}

static void test_text_escaped(void **state)
{
    char *s = captured(write_evil, NULL);

    (void)state;
    assert_string_equal(s, "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;\\e[2J\\u202e");
    free(s);
}

/* Tick seq at level c: 10 successes of 1000 + seq µs .. and one failure of
 * 50 µs; a knee detection on tick 2 and a probe "conns" of value seq. */
static struct tick *tick_at(uint64_t seq, uint32_t c)
{
    struct tick *t = tick_new(DATA_CAP);
    struct hist *ok = hist_new(), *failed = hist_new();

    t->seq = seq;
    t->start_us = seq * 1000000;
    t->duration_us = 1000000;
    t->state = RUN_RUNNING;
    t->target_concurrency = t->actual_concurrency = c;
    snprintf(t->total.name, sizeof(t->total.name), "total");
    for (uint64_t i = 0; i < 10; i++)
        hist_record(ok, 1000 + seq + i * 100);
    hist_record(failed, 50);
    t->total.completed = 11;
    t->total.ok = 10;
    t->total.errors[ERR_RESET] = 1;
    tick_latency_from_hist(&t->total.window, ok);
    tick_latency_from_hist(&t->failed.window, failed);
    t->failed.completed = 1;
    assert_int_equal(tick_put_hist(t, &t->total, ok), 0);
    assert_int_equal(tick_put_hist(t, &t->failed, failed), 0);
    t->n_probes = 1;
    snprintf(t->probes[0].name, sizeof(t->probes[0].name), "conns");
    t->probes[0].state = PROBE_OK;
    t->probes[0].has_value = 1;
    t->probes[0].value = (double)seq;
    if (seq == 2)
        tick_add_event(t, EV_DETECTION, 2500, "knee: c=8 adds no throughput over c=4");
    if (seq == 1)
        tick_add_event(t, EV_MARK, 1500, evil);
    hist_free(ok);
    hist_free(failed);
    return t;
}

static const struct record_header header = {
    .brink = "0.1.0",
    .host = "host",
    .config_text = "[probe conns]\ntype = json\nalert = > 500\n\n[probe other]\nalert = < 3\n",
};

/* A run of n ticks, the level doubling every 2 ticks from 4 up to 16, as the
 * page's second pass over a session feeds it. */
static struct html_run *run_of(uint64_t n)
{
    struct html_run *r = html_run_new("s.jsonl", &header, 1, n);
    struct tick *made[8];

    /* Ticks past the eighth repeat ticks 4 to 7 (level 16), moved in time. */
    for (uint64_t i = 0; i < 8; i++)
        made[i] = tick_at(i, 4u << (i / 2 > 2 ? 2 : i / 2));
    for (uint64_t i = 0; i < n; i++) {
        struct tick *t = made[i < 8 ? i : 4 + i % 4];

        t->seq = i;
        t->start_us = i * 1000000;
        html_run_add_tick(r, t);
    }
    for (uint64_t i = 0; i < 8; i++)
        tick_free(made[i]);
    html_run_finish(r, NULL);
    return r;
}

static void test_run_one_point_per_tick(void **state)
{
    struct html_run *r = run_of(6);

    (void)state;
    assert_int_equal(r->ticks_per_point, 1);
    assert_int_equal(r->n_points, 6);
    for (size_t i = 0; i < 6; i++) {
        struct tick *t = tick_at(i, 4);

        assert_int_equal(r->points[i].completed, 11);
        assert_int_equal(r->points[i].failed, 1);
        assert_int_equal(r->points[i].ok_us[0], t->total.window.pct_us[0]);
        assert_int_equal(r->points[i].ok_us[3], t->total.window.max_us);
        assert_int_equal(r->points[i].failed_us[2], t->failed.window.pct_us[2]);
        assert_true(r->points[i].probe[0] == (double)i);
        tick_free(t);
    }
    /* Levels 4, 8, 16: three changes; the knee; the mark. */
    assert_int_equal(r->n_events, 5);
    assert_int_equal(r->events[0].kind, HTML_EV_LEVEL);
    assert_string_equal(r->events[0].text, "c=4");
    assert_int_equal(r->events[1].kind, EV_MARK);
    assert_string_equal(r->events[2].text, "c=8");
    assert_int_equal(r->events[3].kind, EV_DETECTION);
    assert_string_equal(r->events[4].text, "c=16");
    assert_true(r->has_knee);
    assert_true(r->knee_level == 8.0);
    assert_int_equal(r->n_probes, 1);
    assert_int_equal(r->alerts[0].op, '>');
    assert_true(r->alerts[0].value == 500.0);
    html_run_free(r);
}

static void test_run_groups_past_the_cap(void **state)
{
    uint64_t n = HTML_POINTS_MAX + 1;
    struct html_run *r = run_of(n);

    (void)state;
    assert_int_equal(r->ticks_per_point, 2);
    assert_int_equal(r->n_points, (n + 1) / 2);
    /* Point 1 is ticks 2 and 3: counts summed, histograms merged. */
    assert_int_equal(r->points[1].start_us, 2000000);
    assert_int_equal(r->points[1].duration_us, 2000000);
    assert_int_equal(r->points[1].completed, 22);
    assert_int_equal(r->points[1].ok_timed, 20);
    assert_int_equal(r->points[1].errors[ERR_RESET], 2);
    assert_true(r->points[1].ok_us[3] >= 1003 + 900 - 20 &&
                r->points[1].ok_us[3] <= 1003 + 900 + 20);
    assert_true(r->points[1].probe[0] == 3.0);
    /* The last point is one tick alone. */
    assert_int_equal(r->points[r->n_points - 1].completed, 11);
    html_run_free(r);
}

struct page_args {
    struct html_session s;
};

static void write_page(FILE *f, void *arg)
{
    assert_int_equal(format_html(&((struct page_args *)arg)->s, f), 0);
}

static void test_page_has_no_markup_from_the_session(void **state)
{
    struct html_run *r = run_of(6);
    struct summary *sum = summary_new();
    struct steps *st = steps_new();
    struct report_verdicts v = {0};
    struct page_args a;
    char *page;

    (void)state;
    for (uint64_t i = 0; i < 6; i++) {
        struct tick *t = tick_at(i, 4u << (i / 2));

        summary_add_tick(sum, t);
        steps_add_tick(st, t);
        tick_free(t);
    }
    steps_finish(st);
    a.s = (struct html_session){.run = r, .sum = sum, .steps = st, .verdicts = &v, .label = evil};
    page = captured(write_page, &a);
    assert_null(strstr(page, "<script"));
    assert_null(strstr(page, "\x1b"));
    assert_non_null(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_non_null(strstr(page, "id=\"steps-throughput\" data-points=\"3\""));
    assert_non_null(strstr(page, "id=\"throughput\" data-points=\"6\""));
    /* Successes and failures apart: 10 and 1 a second in every tick. */
    assert_non_null(strstr(page, "data-series=\"ok/s\" data-v=\"10.000,10.000,10.000,10.000,"
                                 "10.000,10.000\""));
    assert_non_null(strstr(page, "data-series=\"failed/s\" data-v=\"1.000,1.000,1.000,1.000,"
                                 "1.000,1.000\""));
    assert_null(strstr(page, "data-series=\"req/s\""));
    assert_non_null(strstr(page, "id=\"steps-failures\" data-points=\"3\""));
    assert_non_null(strstr(page, "class=\"threshold\" data-v=\"500\""));
    free(page);
    html_run_free(r);
    summary_free(sum);
    steps_free(st);
}

/* The header's figures, each its own: 6 ticks of 10 successes and one
 * failure are 66 requests, 60 of them succeeded and 6 failed; 2 of them
 * were sent again in every tick after the first, as the text report says. */
static void test_page_overview_counts_apart(void **state)
{
    struct html_run *r = run_of(6);
    struct summary *sum = summary_new();
    struct steps *st = steps_new();
    struct report_verdicts v = {0};
    struct page_args a;
    char *page;

    (void)state;
    for (uint64_t i = 0; i < 6; i++) {
        struct tick *t = tick_at(i, 4);

        if (i > 0)
            t->resent[RESEND_CLOSED_IDLE] = 2;
        summary_add_tick(sum, t);
        steps_add_tick(st, t);
        tick_free(t);
    }
    steps_finish(st);
    a.s = (struct html_session){.run = r, .sum = sum, .steps = st, .verdicts = &v, .label = "o"};
    page = captured(write_page, &a);
    assert_non_null(strstr(page, "<p id=\"overview\">66 requests: 60 succeeded (10.0 req/s), "
                                 "6 failed (9.09%, 1.0/s).</p>"));
    assert_non_null(strstr(page, "<p id=\"resent\">Sent again: 10 (closed_idle 10), each "
                                 "counted once above by its last outcome.</p>"));
    /* The step table gives them a column, as the text one does. */
    assert_non_null(strstr(page, "<th>failed</th><th>resent</th>"));
    assert_non_null(strstr(page, "<td>6</td><td>10</td><td class=\"l\">-</td>"));
    free(page);
    html_run_free(r);
    summary_free(sum);
    steps_free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_escaped),
        cmocka_unit_test(test_run_one_point_per_tick),
        cmocka_unit_test(test_run_groups_past_the_cap),
        cmocka_unit_test(test_page_has_no_markup_from_the_session),
        cmocka_unit_test(test_page_overview_counts_apart),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
