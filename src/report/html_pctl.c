/*
 * html_pctl: the latency distribution of a run's successes, as HdrHistogram
 * plots it: x the percentile p on a log scale of 1 / (1 - p) (0%, 90%, 99%,
 * 99.9%... equally spaced), y the latency at it, drawn from the run's whole
 * histogram, so every point is the figure the other formats report at that
 * percentile. One run, or several overlaid (compare). One thread at a time.
 */
#include "report/html_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "core/hist.h"
#include "core/xalloc.h"
#include "report/internal.h"

#define SAMPLES_PER_DECADE 20
#define DECADES_MIN 3 /* p99.9, marked, is always on the axis */
#define DECADES_MAX 6 /* p99.9999 */

/* The percentiles marked with a dot of their own, as the JSON report's
 * latency_us p50, p90, p99 and p999. */
static const double marked[] = {50.0, 90.0, 99.0, 99.9};

/* The decades a histogram of count values needs: past 1 / count, every
 * percentile is its max. */
static int decades(uint64_t count)
{
    int d = (int)ceil(log10((double)(count ? count : 1)));

    return d < DECADES_MIN ? DECADES_MIN : d > DECADES_MAX ? DECADES_MAX : d;
}

/* The percentile (0 .. 100) at x = log10(1 / (1 - p)). */
static double pct_at(double x)
{
    return 100.0 - 100.0 * pow(10.0, -x);
}

void html__chart_percentiles(FILE *out, const struct hist *const *h, const char *const *raw_labels,
                             size_t n)
{
    struct html_series *s = xcalloc(n, sizeof(*s));
    double *x, *y;
    unsigned char *has;
    struct html_chart c;
    int d = DECADES_MIN;
    size_t m;
    char attrs[96], v[REPORT_NUM_MAX];

    for (size_t k = 0; k < n; k++) {
        int dk = decades(hist_count(h[k]));

        d = dk > d ? dk : d;
    }
    m = (size_t)d * SAMPLES_PER_DECADE + 1;
    x = xcalloc(m, sizeof(*x));
    y = xcalloc(n * m, sizeof(*y));
    has = xcalloc(n * m, 1);
    for (size_t i = 0; i < m; i++)
        x[i] = (double)i / SAMPLES_PER_DECADE;
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < m; i++) {
            has[k * m + i] = hist_count(h[k]) > 0;
            y[k * m + i] = (double)hist_percentile(h[k], pct_at(x[i]));
        }
        s[k] = (struct html_series){.name = "latency",
                                    .label = raw_labels ? raw_labels[k] : NULL,
                                    .colour = raw_labels ? (int)(k % 16) : HTML_C_OK,
                                    .n = m,
                                    .x = x,
                                    .y = y + k * m,
                                    .has = has + k * m,
                                    .fmt = HTML_V_INT};
    }
    c = (struct html_chart){.out = out,
                            .id = "percentiles",
                            .title = "Latency distribution of successes",
                            .y_unit = "latency at each percentile, over the whole run",
                            .x_is_pctl = 1,
                            .x_hi = d,
                            .y_is_log = 1,
                            .y_is_duration = 1,
                            .n_points = m};
    html__chart_fit(&c, s, n, NAN);
    html__chart_open(&c, NULL);
    for (size_t k = 0; k < n; k++) {
        html__chart_series(&c, &s[k]);
        for (size_t j = 0; j < sizeof(marked) / sizeof(marked[0]) && hist_count(h[k]); j++) {
            uint64_t us = hist_percentile(h[k], marked[j]);

            snprintf(attrs, sizeof(attrs), "data-p=\"%s\" data-us=\"%" PRIu64 "\"",
                     report__fmt_g(marked[j], 6, v), us);
            html__chart_dot(&c, log10(100.0 / (100.0 - marked[j])), (double)us, s[k].colour, attrs,
                            s[k].label);
        }
    }
    html__chart_close(&c, s, n);
    free(x);
    free(y);
    free(has);
    free(s);
}
