#include "core/units.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#define WHY_MAX 256
/* A value parsers must leave alone when they fail. */
#define UNTOUCHED 0xDEADBEEFULL

#define DURATION_EXPECTED "expected a duration such as 250ms, 30s, 2m or 1h, got "
#define SIZE_EXPECTED "expected a size such as 512, 64k, 5MiB or 1GB, got "
#define COUNT_EXPECTED "expected a whole number such as 100, 10k or 2M, got "
#define PERCENT_EXPECTED "expected a percentage such as 1% or 0.5%, got "
#define BOOL_EXPECTED "expected yes/no, true/false, on/off or 1/0, got "

static void duration_is(const char *s, uint64_t want_us)
{
    char why[WHY_MAX] = "";
    uint64_t us = UNTOUCHED;

    assert_int_equal(units_parse_duration(s, &us, why, sizeof(why)), 0);
    assert_int_equal(us, want_us);
    assert_string_equal(why, "");
}

static void duration_fails(const char *s, int want_err, const char *want_why)
{
    char why[WHY_MAX];
    uint64_t us = UNTOUCHED;

    assert_int_equal(units_parse_duration(s, &us, why, sizeof(why)), want_err);
    assert_string_equal(why, want_why);
    assert_int_equal(us, UNTOUCHED);
}

static void size_is(const char *s, uint64_t want)
{
    char why[WHY_MAX];
    uint64_t v = UNTOUCHED;

    assert_int_equal(units_parse_size(s, &v, why, sizeof(why)), 0);
    assert_int_equal(v, want);
}

static void size_fails(const char *s, int want_err, const char *want_why)
{
    char why[WHY_MAX];
    uint64_t v = UNTOUCHED;

    assert_int_equal(units_parse_size(s, &v, why, sizeof(why)), want_err);
    assert_string_equal(why, want_why);
    assert_int_equal(v, UNTOUCHED);
}

static void count_is(const char *s, uint64_t min, uint64_t max, uint64_t want)
{
    char why[WHY_MAX];
    uint64_t v = UNTOUCHED;

    assert_int_equal(units_parse_count(s, min, max, &v, why, sizeof(why)), 0);
    assert_int_equal(v, want);
}

static void count_fails(const char *s, uint64_t min, uint64_t max, int want_err,
                        const char *want_why)
{
    char why[WHY_MAX];
    uint64_t v = UNTOUCHED;

    assert_int_equal(units_parse_count(s, min, max, &v, why, sizeof(why)), want_err);
    assert_string_equal(why, want_why);
    assert_int_equal(v, UNTOUCHED);
}

static void percent_is(const char *s, double want)
{
    char why[WHY_MAX];
    double v = -1;

    assert_int_equal(units_parse_percent(s, &v, why, sizeof(why)), 0);
    /* Exact: the parser divides exact integers once, as the literal is read. */
    assert_true(v == want);
}

static void percent_fails(const char *s, int want_err, const char *want_why)
{
    char why[WHY_MAX];
    double v = -1;

    assert_int_equal(units_parse_percent(s, &v, why, sizeof(why)), want_err);
    assert_string_equal(why, want_why);
    assert_true(v == -1);
}

static void bool_is(const char *s, int want)
{
    char why[WHY_MAX];
    int v = -1;

    assert_int_equal(units_parse_bool(s, &v, why, sizeof(why)), 0);
    assert_int_equal(v, want);
}

static void duration_formats_as(uint64_t us, const char *want)
{
    char buf[UNITS_FMT_MAX];

    assert_ptr_equal(units_format_duration(us, buf, sizeof(buf)), buf);
    assert_string_equal(buf, want);
}

static void size_formats_as(uint64_t bytes, const char *want)
{
    char buf[UNITS_FMT_MAX];

    assert_ptr_equal(units_format_size(bytes, buf, sizeof(buf)), buf);
    assert_string_equal(buf, want);
}

static void count_formats_as(uint64_t n, const char *want)
{
    char buf[UNITS_FMT_MAX];

    assert_ptr_equal(units_format_count(n, buf, sizeof(buf)), buf);
    assert_string_equal(buf, want);
}

/* Durations. */

static void duration_with_each_unit_is_parsed(void **state)
{
    (void)state;
    duration_is("850us", 850);
    duration_is("250ms", 250000);
    duration_is("30s", 30000000);
    duration_is("2m", 120000000);
    duration_is("1h", 3600000000ULL);
}

static void duration_with_decimals_is_exact(void **state)
{
    (void)state;
    duration_is("1.5s", 1500000);
    duration_is("0.1s", 100000);
    duration_is("0.25h", 900000000);
    duration_is("1.000000000000s", 1000000);
    duration_is("0.000000001h", 4);
}

static void duration_is_rounded_half_up_to_microseconds(void **state)
{
    (void)state;
    duration_is("1.5us", 2);
    duration_is("1.4us", 1);
    duration_is("0.0005ms", 1);
}

static void duration_of_several_parts_adds_them(void **state)
{
    (void)state;
    duration_is("1m30s", 90000000);
    duration_is("1h2m3s4ms5us", 3723004005ULL);
    duration_is("1h0.5m", 3630000000ULL);
    duration_is("2m05s", 125000000);
}

static void duration_allows_one_space_before_its_unit(void **state)
{
    (void)state;
    duration_is("10 s", 10000000);
    duration_is("1 m30 s", 90000000);
}

static void duration_ignores_leading_and_trailing_blanks(void **state)
{
    (void)state;
    duration_is(" \t30s \t", 30000000);
}

static void zero_duration_needs_no_unit(void **state)
{
    (void)state;
    duration_is("0", 0);
    duration_is("0.0", 0);
    duration_is("0s", 0);
}

static void duration_without_unit_is_rejected(void **state)
{
    (void)state;
    duration_fails("10", -EINVAL, DURATION_EXPECTED "\"10\" (the unit is missing)");
    duration_fails("1m30", -EINVAL, DURATION_EXPECTED "\"1m30\" (the unit is missing)");
}

static void duration_in_words_is_rejected(void **state)
{
    (void)state;
    duration_fails("ten", -EINVAL, DURATION_EXPECTED "\"ten\"");
    duration_fails("nan", -EINVAL, DURATION_EXPECTED "\"nan\"");
    duration_fails("inf", -EINVAL, DURATION_EXPECTED "\"inf\"");
}

static void empty_duration_is_rejected(void **state)
{
    (void)state;
    duration_fails("", -EINVAL, DURATION_EXPECTED "\"\"");
    duration_fails("  ", -EINVAL, DURATION_EXPECTED "\"\"");
    duration_fails(NULL, -EINVAL, DURATION_EXPECTED "\"\"");
}

static void negative_duration_is_rejected(void **state)
{
    (void)state;
    duration_fails("-5m", -EINVAL, DURATION_EXPECTED "\"-5m\" (negative values are not allowed)");
    duration_fails("1m-5s", -EINVAL,
                   DURATION_EXPECTED "\"1m-5s\" (negative values are not allowed)");
}

static void duration_with_unknown_unit_lists_the_units(void **state)
{
    (void)state;
    duration_fails("1e309", -EINVAL, DURATION_EXPECTED "\"1e309\" (units are us, ms, s, m and h)");
    duration_fails("0x10s", -EINVAL, DURATION_EXPECTED "\"0x10s\" (units are us, ms, s, m and h)");
    duration_fails("10sec", -EINVAL, DURATION_EXPECTED "\"10sec\" (units are us, ms, s, m and h)");
    duration_fails("10S", -EINVAL, DURATION_EXPECTED "\"10S\" (units are us, ms, s, m and h)");
    duration_fails("3d", -EINVAL, DURATION_EXPECTED "\"3d\" (units are us, ms, s, m and h)");
}

static void duration_with_malformed_number_is_rejected(void **state)
{
    (void)state;
    duration_fails("+5s", -EINVAL, DURATION_EXPECTED "\"+5s\"");
    duration_fails(".5s", -EINVAL, DURATION_EXPECTED "\".5s\"");
    duration_fails("5.s", -EINVAL, DURATION_EXPECTED "\"5.s\"");
    duration_fails("1.5.3s", -EINVAL, DURATION_EXPECTED "\"1.5.3s\"");
    duration_fails("1,5s", -EINVAL, DURATION_EXPECTED "\"1,5s\"");
}

static void duration_with_two_spaces_or_spaces_between_parts_is_rejected(void **state)
{
    (void)state;
    duration_fails("10  s", -EINVAL, DURATION_EXPECTED "\"10  s\"");
    duration_fails("1m 30s", -EINVAL, DURATION_EXPECTED "\"1m 30s\"");
    duration_fails("10\ts", -EINVAL, DURATION_EXPECTED "\"10\\ts\"");
}

static void duration_parts_must_go_from_largest_unit_each_once(void **state)
{
    (void)state;
    duration_fails("30s1m", -EINVAL,
                   DURATION_EXPECTED "\"30s1m\" (put the largest unit first, each once, as in "
                                     "1m30s)");
    duration_fails("1s1s", -EINVAL,
                   DURATION_EXPECTED "\"1s1s\" (put the largest unit first, each once, as in "
                                     "1m30s)");
}

static void duration_with_more_than_nine_decimals_is_rejected(void **state)
{
    (void)state;
    duration_fails("1.0000000001s", -EINVAL,
                   DURATION_EXPECTED "\"1.0000000001s\" (at most 9 decimals)");
}

static void duration_up_to_100_days_is_accepted(void **state)
{
    (void)state;
    duration_is("2400h", UNITS_DURATION_MAX_US);
    duration_is("2399h60m", UNITS_DURATION_MAX_US);
}

static void duration_beyond_100_days_is_out_of_range(void **state)
{
    (void)state;
    duration_fails("2400h1us", -ERANGE,
                   "expected a duration of at most 2400h (100 days), got \"2400h1us\"");
    duration_fails("9223372036854775808ms", -ERANGE,
                   "expected a duration of at most 2400h (100 days), got "
                   "\"9223372036854775808ms\"");
    duration_fails("18446744073709551616us", -ERANGE,
                   "expected a duration of at most 2400h (100 days), got "
                   "\"18446744073709551616us\"");
    duration_fails("99999999999999999999999999h", -ERANGE,
                   "expected a duration of at most 2400h (100 days), got "
                   "\"99999999999999999999999999h\"");
}

static void duration_below_one_microsecond_is_out_of_range(void **state)
{
    (void)state;
    duration_fails("0.4us", -ERANGE, "expected a duration of at least 1us, got \"0.4us\"");
}

static void long_bad_value_is_cut_in_the_message(void **state)
{
    char s[200];

    (void)state;
    memset(s, 'x', sizeof(s) - 1);
    s[sizeof(s) - 1] = '\0';
    /* 40 bytes in all: 37 of the value and the "..." that shows the cut. */
    duration_fails(s, -EINVAL, DURATION_EXPECTED "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\"");
}

static void binary_bad_value_is_escaped_in_the_message(void **state)
{
    (void)state;
    duration_fails("\x1b]0;x\x07\n5s", -EINVAL, DURATION_EXPECTED "\"\\e]0;x\\x07\\n5s\"");
    duration_fails("5\xc2\xb5s", -EINVAL, DURATION_EXPECTED "\"5\\u00b5s\"");
    duration_fails("\xff\xfe", -EINVAL, DURATION_EXPECTED "\"\\xff\\xfe\"");
}

static void message_is_cut_to_the_callers_buffer(void **state)
{
    char why[10];
    uint64_t us;

    (void)state;
    assert_int_equal(units_parse_duration("ten", &us, why, sizeof(why)), -EINVAL);
    assert_string_equal(why, "expected ");
    assert_int_equal(units_parse_duration("ten", &us, why, 1), -EINVAL);
    assert_string_equal(why, "");
    assert_int_equal(units_parse_duration("ten", &us, NULL, 0), -EINVAL);
}

/* Sizes. */

static void size_without_unit_is_bytes(void **state)
{
    (void)state;
    size_is("512", 512);
    size_is("512B", 512);
    size_is("0", 0);
}

static void size_with_decimal_units_uses_powers_of_1000(void **state)
{
    (void)state;
    size_is("13k", 13000);
    size_is("13K", 13000);
    size_is("64kB", 64000);
    size_is("64KB", 64000);
    size_is("1M", 1000000);
    size_is("5MB", 5000000);
    size_is("1G", 1000000000);
    size_is("1GB", 1000000000);
    size_is("2T", 2000000000000ULL);
    size_is("2TB", 2000000000000ULL);
}

static void size_with_binary_units_uses_powers_of_1024(void **state)
{
    (void)state;
    size_is("1Ki", 1024);
    size_is("1KiB", 1024);
    size_is("5MiB", 5242880);
    size_is("5Mi", 5242880);
    size_is("1GiB", 1073741824);
    size_is("1Gi", 1073741824);
    size_is("1TiB", 1099511627776ULL);
    size_is("1Ti", 1099511627776ULL);
}

static void size_with_decimals_is_accepted_when_whole(void **state)
{
    (void)state;
    size_is("1.5k", 1500);
    size_is("0.5KiB", 512);
    size_is("1.07GB", 1070000000);
    size_is("5 MiB", 5242880);
}

static void size_that_is_not_whole_bytes_is_rejected(void **state)
{
    (void)state;
    size_fails("1.5B", -EINVAL, SIZE_EXPECTED "\"1.5B\" (not a whole number of bytes)");
    size_fails("1.1KiB", -EINVAL, SIZE_EXPECTED "\"1.1KiB\" (not a whole number of bytes)");
    size_fails("0.5", -EINVAL, SIZE_EXPECTED "\"0.5\" (not a whole number of bytes)");
}

static void size_with_unknown_unit_lists_the_units(void **state)
{
    (void)state;
    size_fails("1kb", -EINVAL,
               SIZE_EXPECTED "\"1kb\" (units are B, k, kB, KiB, M, MB, MiB, G, GB, GiB, T, TB, "
                             "TiB)");
    size_fails("1e3", -EINVAL,
               SIZE_EXPECTED "\"1e3\" (units are B, k, kB, KiB, M, MB, MiB, G, GB, GiB, T, TB, "
                             "TiB)");
}

static void size_in_words_or_negative_is_rejected(void **state)
{
    (void)state;
    size_fails("big", -EINVAL, SIZE_EXPECTED "\"big\"");
    size_fails("", -EINVAL, SIZE_EXPECTED "\"\"");
    size_fails("-1k", -EINVAL, SIZE_EXPECTED "\"-1k\" (negative values are not allowed)");
    size_fails("1k1", -EINVAL, SIZE_EXPECTED "\"1k1\"");
}

static void size_must_fit_in_int64(void **state)
{
    (void)state;
    size_is("9223372036854775807", INT64_MAX);
    size_fails("9223372036854775808", -ERANGE,
               "expected a size below 8EiB, got \"9223372036854775808\"");
    size_fails("10000000T", -ERANGE, "expected a size below 8EiB, got \"10000000T\"");
    size_fails("99999999999999999999", -ERANGE,
               "expected a size below 8EiB, got \"99999999999999999999\"");
}

/* Counts. */

static void count_is_parsed_with_optional_suffix(void **state)
{
    (void)state;
    count_is("100", 1, 1000, 100);
    count_is("1k", 1, 1000, 1000);
    count_is("2M", 0, UINT64_MAX, 2000000);
    count_is("1.5k", 0, 10000, 1500);
    count_is(" 10 k ", 0, 10000, 10000);
    count_is("18446744073709551615", 0, UINT64_MAX, UINT64_MAX);
}

static void count_outside_its_bounds_names_them(void **state)
{
    (void)state;
    count_fails("0", 1, 1000, -ERANGE, "expected a count from 1 to 1000, got \"0\"");
    count_fails("1001", 1, 1000, -ERANGE, "expected a count from 1 to 1000, got \"1001\"");
    count_fails("2k", 1, 1000, -ERANGE, "expected a count from 1 to 1000, got \"2k\"");
    count_fails("18446744073709551616", 0, UINT64_MAX, -ERANGE,
                "expected a count from 0 to 18446744073709551615, got "
                "\"18446744073709551616\"");
    count_fails("20000000000000M", 0, UINT64_MAX, -ERANGE,
                "expected a count from 0 to 18446744073709551615, got \"20000000000000M\"");
}

static void count_that_is_not_whole_is_rejected(void **state)
{
    (void)state;
    count_fails("1.5", 0, 1000, -EINVAL, COUNT_EXPECTED "\"1.5\" (not a whole number)");
    count_fails("1.0005k", 0, 1000000, -EINVAL, COUNT_EXPECTED "\"1.0005k\" (not a whole number)");
}

static void count_with_unknown_suffix_names_the_suffixes(void **state)
{
    (void)state;
    count_fails("10K", 0, 100000, -EINVAL, COUNT_EXPECTED "\"10K\" (the suffixes are k and M)");
    count_fails("10m", 0, 100000, -EINVAL, COUNT_EXPECTED "\"10m\" (the suffixes are k and M)");
}

static void count_in_words_or_negative_is_rejected(void **state)
{
    (void)state;
    count_fails("ten", 1, 10, -EINVAL, COUNT_EXPECTED "\"ten\"");
    count_fails("-3", 0, 10, -EINVAL, COUNT_EXPECTED "\"-3\" (negative values are not allowed)");
    count_fails("0x10", 0, 100, -EINVAL, COUNT_EXPECTED "\"0x10\" (the suffixes are k and M)");
}

/* Percentages. */

static void rate_reads_a_number_with_an_optional_per_second(void **state)
{
    static const struct {
        const char *s;
        double want;
    } good[] = {{"100", 100}, {"2.5/s", 2.5}, {" 250/s ", 250}, {"0", 0}, {"1k", -1}, {"1e3", -1},
                {"-5", -1},   {"5/min", -1},  {"nan", -1},      {"", -1}, {"1,5", -1}};
    char why[WHY_MAX];

    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        double v = -7;
        int rc = units_parse_rate(good[i].s, &v, why, sizeof(why));

        if (good[i].want < 0) {
            assert_int_not_equal(rc, 0);
            assert_true(v == -7);
        } else {
            assert_int_equal(rc, 0);
            assert_true(v == good[i].want);
        }
    }
    assert_int_equal(units_parse_rate("5/min", NULL, why, sizeof(why)), -EINVAL);
    assert_string_equal(
        why, "expected a rate such as 100 or 2.5/s, got \"5/min\" (the only unit is /s)");
}

static void percentage_becomes_a_fraction(void **state)
{
    (void)state;
    percent_is("1%", 0.01);
    percent_is("0.5%", 0.005);
    percent_is("12.5%", 0.125);
    percent_is("0%", 0);
    percent_is("100%", 1);
    percent_is("50 %", 0.5);
    percent_is("99.999%", 0.99999);
}

static void percentage_without_sign_is_rejected(void **state)
{
    (void)state;
    percent_fails("50", -EINVAL, PERCENT_EXPECTED "\"50\" (the % sign is missing)");
}

static void percentage_above_100_is_out_of_range(void **state)
{
    (void)state;
    percent_fails("101%", -ERANGE, "expected a percentage from 0% to 100%, got \"101%\"");
    percent_fails("100.1%", -ERANGE, "expected a percentage from 0% to 100%, got \"100.1%\"");
    percent_fails("99999999999999999999%", -ERANGE,
                  "expected a percentage from 0% to 100%, got \"99999999999999999999%\"");
}

static void malformed_percentage_is_rejected(void **state)
{
    (void)state;
    percent_fails("-1%", -EINVAL, PERCENT_EXPECTED "\"-1%\" (negative values are not allowed)");
    percent_fails("nan%", -EINVAL, PERCENT_EXPECTED "\"nan%\"");
    percent_fails("%", -EINVAL, PERCENT_EXPECTED "\"%\"");
    percent_fails("5%%", -EINVAL, PERCENT_EXPECTED "\"5%%\"");
    percent_fails("5pc", -EINVAL, PERCENT_EXPECTED "\"5pc\"");
}

/* Booleans. */

static void boolean_words_are_accepted_in_any_case(void **state)
{
    (void)state;
    bool_is("yes", 1);
    bool_is("YES", 1);
    bool_is("No", 0);
    bool_is("true", 1);
    bool_is("FALSE", 0);
    bool_is("on", 1);
    bool_is("Off", 0);
    bool_is("1", 1);
    bool_is("0", 0);
    bool_is("  yes\t", 1);
}

static void other_boolean_words_are_rejected(void **state)
{
    char why[WHY_MAX];
    int v = 7;

    (void)state;
    assert_int_equal(units_parse_bool("maybe", &v, why, sizeof(why)), -EINVAL);
    assert_string_equal(why, BOOL_EXPECTED "\"maybe\"");
    assert_int_equal(units_parse_bool("y", &v, why, sizeof(why)), -EINVAL);
    assert_string_equal(why, BOOL_EXPECTED "\"y\"");
    assert_int_equal(units_parse_bool("yess", &v, why, sizeof(why)), -EINVAL);
    assert_int_equal(units_parse_bool("", &v, why, sizeof(why)), -EINVAL);
    assert_string_equal(why, BOOL_EXPECTED "\"\"");
    assert_int_equal(units_parse_bool("2", &v, why, sizeof(why)), -EINVAL);
    assert_int_equal(v, 7);
}

/* Formatting. */

static void short_durations_format_in_microseconds(void **state)
{
    (void)state;
    duration_formats_as(0, "0us");
    duration_formats_as(850, "850us");
    duration_formats_as(999, "999us");
}

static void durations_format_with_three_significant_digits(void **state)
{
    (void)state;
    duration_formats_as(1000, "1.00ms");
    duration_formats_as(1234, "1.23ms");
    duration_formats_as(1235, "1.24ms");
    duration_formats_as(45600, "45.6ms");
    duration_formats_as(999499, "999ms");
    duration_formats_as(999500, "1.00s");
    duration_formats_as(2000000, "2.00s");
    duration_formats_as(9995000, "10.0s");
    duration_formats_as(59949999, "59.9s");
}

static void long_durations_format_as_minutes_then_hours(void **state)
{
    (void)state;
    duration_formats_as(59950000, "1m00s");
    duration_formats_as(185000000, "3m05s");
    duration_formats_as(3599499999ULL, "59m59s");
    duration_formats_as(3599500000ULL, "1h00m");
    duration_formats_as(3720000000ULL, "1h02m");
    duration_formats_as(UNITS_DURATION_MAX_US, "2400h00m");
    duration_formats_as(UINT64_MAX, "5124095576h02m");
}

static void sizes_format_in_powers_of_1000(void **state)
{
    (void)state;
    size_formats_as(0, "0B");
    size_formats_as(512, "512B");
    size_formats_as(999, "999B");
    size_formats_as(1000, "1.00kB");
    size_formats_as(13000, "13.0kB");
    size_formats_as(999999, "1.00MB");
    size_formats_as(5000000, "5.00MB");
    size_formats_as(1073741824, "1.07GB");
    size_formats_as(1099511627776ULL, "1.10TB");
    size_formats_as(UINT64_MAX, "18.4EB");
}

static void counts_format_with_k_and_m(void **state)
{
    (void)state;
    count_formats_as(0, "0");
    count_formats_as(999, "999");
    count_formats_as(1000, "1.00k");
    count_formats_as(12345, "12.3k");
    count_formats_as(123456, "123k");
    count_formats_as(999500, "1.00M");
    count_formats_as(4560000, "4.56M");
    count_formats_as(1000000000, "1.00G");
    count_formats_as(UINT64_MAX, "18.4E");
}

static void formatting_into_a_short_buffer_is_cut_and_terminated(void **state)
{
    char buf[8] = "xxxxxxx";

    (void)state;
    assert_string_equal(units_format_duration(1234, buf, 4), "1.2");
    assert_string_equal(units_format_size(13000, buf, 1), "");
    units_format_count(12345, buf, 0);
    assert_string_equal(buf, "");
    assert_string_equal(units_format_duration(UINT64_MAX, buf, sizeof(buf)), "5124095");
}

static int within(uint64_t got, uint64_t want, uint64_t tolerance)
{
    return got >= want ? got - want <= tolerance : want - got <= tolerance;
}

static void formatted_values_parse_back_within_rounding(void **state)
{
    /* Each side of every change of unit, and both ends. */
    /* Each side of every change of unit, and both ends. */
    static const uint64_t values[] = {
        0,
        1,
        999,
        1000,
        1234,
        59999,
        999999,
        1000000,
        59950000,
        185000000,
        3599500000ULL,
        86400000000ULL,
        UNITS_DURATION_MAX_US,
    };
    char buf[UNITS_FMT_MAX], why[WHY_MAX];

    (void)state;
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        uint64_t v = values[i], back;
        /* Three significant digits, then whole seconds, then whole minutes. */
        uint64_t tolerance = v < 60000000 ? v / 200 : v < 3600000000ULL ? 500000 : 30000000;

        units_format_duration(v, buf, sizeof(buf));
        assert_int_equal(units_parse_duration(buf, &back, why, sizeof(why)), 0);
        assert_true(within(back, v, tolerance));
        units_format_size(v, buf, sizeof(buf));
        assert_int_equal(units_parse_size(buf, &back, why, sizeof(why)), 0);
        assert_true(within(back, v, v / 200));
        if (v >= 999500000)
            continue; /* shown in G and above, which counts do not take */
        units_format_count(v, buf, sizeof(buf));
        assert_int_equal(units_parse_count(buf, 0, UINT64_MAX, &back, why, sizeof(why)), 0);
        assert_true(within(back, v, v / 200));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(duration_with_each_unit_is_parsed),
        cmocka_unit_test(duration_with_decimals_is_exact),
        cmocka_unit_test(duration_is_rounded_half_up_to_microseconds),
        cmocka_unit_test(duration_of_several_parts_adds_them),
        cmocka_unit_test(duration_allows_one_space_before_its_unit),
        cmocka_unit_test(duration_ignores_leading_and_trailing_blanks),
        cmocka_unit_test(zero_duration_needs_no_unit),
        cmocka_unit_test(duration_without_unit_is_rejected),
        cmocka_unit_test(duration_in_words_is_rejected),
        cmocka_unit_test(empty_duration_is_rejected),
        cmocka_unit_test(negative_duration_is_rejected),
        cmocka_unit_test(duration_with_unknown_unit_lists_the_units),
        cmocka_unit_test(duration_with_malformed_number_is_rejected),
        cmocka_unit_test(duration_with_two_spaces_or_spaces_between_parts_is_rejected),
        cmocka_unit_test(duration_parts_must_go_from_largest_unit_each_once),
        cmocka_unit_test(duration_with_more_than_nine_decimals_is_rejected),
        cmocka_unit_test(duration_up_to_100_days_is_accepted),
        cmocka_unit_test(duration_beyond_100_days_is_out_of_range),
        cmocka_unit_test(duration_below_one_microsecond_is_out_of_range),
        cmocka_unit_test(long_bad_value_is_cut_in_the_message),
        cmocka_unit_test(binary_bad_value_is_escaped_in_the_message),
        cmocka_unit_test(message_is_cut_to_the_callers_buffer),
        cmocka_unit_test(size_without_unit_is_bytes),
        cmocka_unit_test(size_with_decimal_units_uses_powers_of_1000),
        cmocka_unit_test(size_with_binary_units_uses_powers_of_1024),
        cmocka_unit_test(size_with_decimals_is_accepted_when_whole),
        cmocka_unit_test(size_that_is_not_whole_bytes_is_rejected),
        cmocka_unit_test(size_with_unknown_unit_lists_the_units),
        cmocka_unit_test(size_in_words_or_negative_is_rejected),
        cmocka_unit_test(size_must_fit_in_int64),
        cmocka_unit_test(count_is_parsed_with_optional_suffix),
        cmocka_unit_test(count_outside_its_bounds_names_them),
        cmocka_unit_test(count_that_is_not_whole_is_rejected),
        cmocka_unit_test(count_with_unknown_suffix_names_the_suffixes),
        cmocka_unit_test(count_in_words_or_negative_is_rejected),
        cmocka_unit_test(rate_reads_a_number_with_an_optional_per_second),
        cmocka_unit_test(percentage_becomes_a_fraction),
        cmocka_unit_test(percentage_without_sign_is_rejected),
        cmocka_unit_test(percentage_above_100_is_out_of_range),
        cmocka_unit_test(malformed_percentage_is_rejected),
        cmocka_unit_test(boolean_words_are_accepted_in_any_case),
        cmocka_unit_test(other_boolean_words_are_rejected),
        cmocka_unit_test(short_durations_format_in_microseconds),
        cmocka_unit_test(durations_format_with_three_significant_digits),
        cmocka_unit_test(long_durations_format_as_minutes_then_hours),
        cmocka_unit_test(sizes_format_in_powers_of_1000),
        cmocka_unit_test(counts_format_with_k_and_m),
        cmocka_unit_test(formatting_into_a_short_buffer_is_cut_and_terminated),
        cmocka_unit_test(formatted_values_parse_back_within_rounding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
