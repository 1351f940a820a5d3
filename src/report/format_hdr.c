/*
 * The latency distribution in HdrHistogram's percentile-distribution text
 * format, as AbstractHistogram.outputPercentileDistribution writes it with
 * percentileTicksPerHalfDistance 5 and outputValueUnitScalingRatio 1000
 * (values recorded in µs, printed in ms), so HdrHistogram's plotter and the
 * tools built on it read it. Our histogram has the layout of an HdrHistogram
 * of 3 significant digits (2048 sub-buckets, then one octave of 1024 per
 * bucket), so a bucket's highest equivalent value is its last value.
 * Every number is written with integer arithmetic, never %f, so the output
 * does not depend on LC_NUMERIC.
 */
#include "report/formats.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "core/hist.h"
#include "report/internal.h"

#define HDR_TICKS_PER_HALF_DISTANCE 5
#define HDR_BUCKETS (1 + (HIST_BUCKETS - HIST_EXACT_BELOW) / HIST_SUB_BUCKETS)

/* us as milliseconds with 3 decimals ("%.3f" of us / 1000.0), right-aligned in width. */
static void put_ms(FILE *out, int width, uint64_t us)
{
    char buf[REPORT_NUM_MAX];

    snprintf(buf, sizeof(buf), "%" PRIu64 ".%03" PRIu64, us / 1000, us % 1000);
    fprintf(out, "%*s", width, buf);
}

/* A fraction 0..1 with 12 decimals ("%2.12f"). */
static void put_fraction(FILE *out, double f)
{
    uint64_t n = report__round_u64(f * 1e12);

    fprintf(out, "%" PRIu64 ".%012" PRIu64, n / UINT64_C(1000000000000),
            n % UINT64_C(1000000000000));
}

/* The next percentile to report after pct, as HdrHistogram's
 * PercentileIterator steps: 5 ticks per halving of the distance to 100. */
static double next_percentile(double pct)
{
    double halvings = floor(log2(100.0 / (100.0 - pct)));
    double ticks = HDR_TICKS_PER_HALF_DISTANCE * pow(2.0, halvings + 1.0);

    return pct + 100.0 / ticks;
}

static void put_row(FILE *out, uint64_t value_us, double pct, uint64_t total_to_here)
{
    char inv[REPORT_NUM_MAX];

    put_ms(out, 12, value_us);
    fputc(' ', out);
    put_fraction(out, pct / 100.0);
    fprintf(out, " %10" PRIu64, total_to_here);
    if (pct < 100.0)
        fprintf(out, " %14s", report__fmt_fixed(1.0 / (1.0 - pct / 100.0), 2, inv));
    fputc('\n', out);
}

/* The rows: walks the buckets once; a bucket may give several rows. */
static void put_rows(FILE *out, const struct hist *h)
{
    uint64_t total = hist_count(h), so_far = 0, low, width, count, last_value = 0;
    size_t cursor = 0;
    double pct = 0.0;

    while (so_far < total && hist_next_bucket(h, &cursor, &low, &width, &count)) {
        uint64_t high = low + width - 1;

        so_far += count;
        last_value = high > hist_max(h) ? hist_max(h) : high;
        while (100.0 * (double)so_far / (double)total >= pct && pct < 100.0) {
            put_row(out, last_value, pct, so_far);
            if (so_far == total)
                break;
            pct = next_percentile(pct);
        }
    }
    if (total > 0)
        put_row(out, last_value, 100.0, total);
}

int format_hdr(const struct hist *h, FILE *out)
{
    fprintf(out, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount",
            "1/(1-Percentile)");
    put_rows(out, h);
    fputs("#[Mean    = ", out);
    put_ms(out, 12, report__round_u64(hist_mean(h)));
    fputs(", StdDeviation   = ", out);
    put_ms(out, 12, report__round_u64(hist_stddev(h)));
    fputs("]\n#[Max     = ", out);
    put_ms(out, 12, hist_max(h));
    fprintf(out, ", Total count    = %12" PRIu64 "]\n", hist_count(h));
    fprintf(out, "#[Buckets = %12d, SubBuckets     = %12d]\n", HDR_BUCKETS, HIST_EXACT_BELOW);
    return report__finish(out);
}
