#include "core/hist.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/varint.h"
#include "core/xalloc.h"

/* First byte of every encoding; a decoder rejects any other. */
#define ENCODING_VERSION 1
/* A uint64_t takes at most 10 LEB128 bytes (7 bits each). */

struct hist {
    uint64_t count;                /* values recorded, clamped ones included */
    uint64_t min;                  /* exact; UINT64_MAX while empty */
    uint64_t max;                  /* exact; 0 while empty */
    uint64_t clamped;              /* values that were above HIST_MAX_VALUE_US */
    uint64_t counts[HIST_BUCKETS]; /* values per bucket, see bucket_of */
};

_Static_assert(sizeof(struct hist) <= HIST_BYTES, "HIST_BYTES must cover struct hist");
_Static_assert(HIST_SUB_BUCKETS == 1024 && HIST_EXACT_BELOW == 2 * HIST_SUB_BUCKETS,
               "bucket_of assumes 1024 sub-buckets (10 bits) and unit buckets below 2048");

/*
 * The bucket of v. With k the index of v's top bit and s = k - 10 (0 when v
 * has at most 11 bits), v >> s keeps v's top 11 bits, a number in 1024..2047
 * once v >= 1024, and the octave adds s * 1024. This is the layout of hist.h
 * (2048 + (k - 11) * 1024 + (v >> (k - 10)) - 1024) folded into one formula
 * that needs no branch: for v < 2048, s is 0 and the bucket is v itself. The
 * `| 1` keeps clz away from 0, whose result is undefined.
 */
static inline size_t bucket_of(uint64_t v)
{
    unsigned k = 63u - (unsigned)__builtin_clzll(v | 1);
    unsigned s = k > 10 ? k - 10 : 0;

    return ((size_t)s << 10) + (size_t)(v >> s);
}

/* Smallest value of bucket i, and its width: the inverse of bucket_of. */
static uint64_t bucket_low(size_t i, uint64_t *width)
{
    unsigned s;

    if (i < HIST_EXACT_BELOW) {
        *width = 1;
        return i;
    }
    s = (unsigned)(i >> 10) - 1;
    *width = (uint64_t)1 << s;
    return (uint64_t)(i - ((size_t)s << 10)) << s;
}

/* The value that stands for every value of bucket i; the half-width error it
 * makes is at most 1/2048 of the value, the precision promised by hist.h. */
static uint64_t bucket_mid(size_t i)
{
    uint64_t w;
    uint64_t lo = bucket_low(i, &w);

    return lo + (w - 1) / 2;
}

/* The same midpoint, exactly, for mean and stddev: an integer would be off by
 * half a unit in every bucket wider than one. */
static double bucket_mid_exact(size_t i)
{
    uint64_t w;
    uint64_t lo = bucket_low(i, &w);

    return (double)lo + (double)(w - 1) / 2.0;
}

struct hist *hist_new(void)
{
    struct hist *h = xcalloc(1, sizeof(*h));

    h->min = UINT64_MAX;
    return h;
}

void hist_free(struct hist *h)
{
    free(h);
}

/* The hot path: one clz, one shift, no division, no call. */
static inline void record(struct hist *h, uint64_t value_us, uint64_t n)
{
    if (value_us > HIST_MAX_VALUE_US) {
        value_us = HIST_MAX_VALUE_US;
        h->clamped += n;
    }
    h->counts[bucket_of(value_us)] += n;
    h->count += n;
    if (value_us < h->min)
        h->min = value_us;
    if (value_us > h->max)
        h->max = value_us;
}

void hist_record(struct hist *h, uint64_t value_us)
{
    record(h, value_us, 1);
}

void hist_record_n(struct hist *h, uint64_t value_us, uint64_t n)
{
    /* Zero values must not move min and max. */
    if (n > 0)
        record(h, value_us, n);
}

/*
 * Every non-empty bucket lies between the buckets of min and max, so scans
 * and clears stay within that range: a 1 s tick of a fast server touches a
 * few thousand buckets, not all of them.
 */
void hist_merge(struct hist *dst, const struct hist *src)
{
    if (src->count == 0)
        return;
    for (size_t i = bucket_of(src->min), hi = bucket_of(src->max); i <= hi; i++)
        dst->counts[i] += src->counts[i];
    dst->count += src->count;
    dst->clamped += src->clamped;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
}

void hist_reset(struct hist *h)
{
    if (h->count > 0) {
        size_t lo = bucket_of(h->min);
        size_t hi = bucket_of(h->max);

        memset(&h->counts[lo], 0, (hi - lo + 1) * sizeof(h->counts[0]));
    }
    h->count = 0;
    h->min = UINT64_MAX;
    h->max = 0;
    h->clamped = 0;
}

void hist_copy(struct hist *dst, const struct hist *src)
{
    if (dst == src)
        return;
    hist_reset(dst);
    hist_merge(dst, src);
}

uint64_t hist_count(const struct hist *h)
{
    return h->count;
}

uint64_t hist_clamped(const struct hist *h)
{
    return h->clamped;
}

uint64_t hist_min(const struct hist *h)
{
    return h->count ? h->min : 0;
}

uint64_t hist_max(const struct hist *h)
{
    return h->max;
}

double hist_mean(const struct hist *h)
{
    double sum = 0.0;

    if (h->count == 0)
        return 0.0;
    /* Most buckets of the range are empty: skipping them skips the
     * midpoint's arithmetic, and adds nothing less (0 * mid is 0). */
    for (size_t i = bucket_of(h->min), hi = bucket_of(h->max); i <= hi; i++) {
        if (h->counts[i])
            sum += (double)h->counts[i] * bucket_mid_exact(i);
    }
    return sum / (double)h->count;
}

/* Two passes (mean, then squared deviations) rather than E[x^2] - mean^2,
 * which cancels catastrophically when the spread is small next to the mean. */
double hist_stddev(const struct hist *h)
{
    double mean = hist_mean(h);
    double sum = 0.0;

    if (h->count == 0)
        return 0.0;
    for (size_t i = bucket_of(h->min), hi = bucket_of(h->max); i <= hi; i++) {
        double d;

        if (!h->counts[i])
            continue;
        d = bucket_mid_exact(i) - mean;
        sum += (double)h->counts[i] * d * d;
    }
    return sqrt(sum / (double)h->count);
}

/*
 * ceil(pct/100 * count), kept within 1..count. A percentile like 99.9 is not
 * exact in binary, so pct/100 * count lands a hair above an integer it should
 * equal (99.9% of 1000 would become rank 1000, not 999); a result within
 * rounding noise of an integer is taken as that integer before the ceiling.
 */
static uint64_t rank_of(double pct, uint64_t count)
{
    double x = pct / 100.0 * (double)count;
    double r = nearbyint(x);

    if (fabs(x - r) > 1e-12 * r)
        r = ceil(x);
    if (r < 1.0)
        return 1;
    if (r >= (double)count)
        return count;
    return (uint64_t)r;
}

/* The bucket holding the value of the given rank (1-based). High ranks are
 * found from the top, since p99 and above are the ones asked for most. */
static size_t bucket_of_rank(const struct hist *h, uint64_t rank)
{
    size_t lo = bucket_of(h->min);
    size_t hi = bucket_of(h->max);
    uint64_t seen = 0;

    if (rank <= h->count / 2) {
        for (size_t i = lo; i < hi; i++) {
            seen += h->counts[i];
            if (seen >= rank)
                return i;
        }
        return hi;
    }
    /* Counting values from the top: the bucket holds the rank once fewer
     * than count - rank + 1 values lie above its low end. */
    for (size_t i = hi; i > lo; i--) {
        seen += h->counts[i];
        if (seen > h->count - rank)
            return i;
    }
    return lo;
}

uint64_t hist_percentile(const struct hist *h, double pct)
{
    uint64_t v;

    if (h->count == 0)
        return 0;
    /* !(pct > 0) also catches NaN, which is below every percentile. */
    if (!(pct > 0.0))
        return h->min;
    if (pct >= 100.0)
        return h->max;
    v = bucket_mid(bucket_of_rank(h, rank_of(pct, h->count)));
    /* The extreme buckets may be only partly filled: min and max are exact. */
    if (v < h->min)
        return h->min;
    if (v > h->max)
        return h->max;
    return v;
}

int hist_next_bucket(const struct hist *h, size_t *cursor, uint64_t *low_us, uint64_t *width_us,
                     uint64_t *count)
{
    size_t i;
    size_t hi;

    if (h->count == 0)
        return 0;
    i = *cursor > bucket_of(h->min) ? *cursor : bucket_of(h->min);
    for (hi = bucket_of(h->max); i <= hi; i++) {
        if (h->counts[i] > 0) {
            *low_us = bucket_low(i, width_us);
            *count = h->counts[i];
            *cursor = i + 1;
            return 1;
        }
    }
    *cursor = i;
    return 0;
}

/* Output of the encoder: bytes past cap are counted but not written, so one
 * pass yields both the encoding and the size it needs. */
struct writer {
    unsigned char *buf;
    size_t cap;
    size_t len;
};

static void put_byte(struct writer *w, unsigned char b)
{
    if (w->len < w->cap)
        w->buf[w->len] = b;
    w->len++;
}

static void put_varint(struct writer *w, uint64_t v)
{
    w->len = varint_put(w->buf, w->cap, w->len, v);
}

size_t hist_encode(const struct hist *h, unsigned char *buf, size_t cap)
{
    struct writer w = {.buf = buf, .cap = cap, .len = 0};
    size_t next = 0; /* the first bucket a gap of 0 would point at */

    put_byte(&w, ENCODING_VERSION);
    put_varint(&w, h->count);
    put_varint(&w, hist_min(h));
    put_varint(&w, h->max);
    put_varint(&w, h->clamped);
    if (h->count == 0)
        return w.len;
    for (size_t i = bucket_of(h->min), hi = bucket_of(h->max); i <= hi; i++) {
        if (h->counts[i] == 0)
            continue;
        put_varint(&w, i - next);
        put_varint(&w, h->counts[i]);
        next = i + 1;
    }
    return w.len;
}

/* Reads one varint (see varint_get for what it refuses). */
static bool get_varint(struct varint_reader *r, uint64_t *out)
{
    return varint_get(r, out) == 0;
}

/* The header fields must agree with each other before any bucket is read. */
static bool header_is_valid(const struct hist *h)
{
    if (h->count == 0)
        return h->min == 0 && h->max == 0 && h->clamped == 0;
    if (h->min > h->max || h->max > HIST_MAX_VALUE_US || h->clamped > h->count)
        return false;
    if (h->count == 1 && h->min != h->max)
        return false;
    return h->clamped == 0 || h->max == HIST_MAX_VALUE_US;
}

/* Reads the (gap, count) pairs into h->counts until they add up to h->count.
 * The buckets must run from min's to max's, each holding at least one value. */
static bool read_buckets(struct varint_reader *r, struct hist *h)
{
    size_t first = bucket_of(h->min);
    size_t last = bucket_of(h->max);
    size_t next = 0;
    size_t i = 0;
    uint64_t sum = 0;

    while (sum < h->count) {
        uint64_t gap;
        uint64_t n;

        if (!get_varint(r, &gap) || !get_varint(r, &n))
            return false;
        /* next passes last once max's bucket is read: more pairs are then
         * out of range, not a wrap-around of last - next. */
        if (next > last || gap > last - next || n == 0 || n > h->count - sum)
            return false;
        i = next + (size_t)gap;
        if (sum == 0 && i != first)
            return false;
        h->counts[i] = n;
        sum += n;
        next = i + 1;
    }
    return i == last && h->counts[bucket_of(HIST_MAX_VALUE_US)] >= h->clamped;
}

int hist_decode(struct hist *h, const unsigned char *buf, size_t len)
{
    struct varint_reader r = {.buf = buf, .len = len, .pos = 1};

    hist_reset(h);
    if (len == 0 || buf[0] != ENCODING_VERSION)
        return -EINVAL;
    if (!get_varint(&r, &h->count) || !get_varint(&r, &h->min) || !get_varint(&r, &h->max) ||
        !get_varint(&r, &h->clamped) || !header_is_valid(h))
        goto out_empty;
    if (h->count == 0) {
        h->min = UINT64_MAX;
    } else if (!read_buckets(&r, h)) {
        goto out_empty;
    }
    if (r.pos != r.len)
        goto out_empty;
    return 0;

out_empty:
    /* The fields may hold anything read so far; reset clears only the
     * buckets between min and max, so clear them all. */
    memset(h, 0, sizeof(*h));
    h->min = UINT64_MAX;
    return -EINVAL;
}

size_t hist_coarse_index(uint64_t v, unsigned bits)
{
    unsigned k;

    if (v < (2u << bits))
        return (size_t)v;
    k = 63u - (unsigned)__builtin_clzll(v);
    return ((size_t)(k - bits) << bits) + (size_t)(v >> (k - bits));
}

uint64_t hist_coarse_low(size_t i, unsigned bits, uint64_t *width)
{
    unsigned s;

    if (i < (2u << bits)) {
        *width = 1;
        return i;
    }
    s = (unsigned)(i >> bits) - 1;
    *width = (uint64_t)1 << s;
    return (uint64_t)(i - ((size_t)s << bits)) << s;
}

uint64_t hist_coarse_round(uint64_t v, unsigned bits)
{
    uint64_t width, low;

    if (v > HIST_MAX_VALUE_US)
        return v;
    low = hist_coarse_low(hist_coarse_index(v, bits), bits, &width);
    return low + (width - 1) / 2;
}
