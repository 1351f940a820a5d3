/* Session files: the format round trip, the golden file and every prefix of
 * it, a damaged file's notices, stored histograms and their size. */
#include <errno.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record_fixture.h"
#include "record/internal.h"

#define GOLDEN BRINK_SOURCE_DIR "/tests/data/sessions/golden.jsonl"
#define GOLDEN_V1 BRINK_SOURCE_DIR "/tests/data/sessions/golden-v1.jsonl"
#define GOLDEN_TICKS 10
#define GOLDEN_CONFIG                                                                              \
    "[target]\nurl = https://shop.example/api?token=<redacted>\n"                                  \
    "header = Authorization: <redacted>\nheader = X-Api-Key: ${API_KEY}\n\n"                       \
    "[load]\nconcurrency = 100\n"

/* Notices gathered by a reader. */
struct notes {
    int n;
    uint64_t lines[64];
    char text[64][RECORD_REASON_MAX + 200];
};

static void collect(void *arg, uint64_t line, const char *msg)
{
    struct notes *nt = arg;

    if (nt->n < 64) {
        nt->lines[nt->n] = line;
        snprintf(nt->text[nt->n], sizeof(nt->text[0]), "%s", msg);
    }
    nt->n++;
}

static int notes_have(const struct notes *nt, const char *needle)
{
    for (int i = 0; i < nt->n && i < 64; i++) {
        if (strstr(nt->text[i], needle))
            return 1;
    }
    return 0;
}

/* Writes the golden session to path (the same bytes every time). */
static const char *const golden_urls[] = {"https://shop.example/api?token=<redacted len=6>",
                                          "https://shop.example/cart"};

static void write_golden(const char *path)
{
    struct record_header_info hi = {
        .brink_version = "0.1.0",
        .start_wall_ms = 1764531600000ULL,
        .host = "loadgen-1",
        .config_text = GOLDEN_CONFIG,
        .command_line = "brink run -f shop.ini -H 'Authorization: <redacted len=9>'",
        .urls = golden_urls,
        .n_urls = 2};
    struct record_trailer_info ti = {
        .is_complete = 1, .reason = "done", .end_wall_ms = 1764531610000ULL};
    struct record_writer *w;
    char err[256];

    assert_int_equal(record_open(path, &hi, err, sizeof(err), &w), 0);
    for (uint64_t i = 0; i < GOLDEN_TICKS; i++) {
        struct tick *t = fx_tick(i, 2, 120, 1);

        assert_int_equal(record_write_tick(w, t), 0);
        tick_free(t);
    }
    assert_int_equal(record_close(w, &ti), 0);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

static void ticks_read_back_identical_field_by_field(void **state)
{
    char path[128], err[256];
    struct record_header_info hi = {.start_wall_ms = 5, .host = "h", .config_text = "[load]\n"};
    struct record_trailer_info ti = {.is_complete = 1, .reason = "done", .end_wall_ms = 9};
    struct record_writer *w;
    struct record_reader *r;
    struct tick *in[6], *out;
    struct notes nt = {0};

    (void)state;
    fx_temp_path(path, sizeof(path), "roundtrip.jsonl");
    assert_int_equal(record_open(path, &hi, err, sizeof(err), &w), 0);
    for (int i = 0; i < 6; i++) {
        in[i] = fx_tick((uint64_t)i, 1 + (uint32_t)i % 3, 3000, i % 2 == 0);
        assert_int_equal(record_write_tick(w, in[i]), 0);
    }
    assert_int_equal(record_writer_ticks(w), 6);
    assert_int_equal(record_close(w, &ti), 0);
    assert_int_equal(record_read_open(path, collect, &nt, err, sizeof(err), &r), 0);
    assert_string_equal(record_read_header(r)->brink, BRINK_VERSION);
    assert_string_equal(record_read_header(r)->host, "h");
    assert_string_equal(record_read_header(r)->config_text, "[load]\n");
    assert_int_equal(record_read_header(r)->start_wall_ms, 5);
    assert_true(record_read_header(r)->hist_precision == RECORD_HIST_PRECISION);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(record_read_next(r, &out), 1);
        fx_assert_same_tick(in[i], out);
        tick_free(out);
        tick_free(in[i]);
    }
    assert_int_equal(record_read_next(r, &out), 0);
    assert_null(out);
    assert_int_equal(nt.n, 0);
    assert_non_null(record_read_trailer(r));
    assert_int_equal(record_read_trailer(r)->ticks, 6);
    assert_true(record_read_trailer(r)->is_complete);
    assert_string_equal(record_read_trailer(r)->reason, "done");
    assert_int_equal(record_read_trailer(r)->end_wall_ms, 9);
    record_read_close(r);
    unlink(path);
}

/* An open-model tick: fx_tick's, plus service times, send lags and the
 * schedule's figures. */
static struct tick *open_tick(uint64_t seq)
{
    struct tick *base = fx_tick(seq, 2, 1000, 1);
    struct hist *h = hist_new(), *lag = hist_new();
    struct tick *t;
    uint64_t rng = seq + 7;

    for (int i = 0; i < 1000; i++) {
        hist_record(h, fx_latency_us(&rng, 400.0, 0.3));
        hist_record(lag, (uint64_t)i % 61);
    }
    t = tick_new(base->data_len + hist_encode(h, NULL, 0) + hist_encode(lag, NULL, 0));
    memcpy(t, base, offsetof(struct tick, data_cap));
    memcpy(t->data, base->data, base->data_len);
    t->data_len = base->data_len;
    t->model = LOAD_OPEN;
    t->target_rate_per_s = 1000;
    t->max_in_flight = 4;
    t->sched_called = 1000;
    t->sched_backlog = 96;
    t->sched_lag_us = 1000000;
    t->sched_capped = 120;
    t->service.started = 1000;
    t->service.completed = 1000;
    tick_latency_from_hist(&t->service.window, h);
    tick_latency_from_hist(&t->service.run, h);
    assert_int_equal(tick_put_hist(t, &t->service, h), 0);
    t->send_lag.started = 1000;
    t->send_lag.completed = 1000;
    tick_latency_from_hist(&t->send_lag.window, lag);
    tick_latency_from_hist(&t->send_lag.run, lag);
    assert_int_equal(tick_put_hist(t, &t->send_lag, lag), 0);
    hist_free(lag);
    hist_free(h);
    tick_free(base);
    return t;
}

static void open_model_ticks_read_back_with_service_times_and_schedule(void **state)
{
    char path[128], err[256];
    struct record_header_info hi = {.start_wall_ms = 5, .host = "h", .config_text = ""};
    struct record_trailer_info ti = {.is_complete = 1, .reason = "done", .end_wall_ms = 9};
    struct record_writer *w;
    struct record_reader *r;
    struct tick *in = open_tick(3), *out;
    struct notes nt = {0};

    (void)state;
    fx_temp_path(path, sizeof(path), "open.jsonl");
    assert_int_equal(record_open(path, &hi, err, sizeof(err), &w), 0);
    assert_int_equal(record_write_tick(w, in), 0);
    assert_int_equal(record_close(w, &ti), 0);
    assert_int_equal(record_read_open(path, collect, &nt, err, sizeof(err), &r), 0);
    assert_int_equal(record_read_next(r, &out), 1);
    fx_assert_same_tick(in, out);
    assert_string_equal(out->service.name, "service");
    assert_string_equal(out->send_lag.name, "send_lag");
    assert_int_equal(out->send_lag.window.count, 1000);
    assert_int_equal(out->send_lag.window.max_us, 60);
    assert_false(tick_schedule_kept(out));
    tick_free(out);
    record_read_close(r);
    unlink(path);
    tick_free(in);
    assert_int_equal(nt.n, 0);
}

/* Files written before send lags existed have open ticks without them: they
 * read as none, the rest of the tick unchanged; closed ticks never carry them. */
static void open_ticks_without_send_lag_read_as_none(void **state)
{
    struct tick *in = open_tick(4), *closed = fx_tick(5, 1, 500, 1), *out;
    json_t *o = record__tick_to_json(in);
    char why[256];

    (void)state;
    assert_non_null(json_object_get(o, "send_lag"));
    assert_int_equal(json_object_del(o, "send_lag"), 0);
    assert_int_equal(record__tick_from_json(o, &out, why, sizeof(why)), 0);
    assert_string_equal(out->send_lag.name, "send_lag");
    assert_int_equal(out->send_lag.completed, 0);
    assert_int_equal(out->send_lag.window.count, 0);
    assert_int_equal(out->send_lag.hist_len, 0);
    fx_assert_same_kind(in, &in->service, out, &out->service);
    assert_int_equal(out->sched_called, in->sched_called);
    json_decref(o);
    tick_free(out);
    o = record__tick_to_json(closed);
    assert_null(json_object_get(o, "send_lag"));
    json_decref(o);
    tick_free(closed);
    tick_free(in);
}

/* A script's check keeps its passes and what it is, and a tick after the
 * stop its drain; files without them read them as a probe and no drain. */
static void marks_and_drain_read_back_and_are_optional(void **state)
{
    struct tick *in = fx_tick(7, 1, 500, 1), *out;
    struct tick_probe *p = &in->probes[in->n_probes++];
    json_t *o, *probes;
    char why[256];

    (void)state;
    tick_copy_text(p->name, TICK_NAME_MAX, "check:read is 200");
    p->state = PROBE_OK;
    p->has_value = 1;
    p->value = 3;
    p->mark = TICK_MARK_CHECK;
    p->passed = 1234;
    in->drain_us = 400000;
    o = record__tick_to_json(in);
    assert_int_equal(record__tick_from_json(o, &out, why, sizeof(why)), 0);
    assert_int_equal(out->n_probes, in->n_probes);
    assert_int_equal(out->probes[in->n_probes - 1].mark, TICK_MARK_CHECK);
    assert_int_equal(out->probes[in->n_probes - 1].passed, 1234);
    assert_int_equal(out->probes[0].mark, TICK_MARK_NONE);
    assert_int_equal(out->drain_us, 400000);
    tick_free(out);
    probes = json_object_get(o, "probes");
    json_object_del(json_array_get(probes, json_array_size(probes) - 1), "mark");
    json_object_del(json_array_get(probes, json_array_size(probes) - 1), "passed");
    json_object_del(o, "drain_us");
    assert_int_equal(record__tick_from_json(o, &out, why, sizeof(why)), 0);
    assert_int_equal(out->probes[in->n_probes - 1].mark, TICK_MARK_NONE);
    assert_int_equal(out->probes[in->n_probes - 1].passed, 0);
    assert_int_equal(out->drain_us, 0);
    json_decref(o);
    tick_free(out);
    tick_free(in);
}

/* A run's end (the gauge's bound) reads back; a file written before it
 * and a run without an end read as no bound. */
static void the_runs_bound_reads_back_and_is_left_out_without_one(void **state)
{
    struct tick *in = fx_tick(7, 1, 500, 1), *out;
    json_t *o;
    char why[256];

    (void)state;
    in->bound.end_us = 60000000;
    in->bound.requests = 100000;
    in->bound.completed = 12345;
    o = record__tick_to_json(in);
    assert_int_equal(record__tick_from_json(o, &out, why, sizeof(why)), 0);
    assert_int_equal(out->bound.end_us, 60000000);
    assert_int_equal(out->bound.requests, 100000);
    assert_int_equal(out->bound.completed, 12345);
    tick_free(out);
    json_object_del(o, "bound");
    assert_int_equal(record__tick_from_json(o, &out, why, sizeof(why)), 0);
    assert_int_equal(out->bound.end_us, 0);
    assert_int_equal(out->bound.requests, 0);
    tick_free(out);
    json_decref(o);
    memset(&in->bound, 0, sizeof(in->bound));
    in->bound.completed = 12345; /* counted, but the run has no end */
    o = record__tick_to_json(in);
    assert_null(json_object_get(o, "bound"));
    json_decref(o);
    tick_free(in);
}

static void plan_state_reads_back_and_is_left_out_when_off(void **state)
{
    char path[128], err[256];
    struct record_header_info hi = {.start_wall_ms = 5, .host = "h", .config_text = ""};
    struct record_trailer_info ti = {.is_complete = 1, .reason = "done", .end_wall_ms = 9};
    struct record_writer *w;
    struct record_reader *r;
    struct tick *judged = fx_tick(4, 1, 500, 1), *off = fx_tick(5, 1, 500, 1), *out;
    struct notes nt = {0};
    size_t len;
    char *text;

    (void)state;
    judged->plan = (struct tick_plan){
        .phase = PLAN_MEASURE, .step = 3, .n_steps = 5, .level = 16, .verdict = VERDICT_FAIL};
    snprintf(judged->plan.why, sizeof(judged->plan.why), "error_rate 3.10%% > 1.00%%");
    fx_temp_path(path, sizeof(path), "plan.jsonl");
    assert_int_equal(record_open(path, &hi, err, sizeof(err), &w), 0);
    assert_int_equal(record_write_tick(w, judged), 0);
    assert_int_equal(record_write_tick(w, off), 0);
    assert_int_equal(record_close(w, &ti), 0);
    text = slurp(path, &len);
    /* Only the tick with a plan carries the field. */
    assert_non_null(strstr(text, "\"plan\":{"));
    assert_null(strstr(strstr(text, "\"plan\":{") + 1, "\"plan\":"));
    free(text);
    assert_int_equal(record_read_open(path, collect, &nt, err, sizeof(err), &r), 0);
    assert_int_equal(record_read_next(r, &out), 1);
    fx_assert_same_tick(judged, out);
    tick_free(out);
    assert_int_equal(record_read_next(r, &out), 1);
    assert_int_equal(out->plan.phase, PLAN_OFF);
    assert_int_equal(out->plan.verdict, VERDICT_NONE);
    tick_free(out);
    record_read_close(r);
    unlink(path);
    tick_free(judged);
    tick_free(off);
    assert_int_equal(nt.n, 0);
}

/* fx_tick's busy tick seq of one kind with where the time went: n_new new
 * connections, each with a lookup and a connect, and a time to first byte
 * for each of its requests; run figures as the merger's, over run_factor
 * times as many. */
static struct tick *phase_tick(uint64_t seq, uint32_t requests, uint32_t n_new, uint64_t run_factor)
{
    struct tick *base = fx_tick(seq, 1, requests, 1);
    struct hist *h[PHASE__COUNT];
    uint64_t rng = seq + 11;
    size_t need = 0;
    struct tick *t;

    for (int p = 0; p < PHASE__COUNT; p++)
        h[p] = hist_new();
    for (uint32_t i = 0; i < n_new; i++) {
        hist_record(h[PHASE_DNS], 3 + i % 5);
        hist_record(h[PHASE_CONNECT], fx_latency_us(&rng, 120.0, 0.4));
    }
    for (uint32_t i = 0; i < requests; i++)
        hist_record(h[PHASE_TTFB], fx_latency_us(&rng, 2000.0, 0.6));
    for (int p = 0; p < PHASE__COUNT; p++)
        need += hist_encode(h[p], NULL, 0);
    t = tick_new(base->data_len + need);
    memcpy(t, base, offsetof(struct tick, data_cap));
    memcpy(t->data, base->data, base->data_len);
    t->data_len = base->data_len;
    t->connections_opened = n_new;
    t->connections = 100;
    for (int p = 0; p < PHASE__COUNT; p++) {
        struct tick_phase_stats *ph = &t->phases[p];

        tick_latency_from_hist(&ph->window, h[p]);
        tick_latency_from_hist(&ph->run, h[p]);
        ph->run.count *= run_factor;
        if (ph->window.count)
            assert_int_equal(tick_put_phase_hist(t, (enum tick_phase)p, h[p]), 0);
        hist_free(h[p]);
    }
    tick_free(base);
    return t;
}

/* Phases and connections go to the file and come back; a tick that timed
 * no connect stores none of its figures, and the reader gives it the run's
 * last ones. */
static void phases_and_connections_read_back_and_the_run_carries_over(void **state)
{
    char path[128], err[256];
    struct record_header_info hi = {.start_wall_ms = 5, .host = "h", .config_text = ""};
    struct record_trailer_info ti = {.is_complete = 1, .reason = "done", .end_wall_ms = 9};
    struct record_writer *w;
    struct record_reader *r;
    struct tick *first = phase_tick(0, 500, 100, 1), *kept = phase_tick(1, 500, 0, 2), *out;
    struct notes nt = {0};
    size_t len;
    char *text, *second;

    (void)state;
    fx_temp_path(path, sizeof(path), "phases.jsonl");
    assert_int_equal(record_open(path, &hi, err, sizeof(err), &w), 0);
    assert_int_equal(record_write_tick(w, first), 0);
    assert_int_equal(record_write_tick(w, kept), 0);
    assert_int_equal(record_close(w, &ti), 0);
    text = slurp(path, &len);
    second = strstr(strstr(text, "\"seq\":0") + 1, "\"seq\":1");
    assert_non_null(second);
    assert_non_null(strstr(text, "\"connections\":100"));
    assert_non_null(strstr(text, "\"dns\":{\"run\":"));
    /* The keep-alive tick stores its first bytes only. */
    assert_null(strstr(second, "\"dns\""));
    assert_null(strstr(second, "\"connect\""));
    assert_non_null(strstr(second, "\"ttfb\":{\"run\":"));
    free(text);
    assert_int_equal(record_read_open(path, collect, &nt, err, sizeof(err), &r), 0);
    assert_int_equal(record_read_next(r, &out), 1);
    fx_assert_same_tick(first, out);
    assert_int_equal(out->phases[PHASE_CONNECT].window.count, 100);
    assert_int_equal(out->phases[PHASE_TLS].window.count, 0);
    tick_free(out);
    assert_int_equal(record_read_next(r, &out), 1);
    assert_int_equal(out->phases[PHASE_CONNECT].window.count, 0);
    assert_int_equal(out->phases[PHASE_CONNECT].hist_len, 0);
    assert_memory_equal(&out->phases[PHASE_CONNECT].run, &first->phases[PHASE_CONNECT].run,
                        sizeof(out->phases[0].run));
    assert_memory_equal(&out->phases[PHASE_DNS].run, &first->phases[PHASE_DNS].run,
                        sizeof(out->phases[0].run));
    assert_int_equal(out->phases[PHASE_TTFB].run.count, 1000);
    assert_int_equal(out->phases[PHASE_TTFB].window.count, 500);
    tick_free(out);
    record_read_close(r);
    unlink(path);
    tick_free(first);
    tick_free(kept);
    assert_int_equal(nt.n, 0);
}

/* A session written before phases existed (the golden file) reads with no
 * phase timed and no connection open. */
static void sessions_without_phases_read_as_none(void **state)
{
    char err[256];
    struct record_reader *r;
    struct hist *h = hist_new();
    struct tick *t;
    uint64_t n = 0;

    (void)state;
    assert_int_equal(record_read_open(GOLDEN, NULL, NULL, err, sizeof(err), &r), 0);
    while (record_read_next(r, &t) == 1) {
        assert_int_equal(t->connections, 0);
        for (int p = 0; p < PHASE__COUNT; p++) {
            assert_int_equal(t->phases[p].window.count, 0);
            assert_int_equal(t->phases[p].run.count, 0);
            assert_int_equal(tick_get_phase_hist(t, (enum tick_phase)p, h), -ENOENT);
        }
        tick_free(t);
        n++;
    }
    assert_int_equal(n, GOLDEN_TICKS);
    record_read_close(r);
    hist_free(h);
}

/* A line whose phases or connections are not what a writer writes is
 * refused, with the field named. */
static void malformed_phases_are_refused(void **state)
{
    static const struct {
        const char *key;
        const char *json;
        const char *why;
    } bad[] = {
        {"phases", "[]", "phases: expected an object"},
        {"phases", "{\"handshake\":{}}", "phases: unknown phase"},
        {"phases", "{\"dns\":3}", "phases: expected objects"},
        {"phases", "{\"dns\":{\"hist\":\"not base64!\"}}", "hist: not a stored histogram"},
        {"phases", "{\"dns\":{\"hist\":5}}", "hist: not a stored histogram"},
        {"phases", "{\"ttfb\":{\"run\":{\"count\":-1}}}", "count: expected a non-negative integer"},
        {"phases", "{\"dns\":{\"run\":{\"count\":5}}}",
         "phases: expected a histogram with samples"},
        {"connections", "-3", "connections: expected a non-negative integer"},
        {"connections", "4294967296", "connections: out of range"},
    };
    struct tick *in = phase_tick(0, 500, 10, 1), *out;
    char why[256];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *o = record__tick_to_json(in);
        json_error_t jerr;

        assert_int_equal(
            json_object_set_new(o, bad[i].key, json_loads(bad[i].json, JSON_DECODE_ANY, &jerr)), 0);
        why[0] = '\0';
        assert_int_equal(record__tick_from_json(o, &out, why, sizeof(why)), -EINVAL);
        assert_null(out);
        assert_string_equal(why, bad[i].why);
        json_decref(o);
    }
    tick_free(in);
}

static void golden_file_is_what_the_writer_writes_today(void **state)
{
    char path[128];
    size_t a_len, b_len;
    char *a, *b;

    (void)state;
    if (getenv("BRINK_UPDATE_GOLDEN")) {
        unlink(GOLDEN);
        write_golden(GOLDEN);
    }
    fx_temp_path(path, sizeof(path), "golden.jsonl");
    write_golden(path);
    a = slurp(GOLDEN, &a_len);
    b = slurp(path, &b_len);
    assert_int_equal(a_len, b_len);
    assert_memory_equal(a, b, a_len);
    free(a);
    free(b);
    unlink(path);
}

/* The header's command line and URLs (minor 1) read back as written. */
static void header_reads_back_the_command_line_and_urls(void **state)
{
    struct record_reader *r;
    char err[256];

    (void)state;
    assert_int_equal(record_read_open(GOLDEN, NULL, NULL, err, sizeof(err), &r), 0);
    assert_int_equal(record_read_header(r)->minor, 1);
    assert_string_equal(record_read_header(r)->command_line,
                        "brink run -f shop.ini -H 'Authorization: <redacted len=9>'");
    assert_int_equal(record_read_header(r)->n_urls, 2);
    assert_string_equal(record_read_header(r)->urls[0], golden_urls[0]);
    assert_string_equal(record_read_header(r)->urls[1], golden_urls[1]);
    record_read_close(r);
}

/* A version 1 file (times in whole ms) still reads: its times come in µs. */
static void version_1_files_read_with_their_times_in_us(void **state)
{
    char err[256];
    struct record_reader *r;
    struct tick *t;
    uint64_t n = 0;

    (void)state;
    assert_int_equal(record_read_open(GOLDEN_V1, NULL, NULL, err, sizeof(err), &r), 0);
    /* Written before the header held them: no command line, no URLs. */
    assert_null(record_read_header(r)->command_line);
    assert_int_equal(record_read_header(r)->n_urls, 0);
    while (record_read_next(r, &t) == 1) {
        assert_int_equal(t->start_us, n * 1000000);
        assert_int_equal(t->duration_us, 1000000);
        tick_free(t);
        n++;
    }
    assert_int_equal(n, GOLDEN_TICKS);
    record_read_close(r);
}

/* A tick read back and written again gives the same line, byte for byte. */
static void read_ticks_write_back_to_the_same_lines(void **state)
{
    char path[128], err[256];
    struct record_reader *r;
    struct tick *t;
    size_t len;
    char *golden = slurp(GOLDEN, &len), *line = strchr(golden, '\n') + 1;

    (void)state;
    assert_int_equal(record_read_open(GOLDEN, NULL, NULL, err, sizeof(err), &r), 0);
    fx_temp_path(path, sizeof(path), "rewrite.jsonl");
    while (record_read_next(r, &t) == 1) {
        json_t *o = record__tick_to_json(t);
        char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
        size_t n = strlen(s);

        assert_memory_equal(s, line, n);
        assert_int_equal(line[n], '\n');
        line += n + 1;
        free(s);
        json_decref(o);
        tick_free(t);
    }
    record_read_close(r);
    free(golden);
}

/* Reads a whole prefix of buf; returns the ticks read. */
static int read_prefix(const char *buf, size_t len, struct notes *nt, int *rc_open)
{
    FILE *f = len ? fmemopen((void *)buf, len, "r") : fopen("/dev/null", "r");
    struct record_reader *r;
    struct tick *t;
    char err[256];
    int n = 0;

    assert_non_null(f);
    *rc_open = record_read_stream(f, "golden", collect, nt, err, sizeof(err), &r);
    if (*rc_open == 0) {
        while (record_read_next(r, &t) == 1) {
            n++;
            tick_free(t);
        }
        record_read_close(r);
    } else {
        assert_true(err[0] != '\0');
    }
    fclose(f);
    return n;
}

/* 1: every_prefix_... cuts the golden file at every byte (test_record
 * --every-prefix, which ctest runs in the release build, label heavy); 0:
 * at a dense sample of them (the default, run under the sanitizers, where
 * each cut costs ~10 ms: each tick read allocates its histograms). */
static int every_byte;

/* Whether the sample cuts at cut: every byte of the header line and of the
 * trailer line, every line boundary +-2, and every 37th byte between (37:
 * prime, so the sampled offset moves from one tick line to the next). */
static int cut_is_sampled(const char *buf, size_t len, size_t header_end, size_t last_start,
                          size_t cut)
{
    if (every_byte || cut <= header_end + 1 || cut >= last_start || cut % 37 == 0)
        return 1;
    /* A boundary b (a prefix that ends with a newline) is buf[b - 1] == '\n'. */
    for (size_t b = cut > 2 ? cut - 2 : 1; b <= cut + 2 && b <= len; b++) {
        if (buf[b - 1] == '\n')
            return 1;
    }
    return 0;
}

static void every_prefix_of_the_golden_file_reads_and_says_where_it_ends(void **state)
{
    size_t len;
    char *buf = slurp(GOLDEN, &len);
    size_t header_end = (size_t)(strchr(buf, '\n') - buf), last_start = len - 1;
    int full = 0, tested = 0;

    (void)state;
    while (last_start > 0 && buf[last_start - 1] != '\n')
        last_start--;
    for (size_t cut = 0; cut <= len; full += cut < len && buf[cut] == '\n', cut++) {
        struct notes nt = {0};
        int rc, lines, base, ticks;
        char expect[96];

        if (!cut_is_sampled(buf, len, header_end, last_start, cut))
            continue;
        tested++;
        ticks = read_prefix(buf, cut, &nt, &rc);
        /* full: the newlines in buf[0, cut). */
        lines = full + (cut > 0 && buf[cut - 1] != '\n');
        if (cut < header_end) {
            assert_true(rc == -EINVAL || rc == -ENODATA);
            continue;
        }
        assert_int_equal(rc, 0);
        /* Header, then ticks: the complete lines are the ticks read, plus
         * one when the cut falls just before a tick's newline. */
        base = full - 1 < GOLDEN_TICKS ? full - 1 : GOLDEN_TICKS;
        assert_true(ticks == base || ticks == base + 1);
        if (cut + 1 >= len) {
            assert_int_equal(ticks, GOLDEN_TICKS);
            assert_int_equal(nt.n, 0);
            continue;
        }
        assert_int_equal(nt.n, 1);
        snprintf(expect, sizeof(expect), "recording ends abruptly at line %d (t=%d.0 s)", lines,
                 ticks);
        if (!strstr(nt.text[0], expect))
            fail_msg("cut at %zu: \"%s\", expected \"%s\"", cut, nt.text[0], expect);
        assert_int_equal(nt.lines[0], (uint64_t)lines);
    }
    printf("# %d of the %zu prefixes read\n", tested, len + 1);
    if (every_byte)
        assert_int_equal(tested, (int)len + 1);
    free(buf);
}

static void flipped_bytes_are_skipped_lines_not_crashes(void **state)
{
    size_t len;
    char *buf = slurp(GOLDEN, &len);
    uint64_t s = 42;

    (void)state;
    for (int round = 0; round < 600; round++) {
        struct notes nt = {0};
        size_t pos = (size_t)(fx_unit(&s) * (double)len);
        char old = buf[pos];
        size_t line_start;
        int rc, ticks;

        buf[pos] = (char)(fx_unit(&s) * 256.0);
        ticks = read_prefix(buf, len, &nt, &rc);
        assert_true(ticks <= GOLDEN_TICKS + 1);
        /* A lost tick is reported, unless the flip renamed its type (lines of
         * unknown types are ignored on purpose) or split the line. */
        line_start = pos;
        while (line_start > 0 && buf[line_start - 1] != '\n')
            line_start--;
        if (rc == 0 && ticks < GOLDEN_TICKS && buf[pos] != '\n' && pos - line_start > 14)
            assert_true(nt.n >= 1);
        buf[pos] = old;
    }
    free(buf);
}

static int read_bytes(const char *text, size_t len, struct notes *nt, int *ticks, char *err,
                      size_t err_len)
{
    FILE *f = fmemopen((void *)text, len, "r");
    struct record_reader *r;
    struct tick *t;
    int rc = record_read_stream(f, "t.jsonl", collect, nt, err, err_len, &r);

    *ticks = 0;
    if (rc == 0) {
        while (record_read_next(r, &t) == 1) {
            (*ticks)++;
            tick_free(t);
        }
        record_read_close(r);
    }
    fclose(f);
    return rc;
}

static int read_text(const char *text, struct notes *nt, int *ticks, char *err, size_t err_len)
{
    return read_bytes(text, strlen(text), nt, ticks, err, err_len);
}

#define HEADER "{\"type\":\"header\",\"format\":\"brink-session\",\"version\":1}\n"
#define TICK_AT(ms)                                                                                \
    "{\"type\":\"tick\",\"start_ms\":" #ms                                                         \
    ",\"state\":\"running\",\"model\":\"open\",\"total\":{}}\n"

static void unknown_major_version_and_other_files_are_refused(void **state)
{
    struct notes nt = {0};
    char err[256];
    int ticks;

    (void)state;
    assert_int_equal(read_text("{\"type\":\"header\",\"format\":\"brink-session\",\"version\":3}\n",
                               &nt, &ticks, err, sizeof(err)),
                     -ENOTSUP);
    assert_non_null(strstr(err, "t.jsonl: session format version 3"));
    assert_non_null(strstr(err, "(versions 1 to 2)"));
    assert_int_equal(read_text("{\"type\":\"header\",\"format\":\"asciicast\",\"version\":1}\n",
                               &nt, &ticks, err, sizeof(err)),
                     -EINVAL);
    assert_string_equal(
        err,
        "t.jsonl: not a brink session: its first line is not a header with format \"brink-session\"");
    assert_int_equal(read_text("hello\n", &nt, &ticks, err, sizeof(err)), -EINVAL);
    assert_int_equal(read_text("\n", &nt, &ticks, err, sizeof(err)), -EINVAL);
}

/* No session holds a NUL byte: the first one refuses the file (in its
 * first line) or ends the reading where it is (what a crash can leave). */
static void a_nul_byte_stops_the_reading_where_it_is(void **state)
{
    static const char header_nul[] = "{\"type\":\"header\"\0,\"format\":\"brink-session\"}\n";
    static const char body_nul[] = HEADER TICK_AT(1000) "\0\0\0" TICK_AT(2000);
    struct notes nt = {0};
    char err[256];
    int ticks;

    (void)state;
    assert_int_equal(read_bytes(header_nul, sizeof(header_nul) - 1, &nt, &ticks, err, sizeof(err)),
                     -EINVAL);
    assert_string_equal(err, "t.jsonl: not a brink session: a NUL byte at byte 16");
    assert_int_equal(read_bytes(body_nul, sizeof(body_nul) - 1, &nt, &ticks, err, sizeof(err)), 0);
    assert_int_equal(ticks, 1);
    assert_int_equal(nt.n, 1);
    assert_non_null(
        strstr(nt.text[0], "recording ends abruptly at line 3 (t=1.0 s): a NUL byte at byte 131,"));
}

static void bad_lines_are_skipped_with_their_line_numbers(void **state)
{
    static const char text[] = HEADER TICK_AT(
        0) "garbage\n"                                                                  /* 3 */
           "{\"type\":\"tick\",\"state\":\"flying\",\"model\":\"open\",\"total\":{}}\n" /* 4 */
           "{\"type\":\"tick\",\"seq\":-1,\"state\":\"done\",\"model\":\"open\",\"total\":{}}\n"
           "{\"type\":\"tick\",\"state\":\"done\",\"model\":\"open\",\"total\":{\"errors\":{\"gremlins\":1}}}\n"
           "{\"type\":\"tick\",\"state\":\"done\",\"model\":\"open\",\"total\":{\"hist\":\"AAAA\"}}\n"
           "{\"type\":\"tick\",\"state\":\"done\",\"model\":\"open\",\"total\":{},\"status\":[[70000,1]]}\n"
           "{\"type\":\"future\",\"x\":1}\n" /* 9 */
           "[1,2]\n" TICK_AT(2000) "{\"type\":\"trailer\",\"ticks\":2,\"complete\":true}\n";
    static const char *const why[] = {"line 3: skipped: not JSON",
                                      "line 4: skipped: state",
                                      "line 5: skipped: seq",
                                      "line 6: skipped: errors",
                                      "line 7: skipped: hist",
                                      "line 8: skipped: status",
                                      "line 10: skipped: not a JSON object"};
    struct notes nt = {0};
    char err[256];
    int ticks;

    (void)state;
    assert_int_equal(read_text(text, &nt, &ticks, err, sizeof(err)), 0);
    assert_int_equal(ticks, 2);
    assert_int_equal(nt.n, 7);
    for (int i = 0; i < 7; i++) {
        if (!strstr(nt.text[i], why[i]))
            fail_msg("notice %d: \"%s\", expected \"%s\"", i, nt.text[i], why[i]);
    }
}

static void too_many_kinds_and_an_over_long_line_are_refused(void **state)
{
    size_t n = strlen(HEADER) + RECORD_LINE_MAX + 4096;
    char *text = malloc(n), *p = text;
    struct notes nt = {0};
    char err[256];
    int ticks;

    (void)state;
    p += sprintf(
        p, "%s{\"type\":\"tick\",\"state\":\"done\",\"model\":\"open\",\"total\":{},\"kinds\":[",
        HEADER);
    for (int i = 0; i < TICK_MAX_KINDS + 1; i++)
        p += sprintf(p, "%s{}", i ? "," : "");
    p += sprintf(p, "]}\n");
    memset(p, ' ', RECORD_LINE_MAX + 1);
    p += RECORD_LINE_MAX + 1;
    p += sprintf(p, "\n%s", TICK_AT(1000));
    assert_int_equal(read_text(text, &nt, &ticks, err, sizeof(err)), 0);
    assert_int_equal(ticks, 1);
    assert_true(notes_have(&nt, "line 2: skipped: kinds: more entries than a tick holds"));
    assert_true(notes_have(&nt, "line 3: skipped: longer than 1 MiB"));
    assert_true(notes_have(&nt, "recording ends abruptly at line 4 (t=1.0 s): no trailer"));
    free(text);
}

static void time_going_backwards_is_clamped_and_flagged(void **state)
{
    static const char text[] =
        HEADER TICK_AT(5000) TICK_AT(3000) "{\"type\":\"trailer\",\"ticks\":2,\"complete\":true}\n";
    struct notes nt = {0};
    char err[256];
    int ticks;

    (void)state;
    assert_int_equal(read_text(text, &nt, &ticks, err, sizeof(err)), 0);
    assert_int_equal(ticks, 2);
    assert_int_equal(nt.n, 1);
    assert_non_null(strstr(nt.text[0], "line 3: time goes backwards (t=3.0 s after 5.0 s)"));
}

/* Stored histograms: exact count, min, max and clamped; values within 1%,
 * or within 1/32 at the phases' precision. */
static void keep_their_shape_at(unsigned char version, double precision)
{
    static const uint64_t values[] = {0,
                                      1,
                                      127,
                                      128,
                                      129,
                                      2047,
                                      2048,
                                      99999,
                                      123456789,
                                      HIST_MAX_VALUE_US,
                                      HIST_MAX_VALUE_US + 7};
    struct hist *h = hist_new(), *back = hist_new();
    char *text;

    text = record__hist_pack(h, version);
    assert_int_equal(record__hist_unpack(back, text, strlen(text)), 0);
    assert_int_equal(hist_count(back), 0);
    free(text);
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        hist_reset(h);
        hist_record(h, values[i]);
        text = record__hist_pack(h, version);
        assert_int_equal(record__hist_unpack(back, text, strlen(text)), 0);
        assert_int_equal(hist_min(back), hist_min(h));
        assert_int_equal(hist_clamped(back), hist_clamped(h));
        free(text);
        for (size_t j = 0; j <= i; j++)
            hist_record_n(h, values[j], j + 1);
        text = record__hist_pack(h, version);
        assert_int_equal(record__hist_unpack(back, text, strlen(text)), 0);
        assert_int_equal(hist_count(back), hist_count(h));
        assert_int_equal(hist_min(back), hist_min(h));
        assert_int_equal(hist_max(back), hist_max(h));
        assert_int_equal(hist_clamped(back), hist_clamped(h));
        for (double p = 0; p <= 100; p += 2.5) {
            double x = (double)hist_percentile(h, p), y = (double)hist_percentile(back, p);

            assert_true(fabs(x - y) <= precision * x + 1.0);
        }
        free(text);
    }
    assert_int_equal(record__hist_unpack(back, "AQ==", 4), -EINVAL);
    assert_int_equal(record__hist_unpack(back, "AQAAAA=", 7), -EINVAL);
    assert_int_equal(record__hist_unpack(back, "AQAAAAAA", 8), -EINVAL);
    hist_free(h);
    hist_free(back);
}

static void stored_histograms_keep_their_shape(void **state)
{
    (void)state;
    keep_their_shape_at(RECH_VERSION, RECORD_HIST_PRECISION);
    keep_their_shape_at(RECH_VERSION_COARSE, RECORD_PHASE_PRECISION);
}

/* The first byte of base64 text: its version, for a stored histogram. */
static int first_byte(const char *b64)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    return (int)(strchr(abc, b64[0]) - abc) << 2 | (int)(strchr(abc, b64[1]) - abc) >> 4;
}

/* A phase's histogram is stored coarser than a latency's (its p50 to p99
 * say where the time goes; p99.9 is the latencies'): a first byte per
 * request costs a busy tick a few hundred bytes, not as much as its
 * latencies. The coarse form says so in its first byte, and an encoding of
 * an unknown precision is refused. */
static void phases_are_stored_at_their_own_precision(void **state)
{
    struct tick *t = phase_tick(3, 3000, 0, 1);
    json_t *o = record__tick_to_json(t);
    const char *ttfb = json_string_value(
        json_object_get(json_object_get(json_object_get(o, "phases"), "ttfb"), "hist"));
    const char *total = json_string_value(json_object_get(json_object_get(o, "total"), "hist"));
    struct hist *h = hist_new();

    (void)state;
    assert_non_null(ttfb);
    assert_non_null(total);
    assert_int_equal(first_byte(total), RECH_VERSION);
    assert_int_equal(first_byte(ttfb), RECH_VERSION_COARSE);
    /* Both hold about as many values over the same octaves. */
    assert_true(strlen(ttfb) * 2 < strlen(total));
    assert_int_equal(record__hist_unpack(h, ttfb, strlen(ttfb)), 0);
    assert_int_equal(hist_count(h), 3000);
    assert_int_equal(record__hist_unpack(h, "AwAAAAA=", 8), -EINVAL);
    hist_free(h);
    json_decref(o);
    tick_free(t);
}

/* The budget: a one-hour session at c=100 with two probes under 10 MB. */
static void a_busy_tick_fits_the_size_budget(void **state)
{
    size_t sizes[3];

    (void)state;
    for (uint32_t kinds = 1; kinds <= 3; kinds++) {
        size_t sum = 0;

        for (uint64_t seq = 10; seq < 20; seq++) {
            struct tick *t = fx_tick(seq, kinds, 3000, 1);
            json_t *o = record__tick_to_json(t);
            char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);

            sum += strlen(s) + 1;
            free(s);
            json_decref(o);
            tick_free(t);
        }
        sizes[kinds - 1] = sum / 10;
        printf("# c=100, 3000 requests per tick, 2 probes, %u kind(s): %zu bytes per tick, "
               "%.2f MB per hour\n",
               kinds, sizes[kinds - 1], (double)sizes[kinds - 1] * 3600 / 1e6);
    }
    assert_true(sizes[0] * 3600 < 10 * 1000 * 1000);
    assert_true(sizes[1] * 3600 < 10 * 1000 * 1000);
    /* Where the time goes, as a keep-alive run records it: a time to first
     * byte per request, no new connection. */
    {
        size_t sum = 0;

        for (uint64_t seq = 10; seq < 20; seq++) {
            struct tick *t = phase_tick(seq, 3000, 0, seq);
            json_t *o = record__tick_to_json(t);
            char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);

            sum += strlen(s) + 1;
            free(s);
            json_decref(o);
            tick_free(t);
        }
        printf("# the same, 1 kind, with a time to first byte per request: %zu bytes per tick, "
               "%.2f MB per hour\n",
               sum / 10, (double)(sum / 10) * 3600 / 1e6);
        /* Its histogram at the phases' precision, its run figures: less
         * than 0.5 KB a tick, so 1 kind stays well under 10 MB an hour. */
        assert_true(sum / 10 < sizes[0] + 500);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest every_prefix[] = {
        cmocka_unit_test(every_prefix_of_the_golden_file_reads_and_says_where_it_ends),
    };
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ticks_read_back_identical_field_by_field),
        cmocka_unit_test(golden_file_is_what_the_writer_writes_today),
        cmocka_unit_test(header_reads_back_the_command_line_and_urls),
        cmocka_unit_test(version_1_files_read_with_their_times_in_us),
        cmocka_unit_test(open_model_ticks_read_back_with_service_times_and_schedule),
        cmocka_unit_test(open_ticks_without_send_lag_read_as_none),
        cmocka_unit_test(marks_and_drain_read_back_and_are_optional),
        cmocka_unit_test(the_runs_bound_reads_back_and_is_left_out_without_one),
        cmocka_unit_test(plan_state_reads_back_and_is_left_out_when_off),
        cmocka_unit_test(phases_and_connections_read_back_and_the_run_carries_over),
        cmocka_unit_test(sessions_without_phases_read_as_none),
        cmocka_unit_test(malformed_phases_are_refused),
        cmocka_unit_test(phases_are_stored_at_their_own_precision),
        cmocka_unit_test(read_ticks_write_back_to_the_same_lines),
        cmocka_unit_test(every_prefix_of_the_golden_file_reads_and_says_where_it_ends),
        cmocka_unit_test(flipped_bytes_are_skipped_lines_not_crashes),
        cmocka_unit_test(unknown_major_version_and_other_files_are_refused),
        cmocka_unit_test(a_nul_byte_stops_the_reading_where_it_is),
        cmocka_unit_test(bad_lines_are_skipped_with_their_line_numbers),
        cmocka_unit_test(too_many_kinds_and_an_over_long_line_are_refused),
        cmocka_unit_test(time_going_backwards_is_clamped_and_flagged),
        cmocka_unit_test(stored_histograms_keep_their_shape),
        cmocka_unit_test(a_busy_tick_fits_the_size_budget),
    };

    /* glibc gives a freed histogram (184 KiB) back to the system and
     * zeroes fresh pages for the next: most of the time of a file read
     * 20,000 times. Kept instead (the sanitizers' allocators ignore this). */
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    if (argc == 2 && strcmp(argv[1], "--every-prefix") == 0) {
        every_byte = 1;
        return cmocka_run_group_tests(every_prefix, NULL, NULL);
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
