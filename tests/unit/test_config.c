#include "config/config.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#define SECOND_US 1000000ULL
#define BIG (16 * 1024)

/* The environment the tests see: nothing else is set. */
static const char *const fake_env[][2] = {
    {"BASE", "http://10.0.0.7:8080"},
    {"TOKEN", "s3cr3t-t0k3n"},
    {"USERS", "40"},
    {"EVIL", "x\r\nInjected: 1"},
    {"EMPTY", ""},
};

static const char *fake_getenv(const char *name, void *arg)
{
    (void)arg;
    for (size_t i = 0; i < sizeof(fake_env) / sizeof(fake_env[0]); i++) {
        if (strcmp(fake_env[i][0], name) == 0)
            return fake_env[i][1];
    }
    return NULL;
}

static const struct config_opts opts = {.getenv = fake_getenv};

/* The examples may reference any variable: here every one is set. */
static const char *any_getenv(const char *name, void *arg)
{
    (void)name;
    (void)arg;
    return "example";
}

static const struct config_opts any_env = {.getenv = any_getenv};

/* Loads text as "t.ini"; returns the status and, in *err (to free), what
 * was written to the error stream. */
static int load(struct config *c, const char *text, char **err)
{
    size_t len;
    FILE *f = open_memstream(err, &len);
    int rc;

    assert_non_null(f);
    config_init(c);
    rc = config_load_string(c, "t.ini", text, &opts, f);
    fclose(f);
    return rc;
}

/* Loads text that must be good. */
static void load_ok(struct config *c, const char *text)
{
    char *err;
    int rc = load(c, text, &err);

    if (rc != 0)
        print_error("unexpected errors:\n%s", err);
    assert_int_equal(rc, 0);
    assert_string_equal(err, "");
    free(err);
}

/* Loads text that must fail with exactly the messages want. */
static void load_fails(const char *text, const char *want)
{
    struct config c;
    char *err;

    assert_int_equal(load(&c, text, &err), -EINVAL);
    assert_string_equal(err, want);
    free(err);
    config_free(&c);
}

static char *write_to_string(const struct config *c)
{
    char *out;
    size_t len;
    FILE *f = open_memstream(&out, &len);

    assert_non_null(f);
    assert_int_equal(config_write(c, f), 0);
    fclose(f);
    return out;
}

static char *repeat(char ch, size_t n)
{
    char *s = malloc(n + 1);

    assert_non_null(s);
    memset(s, ch, n);
    s[n] = '\0';
    return s;
}

#define TARGET "[target]\nurl = http://127.0.0.1:8080/\n"

static void config_init_sets_every_default(void **state)
{
    struct config c;

    (void)state;
    config_init(&c);
    assert_null(c.target.url.raw);
    assert_int_equal(c.target.timeout_us, 30 * SECOND_US);
    assert_int_equal(c.target.connect_timeout_us, 5 * SECOND_US);
    assert_int_equal(c.target.keepalive, 1);
    assert_int_equal(c.target.max_body_bytes, 64ULL << 20);
    assert_int_equal(c.target.n_headers, 0);
    assert_int_equal(c.load.concurrency, 10);
    assert_int_equal(c.load.threads, 1);
    assert_int_equal(c.load.duration_us, 0);
    assert_int_equal(c.load.requests, 0);
    assert_int_equal(c.load.tick_us, SECOND_US);
    assert_int_equal(c.load.think_time_us, 0);
    assert_int_equal(c.load.busy_poll_us, 0);
    assert_int_equal(c.load.step, 1);
    assert_int_equal(c.load.mode, CONFIG_MODE_CLOSED);
    assert_true(c.load.rate_per_s == 0);
    assert_int_equal(c.load.max_in_flight, 1000);
    assert_true(c.load.rate_step_per_s == 10);
    assert_int_equal(c.n_requests, 0);
    assert_int_equal(c.record.enabled, 1);
    /* String defaults come with a load, so an unloaded config owns nothing. */
    assert_null(c.record.dir.value);
    config_free(&c);
}

static void minimal_file_gets_every_default(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, TARGET "[request get]\n");
    assert_string_equal(c.target.url.value, "http://127.0.0.1:8080/");
    assert_int_equal(c.load.concurrency, 10);
    assert_string_equal(c.record.dir.value, "sessions");
    assert_int_equal(c.n_requests, 1);
    assert_string_equal(c.requests[0].name, "get");
    assert_int_equal(c.requests[0].weight, 1);
    assert_string_equal(c.requests[0].method.value, "GET");
    assert_string_equal(c.requests[0].url.value, "http://127.0.0.1:8080/");
    assert_int_equal(c.requests[0].timeout_us, 30 * SECOND_US);
    assert_int_equal(c.requests[0].body_kind, CONFIG_BODY_NONE);
    assert_string_equal(c.path, "t.ini");
    config_free(&c);
}

static void target_keys_are_read(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, "[target]\n"
                "url = https://api.test:8443/v1\n"
                "timeout = 2m\n"
                "connect_timeout = 250ms\n"
                "keepalive = no\n"
                "max_body = 13k\n"
                "header = Accept: */*\n"
                "header = Expect:\n");
    assert_string_equal(c.target.url.value, "https://api.test:8443/v1");
    assert_int_equal(c.target.timeout_us, 120 * SECOND_US);
    assert_int_equal(c.target.connect_timeout_us, 250000);
    assert_int_equal(c.target.keepalive, 0);
    assert_int_equal(c.target.max_body_bytes, 13000);
    assert_int_equal(c.target.n_headers, 2);
    assert_string_equal(c.target.headers[0].value, "Accept: */*");
    assert_int_equal(c.target.headers[0].line, 7);
    assert_string_equal(c.target.headers[1].value, "Expect:");
    config_free(&c);
}

static void load_keys_are_read(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, TARGET "[load]\n"
                       "concurrency = 10k\n"
                       "threads = 64\n"
                       "duration = 1m30s\n"
                       "requests = 2M\n"
                       "tick = 100ms\n"
                       "think_time = 50ms\n"
                       "busy_poll = 20us\n"
                       "step = 25\n");
    assert_int_equal(c.load.concurrency, 10000);
    assert_int_equal(c.load.threads, 64);
    assert_int_equal(c.load.duration_us, 90 * SECOND_US);
    assert_int_equal(c.load.requests, 2000000);
    assert_int_equal(c.load.tick_us, 100000);
    assert_int_equal(c.load.think_time_us, 50000);
    assert_int_equal(c.load.busy_poll_us, 20);
    assert_int_equal(c.load.step, 25);
    config_free(&c);
}

static void open_model_keys_are_read(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, TARGET "[load]\n"
                       "mode = rate\n"
                       "rate = 1000/s\n"
                       "max_in_flight = 4\n"
                       "rate_step = 2.5\n");
    assert_int_equal(c.load.mode, CONFIG_MODE_RATE);
    assert_true(c.load.rate_per_s == 1000);
    assert_int_equal(c.load.max_in_flight, 4);
    assert_true(c.load.rate_step_per_s == 2.5);
    config_free(&c);
    load_ok(&c, TARGET "[load]\nmode = open\nrate = 0.5\n");
    assert_int_equal(c.load.mode, CONFIG_MODE_RATE);
    assert_true(c.load.rate_per_s == 0.5);
    config_free(&c);
}

static void think_time_under_the_open_model_loads_with_a_notice(void **state)
{
    struct config c;
    char *err;

    (void)state;
    assert_int_equal(
        load(&c, TARGET "[load]\nmode = rate\nrate = 10/s\nthink_time = 100ms\n", &err), 0);
    assert_string_equal(
        err,
        "brink: t.ini:6: [load] think_time: not applied under mode = rate, whose requests start on their schedule (only the closed model's users think)\n");
    assert_int_equal(c.load.think_time_us, 100000);
    free(err);
    config_free(&c);
    /* No think time, or the closed model: nothing to say. */
    load_ok(&c, TARGET "[load]\nmode = rate\nrate = 10/s\nthink_time = 0\n");
    config_free(&c);
    load_ok(&c, TARGET "[load]\nthink_time = 100ms\n");
    config_free(&c);
}

static void request_keys_are_read(void **state)
{
    struct config c;
    const struct config_request *r;

    (void)state;
    load_ok(&c, TARGET "[request Put.object-1_x]\n"
                       "weight = 30\n"
                       "method = PROPFIND\n"
                       "url = https://other:9000/o/{seq}/{vu}/{uuid}/{rand:-5..5}\n"
                       "header = Depth: 1\n"
                       "body = <propfind xmlns=\"DAV:\"/>\n"
                       "timeout = 250ms\n");
    r = &c.requests[0];
    assert_string_equal(r->name, "Put.object-1_x");
    assert_int_equal(r->line, 3);
    assert_int_equal(r->weight, 30);
    assert_string_equal(r->method.value, "PROPFIND");
    assert_string_equal(r->url.value, "https://other:9000/o/{seq}/{vu}/{uuid}/{rand:-5..5}");
    assert_int_equal(r->n_headers, 1);
    assert_string_equal(r->headers[0].value, "Depth: 1");
    assert_int_equal(r->body_kind, CONFIG_BODY_TEXT);
    assert_string_equal(r->body.value, "<propfind xmlns=\"DAV:\"/>");
    assert_int_equal(r->timeout_us, 250000);
    config_free(&c);
}

static void method_is_kept_as_written(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, TARGET "[request r]\nmethod = mkcol\n");
    assert_string_equal(c.requests[0].method.value, "mkcol");
    config_free(&c);
}

static void random_body_size_is_parsed(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, TARGET "[request put]\nmethod = PUT\nbody = random:5MiB\n");
    assert_int_equal(c.requests[0].body_kind, CONFIG_BODY_RANDOM);
    assert_int_equal(c.requests[0].body_random_bytes, 5ULL << 20);
    assert_string_equal(c.requests[0].body.raw, "random:5MiB");
    config_free(&c);
}

static void record_keys_are_read(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, TARGET "[record]\nenabled = off\ndir = /var/tmp/brink\n");
    assert_int_equal(c.record.enabled, 0);
    assert_string_equal(c.record.dir.value, "/var/tmp/brink");
    config_free(&c);
}

static void ramp_keys_are_read(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, TARGET "[probe siblings]\ntype = json\nurl = /stats\npointer = /s\n"
                       "[ramp]\nsteps = 1, 8,16 ,32\nrequests_per_user = 4\nwarmup = 2s\n"
                       "stop_when = error_rate > 1%, p99 > 2s, probe.siblings > 100, "
                       "throughput_drop > 20%, probe.siblings < 0.5\naction = back\n");
    assert_int_equal(c.ramp.n_steps, 4);
    assert_true(c.ramp.steps[0] == 1 && c.ramp.steps[1] == 8 && c.ramp.steps[3] == 32);
    assert_int_equal(c.ramp.requests_per_user, 4);
    assert_int_equal(c.ramp.warmup_us, 2000000);
    assert_int_equal(c.ramp.action, CONFIG_ACTION_BACK);
    assert_int_equal(c.ramp.stop_when.n_rules, 5);
    assert_int_equal(c.ramp.stop_when.rules[0].metric, CONFIG_RULE_ERROR_RATE);
    assert_true(c.ramp.stop_when.rules[0].value > 0.0099 &&
                c.ramp.stop_when.rules[0].value < 0.0101);
    assert_int_equal(c.ramp.stop_when.rules[1].metric, CONFIG_RULE_P99);
    assert_true(c.ramp.stop_when.rules[1].value == 2e6);
    assert_int_equal(c.ramp.stop_when.rules[2].metric, CONFIG_RULE_PROBE);
    assert_string_equal(c.ramp.stop_when.rules[2].probe, "siblings");
    assert_true(c.ramp.stop_when.rules[2].value == 100 && !c.ramp.stop_when.rules[2].is_below);
    assert_int_equal(c.ramp.stop_when.rules[3].metric, CONFIG_RULE_THROUGHPUT_DROP);
    assert_true(c.ramp.stop_when.rules[4].is_below && c.ramp.stop_when.rules[4].value == 0.5);
    config_free(&c);
}

/* A step or a run is never judged pass while the error rate is above 1%,
 * unless the file says otherwise: both lists default to error_rate > 1%. */
static void stop_when_and_fail_on_default_to_an_error_rate_of_1_percent(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, TARGET "[ramp]\nsteps = 1, 2\n");
    assert_int_equal(c.ramp.stop_when.n_rules, 1);
    assert_int_equal(c.ramp.stop_when.rules[0].metric, CONFIG_RULE_ERROR_RATE);
    assert_true(c.ramp.stop_when.rules[0].value > 0.0099 &&
                c.ramp.stop_when.rules[0].value < 0.0101);
    assert_int_equal(c.thresholds.fail_on.n_rules, 1);
    assert_int_equal(c.thresholds.fail_on.rules[0].metric, CONFIG_RULE_ERROR_RATE);
    config_free(&c);
    load_ok(&c, TARGET "[ramp]\nsteps = 1, 2\nstop_when = none\n[thresholds]\nfail_on = none\n");
    assert_int_equal(c.ramp.stop_when.n_rules, 0);
    assert_int_equal(c.thresholds.fail_on.n_rules, 0);
    config_free(&c);
}

static void thresholds_take_the_stop_when_grammar(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, TARGET "[probe q]\ntype = json\nurl = /stats\npointer = /q\n"
                       "[thresholds]\nfail_on = p99 > 250ms, probe.q > 10, rate_shortfall > 5%\n");
    assert_int_equal(c.thresholds.fail_on.n_rules, 3);
    assert_int_equal(c.thresholds.fail_on.rules[0].metric, CONFIG_RULE_P99);
    assert_true(c.thresholds.fail_on.rules[0].value == 250000);
    assert_int_equal(c.thresholds.fail_on.rules[1].metric, CONFIG_RULE_PROBE);
    assert_int_equal(c.thresholds.fail_on.rules[2].metric, CONFIG_RULE_RATE_SHORTFALL);
    config_free(&c);
    load_fails(
        TARGET "[thresholds]\nfail_on = throughput_drop > 10%\n",
        "brink: t.ini:4: [thresholds] fail_on: throughput_drop compares the steps of a [ramp] plan, not a whole run (expected error_rate, p50, p90, p99, p99.9, rate_shortfall or probe.NAME)\n");
    load_fails(TARGET "[thresholds]\nfail_on = probe.nope > 1\n",
               "brink: t.ini:4: [thresholds] fail_on: probe.nope names no [probe nope] section\n");
}

static void rules_parse_from_text_for_recorded_sessions(void **state)
{
    struct config_rules r;
    char why[256];

    (void)state;
    assert_int_equal(config_parse_rules("error_rate > 5%, p99.9 > 1s", &r, why, sizeof(why)), 0);
    assert_int_equal(r.n_rules, 2);
    assert_int_equal(r.rules[1].metric, CONFIG_RULE_P999);
    assert_int_equal(config_parse_rules("none", &r, why, sizeof(why)), 0);
    assert_int_equal(r.n_rules, 0);
    assert_int_equal(config_parse_rules("p99 >> 1s", &r, why, sizeof(why)), -EINVAL);
    assert_non_null(strstr(why, "p99 >> 1s"));
}

static void ramp_steps_are_made_from_start_step_max(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, TARGET "[ramp]\nstart = 10\nstep = 20\nmax = 75\n");
    assert_int_equal(c.ramp.n_steps, 5); /* 10 30 50 70, then max itself */
    assert_true(c.ramp.steps[3] == 70 && c.ramp.steps[4] == 75);
    assert_int_equal(c.ramp.hold_us, 10000000); /* the default hold */
    config_free(&c);
    load_ok(&c, TARGET "[ramp]\nstart = 1\nmax = 64\ngrowth = double\n");
    assert_int_equal(c.ramp.n_steps, 7); /* 1 2 4 8 16 32 64 */
    assert_true(c.ramp.steps[6] == 64);
    config_free(&c);
}

static void ramp_without_section_is_no_plan(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, TARGET);
    assert_int_equal(c.ramp.n_steps, 0);
    config_free(&c);
}

static void ramp_errors_say_what_was_expected(void **state)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {TARGET "[ramp]\nhold = 5s\n",
         "brink: t.ini:3: [ramp]: no steps (expected steps = 1, 8, 16, 32 or start, step and max)\n"},
        {TARGET "[ramp]\nsteps = 1, x\n",
         "brink: t.ini:4: [ramp] steps: expected a whole number such as 100, 10k or 2M, got \"x\"\n"},
        {TARGET "[ramp]\nsteps = 1,,2\n",
         "brink: t.ini:4: [ramp] steps: expected a whole number such as 100, 10k or 2M, got \"\"\n"},
        {TARGET "[ramp]\nsteps = 1, 2\nmax = 8\n",
         "brink: t.ini:5: [ramp]: steps are given at line 4; use steps or start/step/max, not both\n"},
        {TARGET "[ramp]\nstart = 9\nmax = 8\n",
         "brink: t.ini:5: [ramp] max: max 8 is below start 9\n"},
        {TARGET "[ramp]\nsteps = 1\nhold = 5s\nrequests_per_user = 2\n",
         "brink: t.ini:6: [ramp] requests_per_user: hold is set at line 5; a step holds for a time or for work, not both\n"},
        {TARGET "[ramp]\nmax = 8\ngrowth = triple\n",
         "brink: t.ini:5: [ramp] growth: expected add or double, got \"triple\"\n"},
        {TARGET "[ramp]\nsteps = 1\naction = hodl\n",
         "brink: t.ini:5: [ramp] action: expected stop, hold or back, got \"hodl\" (did you mean hold?)\n"},
        {TARGET "[ramp]\nsteps = 1\nstop_when = p99 >= 2s\n",
         "brink: t.ini:5: [ramp] stop_when: condition \"p99 >= 2s\": expected a duration such as 250ms, 30s, 2m or 1h, got \"= 2s\"\n"},
        {TARGET "[ramp]\nsteps = 1\nstop_when = latency > 2s\n",
         "brink: t.ini:5: [ramp] stop_when: condition \"latency > 2s\": unknown metric (expected error_rate, p50, p90, p99, p99.9, throughput_drop, rate_shortfall or probe.NAME)\n"},
        {TARGET "[ramp]\nsteps = 1\nstop_when = error_rate > 1\n",
         "brink: t.ini:5: [ramp] stop_when: condition \"error_rate > 1\": expected a percentage such as 1% or 0.5%, got \"1\" (the % sign is missing)\n"},
        {TARGET "[ramp]\nsteps = 1\nstop_when = p99 < 1s\n",
         "brink: t.ini:5: [ramp] stop_when: condition \"p99 < 1s\": p99 only trips above a limit (expected >)\n"},
        {TARGET "[ramp]\nsteps = 1\nstop_when = probe.nope > 1\n",
         "brink: t.ini:5: [ramp] stop_when: probe.nope names no [probe nope] section\n"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        load_fails(cases[i].text, cases[i].want);
}

static void ramp_round_trips_through_config_write(void **state)
{
    struct config c, back;
    char *text, *again;

    (void)state;
    load_ok(&c,
            TARGET "[probe q]\ntype = json\nurl = /stats\npointer = /q\n"
                   "[ramp]\nstart = 2\nmax = 16\ngrowth = double\nrequests_per_user = 3\n"
                   "stop_when = error_rate > 0.5%, p99.9 > 150ms, probe.q < -2.5\naction = hold\n");
    text = write_to_string(&c);
    assert_non_null(strstr(text, "[ramp]\nsteps = 2, 4, 8, 16\n"));
    assert_non_null(strstr(text, "stop_when = error_rate > 0.5%, p99.9 > 150ms, probe.q < -2.5\n"));
    assert_non_null(strstr(text, "requests_per_user = 3\n"));
    load_ok(&back, text);
    /* Read back, the steps are listed: start and max are no longer used. */
    again = write_to_string(&back);
    assert_non_null(strstr(again, "[ramp]\nsteps = 2, 4, 8, 16\n; start: not used"));
    assert_non_null(
        strstr(again, "stop_when = error_rate > 0.5%, p99.9 > 150ms, probe.q < -2.5\n"));
    assert_int_equal(back.ramp.n_steps, 4);
    assert_true(back.ramp.steps[3] == 16);
    assert_int_equal(back.ramp.requests_per_user, 3);
    assert_int_equal(back.ramp.action, CONFIG_ACTION_HOLD);
    free(text);
    free(again);
    config_free(&c);
    config_free(&back);
}

/* Whether set holds exactly the codes lo to hi of 100 to 599. */
static int holds_only(const struct status_set *set, long lo, long hi)
{
    for (long code = 0; code < 1000; code++) {
        if (status_set_has(set, code) != (code >= lo && code <= hi))
            return 0;
    }
    return 1;
}

static void expect_defaults_to_every_status_below_400(void **state)
{
    struct config c;

    (void)state;
    config_init(&c);
    assert_true(holds_only(&c.target.expect, 100, 399));
    load_ok(&c, TARGET "[request a]\n");
    assert_true(holds_only(&c.target.expect, 100, 399));
    assert_true(holds_only(&c.requests[0].expect, 100, 399));
    assert_int_equal(c.target.key_line[CONFIG_TARGET_EXPECT], 0);
    config_free(&c);
}

static void expect_reads_codes_ranges_and_classes(void **state)
{
    static const struct {
        const char *value;
        long lo, hi; /* the codes in the set: lo to hi, plus also */
        long also;   /* 0: none */
    } cases[] = {
        {"404", 404, 404, 0},
        {"200-299", 200, 299, 0},
        {"200-299, 404", 200, 299, 404},
        {"2xx,404", 200, 299, 404},
        {"2XX", 200, 299, 0},
        {"5xx", 500, 599, 0},
        {" 200 - 204 , 100 ", 200, 204, 100},
        {"100-599", 100, 599, 0},
        {"204, 200-299", 200, 299, 0},
        {"200-299, 404,", 200, 299, 404},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct config c;
        char text[256];

        snprintf(text, sizeof(text), TARGET "expect = %s\n", cases[i].value);
        load_ok(&c, text);
        for (long code = 0; code < 1000; code++) {
            int want = (code >= cases[i].lo && code <= cases[i].hi) ||
                       (cases[i].also && code == cases[i].also);

            if (status_set_has(&c.target.expect, code) != want)
                print_error("expect = %s: code %ld\n", cases[i].value, code);
            assert_int_equal(status_set_has(&c.target.expect, code), want);
        }
        assert_int_equal(c.target.key_line[CONFIG_TARGET_EXPECT], 3);
        config_free(&c);
    }
}

static void target_expect_is_the_default_a_request_may_override(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, TARGET "expect = 200, 404\n"
                       "[request get]\nurl = /kv/{seq}\n"
                       "[request put]\nmethod = PUT\nexpect = 2xx\n");
    assert_true(status_set_has(&c.requests[0].expect, 200));
    assert_true(status_set_has(&c.requests[0].expect, 404));
    assert_false(status_set_has(&c.requests[0].expect, 204));
    assert_int_equal(c.requests[0].key_line[CONFIG_REQUEST_EXPECT], 0);
    assert_true(holds_only(&c.requests[1].expect, 200, 299));
    assert_int_equal(c.requests[1].key_line[CONFIG_REQUEST_EXPECT], 8);
    config_free(&c);
}

static void bad_expect_values_say_what_was_expected(void **state)
{
    static const struct {
        const char *value, *want;
    } cases[] = {
        {"2xx-3xx",
         "expected a status code 100-599, a range such as 200-299 or a class such as 2xx, got \"2xx-3xx\""},
        {"99",
         "expected a status code 100-599, a range such as 200-299 or a class such as 2xx, got \"99\""},
        {"600",
         "expected a status code 100-599, a range such as 200-299 or a class such as 2xx, got \"600\""},
        {"0200",
         "expected a status code 100-599, a range such as 200-299 or a class such as 2xx, got \"0200\""},
        {"200-600",
         "expected a status code 100-599, a range such as 200-299 or a class such as 2xx, got \"200-600\""},
        {"6xx",
         "expected a status code 100-599, a range such as 200-299 or a class such as 2xx, got \"6xx\""},
        {"200-",
         "expected a status code 100-599, a range such as 200-299 or a class such as 2xx, got \"200-\""},
        {"ok",
         "expected a status code 100-599, a range such as 200-299 or a class such as 2xx, got \"ok\""},
        {"200 404",
         "expected a status code 100-599, a range such as 200-299 or a class such as 2xx, got \"200 404\""},
        {"404-400", "expected a range from low to high such as 200-299, got \"404-400\""},
        {"", "expected status codes separated by commas, such as 200-299, 404, got \"\""},
        {"200,,404",
         "expected status codes separated by commas, such as 200-299, 404, got \"200,,404\""},
        {",", "expected status codes separated by commas, such as 200-299, 404, got \",\""},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[256], want[512];

        snprintf(text, sizeof(text), TARGET "[request r]\nexpect = %s\n", cases[i].value);
        snprintf(want, sizeof(want), "brink: t.ini:4: [request r] expect: %s\n", cases[i].want);
        load_fails(text, want);
    }
}

static void expect_is_written_as_ranges_and_reads_back_the_same(void **state)
{
    struct config c, back;
    char *text;

    (void)state;
    load_ok(&c, TARGET "expect = 404, 2xx, 301, 302, 303\n[request a]\n"
                       "[request b]\nexpect = 599, 100\n");
    text = write_to_string(&c);
    assert_non_null(strstr(text, "[target]\n"));
    assert_non_null(strstr(text, "expect = 200-299, 301-303, 404\nhttp_version = 1.1\n"));
    assert_non_null(strstr(text, "[request a]\n"));
    assert_non_null(strstr(text, "expect = 200-299, 301-303, 404\n\n[request b]"));
    assert_non_null(strstr(text, "expect = 100, 599\n"));
    load_ok(&back, text);
    assert_memory_equal(&back.target.expect, &c.target.expect, sizeof(c.target.expect));
    assert_memory_equal(&back.requests[0].expect, &c.requests[0].expect,
                        sizeof(c.requests[0].expect));
    assert_memory_equal(&back.requests[1].expect, &c.requests[1].expect,
                        sizeof(c.requests[1].expect));
    free(text);
    config_free(&c);
    config_free(&back);
}

static void key_lines_say_where_each_key_was_set(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, TARGET "\n[load]\n; comment\nthreads = 2\n");
    assert_int_equal(c.target.line, 1);
    assert_int_equal(c.target.key_line[CONFIG_TARGET_URL], 2);
    assert_int_equal(c.target.key_line[CONFIG_TARGET_TIMEOUT], 0);
    assert_int_equal(c.load.line, 4);
    assert_int_equal(c.load.key_line[CONFIG_LOAD_THREADS], 6);
    assert_int_equal(c.record.line, 0);
    config_free(&c);
}

/* One bad value of every key, with the message it gets. */
static void bad_value_of_every_key_is_reported(void **state)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"[target]\nurl = localhost:8080\n",
         "brink: t.ini:2: [target] url: expected an http:// or https:// URL, got \"localhost:8080\"\n"},
        {TARGET "timeout = 0\n",
         "brink: t.ini:3: [target] timeout: expected a duration from 1ms to 24h, got \"0\"\n"},
        {TARGET "connect_timeout = 5\n",
         "brink: t.ini:3: [target] connect_timeout: expected a duration such as 250ms, 30s, 2m or 1h, got \"5\" (the unit is missing)\n"},
        {TARGET "keepalive = maybe\n",
         "brink: t.ini:3: [target] keepalive: expected yes/no, true/false, on/off or 1/0, got \"maybe\"\n"},
        {TARGET "max_body = 0\n",
         "brink: t.ini:3: [target] max_body: expected a size from 1 to 1TiB, got \"0\"\n"},
        {TARGET "header = : x\n",
         "brink: t.ini:3: [target] header: expected \"Name: value\", got \": x\"\n"},
        {TARGET "http_version = 3\n",
         "brink: t.ini:3: [target] http_version: expected 1.1, 2 or h2c, got \"3\" (did you mean 2?)\n"},
        {TARGET "http_version = h2c\nstreams = 1001\n",
         "brink: t.ini:4: [target] streams: expected a count from 1 to 1000, got \"1001\"\n"},
        {TARGET "insecure = please\n",
         "brink: t.ini:3: [target] insecure: expected yes/no, true/false, on/off or 1/0, got \"please\"\n"},
        {TARGET "ca_file = no-such.pem\n",
         "brink: t.ini:3: [target] ca_file: cannot open no-such.pem: No such file or directory\n"},
        {TARGET "ca_file = /dev/null\n",
         "brink: t.ini:3: [target] ca_file: /dev/null is not a regular file (expected FILE naming a file)\n"},
        {TARGET "client_cert = \n",
         "brink: t.ini:3: [target] client_cert: expected a file name, got \"\"\n"},
        {TARGET "server_name = a b\n",
         "brink: t.ini:3: [target] server_name: expected a host name such as api.test, got \"a b\"\n"},
        {TARGET "tls_min = tls1.3\n",
         "brink: t.ini:3: [target] tls_min: expected 1.0, 1.1, 1.2 or 1.3, got \"tls1.3\"\n"},
        {TARGET "connect_to = a.test:443:127.0.0.1\n",
         "brink: t.ini:3: [target] connect_to: expected HOST:PORT:ADDR:PORT such as api.test:443:127.0.0.1:8443 (empty parts allowed, ports 1 to 65535), got \"a.test:443:127.0.0.1\"\n"},
        {TARGET "connect_to = a.test:0::\n",
         "brink: t.ini:3: [target] connect_to: expected HOST:PORT:ADDR:PORT such as api.test:443:127.0.0.1:8443 (empty parts allowed, ports 1 to 65535), got \"a.test:0::\"\n"},
        {TARGET "unix_socket = /dev/null\n",
         "brink: t.ini:3: [target] unix_socket: /dev/null is not a socket (expected the path a server listens on)\n"},
        {TARGET "proxy = ftp://p.test\n",
         "brink: t.ini:3: [target] proxy: expected a proxy URL such as http://proxy.test:3128 (http, https, socks4, socks4a, socks5 or socks5h), got \"ftp://p.test\"\n"},
        {TARGET "ip = v4\n",
         "brink: t.ini:3: [target] ip: expected any, 4 or 6, got \"v4\" (did you mean 4?)\n"},
        {TARGET "[load]\nconcurrency = 100001\n",
         "brink: t.ini:4: [load] concurrency: expected a count from 1 to 100000, got \"100001\"\n"},
        {TARGET "[load]\nthreads = 0\n",
         "brink: t.ini:4: [load] threads: expected a count from 1 to 64, got \"0\"\n"},
        {TARGET "[load]\nduration = -1s\n",
         "brink: t.ini:4: [load] duration: expected a duration such as 250ms, 30s, 2m or 1h, got \"-1s\" (negative values are not allowed)\n"},
        {TARGET "[load]\nrequests = many\n",
         "brink: t.ini:4: [load] requests: expected a whole number such as 100, 10k or 2M, got \"many\"\n"},
        {TARGET "[load]\ntick = 50ms\n",
         "brink: t.ini:4: [load] tick: expected a duration from 100ms to 10s, got \"50ms\"\n"},
        {TARGET "[load]\nthink_time = 2h\n",
         "brink: t.ini:4: [load] think_time: expected a duration from 0 to 1h, got \"2h\"\n"},
        {TARGET "[load]\nbusy_poll = 2ms\n",
         "brink: t.ini:4: [load] busy_poll: expected a duration from 0 to 1ms, got \"2ms\"\n"},
        {TARGET "[load]\nstep = 0\n",
         "brink: t.ini:4: [load] step: expected a count from 1 to 100000, got \"0\"\n"},
        {TARGET "[load]\nmode = fast\n",
         "brink: t.ini:4: [load] mode: expected closed or rate (open), got \"fast\"\n"},
        {TARGET "[load]\nrate = ten\n",
         "brink: t.ini:4: [load] rate: expected a rate up to 10000000/s, such as 100/s, got \"ten\"\n"},
        {TARGET "[load]\nrate = -5/s\n",
         "brink: t.ini:4: [load] rate: expected a rate up to 10000000/s, such as 100/s, got \"-5/s\"\n"},
        {TARGET "[load]\nrate = 5/min\n",
         "brink: t.ini:4: [load] rate: expected a rate up to 10000000/s, such as 100/s, got \"5/min\"\n"},
        {TARGET "[load]\nrate_step = 0\n",
         "brink: t.ini:4: [load] rate_step: expected a positive rate up to 10000000/s, such as 100/s, got \"0\"\n"},
        {TARGET "[load]\nmax_in_flight = 0\n",
         "brink: t.ini:4: [load] max_in_flight: expected a count from 1 to 100000, got \"0\"\n"},
        {TARGET "[load]\nmode = rate\n",
         "brink: t.ini:4: [load] rate: mode = rate needs a rate (expected a rate such as rate = 100/s, got none)\n"},
        {TARGET "[request r]\nweight = 0\n",
         "brink: t.ini:4: [request r] weight: expected a count from 1 to 1000000, got \"0\"\n"},
        {TARGET "[request r]\nmethod = GET/1\n",
         "brink: t.ini:4: [request r] method: expected an HTTP method such as GET or PROPFIND (letters, digits and !#$%&'*+-.^_`|~), got \"GET/1\"\n"},
        {TARGET "[request r]\nurl = /a/{rand:1..x}\n",
         "brink: t.ini:4: [request r] url: bad placeholder (expected {rand:A..B} with integers A <= B, got \"{rand:1..x}\")\n"},
        {TARGET "[request r]\nurl = /a/}\n",
         "brink: t.ini:4: [request r] url: } without { in the URL template (expected {seq}, {vu}, {uuid} or {rand:A..B}, got \"/a/}\")\n"},
        {TARGET "[request r]\nheader = Bad Name: 1\n",
         "brink: t.ini:4: [request r] header: bad header name (expected letters, digits and !#$%&'*+-.^_`|~ before the colon, got \"Bad Name\")\n"},
        {TARGET "[request r]\nbody = @\n",
         "brink: t.ini:4: [request r] body: expected a file name after @, got \"@\"\n"},
        {TARGET "[request r]\nbody = @/\n",
         "brink: t.ini:4: [request r] body: @/ is not a regular file (expected @FILE naming a file)\n"},
        {TARGET "[request r]\ntimeout = 25h\n",
         "brink: t.ini:4: [request r] timeout: expected a duration from 1ms to 24h, got \"25h\"\n"},
        {TARGET "expect = 2x\n",
         "brink: t.ini:3: [target] expect: expected a status code 100-599, a range such as 200-299 or a class such as 2xx, got \"2x\"\n"},
        {TARGET "[request r]\nexpect = 200, 299-200\n",
         "brink: t.ini:4: [request r] expect: expected a range from low to high such as 200-299, got \"299-200\"\n"},
        {TARGET "[record]\nenabled = 2\n",
         "brink: t.ini:4: [record] enabled: expected yes/no, true/false, on/off or 1/0, got \"2\"\n"},
        {TARGET "[record]\ndir =\n",
         "brink: t.ini:4: [record] dir: expected a directory, got \"\"\n"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        load_fails(cases[i].text, cases[i].want);
}

static void env_references_are_expanded_and_the_raw_text_kept(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, "[target]\nurl = ${BASE}/api\nheader = Authorization: Bearer ${TOKEN}\n"
                "[load]\nconcurrency = ${USERS}\n");
    assert_string_equal(c.target.url.raw, "${BASE}/api");
    assert_string_equal(c.target.url.value, "http://10.0.0.7:8080/api");
    assert_string_equal(c.target.headers[0].raw, "Authorization: Bearer ${TOKEN}");
    assert_string_equal(c.target.headers[0].value, "Authorization: Bearer s3cr3t-t0k3n");
    assert_int_equal(c.load.concurrency, 40);
    config_free(&c);
}

static void double_dollar_is_a_dollar_and_a_lone_dollar_stays(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, TARGET "header = X-Price: $$5 or $6 and $${TOKEN}${EMPTY}\n");
    assert_string_equal(c.target.headers[0].value, "X-Price: $5 or $6 and ${TOKEN}");
    assert_string_equal(c.target.headers[0].raw, "X-Price: $$5 or $6 and $${TOKEN}${EMPTY}");
    config_free(&c);
}

static void missing_env_variable_is_an_error_naming_it(void **state)
{
    (void)state;
    load_fails(
        "[target]\nurl = ${NOPE}/x\n",
        "brink: t.ini:2: [target] url: environment variable NOPE is not set (expected it exported, or $$ for a literal $)\n");
    load_fails(
        "[target]\nurl = ${BASE\n",
        "brink: t.ini:2: [target] url: unterminated ${ (expected ${NAME}, got \"${BASE\")\n");
    load_fails(
        "[target]\nurl = ${}\n",
        "brink: t.ini:2: [target] url: bad variable name (expected ${NAME} with letters, digits and _, got \"${}\")\n");
}

static void env_variable_cannot_smuggle_a_newline_into_a_header(void **state)
{
    (void)state;
    load_fails(
        TARGET "header = X-Id: ${EVIL}\n",
        "brink: t.ini:3: [target] header: control character in the value (expected text, got \"X-Id: x\\r\\nInjected: 1\")\n");
}

static void url_of_3000_bytes_round_trips_exactly(void **state)
{
    struct config c;
    char *path = repeat('p', 3000 - strlen("http://h/")), *url = malloc(3001);
    char *text = malloc(BIG), *out;

    (void)state;
    snprintf(url, 3001, "http://h/%s", path);
    assert_int_equal(strlen(url), 3000);
    snprintf(text, BIG, "[target]\nurl = %s ; a comment\n[load]\nthreads = 2\n", url);
    load_ok(&c, text);
    assert_string_equal(c.target.url.value, url);
    assert_string_equal(c.target.url.raw, url);
    /* The line after the long one is read as usual. */
    assert_int_equal(c.load.threads, 2);
    assert_int_equal(c.load.key_line[CONFIG_LOAD_THREADS], 4);
    out = write_to_string(&c);
    assert_non_null(strstr(out, url));
    free(out);
    config_free(&c);
    free(text);
    free(url);
    free(path);
}

static void bearer_token_of_5000_bytes_is_kept_whole(void **state)
{
    struct config c;
    char *token = repeat('t', 5000), *text = malloc(BIG);

    (void)state;
    snprintf(text, BIG, TARGET "header = Authorization: Bearer %s\n", token);
    load_ok(&c, text);
    assert_int_equal(strlen(c.target.headers[0].value), strlen("Authorization: Bearer ") + 5000);
    assert_string_equal(c.target.headers[0].value + strlen("Authorization: Bearer "), token);
    config_free(&c);
    free(text);
    free(token);
}

static void line_of_9000_bytes_is_reported_not_cut(void **state)
{
    char *value = repeat('v', 9000 - strlen("body = ")), *text = malloc(BIG);

    (void)state;
    snprintf(text, BIG, TARGET "[request r]\nbody = %s\nweight = x\n", value);
    load_fails(
        text,
        "brink: t.ini:4: [request r] body: line is 9000 bytes, longer than the 8192 accepted\n"
        "brink: t.ini:5: [request r] weight: expected a whole number such as 100, 10k or 2M, got \"x\"\n");
    free(text);
    free(value);
}

static void line_of_exactly_8192_bytes_is_accepted(void **state)
{
    struct config c;
    char *value = repeat('v', 8192 - strlen("body = ")), *text = malloc(BIG);

    (void)state;
    snprintf(text, BIG, TARGET "[request r]\nbody = %s\r\n", value);
    load_ok(&c, text);
    assert_string_equal(c.requests[0].body.value, value);
    config_free(&c);
    free(text);
    free(value);
}

static void long_value_keeps_inline_comment_rules(void **state)
{
    struct config c;
    char *value = repeat('v', 300), *text = malloc(BIG);

    (void)state;
    snprintf(text, BIG, TARGET "[request r]\n   body =   %s;not-a-comment ; a comment  \n", value);
    load_ok(&c, text);
    assert_int_equal(strlen(c.requests[0].body.value), 300 + strlen(";not-a-comment"));
    config_free(&c);
    free(text);
    free(value);
}

static void misspelt_section_and_key_get_a_suggestion(void **state)
{
    (void)state;
    load_fails(TARGET "[laod]\nconcurrency = 2\n[Record]\n",
               "brink: t.ini:3: [laod]: unknown section (did you mean [load]?)\n"
               "brink: t.ini:5: [Record]: unknown section (did you mean [record]?)\n");
    load_fails(
        TARGET "conect_timeout = 1s\n[load]\nconcurency = 5\nThreads = 2\n",
        "brink: t.ini:3: [target] conect_timeout: unknown key (did you mean connect_timeout?)\n"
        "brink: t.ini:5: [load] concurency: unknown key (did you mean concurrency?)\n"
        "brink: t.ini:6: [load] Threads: unknown key (did you mean threads?)\n");
}

static void unknown_name_with_nothing_close_lists_the_valid_ones(void **state)
{
    (void)state;
    load_fails(
        TARGET "[record]\npath = x\n[plot]\n",
        "brink: t.ini:4: [record] path: unknown key (expected one of enabled, dir)\n"
        "brink: t.ini:5: [plot]: unknown section (expected [target], [load], [request NAME], [probe NAME], [ramp] or [record])\n");
}

static void every_error_of_a_file_is_reported_with_its_line(void **state)
{
    (void)state;
    load_fails(
        "; errors on lines 3, 5, 7, 8, 9, 11 and 12\n"
        "[target]\n"
        "url = gopher://x\n"
        "[load]\n"
        "threads = 65\n"
        "threads = 2\n"
        "tick = 1\n"
        "bogus\n"
        "  more\n"
        "[request a]\n"
        "url = /{x}\n"
        "[request a]\n",
        "brink: t.ini:3: [target] url: expected an http:// or https:// URL, got \"gopher://x\"\n"
        "brink: t.ini:5: [load] threads: expected a count from 1 to 64, got \"65\"\n"
        "brink: t.ini:6: [load] threads: set twice (first at line 5)\n"
        "brink: t.ini:7: [load] tick: expected a duration such as 250ms, 30s, 2m or 1h, got \"1\" (the unit is missing)\n"
        "brink: t.ini:8: [load]: not a setting (expected \"key = value\", a [section] line or a ; comment, got \"bogus\")\n"
        "brink: t.ini:9: [load] tick: continuation lines are not supported, a value must fit on its line (expected \"key = value\", got \"more\")\n"
        "brink: t.ini:11: [request a] url: unknown placeholder (expected {seq}, {vu}, {uuid} or {rand:A..B}, got \"{x}\")\n"
        "brink: t.ini:12: [request a]: section repeated (first at line 10)\n");
}

static void header_may_repeat_but_other_keys_may_not(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, TARGET "header = A: 1\nheader = A: 2\n");
    assert_int_equal(c.target.n_headers, 2);
    config_free(&c);
    load_fails(TARGET "[record]\ndir = a\n\ndir = b\n",
               "brink: t.ini:6: [record] dir: set twice (first at line 4)\n");
}

static void indented_keys_are_ordinary_keys(void **state)
{
    struct config c;

    (void)state;
    /* inih alone would append the indented line to url's value. */
    load_ok(&c, "[target]\n  url = http://h/\n  timeout = 5s\n\t[load]\n\tthreads = 3\n");
    assert_string_equal(c.target.url.value, "http://h/");
    assert_int_equal(c.target.timeout_us, 5 * SECOND_US);
    assert_int_equal(c.load.threads, 3);
    config_free(&c);
}

static void inline_comment_needs_a_blank_before_the_semicolon(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, TARGET "[request r]\nbody = a;b ; comment\n# hash comment\nmethod : PUT\n");
    assert_string_equal(c.requests[0].body.value, "a;b");
    assert_string_equal(c.requests[0].method.value, "PUT");
    config_free(&c);
}

static void path_is_joined_to_target_url(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, "[target]\nurl = ${BASE}/api/\n[request a]\nurl = /objects/{seq}\n"
                "[request b]\nurl = http://other/x\n");
    assert_string_equal(c.requests[0].url.value, "http://10.0.0.7:8080/api/objects/{seq}");
    assert_string_equal(c.requests[0].url.raw, "/objects/{seq}");
    assert_string_equal(c.requests[1].url.value, "http://other/x");
    config_free(&c);
}

static void request_without_url_or_timeout_takes_the_targets(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, "[request a]\n[target]\nurl = http://h/x\ntimeout = 7s\n");
    assert_string_equal(c.requests[0].url.value, "http://h/x");
    assert_int_equal(c.requests[0].timeout_us, 7 * SECOND_US);
    assert_int_equal(c.requests[0].key_line[CONFIG_REQUEST_URL], 0);
    config_free(&c);
}

static void requests_with_their_own_urls_need_no_target(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, "[request a]\nurl = http://h/a\n[request b]\nurl = https://h/b\n");
    assert_null(c.target.url.value);
    assert_int_equal(c.n_requests, 2);
    config_free(&c);
}

static void file_without_any_url_says_where_to_put_one(void **state)
{
    (void)state;
    load_fails(
        "",
        "brink: t.ini: [target] url: no target: set [target] url or a url in each [request NAME]\n");
}

static void request_names_are_checked(void **state)
{
    struct config c;
    char text[256], want[512];
    char *name = repeat('n', 63);

    (void)state;
    /* inih would cut this section name at 49 bytes; the reader does not. */
    snprintf(text, sizeof(text), TARGET "[request %s]\nweight = 2\n", name);
    load_ok(&c, text);
    assert_string_equal(c.requests[0].name, name);
    config_free(&c);
    /* One byte more, and messages show the name whole (MSG_SHOWN_MAX). */
    snprintf(text, sizeof(text), TARGET "[request %sn]\n", name);
    snprintf(
        want, sizeof(want),
        "brink: t.ini:3: [request %sn]: bad NAME (expected 1 to 63 letters, digits, _ . or -, got \"%sn\")\n",
        name, name);
    load_fails(text, want);
    load_fails(
        TARGET "[request a b]\n",
        "brink: t.ini:3: [request a b]: bad NAME (expected 1 to 63 letters, digits, _ . or -, got \"a b\")\n");
    free(name);
}

static void more_than_64_requests_is_an_error(void **state)
{
    char *text = malloc(BIG);
    size_t used = (size_t)snprintf(text, BIG, TARGET);

    (void)state;
    for (int i = 0; i <= CONFIG_MAX_REQUESTS; i++)
        used += (size_t)snprintf(text + used, BIG - used, "[request r%d]\nweight = 1\n", i);
    load_fails(
        text,
        "brink: t.ini:131: [request r64]: too many [request NAME] sections (expected at most 64)\n");
    free(text);
}

static void crlf_line_ends_and_a_byte_order_mark_are_accepted(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, "\xEF\xBB\xBF[target]\r\nurl = http://h/\r\n\r\n[load]\r\nthreads = 4\r\n");
    assert_string_equal(c.target.url.value, "http://h/");
    assert_int_equal(c.load.threads, 4);
    config_free(&c);
}

static void unprintable_text_in_messages_is_escaped(void **state)
{
    (void)state;
    load_fails(
        TARGET "[lo\x1b]ad]\n[load]\nc\x07 = 1\n",
        "brink: t.ini:3: [lo\\e]: text after the section name (expected a comment or nothing after ], got \"ad]\")\n"
        "brink: t.ini:3: [lo\\e]: unknown section (expected [target], [load], [request NAME], [probe NAME], [ramp] or [record])\n"
        "brink: t.ini:5: [load] c\\x07: unknown key (expected one of concurrency, threads, duration, requests, tick, think_time, busy_poll, step, mode, rate, max_in_flight, rate_step)\n");
}

static void failed_load_leaves_the_config_as_config_init_did(void **state)
{
    struct config c, fresh;
    char *err;

    (void)state;
    assert_int_equal(load(&c, TARGET "header = A: 1\n[request a]\nweight = x\n", &err), -EINVAL);
    free(err);
    config_init(&fresh);
    assert_memory_equal(&c, &fresh, sizeof(c));
    config_free(&c);
}

/* Loading path fails with want_rc and exactly the one line want_err. */
static void assert_load_fails(const char *path, int want_rc, const char *want_err)
{
    struct config c;
    char *err;
    size_t len;
    FILE *f = open_memstream(&err, &len);

    config_init(&c);
    assert_int_equal(config_load_file(&c, path, &opts, f), want_rc);
    fclose(f);
    assert_string_equal(err, want_err);
    free(err);
    config_free(&c);
}

static void missing_file_is_reported_in_one_line(void **state)
{
    (void)state;
    assert_load_fails("/nonexistent/x.ini", -ENOENT,
                      "brink: /nonexistent/x.ini: cannot open: No such file or directory\n");
}

static void device_is_refused_in_one_line_before_any_read(void **state)
{
    (void)state;
    /* /dev/zero never ends: read, it would spin forever. */
    assert_load_fails("/dev/zero", -ENODEV, "brink: /dev/zero: not a regular file\n");
}

/* Counts the lines of s. */
static unsigned count_lines(const char *s)
{
    unsigned n = 0;

    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void errors_past_the_first_twenty_are_counted_not_printed(void **state)
{
    struct config c;
    char *err, *text = malloc(sizeof(TARGET) + 100 * 8);
    const char *last;

    (void)state;
    strcpy(text, TARGET);
    for (int i = 0; i < 100; i++)
        strcat(text, "garbage\n");
    assert_int_equal(load(&c, text, &err), -EINVAL);
    assert_int_equal(count_lines(err), CONFIG_ERRORS_SHOWN + 1);
    last = strstr(err, "brink: t.ini: ... ");
    assert_non_null(last);
    assert_string_equal(last, "brink: t.ini: ... 80 more errors\n");
    free(err);
    free(text);
}

static void body_file_is_found_next_to_the_config_file(void **state)
{
    const char *path = BRINK_SOURCE_DIR "/tests/data/config/good/body_file.ini";
    struct config c;

    (void)state;
    config_init(&c);
    assert_int_equal(config_load_file(&c, path, &opts, stderr), 0);
    assert_int_equal(c.requests[0].body_kind, CONFIG_BODY_FILE);
    assert_string_equal(c.requests[0].body.raw, "@payload.json");
    assert_string_equal(c.requests[0].body_path,
                        BRINK_SOURCE_DIR "/tests/data/config/good/payload.json");
    config_free(&c);
}

static void write_keeps_references_and_redacts_secrets(void **state)
{
    struct config c;
    char *out;

    (void)state;
    load_ok(&c, "[target]\nurl = http://user:pw@h/${TOKEN}\n"
                "header = Authorization: Bearer ${TOKEN}\nheader = X-Plain: ${USERS}\n"
                "[request get]\nurl = /x?token=abc\n");
    out = write_to_string(&c);
    assert_null(strstr(out, "s3cr3t"));
    assert_null(strstr(out, ":pw@"));
    assert_non_null(strstr(out, "\nurl = http://user:<redacted len=2>@h/${TOKEN}\n"));
    /* A reference says where the secret is, so it stays as written. */
    assert_non_null(strstr(out, "\nheader = Authorization: Bearer ${TOKEN}\n"));
    assert_non_null(strstr(out, "\nheader = X-Plain: ${USERS}\n"));
    assert_non_null(strstr(out, "\nurl = /x?token=<redacted len=3>\n"));
    free(out);
    config_free(&c);
}

static void write_prints_every_key_and_reads_back_the_same(void **state)
{
    struct config c, again;
    char *first, *second;

    (void)state;
    load_ok(&c, "[target]\nurl = ${BASE}/\nmax_body = 1000000\ntimeout = 90s\n"
                "[load]\nduration = 1m30s\ntick = 1500ms\nthink_time = 1500us\nbusy_poll = 20us\n"
                "[request put]\nmethod = PUT\nbody = random:13k\nheader = X: y\n"
                "[record]\nenabled = no\n");
    first = write_to_string(&c);
    assert_string_equal(first,
                        "; effective configuration: every key with its value, secrets redacted\n"
                        "[target]\n"
                        "url = ${BASE}/\n"
                        "timeout = 90s\n"
                        "connect_timeout = 5s\n"
                        "keepalive = yes\n"
                        "max_body = 1MB\n"
                        "transport = auto\n"
                        "expect = 100-399\n"
                        "http_version = 1.1\n"
                        "streams = 1\n"
                        "insecure = no\n"
                        "tls_min = 1.2\n"
                        "tls_resume = yes\n"
                        "ip = any\n"
                        "cookies = no\n"
                        "follow_redirects = 0\n"
                        "retry = yes\n"
                        "retry_non_idempotent = no\n"
                        "\n"
                        "[load]\n"
                        "concurrency = 10\n"
                        "threads = 1\n"
                        "duration = 90s\n"
                        "requests = 0\n"
                        "tick = 1500ms\n"
                        "think_time = 1500us\n"
                        "busy_poll = 20us\n"
                        "step = 1\n"
                        "mode = closed\n"
                        "rate = 0/s\n"
                        "max_in_flight = 1000\n"
                        "rate_step = 10/s\n"
                        "\n"
                        "[request put]\n"
                        "weight = 1\n"
                        "method = PUT\n"
                        "url = ${BASE}/\n"
                        "header = X: y\n"
                        "body = random:13k\n"
                        "timeout = 90s\n"
                        "expect = 100-399\n"
                        "\n"
                        "[thresholds]\n"
                        "fail_on = error_rate > 1%\n"
                        "\n"
                        "[record]\n"
                        "enabled = no\n");
    load_ok(&again, first);
    second = write_to_string(&again);
    assert_string_equal(first, second);
    free(first);
    free(second);
    config_free(&c);
    config_free(&again);
}

static void connection_keys_are_read(void **state)
{
    struct config c;
    struct config_route r;
    char why[256];

    (void)state;
    load_ok(&c, "[target]\nurl = https://api.test/\nhttp_version = 2\nstreams = 10\n"
                "insecure = yes\nserver_name = other.test\ntls_min = 1.3\ntls_resume = no\n"
                "connect_to = api.test:443:127.0.0.1:8443\nconnect_to = ::[::1]:\n"
                "proxy = socks5h://u:p@proxy.test:1080\nip = 6\n");
    assert_int_equal(c.target.http_version, CONFIG_HTTP_2);
    assert_int_equal(c.target.streams, 10);
    assert_true(c.target.insecure);
    assert_string_equal(c.target.server_name.value, "other.test");
    assert_int_equal(c.target.tls_min, CONFIG_TLS_1_3);
    assert_false(c.target.tls_resume);
    assert_int_equal(c.target.n_connect_to, 2);
    assert_int_equal(config_route_parse(c.target.connect_to[0].value, &r, why, sizeof(why)), 0);
    assert_string_equal(r.host, "api.test");
    assert_int_equal(r.port, 443);
    assert_string_equal(r.to_host, "127.0.0.1");
    assert_int_equal(r.to_port, 8443);
    assert_int_equal(config_route_parse(c.target.connect_to[1].value, &r, why, sizeof(why)), 0);
    assert_string_equal(r.host, "");
    assert_int_equal(r.port, 0);
    assert_string_equal(r.to_host, "::1");
    assert_int_equal(r.to_port, 0);
    assert_string_equal(c.target.proxy.value, "socks5h://u:p@proxy.test:1080");
    assert_int_equal(c.target.ip, CONFIG_IP_6);
    assert_null(c.target.ca_file.value);
    config_free(&c);
}

static void tls_files_are_found_next_to_the_config_file(void **state)
{
    char dir[] = "/tmp/brink-tls-XXXXXX", path[128];
    struct config c;
    FILE *f;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/ca.pem", dir);
    assert_non_null(f = fopen(path, "w"));
    fclose(f);
    snprintf(path, sizeof(path), "%s/t.ini", dir);
    assert_non_null(f = fopen(path, "w"));
    fputs("[target]\nurl = https://127.0.0.1/\nca_file = ca.pem\nclient_cert = ca.pem\n", f);
    fclose(f);
    config_init(&c);
    assert_int_equal(config_load_file(&c, path, NULL, stderr), 0);
    snprintf(path, sizeof(path), "%s/ca.pem", dir);
    assert_string_equal(c.target.ca_file.value, path);
    assert_string_equal(c.target.ca_file.raw, "ca.pem");
    assert_string_equal(c.target.client_cert.value, path);
    config_free(&c);
    unlink(path);
    snprintf(path, sizeof(path), "%s/t.ini", dir);
    unlink(path);
    rmdir(dir);
}

static void connection_keys_that_contradict_are_errors(void **state)
{
    (void)state;
    load_fails(
        TARGET "streams = 4\n",
        "brink: t.ini:3: [target] streams: streams = 4 needs HTTP/2, which multiplexes (expected http_version = 2 or h2c, or streams = 1)\n");
    load_fails(
        TARGET "http_version = 2\n",
        "brink: t.ini:3: [target] http_version: http_version = 2 is negotiated in TLS, but \"http://127.0.0.1:8080/\" is http:// (expected https:// URLs, or http_version = h2c for HTTP/2 without TLS)\n");
    load_fails(
        TARGET "transport = h1\nproxy = http://p.test:3128\n",
        "brink: t.ini:3: [target] transport: h1 does not go through proxies (expected transport = curl or auto with proxy =)\n");
    load_fails(
        TARGET "unix_socket = /tmp/brink-no.sock\nproxy = http://p.test\n",
        "brink: t.ini:3: [target] unix_socket: a unix socket is where every connection goes (expected no proxy with it)\n");
}

static void every_example_in_config_dir_parses(void **state)
{
    const char *dir_path = BRINK_SOURCE_DIR "/config";
    DIR *dir = opendir(dir_path);
    struct dirent *e;
    int n = 0;

    (void)state;
    assert_non_null(dir);
    while ((e = readdir(dir)) != NULL) {
        size_t len = strlen(e->d_name);
        char path[4096];
        struct config c;

        if (len < 5 || strcmp(e->d_name + len - 4, ".ini") != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir_path, e->d_name);
        config_init(&c);
        if (config_load_file(&c, path, &any_env, stderr) != 0)
            fail_msg("%s does not parse", path);
        config_free(&c);
        n++;
    }
    closedir(dir);
    assert_true(n >= 2);
}

static void probe_sections_of_each_type_are_read(void **state)
{
    struct config c;
    const struct config_probe *p;

    (void)state;
    load_ok(&c, TARGET "[probe siblings]\ntype = json\nurl = /stats\n"
                       "pointer = /node_get_fsm_siblings_100\npointer = /a~1b/0\npointer =\n"
                       "header = Accept: application/json\n"
                       "[probe active]\ntype = text\nurl = https://h:8443/nginx_status\n"
                       "key = Active connections\n"
                       "[probe queue]\ntype = prometheus\nurl = /metrics\n"
                       "metric = brink_target_queue_depth{a=\"b\"}\n"
                       "[probe tw]\ntype = command\ncommand = ss -tan state time-wait | wc -l\n"
                       "regex = ^([0-9]+)$\n");
    assert_int_equal(c.n_probes, 4);

    p = &c.probes[0];
    assert_string_equal(p->name, "siblings");
    assert_int_equal(p->line, 3);
    assert_int_equal(p->type, CONFIG_PROBE_TYPE_JSON);
    assert_string_equal(p->url.raw, "/stats");
    assert_string_equal(p->url.value, "http://127.0.0.1:8080/stats");
    assert_int_equal(p->n_pointers, 3);
    assert_string_equal(p->pointers[0].value, "/node_get_fsm_siblings_100");
    assert_string_equal(p->pointers[1].value, "/a~1b/0");
    assert_string_equal(p->pointers[2].value, "");
    assert_int_equal(p->key_line[CONFIG_PROBE_POINTER], 6);
    assert_int_equal(p->n_headers, 1);
    assert_string_equal(p->headers[0].value, "Accept: application/json");
    assert_null(p->key.value);
    assert_null(p->regex.value);

    p = &c.probes[1];
    assert_int_equal(p->type, CONFIG_PROBE_TYPE_TEXT);
    assert_string_equal(p->url.value, "https://h:8443/nginx_status");
    assert_string_equal(p->key.value, "Active connections");
    assert_null(p->regex.value);

    p = &c.probes[2];
    assert_int_equal(p->type, CONFIG_PROBE_TYPE_PROMETHEUS);
    assert_string_equal(p->url.value, "http://127.0.0.1:8080/metrics");
    assert_string_equal(p->metric.value, "brink_target_queue_depth{a=\"b\"}");

    p = &c.probes[3];
    assert_int_equal(p->type, CONFIG_PROBE_TYPE_COMMAND);
    assert_null(p->url.value);
    assert_string_equal(p->command.value, "ss -tan state time-wait | wc -l");
    assert_null(p->key.value);
    assert_string_equal(p->regex.value, "^([0-9]+)$");
    config_free(&c);
}

static void probe_without_optional_keys_gets_the_defaults(void **state)
{
    struct config c;
    const struct config_probe *p;

    (void)state;
    load_ok(&c, TARGET "[probe q]\ntype = prometheus\nurl = /metrics\nmetric = up\n");
    p = &c.probes[0];
    assert_int_equal(p->interval_us, SECOND_US);
    assert_int_equal(p->timeout_us, 5 * SECOND_US);
    assert_int_equal(p->kind, CONFIG_PROBE_GAUGE);
    assert_int_equal(p->alert_op, CONFIG_ALERT_NONE);
    assert_int_equal(p->n_headers, 0);
    assert_int_equal(p->key_line[CONFIG_PROBE_INTERVAL], 0);
    config_free(&c);
}

static void probe_common_keys_are_read(void **state)
{
    struct config c;
    const struct config_probe *p;

    (void)state;
    load_ok(&c, TARGET "[probe q]\ntype = prometheus\nurl = ${BASE}/metrics\nmetric = up\n"
                       "interval = 100ms\ntimeout = 1ms\nkind = counter\n");
    p = &c.probes[0];
    assert_string_equal(p->url.value, "http://10.0.0.7:8080/metrics");
    assert_int_equal(p->interval_us, 100000);
    assert_int_equal(p->timeout_us, 1000);
    assert_int_equal(p->kind, CONFIG_PROBE_COUNTER);
    config_free(&c);
}

static void alert_forms_are_parsed(void **state)
{
    static const struct {
        const char *text;
        enum config_alert_op op;
        double value;
    } cases[] = {
        {"> 100", CONFIG_ALERT_ABOVE, 100},   {">100", CONFIG_ALERT_ABOVE, 100},
        {"< -0.5", CONFIG_ALERT_BELOW, -0.5}, {"<\t2.25", CONFIG_ALERT_BELOW, 2.25},
        {"> .5", CONFIG_ALERT_ABOVE, 0.5},    {"> 1e6", CONFIG_ALERT_ABOVE, 1e6},
        {"> +3", CONFIG_ALERT_ABOVE, 3},      {"< 0.1", CONFIG_ALERT_BELOW, 0.1},
        {"changes", CONFIG_ALERT_CHANGES, 0}, {"none", CONFIG_ALERT_NONE, 0},
    };
    char text[256];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct config c;

        snprintf(text, sizeof(text),
                 TARGET "[probe q]\ntype = prometheus\nurl = /m\nmetric = up\n"
                        "alert = %s\n",
                 cases[i].text);
        load_ok(&c, text);
        assert_int_equal(c.probes[0].alert_op, cases[i].op);
        assert_true(c.probes[0].alert_value == cases[i].value);
        config_free(&c);
    }
}

/* One bad value of every probe key, with the message it gets. */
static void bad_value_of_every_probe_key_is_reported(void **state)
{
#define PROBE_Q TARGET "[probe q]\ntype = json\nurl = /stats\npointer = /a\n"
    static const struct {
        const char *text, *want;
    } cases[] = {
        {TARGET "[probe q]\ntype = JSON\nurl = /stats\npointer = /a\n",
         "brink: t.ini:4: [probe q] type: expected json, text, prometheus or command, got \"JSON\" (did you mean json?)\n"},
        {TARGET "[probe q]\ntype = xml\nurl = /stats\n",
         "brink: t.ini:4: [probe q] type: expected json, text, prometheus or command, got \"xml\"\n"},
        {PROBE_Q "url = ftp://h/\n",
         "brink: t.ini:7: [probe q] url: set twice (first at line 5)\n"},
        {TARGET "[probe q]\ntype = json\nurl = stats\npointer = /a\n",
         "brink: t.ini:5: [probe q] url: expected an http:// or https:// URL or a path starting with /, got \"stats\"\n"},
        {TARGET "[probe q]\ntype = json\nurl = /stats/{seq}\npointer = /a\n",
         "brink: t.ini:5: [probe q] url: expected a URL without placeholders such as {seq} (a probe fetches its url as written), got \"/stats/{seq}\"\n"},
        {PROBE_Q "pointer = node_gets\n",
         "brink: t.ini:7: [probe q] pointer: expected a JSON Pointer such as /node_gets or /disk/0/used (starting with /, or empty for the whole page), got \"node_gets\"\n"},
        {PROBE_Q "pointer = /a~2b\n",
         "brink: t.ini:7: [probe q] pointer: bad ~ in the JSON Pointer (expected ~0 for ~ or ~1 for /, got \"/a~2b\")\n"},
        {PROBE_Q "pointer = /a~\n",
         "brink: t.ini:7: [probe q] pointer: bad ~ in the JSON Pointer (expected ~0 for ~ or ~1 for /, got \"/a~\")\n"},
        {PROBE_Q "header = x\n",
         "brink: t.ini:7: [probe q] header: expected \"Name: value\", got \"x\"\n"},
        {TARGET "[probe q]\ntype = text\nurl = /s\nkey =\n",
         "brink: t.ini:6: [probe q] key: expected a key, got \"\"\n"},
        {TARGET "[probe q]\ntype = prometheus\nurl = /m\nmetric =\n",
         "brink: t.ini:6: [probe q] metric: expected a metric, got \"\"\n"},
        {PROBE_Q "interval = 2h\n",
         "brink: t.ini:7: [probe q] interval: expected a duration from 100ms to 1h, got \"2h\"\n"},
        {PROBE_Q "timeout = 0\n",
         "brink: t.ini:7: [probe q] timeout: expected a duration from 1ms to 1h, got \"0\"\n"},
        {PROBE_Q "kind = rate\n",
         "brink: t.ini:7: [probe q] kind: expected gauge or counter, got \"rate\"\n"},
        {PROBE_Q "alert = above 5\n",
         "brink: t.ini:7: [probe q] alert: expected > N, < N, changes or none, with N a number such as 100 or -0.5, got \"above 5\"\n"},
        {PROBE_Q "alert = > 1,5\n",
         "brink: t.ini:7: [probe q] alert: expected > N, < N, changes or none, with N a number such as 100 or -0.5, got \"> 1,5\"\n"},
        {PROBE_Q "alert = >\n",
         "brink: t.ini:7: [probe q] alert: expected > N, < N, changes or none, with N a number such as 100 or -0.5, got \">\"\n"},
        {PROBE_Q "alert = < nan\n",
         "brink: t.ini:7: [probe q] alert: expected > N, < N, changes or none, with N a number such as 100 or -0.5, got \"< nan\"\n"},
        {PROBE_Q "alert = > 1e999\n",
         "brink: t.ini:7: [probe q] alert: expected > N, < N, changes or none, with N a number such as 100 or -0.5, got \"> 1e999\"\n"},
        {PROBE_Q "colour = red\n",
         "brink: t.ini:7: [probe q] colour: unknown key (expected one of type, url, header, pointer, key, regex, metric, command, interval, timeout, kind, alert, on)\n"},
        {PROBE_Q "on = everywhere\n",
         "brink: t.ini:7: [probe q] on: expected coordinator or agents, got \"everywhere\"\n"},
    };
#undef PROBE_Q

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        load_fails(cases[i].text, cases[i].want);
}

/* What each type needs and refuses, checked once the section is read. */
static void probe_keys_are_checked_against_its_type(void **state)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {TARGET "[probe p]\nurl = /stats\n",
         "brink: t.ini:3: [probe p]: no type (expected type = json, text, prometheus or command)\n"},
        {TARGET "[probe p]\ntype = json\n",
         "brink: t.ini:3: [probe p]: type json needs a url (e.g. url = /stats)\n"
         "brink: t.ini:3: [probe p]: type json needs a pointer (e.g. pointer = /node_get_fsm_siblings_100)\n"},
        {TARGET "[probe p]\ntype = text\nurl = /s\n",
         "brink: t.ini:3: [probe p]: type text needs a key or a regex (e.g. key = Active connections, or regex = ^Active connections: ([0-9]+))\n"},
        {TARGET "[probe p]\ntype = prometheus\n",
         "brink: t.ini:3: [probe p]: type prometheus needs a url (e.g. url = /metrics)\n"
         "brink: t.ini:3: [probe p]: type prometheus needs a metric (e.g. metric = brink_target_queue_depth)\n"},
        {TARGET "[probe p]\ntype = command\n",
         "brink: t.ini:3: [probe p]: type command needs a command (e.g. command = ss -tan state time-wait | wc -l)\n"},
        {TARGET
         "[probe p]\ntype = text\nurl = /s\nkey = k\npointer = /a\nmetric = m\ncommand = c\n",
         "brink: t.ini:7: [probe p] pointer: only a json probe reads pointers (this one is type text)\n"
         "brink: t.ini:8: [probe p] metric: only a prometheus probe reads a metric (this one is type text)\n"
         "brink: t.ini:9: [probe p] command: only a command probe runs a command (this one is type text)\n"},
        {TARGET "[probe p]\ntype = json\nurl = /s\npointer = /a\nkey = k\nregex = (x)\n",
         "brink: t.ini:7: [probe p] key: only text and command probes read a key (this one is type json)\n"
         "brink: t.ini:8: [probe p] regex: only text and command probes read a regex (this one is type json)\n"},
        {TARGET "[probe p]\nurl = /s\nheader = A: b\ncommand = c\ntype = command\n",
         "brink: t.ini:4: [probe p] url: only json, text and prometheus probes fetch a url (this one is type command)\n"
         "brink: t.ini:5: [probe p] header: only json, text and prometheus probes send headers (this one is type command)\n"},
        {TARGET "[probe p]\ntype = command\ncommand = c\nregex = (x)\nkey = k\n",
         "brink: t.ini:7: [probe p] key: a probe reads a key or a regex, not both (regex is set at line 6)\n"},
        {"[request r]\nurl = http://h/\n[probe p]\ntype = prometheus\nurl = /metrics\nmetric = up\n",
         "brink: t.ini:5: [probe p] url: a path needs a [target] url to join it to (expected an http:// or https:// URL, got \"/metrics\")\n"},
        {TARGET "[probe p]\ntype = jsno\nurl = /s\n",
         "brink: t.ini:4: [probe p] type: expected json, text, prometheus or command, got \"jsno\" (did you mean json?)\n"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        load_fails(cases[i].text, cases[i].want);
}

static void probe_names_are_checked_like_request_names(void **state)
{
    (void)state;
    load_fails(
        TARGET "[probe a b]\ntype = command\ncommand = c\n",
        "brink: t.ini:3: [probe a b]: bad NAME (expected 1 to 63 letters, digits, _ . or -, got \"a b\")\n");
    load_fails(TARGET "[probe]\n",
               "brink: t.ini:3: [probe]: missing NAME (expected [probe NAME])\n");
    load_fails(TARGET "[probe p]\ntype = command\ncommand = c\n[probe p]\ntype = command\n",
               "brink: t.ini:6: [probe p]: section repeated (first at line 3)\n");
    load_fails(TARGET "[probes p]\n",
               "brink: t.ini:3: [probes p]: unknown section (did you mean [probe p]?)\n");
}

static void same_name_may_be_a_request_and_a_probe(void **state)
{
    struct config c;

    (void)state;
    load_ok(&c, TARGET "[request stats]\nurl = /stats\n"
                       "[probe stats]\ntype = json\nurl = /stats\npointer = /a\n");
    assert_int_equal(c.n_requests, 1);
    assert_int_equal(c.n_probes, 1);
    config_free(&c);
}

static void more_than_16_probes_is_an_error(void **state)
{
    char text[4096] = TARGET;
    size_t n = strlen(text);

    (void)state;
    for (int i = 0; i <= CONFIG_MAX_PROBES; i++)
        n += (size_t)snprintf(text + n, sizeof(text) - n,
                              "[probe p%d]\ntype = command\ncommand = c\n", i);
    load_fails(
        text,
        "brink: t.ini:51: [probe p16]: too many [probe NAME] sections (expected at most 16)\n");
}

static void more_than_8_pointers_is_an_error(void **state)
{
    char text[4096] = TARGET "[probe p]\ntype = json\nurl = /s\n";
    size_t n = strlen(text);

    (void)state;
    for (int i = 0; i <= CONFIG_MAX_POINTERS; i++)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "pointer = /p%d\n", i);
    load_fails(
        text,
        "brink: t.ini:14: [probe p] pointer: too many pointer lines (expected at most 8 in one probe)\n");
}

static void write_redacts_secret_probe_headers(void **state)
{
    struct config c;
    char *out;

    (void)state;
    load_ok(&c, TARGET "[probe s]\ntype = json\nurl = /stats?token=abc\npointer = /a\n"
                       "header = Authorization: Bearer ${TOKEN}\n"
                       "header = X-Api-Key: literal-key\n");
    out = write_to_string(&c);
    assert_null(strstr(out, "s3cr3t"));
    assert_null(strstr(out, "literal-key"));
    assert_non_null(strstr(out, "\nheader = Authorization: Bearer ${TOKEN}\n"));
    assert_non_null(strstr(out, "\nheader = X-Api-Key: <redacted len=11>\n"));
    assert_non_null(strstr(out, "\nurl = /stats?token=<redacted len=3>\n"));
    free(out);
    config_free(&c);
}

static void write_prints_probe_sections_and_reads_back_the_same(void **state)
{
    struct config c, again;
    char *first, *second;

    (void)state;
    load_ok(&c, TARGET "[probe siblings]\ntype = json\nurl = /stats\n"
                       "header = Accept: text/plain\n"
                       "pointer = /node_get_fsm_siblings_100\npointer =\nalert = > 1e6\n"
                       "[probe tw]\ntype = command\ncommand = ss -tan | wc -l\n"
                       "interval = 1500ms\nkind = counter\nalert = < -0.1\non = agents\n");
    first = write_to_string(&c);
    assert_non_null(strstr(first, "\n"
                                  "[probe siblings]\n"
                                  "type = json\n"
                                  "url = /stats\n"
                                  "header = Accept: text/plain\n"
                                  "pointer = /node_get_fsm_siblings_100\n"
                                  "pointer =\n"
                                  "interval = 1s\n"
                                  "timeout = 5s\n"
                                  "kind = gauge\n"
                                  "alert = > 1000000\n"
                                  "on = coordinator\n"
                                  "\n"
                                  "[probe tw]\n"
                                  "type = command\n"
                                  "command = ss -tan | wc -l\n"
                                  "interval = 1500ms\n"
                                  "timeout = 5s\n"
                                  "kind = counter\n"
                                  "alert = < -0.1\n"
                                  "on = agents\n"
                                  "\n"
                                  "[thresholds]\n"
                                  "fail_on = error_rate > 1%\n"
                                  "\n"
                                  "[record]\n"));
    load_ok(&again, first);
    second = write_to_string(&again);
    assert_string_equal(first, second);
    assert_true(again.probes[1].alert_value == -0.1);
    assert_int_equal(again.probes[1].on, CONFIG_PROBE_ON_AGENTS);
    free(first);
    free(second);
    config_free(&c);
    config_free(&again);
}

/* Probes on agents: one series per agent each, all within a tick's 32,
 * each NAME@HOST within 63 bytes; refused at once, naming the probe. */
static void probes_on_agents_fit_in_a_tick(void **state)
{
    struct config c;
    char text[2048];

    (void)state;
    /* 1 here + 3 on each of 10 agents: 31. */
    snprintf(text, sizeof(text),
             "%s[agents]\nhosts = a1,a2,a3,a4,a5,a6,a7,a8,a9,a10\n"
             "[probe here]\ntype = command\ncommand = echo 1\n"
             "[probe cpu]\ntype = command\ncommand = echo 1\non = agents\n"
             "[probe st]\ntype = json\nurl = /stats\npointer = /a\npointer = /b\non = agents\n",
             TARGET);
    load_ok(&c, text);
    assert_int_equal(c.probes[0].on, CONFIG_PROBE_ON_COORDINATOR);
    assert_int_equal(config_probe_series(&c.probes[2]), 2);
    config_free(&c);
    /* One agent more: 34. */
    snprintf(text, sizeof(text),
             "%s[agents]\nhosts = a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11\n"
             "[probe here]\ntype = command\ncommand = echo 1\n"
             "[probe cpu]\ntype = command\ncommand = echo 1\non = agents\n"
             "[probe st]\ntype = json\nurl = /stats\npointer = /a\npointer = /b\non = agents\n",
             TARGET);
    load_fails(text,
               "brink: t.ini:17: [probe st] on: 3 probe series on each of 11 agents and 1 here "
               "make 34, more than 32 (expected fewer probes on agents, or fewer agents)\n");
    /* Without agents the probes run here: no limit but the tick's. */
    snprintf(text, sizeof(text), "%s[probe cpu]\ntype = command\ncommand = echo 1\non = agents\n",
             TARGET);
    load_ok(&c, text);
    config_free(&c);
    snprintf(text, sizeof(text),
             "%s[agents]\nhosts = h1, host-with-a-rather-long-name-for-a-test.example.com\n"
             "[probe a_long_probe_name]\ntype = command\ncommand = echo 1\non = agents\n",
             TARGET);
    load_fails(text, "brink: t.ini:8: [probe a_long_probe_name] on: its series on agent "
                     "host-with-a-rather-long-name-for-a-test.example.com would be named "
                     "a_long_probe_name@host-with-a-rather-long-name-for-a-test.example.com (69 "
                     "bytes), more than 63 (expected a shorter probe name)\n");
}

static int load_with_overrides(struct config *c, const char *text, const struct config_override *ov,
                               size_t n, char **err)
{
    struct config_opts o = {.getenv = fake_getenv, .overrides = ov, .n_overrides = n};
    size_t len;
    FILE *f = open_memstream(err, &len);
    int rc;

    assert_non_null(f);
    config_init(c);
    rc = config_load_string(c, "t.ini", text, &o, f);
    fclose(f);
    return rc;
}

static void command_line_values_win_over_the_file(void **state)
{
    static const struct config_override ov[] = {
        {"--concurrency", "load", "concurrency", "40"},
        {"--duration", "load", "duration", "2m"},
        {"--url", "target", "url", "http://127.0.0.1:9/other"},
    };
    struct config c;
    char *err;

    (void)state;
    assert_int_equal(
        load_with_overrides(&c, TARGET "[load]\nconcurrency = 5\nduration = 10s\n", ov, 3, &err),
        0);
    assert_string_equal(err, "");
    assert_int_equal(c.load.concurrency, 40);
    assert_int_equal(c.load.duration_us, 120000000);
    assert_string_equal(c.target.url.value, "http://127.0.0.1:9/other");
    assert_int_equal(c.load.key_line[CONFIG_LOAD_CONCURRENCY], CONFIG_LINE_COMMAND_LINE);
    free(err);
    config_free(&c);
}

static void command_line_url_is_enough_without_a_file(void **state)
{
    static const struct config_override ov[] = {{"--url", "target", "url", "http://[::1]:8080/"}};
    struct config c;
    char *err;

    (void)state;
    assert_int_equal(load_with_overrides(&c, "", ov, 1, &err), 0);
    assert_string_equal(err, "");
    assert_string_equal(c.target.url.value, "http://[::1]:8080/");
    free(err);
    config_free(&c);
}

static void bad_command_line_values_name_the_flag(void **state)
{
    static const struct config_override ov[] = {
        {"--concurrency", "load", "concurrency", "ten"},
        {"--duration", "load", "duration", "30"},
        {"--url", "target", "url", "ftp://x/\x1b[2J"},
    };
    struct config c;
    char *err;

    (void)state;
    assert_int_equal(load_with_overrides(&c, TARGET, ov, 3, &err), -EINVAL);
    assert_string_equal(
        err,
        "brink: --concurrency: expected a whole number such as 100, 10k or 2M, got \"ten\"\n"
        "brink: --duration: expected a duration such as 250ms, 30s, 2m or 1h, got \"30\" (the unit is missing)\n"
        "brink: --url: control character in the value (expected text, got \"ftp://x/\\e[2J\")\n");
    free(err);
    config_free(&c);
}

static void command_line_request_keys_make_a_default_request(void **state)
{
    static const struct config_override ov[] = {
        {"--method", "request", "method", "POST"},
        {"--body", "request", "body", "hello"},
        {"--header", "target", "header", "X-A: 1"},
        {"--content-type", "target", "header", "Content-Type: text/plain"},
    };
    struct config c;
    char *err;

    (void)state;
    assert_int_equal(load_with_overrides(&c, TARGET "header = X-File: 1\n", ov, 4, &err), 0);
    assert_string_equal(err, "");
    assert_int_equal(c.n_requests, 1);
    assert_string_equal(c.requests[0].name, "default");
    assert_string_equal(c.requests[0].method.value, "POST");
    assert_string_equal(c.requests[0].body.value, "hello");
    assert_int_equal(c.requests[0].body_kind, CONFIG_BODY_TEXT);
    assert_string_equal(c.requests[0].url.value, c.target.url.value);
    /* The file's header first, then the command line's, in order. */
    assert_int_equal(c.target.n_headers, 3);
    assert_string_equal(c.target.headers[0].value, "X-File: 1");
    assert_string_equal(c.target.headers[1].value, "X-A: 1");
    assert_string_equal(c.target.headers[2].value, "Content-Type: text/plain");
    free(err);
    config_free(&c);
}

static void command_line_request_keys_go_to_the_only_request(void **state)
{
    static const struct config_override ov[] = {{"--method", "request", "method", "PUT"}};
    struct config c;
    char *err;

    (void)state;
    assert_int_equal(load_with_overrides(&c, TARGET "[request one]\nmethod = GET\n", ov, 1, &err),
                     0);
    assert_string_equal(err, "");
    assert_int_equal(c.n_requests, 1);
    assert_string_equal(c.requests[0].name, "one");
    assert_string_equal(c.requests[0].method.value, "PUT");
    free(err);
    config_free(&c);
}

static void command_line_request_keys_refuse_a_mix(void **state)
{
    static const struct config_override ov[] = {{"-m", "request", "method", "PUT"}};
    struct config c;
    char *err;

    (void)state;
    assert_int_equal(load_with_overrides(&c, TARGET "[request a]\n[request b]\n", ov, 1, &err),
                     -EINVAL);
    assert_string_equal(err, "brink: -m: the experiment has 2 [request NAME] sections and -m "
                             "stands for one (expected method in each section)\n");
    free(err);
    config_free(&c);
}

static void command_line_rate_of_zero_is_named(void **state)
{
    static const struct config_override ov[] = {
        {"--rate", "load", "rate", "0"},
        {"--rate", "load", "mode", "rate"},
    };
    struct config c;
    char *err;

    (void)state;
    assert_int_equal(load_with_overrides(&c, TARGET, ov, 2, &err), -EINVAL);
    assert_string_equal(err, "brink: --rate: expected a rate above 0, such as 100/s, got \"0\"\n");
    free(err);
    config_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(command_line_request_keys_make_a_default_request),
        cmocka_unit_test(command_line_request_keys_go_to_the_only_request),
        cmocka_unit_test(command_line_request_keys_refuse_a_mix),
        cmocka_unit_test(command_line_rate_of_zero_is_named),
        cmocka_unit_test(command_line_values_win_over_the_file),
        cmocka_unit_test(command_line_url_is_enough_without_a_file),
        cmocka_unit_test(bad_command_line_values_name_the_flag),
        cmocka_unit_test(config_init_sets_every_default),
        cmocka_unit_test(minimal_file_gets_every_default),
        cmocka_unit_test(target_keys_are_read),
        cmocka_unit_test(load_keys_are_read),
        cmocka_unit_test(open_model_keys_are_read),
        cmocka_unit_test(think_time_under_the_open_model_loads_with_a_notice),
        cmocka_unit_test(request_keys_are_read),
        cmocka_unit_test(method_is_kept_as_written),
        cmocka_unit_test(random_body_size_is_parsed),
        cmocka_unit_test(record_keys_are_read),
        cmocka_unit_test(ramp_keys_are_read),
        cmocka_unit_test(stop_when_and_fail_on_default_to_an_error_rate_of_1_percent),
        cmocka_unit_test(thresholds_take_the_stop_when_grammar),
        cmocka_unit_test(rules_parse_from_text_for_recorded_sessions),
        cmocka_unit_test(ramp_steps_are_made_from_start_step_max),
        cmocka_unit_test(ramp_without_section_is_no_plan),
        cmocka_unit_test(ramp_errors_say_what_was_expected),
        cmocka_unit_test(ramp_round_trips_through_config_write),
        cmocka_unit_test(expect_defaults_to_every_status_below_400),
        cmocka_unit_test(expect_reads_codes_ranges_and_classes),
        cmocka_unit_test(target_expect_is_the_default_a_request_may_override),
        cmocka_unit_test(bad_expect_values_say_what_was_expected),
        cmocka_unit_test(expect_is_written_as_ranges_and_reads_back_the_same),
        cmocka_unit_test(key_lines_say_where_each_key_was_set),
        cmocka_unit_test(bad_value_of_every_key_is_reported),
        cmocka_unit_test(env_references_are_expanded_and_the_raw_text_kept),
        cmocka_unit_test(double_dollar_is_a_dollar_and_a_lone_dollar_stays),
        cmocka_unit_test(missing_env_variable_is_an_error_naming_it),
        cmocka_unit_test(env_variable_cannot_smuggle_a_newline_into_a_header),
        cmocka_unit_test(url_of_3000_bytes_round_trips_exactly),
        cmocka_unit_test(bearer_token_of_5000_bytes_is_kept_whole),
        cmocka_unit_test(line_of_9000_bytes_is_reported_not_cut),
        cmocka_unit_test(line_of_exactly_8192_bytes_is_accepted),
        cmocka_unit_test(long_value_keeps_inline_comment_rules),
        cmocka_unit_test(misspelt_section_and_key_get_a_suggestion),
        cmocka_unit_test(unknown_name_with_nothing_close_lists_the_valid_ones),
        cmocka_unit_test(every_error_of_a_file_is_reported_with_its_line),
        cmocka_unit_test(header_may_repeat_but_other_keys_may_not),
        cmocka_unit_test(indented_keys_are_ordinary_keys),
        cmocka_unit_test(inline_comment_needs_a_blank_before_the_semicolon),
        cmocka_unit_test(path_is_joined_to_target_url),
        cmocka_unit_test(request_without_url_or_timeout_takes_the_targets),
        cmocka_unit_test(requests_with_their_own_urls_need_no_target),
        cmocka_unit_test(file_without_any_url_says_where_to_put_one),
        cmocka_unit_test(request_names_are_checked),
        cmocka_unit_test(more_than_64_requests_is_an_error),
        cmocka_unit_test(crlf_line_ends_and_a_byte_order_mark_are_accepted),
        cmocka_unit_test(unprintable_text_in_messages_is_escaped),
        cmocka_unit_test(failed_load_leaves_the_config_as_config_init_did),
        cmocka_unit_test(missing_file_is_reported_in_one_line),
        cmocka_unit_test(device_is_refused_in_one_line_before_any_read),
        cmocka_unit_test(errors_past_the_first_twenty_are_counted_not_printed),
        cmocka_unit_test(body_file_is_found_next_to_the_config_file),
        cmocka_unit_test(write_keeps_references_and_redacts_secrets),
        cmocka_unit_test(write_prints_every_key_and_reads_back_the_same),
        cmocka_unit_test(connection_keys_are_read),
        cmocka_unit_test(tls_files_are_found_next_to_the_config_file),
        cmocka_unit_test(connection_keys_that_contradict_are_errors),
        cmocka_unit_test(every_example_in_config_dir_parses),
        cmocka_unit_test(probe_sections_of_each_type_are_read),
        cmocka_unit_test(probe_without_optional_keys_gets_the_defaults),
        cmocka_unit_test(probe_common_keys_are_read),
        cmocka_unit_test(alert_forms_are_parsed),
        cmocka_unit_test(bad_value_of_every_probe_key_is_reported),
        cmocka_unit_test(probe_keys_are_checked_against_its_type),
        cmocka_unit_test(probe_names_are_checked_like_request_names),
        cmocka_unit_test(same_name_may_be_a_request_and_a_probe),
        cmocka_unit_test(more_than_16_probes_is_an_error),
        cmocka_unit_test(more_than_8_pointers_is_an_error),
        cmocka_unit_test(write_redacts_secret_probe_headers),
        cmocka_unit_test(write_prints_probe_sections_and_reads_back_the_same),
        cmocka_unit_test(probes_on_agents_fit_in_a_tick),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
