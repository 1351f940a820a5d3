/*
 * summary: the final report and the progress line, built from ticks made by
 * hand (counts set directly, histograms put with tick_put_hist), printed and
 * checked line by line.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/errclass.h"
#include "core/hist.h"
#include "core/tick.h"
#include "report/summary.h"

#define TEST_DATA_CAP 65536 /* room for a few test histograms per tick */

/* A running closed-model tick at c=40 covering [start_ms, start_ms + duration_ms). */
static struct tick *new_tick(uint64_t start_ms, uint64_t duration_ms)
{
    struct tick *t = tick_new(TEST_DATA_CAP);

    t->start_us = start_ms * 1000;
    t->duration_us = duration_ms * 1000;
    t->state = RUN_RUNNING;
    t->model = LOAD_CLOSED;
    t->target_concurrency = 40;
    t->actual_concurrency = 40;
    return t;
}

/* Records from_us, from_us + step_us, ... up to to_us into k's interval
 * histogram, counting each as a completed, successful request. */
static void put_latencies(struct tick *t, struct tick_kind *k, uint64_t from_us, uint64_t to_us,
                          uint64_t step_us)
{
    struct hist *h = hist_new();

    for (uint64_t v = from_us; v <= to_us; v += step_us)
        hist_record(h, v);
    k->completed += hist_count(h);
    k->ok += hist_count(h);
    tick_latency_from_hist(&k->window, h);
    assert_int_equal(tick_put_hist(t, k, h), 0);
    hist_free(h);
}

/* Names kind i of t and gives it n successful requests of latency_us each. */
static void put_kind(struct tick *t, uint32_t i, const char *name, uint64_t n, uint64_t latency_us)
{
    struct tick_kind *k = &t->kinds[i];
    struct hist *h = hist_new();

    tick_copy_text(k->name, sizeof(k->name), name);
    hist_record_n(h, latency_us, n);
    k->completed = n;
    k->ok = n;
    tick_latency_from_hist(&k->window, h);
    assert_int_equal(tick_put_hist(t, k, h), 0);
    hist_free(h);
    if (i + 1 > t->n_kinds)
        t->n_kinds = i + 1;
}

/* Makes t's total the sum of its kinds, histogram included. */
static void finish_total(struct tick *t)
{
    struct hist *sum = hist_new(), *one = hist_new();

    for (uint32_t i = 0; i < t->n_kinds; i++) {
        t->total.completed += t->kinds[i].completed;
        t->total.ok += t->kinds[i].ok;
        assert_int_equal(tick_get_hist(t, &t->kinds[i], one), 0);
        hist_merge(sum, one);
    }
    tick_latency_from_hist(&t->total.window, sum);
    assert_int_equal(tick_put_hist(t, &t->total, sum), 0);
    hist_free(sum);
    hist_free(one);
}

/* The report of s as a string; the caller frees it. Printed into a temporary
 * file rather than open_memstream: with the memstream, GCC 12 at -O2 reports
 * a dangling pointer where there is none (-Wdangling-pointer), which breaks
 * the Release build with -Werror. */
static char *report_of(const struct summary *s)
{
    FILE *out = tmpfile();
    long size;
    char *text;

    assert_non_null(out);
    assert_int_equal(summary_print(s, out), 0);
    size = ftell(out);
    assert_true(size >= 0);
    text = malloc((size_t)size + 1);
    assert_non_null(text);
    rewind(out);
    assert_int_equal(fread(text, 1, (size_t)size, out), (size_t)size);
    text[size] = '\0';
    assert_int_equal(fclose(out), 0);
    return text;
}

/* Whether text holds line as one whole line. */
static int has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    const char *p = text;

    while (*p) {
        if (strncmp(p, line, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
            return 1;
        p = strchr(p, '\n');
        if (p == NULL)
            return 0;
        p++;
    }
    return 0;
}

#define assert_line(text, line)                                                                    \
    do {                                                                                           \
        if (!has_line(text, line))                                                                 \
            fail_msg("missing line \"%s\" in:\n%s", line, text);                                   \
    } while (0)

static void add_and_free(struct summary *s, struct tick *t)
{
    assert_int_equal(summary_add_tick(s, t), 0);
    tick_free(t);
}

static void run_without_completions_says_so_instead_of_a_table(void **state)
{
    struct summary *s = summary_new();
    struct tick *t = new_tick(0, 1000);
    char *text;

    (void)state;
    t->target_concurrency = 10;
    t->actual_concurrency = 10;
    t->total.started = 10;
    add_and_free(s, t);
    text = report_of(s);
    assert_string_equal(
        text,
        "duration 1.00s, 0 requests, ok 0.0 req/s, failed 0.0/s, 0.00 MB/s in, 0.00 MB/s out\n"
        "concurrency: target 10, max active 10\n"
        "latency: closed-loop, from the actual send (load model closed); successes only\n"
        "no requests completed\n"
        "HTTP statuses: none\n"
        "dropped 0, aborted at stop 0, bodies cut 0, connections opened 0\n");
    free(text);
    summary_free(s);
}

static void summary_of_no_ticks_prints_zeros_and_no_model(void **state)
{
    struct summary *s = summary_new();
    char *text;

    (void)state;
    text = report_of(s);
    assert_string_equal(
        text, "duration 0us, 0 requests, ok 0.0 req/s, failed 0.0/s, 0.00 MB/s in, 0.00 MB/s out\n"
              "no requests completed\n"
              "HTTP statuses: none\n"
              "dropped 0, aborted at stop 0, bodies cut 0, connections opened 0\n");
    free(text);
    summary_free(s);
    summary_free(NULL);
}

static void percentiles_come_from_the_histograms_merged_over_ticks(void **state)
{
    struct summary *s = summary_new();
    struct tick *a = new_tick(0, 1000), *b = new_tick(1000, 1000);
    char *text;

    (void)state;
    /* 1..1000 µs split over two ticks: exact below 2048, so the ranks are
     * the values themselves. */
    put_latencies(a, &a->total, 1, 500, 1);
    put_latencies(b, &b->total, 501, 1000, 1);
    add_and_free(s, a);
    add_and_free(s, b);
    text = report_of(s);
    assert_line(text, "latency percentiles:");
    assert_line(text, "     50%     500us");
    assert_line(text, "     66%     660us");
    assert_line(text, "     75%     750us");
    assert_line(text, "     80%     800us");
    assert_line(text, "     90%     900us");
    assert_line(text, "     95%     950us");
    assert_line(text, "     98%     980us");
    assert_line(text, "     99%     990us");
    assert_line(text, "   99.9%     999us");
    assert_line(text, "    100%    1.00ms");
    assert_line(text, "latency min 1us, mean 501us, max 1.00ms, stddev 289us");
    assert_line(text, "errors: none");
    free(text);
    summary_free(s);
}

static void totals_and_rates_are_summed_over_ticks(void **state)
{
    struct summary *s = summary_new();
    char *text;

    (void)state;
    for (uint64_t i = 0; i < 3; i++) {
        struct tick *t = new_tick(i * 1000, 1000);

        put_latencies(t, &t->total, 100, 100 + 999 * 10, 10); /* 1000 requests */
        t->total.bytes_in = 1040000;
        t->total.bytes_out = 500000;
        t->actual_concurrency = (uint32_t)(20 + 10 * i);
        t->target_concurrency = 40;
        t->connections_opened = 5;
        t->dropped = i;
        t->aborted = 1;
        t->bodies_cut = 2;
        tick_count_status(t, 200, 990);
        tick_count_status(t, 503, 10);
        add_and_free(s, t);
    }
    text = report_of(s);
    assert_line(
        text,
        "duration 3.00s, 3,000 requests, ok 1,000 req/s, failed 0.0/s, 1.04 MB/s in, 0.50 MB/s out");
    assert_line(text, "concurrency: target 40, max active 40");
    assert_line(text, "HTTP statuses: 200=2,970 503=30");
    assert_line(text, "dropped 3, aborted at stop 3, bodies cut 6, connections opened 15");
    free(text);
    summary_free(s);
}

/* The counts line is grouped by three, as every other count of the report. */
static void large_counts_are_grouped_by_three(void **state)
{
    struct summary *s = summary_new();
    struct tick *t = new_tick(0, 1000);
    char *text;

    (void)state;
    t->connections_opened = 122533;
    t->dropped = 1000;
    t->aborted = 2500;
    t->bodies_cut = 1234567;
    add_and_free(s, t);
    text = report_of(s);
    assert_line(text, "dropped 1,000, aborted at stop 2,500, bodies cut 1,234,567, "
                      "connections opened 122,533");
    free(text);
    summary_free(s);
}

static void slow_rate_keeps_a_decimal_and_varying_target_shows_its_range(void **state)
{
    struct summary *s = summary_new();
    struct tick *a = new_tick(0, 2000), *b = new_tick(2000, 2000);
    char *text;

    (void)state;
    a->target_concurrency = 1;
    a->actual_concurrency = 1;
    b->target_concurrency = 8;
    b->actual_concurrency = 6;
    put_latencies(a, &a->total, 1000, 5000, 1000); /* 5 requests */
    put_latencies(b, &b->total, 1000, 5000, 1000);
    add_and_free(s, a);
    add_and_free(s, b);
    text = report_of(s);
    assert_line(
        text,
        "duration 4.00s, 10 requests, ok 2.5 req/s, failed 0.0/s, 0.00 MB/s in, 0.00 MB/s out");
    assert_line(text, "concurrency: target 1 to 8, max active 6");
    free(text);
    summary_free(s);
}

static void open_and_mixed_models_label_their_latency(void **state)
{
    struct summary *s = summary_new();
    struct tick *a = new_tick(0, 1000), *b = new_tick(1000, 1000);
    char *text;

    (void)state;
    a->model = LOAD_OPEN;
    a->target_rate_per_s = 2500.0;
    add_and_free(s, a);
    text = report_of(s);
    assert_line(text, "latency: from the intended send (load model open); successes only");
    /* An open run chose no concurrency: none is reported. */
    assert_null(strstr(text, "concurrency:"));
    assert_line(text, "rate: max target 2,500/s, max in flight 0 (cap 0)");
    free(text);
    add_and_free(s, b);
    text = report_of(s);
    assert_line(text, "latency: closed-loop in closed intervals, from the intended send in open "
                      "ones (load model mixed); successes only");
    free(text);
    summary_free(s);
}

/* An open tick at 100/s: corrected latencies from_us..to_us, service times
 * of 1 ms, send lags of 0..99 us, and the schedule's figures. */
static struct tick *open_tick(uint64_t start_ms, uint64_t from_us, uint64_t to_us, int is_kept)
{
    struct tick *t = new_tick(start_ms, 1000);
    struct hist *h = hist_new();

    t->model = LOAD_OPEN;
    t->target_rate_per_s = 100;
    t->max_in_flight = 4;
    put_latencies(t, &t->total, from_us, to_us - 1, (to_us - from_us) / 100);
    t->total.started = t->total.completed;
    t->sched_called = 100;
    t->sched_capped = is_kept ? 0 : 96;
    t->sched_lag_us = is_kept ? 500 : 990000;
    hist_record_n(h, 1000, t->total.completed);
    t->service.completed = t->service.started = t->total.completed;
    tick_latency_from_hist(&t->service.window, h);
    assert_int_equal(tick_put_hist(t, &t->service, h), 0);
    put_latencies(t, &t->send_lag, 0, 99, 1);
    t->send_lag.started = t->send_lag.completed;
    hist_free(h);
    return t;
}

static void open_runs_report_the_schedule_and_the_service_time(void **state)
{
    struct summary *s = summary_new();
    struct summary_totals k;
    char *text;

    (void)state;
    add_and_free(s, open_tick(0, 1000, 2000, 1));
    text = report_of(s);
    assert_line(text, "schedule: requested 100/s, achieved 100/s over 1.00s of open model; kept "
                      "(max lag 500us)");
    assert_line(text, "service time (actual start to end, not corrected):");
    assert_line(text, "send lag p50 49us p99 98us max 99us");
    free(text);
    add_and_free(s, open_tick(1000, 10000, 1000000, 0));
    text = report_of(s);
    assert_line(text, "schedule: requested 100/s, achieved 100/s over 2.00s of open model; NOT "
                      "KEPT in 1 of 2 ticks (max lag 990ms, in-flight cap reached 96 times)");
    free(text);
    assert_int_equal(summary_totals(s, SUMMARY_SERVICE, &k), 0);
    assert_int_equal(hist_count(k.hist), 200);
    assert_int_equal(hist_percentile(k.hist, 99), 1000);
    assert_int_equal(summary_schedule(s)->ticks_not_kept, 1);
    assert_int_equal(summary_totals(s, SUMMARY_SEND_LAG, &k), 0);
    assert_int_equal(k.completed, 200);
    assert_int_equal(hist_count(k.hist), 200);
    assert_int_equal(hist_max(k.hist), 99);
    summary_free(s);
}

static void a_closed_run_has_no_schedule_line(void **state)
{
    struct summary *s = summary_new();
    struct tick *t = new_tick(0, 1000);
    char *text;

    (void)state;
    put_latencies(t, &t->total, 1000, 2000, 10);
    add_and_free(s, t);
    text = report_of(s);
    assert_null(strstr(text, "schedule:"));
    assert_null(strstr(text, "service time"));
    assert_null(strstr(text, "send lag"));
    free(text);
    summary_free(s);
}

static void progress_line_under_the_open_model_shows_rate_cap_and_a_missed_schedule(void **state)
{
    struct tick *t = open_tick(14000, 1000, 900000, 1);
    char buf[256];

    (void)state;
    t->in_flight = 3;
    assert_string_equal(
        summary_progress_line(t, buf, sizeof(buf)),
        "t=15s rate=100/s inflight=3/4 ok 100 req/s failed 0/s 0.0 MB/s p50 441ms p99 882ms err "
        "0.0% svc p99 1.00ms");
    t->sched_capped = 96;
    t->sched_lag_us = 990000;
    t->sched_backlog = 7;
    assert_string_equal(
        summary_progress_line(t, buf, sizeof(buf)),
        "t=15s rate=100/s inflight=3/4 ok 100 req/s failed 0/s 0.0 MB/s p50 441ms p99 882ms err "
        "0.0% svc p99 1.00ms SCHEDULE NOT KEPT (lag 990ms, 7 owed, cap hit 96x)");
    tick_free(t);
}

static void each_kind_gets_its_own_block_matched_by_name(void **state)
{
    struct summary *s = summary_new();
    struct tick *a = new_tick(0, 1000), *b = new_tick(1000, 1000);
    char *text, *get, *put;

    (void)state;
    put_kind(a, 0, "GET", 300, 1000);
    put_kind(a, 1, "PUT", 100, 8000);
    finish_total(a);
    /* The same kinds in the other order: matched by name, not position. */
    put_kind(b, 0, "PUT", 100, 8000);
    put_kind(b, 1, "GET", 300, 1000);
    finish_total(b);
    a->total.errors[ERR_HTTP_5XX] = 4;
    a->kinds[1].errors[ERR_HTTP_5XX] = 4;
    add_and_free(s, a);
    add_and_free(s, b);
    text = report_of(s);
    assert_line(
        text,
        "duration 2.00s, 800 requests, ok 398 req/s, failed 2.0/s, 0.00 MB/s in, 0.00 MB/s out");
    assert_line(text, "     50%    1.00ms");
    assert_line(text, "     80%    8.00ms");
    get = strstr(
        text,
        "\nkind GET: 600 requests, ok 300 req/s, failed 0.0/s, 0.00 MB/s in, 0.00 MB/s out\n");
    put = strstr(
        text,
        "\nkind PUT: 200 requests, ok 98.0 req/s, failed 2.0/s, 0.00 MB/s in, 0.00 MB/s out\n");
    assert_non_null(get);
    assert_non_null(put);
    assert_true(get < put);
    /* GET's block ends where PUT's starts and holds GET's latencies only. */
    *put = '\0';
    assert_line(get + 1, "    100%    1.00ms");
    assert_line(get + 1, "errors: none");
    assert_line(put + 1, "    100%    8.00ms");
    assert_line(put + 1, "errors: 4 of 200 requests (2.00%)");
    /* Per kind, the error lines carry no message: the ticks keep one per run. */
    assert_line(put + 1, "  http_5xx                  4   2.00%");
    free(text);
    summary_free(s);
}

static void single_kind_prints_no_kind_block(void **state)
{
    struct summary *s = summary_new();
    struct tick *t = new_tick(0, 1000);
    char *text;

    (void)state;
    put_kind(t, 0, "GET", 10, 1000);
    finish_total(t);
    add_and_free(s, t);
    text = report_of(s);
    assert_null(strstr(text, "kind "));
    free(text);
    summary_free(s);
}

static void kinds_past_the_table_count_in_the_totals_only(void **state)
{
    struct summary *s = summary_new();
    struct tick *a = new_tick(0, 1000), *b = new_tick(1000, 1000);
    char name[16], *text;

    (void)state;
    for (uint32_t i = 0; i < TICK_MAX_KINDS; i++) {
        snprintf(name, sizeof(name), "kind%u", (unsigned)i);
        put_kind(a, i, name, 1, 100);
    }
    finish_total(a);
    put_kind(b, 0, "one_too_many", 7, 100);
    finish_total(b);
    add_and_free(s, a);
    add_and_free(s, b);
    text = report_of(s);
    assert_line(
        text,
        "duration 2.00s, 71 requests, ok 35.5 req/s, failed 0.0/s, 0.00 MB/s in, 0.00 MB/s out");
    assert_non_null(strstr(text, "\nkind kind63: 1 request, "));
    assert_null(strstr(text, "one_too_many"));
    assert_line(text, "note: 7 requests of kinds past the first 64 are in the totals only");
    free(text);
    summary_free(s);
}

static void errors_show_class_share_and_first_message_escaped(void **state)
{
    struct summary *s = summary_new();
    struct tick *a = new_tick(0, 1000), *b = new_tick(1000, 1000);
    char *text;

    (void)state;
    put_latencies(a, &a->total, 1, 500, 1);
    put_latencies(b, &b->total, 1, 500, 1);
    a->total.errors[ERR_RESET] = 2;
    tick_copy_text(a->first_error[ERR_RESET], TICK_TEXT_MAX, "\x1b[2J Connection reset");
    b->total.errors[ERR_RESET] = 3;
    tick_copy_text(b->first_error[ERR_RESET], TICK_TEXT_MAX, "a later reset");
    b->total.errors[ERR_LOCAL_FD_LIMIT] = 10;
    tick_copy_text(b->first_error[ERR_LOCAL_FD_LIMIT], TICK_TEXT_MAX, "Too many open files");
    add_and_free(s, a);
    add_and_free(s, b);
    text = report_of(s);
    assert_line(text, "errors: 15 of 1,000 requests (1.50%)");
    assert_line(text, "  reset                     5   0.50%  \\e[2J Connection reset");
    assert_line(text, "  local_fd_limit           10   1.00%  Too many open files");
    assert_null(strchr(text, '\x1b'));
    assert_null(strstr(text, "a later reset"));
    free(text);
    summary_free(s);
}

/* The report shows a message whole, however long its tick kept it, even
 * when every byte of it must be escaped. */
static void long_error_message_is_shown_whole(void **state)
{
    struct summary *s = summary_new();
    struct tick *t = new_tick(0, 1000);
    char long_text[TICK_TEXT_MAX], *text, *line;

    (void)state;
    memset(long_text, 'x', sizeof(long_text) - 1);
    long_text[sizeof(long_text) - 1] = '\0';
    long_text[0] = '\x01';
    put_latencies(t, &t->total, 10, 10, 1);
    t->total.errors[ERR_OTHER] = 1;
    tick_copy_text(t->first_error[ERR_OTHER], TICK_TEXT_MAX, long_text);
    add_and_free(s, t);
    text = report_of(s);
    line = strstr(text, "  other ");
    assert_non_null(line);
    *strchr(line, '\n') = '\0';
    assert_non_null(strstr(line, "\\x01"));
    assert_int_equal(strspn(strstr(line, "\\x01") + 4, "x"), TICK_TEXT_MAX - 2);
    assert_string_equal(line + strlen(line) - 3, "xxx");
    free(text);
    summary_free(s);
}

static void hostile_kind_names_and_event_texts_are_escaped(void **state)
{
    struct summary *s = summary_new();
    struct tick *t = new_tick(0, 1000);
    char *text;

    (void)state;
    put_kind(t, 0, "evil\x1b]0;owned\x07", 1, 100);
    put_kind(t, 1, "GET", 1, 100);
    finish_total(t);
    tick_add_event(t, EV_MARK, 500, "before \x1b[31mrestart\xe2\x80\xae");
    add_and_free(s, t);
    text = report_of(s);
    assert_non_null(strstr(text, "\nkind evil\\e]0;owned\\x07: 1 request,"));
    assert_line(text, "events: 1");
    assert_line(text, "     500ms mark: before \\e[31mrestart\\u202e");
    assert_null(strchr(text, '\x1b'));
    assert_null(strchr(text, '\x07'));
    for (const char *p = text; *p; p++)
        assert_true((unsigned char)*p < 0x80);
    free(text);
    summary_free(s);
}

static void events_are_kept_up_to_a_bound_and_the_rest_counted(void **state)
{
    struct summary *s = summary_new();
    char *text, *p;
    int shown = 0;

    (void)state;
    for (uint64_t i = 0; i < 7; i++) {
        struct tick *t = new_tick(i * 1000, 1000);

        for (int e = 0; e < TICK_MAX_EVENTS + 1; e++)
            tick_add_event(t, EV_NOTICE, i * 1000 + (uint64_t)e, "tick event");
        add_and_free(s, t);
    }
    text = report_of(s);
    /* 7 ticks of 16 kept and 1 dropped each: 119 in all, 100 shown. */
    assert_line(text, "events: 119");
    assert_line(text, "       0us notice: tick event");
    assert_line(text, "  and 19 more, not kept");
    for (p = text; (p = strstr(p, " notice: tick event\n")) != NULL; p++)
        shown++;
    assert_int_equal(shown, 100);
    free(text);
    summary_free(s);
}

static void damaged_histogram_is_reported_and_counts_still_add(void **state)
{
    struct summary *s = summary_new();
    struct tick *good = new_tick(0, 1000), *bad = new_tick(1000, 1000);
    char *text;

    (void)state;
    put_latencies(good, &good->total, 1, 500, 1);
    put_latencies(bad, &bad->total, 501, 1000, 1);
    bad->data[bad->total.hist_offset] = 0xEE; /* an unknown encoding version */
    bad->total.bytes_in = 2000000;
    assert_int_equal(summary_add_tick(s, good), 0);
    assert_int_equal(summary_add_tick(s, bad), -EINVAL);
    tick_free(good);
    tick_free(bad);
    text = report_of(s);
    assert_line(
        text,
        "duration 2.00s, 1,000 requests, ok 500 req/s, failed 0.0/s, 1.00 MB/s in, 0.00 MB/s out");
    assert_line(text, "    100%     500us");
    assert_line(text, "note: 1 interval histogram was damaged or missing; latency covers 500 of "
                      "1,000 requests");
    free(text);
    summary_free(s);
}

static void missing_histogram_is_a_gap_but_not_an_error(void **state)
{
    struct summary *s = summary_new();
    struct tick *t = new_tick(0, 1000);
    char *text;

    (void)state;
    t->total.completed = 50; /* as when tick_put_hist ran out of room */
    t->total.ok = 50;
    assert_int_equal(summary_add_tick(s, t), 0);
    tick_free(t);
    text = report_of(s);
    assert_line(text, "latency: no histogram data");
    assert_line(text, "note: 1 interval histogram was damaged or missing; latency covers 0 of 50 "
                      "requests");
    free(text);
    summary_free(s);
}

static void print_to_a_full_device_fails_with_eio(void **state)
{
    struct summary *s = summary_new();
    FILE *full = fopen("/dev/full", "w");

    (void)state;
    if (full == NULL) {
        summary_free(s);
        skip();
    }
    assert_int_equal(summary_print(s, full), -EIO);
    fclose(full);
    summary_free(s);
}

/* Durations are µs: 200 requests in 3.5 ms are 57,143 req/s, not the
 * 50,000 or 66,667 that whole milliseconds gave. */
static void rates_count_microseconds(void **state)
{
    struct summary *s = summary_new();
    struct tick *t = new_tick(0, 0);
    char *text, buf[128];

    (void)state;
    t->duration_us = 3500;
    put_latencies(t, &t->total, 100, 299, 1);
    t->state = RUN_DONE;
    assert_string_equal(
        summary_progress_line(t, buf, sizeof(buf)),
        "t=0s c=40 inflight=0 final ok 200 failed 0 in 3.50ms p50 199us p99 297us err 0.0%");
    add_and_free(s, t);
    text = report_of(s);
    assert_line(
        text,
        "duration 3.50ms, 200 requests, ok 57,143 req/s, failed 0.0/s, 0.00 MB/s in, 0.00 MB/s out");
    free(text);
    summary_free(s);
}

/* A flood of fast failures must not pull the successes' figures down. */
static void failures_are_timed_apart_from_successes(void **state)
{
    struct summary *s = summary_new();
    struct tick *t = new_tick(0, 1000);
    struct summary_totals k;
    struct hist *h = hist_new();
    char *text;

    (void)state;
    put_latencies(t, &t->total, 10000, 10099, 1); /* 100 successes, about 10 ms */
    hist_record_n(h, 100, 1000);                  /* 1,000 fast 503s */
    t->total.completed += 1000;
    t->total.errors[ERR_HTTP_5XX] = 1000;
    t->failed.completed = 1000;
    t->failed.errors[ERR_HTTP_5XX] = 1000;
    tick_latency_from_hist(&t->failed.window, h);
    assert_int_equal(tick_put_hist(t, &t->failed, h), 0);
    hist_free(h);
    add_and_free(s, t);
    text = report_of(s);
    assert_line(text, "     50%    10.1ms"); /* within the histogram's 1% */
    assert_line(text, "latency of failed requests (1,000 timed): p50 100us, p90 100us, p99 100us, "
                      "max 100us");
    free(text);
    assert_int_equal(summary_totals(s, SUMMARY_TOTAL, &k), 0);
    assert_int_equal(hist_count(k.hist), 100);
    assert_int_equal(summary_totals(s, SUMMARY_FAILED, &k), 0);
    assert_int_equal(hist_count(k.hist), 1000);
    summary_free(s);
}

static void progress_line_shows_rates_percentiles_and_errors(void **state)
{
    struct tick *t = new_tick(11000, 1000);
    char buf[128];

    (void)state;
    t->total.completed = 3120;
    t->total.bytes_in = 3100000;
    t->total.window.count = 3120;
    t->total.window.pct_us[0] = 1200; /* p50 */
    t->total.window.pct_us[2] = 8400; /* p99 */
    t->in_flight = 37;
    assert_string_equal(
        summary_progress_line(t, buf, sizeof(buf)),
        "t=12s c=40 inflight=37 ok 3120 req/s failed 0/s 3.1 MB/s p50 1.20ms p99 8.40ms err 0.0%");
    t->actual_concurrency = 38;
    t->total.errors[ERR_TIMEOUT] = 30;
    t->total.errors[ERR_RESET] = 1;
    assert_string_equal(
        summary_progress_line(t, buf, sizeof(buf)),
        "t=12s c=38/40 inflight=37 ok 3089 req/s failed 31/s 3.1 MB/s p50 1.20ms p99 8.40ms err 1.0%");
    t->state = RUN_STOPPING;
    t->start_us = 59400000;
    t->duration_us = 100000;
    t->total.window.pct_us[2] = 2500000;
    assert_string_equal(
        summary_progress_line(t, buf, sizeof(buf)),
        "t=60s c=38/40 inflight=37 ok 30890 req/s failed 310/s 31.0 MB/s p50 1.20ms p99 2.50s err 1.0% "
        "stopping");
    tick_free(t);
}

static void set_probe(struct tick *t, uint32_t i, const char *name, enum probe_state st, double v,
                      const char *error);

/* Issue 31: a run with an end gets its gauge last, after the probes; the
 * fields before it are as they were. */
static void progress_line_of_a_bounded_run_ends_with_its_gauge(void **state)
{
    struct tick *t = new_tick(11000, 1000);
    char buf[256];

    (void)state;
    t->total.completed = 3120;
    t->in_flight = 40;
    set_probe(t, 0, "siblings", PROBE_OK, 12, "");
    t->bound.end_us = 60000000;
    assert_string_equal(summary_progress_line(t, buf, sizeof(buf)),
                        "t=12s c=40 inflight=40 ok 3120 req/s failed 0/s 0.0 MB/s p50 - p99 - "
                        "err 0.0% siblings=12 12s/1m00s 20% left 48s");
    t->bound.end_us = 0;
    t->bound.requests = 100000;
    t->bound.completed = 37440;
    assert_string_equal(summary_progress_line(t, buf, sizeof(buf)),
                        "t=12s c=40 inflight=40 ok 3120 req/s failed 0/s 0.0 MB/s p50 - p99 - "
                        "err 0.0% siblings=12 37440/100000 req 37% left ~21s");
    tick_free(t);
}

static void set_probe(struct tick *t, uint32_t i, const char *name, enum probe_state st, double v,
                      const char *error)
{
    struct tick_probe *p = &t->probes[i];

    snprintf(p->name, sizeof(p->name), "%s", name);
    p->state = st;
    p->has_value = st == PROBE_OK || (st != PROBE_PENDING && v >= 0);
    p->value = v;
    snprintf(p->error, sizeof(p->error), "%s", error);
    if (i + 1 > t->n_probes)
        t->n_probes = i + 1;
}

static void probes_report_last_max_and_failing_ticks(void **state)
{
    struct summary *s = summary_new();
    struct tick *a = new_tick(0, 1000), *b = new_tick(1000, 1000), *c = new_tick(2000, 1000);
    char *text;

    (void)state;
    set_probe(a, 0, "siblings", PROBE_OK, 3, "");
    set_probe(a, 1, "queue", PROBE_PENDING, 0, "");
    set_probe(b, 0, "siblings", PROBE_OK, 41.5, "");
    set_probe(b, 1, "queue", PROBE_FAILING, -1, "connection refused \x1b[2J");
    /* Another order in a later tick: matched by name. */
    set_probe(c, 0, "queue", PROBE_OK, 2, "");
    set_probe(c, 1, "siblings", PROBE_OK, 12, "");
    add_and_free(s, a);
    add_and_free(s, b);
    add_and_free(s, c);
    text = report_of(s);
    assert_line(text, "server counters:");
    assert_line(text, "  siblings: last 12, max 41.5");
    assert_line(text,
                "  queue: last 2, max 2; failing or stale in 1 ticks (connection refused \\e[2J)");
    free(text);
    summary_free(s);
}

static void progress_line_ends_with_each_probe(void **state)
{
    struct tick *t = new_tick(0, 1000);
    char buf[256];

    (void)state;
    set_probe(t, 0, "siblings", PROBE_OK, 7, "");
    set_probe(t, 1, "conns", PROBE_FAILING, -1, "refused");
    set_probe(t, 2, "q", PROBE_PENDING, 0, "");
    assert_string_equal(
        summary_progress_line(t, buf, sizeof(buf)),
        "t=1s c=40 inflight=0 ok 0 req/s failed 0/s 0.0 MB/s p50 - p99 - err - siblings=7 "
        "conns=failing q=pending");
    tick_free(t);
}

static void tiny_error_share_never_reads_as_zero(void **state)
{
    struct summary *s = summary_new();
    struct tick *t = new_tick(0, 1000);
    char buf[128], *text;

    (void)state;
    put_latencies(t, &t->total, 1, 40000, 1);
    t->total.errors[ERR_RESET] = 1;
    assert_string_equal(
        summary_progress_line(t, buf, sizeof(buf)),
        "t=1s c=40 inflight=0 ok 39999 req/s failed 1/s 0.0 MB/s p50 20.0ms p99 39.6ms err <0.1%");
    add_and_free(s, t);
    text = report_of(s);
    assert_line(text, "errors: 1 of 40,000 requests (<0.01%)");
    assert_line(text, "  reset                     1  <0.01%");
    free(text);
    summary_free(s);
}

static void progress_line_of_an_empty_paused_interval_has_dashes(void **state)
{
    struct tick *t = new_tick(12000, 1000);
    char buf[128];

    (void)state;
    t->state = RUN_PAUSED;
    assert_string_equal(
        summary_progress_line(t, buf, sizeof(buf)),
        "t=13s c=40 inflight=0 ok 0 req/s failed 0/s 0.0 MB/s p50 - p99 - err - paused");
    t->duration_us = 0;
    t->start_us = 499000;
    t->state = RUN_RUNNING;
    assert_string_equal(summary_progress_line(t, buf, sizeof(buf)),
                        "t=0s c=40 inflight=0 ok 0 req/s failed 0/s 0.0 MB/s p50 - p99 - err -");
    tick_free(t);
}

static void progress_line_is_cut_to_the_buffer(void **state)
{
    struct tick *t = new_tick(0, 1000);
    char buf[8];

    (void)state;
    memset(buf, '#', sizeof(buf));
    assert_string_equal(summary_progress_line(t, buf, sizeof(buf)), "t=1s c=");
    assert_ptr_equal(summary_progress_line(t, buf, 0), buf);
    tick_free(t);
}

/* Records n samples from_us, from_us + 1, ... as phase p of t. */
static void put_phase(struct tick *t, enum tick_phase p, uint64_t from_us, uint64_t n)
{
    struct hist *h = hist_new();

    for (uint64_t i = 0; i < n; i++)
        hist_record(h, from_us + i);
    tick_latency_from_hist(&t->phases[p].window, h);
    assert_int_equal(tick_put_phase_hist(t, p, h), 0);
    hist_free(h);
}

/* Where the time goes: each phase's histograms merged over the ticks, one
 * row each (a phase never timed shows dashes), then the connections. */
static void phases_are_merged_over_ticks_with_the_connections(void **state)
{
    struct summary *s = summary_new();
    char *text;

    (void)state;
    for (uint64_t i = 0; i < 2; i++) {
        struct tick *t = new_tick(i * 1000, 1000);

        put_latencies(t, &t->total, 1000, 1099, 1); /* 100 requests */
        put_phase(t, PHASE_CONNECT, 100 + i * 100, 100);
        put_phase(t, PHASE_TTFB, 500, 100);
        if (i == 0)
            put_phase(t, PHASE_DNS, 40, 1);
        t->connections_opened = 100;
        t->connections = (uint32_t)(10 + i);
        add_and_free(s, t);
    }
    text = report_of(s);
    assert_line(text, "where the time goes:       count       p50       p90       p99       max");
    assert_line(text, "  dns                          1      40us      40us      40us      40us");
    assert_line(text, "  connect                    200     199us     279us     297us     299us");
    assert_line(text, "  tls                          0         -         -         -         -");
    assert_line(text, "  ttfb                       200     549us     589us     598us     599us");
    assert_line(text, "connections: 200 opened (100/s), at most 11 open");
    free(text);
    summary_free(s);
}

/* A session without phases (written before them) prints no such table. */
static void a_run_without_phases_prints_no_phase_table(void **state)
{
    struct summary *s = summary_new();
    struct tick *t = new_tick(0, 1000);
    char *text;

    (void)state;
    put_latencies(t, &t->total, 1000, 1099, 1);
    add_and_free(s, t);
    text = report_of(s);
    assert_null(strstr(text, "where the time goes"));
    assert_null(strstr(text, "connections:"));
    free(text);
    summary_free(s);
}

/* Issue 32: the text format reads the summary only through summary.h, so
 * the figures it prints are those calls' answers: each one as the ticks
 * added it up, borrowed strings raw, and -ENOENT past the last row. */
static void figures_read_through_summary_h_are_the_ticks_added_up(void **state)
{
    struct summary *s = summary_new();
    struct tick *a = new_tick(0, 1000), *b = new_tick(1000, 1000);
    struct summary_run r;
    const struct summary_probe *p;
    struct summary_span sp;
    struct summary_totals k;
    const struct tick_event *ev;
    uint32_t n;

    (void)state;
    put_latencies(a, &a->total, 1000, 1009, 1);
    a->total.completed += 3;
    a->total.errors[ERR_TIMEOUT] = 3;
    tick_copy_text(a->first_error[ERR_TIMEOUT], TICK_TEXT_MAX, "no reply \x1b[2J");
    snprintf(a->http_version, sizeof(a->http_version), "h2");
    snprintf(a->transport, sizeof(a->transport), "curl");
    a->dropped = 2;
    a->cookies_dropped = 1;
    a->marks_dropped = 4;
    a->target_concurrency = 10;
    set_probe(a, 0, "queue", PROBE_OK, 9, "");
    a->n_events = 1;
    a->events[0].at_ms = 500;
    a->events[0].kind = EV_NOTICE;
    tick_copy_text(a->events[0].text, TICK_TEXT_MAX, "hello");
    a->events_dropped = 2;
    a->n_agents = 2;
    tick_copy_text(a->agents[0].name, TICK_NAME_MAX, "a1");
    a->agents[0].is_in = 1;
    tick_copy_text(a->agents[1].name, TICK_NAME_MAX, "a2");
    b->bodies_cut = 5;
    b->aborted = 6;
    set_probe(b, 0, "queue", PROBE_OK, 7, "");
    set_probe(b, 1, "conns", PROBE_FAILING, -1, "refused");
    add_and_free(s, a);
    add_and_free(s, b);

    summary_run(s, &r);
    assert_int_equal(r.models_seen, 1u << LOAD_CLOSED);
    assert_int_equal(r.min_target_concurrency, 10);
    assert_int_equal(r.max_target_concurrency, 40);
    assert_int_equal(r.max_actual_concurrency, 40);
    assert_string_equal(r.http_version, "h2");
    assert_string_equal(r.transport, "curl");
    assert_int_equal(r.dropped, 2);
    assert_int_equal(r.aborted, 6);
    assert_int_equal(r.bodies_cut, 5);
    assert_int_equal(r.cookies_dropped, 1);
    assert_int_equal(r.marks_dropped, 4);
    assert_int_equal(r.unmatched_completed, 0);

    assert_string_equal(summary_first_error(s, ERR_TIMEOUT), "no reply \x1b[2J");
    assert_string_equal(summary_first_error(s, ERR_RESET), "");
    assert_int_equal(summary_totals(s, SUMMARY_TOTAL, &k), 0);
    assert_int_equal(k.completed, 13);
    assert_int_equal(k.timed, 10);

    ev = summary_events(s, &n);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].at_ms, 500);
    assert_string_equal(ev[0].text, "hello");
    assert_int_equal(summary_events_more(s), 2);

    p = summary_probe(s, 0);
    assert_non_null(p);
    assert_string_equal(p->name, "queue");
    assert_true(p->has_value);
    assert_true(p->last == 7 && p->max == 9);
    assert_int_equal(p->failing_ticks, 0);
    p = summary_probe(s, 1);
    assert_non_null(p);
    assert_string_equal(p->name, "conns");
    assert_false(p->has_value);
    assert_int_equal(p->failing_ticks, 1);
    assert_string_equal(p->last_error, "refused");
    assert_null(summary_probe(s, 2));

    /* a2 was missing from tick 0 (its is_in 0): one span of partial ticks. */
    assert_int_equal(summary_span(s, 0, &sp), 0);
    assert_int_equal(sp.from_us, 0);
    assert_int_equal(sp.to_us, 1000000);
    assert_string_equal(sp.lost, "a2");
    assert_int_equal(summary_span(s, 1, &sp), -ENOENT);
    assert_int_equal(summary_spans_more(s), 0);
    summary_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_without_completions_says_so_instead_of_a_table),
        cmocka_unit_test(summary_of_no_ticks_prints_zeros_and_no_model),
        cmocka_unit_test(percentiles_come_from_the_histograms_merged_over_ticks),
        cmocka_unit_test(totals_and_rates_are_summed_over_ticks),
        cmocka_unit_test(large_counts_are_grouped_by_three),
        cmocka_unit_test(slow_rate_keeps_a_decimal_and_varying_target_shows_its_range),
        cmocka_unit_test(open_and_mixed_models_label_their_latency),
        cmocka_unit_test(each_kind_gets_its_own_block_matched_by_name),
        cmocka_unit_test(single_kind_prints_no_kind_block),
        cmocka_unit_test(kinds_past_the_table_count_in_the_totals_only),
        cmocka_unit_test(errors_show_class_share_and_first_message_escaped),
        cmocka_unit_test(long_error_message_is_shown_whole),
        cmocka_unit_test(hostile_kind_names_and_event_texts_are_escaped),
        cmocka_unit_test(events_are_kept_up_to_a_bound_and_the_rest_counted),
        cmocka_unit_test(damaged_histogram_is_reported_and_counts_still_add),
        cmocka_unit_test(missing_histogram_is_a_gap_but_not_an_error),
        cmocka_unit_test(print_to_a_full_device_fails_with_eio),
        cmocka_unit_test(probes_report_last_max_and_failing_ticks),
        cmocka_unit_test(progress_line_ends_with_each_probe),
        cmocka_unit_test(open_runs_report_the_schedule_and_the_service_time),
        cmocka_unit_test(a_closed_run_has_no_schedule_line),
        cmocka_unit_test(progress_line_under_the_open_model_shows_rate_cap_and_a_missed_schedule),
        cmocka_unit_test(progress_line_shows_rates_percentiles_and_errors),
        cmocka_unit_test(progress_line_of_a_bounded_run_ends_with_its_gauge),
        cmocka_unit_test(rates_count_microseconds),
        cmocka_unit_test(failures_are_timed_apart_from_successes),
        cmocka_unit_test(phases_are_merged_over_ticks_with_the_connections),
        cmocka_unit_test(a_run_without_phases_prints_no_phase_table),
        cmocka_unit_test(tiny_error_share_never_reads_as_zero),
        cmocka_unit_test(progress_line_of_an_empty_paused_interval_has_dashes),
        cmocka_unit_test(progress_line_is_cut_to_the_buffer),
        cmocka_unit_test(figures_read_through_summary_h_are_the_ticks_added_up),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
