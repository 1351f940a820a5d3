/*
 * Fuzz target for the units parsers and formatters. The input, as a string,
 * goes through every parser with several sizes of message buffer; its first
 * eight bytes, as a number, go through every formatter. Checked besides "no
 * crash": only 0, -EINVAL or -ERANGE come back, the same whatever the buffer;
 * a success is in range and leaves the buffer alone; a failure writes one
 * terminated line of printable ASCII; and formatted values parse back to
 * within their rounding, and format the same the second time. Any violation
 * aborts.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

#define INPUT_MAX 4096
#define WHY_MAX 256
/* Filler of the message buffer, to see what a parser wrote. */
#define SENTINEL '\x7f'
/* The values the formatters show in a unit the parsers take (TB, M). */
#define SIZE_PARSEABLE_BELOW 999500000000000ULL
#define COUNT_PARSEABLE_BELOW 999500000ULL

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Message buffer sizes; 0 passes NULL. */
static const size_t why_lens[] = {0, 1, 2, 9, 40, WHY_MAX};

/* What one parser call gave: rc, the value widened to what all parsers share. */
struct result {
    int rc;
    uint64_t u;
    double d;
};

enum parser { P_DURATION, P_SIZE, P_COUNT_ANY, P_COUNT_1_1000, P_PERCENT, P_BOOL, P__COUNT };

static const char *const parser_names[P__COUNT] = {
    "duration", "size", "count", "count 1..1000", "percent", "bool",
};

static void check(int ok, const char *what, const char *context)
{
    if (!ok) {
        fprintf(stderr, "fuzz_units: %s: %s\n", context, what);
        abort();
    }
}

static struct result call(enum parser p, const char *s, char *why, size_t why_len)
{
    struct result r = {0, UINT64_MAX, NAN};
    int b = -1;

    switch (p) {
    case P_DURATION: r.rc = units_parse_duration(s, &r.u, why, why_len); break;
    case P_SIZE: r.rc = units_parse_size(s, &r.u, why, why_len); break;
    case P_COUNT_ANY: r.rc = units_parse_count(s, 0, UINT64_MAX, &r.u, why, why_len); break;
    case P_COUNT_1_1000: r.rc = units_parse_count(s, 1, 1000, &r.u, why, why_len); break;
    case P_PERCENT: r.rc = units_parse_percent(s, &r.d, why, why_len); break;
    case P_BOOL:
        r.rc = units_parse_bool(s, &b, why, why_len);
        r.u = (uint64_t)(int64_t)b;
        break;
    case P__COUNT: abort();
    }
    return r;
}

static void check_in_range(enum parser p, const struct result *r, const char *name)
{
    switch (p) {
    case P_DURATION:
        check(r->u <= UNITS_DURATION_MAX_US, "duration above the maximum", name);
        break;
    case P_SIZE: check(r->u <= (uint64_t)INT64_MAX, "size does not fit in int64", name); break;
    case P_COUNT_ANY: break;
    case P_COUNT_1_1000: check(r->u >= 1 && r->u <= 1000, "count outside [1, 1000]", name); break;
    case P_PERCENT: check(r->d >= 0 && r->d <= 1, "fraction outside [0, 1] or NaN", name); break;
    case P_BOOL: check(r->u == 0 || r->u == 1, "boolean neither 0 nor 1", name); break;
    case P__COUNT: abort();
    }
}

/* The message is terminated inside the buffer, printable ASCII, one line. */
static void check_message(const char *why, size_t why_len, const char *name)
{
    size_t n = strnlen(why, why_len);

    check(n < why_len, "message not terminated inside its buffer", name);
    check(why_len == 1 || n > 0, "failure without a message", name);
    for (size_t i = 0; i < n; i++)
        check(why[i] >= 0x20 && why[i] < 0x7F, "message byte not printable ASCII", name);
    if (why_len == WHY_MAX)
        check(strncmp(why, "expected ", 9) == 0 && strstr(why, ", got \"") != NULL,
              "message not of the form: expected ..., got \"...\"", name);
}

static void check_parser(enum parser p, const char *s)
{
    const char *name = parser_names[p];
    struct result first = {0, 0, 0};

    for (size_t i = 0; i < sizeof(why_lens) / sizeof(why_lens[0]); i++) {
        char why[WHY_MAX];
        size_t why_len = why_lens[i];
        struct result r;

        memset(why, SENTINEL, sizeof(why));
        r = call(p, s, why_len ? why : NULL, why_len);
        check(r.rc == 0 || r.rc == -EINVAL || r.rc == -ERANGE, "unexpected return code", name);
        if (i == 0)
            first = r;
        check(r.rc == first.rc && r.u == first.u && (r.rc != 0 || p != P_PERCENT || r.d == first.d),
              "result depends on the message buffer", name);
        if (r.rc == 0) {
            check_in_range(p, &r, name);
            check(why[0] == SENTINEL, "success wrote a message", name);
        } else {
            check(p == P_PERCENT ? isnan(r.d) : r.u == UINT64_MAX, "failure wrote the result",
                  name);
            if (why_len > 0)
                check_message(why, why_len, name);
        }
    }
}

typedef char *format_fn(uint64_t v, char *buf, size_t len);
typedef int parse_fn(const char *s, uint64_t *out);
typedef uint64_t tolerance_fn(uint64_t v);

static int parse_duration(const char *s, uint64_t *out)
{
    return units_parse_duration(s, out, NULL, 0);
}

static int parse_size(const char *s, uint64_t *out)
{
    return units_parse_size(s, out, NULL, 0);
}

static int parse_count(const char *s, uint64_t *out)
{
    return units_parse_count(s, 0, UINT64_MAX, out, NULL, 0);
}

/* How far a formatted value may be from v: three significant digits, or for
 * durations whole seconds from a minute on and whole minutes from an hour on. */
static uint64_t duration_tolerance(uint64_t v)
{
    return v < 60000000 ? v / 200 : v < 3600000000ULL ? 500000 : 30000000;
}

static uint64_t relative_tolerance(uint64_t v)
{
    return v / 200;
}

static void check_format(format_fn *format, parse_fn *parse, uint64_t parseable_below,
                         tolerance_fn *tolerance, uint64_t v, const char *name)
{
    char buf[UNITS_FMT_MAX + 8], again[UNITS_FMT_MAX];
    uint64_t back;
    size_t n;

    /* Every buffer length: terminated inside it, nothing written past it. */
    for (size_t len = 0; len <= UNITS_FMT_MAX; len++) {
        memset(buf, SENTINEL, sizeof(buf));
        check(format(v, buf, len) == buf, "formatter did not return buf", name);
        for (size_t i = len; i < sizeof(buf); i++)
            check(buf[i] == SENTINEL, "formatter wrote past len", name);
        if (len > 0)
            check(strnlen(buf, len) < len, "formatted value not terminated", name);
    }
    n = strlen(buf);
    check(n > 0 && n < UNITS_FMT_MAX, "formatted value empty or too long", name);
    for (size_t i = 0; i < n; i++)
        check(buf[i] > 0x20 && buf[i] < 0x7F, "formatted value not printable ASCII", name);
    if (v >= parseable_below)
        return;
    check(parse(buf, &back) == 0, "formatted value does not parse", name);
    check(back >= v ? back - v <= tolerance(v) : v - back <= tolerance(v),
          "formatted value parses too far from the original", name);
    format(back, again, sizeof(again));
    check(strcmp(buf, again) == 0, "formatting the parsed value changes it", name);
}

static void check_formatters(uint64_t v)
{
    check_format(units_format_duration, parse_duration, UNITS_DURATION_MAX_US + 1,
                 duration_tolerance, v, "format duration");
    check_format(units_format_size, parse_size, SIZE_PARSEABLE_BELOW, relative_tolerance, v,
                 "format size");
    check_format(units_format_count, parse_count, COUNT_PARSEABLE_BELOW, relative_tolerance, v,
                 "format count");
}

/* A parsed value formats to something that parses again (the round trip in
 * the other direction, from text the fuzzer found). */
static void check_parsed_value_round_trips(const char *s)
{
    uint64_t v;

    if (units_parse_duration(s, &v, NULL, 0) == 0)
        check_format(units_format_duration, parse_duration, UNITS_DURATION_MAX_US + 1,
                     duration_tolerance, v, "duration round trip");
    if (units_parse_size(s, &v, NULL, 0) == 0)
        check_format(units_format_size, parse_size, SIZE_PARSEABLE_BELOW, relative_tolerance, v,
                     "size round trip");
    if (units_parse_count(s, 0, UINT64_MAX, &v, NULL, 0) == 0)
        check_format(units_format_count, parse_count, COUNT_PARSEABLE_BELOW, relative_tolerance, v,
                     "count round trip");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t len = size < INPUT_MAX ? size : INPUT_MAX;
    char *s = malloc(len + 1);
    uint64_t v = 0;

    if (s == NULL)
        abort();
    memcpy(s, data, len);
    s[len] = '\0';
    for (int p = 0; p < P__COUNT; p++)
        check_parser((enum parser)p, s);
    check_parsed_value_round_trips(s);
    /* The first bytes as a number, and the small numbers a short input
     * gives, where the unit changes most often. */
    memcpy(&v, data, size < sizeof(v) ? size : sizeof(v));
    check_formatters(v);
    check_formatters(v % 100000000000ULL);
    free(s);
    return 0;
}
