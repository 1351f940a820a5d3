/*
 * The Universal Scalability Law fitted by a bounded search over its two
 * shape parameters, lambda solved in closed form for each (see usl.h for
 * why this and not Gauss-Newton).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/usl.h"

#define SIGMA_GRID 100  /* sigma from 0 to 1 by 1/SIGMA_GRID */
#define KAPPA_DECADES 8 /* kappa from 1e-8 to 1 ... */
#define KAPPA_PER_DECADE 10
#define F_SIGNIFICANT 4.0 /* a nested law is kept unless F reaches this */
#define SEARCH_ROUNDS 400
#define OUTLIER_MIN 0.15 /* a step off the law by more than this share ... */
#define OUTLIER_MADS 5.0 /* ... and this many times the median step's is left out */
#define REACH 1.5        /* a peak past 1.5 x the highest level is not seen */
#define MIN_TERM 0.05    /* contention under 5% of linear at the top is not seen */

/* The points kept, and which parameters are free. */
struct problem {
    const struct usl_point *pts;
    size_t n;
    int free_sigma, free_kappa;
};

static int usable(const struct usl_point *p)
{
    return isfinite(p->users) && isfinite(p->throughput) && p->users > 0 && p->throughput > 0;
}

/* The law's shape at users, lambda 1. */
static double shape(double sigma, double kappa, double users)
{
    return users / (1.0 + sigma * (users - 1.0) + kappa * users * (users - 1.0));
}

/* The sum of squared residuals at (sigma, kappa), lambda at its best
 * (returned in *lambda). */
static double sse(const struct problem *pb, double sigma, double kappa, double *lambda)
{
    double xg = 0, gg = 0, s = 0, l;

    for (size_t i = 0; i < pb->n; i++) {
        double g;

        if (!usable(&pb->pts[i]))
            continue;
        g = shape(sigma, kappa, pb->pts[i].users);
        xg += pb->pts[i].throughput * g;
        gg += g * g;
    }
    l = gg > 0 ? xg / gg : 0;
    for (size_t i = 0; i < pb->n; i++) {
        double r;

        if (!usable(&pb->pts[i]))
            continue;
        r = pb->pts[i].throughput - l * shape(sigma, kappa, pb->pts[i].users);
        s += r * r;
    }
    if (lambda)
        *lambda = l;
    return s;
}

static double clamp_sigma(double s)
{
    return s < 0 ? 0 : s > 1 ? 1 : s;
}

/* The grid's best point. */
static void grid(const struct problem *pb, double *sigma, double *kappa, double *best)
{
    int ns = pb->free_sigma ? SIGMA_GRID : 0;
    int nk = pb->free_kappa ? KAPPA_DECADES * KAPPA_PER_DECADE + 1 : 0;

    *best = INFINITY;
    for (int i = 0; i <= ns; i++) {
        for (int j = 0; j <= nk; j++) {
            double s = (double)i / SIGMA_GRID;
            double k = j == 0 ? 0 : pow(10.0, -KAPPA_DECADES + (double)(j - 1) / KAPPA_PER_DECADE);
            double e = sse(pb, s, k, NULL);

            if (e < *best) {
                *best = e;
                *sigma = s;
                *kappa = k;
            }
        }
    }
}

/* A compass search from (*sigma, *kappa): a step along each free axis that
 * lowers the residuals is taken, else the steps halve. kappa's step is
 * relative to kappa (it spans decades), with a floor for kappa 0. */
static double refine(const struct problem *pb, double *sigma, double *kappa, double best)
{
    double hs = 0.5 / SIGMA_GRID, hk = *kappa > 0 ? *kappa * 0.15 : 1e-8;

    for (int round = 0; round < SEARCH_ROUNDS && (hs > 1e-9 || hk > *kappa * 1e-9 + 1e-15);
         round++) {
        double cand[4][2] = {{*sigma + hs, *kappa},
                             {*sigma - hs, *kappa},
                             {*sigma, *kappa + hk},
                             {*sigma, *kappa - hk}};
        int moved = 0;

        for (int c = 0; c < 4; c++) {
            double s = clamp_sigma(cand[c][0]), k = cand[c][1] < 0 ? 0 : cand[c][1], e;

            if ((c < 2 && !pb->free_sigma) || (c >= 2 && !pb->free_kappa))
                continue;
            e = sse(pb, s, k, NULL);
            if (e < best) {
                best = e;
                *sigma = s;
                *kappa = k;
                moved = 1;
            }
        }
        if (!moved) {
            hs /= 2;
            hk /= 2;
        }
    }
    return best;
}

/* The least squares of the law with the parameters pb leaves free. */
static double solve(const struct problem *pb, double *sigma, double *kappa)
{
    double best;

    *sigma = 0;
    *kappa = 0;
    grid(pb, sigma, kappa, &best);
    return refine(pb, sigma, kappa, best);
}

/* Whether the restricted law's residuals (one parameter fewer) are not
 * significantly worse than the full one's, with dof residual degrees of
 * freedom left to the full law. */
static int not_worse(double restricted, double full, size_t dof, double scale)
{
    return restricted <= full * (1.0 + F_SIGNIFICANT / (double)dof) + 1e-12 * scale;
}

/* Why the points cannot support a fit, or NULL. */
static const char *refusal(const struct usl_point *pts, size_t n, size_t *used, char *why,
                           size_t len)
{
    double levels[USL_MIN_LEVELS], lo = INFINITY, hi = 0;
    size_t n_levels = 0, passed = 0;

    *used = 0;
    for (size_t i = 0; i < n; i++) {
        const struct usl_point *p = &pts[i];
        size_t j;

        if (!usable(p))
            continue;
        ++*used;
        passed += !p->failed;
        lo = fmin(lo, p->users);
        hi = fmax(hi, p->users);
        for (j = 0; j < n_levels && levels[j] != p->users; j++)
            ;
        if (j == n_levels && n_levels < USL_MIN_LEVELS)
            levels[n_levels++] = p->users;
    }
    if (*used > 0 && passed == 0) {
        snprintf(why, len, "only failed steps (%zu): the fit needs steps that passed", *used);
        return why;
    }
    if (n_levels < USL_MIN_LEVELS) {
        snprintf(why, len,
                 "%zu level%s with successes: the fit needs %d levels, from 1 user up to well "
                 "past the knee",
                 n_levels, n_levels == 1 ? "" : "s", USL_MIN_LEVELS);
        return why;
    }
    if (hi < 2 * lo) {
        snprintf(why, len,
                 "no spread: levels c=%g to c=%g, the fit needs the highest at least "
                 "twice the lowest",
                 lo, hi);
        return why;
    }
    return NULL;
}

static double r_squared(const struct usl_point *pts, size_t n, double residuals)
{
    double mean = 0, tot = 0;
    size_t m = 0;

    for (size_t i = 0; i < n; i++) {
        if (usable(&pts[i])) {
            mean += pts[i].throughput;
            m++;
        }
    }
    mean /= (double)m;
    for (size_t i = 0; i < n; i++) {
        if (usable(&pts[i]))
            tot += (pts[i].throughput - mean) * (pts[i].throughput - mean);
    }
    if (tot <= 0)
        return residuals <= 0 ? 1.0 : 0.0;
    return 1.0 - residuals / tot;
}

/* The highest level of the usable points. */
static double top_level(const struct usl_point *pts, size_t n)
{
    double hi = 0;

    for (size_t i = 0; i < n; i++)
        hi = usable(&pts[i]) ? fmax(hi, pts[i].users) : hi;
    return hi;
}

/* Whether coherency kappa (with sigma) shows in a staircase up to top: its
 * peak within REACH x top. Past that the staircase never went where it
 * bends, and a small kappa is contention and noise traded against it. */
static int kappa_shows(double sigma, double kappa, double top)
{
    return kappa > 0 && sqrt((1.0 - sigma) / kappa) <= REACH * top;
}

/* Whether contention sigma shows up to top: it takes at least MIN_TERM of
 * linear scaling's throughput there. */
static int sigma_shows(double sigma, double top)
{
    return sigma * (top - 1.0) >= MIN_TERM;
}

static int fit_law(const struct usl_point *pts, size_t n, struct usl_fit *fit, char *why,
                   size_t len)
{
    struct problem full = {pts, n, 1, 1}, amdahl = {pts, n, 1, 0}, linear = {pts, n, 0, 0},
                   coherent = {pts, n, 0, 1};
    double s, k, e_full, e_amdahl, s_a, k_a, e_lin, s_l, k_l, e_coh, s_c, k_c, scale, top;
    size_t used, dof;

    if (refusal(pts, n, &used, why, len))
        return -1;
    dof = used > 3 ? used - 3 : 1;
    top = top_level(pts, n);
    e_full = solve(&full, &s, &k);
    scale = 0;
    for (size_t i = 0; i < n; i++)
        scale += usable(&pts[i]) ? pts[i].throughput * pts[i].throughput : 0;
    /* The simplest law the points do not reject: no coherency, then no
     * contention either; or, coherency needed, no contention. */
    e_amdahl = solve(&amdahl, &s_a, &k_a);
    if (!kappa_shows(s, k, top) || not_worse(e_amdahl, e_full, dof, scale)) {
        s = s_a, k = 0, e_full = e_amdahl;
        e_lin = solve(&linear, &s_l, &k_l);
        if (!sigma_shows(s, top) || not_worse(e_lin, e_amdahl, dof + 1, scale))
            s = 0, e_full = e_lin;
    } else if (s > 0) {
        e_coh = solve(&coherent, &s_c, &k_c);
        if (!sigma_shows(s, top) || not_worse(e_coh, e_full, dof, scale))
            s = 0, k = k_c, e_full = e_coh;
    }
    memset(fit, 0, sizeof(*fit));
    fit->sigma = s;
    fit->kappa = k;
    (void)sse(&full, s, k, &fit->lambda);
    fit->r2 = r_squared(pts, n, e_full);
    fit->steps = used;
    if (k > 0) {
        fit->has_peak = 1;
        fit->peak_users = sqrt((1.0 - s) / k);
        fit->peak_throughput = usl_throughput(fit, fit->peak_users);
    } else if (s > 0) {
        fit->has_ceiling = 1;
        fit->ceiling = fit->lambda / s;
    }
    return 0;
}

/* Whether step k is far off the law fit, fitted to the others, while they
 * follow it: more than OUTLIER_MIN from the law's throughput (a share of
 * it) and more than OUTLIER_MADS times the others' median distance. *ratio
 * is how many times. */
static int far_off(const struct usl_point *pts, size_t n, size_t k, const struct usl_fit *fit,
                   double *ratio)
{
    double d[USL_LOO_MAX], e = fabs(pts[k].throughput / usl_throughput(fit, pts[k].users) - 1.0);
    size_t m = 0, j;

    for (size_t i = 0; i < n; i++) {
        double x;

        if (i == k || !usable(&pts[i]))
            continue;
        x = fabs(pts[i].throughput / usl_throughput(fit, pts[i].users) - 1.0);
        for (j = m++; j > 0 && d[j - 1] > x; j--) /* kept sorted */
            d[j] = d[j - 1];
        d[j] = x;
    }
    if (m == 0) {
        *ratio = 0;
        return 0;
    }
    *ratio = d[m / 2] > 0 ? e / d[m / 2] : INFINITY;
    return e > OUTLIER_MIN && *ratio > OUTLIER_MADS;
}

int usl_fit(const struct usl_point *pts, size_t n, struct usl_fit *fit, char *why, size_t len)
{
    struct usl_point kept[USL_LOO_MAX];
    struct usl_fit without;
    char why_not[USL_TEXT_MAX];
    double ratio, best = 0, lo, hi;
    size_t used;

    if (fit_law(pts, n, fit, why, len) != 0)
        return -1;
    used = fit->steps;
    if (n > USL_LOO_MAX || used < USL_MIN_LEVELS + 2)
        return 0;
    /* Each step left out in turn: the one farthest off the law the others
     * fit, if any is far off, goes. */
    memcpy(kept, pts, n * sizeof(*pts));
    lo = INFINITY;
    hi = top_level(pts, n);
    for (size_t k = 0; k < n; k++)
        lo = usable(&pts[k]) ? fmin(lo, pts[k].users) : lo;
    for (size_t k = 0; k < n; k++) {
        /* The lowest and highest levels hold lambda and the bend: never. */
        if (!usable(&pts[k]) || pts[k].users == lo || pts[k].users == hi)
            continue;
        kept[k].throughput = 0;
        if (fit_law(kept, n, &without, why_not, sizeof(why_not)) == 0 &&
            far_off(pts, n, k, &without, &ratio) && ratio > best) {
            best = ratio;
            *fit = without;
            fit->left_out = 1;
            fit->left_out_users = pts[k].users;
        }
        kept[k].throughput = pts[k].throughput;
    }
    return 0;
}

double usl_throughput(const struct usl_fit *fit, double users)
{
    return fit->lambda * shape(fit->sigma, fit->kappa, users);
}

char *usl_format(const struct usl_fit *fit, char *buf, size_t len)
{
    char out[32] = "";
    int n;

    if (fit->left_out)
        snprintf(out, sizeof(out), ", c=%.0f out", fit->left_out_users);
    n = snprintf(buf, len,
                 "USL fit: sigma %.3g, kappa %.3g, lambda %.4g req/s (r2 %.3f, %zu steps%s): ",
                 fit->sigma, fit->kappa, fit->lambda, fit->r2, fit->steps, out);
    if (n < 0 || (size_t)n >= len)
        return buf;
    if (fit->has_peak)
        snprintf(buf + n, len - (size_t)n, "peak c=%.0f at %.0f req/s", fit->peak_users,
                 fit->peak_throughput);
    else if (fit->has_ceiling)
        snprintf(buf + n, len - (size_t)n, "no peak (kappa 0): ceiling %.0f req/s", fit->ceiling);
    else
        snprintf(buf + n, len - (size_t)n, "linear, no ceiling");
    return buf;
}

char *usl_format_refused(const char *why, char *buf, size_t len)
{
    snprintf(buf, len, "USL fit: none: %s", why);
    return buf;
}
