/*
 * Stored histograms: a histogram re-bucketed at storage precision (2^b
 * linear sub-buckets per power of two, values below 2^(b+1) µs exact: within
 * 1/2^(b+1) of the true value), then encoded in LEB128 varints: a version
 * byte, which says b (RECH_VERSION: 64 sub-buckets, for latencies;
 * RECH_VERSION_COARSE: 16, for phases), count, min, max and clamped, then
 * the buckets from min's to max's, each as its count, except that a run of n
 * empty buckets is a 0 followed by n - 1. Most buckets of a busy tick hold a
 * few values, so most take one byte. The bytes are written in base64. Count,
 * min, max and clamped stay exact. A busy tick's full-precision hist_encode
 * is about 12 KB; this is a few hundred bytes.
 */
#include "record/internal.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/base64.h"
#include "core/hist.h"
#include "core/varint.h"
#include "core/xalloc.h"

/* The sub-bucket bits a version byte stands for; 0 for an unknown one. */
static unsigned bits_of_version(unsigned char version)
{
    switch (version) {
    case RECH_VERSION: return RECH_SUB_BITS;
    case RECH_VERSION_COARSE: return RECH_COARSE_SUB_BITS;
    default: return 0;
    }
}

struct bytes {
    unsigned char *buf;
    size_t len;
    size_t cap;
};

static void put_byte(struct bytes *b, unsigned char c)
{
    if (b->len == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        b->buf = xrealloc(b->buf, b->cap);
    }
    b->buf[b->len++] = c;
}

static void put_varint(struct bytes *b, uint64_t v)
{
    while (b->len + VARINT_MAX_BYTES > b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        b->buf = xrealloc(b->buf, b->cap);
    }
    b->len = varint_put(b->buf, b->cap, b->len, v);
}

/* Emits the bucket at index i holding n values, after the one at *cur. */
static void put_bucket(struct bytes *b, size_t *cur, size_t i, uint64_t n)
{
    if (*cur != SIZE_MAX && i > *cur + 1) {
        put_varint(b, 0);
        put_varint(b, i - *cur - 2);
    }
    put_varint(b, n);
    *cur = i;
}

char *record__hist_pack(const struct hist *h, unsigned char version)
{
    struct bytes b = {0};
    size_t cursor = 0, cur = SIZE_MAX, acc_i = 0;
    uint64_t low, width, n, acc = 0;
    unsigned bits = bits_of_version(version);
    char *text;

    assert(bits > 0);
    put_byte(&b, version);
    put_varint(&b, hist_count(h));
    put_varint(&b, hist_min(h));
    put_varint(&b, hist_max(h));
    put_varint(&b, hist_clamped(h));
    /* Full-precision buckets nest inside storage buckets (both split the
     * same powers of two), so each lands in exactly one. */
    while (hist_next_bucket(h, &cursor, &low, &width, &n)) {
        size_t i = hist_coarse_index(low, bits);

        if (acc > 0 && i != acc_i) {
            put_bucket(&b, &cur, acc_i, acc);
            acc = 0;
        }
        acc_i = i;
        acc += n;
    }
    if (acc > 0)
        put_bucket(&b, &cur, acc_i, acc);
    text = base64_encode_new(b.buf, b.len);
    free(b.buf);
    return text;
}

struct head {
    uint64_t count, min, max, clamped;
};

static int head_is_valid(const struct head *hd)
{
    if (hd->count == 0)
        return hd->min == 0 && hd->max == 0 && hd->clamped == 0;
    if (hd->min > hd->max || hd->max > HIST_MAX_VALUE_US || hd->clamped > hd->count)
        return 0;
    if (hd->count == 1 && hd->min != hd->max)
        return 0;
    return hd->clamped == 0 || hd->max == HIST_MAX_VALUE_US;
}

/*
 * Records the n values of storage bucket i: the exact min in the first
 * bucket, the exact max (or the clamped values) in the last, the others at
 * the bucket's middle. Returns -1 when n cannot hold those exact values.
 */
static int rebuild_bucket(struct hist *h, const struct head *hd, unsigned bits, size_t i,
                          uint64_t n)
{
    uint64_t width, low = hist_coarse_low(i, bits, &width), mid = low + (width - 1) / 2;
    int is_first = hist_count(h) == 0, is_last = hist_count(h) + n == hd->count;

    if (mid < hd->min)
        mid = hd->min;
    if (mid > hd->max)
        mid = hd->max;
    if (is_last && hd->clamped > 0) {
        if (n < hd->clamped)
            return -1;
        hist_record_n(h, HIST_MAX_VALUE_US + 1, hd->clamped);
        n -= hd->clamped;
    }
    if (is_first && !(hd->clamped > 0 && hd->min == HIST_MAX_VALUE_US)) {
        if (n < 1)
            return -1;
        hist_record(h, hd->min);
        n--;
    }
    if (is_last && hd->clamped == 0 && hd->count >= 2) {
        if (n < 1)
            return -1;
        hist_record(h, hd->max);
        n--;
    }
    hist_record_n(h, mid, n);
    return 0;
}

static int unpack_bytes(struct hist *h, struct varint_reader *r)
{
    struct head hd;
    size_t i, last;
    uint64_t sum = 0;
    unsigned bits = r->len > 0 ? bits_of_version(r->buf[0]) : 0;

    if (bits == 0)
        return -1;
    /* The storage bucket of HIST_MAX_VALUE_US (2^31 <= it < 2^32). */
    last = hist_coarse_index(HIST_MAX_VALUE_US, bits);
    r->pos = 1;
    if (varint_get(r, &hd.count) || varint_get(r, &hd.min) || varint_get(r, &hd.max) ||
        varint_get(r, &hd.clamped) || !head_is_valid(&hd))
        return -1;
    i = hist_coarse_index(hd.min, bits);
    while (sum < hd.count) {
        uint64_t n, skip;

        if (varint_get(r, &n))
            return -1;
        if (n == 0) {
            /* A run of empty buckets never starts or ends the range. */
            if (sum == 0 || i > last || varint_get(r, &skip) || skip > last - i ||
                varint_get(r, &n) || n == 0)
                return -1;
            i += (size_t)skip + 1;
        }
        if (i > last || n > hd.count - sum)
            return -1;
        if (sum + n == hd.count && i != hist_coarse_index(hd.max, bits))
            return -1;
        if (rebuild_bucket(h, &hd, bits, i, n) != 0)
            return -1;
        sum += n;
        i++;
    }
    if (r->pos != r->len)
        return -1;
    return hist_min(h) == hd.min && hist_max(h) == hd.max && hist_clamped(h) == hd.clamped ? 0 : -1;
}

int record__hist_unpack(struct hist *h, const char *text, size_t len)
{
    struct varint_reader r = {0};
    unsigned char *buf;
    long n;
    int rc = -EINVAL;

    hist_reset(h);
    if (len > RECORD_B64_MAX)
        return -EINVAL;
    buf = xmalloc(len / 4 * 3 + 3);
    n = base64_decode(text, len, buf, 0);
    if (n >= 0) {
        r.buf = buf;
        r.len = (size_t)n;
        if (unpack_bytes(h, &r) == 0)
            rc = 0;
    }
    free(buf);
    if (rc != 0)
        hist_reset(h);
    return rc;
}
