/* brink target's settings: the JSON of --config and POST /_control. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "target/settings.h"

static int apply(struct settings *s, const char *doc, int at_start, char *err)
{
    return settings_apply_json(s, doc, strlen(doc), at_start, err, 256);
}

static void defaults_are_sane(void **state)
{
    struct settings s;

    (void)state;
    settings_default(&s);
    assert_true(s.threads >= 1);
    assert_true(s.workers >= 1);
    assert_true(s.kv_max_bytes > 0);
    for (int f = 0; f < FAULT_COUNT; f++)
        assert_true(s.fault_p[f] == 0.0);
}

static void a_document_changes_only_the_keys_it_names(void **state)
{
    struct settings s, before;
    char err[256];

    (void)state;
    settings_default(&s);
    before = s;
    assert_int_equal(apply(&s,
                           "{\"workers\": 3, \"service_ms\": {\"kv\": 2.5}, "
                           "\"faults\": {\"stall\": 0.25}, \"kv\": {\"write_ms\": 40}}",
                           0, err),
                     0);
    assert_int_equal(s.workers, 3);
    assert_int_equal(s.service_us[EP_KV], 2500);
    assert_true(s.fault_p[FAULT_STALL] == 0.25);
    assert_int_equal(s.kv_write_us, 40000);
    assert_int_equal(s.queue_max, before.queue_max);
    assert_int_equal(s.threads, before.threads);
}

static void a_bad_value_changes_nothing_and_names_the_key(void **state)
{
    struct settings s, before;
    char err[256];

    (void)state;
    settings_default(&s);
    before = s;
    assert_int_equal(apply(&s, "{\"workers\": 9, \"faults\": {\"reset\": 2}}", 0, err), -EINVAL);
    assert_string_equal(err, "faults.reset: expected a number 0..1, got 2");
    assert_memory_equal(&s, &before, sizeof(s));
}

static void errors_read_as_sentences(void **state)
{
    static const struct {
        const char *doc, *err;
    } cases[] = {
        {"{\"nope\": 1}", "nope: unknown key"},
        {"{\"kv\": {\"nope\": 1}}", "kv.nope: unknown key"},
        {"{\"workers\": 1.5}", "workers: expected an integer 1..100000, got 1.5"},
        {"{\"workers\": \"many\"}", "workers: expected a number 1..100000, got \"many\""},
        {"{\"service_ms\": {\"nowhere\": 1}}",
         "service_ms.nowhere: unknown endpoint (expected bytes, delay, status, echo, files, kv, mp, stats, metrics, control or other)"},
        {"{\"faults\": {\"reset\": 0.6, \"stall\": 0.6}}",
         "faults: the probabilities add up to 1.2, more than 1"},
        {"{\"force\": {\"fault\": \"boom\"}}", "force.fault: unknown fault \"boom\""},
        {"{\"hostile_stats\": 1}", "hostile_stats: expected true or false"},
        {"{\"pause\": {\"every_ms\": 1000, \"for_ms\": 1000}}",
         "pause: for_ms (1000) must be below every_ms (1000), or the server never runs"},
        {"{\"pause\": {\"often\": 1}}", "pause.often: unknown key"},
        {"{\"contention\": {\"kappa\": -0.001}}",
         "contention.kappa: expected a number 0..1, got -0.001"},
        {"{\"contention\": {\"sigma\": 1.5}}", "contention.sigma: expected a number 0..1, got 1.5"},
        {"{\"contention\": {\"alpha\": 0.1}}", "contention.alpha: unknown key"},
        {"{\"contention\": 0.05}", "contention: expected an object"},
        {"[1, 2]", "expected a JSON object at the top level"},
        {"{\"workers\": 1, \"workers\": 2}", NULL}, /* jansson's duplicate message */
        {"{", NULL},                                /* jansson's syntax message */
    };
    char err[256];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct settings s;
        settings_default(&s);
        assert_int_equal(apply(&s, cases[i].doc, 1, err), -EINVAL);
        if (cases[i].err)
            assert_string_equal(err, cases[i].err);
        else
            assert_true(strlen(err) > 5);
    }
}

#define MS 1000000ULL

static void a_pause_holds_what_arrives_or_is_served_in_it_until_it_ends(void **state)
{
    struct settings s;
    char err[256];

    (void)state;
    settings_default(&s);
    /* No pause set: answers go out when they are ready. */
    assert_int_equal(settings_pause_release_ns(&s, 9500 * MS, 9500 * MS), 9500 * MS);
    assert_int_equal(apply(&s, "{\"pause\": {\"every_ms\": 10000, \"for_ms\": 1000}}", 0, err), 0);
    assert_int_equal(s.pause_every_ms, 10000);
    assert_int_equal(s.pause_for_ms, 1000);
    /* Runs 0..9 s, pauses 9..10 s, runs 10..19 s, pauses 19..20 s. */
    assert_int_equal(settings_pause_release_ns(&s, 100 * MS, 101 * MS), 101 * MS);
    assert_int_equal(settings_pause_release_ns(&s, 9000 * MS, 9000 * MS), 10000 * MS);
    assert_int_equal(settings_pause_release_ns(&s, 9990 * MS, 9991 * MS), 10000 * MS);
    /* Being served when the pause starts is held too. */
    assert_int_equal(settings_pause_release_ns(&s, 8999 * MS, 9001 * MS), 10000 * MS);
    assert_int_equal(settings_pause_release_ns(&s, 8990 * MS, 8999 * MS), 8999 * MS);
    assert_int_equal(settings_pause_release_ns(&s, 10000 * MS, 10000 * MS), 10000 * MS);
    /* A long service meets two pauses and ends after the second. */
    assert_int_equal(settings_pause_release_ns(&s, 8000 * MS, 19500 * MS), 20000 * MS);
    assert_int_equal(settings_pause_release_ns(&s, 8000 * MS, 20500 * MS), 20500 * MS);
}

static void assert_printable_line(const char *err)
{
    assert_true(err[0] != '\0');
    for (const char *p = err; *p; p++)
        assert_true(*p >= ' ' && *p <= '~');
}

static void names_and_values_in_messages_are_escaped(void **state)
{
    static const struct {
        const char *doc, *err;
    } cases[] = {
        {"{\"\\u001b[2J\\n\": 1}", "\\e[2J\\n: unknown key"},
        {"{\"kv\": {\"\\u009b31m\": 1}}", "kv.\\u009b31m: unknown key"},
        {"{\"faults\": {\"\\u202e\": 0}}",
         "faults.\\u202e: unknown fault (expected reset, close_mid_body, stall, drip, malformed_status, huge_header or hostile_header)"},
        {"{\"force\": {\"fault\": \"\\u0007\"}}", "force.fault: unknown fault \"\\x07\""},
        {"{\"workers\": \"\\u007f\\u00e9\"}",
         "workers: expected a number 1..100000, got \"\\x7f\\u00e9\""},
    };
    char err[256];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct settings s;
        settings_default(&s);
        assert_int_equal(apply(&s, cases[i].doc, 1, err), -EINVAL);
        assert_string_equal(err, cases[i].err);
    }
}

static void syntax_errors_and_long_names_stay_one_short_line(void **state)
{
    char doc[512], err[256];
    struct settings s;
    size_t n = 0;

    (void)state;
    settings_default(&s);
    /* jansson quotes the bad token raw. */
    assert_int_equal(apply(&s, "{\x1b[2J\x7f: 1}", 0, err), -EINVAL);
    assert_printable_line(err);
    assert_non_null(strstr(err, "\\e"));
    n += (size_t)snprintf(doc + n, sizeof(doc) - n, "{\"");
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(doc + n, sizeof(doc) - n, "\xc3\xa9");
    snprintf(doc + n, sizeof(doc) - n, "\": 1}");
    assert_int_equal(apply(&s, doc, 0, err), -EINVAL);
    assert_printable_line(err);
    assert_true(strlen(err) < 80);
    assert_non_null(strstr(err, "...: unknown key"));
}

static void start_only_keys_are_refused_by_control(void **state)
{
    struct settings s;
    char err[256];

    (void)state;
    settings_default(&s);
    assert_int_equal(apply(&s, "{\"threads\": 4}", 0, err), -EINVAL);
    assert_string_equal(err, "threads: can only be set at start (in --config)");
    assert_int_equal(apply(&s, "{\"files_dir\": \"/tmp\"}", 0, err), -EINVAL);
    assert_int_equal(apply(&s, "{\"threads\": 4, \"files_dir\": \"/srv\"}", 1, err), 0);
    assert_int_equal(s.threads, 4);
    assert_string_equal(s.files_dir, "/srv");
}

static void size_and_depth_are_capped(void **state)
{
    size_t n = SETTINGS_MAX_DOC_BYTES + 10;
    char *big = malloc(n + 1);
    struct settings s;
    char err[256];

    (void)state;
    settings_default(&s);
    memset(big, ' ', n);
    big[0] = '{';
    big[n - 1] = '}';
    big[n] = '\0';
    assert_int_equal(settings_apply_json(&s, big, n, 1, err, sizeof(err)), -E2BIG);
    free(big);
    assert_int_equal(apply(&s, "{\"a\": [[[[[[1]]]]]]}", 1, err), -EINVAL);
    assert_string_equal(err, "document nests deeper than 4 levels");
    /* Brackets inside strings do not count. */
    assert_int_equal(apply(&s, "{\"files_dir\": \"[[[[[[[[\"}", 1, err), 0);
}

static void force_and_seed_are_one_shot_requests(void **state)
{
    struct settings s;
    char err[256];

    (void)state;
    settings_default(&s);
    assert_int_equal(
        apply(&s, "{\"force\": {\"fault\": \"stall\", \"count\": 3}, \"seed\": 9}", 0, err), 0);
    assert_int_equal(s.force_fault, FAULT_STALL);
    assert_int_equal(s.force_count, 3);
    assert_true(s.force_set);
    assert_true(s.seed_set);
    assert_int_equal(s.seed, 9);
    assert_int_equal(apply(&s, "{\"workers\": 2}", 0, err), 0);
    assert_false(s.force_set);
    assert_false(s.seed_set);
    assert_int_equal(s.seed, 9);
}

static void the_settings_round_trip_through_json(void **state)
{
    struct settings s, t;
    char err[256], *text;

    (void)state;
    settings_default(&s);
    assert_int_equal(
        apply(
            &s,
            "{\"workers\": 7, \"service_ms\": {\"bytes\": 0.5}, \"faults\": {\"drip\": 0.125}, \"multipart\": {\"backpressure_siblings\": 5}}",
            1, err),
        0);
    text = settings_to_json(&s);
    assert_non_null(text);
    settings_default(&t);
    assert_int_equal(apply(&t, text, 1, err), 0);
    free(text);
    assert_int_equal(t.workers, 7);
    assert_int_equal(t.service_us[EP_BYTES], 500);
    assert_true(t.fault_p[FAULT_DRIP] == 0.125);
    assert_int_equal(t.mp_backpressure_siblings, 5);
    assert_true(t.seed_set); /* the document names the seed */
}

/* The Universal Scalability Law's sigma and kappa, set through control and
 * read back from the document that GET /_control shows. */
static void contention_is_set_and_shown(void **state)
{
    struct settings s, t;
    char err[256], *text;

    (void)state;
    settings_default(&s);
    assert_true(s.contention_sigma == 0 && s.contention_kappa == 0);
    assert_int_equal(apply(&s, "{\"contention\": {\"sigma\": 0.05, \"kappa\": 0.001}}", 0, err), 0);
    assert_true(s.contention_sigma == 0.05 && s.contention_kappa == 0.001);
    /* A document naming one leaves the other. */
    assert_int_equal(apply(&s, "{\"contention\": {\"kappa\": 0}}", 0, err), 0);
    assert_true(s.contention_sigma == 0.05 && s.contention_kappa == 0);
    text = settings_to_json(&s);
    assert_non_null(strstr(text, "\"contention\""));
    settings_default(&t);
    assert_int_equal(apply(&t, text, 1, err), 0);
    free(text);
    assert_true(t.contention_sigma == 0.05 && t.contention_kappa == 0);
}

static void names_map_both_ways(void **state)
{
    (void)state;
    for (int f = 0; f < FAULT_COUNT; f++)
        assert_int_equal(settings_fault_by_name(settings_fault_name((enum fault)f)), f);
    assert_int_equal(settings_fault_by_name("nope"), -1);
    assert_null(settings_fault_name(FAULT_COUNT));
    assert_string_equal(settings_endpoint_name(EP_KV), "kv");
    assert_null(settings_endpoint_name(EP_COUNT));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_pause_holds_what_arrives_or_is_served_in_it_until_it_ends),
        cmocka_unit_test(defaults_are_sane),
        cmocka_unit_test(a_document_changes_only_the_keys_it_names),
        cmocka_unit_test(a_bad_value_changes_nothing_and_names_the_key),
        cmocka_unit_test(errors_read_as_sentences),
        cmocka_unit_test(names_and_values_in_messages_are_escaped),
        cmocka_unit_test(syntax_errors_and_long_names_stay_one_short_line),
        cmocka_unit_test(start_only_keys_are_refused_by_control),
        cmocka_unit_test(size_and_depth_are_capped),
        cmocka_unit_test(force_and_seed_are_one_shot_requests),
        cmocka_unit_test(the_settings_round_trip_through_json),
        cmocka_unit_test(contention_is_set_and_shown),
        cmocka_unit_test(names_map_both_ways),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
