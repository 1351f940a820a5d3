/* Error classes are a format: their names appear in session files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/errclass.h"

static void names_are_the_documented_stable_ones(void **state)
{
    /* Changing one of these breaks every recorded session: don't. */
    static const char *const expected[ERR__COUNT] = {
        "refused",
        "connect_timeout",
        "dns",
        "tls",
        "reset",
        "broken_pipe",
        "closed_early",
        "timeout",
        "malformed",
        "http_4xx",
        "http_5xx",
        "local_fd_limit",
        "local_no_ports",
        "other",
        "unexpected_status",
        "script",
    };

    (void)state;
    for (int i = 0; i < ERR__COUNT; i++)
        assert_string_equal(errclass_name((enum errclass)i), expected[i]);
}

static void every_class_has_a_one_line_description(void **state)
{
    (void)state;
    for (int i = 0; i < ERR__COUNT; i++) {
        const char *d = errclass_describe((enum errclass)i);

        assert_true(strlen(d) > 10);
        assert_true(strlen(d) < 80);
        assert_null(strchr(d, '\n'));
    }
}

static void names_map_back_to_their_class(void **state)
{
    (void)state;
    for (int i = 0; i < ERR__COUNT; i++)
        assert_int_equal(errclass_from_name(errclass_name((enum errclass)i)), i);
    assert_int_equal(errclass_from_name("ECONNRESET"), -1);
    assert_int_equal(errclass_from_name(""), -1);
}

static void local_limits_are_not_blamed_on_the_server(void **state)
{
    (void)state;
    assert_int_equal(errclass_origin(ERR_LOCAL_FD_LIMIT), ERR_ORIGIN_LOCAL);
    assert_int_equal(errclass_origin(ERR_LOCAL_NO_PORTS), ERR_ORIGIN_LOCAL);
    assert_int_equal(errclass_origin(ERR_RESET), ERR_ORIGIN_TARGET);
    assert_int_equal(errclass_origin(ERR_DNS), ERR_ORIGIN_NETWORK);
}

static void out_of_range_values_do_not_crash(void **state)
{
    (void)state;
    assert_string_equal(errclass_name(ERR__COUNT), "?");
    assert_string_equal(errclass_name((enum errclass)(-1)), "?");
    assert_string_equal(errclass_describe(ERR__COUNT), "");
}

static void tables_of_counts_add_class_by_class_and_sum(void **state)
{
    uint64_t dst[ERR__COUNT] = {0}, src[ERR__COUNT] = {0};

    (void)state;
    dst[ERR_RESET] = 2;
    src[ERR_RESET] = 3;
    src[ERR_UNEXPECTED_STATUS] = 7;
    errclass_add(dst, src);
    assert_int_equal(dst[ERR_RESET], 5);
    assert_int_equal(dst[ERR_UNEXPECTED_STATUS], 7);
    assert_int_equal(dst[ERR_REFUSED], 0);
    assert_int_equal(errclass_sum(dst), 12);
    assert_int_equal(src[ERR_RESET], 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_are_the_documented_stable_ones),
        cmocka_unit_test(every_class_has_a_one_line_description),
        cmocka_unit_test(names_map_back_to_their_class),
        cmocka_unit_test(local_limits_are_not_blamed_on_the_server),
        cmocka_unit_test(out_of_range_values_do_not_crash),
        cmocka_unit_test(tables_of_counts_add_class_by_class_and_sum),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
