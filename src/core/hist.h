/*
 * hist: a log-linear histogram of latencies in microseconds (the HdrHistogram
 * idea, written from scratch). Values 0 to HIST_MAX_VALUE_US (1 h) are kept at
 * 3 significant digits: 0..2047 exactly, above that 1024 linear sub-buckets per
 * power of two, so a reported value is within 1/2048 (0.05%) of the true one.
 * Memory is fixed whatever is recorded: HIST_BYTES (about 184 KiB) per
 * histogram. Pure data, no I/O, no locks: one thread owns a hist at a time.
 */
#ifndef BRINK_CORE_HIST_H
#define BRINK_CORE_HIST_H

#include <stddef.h>
#include <stdint.h>

#define HIST_MAX_VALUE_US 3600000000ULL /* 1 h; larger values are recorded as this */
#define HIST_SUB_BUCKETS 1024           /* linear sub-buckets per power of two */
#define HIST_EXACT_BELOW 2048           /* values below this have their own bucket */
#define HIST_BUCKETS 23552              /* 2048 + 21 octaves (2^11 .. 2^31) x 1024 */
#define HIST_BYTES (HIST_BUCKETS * 8 + 64)
/* hist_encode never needs more than this many bytes. */
#define HIST_ENCODED_MAX (16 + 3 * 10 + (size_t)HIST_BUCKETS * 14)

struct hist;

/* A new, empty histogram. Aborts through xcalloc when memory runs out. */
struct hist *hist_new(void);
/* Releases h; hist_free(NULL) is a no-op. */
void hist_free(struct hist *h);

/* Records one value (µs), or n equal values (n = 0 records nothing). Values
 * above HIST_MAX_VALUE_US are recorded as HIST_MAX_VALUE_US and counted by
 * hist_clamped(). */
void hist_record(struct hist *h, uint64_t value_us);
void hist_record_n(struct hist *h, uint64_t value_us, uint64_t n);

/*
 * Coarser buckets, for storage (record's histograms) and for values kept
 * only at that precision (the phases): 2^bits linear sub-buckets per power
 * of two, values below 2^(bits+1) exact. hist_coarse_index is v's bucket;
 * hist_coarse_low its lowest value, with *width its number of values;
 * hist_coarse_round the value a stored histogram gives back for v (its
 * bucket's midpoint), so recording it loses nothing when stored.
 */
size_t hist_coarse_index(uint64_t v, unsigned bits);
uint64_t hist_coarse_low(size_t i, unsigned bits, uint64_t *width);
uint64_t hist_coarse_round(uint64_t v, unsigned bits);

/* Adds every value of src to dst; afterwards dst equals a histogram that
 * recorded both streams. src is unchanged. */
void hist_merge(struct hist *dst, const struct hist *src);
/* Empties h, as hist_new would return it. */
void hist_reset(struct hist *h);
/* Copies src over dst. */
void hist_copy(struct hist *dst, const struct hist *src);

uint64_t hist_count(const struct hist *h);
/* Number of values that were above HIST_MAX_VALUE_US when recorded. */
uint64_t hist_clamped(const struct hist *h);
/* Exact smallest and largest value recorded; 0 when empty. */
uint64_t hist_min(const struct hist *h);
uint64_t hist_max(const struct hist *h);
/* Mean and standard deviation (population) in µs, from bucket midpoints; 0 when empty. */
double hist_mean(const struct hist *h);
double hist_stddev(const struct hist *h);
/*
 * The value at percentile pct (0..100, clamped): the value of rank
 * ceil(pct/100 * count) (at least 1) in sorted order, reported as the midpoint
 * of its bucket and clamped to [min, max]; p0 is the min, p100 the max.
 * 0 when empty.
 */
uint64_t hist_percentile(const struct hist *h, double pct);

/*
 * Walks the non-empty buckets in increasing order, for encoders that store a
 * histogram in another form: start with *cursor = 0 and call until it returns
 * 0. Each call that returns 1 gives a bucket holding count values between
 * low_us and low_us + width_us - 1, and moves *cursor past it.
 */
int hist_next_bucket(const struct hist *h, size_t *cursor, uint64_t *low_us, uint64_t *width_us,
                     uint64_t *count);

/*
 * Sparse encoding for ticks and session files: a version byte, the count,
 * min, max and clamped count, then (gap, count) pairs for the non-empty
 * buckets only, all as LEB128 varints. Writes at most cap bytes to buf and
 * returns the size of the whole encoding; when that is larger than cap the
 * buffer holds nothing usable (call again with a buffer of the returned size,
 * or HIST_ENCODED_MAX); buf may be NULL when cap is 0, to ask for the size.
 * An empty histogram encodes in 5 bytes. Equal histograms encode to equal
 * bytes.
 */
size_t hist_encode(const struct hist *h, unsigned char *buf, size_t cap);
/*
 * Replaces the content of h with the histogram encoded in buf[0..len).
 * Returns 0, or -EINVAL when the data is truncated, has an unknown version,
 * puts a bucket out of range, disagrees with its own count, min, max or
 * clamped count, has bytes after its end, or writes a varint in other than
 * its shortest form (h is then empty).
 */
int hist_decode(struct hist *h, const unsigned char *buf, size_t len);

#endif
