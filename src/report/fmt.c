/*
 * Number formatting for the report's formats. No %f or %g reaches the output
 * unchecked: a program linking brink's report may set LC_NUMERIC from the
 * user's locale, and a report must read "3.12", not "3,12", whoever runs it.
 */
#include "report/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/sanitize.h"

uint64_t report__minus(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

uint64_t report__round_u64(double v)
{
    if (!(v > 0.0))
        return 0;
    if (v >= 9.0e18)
        return 9000000000000000000ULL;
    return (uint64_t)(v + 0.5);
}

char *report__fmt_grouped(uint64_t v, char *buf)
{
    char digits[24];
    int n = snprintf(digits, sizeof(digits), "%" PRIu64, v);
    size_t o = 0;

    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

char *report__fmt_fixed(double v, unsigned decimals, char *buf)
{
    static const uint64_t scales[] = {1, 10, 100, 1000};
    uint64_t scale = scales[decimals > 3 ? 3 : decimals];
    uint64_t n = report__round_u64(v * (double)scale);

    if (scale == 1)
        snprintf(buf, REPORT_NUM_MAX, "%" PRIu64, n);
    else
        snprintf(buf, REPORT_NUM_MAX, "%" PRIu64 ".%0*" PRIu64, n / scale,
                 decimals > 3 ? 3 : (int)decimals, n % scale);
    return buf;
}

char *report__fmt_rate(double per_s, char *buf)
{
    return per_s >= 99.95 ? report__fmt_grouped(report__round_u64(per_s), buf)
                          : report__fmt_fixed(per_s, 1, buf);
}

char *report__fmt_total(double v, char *buf)
{
    if (!isfinite(v) || v != floor(v) || fabs(v) >= 1e15)
        return report__fmt_g(v, 6, buf);
    if (v >= 0)
        return report__fmt_grouped((uint64_t)v, buf);
    buf[0] = '-';
    report__fmt_grouped((uint64_t)-v, buf + 1);
    return buf;
}

char *report__fmt_g(double v, int precision, char *buf)
{
    size_t o = 0;
    int in_point = 0;
    char tmp[REPORT_NUM_MAX];

    if (!isfinite(v))
        v = 0.0;
    snprintf(tmp, sizeof(tmp), "%.*g", precision, v);
    /* Whatever the locale wrote as its decimal point (one or more bytes)
     * becomes one '.'. */
    for (size_t i = 0; tmp[i] != '\0' && o + 1 < REPORT_NUM_MAX; i++) {
        char c = tmp[i];
        int numeric = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e';

        if (numeric) {
            buf[o++] = c;
            in_point = 0;
        } else if (!in_point) {
            buf[o++] = '.';
            in_point = 1;
        }
    }
    buf[o] = '\0';
    return buf;
}

const char *report__shown(const char *raw, size_t raw_cap, char *buf, size_t cap)
{
    sanitize_display(raw, strnlen(raw, raw_cap), buf, cap, 1);
    return buf;
}

int report__finish(FILE *out)
{
    if (fflush(out) != 0 || ferror(out))
        return -EIO;
    return 0;
}

char *report__fmt_resent(const uint64_t resent[RESEND__COUNT], char *buf)
{
    char n[REPORT_NUM_MAX];
    size_t used = 0;
    const char *sep = " (";

    buf[0] = '\0';
    if (tick_resent_sum(resent) == 0)
        return buf;
    used += (size_t)snprintf(buf, REPORT_RESENT_MAX, "%s",
                             report__fmt_grouped(tick_resent_sum(resent), n));
    for (int c = 0; c < RESEND__COUNT && used < REPORT_RESENT_MAX; c++) {
        if (resent[c] == 0)
            continue;
        used += (size_t)snprintf(buf + used, REPORT_RESENT_MAX - used, "%s%s %s", sep,
                                 resend_cause_name((enum resend_cause)c),
                                 report__fmt_grouped(resent[c], n));
        sep = ", ";
    }
    if (used < REPORT_RESENT_MAX)
        snprintf(buf + used, REPORT_RESENT_MAX - used, ")");
    return buf;
}

char *report__fmt_level(int is_open_model, double level, char *buf)
{
    char n[REPORT_NUM_MAX];

    if (is_open_model)
        snprintf(buf, REPORT_NUM_MAX, "rate=%.32s/s", report__fmt_rate(level, n));
    else
        snprintf(buf, REPORT_NUM_MAX, "c=%" PRIu64, report__round_u64(level));
    return buf;
}

/* part as a percentage of whole, with decimals (1 or 2) digits and a % sign.
 * A share that is not zero never reads as zero: "<0.1%", "<0.01%". */
char *report__fmt_percent(uint64_t part, uint64_t whole, unsigned decimals, char *buf)
{
    double pct = whole ? 100.0 * (double)part / (double)whole : 0.0;
    size_t n;

    if (part > 0 && report__round_u64(pct * (decimals == 1 ? 10.0 : 100.0)) == 0) {
        snprintf(buf, REPORT_NUM_MAX, "%s", decimals == 1 ? "<0.1%" : "<0.01%");
        return buf;
    }
    report__fmt_fixed(pct, decimals, buf);
    n = strlen(buf);
    snprintf(buf + n, REPORT_NUM_MAX - n, "%%");
    return buf;
}

char *report__fmt_time(uint64_t ms, char *buf)
{
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    size_t n;

    buf[0] = '\0';
    if (ms == 0 || !gmtime_r(&secs, &tm))
        return buf;
    n = strftime(buf, REPORT_TIME_MAX, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, REPORT_TIME_MAX - n, ".%03uZ", (unsigned)(ms % 1000));
    return buf;
}
