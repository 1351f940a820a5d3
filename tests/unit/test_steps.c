/*
 * steps and the report formats: synthetic ticks (counts set directly,
 * histograms put with tick_put_hist) fed to a step table and a summary, then
 * every format printed and checked: the text table, JSON (parsed back with
 * jansson, which the test may link though the report module may not), CSV,
 * HdrHistogram text and the comparison.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/errclass.h"
#include "core/hist.h"
#include "core/steps.h"
#include "core/tick.h"
#include "report/formats.h"
#include "report/summary.h"

#define TEST_DATA_CAP 65536

/* A one-second running closed-model tick at concurrency c with n requests
 * of latency base_us, base_us + 1, ... */
static struct tick *new_tick(uint64_t seq, uint32_t c, uint64_t n, uint64_t base_us)
{
    struct tick *t = tick_new(TEST_DATA_CAP);
    struct hist *h = hist_new();

    t->seq = seq;
    t->start_us = seq * 1000000;
    t->duration_us = 1000000;
    t->state = RUN_RUNNING;
    t->model = LOAD_CLOSED;
    t->target_concurrency = c;
    t->actual_concurrency = c;
    tick_copy_text(t->total.name, sizeof(t->total.name), "total");
    for (uint64_t i = 0; i < n; i++)
        hist_record(h, base_us + i);
    t->total.completed = n;
    t->total.ok = n;
    t->total.bytes_in = n * 1000;
    tick_latency_from_hist(&t->total.window, h);
    assert_int_equal(tick_put_hist(t, &t->total, h), 0);
    hist_free(h);
    return t;
}

static void set_probe(struct tick *t, const char *name, double v)
{
    struct tick_probe *p = &t->probes[t->n_probes++];

    tick_copy_text(p->name, sizeof(p->name), name);
    p->state = PROBE_OK;
    p->has_value = 1;
    p->value = v;
}

/* Adds t to both sinks and frees it. */
static void feed(struct steps *st, struct summary *sum, struct tick *t)
{
    assert_int_equal(steps_add_tick(st, t), 0);
    if (sum)
        assert_int_equal(summary_add_tick(sum, t), 0);
    tick_free(t);
}

/* What a format wrote goes to a temporary file, not open_memstream (see
 * test_summary.c); sink_text reads it back and closes it, the caller frees
 * the string. */
static FILE *sink_open(void)
{
    FILE *f = tmpfile();

    assert_non_null(f);
    return f;
}

static char *sink_text(FILE *f)
{
    long size = ftell(f);
    char *text;

    assert_true(size >= 0);
    text = malloc((size_t)size + 1);
    assert_non_null(text);
    rewind(f);
    assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
    text[size] = '\0';
    assert_int_equal(fclose(f), 0);
    return text;
}

static size_t count_lines(const char *text)
{
    size_t n = 0;

    for (const char *p = text; *p; p++)
        n += *p == '\n';
    return n;
}

static void assert_printable_ascii(const char *text)
{
    for (const char *p = text; *p; p++) {
        if (*p != '\n' && (*p < 0x20 || *p > 0x7e))
            fail_msg("byte 0x%02x at %td in:\n%s", (unsigned char)*p, p - text, text);
    }
}

/* Three steps of three ticks: c=10, 20, 40. */
static void three_steps(struct steps *st, struct summary *sum)
{
    static const uint32_t levels[3] = {10, 20, 40};
    uint64_t seq = 0;

    for (int s = 0; s < 3; s++) {
        for (int i = 0; i < 3; i++, seq++)
            feed(st, sum, new_tick(seq, levels[s], 100 * (uint64_t)(s + 1), 1000 * (s + 1)));
    }
    steps_finish(st);
}

static void three_levels_make_three_rows_adding_up_to_the_total(void **state)
{
    struct steps *st = steps_new();
    struct summary *sum = summary_new();
    struct summary_totals tot;
    uint64_t completed = 0;

    (void)state;
    three_steps(st, sum);
    assert_int_equal(steps_count(st), 3);
    for (size_t i = 0; i < 3; i++) {
        const struct step_row *r = steps_row(st, i);

        completed += r->completed;
        assert_int_equal(r->n_ticks, 3);
        assert_int_equal(r->duration_us, 3000000);
        assert_int_equal(r->start_us, 3000000 * i);
        assert_int_equal(r->timed, r->completed);
    }
    assert_true(steps_row(st, 0)->level == 10.0);
    assert_true(steps_row(st, 2)->level == 40.0);
    assert_int_equal(steps_row(st, 1)->completed, 600);
    /* Latencies 2000..2199 us: the median is near 2100, the max 2199. */
    assert_true(steps_row(st, 1)->p50_us >= 2095 && steps_row(st, 1)->p50_us <= 2105);
    assert_int_equal(steps_row(st, 1)->max_us, 2199);
    assert_int_equal(summary_totals(sum, SUMMARY_TOTAL, &tot), 0);
    assert_int_equal(completed, tot.completed);
    assert_int_equal(steps_row(st, 3), NULL);
    steps_free(st);
    summary_free(sum);
}

static void return_to_a_level_is_a_new_row_and_groups_by_level(void **state)
{
    struct steps *st = steps_new();
    struct step_row r;

    (void)state;
    feed(st, NULL, new_tick(0, 10, 100, 1000));
    feed(st, NULL, new_tick(1, 20, 100, 5000));
    feed(st, NULL, new_tick(2, 10, 300, 3000));
    steps_finish(st);
    assert_int_equal(steps_count(st), 3);
    assert_int_equal(steps_level_count(st), 2);
    assert_int_equal(steps_level(st, 0, &r), 0);
    assert_true(r.level == 10.0);
    assert_int_equal(r.n_rows, 2);
    assert_int_equal(r.completed, 400);
    assert_int_equal(r.duration_us, 2000000);
    assert_int_equal(r.start_us, 0);
    /* Merged, not averaged: 100 values near 1000 and 300 near 3000. */
    assert_int_equal(r.max_us, 3299);
    assert_true(r.p50_us >= 3000 && r.p50_us < 3300);
    assert_int_equal(steps_level(st, 1, &r), 0);
    assert_true(r.level == 20.0);
    assert_int_equal(r.n_rows, 1);
    assert_int_equal(steps_level(st, 2, &r), -ENOENT);
    steps_free(st);
}

static void paused_ticks_fold_into_the_open_row(void **state)
{
    struct steps *st = steps_new();
    struct tick *t;

    (void)state;
    feed(st, NULL, new_tick(0, 10, 100, 1000));
    t = new_tick(1, 10, 5, 1000);
    t->state = RUN_PAUSED;
    t->target_concurrency = 0; /* whatever it says, a pause holds no level */
    feed(st, NULL, t);
    feed(st, NULL, new_tick(2, 10, 100, 1000));
    t = new_tick(3, 10, 0, 0);
    t->state = RUN_DONE;
    feed(st, NULL, t);
    steps_finish(st);
    steps_finish(st); /* harmless */
    assert_int_equal(steps_count(st), 1);
    assert_int_equal(steps_row(st, 0)->completed, 205);
    assert_int_equal(steps_row(st, 0)->duration_us, 3000000); /* the done tick counts */
    assert_int_equal(steps_row(st, 0)->folded_us, 1000000);   /* the pause does not */
    assert_int_equal(steps_row(st, 0)->n_ticks, 4);
    steps_free(st);
}

/* The whole run, for thresholds: every tick's requests and latency (plan
 * warm-ups included), its length less the pauses. */
static void the_whole_run_is_one_row_of_every_tick(void **state)
{
    struct steps *st = steps_new();
    struct step_row run;
    struct tick *t;

    (void)state;
    assert_int_equal(steps_run(st, &run), -ENOENT);
    t = new_tick(0, 10, 100, 1000);
    t->plan.phase = PLAN_WARMUP;
    t->plan.step = 1;
    t->plan.n_steps = 2;
    feed(st, NULL, t);
    feed(st, NULL, new_tick(1, 20, 200, 3000));
    t = new_tick(2, 20, 10, 3000);
    t->state = RUN_PAUSED;
    feed(st, NULL, t);
    steps_finish(st);
    assert_int_equal(steps_run(st, &run), 0);
    assert_int_equal(run.completed, 310);
    assert_int_equal(run.timed, 310);
    assert_int_equal(run.duration_us, 2000000);
    assert_true(run.level == 15.0);                               /* 10 for 1 s, 20 for 1 s */
    assert_true(run.p50_us >= 3000 && run.p50_us <= 3200 * 1.01); /* the 155th of 310 */
    steps_free(st);
}

/* t in step 1 of a 2-step plan whose level is 6, measuring. */
static struct tick *plan_tick(uint64_t seq, uint32_t c)
{
    struct tick *t = new_tick(seq, c, 100, 1000);

    t->plan.phase = PLAN_MEASURE;
    t->plan.step = 1;
    t->plan.n_steps = 2;
    t->plan.level = 6;
    return t;
}

/* A plan step whose level dips within it (an agent lost before its share
 * reached the others): a row per level; the stretch at another level than
 * the plan's is not judged as the plan's, and the text says which level
 * the plan named; the stretch at the plan's level before the dip is
 * closed, so it is not "running" but not judged either. */
static void a_stretch_of_a_step_at_another_level_is_not_judged(void **state)
{
    struct steps *st = steps_new();
    struct tick *t;
    FILE *f;
    char *text;

    (void)state;
    feed(st, NULL, plan_tick(0, 6));
    feed(st, NULL, plan_tick(1, 4));
    feed(st, NULL, plan_tick(2, 6));
    t = plan_tick(3, 6);
    t->plan.verdict = VERDICT_PASS;
    feed(st, NULL, t);
    steps_finish(st);
    assert_int_equal(steps_count(st), 3);
    assert_int_equal(steps_row(st, 0)->verdict, VERDICT_NONE);
    assert_int_equal(steps_row(st, 1)->verdict, VERDICT_OFF_LEVEL);
    assert_true(steps_row(st, 1)->level == 4 && steps_row(st, 1)->plan_level == 6);
    assert_int_equal(steps_row(st, 2)->verdict, VERDICT_PASS);
    assert_false(steps_row_is_off_level(steps_row(st, 2)));
    f = sink_open();
    assert_int_equal(format_steps_text(st, f), 0);
    text = sink_text(f);
    assert_non_null(strstr(text, "not judged: the plan's level is c=6"));
    assert_non_null(strstr(text, "not judged: level changed"));
    assert_null(strstr(text, "running"));
    assert_string_equal(steps_verdict_label(steps_row(st, 0)), "not judged: level changed");
    assert_string_equal(steps_verdict_label(steps_row(st, 2)), "pass");
    free(text);
    steps_free(st);
}

/* Adds kind name to t: n successes of latency us, and failed failures. */
static void add_kind(struct tick *t, const char *name, uint64_t n, uint64_t us, uint64_t failed)
{
    struct tick_kind *k = &t->kinds[t->n_kinds++];
    struct hist *h = hist_new();

    tick_copy_text(k->name, sizeof(k->name), name);
    hist_record_n(h, us, n);
    k->completed = n + failed;
    k->ok = n;
    k->errors[ERR_HTTP_5XX] = failed;
    tick_latency_from_hist(&k->window, h);
    assert_int_equal(tick_put_hist(t, k, h), 0);
    hist_free(h);
}

/* "PUT times at 25 and at 250 users": each step has a row per kind, in
 * the text, JSON-ready rows, the level grouping, CSV and compare; each
 * gives successes and failures per second apart (at 250 users 40 ok/s:
 * put's 10 and get's 30, and put's 5 failed/s). */
static void each_step_has_a_row_per_request_kind(void **state)
{
    struct steps *st = steps_new();
    const struct steps *tables[1];
    const char *labels[1] = {"a"};
    struct step_row lv;
    FILE *f;
    char *text;

    (void)state;
    for (uint64_t i = 0; i < 4; i++) {
        struct tick *t = new_tick(i, i < 2 ? 25 : 250, 0, 0);

        add_kind(t, "put", 10, i < 2 ? 2000 : 90000, i < 2 ? 0 : 5);
        add_kind(t, "get", 30, 500, 0);
        t->total.ok = 40;
        t->total.errors[ERR_HTTP_5XX] = i < 2 ? 0 : 5;
        t->total.completed = 40 + t->total.errors[ERR_HTTP_5XX];
        feed(st, NULL, t);
    }
    steps_finish(st);
    assert_int_equal(steps_n_kinds(st), 2);
    assert_string_equal(steps_kind_name(st, 0), "put");
    assert_int_equal(steps_row(st, 0)->kinds[0].completed, 20);
    assert_true(steps_row(st, 0)->kinds[0].p99_us >= 1980 &&
                steps_row(st, 0)->kinds[0].p99_us <= 2020);
    assert_int_equal(steps_row(st, 1)->kinds[0].completed, 30);
    assert_int_equal(steps_row(st, 1)->kinds[0].ok, 20);
    assert_true(steps_row(st, 1)->kinds[0].p99_us >= 89100 &&
                steps_row(st, 1)->kinds[0].p99_us <= 90900);
    assert_true(steps_kind_rate(steps_row(st, 1), 1) > 29.9 &&
                steps_kind_rate(steps_row(st, 1), 1) < 30.1);
    assert_int_equal(steps_level(st, 1, &lv), 0);
    assert_int_equal(lv.kinds[0].timed, 20);
    assert_true(lv.kinds[0].p50_us >= 89100 && lv.kinds[0].p50_us <= 90900);

    f = sink_open();
    assert_int_equal(format_steps_text(st, f), 0);
    text = sink_text(f);
    assert_non_null(strstr(text, "\nsteps by kind:\n"));
    assert_non_null(strstr(text, "  requests  ok/s  failed/s  MB/s in  "));
    assert_non_null(strstr(text, "\n  c=250  2.00s     2.00s        90  40.0       5.0 "));
    assert_non_null(strstr(text, "  level  kind  requests  ok/s  failed  failed/s  "));
    assert_non_null(strstr(
        text, "\n  c=250  put         30  10.0      10       5.0  90.0ms  90.0ms  90.0ms\n"));
    free(text);

    f = sink_open();
    assert_int_equal(format_steps_csv(st, f), 0);
    text = sink_text(f);
    assert_non_null(strstr(text, "\r\n2,closed,250,\"put\",2000000,2000000,30,20,10,,15.000,"));
    assert_non_null(strstr(text, ",max_us,verdict,ok_per_s,failed_per_s,p95_us\r\n"));
    assert_non_null(strstr(text, ",10.000,5.000,"));
    assert_non_null(strstr(text, ",40.000,5.000,"));
    assert_non_null(strstr(text, "\r\n1,closed,25,\"total\","));
    free(text);

    f = sink_open();
    tables[0] = st;
    assert_int_equal(format_compare(tables, labels, 1, f), 0);
    text = sink_text(f);
    assert_non_null(strstr(text, "     ok/s   failed/s       p50       p99    errors\n"));
    assert_non_null(strstr(text, "\n  c=250              40.0        5.0 "));
    assert_non_null(strstr(text, "\n    put    "));
    assert_non_null(strstr(text, "\n    get    "));
    free(text);
    steps_free(st);
}

/* csv-steps: each step's line "total" says how many requests it sent
 * again, all causes (a kind's line leaves it empty). */
static void csv_steps_counts_the_requests_sent_again(void **state)
{
    struct steps *st = steps_new();
    FILE *f;
    char *text;

    (void)state;
    for (uint64_t i = 0; i < 4; i++) {
        struct tick *t = new_tick(i, i < 2 ? 10 : 20, 100, 1000);

        if (i >= 2)
            t->resent[RESEND_CLOSED_IDLE] = 4;
        if (i == 3)
            t->resent[RESEND_REFUSED_STREAM] = 1;
        feed(st, NULL, t);
    }
    steps_finish(st);
    f = sink_open();
    assert_int_equal(format_steps_csv(st, f), 0);
    text = sink_text(f);
    assert_non_null(strstr(text, ",requests,ok,failed,resent,req_per_s,"));
    assert_non_null(strstr(text, "\r\n1,closed,10,\"total\",0,2000000,200,200,0,0,100.000,"));
    assert_non_null(strstr(text, "\r\n2,closed,20,\"total\",2000000,2000000,200,200,0,9,100.000,"));
    free(text);
    steps_free(st);
}

/* A closed run that ends on --duration or --requests: its last tick (DONE)
 * holds most of the requests; its length must count with them. */
static void the_runs_tail_counts_its_length_with_its_requests(void **state)
{
    struct steps *st = steps_new();
    struct tick *t;

    (void)state;
    feed(st, NULL, new_tick(0, 10, 1000, 100));
    t = new_tick(1, 10, 180, 100);
    t->state = RUN_DONE;
    t->duration_us = 180000;
    feed(st, NULL, t);
    steps_finish(st);
    assert_int_equal(steps_count(st), 1);
    assert_int_equal(steps_row(st, 0)->completed, 1180);
    assert_int_equal(steps_row(st, 0)->duration_us, 1180000);
    assert_true(steps_row_ok_rate(steps_row(st, 0)) > 999.0);
    assert_true(steps_row_ok_rate(steps_row(st, 0)) < 1001.0);
    steps_free(st);
}

/* A plan's last step, then the drain after its stop: the replies come in
 * the stopping and done ticks, but the step held its level for the hold
 * alone (the stop began 200 ms into the first stopping tick). */
static void the_drain_after_the_stop_is_folded_out_of_the_duration(void **state)
{
    struct steps *st = steps_new();
    struct tick *t;

    (void)state;
    for (uint64_t i = 0; i < 3; i++)
        feed(st, NULL, new_tick(i, 4, i == 2 ? 4 : 0, 2500000));
    t = new_tick(3, 4, 0, 0);
    t->state = RUN_STOPPING;
    t->drain_us = 800000;
    feed(st, NULL, t);
    t = new_tick(4, 4, 4, 2500000);
    t->state = RUN_DONE;
    t->drain_us = 1000000;
    feed(st, NULL, t);
    steps_finish(st);
    assert_int_equal(steps_count(st), 1);
    assert_int_equal(steps_row(st, 0)->completed, 8);
    assert_int_equal(steps_row(st, 0)->duration_us, 3200000);
    assert_int_equal(steps_row(st, 0)->folded_us, 1800000);
    assert_true(steps_row_ok_rate(steps_row(st, 0)) == 2.5);
    steps_free(st);
}

static void probes_keep_max_and_last_per_step(void **state)
{
    struct steps *st = steps_new();
    static const double cpu[6] = {5, 9, 7, 20, 30, 25};
    const struct step_row *r;

    (void)state;
    for (int i = 0; i < 6; i++) {
        struct tick *t = new_tick((uint64_t)i, i < 3 ? 10 : 20, 10, 1000);

        set_probe(t, "cpu", cpu[i]);
        if (i == 4)
            set_probe(t, "late", 1.5);
        feed(st, NULL, t);
    }
    steps_finish(st);
    assert_int_equal(steps_n_probes(st), 2);
    assert_string_equal(steps_probe_name(st, 0), "cpu");
    assert_null(steps_probe_name(st, 2));
    r = steps_row(st, 0);
    assert_true(r->probes[0].has_value && r->probes[0].max == 9 && r->probes[0].last == 7);
    assert_false(r->probes[1].has_value);
    r = steps_row(st, 1);
    assert_true(r->probes[0].max == 30 && r->probes[0].last == 25);
    assert_true(r->probes[1].has_value && r->probes[1].last == 1.5);
    steps_free(st);
}

static void errors_are_counted_per_step(void **state)
{
    struct steps *st = steps_new();
    struct tick *t;

    (void)state;
    feed(st, NULL, new_tick(0, 10, 100, 1000));
    t = new_tick(1, 20, 100, 1000);
    t->total.errors[ERR_RESET] = 3;
    t->total.errors[ERR_HTTP_5XX] = 4;
    t->total.ok -= 7;
    feed(st, NULL, t);
    t = new_tick(2, 20, 100, 1000);
    t->total.errors[ERR_RESET] = 2;
    feed(st, NULL, t);
    steps_finish(st);
    assert_int_equal(steps_row_failed(steps_row(st, 0)), 0);
    assert_int_equal(steps_row(st, 1)->errors[ERR_RESET], 5);
    assert_int_equal(steps_row(st, 1)->errors[ERR_HTTP_5XX], 4);
    assert_int_equal(steps_row_failed(steps_row(st, 1)), 9);
    steps_free(st);
}

static void open_model_steps_by_rate(void **state)
{
    struct steps *st = steps_new();
    struct tick *t;

    (void)state;
    for (int i = 0; i < 4; i++) {
        t = new_tick((uint64_t)i, 0, 10, 1000);
        t->model = LOAD_OPEN;
        t->target_rate_per_s = i < 2 ? 100.0 : 250.0;
        feed(st, NULL, t);
    }
    steps_finish(st);
    assert_int_equal(steps_count(st), 2);
    assert_int_equal(steps_row(st, 1)->model, LOAD_OPEN);
    assert_true(steps_row(st, 1)->level == 250.0);
    steps_free(st);
}

static void rows_past_the_cap_are_counted(void **state)
{
    struct steps *st = steps_new();
    struct step_row r;
    uint64_t completed;

    (void)state;
    for (uint64_t i = 0; i < STEPS_MAX_ROWS + 5; i++)
        feed(st, NULL, new_tick(i, i % 2 ? 20 : 10, 1, 1000));
    steps_finish(st);
    assert_int_equal(steps_count(st), STEPS_MAX_ROWS);
    assert_int_equal(steps_rows_not_kept(st), 5);
    assert_int_equal(steps_completed_not_kept(st), 5);
    assert_int_equal(steps_level(st, 0, &r), 0);
    completed = r.completed;
    assert_int_equal(steps_level(st, 1, &r), 0);
    assert_int_equal(completed + r.completed, STEPS_MAX_ROWS + 5);
    steps_free(st);
}

static void text_table_has_a_row_per_step_and_columns_for_errors_and_probes(void **state)
{
    struct steps *st = steps_new();
    FILE *f = sink_open();
    char *text;
    struct tick *t;

    (void)state;
    t = new_tick(0, 10, 100, 1000);
    set_probe(t, "cpu\x1b[2J", 12.5);
    feed(st, NULL, t);
    t = new_tick(1, 40, 200, 1000);
    t->total.errors[ERR_TIMEOUT] = 2;
    set_probe(t, "cpu\x1b[2J", 80);
    feed(st, NULL, t);
    steps_finish(st);
    assert_int_equal(format_steps_text(st, f), 0);
    text = sink_text(f);
    assert_printable_ascii(text);
    assert_int_equal(count_lines(text), 2 + 1 + 2);
    assert_non_null(strstr(text, "\nsteps: 2\n"));
    assert_non_null(strstr(text, "timeout  cpu\\e[2J max  cpu\\e[2J last\n"));
    assert_non_null(strstr(text, "  c=10 "));
    assert_non_null(strstr(text, "  c=40 "));
    assert_null(strstr(text, "reset"));
    free(text);
    steps_free(st);
}

static void csv_has_a_line_per_tick_and_quotes_hostile_names(void **state)
{
    struct steps *st = steps_new();
    struct format_csv *c;
    FILE *f = sink_open();
    char *text;

    (void)state;
    c = format_csv_new(f, NULL);
    for (uint64_t i = 0; i < 5; i++) {
        struct tick *t = new_tick(i, 10, 10, 1000);

        set_probe(t, "a,\"b\"\nc", (double)i);
        assert_int_equal(format_csv_tick(c, t), 0);
        feed(st, NULL, t);
    }
    assert_int_equal(format_csv_finish(c), 0);
    format_csv_free(c);
    text = sink_text(f);
    assert_int_equal(count_lines(text), 6);
    assert_non_null(strstr(text, ",err_refused,"));
    /* Columns added after the probes: successes and failures per second,
     * and the agents a tick misses (empty: a run without agents). */
    assert_non_null(strstr(text,
                           ",\"a,\"\"b\"\"\\nc\",ok_per_s,failed_per_s,agents_missing,p95_us,url,"
                           "urls,start_time,brink_version,command_line\r\n"));
    assert_non_null(strstr(text, "\r\n4,4000000,1000000,running,10,10,0,10,10,10.000,10000,"));
    /* Then the p95 and, with no facts of the run given, five empty cells. */
    assert_non_null(strstr(text, ",4,10.000,0.000,,"));
    assert_non_null(strstr(text, ",,,,,\r\n"));
    free(text);
    steps_free(st);
    format_csv_free(NULL);
}

static void hdr_output_parses_with_monotonic_percentiles(void **state)
{
    struct summary *sum = summary_new();
    struct steps *st = steps_new();
    struct summary_totals tot;
    FILE *f = sink_open();
    static const char head[] = "       Value     Percentile TotalCount 1/(1-Percentile)\n\n";
    char *text, *line, *save = NULL;
    double last_pct = -1.0, last_value = -1.0;
    unsigned long long last_count = 0, total = 0;
    int rows = 0;

    (void)state;
    three_steps(st, sum);
    assert_int_equal(summary_totals(sum, SUMMARY_TOTAL, &tot), 0);
    assert_int_equal(format_hdr(tot.hist, f), 0);
    text = sink_text(f);
    assert_true(strncmp(text, head, strlen(head)) == 0);
    for (line = strtok_r(text + strlen(head), "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        double v, p;
        unsigned long long n;

        if (line[0] == '#') {
            if (sscanf(line, "#[Max     = %lf, Total count    = %llu]", &v, &total) == 2)
                assert_true(v == 3.299);
            continue;
        }
        assert_true(sscanf(line, "%lf %lf %llu", &v, &p, &n) == 3);
        assert_true(p >= last_pct && v >= last_value && n >= last_count);
        last_pct = p, last_value = v, last_count = n;
        rows++;
    }
    assert_true(rows > 20);
    assert_true(last_pct == 1.0);
    assert_int_equal(last_count, tot.completed);
    assert_int_equal(total, tot.completed);
    free(text);
    summary_free(sum);
    steps_free(st);
}

static void hdr_of_an_empty_histogram_has_header_and_footer(void **state)
{
    struct hist *h = hist_new();
    FILE *f = sink_open();
    char *text;

    (void)state;
    assert_int_equal(format_hdr(h, f), 0);
    text = sink_text(f);
    assert_int_equal(count_lines(text), 5);
    assert_non_null(strstr(text, "Total count    =            0]"));
    assert_non_null(strstr(text, "#[Buckets =           22, SubBuckets     =         2048]"));
    free(text);
    hist_free(h);
}

static void json_is_valid_and_holds_totals_steps_and_kinds(void **state)
{
    struct summary *sum = summary_new();
    struct steps *st = steps_new();
    FILE *f = sink_open();
    json_error_t err;
    json_t *doc, *steps;
    struct report_verdicts v = {0};
    char *text;
    struct tick *t;

    (void)state;
    t = new_tick(0, 10, 100, 1000);
    set_probe(t, "q\"\\\x01\xff\xe2\x80\xae", 3); /* quote, backslash, control, bad UTF-8, bidi */
    tick_copy_text(t->kinds[0].name, TICK_NAME_MAX, "get\n");
    t->kinds[0].completed = 100;
    t->n_kinds = 1;
    feed(st, sum, t);
    feed(st, sum, new_tick(1, 20, 50, 1000));
    steps_finish(st);
    v.n_rules = 2;
    v.n_failed = 1;
    tick_copy_text(v.why[0], sizeof(v.why[0]), "error_rate 5.00% > 1.00% (5 of 100 failed)");
    assert_int_equal(format_json(sum, st, &v, NULL, f), 0);
    text = sink_text(f);
    doc = json_loads(text, JSON_REJECT_DUPLICATES, &err);
    if (doc == NULL)
        fail_msg("invalid JSON at %d: %s\n%s", err.position, err.text, text);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "total"), "requests")),
                     150);
    steps = json_object_get(doc, "steps");
    assert_int_equal(json_array_size(steps), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(steps, 1), "requests")), 50);
    assert_string_equal(
        json_string_value(json_object_get(
            json_array_get(json_object_get(json_array_get(steps, 0), "probes"), 0), "name")),
        "q\"\\\x01\xef\xbf\xbd\xe2\x80\xae");
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(doc, "kinds"), 0), "name")),
                        "get\n");
    assert_true(json_is_null(json_object_get(
        json_array_get(json_object_get(json_array_get(steps, 1), "probes"), 0), "max")));
    assert_int_equal(json_array_size(json_object_get(doc, "levels")), 2);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(doc, "thresholds"), "conditions")), 2);
    assert_string_equal(json_string_value(json_array_get(
                            json_object_get(json_object_get(doc, "thresholds"), "failed"), 0)),
                        "error_rate 5.00% > 1.00% (5 of 100 failed)");
    json_decref(doc);
    free(text);
    summary_free(sum);
    steps_free(st);
}

static void compare_aligns_levels_and_leaves_blanks(void **state)
{
    struct steps *a = steps_new(), *b = steps_new();
    struct tick *t;
    const struct steps *tables[2] = {a, b};
    const char *labels[2] = {"release", "feature\x1b"};
    FILE *f = sink_open();
    char *text;

    (void)state;
    feed(a, NULL, new_tick(0, 10, 100, 1000));
    feed(a, NULL, new_tick(1, 20, 200, 1000));
    feed(a, NULL, new_tick(2, 10, 100, 1000));
    feed(b, NULL, new_tick(0, 20, 300, 1000));
    t = new_tick(1, 40, 400, 1000);
    t->resent[RESEND_REFUSED_STREAM] = 7;
    feed(b, NULL, t);
    steps_finish(a);
    steps_finish(b);
    assert_int_equal(format_compare(tables, labels, 2, f), 0);
    text = sink_text(f);
    assert_printable_ascii(text);
    /* Under the table, b's requests sent again; a sent none. */
    assert_int_equal(count_lines(text), 2 + 3 + 1);
    assert_non_null(strstr(text, "\n  feature\\e: sent again 7 (refused_stream 7)\n"));
    assert_non_null(strstr(text, "release"));
    assert_non_null(strstr(text, "feature\\e"));
    /* c=10: only a (200 requests over 2 s), nothing after it. */
    assert_non_null(strstr(
        text, "\n  level              ok/s   failed/s       p50       p99    errors       ok/s"));
    assert_non_null(
        strstr(text, "\n  c=10                100        0.0    1.05ms    1.10ms         0\n"));
    /* c=40: a's group blank, then b's. */
    assert_non_null(strstr(
        text, "\n  c=40                                                                    400 "));
    free(text);
    steps_free(a);
    steps_free(b);
}

/* A staircase of one tick per level whose successes follow the Universal
 * Scalability Law (lambda 200, sigma, kappa), as a ramp plan's steps; with
 * drain, the run's drain after it (its completions fold into the last
 * row: the fit must not count them as throughput). */
static void usl_staircase_drained(struct steps *st, double sigma, double kappa, size_t n_levels,
                                  int drain)
{
    static const uint32_t levels[] = {1, 2, 4, 8, 16, 24, 32, 48, 64};

    for (size_t i = 0; i < n_levels; i++) {
        double n = levels[i];
        struct tick *t =
            new_tick(i, levels[i],
                     (uint64_t)(200 * n / (1 + sigma * (n - 1) + kappa * n * (n - 1)) + 0.5), 1000);

        t->plan.phase = PLAN_MEASURE;
        t->plan.step = (uint32_t)i + 1;
        t->plan.n_steps = (uint32_t)n_levels;
        t->plan.level = n;
        t->plan.verdict = VERDICT_PASS;
        feed(st, NULL, t);
    }
    if (drain) {
        struct tick *t = new_tick(n_levels, levels[n_levels - 1], 500, 1000);

        t->state = RUN_DONE;
        t->drain_us = t->duration_us;
        feed(st, NULL, t);
    }
    steps_finish(st);
}

static void usl_staircase(struct steps *st, double sigma, double kappa, size_t n_levels)
{
    usl_staircase_drained(st, sigma, kappa, n_levels, 0);
}

static json_t *json_report(const struct steps *st)
{
    struct summary *sum = summary_new();
    FILE *f = sink_open();
    json_error_t err;
    json_t *doc;
    char *text;

    assert_int_equal(format_json(sum, st, NULL, NULL, f), 0);
    text = sink_text(f);
    doc = json_loads(text, JSON_REJECT_DUPLICATES, &err);
    if (doc == NULL)
        fail_msg("invalid JSON at %d: %s\n%s", err.position, err.text, text);
    free(text);
    summary_free(sum);
    return doc;
}

static double usl_figure(json_t *doc, const char *key)
{
    return json_number_value(
        json_object_get(json_object_get(json_object_get(doc, "capacity"), "usl"), key));
}

/* The fit under the step table and in JSON under capacity.usl. */
static void the_steps_fit_the_universal_scalability_law(void **state)
{
    struct steps *st = steps_new();
    FILE *f = sink_open();
    json_t *doc;
    char *text;

    (void)state;
    usl_staircase(st, 0.05, 0.001, 9);
    assert_int_equal(format_steps_text(st, f), 0);
    text = sink_text(f);
    assert_non_null(strstr(text, "\ncapacity: USL fit: sigma 0.0499, kappa 0.001, lambda 199.9 "
                                 "req/s (r2 1.000, 9 steps): peak c=31 at 1807 req/s\n"));
    free(text);
    doc = json_report(st);
    assert_true(fabs(usl_figure(doc, "sigma") - 0.05) < 0.001);
    assert_true(fabs(usl_figure(doc, "kappa") - 0.001) < 0.00002);
    assert_true(fabs(usl_figure(doc, "lambda") - 200) < 1);
    assert_true(fabs(usl_figure(doc, "peak_users") - 30.82) < 0.1);
    assert_true(usl_figure(doc, "peak_throughput") > 1700);
    assert_true(usl_figure(doc, "r2") > 0.9999);
    json_decref(doc);
    /* The same with the run's drain after the last step: the same fit. */
    steps_free(st);
    st = steps_new();
    usl_staircase_drained(st, 0.05, 0.001, 9, 1);
    assert_true(steps_row_ok_rate(steps_row(st, 8)) > 2000);
    doc = json_report(st);
    assert_true(fabs(usl_figure(doc, "sigma") - 0.05) < 0.001);
    assert_true(fabs(usl_figure(doc, "kappa") - 0.001) < 0.00002);
    assert_true(json_is_null(
        json_object_get(json_object_get(json_object_get(doc, "capacity"), "usl"), "ceiling")));
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(json_object_get(doc, "capacity"), "usl"), "steps")),
                     9);
    json_decref(doc);
    steps_free(st);
}

/* A plan of three levels: the fit is refused, and the reports say why; a
 * run at two levels held by hand asked nothing of it. */
static void a_fit_the_steps_cannot_support_is_refused(void **state)
{
    struct steps *st = steps_new(), *by_hand = steps_new();
    FILE *f = sink_open();
    json_t *doc, *cap;
    char *text;

    (void)state;
    usl_staircase(st, 0.05, 0.001, 3);
    assert_int_equal(format_steps_text(st, f), 0);
    text = sink_text(f);
    assert_non_null(strstr(text, "\ncapacity: USL fit: none: 3 levels with successes: the fit "
                                 "needs 4 levels, from 1 user up to well past the knee\n"));
    free(text);
    doc = json_report(st);
    cap = json_object_get(doc, "capacity");
    assert_true(json_is_null(json_object_get(cap, "usl")));
    assert_string_equal(json_string_value(json_object_get(cap, "usl_refused")),
                        "3 levels with successes: the fit needs 4 levels, from 1 user up to well "
                        "past the knee");
    json_decref(doc);
    three_steps(by_hand, NULL);
    f = sink_open();
    assert_int_equal(format_steps_text(by_hand, f), 0);
    text = sink_text(f);
    assert_null(strstr(text, "capacity"));
    free(text);
    doc = json_report(by_hand);
    cap = json_object_get(doc, "capacity");
    assert_true(json_is_null(json_object_get(cap, "usl")));
    assert_null(json_object_get(cap, "usl_refused"));
    json_decref(doc);
    steps_free(st);
    steps_free(by_hand);
}

/* compare: each session's fit, and which scales better by how much. */
static void compare_says_which_run_scales_better(void **state)
{
    struct steps *a = steps_new(), *b = steps_new();
    const struct steps *tables[2] = {a, b};
    const char *labels[2] = {"coherent", "amdahl"};
    FILE *f = sink_open();
    char *text;

    (void)state;
    usl_staircase(a, 0.05, 0.001, 9);
    usl_staircase(b, 0.05, 0, 9);
    assert_int_equal(format_compare(tables, labels, 2, f), 0);
    text = sink_text(f);
    assert_printable_ascii(text);
    assert_non_null(strstr(text, "\ncapacity (the Universal Scalability Law fitted to each):\n"
                                 "  coherent: USL fit: sigma 0.0499, kappa 0.001,"));
    assert_non_null(strstr(text, "\n  amdahl: USL fit: sigma 0.05, kappa 0, lambda 200.1 req/s "
                                 "(r2 1.000, 9 steps): no peak (kappa 0): ceiling 4000 "
                                 "req/s\n"));
    assert_non_null(strstr(text, "\n  amdahl scales better: 2.21x coherent's capacity (4,000 vs "
                                 "1,807 req/s, no peak vs peak at c=31)\n"));
    free(text);
    steps_free(a);
    steps_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(three_levels_make_three_rows_adding_up_to_the_total),
        cmocka_unit_test(return_to_a_level_is_a_new_row_and_groups_by_level),
        cmocka_unit_test(paused_ticks_fold_into_the_open_row),
        cmocka_unit_test(the_runs_tail_counts_its_length_with_its_requests),
        cmocka_unit_test(the_drain_after_the_stop_is_folded_out_of_the_duration),
        cmocka_unit_test(the_whole_run_is_one_row_of_every_tick),
        cmocka_unit_test(a_stretch_of_a_step_at_another_level_is_not_judged),
        cmocka_unit_test(each_step_has_a_row_per_request_kind),
        cmocka_unit_test(csv_steps_counts_the_requests_sent_again),
        cmocka_unit_test(probes_keep_max_and_last_per_step),
        cmocka_unit_test(errors_are_counted_per_step),
        cmocka_unit_test(open_model_steps_by_rate),
        cmocka_unit_test(rows_past_the_cap_are_counted),
        cmocka_unit_test(text_table_has_a_row_per_step_and_columns_for_errors_and_probes),
        cmocka_unit_test(csv_has_a_line_per_tick_and_quotes_hostile_names),
        cmocka_unit_test(hdr_output_parses_with_monotonic_percentiles),
        cmocka_unit_test(hdr_of_an_empty_histogram_has_header_and_footer),
        cmocka_unit_test(json_is_valid_and_holds_totals_steps_and_kinds),
        cmocka_unit_test(compare_aligns_levels_and_leaves_blanks),
        cmocka_unit_test(the_steps_fit_the_universal_scalability_law),
        cmocka_unit_test(a_fit_the_steps_cannot_support_is_refused),
        cmocka_unit_test(compare_says_which_run_scales_better),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
