/*
 * usl: Gunther's Universal Scalability Law fitted to a closed-model
 * staircase. X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1)): lambda
 * is the throughput of one user, sigma the contention (the share of the work
 * that is serialised: Amdahl's law), kappa the coherency (the cost each
 * user adds to every other: what bends throughput down past a peak).
 *
 * The fit is least squares on the throughputs (successes per second) with
 * the bounds 0 <= sigma <= 1 and kappa >= 0: for given sigma and kappa the
 * best lambda has a closed form (X is linear in it), so only the two shape
 * parameters are searched, a grid first (sigma by 0.01, kappa by tenths of
 * a decade from 1e-8 to 1) and then a compass search from the grid's best,
 * which cannot wander out of the bounds nor stall on a flat valley as
 * Gauss-Newton can on the linearised form. A simpler law is kept when the
 * full one does not fit significantly better (an F test on the residuals of
 * the nested models, F < 4), or when the staircase never went where the
 * full law's terms show (a peak past 1.5 times the highest level, contention
 * under 5% of linear throughput there): kappa 0 (no peak: Amdahl, a
 * ceiling lambda / sigma), and then sigma 0 too (linear).
 *
 * One step far off the law that the others follow (a pause of the client
 * or the server during it, a neighbour's burst) would pull the whole fit:
 * each step but the lowest and highest levels (which hold lambda and the
 * bend) is left out in turn and the law fitted to the others; the step
 * farthest off the law they fit, if it is more than 15% off and more than
 * 5 times as far as their median, is left out (one at most; with 6 to
 * USL_LOO_MAX steps).
 *
 * Pure computation: no I/O, no allocation, thread-safe.
 */
#ifndef BRINK_CORE_USL_H
#define BRINK_CORE_USL_H

#include <stddef.h>

#define USL_MIN_LEVELS 4 /* distinct levels the fit needs */
#define USL_TEXT_MAX 200 /* usl_format's line, with its NUL */
#define USL_LOO_MAX 16   /* with more points than this, none is left out */

/* One step of the staircase. */
struct usl_point {
    double users;      /* concurrency held (> 0) */
    double throughput; /* successes per second (> 0 to count) */
    int failed;        /* the step failed its plan's conditions */
};

struct usl_fit {
    double lambda;          /* throughput of one user, per second */
    double sigma;           /* contention, 0 to 1 */
    double kappa;           /* coherency, >= 0 */
    double r2;              /* coefficient of determination of the throughputs */
    size_t steps;           /* points used */
    int has_peak;           /* kappa > 0: throughput falls past peak_users */
    double peak_users;      /* N* = sqrt((1 - sigma) / kappa), when has_peak */
    double peak_throughput; /* X(N*), when has_peak */
    int has_ceiling;        /* no peak, sigma > 0: throughput tends to ceiling */
    double ceiling;         /* lambda / sigma, when has_ceiling */
    int left_out;           /* a step far off the law the others follow was left out */
    double left_out_users;  /* its level */
};

/*
 * Fits the law to the n points (borrowed). Points with no users or no
 * throughput are left out. 0 and *fit, or -1 with why (one line, no
 * "brink:" prefix) when the points cannot support a fit: fewer than
 * USL_MIN_LEVELS distinct levels, only failed steps, or levels without
 * spread (the highest under twice the lowest).
 */
int usl_fit(const struct usl_point *pts, size_t n, struct usl_fit *fit, char *why, size_t len);

/* The fitted throughput at users. */
double usl_throughput(const struct usl_fit *fit, double users);

/* The fit in one line (ASCII, C-locale numbers), for events and reports:
 * "USL fit: sigma 0.0512, kappa 0.00098, lambda 198 req/s (r2 0.998, 8 steps):
 * peak c=31 at 2880 req/s" (lambda: one user's throughput); past the colon
 * "no peak (kappa 0): ceiling 3870 req/s" or "linear, no ceiling"; a step
 * left out is named after the steps ("8 steps, c=32 out"). About 120
 * characters at most, so an event has room for more. buf holds
 * USL_TEXT_MAX. */
char *usl_format(const struct usl_fit *fit, char *buf, size_t len);

/* The reason in one line, usl_fit's why prefixed: "USL fit: none: ...". */
char *usl_format_refused(const char *why, char *buf, size_t len);

#endif
