/*
 * format_hlog: HdrHistogram's V2 encoding byte for byte against a layout
 * worked out by hand from HdrHistogram's rules, the counts of a histogram
 * read back through a decoder written here from those rules, and a log
 * line taken apart (base64, the compressed cookie, zlib) back to the same
 * encoding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "core/base64.h"
#include "core/hist.h"
#include "core/tick.h"
#include "report/formats.h"

#define ENC_CAP (40 + 23552 * 9)

static uint64_t get_be(const unsigned char *p, unsigned bytes)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < bytes; i++)
        v = v << 8 | p[i];
    return v;
}

/* The header HdrHistogram writes for brink's layout, with payload bytes. */
static void assert_header(const unsigned char *enc, uint32_t payload)
{
    assert_int_equal(get_be(enc, 4), 0x1c849313);
    assert_int_equal(get_be(enc + 4, 4), payload);
    assert_int_equal(get_be(enc + 8, 4), 0);                    /* normalizing offset */
    assert_int_equal(get_be(enc + 12, 4), 3);                   /* significant digits */
    assert_int_equal(get_be(enc + 16, 8), 1);                   /* lowest discernible */
    assert_int_equal(get_be(enc + 24, 8), 3600000000u);         /* highest trackable */
    assert_int_equal(get_be(enc + 32, 8), 0x3ff0000000000000u); /* 1.0 */
}

static void known_histogram_encodes_as_hdrhistogram_does(void **state)
{
    /* Counts: [0] 0, [1] 2, [2..4] 0, [5] 1, [6..2523] 0, then 3000 at
     * index 1024 + (3000 >> 1) = 2524 (bucket 1, sub-bucket 1500). ZigZag:
     * a single 0 is 0x00; 2 is 0x04; three zeros are -3, 0x05; 1 is 0x02;
     * 2518 zeros are -2518, zigzag 5035, LEB128 0xab 0x27; 1 is 0x02. */
    static const unsigned char payload[] = {0x00, 0x04, 0x05, 0x02, 0xab, 0x27, 0x02};
    struct hist *h = hist_new();
    unsigned char enc[64];
    size_t n;

    (void)state;
    hist_record_n(h, 1, 2);
    hist_record(h, 5);
    hist_record(h, 3000);
    n = format_hlog_encode(h, enc, sizeof(enc));
    assert_int_equal(n, 40 + sizeof(payload));
    assert_header(enc, sizeof(payload));
    assert_memory_equal(enc + 40, payload, sizeof(payload));
    hist_free(h);
}

static void empty_histogram_is_a_header_alone(void **state)
{
    struct hist *h = hist_new();
    unsigned char enc[64];

    (void)state;
    assert_int_equal(format_hlog_encode(h, enc, sizeof(enc)), 40);
    assert_header(enc, 0);
    hist_free(h);
}

static void short_buffer_gets_the_size(void **state)
{
    struct hist *h = hist_new();
    unsigned char enc[8];

    (void)state;
    hist_record(h, 3000);
    assert_int_equal(format_hlog_encode(h, NULL, 0), format_hlog_encode(h, enc, sizeof(enc)));
    assert_true(format_hlog_encode(h, NULL, 0) > sizeof(enc));
    hist_free(h);
}

/* HdrHistogram's value for counts index i, the lowest of its bucket:
 * below 2048 the index itself, above it bucket k = (i >> 10) - 1 and
 * sub-bucket (i & 1023) + 1024, the value sub-bucket << k. */
static uint64_t value_of_index(size_t i)
{
    if (i < 2048)
        return i;
    return (uint64_t)((i & 1023) + 1024) << ((i >> 10) - 1);
}

static void assert_buckets_equal(const struct hist *a, const struct hist *b)
{
    size_t ca = 0, cb = 0;
    uint64_t la, wa, na, lb, wb, nb;
    int more;

    while ((more = hist_next_bucket(a, &ca, &la, &wa, &na)) != 0) {
        assert_int_equal(hist_next_bucket(b, &cb, &lb, &wb, &nb), 1);
        assert_int_equal(la, lb);
        assert_int_equal(wa, wb);
        assert_int_equal(na, nb);
    }
    assert_int_equal(hist_next_bucket(b, &cb, &lb, &wb, &nb), 0);
}

/* Decodes a V2 payload as HdrHistogram's fillCountsArrayFromSourceBuffer
 * does and checks that every bucket holds h's count for it. */
static void assert_counts_match(const unsigned char *enc, size_t len, const struct hist *h)
{
    struct hist *back = hist_new();
    size_t pos = 40, index = 0;

    while (pos < len) {
        uint64_t z = 0;
        int64_t v;

        for (unsigned n = 0; n < 9; n++) {
            unsigned char b = enc[pos++];

            if (n == 8) {
                z |= (uint64_t)b << 56;
                break;
            }
            z |= (uint64_t)(b & 0x7f) << (7 * n);
            if (!(b & 0x80))
                break;
        }
        v = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
        if (v < 0) {
            index += (size_t)-v;
        } else {
            hist_record_n(back, value_of_index(index), (uint64_t)v);
            index++;
        }
    }
    assert_int_equal(pos, len);
    assert_true(index <= 23552);
    assert_int_equal(hist_count(back), hist_count(h));
    assert_buckets_equal(back, h);
    hist_free(back);
}

static void wide_histogram_reads_back(void **state)
{
    struct hist *h = hist_new();
    unsigned char *enc = malloc(ENC_CAP);
    size_t n;

    (void)state;
    for (uint64_t v = 1; v < 3600000000u; v = v * 3 / 2 + 1)
        hist_record_n(h, v, v % 7 + 1);
    hist_record(h, 3600000000u);              /* the top: index 21 * 1024 + 1716 */
    hist_record_n(h, 100, UINT64_C(1) << 57); /* a count that needs 9 bytes */
    n = format_hlog_encode(h, enc, ENC_CAP);
    assert_true(n <= ENC_CAP);
    assert_header(enc, (uint32_t)(n - 40));
    assert_counts_match(enc, n, h);
    free(enc);
    hist_free(h);
}

/* The histogram field of a log line back to its V2 encoding. */
static size_t unpack(const char *text, unsigned char *out, size_t cap)
{
    size_t len = strlen(text);
    unsigned char *raw = malloc(len);
    long n = base64_decode(text, len, raw, 0);
    uLongf out_len = (uLongf)cap;

    assert_true(n > 8);
    assert_int_equal(get_be(raw, 4), 0x1c849314);
    assert_int_equal(get_be(raw + 4, 4), (uint64_t)n - 8);
    assert_int_equal(uncompress(out, &out_len, raw + 8, (uLong)(n - 8)), Z_OK);
    free(raw);
    return (size_t)out_len;
}

static void log_line_holds_the_compressed_encoding(void **state)
{
    struct tick *t = tick_new(65536);
    struct hist *h = hist_new(), *failed = hist_new();
    unsigned char *want = malloc(ENC_CAP), *got = malloc(ENC_CAP);
    char *buf = NULL, *line, *field;
    size_t len = 0, n;
    FILE *out = open_memstream(&buf, &len);
    struct format_hlog *f = format_hlog_new(out);

    (void)state;
    for (uint64_t v = 50; v < 90000; v += 37)
        hist_record(h, v);
    hist_record_n(failed, 30000000, 3);
    t->start_us = 2000400; /* 2.0004 s: written as whole ms */
    t->duration_us = 999600;
    assert_int_equal(tick_put_hist(t, &t->total, h), 0);
    assert_int_equal(tick_put_hist(t, &t->failed, failed), 0);
    t->failed.completed = 3;
    assert_int_equal(format_hlog_start(f, 1700000000123u), 0);
    assert_int_equal(format_hlog_tick(f, t), 0);
    assert_int_equal(format_hlog_finish(f), 0);
    fclose(out);
    assert_non_null(strstr(buf, "#[Histogram log format version 1.3]\n"
                                "#[StartTime: 1700000000.123 (seconds since epoch), "
                                "2023-11-14T22:13:20Z]\n"
                                "#[BaseTime: 1700000000.123 (seconds since epoch)]\n"
                                "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
                                "\"Interval_Compressed_Histogram\"\n"));
    /* The successes: max 89997 µs is 89.997 ms. */
    line = strstr(buf, "\n2.000,1.000,");
    assert_non_null(line);
    assert_memory_equal(line + 1, "2.000,1.000,89.997,", 19);
    field = strchr(line + 1, '\n');
    *field = '\0';
    n = unpack(line + 20, got, ENC_CAP);
    assert_int_equal(n, format_hlog_encode(h, want, ENC_CAP));
    assert_memory_equal(got, want, n);
    /* The failures, tagged. */
    line = field + 1;
    assert_memory_equal(line, "Tag=failed,2.000,1.000,30000.000,", 33);
    *strchr(line, '\n') = '\0';
    n = unpack(line + 33, got, ENC_CAP);
    assert_int_equal(n, format_hlog_encode(failed, want, ENC_CAP));
    assert_memory_equal(got, want, n);
    format_hlog_free(f);
    free(buf);
    free(want);
    free(got);
    hist_free(h);
    hist_free(failed);
    tick_free(t);
}

static void tick_without_successes_logs_an_empty_histogram(void **state)
{
    struct tick *t = tick_new(1024);
    unsigned char got[64];
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    struct format_hlog *f = format_hlog_new(out);
    char *nl;

    (void)state;
    t->duration_us = 1000000;
    assert_int_equal(format_hlog_tick(f, t), 0);
    assert_int_equal(format_hlog_finish(f), 0);
    fclose(out);
    assert_memory_equal(buf, "0.000,1.000,0.000,", 18);
    nl = strchr(buf, '\n');
    assert_non_null(nl);
    assert_int_equal(nl[1], '\0'); /* no failed line */
    *nl = '\0';
    assert_int_equal(unpack(buf + 18, got, sizeof(got)), 40);
    assert_header(got, 0);
    format_hlog_free(f);
    free(buf);
    tick_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_histogram_encodes_as_hdrhistogram_does),
        cmocka_unit_test(empty_histogram_is_a_header_alone),
        cmocka_unit_test(short_buffer_gets_the_size),
        cmocka_unit_test(wide_histogram_reads_back),
        cmocka_unit_test(log_line_holds_the_compressed_encoding),
        cmocka_unit_test(tick_without_successes_logs_an_empty_histogram),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
