/*
 * HdrHistogram's interval log (log format 1.3), as HistogramLogWriter
 * writes it, so that HistogramLogProcessor and the tools built on
 * HistogramLogReader read a session's ticks: one line per tick, its
 * histogram in HdrHistogram's V2 encoding, compressed with zlib and written
 * in base64.
 *
 * The V2 encoding is a 40-byte header (big-endian: cookie, payload length,
 * normalizing index offset, significant digits, lowest discernible value,
 * highest trackable value, integer-to-double ratio) and the counts array
 * from index 0 to the highest value's, each count a ZigZag LEB128 number
 * (at most 9 bytes, the ninth holding 8 bits), a run of n > 1 empty counts
 * written as -n. Compressed, it is a cookie, the length of the zlib stream,
 * and the stream.
 *
 * brink's histogram has the layout of an HdrHistogram of 3 significant
 * digits with a lowest discernible value of 1 (2048 values exact, then 1024
 * sub-buckets per power of two), so each bucket brink walks is exactly one
 * of HdrHistogram's and its counts index follows from its lowest value.
 */
#include "report/formats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

#include "core/base64.h"
#include "core/hist.h"
#include "core/tick.h"
#include "core/xalloc.h"
#include "report/internal.h"

#define HLOG_COOKIE_V2 0x1c849313            /* V2 encoding base | 0x10 */
#define HLOG_COOKIE_V2_COMPRESSED 0x1c849314 /* V2 compressed base | 0x10 */
#define HLOG_HEADER_BYTES 40
#define HLOG_SIG_DIGITS 3
#define HLOG_SUB_HALF_BITS 10 /* log2 of HdrHistogram's subBucketHalfCount (1024) */
#define HLOG_ZIGZAG_MAX 9
#define HLOG_ENCODED_MAX (HLOG_HEADER_BYTES + (size_t)HIST_BUCKETS * HLOG_ZIGZAG_MAX)

struct format_hlog {
    FILE *out;
    struct hist *h;        /* scratch: the tick's histogram */
    unsigned char *enc;    /* scratch: its V2 encoding (HLOG_ENCODED_MAX) */
    unsigned char *packed; /* scratch: compressed (8 + compressBound) */
    size_t packed_cap;
};

/* HdrHistogram's counts index of v (countsArrayIndex with unit magnitude 0
 * and 2048 sub-buckets). */
static size_t hdr_index(uint64_t v)
{
    unsigned bucket = 0;

    while ((v >> bucket) >= 2 * (UINT64_C(1) << HLOG_SUB_HALF_BITS))
        bucket++;
    if (bucket == 0)
        return (size_t)v;
    return ((size_t)bucket << HLOG_SUB_HALF_BITS) + (size_t)(v >> bucket);
}

static size_t put_be(unsigned char *buf, size_t cap, size_t len, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++, len++) {
        if (len < cap)
            buf[len] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
    }
    return len;
}

/* HdrHistogram's ZigZagEncoding.putLong: 7 bits a byte for 8 bytes, then
 * the last 8 bits whole. */
static size_t put_zigzag(unsigned char *buf, size_t cap, size_t len, int64_t v)
{
    uint64_t z = v < 0 ? ((uint64_t) - (v + 1) << 1) | 1 : (uint64_t)v << 1;

    for (unsigned n = 0; n < HLOG_ZIGZAG_MAX; n++, len++) {
        unsigned char b;

        if (n == HLOG_ZIGZAG_MAX - 1) {
            b = (unsigned char)z;
        } else {
            b = (unsigned char)(z & 0x7f);
            z >>= 7;
            if (z)
                b |= 0x80;
        }
        if (len < cap)
            buf[len] = b;
        if (!(b & 0x80) || n == HLOG_ZIGZAG_MAX - 1)
            return len + 1;
    }
    return len;
}

/* The counts from *next up to index i - 1 were empty: writes them. */
static size_t put_zeros(unsigned char *buf, size_t cap, size_t len, size_t *next, size_t i)
{
    size_t zeros = i - *next;

    if (zeros == 1)
        len = put_zigzag(buf, cap, len, 0);
    else if (zeros > 1)
        len = put_zigzag(buf, cap, len, -(int64_t)zeros);
    *next = i;
    return len;
}

size_t format_hlog_encode(const struct hist *h, unsigned char *buf, size_t cap)
{
    size_t cursor = 0, next = 0, len = HLOG_HEADER_BYTES, payload;
    uint64_t low, width, count;

    while (hist_next_bucket(h, &cursor, &low, &width, &count)) {
        size_t i = hdr_index(low);

        len = put_zeros(buf, cap, len, &next, i);
        /* Counts above 2^63 - 1 do not fit HdrHistogram's long. */
        len = put_zigzag(buf, cap, len, count > INT64_MAX ? INT64_MAX : (int64_t)count);
        next = i + 1;
    }
    payload = len - HLOG_HEADER_BYTES;
    len = put_be(buf, cap, 0, HLOG_COOKIE_V2, 4);
    len = put_be(buf, cap, len, payload, 4);
    len = put_be(buf, cap, len, 0, 4); /* normalizing index offset */
    len = put_be(buf, cap, len, HLOG_SIG_DIGITS, 4);
    len = put_be(buf, cap, len, 1, 8); /* lowest discernible value: 1 µs */
    len = put_be(buf, cap, len, HIST_MAX_VALUE_US, 8);
    len = put_be(buf, cap, len, UINT64_C(0x3ff0000000000000), 8); /* 1.0 */
    return len + payload;
}

struct format_hlog *format_hlog_new(FILE *out)
{
    struct format_hlog *f = xcalloc(1, sizeof(*f));

    f->out = out;
    f->h = hist_new();
    f->enc = xmalloc(HLOG_ENCODED_MAX);
    f->packed_cap = 8 + compressBound(HLOG_ENCODED_MAX);
    f->packed = xmalloc(f->packed_cap);
    return f;
}

void format_hlog_free(struct format_hlog *f)
{
    if (!f)
        return;
    hist_free(f->h);
    free(f->enc);
    free(f->packed);
    free(f);
}

/* ms since the epoch as "seconds.mmm". */
static void put_seconds(FILE *out, uint64_t ms)
{
    fprintf(out, "%" PRIu64 ".%03" PRIu64, ms / 1000, ms % 1000);
}

int format_hlog_start(struct format_hlog *f, uint64_t start_wall_ms)
{
    time_t s = (time_t)(start_wall_ms / 1000);
    struct tm tm;
    char when[32] = "";

    if (gmtime_r(&s, &tm))
        strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    fputs("#[brink session: latencies of successful requests in microseconds, "
          "Tag=failed for failed requests]\n",
          f->out);
    fputs("#[Histogram log format version 1.3]\n#[StartTime: ", f->out);
    put_seconds(f->out, start_wall_ms);
    fprintf(f->out, " (seconds since epoch), %s]\n#[BaseTime: ", when);
    put_seconds(f->out, start_wall_ms);
    fputs(" (seconds since epoch)]\n"
          "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
          "\"Interval_Compressed_Histogram\"\n",
          f->out);
    return ferror(f->out) ? -EIO : 0;
}

/* One line: tag (or NULL), start and length from t, the histogram in f->h. */
static int put_line(struct format_hlog *f, const char *tag, const struct tick *t)
{
    size_t len = format_hlog_encode(f->h, f->enc, HLOG_ENCODED_MAX);
    uLongf zlen = (uLongf)(f->packed_cap - 8);
    uint64_t max_us = hist_max(f->h);
    char *text;

    if (compress(f->packed + 8, &zlen, f->enc, (uLong)len) != Z_OK)
        return -ENOMEM;
    put_be(f->packed, 8, 0, HLOG_COOKIE_V2_COMPRESSED, 4);
    put_be(f->packed, 8, 4, zlen, 4);
    text = base64_encode_new(f->packed, 8 + (size_t)zlen);
    if (tag)
        fprintf(f->out, "Tag=%s,", tag);
    put_seconds(f->out, (t->start_us + 500) / 1000);
    fputc(',', f->out);
    put_seconds(f->out, (t->duration_us + 500) / 1000);
    /* Interval_Max in ms, as HdrHistogram's loggers write it. */
    fprintf(f->out, ",%" PRIu64 ".%03" PRIu64 ",%s\n", max_us / 1000, max_us % 1000, text);
    free(text);
    return ferror(f->out) ? -EIO : 0;
}

int format_hlog_tick(struct format_hlog *f, const struct tick *t)
{
    int rc;

    /* An interval without successes is an empty histogram, as
     * HdrHistogram's recorders log one. */
    if (tick_get_hist(t, &t->total, f->h) != 0)
        hist_reset(f->h);
    rc = put_line(f, NULL, t);
    if (rc == 0 && t->failed.completed > 0 && tick_get_hist(t, &t->failed, f->h) == 0)
        rc = put_line(f, "failed", t);
    return rc;
}

int format_hlog_finish(struct format_hlog *f)
{
    return report__finish(f->out);
}
