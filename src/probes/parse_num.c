/*
 * Numbers in probe pages. The syntax is checked here, then the number is
 * rewritten without its decimal point ("12.5e3" becomes "125e2") so that
 * strtod, which would take ',' for the point in some locales, sees only
 * digits, a sign and an exponent, which every locale reads alike.
 */
#include "probes/internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/ascii.h"

/* Exponents are clamped here: beyond it every double under- or overflows. */
#define EXP_CLAMP 100000

/* Reads NaN, Inf and Infinity, any case; only the infinities take a sign. */
static int parse_special(const char *s, size_t len, double *out)
{
    double sign = 1.0;

    if (len == 3 && strncasecmp(s, "nan", 3) == 0) {
        *out = NAN;
        return 0;
    }
    if (len > 0 && (s[0] == '+' || s[0] == '-')) {
        sign = s[0] == '-' ? -1.0 : 1.0;
        s++;
        len--;
    }
    if ((len == 3 && strncasecmp(s, "inf", 3) == 0) ||
        (len == 8 && strncasecmp(s, "infinity", 8) == 0)) {
        *out = sign * INFINITY;
        return 0;
    }
    return -EINVAL;
}

/* Skips digits from s[*i], copying them to buf[*n]; returns how many. */
static size_t take_digits(const char *s, size_t len, size_t *i, char *buf, size_t *n)
{
    size_t count = 0;

    while (*i < len && ascii_is_digit(s[*i])) {
        buf[(*n)++] = s[(*i)++];
        count++;
    }
    return count;
}

/* Reads the exponent from s[*i] into *e, clamped to +-EXP_CLAMP; returns 0,
 * or -EINVAL when it has no digits. */
static int take_exponent(const char *s, size_t len, size_t *i, long *e)
{
    long sign = 1;
    size_t start;

    if (*i < len && (s[*i] == '+' || s[*i] == '-'))
        sign = s[(*i)++] == '-' ? -1 : 1;
    start = *i;
    *e = 0;
    while (*i < len && ascii_is_digit(s[*i])) {
        *e = *e * 10 + (s[*i] - '0');
        if (*e > EXP_CLAMP)
            *e = EXP_CLAMP;
        (*i)++;
    }
    *e *= sign;
    return *i == start ? -EINVAL : 0;
}

int probes__num_parse(const char *s, size_t len, int flags, double *out)
{
    char buf[PROBE_NUM_TEXT_MAX + 32];
    size_t i = 0, n = 0, int_digits, frac_digits = 0;
    long exp10 = 0;
    double v;

    if ((flags & PROBE_NUM_SPECIAL) && parse_special(s, len, out) == 0)
        return 0;
    if (len > PROBE_NUM_TEXT_MAX)
        return -ERANGE;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        buf[n++] = s[i++];
    int_digits = take_digits(s, len, &i, buf, &n);
    if (i < len && s[i] == '.') {
        i++;
        frac_digits = take_digits(s, len, &i, buf, &n);
    }
    if (int_digits + frac_digits == 0)
        return -EINVAL;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (take_exponent(s, len, &i, &exp10) != 0)
            return -EINVAL;
    }
    if (i != len)
        return -EINVAL;
    exp10 -= (long)frac_digits;
    snprintf(buf + n, sizeof(buf) - n, "e%ld", exp10);
    v = strtod(buf, NULL);
    if (isinf(v))
        return -ERANGE;
    *out = v;
    return 0;
}
