/*
 * expo: ticks made by hand folded into the metrics state and rendered in
 * the text exposition format; checked line by line: counters add across
 * ticks, gauges follow the last tick, buckets are cumulative and end at
 * _count, every sample carries the run label, and names from outside (the
 * run's id too) are escaped as the format asks.
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
#include "core/tick.h"
#include "metrics/expo.h"

/* The run label of the fixture's state. */
#define RUN "run=\"2026-12-05T14-25-00Z-box-42\""

struct fixture {
    struct expo_state *s;
    struct hist *scratch;
    char *text;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));

    f->s = calloc(1, sizeof(*f->s));
    expo_set_run(f->s, "2026-12-05T14-25-00Z-box-42");
    f->scratch = hist_new();
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    free(f->s);
    hist_free(f->scratch);
    free(f->text);
    free(f);
    return 0;
}

/* A tick with one kind named name: n successes at each of the latencies
 * given (µs), failed failures of class http_5xx at 2 s each. */
static struct tick *new_tick(const char *name, const uint64_t *lat_us, size_t n_lat, uint64_t n,
                             uint64_t failed)
{
    struct tick *t = tick_new(65536);
    struct hist *h = hist_new();
    struct tick_kind *k = &t->kinds[0];

    t->duration_us = 1000000;
    t->n_kinds = 1;
    tick_copy_text(k->name, sizeof(k->name), name);
    for (size_t i = 0; i < n_lat; i++)
        hist_record_n(h, lat_us[i], n);
    k->completed = n * n_lat + failed;
    k->started = k->completed + 1;
    k->ok = n * n_lat;
    k->errors[ERR_HTTP_5XX] = failed;
    assert_int_equal(tick_put_hist(t, k, h), 0);
    t->total = *k;
    tick_copy_text(t->total.name, sizeof(t->total.name), "total");
    if (failed) {
        hist_reset(h);
        hist_record_n(h, 2000000, failed);
        t->failed.completed = failed;
        assert_int_equal(tick_put_hist(t, &t->failed, h), 0);
    }
    tick_count_status(t, 200, n * n_lat);
    hist_free(h);
    return t;
}

static const char *render(struct fixture *f)
{
    size_t len = 0;
    FILE *out;

    free(f->text);
    f->text = NULL;
    out = open_memstream(&f->text, &len);
    assert_int_equal(expo_render(f->s, out), 0);
    fclose(out);
    return f->text;
}

/* The whole line starting with prefix, "" when none (the last match). */
static const char *line_of(const char *text, const char *prefix, char *buf, size_t cap)
{
    const char *p = text;
    size_t n = strlen(prefix);

    buf[0] = '\0';
    while ((p = strstr(p, prefix)) != NULL) {
        if (p == text || p[-1] == '\n') {
            size_t len = strcspn(p, "\n");

            snprintf(buf, cap, "%.*s", (int)len, p);
        }
        p += n;
    }
    return buf;
}

static void counters_add_and_gauges_follow_the_last_tick(void **state)
{
    struct fixture *f = *state;
    uint64_t lat[] = {300};
    struct tick *a = new_tick("get", lat, 1, 10, 2), *b = new_tick("get", lat, 1, 5, 0);
    char buf[256];

    a->in_flight = 7;
    a->target_concurrency = 9;
    b->in_flight = 3;
    b->target_concurrency = 4;
    b->actual_concurrency = 4;
    expo_add_tick(f->s, a, f->scratch);
    expo_add_tick(f->s, b, f->scratch);
    render(f);
    assert_string_equal(line_of(f->text, "brink_ticks_total{", buf, sizeof(buf)),
                        "brink_ticks_total{" RUN "} 2");
    assert_string_equal(line_of(f->text, "brink_requests_total{", buf, sizeof(buf)),
                        "brink_requests_total{" RUN ",kind=\"get\"} 17");
    assert_string_equal(line_of(f->text, "brink_requests_ok_total{", buf, sizeof(buf)),
                        "brink_requests_ok_total{" RUN ",kind=\"get\"} 15");
    assert_string_equal(
        line_of(f->text, "brink_request_errors_total{" RUN ",kind=\"get\",class=\"http_5xx\"}", buf,
                sizeof(buf)),
        "brink_request_errors_total{" RUN ",kind=\"get\",class=\"http_5xx\"} 2");
    assert_string_equal(
        line_of(f->text, "brink_responses_total{" RUN ",code=\"200\"}", buf, sizeof(buf)),
        "brink_responses_total{" RUN ",code=\"200\"} 15");
    assert_string_equal(line_of(f->text, "brink_in_flight{", buf, sizeof(buf)),
                        "brink_in_flight{" RUN "} 3");
    assert_string_equal(line_of(f->text, "brink_target_concurrency{", buf, sizeof(buf)),
                        "brink_target_concurrency{" RUN "} 4");
    assert_string_equal(line_of(f->text, "brink_virtual_users{", buf, sizeof(buf)),
                        "brink_virtual_users{" RUN "} 4");
    /* The failures' histogram: two at 2 s. */
    assert_string_equal(line_of(f->text,
                                "brink_failed_request_duration_seconds_bucket{" RUN ",le=\"1\"}",
                                buf, sizeof(buf)),
                        "brink_failed_request_duration_seconds_bucket{" RUN ",le=\"1\"} 0");
    assert_string_equal(line_of(f->text,
                                "brink_failed_request_duration_seconds_bucket{" RUN ",le=\"2.5\"}",
                                buf, sizeof(buf)),
                        "brink_failed_request_duration_seconds_bucket{" RUN ",le=\"2.5\"} 2");
    /* Its sum from bucket midpoints: 4 s within 1/2048. */
    line_of(f->text, "brink_failed_request_duration_seconds_sum{" RUN "} ", buf, sizeof(buf));
    assert_true(strtod(buf + strlen("brink_failed_request_duration_seconds_sum{" RUN "} "), NULL) >=
                4.0);
    assert_true(strtod(buf + strlen("brink_failed_request_duration_seconds_sum{" RUN "} "), NULL) <=
                4.0 * (1 + 1.0 / 2048));
    tick_free(a);
    tick_free(b);
}

static void buckets_are_cumulative_and_end_at_count(void **state)
{
    struct fixture *f = *state;
    /* 50 µs (first bucket), exactly 1 ms (its bound: le is "at most"),
     * 7 ms, 40 ms and 90 s (past the last bound: +Inf only). */
    uint64_t lat[] = {50, 1000, 7000, 40000, 90000000};
    struct tick *t = new_tick("get", lat, 5, 3, 0);
    static const char *const want[] = {
        "le=\"0.0001\"} 3", "le=\"0.00025\"} 3", "le=\"0.0005\"} 3", "le=\"0.001\"} 6",
        "le=\"0.0025\"} 6", "le=\"0.005\"} 6",   "le=\"0.01\"} 9",   "le=\"0.025\"} 9",
        "le=\"0.05\"} 12",  "le=\"0.1\"} 12",    "le=\"0.25\"} 12",  "le=\"0.5\"} 12",
        "le=\"1\"} 12",     "le=\"2.5\"} 12",    "le=\"5\"} 12",     "le=\"10\"} 12",
        "le=\"30\"} 12",    "le=\"60\"} 12",     "le=\"+Inf\"} 15",
    };
    const char *p;
    char buf[256];

    expo_add_tick(f->s, t, f->scratch);
    render(f);
    p = strstr(f->text, "brink_request_duration_seconds_bucket{");
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        char line[200];

        assert_non_null(p);
        snprintf(line, sizeof(line),
                 "brink_request_duration_seconds_bucket{" RUN ",kind=\"get\",%s", want[i]);
        assert_memory_equal(p, line, strlen(line));
        assert_int_equal(p[strlen(line)], '\n');
        p = strchr(p, '\n') + 1;
    }
    assert_string_equal(line_of(f->text, "brink_request_duration_seconds_count{", buf, sizeof(buf)),
                        "brink_request_duration_seconds_count{" RUN ",kind=\"get\"} 15");
    tick_free(t);
}

static void label_values_are_escaped(void **state)
{
    char buf[EXPO_LABEL_MAX];
    /* A quote, a backslash, a line feed, ESC, invalid UTF-8 and é. */
    const char raw[] = "a\"b\\c\nd\x1b[31m\xff\xc3\xa9";

    (void)state;
    assert_string_equal(expo_label_value(raw, sizeof(raw), buf),
                        "a\\\"b\\\\\\\\c\\\\nd\\\\e[31m\\\\xff\xc3\xa9");
    /* A name filling its array (no NUL) is read to its end only. */
    char full[TICK_NAME_MAX];
    memset(full, 'x', sizeof(full));
    assert_int_equal(strlen(expo_label_value(full, sizeof(full), buf)), TICK_NAME_MAX);
}

static void hostile_names_render_as_one_line_each(void **state)
{
    struct fixture *f = *state;
    uint64_t lat[] = {300};
    struct tick *t = new_tick("k\"\n}x", lat, 1, 1, 0);
    char buf[256];

    t->n_probes = 1;
    tick_copy_text(t->probes[0].name, sizeof(t->probes[0].name), "p\\\n\"");
    t->probes[0].has_value = 1;
    t->probes[0].value = 0.5;
    t->probes[0].state = PROBE_OK;
    expo_add_tick(f->s, t, f->scratch);
    render(f);
    assert_string_equal(line_of(f->text, "brink_requests_total{", buf, sizeof(buf)),
                        "brink_requests_total{" RUN ",kind=\"k\\\"\\\\n}x\"} 1");
    assert_string_equal(line_of(f->text, "brink_probe_value{", buf, sizeof(buf)),
                        "brink_probe_value{" RUN ",probe=\"p\\\\\\\\\\\\n\\\"\"} 0.5");
    assert_string_equal(line_of(f->text, "brink_probe_ok{", buf, sizeof(buf)),
                        "brink_probe_ok{" RUN ",probe=\"p\\\\\\\\\\\\n\\\"\"} 1");
    /* Every line is a comment or a sample of a brink_ family. */
    for (const char *p = f->text; *p; p = strchr(p, '\n') + 1)
        assert_true(strncmp(p, "# ", 2) == 0 || strncmp(p, "brink_", 6) == 0);
    tick_free(t);
}

/* Every sample of every family, with kinds, failures, statuses, a resend
 * and a probe: its name, then {run="ID" first. */
static void every_sample_carries_the_run_label(void **state)
{
    struct fixture *f = *state;
    uint64_t lat[] = {300};
    struct tick *t = new_tick("get", lat, 1, 4, 1);
    size_t samples = 0;

    t->n_probes = 1;
    tick_copy_text(t->probes[0].name, sizeof(t->probes[0].name), "queue");
    t->probes[0].has_value = 1;
    t->resent[RESEND_CLOSED_IDLE] = 1;
    expo_add_tick(f->s, t, f->scratch);
    render(f);
    for (const char *p = f->text; *p; p = strchr(p, '\n') + 1) {
        size_t name = strcspn(p, "{ \n");

        if (strncmp(p, "# ", 2) == 0)
            continue;
        samples++;
        if (p[name] != '{' || strncmp(p + name + 1, RUN, strlen(RUN)) != 0)
            fail_msg("no run label first: %.*s", (int)strcspn(p, "\n"), p);
    }
    /* 78 today: 2 histograms of 21 samples, 16 error classes, ... */
    assert_true(samples >= 70);
    tick_free(t);
}

/* A run id from outside (a --record name, a host name) is one label
 * value: escaped, made printable, its secrets redacted; none set, no
 * label. */
static void run_ids_are_escaped_and_redacted(void **state)
{
    struct fixture *f = *state;
    char buf[256];

    expo_set_run(f->s, "r\"}\n\\x");
    render(f);
    assert_string_equal(line_of(f->text, "brink_ticks_total{", buf, sizeof(buf)),
                        "brink_ticks_total{run=\"r\\\"}\\\\n\\\\\\\\x\"} 0");
    for (const char *p = f->text; *p; p = strchr(p, '\n') + 1)
        assert_true(strncmp(p, "# ", 2) == 0 || strncmp(p, "brink_", 6) == 0);
    expo_set_run(f->s, "load-token=s3cr3t");
    render(f);
    assert_null(strstr(f->text, "s3cr3t"));
    assert_string_equal(line_of(f->text, "brink_ticks_total{", buf, sizeof(buf)),
                        "brink_ticks_total{run=\"load-token=<redacted len=6>\"} 0");
    expo_set_run(f->s, "");
    render(f);
    assert_string_equal(line_of(f->text, "brink_ticks_total ", buf, sizeof(buf)),
                        "brink_ticks_total 0");
}

static void help_and_type_precede_each_family(void **state)
{
    struct fixture *f = *state;

    render(f); /* no tick yet: every family, no kind */
    assert_non_null(strstr(f->text, "# HELP brink_requests_total "));
    assert_non_null(strstr(f->text, "\n# TYPE brink_requests_total counter\n"));
    assert_non_null(strstr(f->text, "\n# TYPE brink_request_duration_seconds histogram\n"));
    assert_non_null(
        strstr(f->text, "\n# TYPE brink_in_flight gauge\nbrink_in_flight{" RUN "} 0\n"));
    assert_non_null(strstr(f->text, "\nbrink_failed_request_duration_seconds_count{" RUN "} 0\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(counters_add_and_gauges_follow_the_last_tick, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(buckets_are_cumulative_and_end_at_count, setup, teardown),
        cmocka_unit_test(label_values_are_escaped),
        cmocka_unit_test_setup_teardown(hostile_names_render_as_one_line_each, setup, teardown),
        cmocka_unit_test_setup_teardown(help_and_type_precede_each_family, setup, teardown),
        cmocka_unit_test_setup_teardown(every_sample_carries_the_run_label, setup, teardown),
        cmocka_unit_test_setup_teardown(run_ids_are_escaped_and_redacted, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
