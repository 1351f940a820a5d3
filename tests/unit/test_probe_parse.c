#include "probes/parse.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#define WHY_MAX 256
/* A value parsers must leave alone when they fail. */
#define UNTOUCHED -12345.0

/* Reads tests/data/probes/NAME; the caller frees it. */
static char *fixture(const char *name, size_t *len)
{
    char path[512];
    FILE *f;
    char *buf;
    long size;

    snprintf(path, sizeof(path), "%s/tests/data/probes/%s", BRINK_SOURCE_DIR, name);
    f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    size = ftell(f);
    assert_true(size > 0);
    rewind(f);
    buf = malloc((size_t)size);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *len = (size_t)size;
    return buf;
}

/* --- JSON --- */

static void json_is(const char *text, size_t len, const char *pointer, double want)
{
    char why[WHY_MAX] = "";
    double v = UNTOUCHED;

    assert_int_equal(probe_parse_json(text, len, pointer, &v, why, sizeof(why)), 0);
    assert_true(v == want);
    assert_string_equal(why, "");
}

static void json_fails(const char *text, size_t len, const char *pointer, int want_rc,
                       const char *want_why)
{
    char why[WHY_MAX];
    double v = UNTOUCHED;

    assert_int_equal(probe_parse_json(text, len, pointer, &v, why, sizeof(why)), want_rc);
    assert_string_equal(why, want_why);
    assert_true(v == UNTOUCHED);
}

static void riak_is(const char *pointer, double want)
{
    size_t len;
    char *doc = fixture("riak_stats.json", &len);

    json_is(doc, len, pointer, want);
    free(doc);
}

static void riak_fails(const char *pointer, int want_rc, const char *want_why)
{
    size_t len;
    char *doc = fixture("riak_stats.json", &len);

    json_fails(doc, len, pointer, want_rc, want_why);
    free(doc);
}

static void json_reads_integers_reals_and_booleans(void **state)
{
    (void)state;
    riak_is("/vnode_gets", 4821);
    riak_is("/node_get_fsm_siblings_mean", 1.25);
    riak_is("/memory_processes", 4.5e7);
    riak_is("/read_repairs", 0);
    riak_is("/is_ready", 1);
    riak_is("/is_leaving", 0);
}

static void json_reads_numbers_held_in_strings(void **state)
{
    (void)state;
    riak_is("/node_put_fsm_time_95", 12.5);
    riak_is("/node_get_fsm_time_median", 1024);
}

static void json_big_integers_read_as_doubles(void **state)
{
    (void)state;
    riak_is("/vnode_gets_total", 18446744073709551615.0);
    riak_is("/node_gets_total", 9007199254740992.0);
    riak_is("/memory_total", 123456789012.0);
}

static void json_pointer_walks_nested_objects_and_arrays(void **state)
{
    (void)state;
    riak_is("/nested/level1/level2/count", 42);
    riak_is("/nested/level1/level2/items/0", 10);
    riak_is("/nested/level1/level2/items/2", 30);
    riak_is("/disk/0/size", 49082220);
}

static void json_pointer_unescapes_tilde_one_and_tilde_zero(void **state)
{
    (void)state;
    riak_is("/a~1b", 5);
    riak_is("/m~0n", 6);
    riak_is("/", 7);
}

static void json_empty_pointer_is_the_whole_document(void **state)
{
    (void)state;
    json_is("42", 2, "", 42);
    json_is(" \"3.5\" ", 7, "", 3.5);
    json_is("true", 4, "", 1);
    json_fails("{}", 2, "", -EDOM, "(the whole document): an object is not a number");
}

static void json_undefined_string_is_not_a_number(void **state)
{
    (void)state;
    riak_fails("/node_get_fsm_siblings_100", -EDOM,
               "/node_get_fsm_siblings_100: \"undefined\" is not a number");
    riak_fails("/storage_backend", -EDOM,
               "/storage_backend: \"riak_kv_eleveldb_backend\" is not a number");
}

static void json_null_objects_and_arrays_are_not_numbers(void **state)
{
    (void)state;
    riak_fails("/node_get_fsm_objsize_100", -EDOM,
               "/node_get_fsm_objsize_100: null is not a number");
    riak_fails("/nested", -EDOM, "/nested: an object is not a number");
    riak_fails("/connected_nodes", -EDOM, "/connected_nodes: an array is not a number");
}

static void json_strings_holding_nan_inf_hex_or_blanks_are_not_numbers(void **state)
{
    (void)state;
    json_fails("\"NaN\"", 5, "", -EDOM, "(the whole document): \"NaN\" is not a number");
    json_fails("\"inf\"", 5, "", -EDOM, "(the whole document): \"inf\" is not a number");
    json_fails("\"0x10\"", 6, "", -EDOM, "(the whole document): \"0x10\" is not a number");
    json_fails("\" 1\"", 4, "", -EDOM, "(the whole document): \" 1\" is not a number");
    json_fails("\"\"", 2, "", -EDOM, "(the whole document): \"\" is not a number");
    json_fails("\"1e999\"", 7, "", -ERANGE, "(the whole document): \"1e999\" is out of range");
}

static void json_missing_key_is_reported_with_its_path(void **state)
{
    (void)state;
    riak_fails("/nope", -ENOENT, "/nope: no such key");
    riak_fails("/nested/level1/nope/x", -ENOENT, "/nested/level1/nope: no such key");
    riak_fails("/vnode_gets/x", -ENOENT, "/vnode_gets/x: no such key (/vnode_gets is a number)");
    json_fails("3", 1, "/a", -ENOENT, "/a: no such key (the document is a number)");
}

static void json_array_index_must_be_in_range_and_without_leading_zero(void **state)
{
    (void)state;
    riak_fails("/nested/level1/level2/items/3", -ENOENT,
               "/nested/level1/level2/items/3: no such element (the array has 3)");
    riak_fails("/nested/level1/level2/items/01", -ENOENT,
               "/nested/level1/level2/items/01: no such element (the array has 3)");
    riak_fails("/nested/level1/level2/items/-", -ENOENT,
               "/nested/level1/level2/items/-: no such element (the array has 3)");
    riak_fails("/disk/99999999999999999999999", -ENOENT,
               "/disk/99999999999999999999999: no such element (the array has 1)");
}

static void json_bad_pointer_syntax_is_rejected(void **state)
{
    char why[WHY_MAX];

    (void)state;
    riak_fails("vnode_gets", -EINVAL,
               "bad JSON pointer \"vnode_gets\": it must be empty or start with \"/\"");
    riak_fails(
        "/a~2", -EINVAL,
        "bad JSON pointer \"/a~2\": \"~\" must be followed by 0 or 1 (\"~0\" is ~, \"~1\" is /)");
    assert_int_equal(probe_json_pointer_check("/a~", why, sizeof(why)), -EINVAL);
    assert_int_equal(probe_json_pointer_check("", why, sizeof(why)), 0);
    assert_int_equal(probe_json_pointer_check("/a~0~1/", why, sizeof(why)), 0);
}

/* Returns a document of depth levels of arrays around a 1, and the pointer to
 * the 1 in *pointer; the caller frees both. */
static char *nested_arrays(int depth, char **pointer)
{
    char *doc = malloc((size_t)depth * 2 + 2), *p = malloc((size_t)depth * 2 + 1);
    int i;

    assert_non_null(doc);
    assert_non_null(p);
    for (i = 0; i < depth; i++) {
        doc[i] = '[';
        doc[depth + 1 + i] = ']';
        memcpy(p + 2 * i, "/0", 2);
    }
    doc[depth] = '1';
    doc[2 * depth + 1] = '\0';
    p[2 * depth] = '\0';
    *pointer = p;
    return doc;
}

static void json_nested_to_the_limit_is_read(void **state)
{
    char *pointer, *doc = nested_arrays(PROBE_JSON_DEPTH_MAX, &pointer);

    (void)state;
    json_is(doc, strlen(doc), pointer, 1);
    free(doc);
    free(pointer);
}

static void json_nested_deeper_than_the_limit_is_rejected(void **state)
{
    char *pointer, *doc = nested_arrays(PROBE_JSON_DEPTH_MAX + 1, &pointer);

    (void)state;
    json_fails(doc, strlen(doc), "", -EBADMSG, "JSON nested deeper than 64 levels at byte 65");
    free(doc);
    free(pointer);
    /* A hostile page of brackets costs one pass, not jansson's recursion. */
    doc = malloc(100000);
    assert_non_null(doc);
    memset(doc, '[', 100000);
    json_fails(doc, 100000, "", -EBADMSG, "JSON nested deeper than 64 levels at byte 65");
    free(doc);
}

static void json_brackets_inside_strings_do_not_count_as_depth(void **state)
{
    char doc[300];

    (void)state;
    snprintf(doc, sizeof(doc), "{\"a\": \"%0100d\\\"[[[\", \"b\": 2}", 0);
    memset(doc + 7, '[', 100);
    json_is(doc, strlen(doc), "/b", 2);
}

static void json_bigger_than_the_limit_is_rejected(void **state)
{
    size_t len = PROBE_DOC_MAX + 1;
    char *doc = malloc(len);
    char want[WHY_MAX];

    (void)state;
    assert_non_null(doc);
    memset(doc, ' ', len);
    doc[0] = '1';
    snprintf(want, sizeof(want), "page is %zu bytes, over the limit of %u", len,
             (unsigned)PROBE_DOC_MAX);
    json_fails(doc, len, "", -EFBIG, want);
    json_is(doc, len - 1, "", 1);
    free(doc);
}

static void json_invalid_document_says_where(void **state)
{
    char why[WHY_MAX];
    double v;

    (void)state;
    assert_int_equal(probe_parse_json("{\"a\": 1,\n}", 10, "/a", &v, why, sizeof(why)), -EBADMSG);
    assert_string_equal(why, "invalid JSON at line 2 column 1: string or '}' expected near '}'");
    assert_int_equal(probe_parse_json("", 0, "", &v, why, sizeof(why)), -EBADMSG);
    assert_int_equal(probe_parse_json("1 2", 3, "", &v, why, sizeof(why)), -EBADMSG);
    assert_int_equal(probe_parse_json("[1]\0", 4, "/0", &v, why, sizeof(why)), -EBADMSG);
}

static void json_byte_order_mark_is_skipped(void **state)
{
    (void)state;
    json_is("\xEF\xBB\xBF{\"a\": 3}", 11, "/a", 3);
}

static void json_long_values_are_cut_in_reasons(void **state)
{
    char doc[200], want[WHY_MAX];

    (void)state;
    strcpy(doc, "{\"a\": \"");
    memset(doc + 7, 'x', 100);
    strcpy(doc + 107, "\"}");
    strcpy(want, "/a: \"");
    memset(want + 5, 'x', PROBE_QUOTE_MAX);
    strcat(want, "...\" is not a number");
    json_fails(doc, strlen(doc), "/a", -EDOM, want);
    /* A NUL ends the quote, and a cut never splits a UTF-8 character. */
    json_fails("\"ab\\u0000cd\"", 12, "", -EDOM, "(the whole document): \"ab...\" is not a number");
    strcpy(doc, "\"");
    memset(doc + 1, 'x', PROBE_QUOTE_MAX - 1);
    strcpy(doc + PROBE_QUOTE_MAX, "\xC3\xA9\"");
    strcpy(want, "(the whole document): \"");
    memset(want + 23, 'x', PROBE_QUOTE_MAX - 1);
    strcpy(want + 23 + PROBE_QUOTE_MAX - 1, "...\" is not a number");
    json_fails(doc, strlen(doc), "", -EDOM, want);
}

static void json_document_opens_once_for_several_pointers(void **state)
{
    struct probe_json *doc;
    char why[WHY_MAX];
    size_t len;
    char *text = fixture("riak_stats.json", &len);
    double v;

    (void)state;
    assert_int_equal(probe_json_open(text, len, &doc, why, sizeof(why)), 0);
    free(text);
    assert_int_equal(probe_json_get(doc, "/vnode_gets", &v, why, sizeof(why)), 0);
    assert_true(v == 4821);
    assert_int_equal(probe_json_get(doc, "/pbc_active", &v, why, sizeof(why)), 0);
    assert_true(v == 14);
    assert_int_equal(probe_json_get(doc, "/node_get_fsm_time_mean", &v, why, sizeof(why)), -EDOM);
    assert_int_equal(probe_json_get(doc, "x", &v, why, sizeof(why)), -EINVAL);
    assert_int_equal(probe_json_get(doc, "/cpu_avg1", &v, why, sizeof(why)), 0);
    assert_true(v == 260);
    probe_json_close(doc);
    probe_json_close(NULL);
}

static void reasons_fit_any_buffer(void **state)
{
    char why[8] = "unset";
    double v;

    (void)state;
    assert_int_equal(probe_parse_json("{}", 2, "/abc", &v, NULL, 0), -ENOENT);
    assert_int_equal(probe_parse_json("{}", 2, "/abc", &v, why, 1), -ENOENT);
    assert_string_equal(why, "");
    assert_int_equal(probe_parse_json("{}", 2, "/abcdefgh", &v, why, sizeof(why)), -ENOENT);
    assert_string_equal(why, "/abcdef");
    assert_int_equal(probe_parse_text_key("", 0, "k", &v, NULL, 0), -ENOENT);
}

/* --- Text by key --- */

static void key_is(const char *file, const char *key, double want)
{
    char why[WHY_MAX] = "";
    size_t len;
    char *text = fixture(file, &len);
    double v = UNTOUCHED;

    assert_int_equal(probe_parse_text_key(text, len, key, &v, why, sizeof(why)), 0);
    assert_true(v == want);
    assert_string_equal(why, "");
    free(text);
}

static void text_is(const char *text, const char *key, double want)
{
    char why[WHY_MAX] = "";
    double v = UNTOUCHED;

    assert_int_equal(probe_parse_text_key(text, strlen(text), key, &v, why, sizeof(why)), 0);
    assert_true(v == want);
    assert_string_equal(why, "");
}

static void text_fails(const char *text, size_t len, const char *key, int want_rc,
                       const char *want_why)
{
    char why[WHY_MAX];
    double v = UNTOUCHED;

    assert_int_equal(probe_parse_text_key(text, len, key, &v, why, sizeof(why)), want_rc);
    assert_string_equal(why, want_why);
    assert_true(v == UNTOUCHED);
}

static void key_fails(const char *file, const char *key, int want_rc, const char *want_why)
{
    size_t len;
    char *text = fixture(file, &len);

    text_fails(text, len, key, want_rc, want_why);
    free(text);
}

static void text_key_reads_riak_stats_lines(void **state)
{
    (void)state;
    key_is("riak_stats.txt", "vnode_gets", 4821);
    key_is("riak_stats.txt", "node_get_fsm_siblings_mean", 1.25);
    key_is("riak_stats.txt", "memory_total", 123456789012.0);
    key_is("riak_stats.txt", "sys_process_count", 1337);
    key_is("riak_stats.txt", "uptime", 86400);
}

static void text_key_undefined_value_is_not_a_number(void **state)
{
    (void)state;
    key_fails("riak_stats.txt", "node_get_fsm_time_mean", -EDOM,
              "node_get_fsm_time_mean: \"undefined\" is not a number (line 7)");
    key_fails("riak_stats.txt", "connected_nodes", -EDOM,
              "connected_nodes: \"['riak@10.0.0.2','riak@10.0.0.3']\" is not a number (line 1)");
}

static void text_key_reads_apache_server_status(void **state)
{
    (void)state;
    key_is("apache_status_auto.txt", "Total Accesses", 123);
    key_is("apache_status_auto.txt", "BusyWorkers", 5);
    key_is("apache_status_auto.txt", "IdleWorkers", 70);
    key_is("apache_status_auto.txt", "ReqPerSec", .0341667);
    key_is("apache_status_auto.txt", "CPULoad", .00472222);
    key_is("apache_status_auto.txt", "Uptime", 3600);
    key_is("apache_status_auto.txt", "Load15", 0.08);
    key_fails("apache_status_auto.txt", "ServerVersion", -EDOM,
              "ServerVersion: \"Apache/2.4.62\" is not a number (line 2)");
}

static void text_key_reads_every_nginx_stub_status_counter(void **state)
{
    (void)state;
    key_is("nginx_stub_status.txt", "Active connections", 2);
    key_is("nginx_stub_status.txt", "accepts", 3);
    key_is("nginx_stub_status.txt", "handled", 3);
    key_is("nginx_stub_status.txt", "requests", 5);
    key_is("nginx_stub_status.txt", "Reading", 0);
    key_is("nginx_stub_status.txt", "Writing", 1);
    key_is("nginx_stub_status.txt", "Waiting", 1);
    /* "server" reads as a "KEY VALUE" pair, which it is not. */
    key_fails("nginx_stub_status.txt", "server", -EDOM,
              "server: \"accepts\" is not a number (line 2)");
}

static void text_key_matches_whole_keys_case_sensitively(void **state)
{
    (void)state;
    key_fails("apache_status_auto.txt", "busyworkers", -ENOENT, "busyworkers: no such key");
    key_fails("apache_status_auto.txt", "Busy", -ENOENT, "Busy: no such key");
    key_fails("nginx_stub_status.txt", "connections", -ENOENT, "connections: no such key");
    key_fails("apache_status_auto.txt", "Accesses", -ENOENT, "Accesses: no such key");
}

static void text_key_takes_colon_equals_and_blank_forms(void **state)
{
    (void)state;
    text_is("a: 1\n", "a", 1);
    text_is("a : 2\n", "a", 2);
    text_is("a=3\n", "a", 3);
    text_is("a = 4\n", "a", 4);
    text_is("  a\t5 units\n", "a", 5);
    text_is("a:6\n", "a", 6);
    text_is("x=1 a=7\n", "a", 7);
    text_is("a: 8 ms\n", "a", 8);
}

static void text_key_first_occurrence_decides(void **state)
{
    (void)state;
    text_is("a: 1\na: 2\n", "a", 1);
    text_fails("a: x\na: 2\n", 10, "a", -EDOM, "a: \"x\" is not a number (line 1)");
    text_fails("a:\n", 3, "a", -EDOM, "a: \"\" is not a number (line 1)");
}

static void text_key_reads_crlf_and_nul_line_ends(void **state)
{
    char why[WHY_MAX];
    double v = UNTOUCHED;

    (void)state;
    text_is("a: 1\r\nb: 2\r\n", "b", 2);
    assert_int_equal(probe_parse_text_key("a: 1\0b: 2", 9, "b", &v, why, sizeof(why)), 0);
    assert_true(v == 2);
}

static void text_key_numbers_take_signs_points_and_exponents(void **state)
{
    (void)state;
    text_is("x: -1.5e3\n", "x", -1500);
    text_is("x: +2\n", "x", 2);
    text_is("x: .5\n", "x", 0.5);
    text_is("x: 5.\n", "x", 5);
    text_is("x: 1E-2\n", "x", 0.01);
    text_is("x: 1e-400\n", "x", 0);
    text_fails("x: nan\n", 7, "x", -EDOM, "x: \"nan\" is not a number (line 1)");
    text_fails("x: 0x10\n", 8, "x", -EDOM, "x: \"0x10\" is not a number (line 1)");
    text_fails("x: 1,5\n", 7, "x", -EDOM, "x: \"1,5\" is not a number (line 1)");
    text_fails("x: 1e999\n", 9, "x", -ERANGE, "x: \"1e999\" is out of range (line 1)");
}

static void text_key_bad_keys_are_rejected(void **state)
{
    (void)state;
    text_fails("a: 1", 4, "", -EINVAL, "bad key: it is empty");
    text_fails("a: 1", 4, " a", -EINVAL, "bad key \" a\": it starts or ends with a blank");
    text_fails("a: 1", 4, "a\nb", -EINVAL, "bad key \"a\nb\": it holds a line break");
    text_fails("a: 1", PROBE_DOC_MAX + 1, "a", -EFBIG,
               "page is 4194305 bytes, over the limit of 4194304");
}

/* --- Text by regex --- */

static void regex_is(const char *text, size_t len, const char *regex, double want)
{
    char why[WHY_MAX] = "";
    double v = UNTOUCHED;

    assert_int_equal(probe_parse_text_regex(text, len, regex, &v, why, sizeof(why)), 0);
    assert_true(v == want);
    assert_string_equal(why, "");
}

static void regex_fails(const char *text, size_t len, const char *regex, int want_rc,
                        const char *want_why)
{
    char why[WHY_MAX];
    double v = UNTOUCHED;

    assert_int_equal(probe_parse_text_regex(text, len, regex, &v, why, sizeof(why)), want_rc);
    assert_string_equal(why, want_why);
    assert_true(v == UNTOUCHED);
}

static void regex_reads_the_group_of_the_first_matching_line(void **state)
{
    size_t len;
    char *text = fixture("apache_status_auto.txt", &len);

    (void)state;
    regex_is(text, len, "^BusyWorkers: ([0-9]+)$", 5);
    regex_is(text, len, "^Load[0-9]+: ([.0-9]+)", 0.05);
    regex_fails(text, len, "^ServerMPM: (.*)$", -EDOM, "line 3: \"event\" is not a number");
    free(text);
    text = fixture("nginx_stub_status.txt", &len);
    regex_is(text, len, "^ *[0-9]+ [0-9]+ ([0-9]+) *$", 5);
    regex_is(text, len, "Writing: ([0-9]+)", 1);
    regex_is(text, len, "^ *[0-9]+ ([0-9]+) [0-9]+ *$", 3);
    free(text);
}

static void regex_reads_past_nuls_and_crlf(void **state)
{
    (void)state;
    regex_is("a\0n=5\r\n", 7, "^n=([0-9]+)$", 5);
}

static void regex_needs_exactly_one_capture_group(void **state)
{
    (void)state;
    regex_fails("", 0, "[0-9]+", -EINVAL,
                "bad regex \"[0-9]+\": it needs exactly one capture group, it has 0");
    regex_fails("", 0, "(a)(b)", -EINVAL,
                "bad regex \"(a)(b)\": it needs exactly one capture group, it has 2");
    regex_fails("", 0, "(a)\\1", -EINVAL,
                "bad regex \"(a)\\1\": back-references (\\1 to \\9) are not supported");
    regex_fails("", 0, "", -EINVAL, "bad regex: it is 0 bytes, expected 1 to 1024");
    /* Stacked repetitions compile in memory exponential in their number
     * (libFuzzer found "x| y+++...+" taking 2 GB); large counts likewise. */
    regex_fails(
        "", 0, "(y++++++++++++++++++++++++++++++)", -EINVAL,
        "bad regex \"(y++++++++++++++++++++++++++++++)\": a repetition right after another (such as ++ or *{2}) is not supported");
    regex_fails(
        "", 0, "(a{2}*)", -EINVAL,
        "bad regex \"(a{2}*)\": a repetition right after another (such as ++ or *{2}) is not supported");
    regex_fails("", 0, "(a{101})", -EINVAL,
                "bad regex \"(a{101})\": a repetition count above 100 is not supported");
    regex_is("n=+7\n", 5, "n=[+*]?([0-9]+)", 7); /* in a bracket they are members */
}

static void regex_bad_syntax_is_rejected(void **state)
{
    struct probe_regex *re = NULL;
    char why[WHY_MAX];

    (void)state;
    assert_int_equal(probe_regex_compile("(", &re, why, sizeof(why)), -EINVAL);
    assert_null(re);
    assert_true(strncmp(why, "bad regex \"(\": ", 15) == 0);
    probe_regex_free(NULL);
}

static void regex_group_that_took_no_part_is_reported(void **state)
{
    (void)state;
    regex_fails("v:\n", 3, "^v:(5)?$", -EDOM,
                "line 1: the capture group took no part in the match");
}

static void regex_skips_lines_longer_than_the_cap(void **state)
{
    size_t len = PROBE_LINE_MAX + 20;
    char *text = malloc(len);

    (void)state;
    assert_non_null(text);
    memset(text, 'a', len);
    memcpy(text + PROBE_LINE_MAX + 1, "\nx=1\n", 5);
    memcpy(text + PROBE_LINE_MAX - 4, "y=2", 3);
    regex_fails(text, len, "^y=([0-9]+)", -ENOENT,
                "no line matches (1 line over 4096 bytes skipped)");
    regex_is(text, len, "^x=([0-9]+)", 1);
    regex_fails("a\nb\n", 4, "^c(.)", -ENOENT, "no line matches");
    free(text);
}

static void regex_compiled_once_matches_many_pages(void **state)
{
    struct probe_regex *re;
    char why[WHY_MAX];
    double v;

    (void)state;
    assert_int_equal(probe_regex_compile("^q ([0-9]+)$", &re, why, sizeof(why)), 0);
    assert_int_equal(probe_regex_match(re, "q 1\n", 4, &v, why, sizeof(why)), 0);
    assert_true(v == 1);
    assert_int_equal(probe_regex_match(re, "q 22", 4, &v, why, sizeof(why)), 0);
    assert_true(v == 22);
    assert_int_equal(probe_regex_match(re, "r 1", 3, &v, why, sizeof(why)), -ENOENT);
    probe_regex_free(re);
}

/* --- Prometheus --- */

/* Evaluates selector over the Prometheus fixture. */
static int prom(const char *selector, double *v, size_t *n, char *why)
{
    struct probe_prom *p;
    size_t len;
    char *text = fixture("prometheus.txt", &len);
    int rc;

    assert_int_equal(probe_prom_compile(selector, &p, why, WHY_MAX), 0);
    rc = probe_prom_eval(p, text, len, v, n, why, WHY_MAX);
    probe_prom_free(p);
    free(text);
    return rc;
}

static void prom_is(const char *selector, double want, size_t want_n)
{
    char why[WHY_MAX] = "";
    double v = UNTOUCHED;
    size_t n = 0;

    assert_int_equal(prom(selector, &v, &n, why), 0);
    assert_true(v == want);
    assert_int_equal(n, want_n);
    assert_string_equal(why, "");
}

static void prom_text_is(const char *text, const char *selector, double want, size_t want_n)
{
    struct probe_prom *p;
    char why[WHY_MAX] = "";
    double v = UNTOUCHED;
    size_t n = 0;

    assert_int_equal(probe_prom_compile(selector, &p, why, sizeof(why)), 0);
    assert_int_equal(probe_prom_eval(p, text, strlen(text), &v, &n, why, sizeof(why)), 0);
    assert_true(v == want);
    assert_int_equal(n, want_n);
    probe_prom_free(p);
}

static void prom_sums_every_series_of_a_metric(void **state)
{
    (void)state;
    prom_is("http_requests_total", 1027 + 3 + 500 + 2, 4);
    prom_is("metric_without_timestamp_and_labels", 12.47, 1);
    prom_is("riak_node_get_fsm_siblings", 3, 1);
}

static void prom_label_matchers_select_series(void **state)
{
    (void)state;
    prom_is("http_requests_total{method=\"post\"}", 1030, 2);
    prom_is("http_requests_total{code!=\"200\"}", 5, 2);
    prom_is("http_requests_total{method=\"get\",code=\"200\"}", 500, 1);
    prom_is("http_requests_total{code=~\"2..\"}", 1527, 2);
    prom_is("http_requests_total{code!~\"[45]..\"}", 1527, 2);
    prom_is("http_requests_total{__name__=\"http_requests_total\",code=\"400\"}", 3, 1);
}

static void prom_regex_matchers_are_anchored(void **state)
{
    char why[WHY_MAX];
    double v = UNTOUCHED;

    (void)state;
    assert_int_equal(prom("http_requests_total{method=~\"po\"}", &v, NULL, why), -ENOENT);
    assert_true(v == UNTOUCHED);
    prom_is("http_requests_total{method=~\"post|get\"}", 1532, 4);
    prom_is("http_requests_total{method=~\"po.*\"}", 1030, 2);
}

static void prom_missing_label_is_the_empty_string(void **state)
{
    (void)state;
    prom_is("metric_without_timestamp_and_labels{job=\"\"}", 12.47, 1);
    prom_is("metric_without_timestamp_and_labels{job!=\"x\"}", 12.47, 1);
    prom_is("http_request_duration_seconds_sum{le=\"\"}", 53423, 1);
}

static void prom_escaped_label_values_match_their_unescaped_text(void **state)
{
    (void)state;
    prom_is("msdos_file_access_time_seconds{path=\"C:\\\\DIR\\\\FILE.TXT\"}", 1.458255915e9, 1);
    prom_is("msdos_file_access_time_seconds{error=\"Cannot find file:\\n\\\"FILE.TXT\\\"\"}",
            1.458255915e9, 1);
    prom_is("msdos_file_access_time_seconds{path=~\"C:.*TXT\"}", 1.458255915e9, 1);
}

static void prom_nan_makes_the_sum_nan(void **state)
{
    char why[WHY_MAX];
    double v;
    size_t n;

    (void)state;
    assert_int_equal(prom("probe_ratio", &v, &n, why), 0);
    assert_true(isnan(v));
    assert_int_equal(n, 2);
    prom_is("probe_ratio{instance=\"b\"}", 0.5, 1);
}

static void prom_infinities_are_values(void **state)
{
    struct probe_prom *p;
    char why[WHY_MAX];
    double v;

    (void)state;
    prom_is("something_weird", INFINITY, 1);
    prom_is("temperature_celsius{room=\"freezer\"}", -INFINITY, 1);
    prom_is("temperature_celsius", -INFINITY, 2);
    prom_text_is("m +infinity\n", "m{}", INFINITY, 1);
    assert_int_equal(probe_prom_compile("m", &p, why, sizeof(why)), 0);
    assert_int_equal(probe_prom_eval(p, "m Inf\nm -inf\n", 13, &v, NULL, why, sizeof(why)), 0);
    assert_true(isnan(v));
    probe_prom_free(p);
}

static void prom_histogram_and_summary_series_are_ordinary_series(void **state)
{
    (void)state;
    prom_is("http_request_duration_seconds_bucket{le=\"+Inf\"}", 144320, 1);
    prom_is("http_request_duration_seconds_bucket{le=\"0.1\"}", 33444, 1);
    prom_is("http_request_duration_seconds_bucket",
            24054.0 + 33444 + 100392 + 129389 + 133988 + 144320, 6);
    prom_is("http_request_duration_seconds_count", 144320, 1);
    prom_is("rpc_duration_seconds{quantile=\"0.99\"}", 76656, 1);
    prom_is("rpc_duration_seconds_sum", 1.7560473e7, 1);
}

static void prom_reads_timestamps_exemplars_and_blank_variants(void **state)
{
    (void)state;
    prom_text_is("m 1 123\n", "m", 1, 1);
    prom_text_is("m\t2\n", "m", 2, 1);
    prom_text_is("m{a=\"x\"}3\n", "m", 3, 1);
    prom_text_is("  m { a = \"x\" , } 4 -5 # {trace_id=\"x\"} 1 1\n", "m{a=\"x\"}", 4, 1);
    prom_text_is("m 5\r\nm 6\r\n", "m", 11, 2);
    prom_text_is("job:rate5m 9\n", "job:rate5m", 9, 1);
    prom_text_is("m{a=\"x\\q\"} 10\n", "m{a=\"x\\\\q\"}", 10, 1);
}

static void prom_reads_nul_as_a_line_end(void **state)
{
    struct probe_prom *p;
    char why[WHY_MAX];
    double v;
    size_t n;

    (void)state;
    assert_int_equal(probe_prom_compile("m", &p, why, sizeof(why)), 0);
    assert_int_equal(probe_prom_eval(p, "m 7\0m 8", 7, &v, &n, why, sizeof(why)), 0);
    assert_true(v == 15);
    assert_int_equal(n, 2);
    probe_prom_free(p);
}

static void prom_malformed_lines_are_skipped(void **state)
{
    (void)state;
    prom_text_is("m{a=\"x} 1\nm 2\nm x\nm{a=\"b\",} 3\nm{a=\"b\" 4\nm 5 6 7\nm 1e999\nm8\n", "m", 5,
                 2);
}

static void prom_no_match_names_the_selector_and_first_malformed_line(void **state)
{
    struct probe_prom *p;
    char why[WHY_MAX];
    double v = UNTOUCHED;
    size_t n = 9;

    (void)state;
    assert_int_equal(prom("nope{a=\"b\"}", &v, &n, why), -ENOENT);
    assert_string_equal(why,
                        "no series matches nope{a=\"b\"} (1 malformed line, the first is line 48)");
    assert_int_equal(n, 0);
    assert_true(v == UNTOUCHED);
    assert_int_equal(probe_prom_compile("m", &p, why, sizeof(why)), 0);
    assert_int_equal(probe_prom_eval(p, "", 0, &v, NULL, why, sizeof(why)), -ENOENT);
    assert_string_equal(why, "no series matches m");
    assert_int_equal(probe_prom_eval(p, "x", PROBE_DOC_MAX + 1, &v, NULL, why, sizeof(why)),
                     -EFBIG);
    probe_prom_free(p);
    probe_prom_free(NULL);
}

static void prom_selector_fails(const char *selector, const char *want_why)
{
    struct probe_prom *p = NULL;
    char why[WHY_MAX];

    assert_int_equal(probe_prom_compile(selector, &p, why, sizeof(why)), -EINVAL);
    assert_null(p);
    assert_string_equal(why, want_why);
}

static void prom_bad_selectors_are_rejected(void **state)
{
    char many[400] = "m{";

    (void)state;
    prom_selector_fails("", "bad selector \"\": expected a metric name at column 1");
    prom_selector_fails("1up", "bad selector \"1up\": expected a metric name at column 1");
    prom_selector_fails("up{", "bad selector \"up{\": expected a label name at column 4");
    prom_selector_fails("up{job}",
                        "bad selector \"up{job}\": expected =, !=, =~ or !~ at column 7");
    prom_selector_fails("up{job=x}",
                        "bad selector \"up{job=x}\": expected a quoted value at column 8");
    prom_selector_fails("up{job=\"x}",
                        "bad selector \"up{job=\"x}\": unterminated value at column 11");
    prom_selector_fails("up{job=\"x\"",
                        "bad selector \"up{job=\"x\"\": expected \",\" or \"}\" at column 11");
    prom_selector_fails(
        "up{job=\"x\"} x",
        "bad selector \"up{job=\"x\"} x\": unexpected text after \"}\" at column 13");
    prom_selector_fails("up x", "bad selector \"up x\": expected \"{\" or the end at column 4");
    prom_selector_fails(
        "up{a=\"\\q\"}",
        "bad selector \"up{a=\"\\q\"}\": unknown escape (use \\\\, \\\", \\n or \\t) at column 8");
    prom_selector_fails(
        "up{a=~\"(a)\\\\1\"}",
        "bad selector \"up{a=~\"(a)\\\\1\"}\": back-references (\\1 to \\9) are not supported at column 7");
    prom_selector_fails(
        "m{a=~\"x| y+++\"}",
        "bad selector \"m{a=~\"x| y+++\"}\": a repetition right after another (such as ++ or *{2}) is not supported at column 6");
    for (int i = 0; i <= PROBE_PROM_MATCHERS_MAX; i++)
        snprintf(many + strlen(many), sizeof(many) - strlen(many), "l%d=\"v\",", i);
    strcat(many, "}");
    {
        struct probe_prom *p = NULL;
        char why[WHY_MAX];

        assert_int_equal(probe_prom_compile(many, &p, why, sizeof(why)), -EINVAL);
        assert_non_null(strstr(why, "too many label matchers"));
        assert_int_equal(probe_prom_compile("up{a=~\"(\"}", &p, why, sizeof(why)), -EINVAL);
        assert_null(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_reads_integers_reals_and_booleans),
        cmocka_unit_test(json_reads_numbers_held_in_strings),
        cmocka_unit_test(json_big_integers_read_as_doubles),
        cmocka_unit_test(json_pointer_walks_nested_objects_and_arrays),
        cmocka_unit_test(json_pointer_unescapes_tilde_one_and_tilde_zero),
        cmocka_unit_test(json_empty_pointer_is_the_whole_document),
        cmocka_unit_test(json_undefined_string_is_not_a_number),
        cmocka_unit_test(json_null_objects_and_arrays_are_not_numbers),
        cmocka_unit_test(json_strings_holding_nan_inf_hex_or_blanks_are_not_numbers),
        cmocka_unit_test(json_missing_key_is_reported_with_its_path),
        cmocka_unit_test(json_array_index_must_be_in_range_and_without_leading_zero),
        cmocka_unit_test(json_bad_pointer_syntax_is_rejected),
        cmocka_unit_test(json_nested_to_the_limit_is_read),
        cmocka_unit_test(json_nested_deeper_than_the_limit_is_rejected),
        cmocka_unit_test(json_brackets_inside_strings_do_not_count_as_depth),
        cmocka_unit_test(json_bigger_than_the_limit_is_rejected),
        cmocka_unit_test(json_invalid_document_says_where),
        cmocka_unit_test(json_byte_order_mark_is_skipped),
        cmocka_unit_test(json_long_values_are_cut_in_reasons),
        cmocka_unit_test(json_document_opens_once_for_several_pointers),
        cmocka_unit_test(reasons_fit_any_buffer),
        cmocka_unit_test(text_key_reads_riak_stats_lines),
        cmocka_unit_test(text_key_undefined_value_is_not_a_number),
        cmocka_unit_test(text_key_reads_apache_server_status),
        cmocka_unit_test(text_key_reads_every_nginx_stub_status_counter),
        cmocka_unit_test(text_key_matches_whole_keys_case_sensitively),
        cmocka_unit_test(text_key_takes_colon_equals_and_blank_forms),
        cmocka_unit_test(text_key_first_occurrence_decides),
        cmocka_unit_test(text_key_reads_crlf_and_nul_line_ends),
        cmocka_unit_test(text_key_numbers_take_signs_points_and_exponents),
        cmocka_unit_test(text_key_bad_keys_are_rejected),
        cmocka_unit_test(regex_reads_the_group_of_the_first_matching_line),
        cmocka_unit_test(regex_reads_past_nuls_and_crlf),
        cmocka_unit_test(regex_needs_exactly_one_capture_group),
        cmocka_unit_test(regex_bad_syntax_is_rejected),
        cmocka_unit_test(regex_group_that_took_no_part_is_reported),
        cmocka_unit_test(regex_skips_lines_longer_than_the_cap),
        cmocka_unit_test(regex_compiled_once_matches_many_pages),
        cmocka_unit_test(prom_sums_every_series_of_a_metric),
        cmocka_unit_test(prom_label_matchers_select_series),
        cmocka_unit_test(prom_regex_matchers_are_anchored),
        cmocka_unit_test(prom_missing_label_is_the_empty_string),
        cmocka_unit_test(prom_escaped_label_values_match_their_unescaped_text),
        cmocka_unit_test(prom_nan_makes_the_sum_nan),
        cmocka_unit_test(prom_infinities_are_values),
        cmocka_unit_test(prom_histogram_and_summary_series_are_ordinary_series),
        cmocka_unit_test(prom_reads_timestamps_exemplars_and_blank_variants),
        cmocka_unit_test(prom_reads_nul_as_a_line_end),
        cmocka_unit_test(prom_malformed_lines_are_skipped),
        cmocka_unit_test(prom_no_match_names_the_selector_and_first_malformed_line),
        cmocka_unit_test(prom_bad_selectors_are_rejected),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
