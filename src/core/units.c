#include "core/units.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ascii.h"
#include "core/msg.h"

/* Decimals beyond this many (trailing zeros aside) are refused: with at most
 * 10^9 as the denominator, every product in scale() fits in 64 bits. */
#define DECIMALS_MAX 9
/* The bad value is quoted in messages cut to this many bytes (plus NUL). */
#define SHOWN_MAX 41

/*
 * A number as typed: whole part, then frac / frac_den for the decimals
 * (frac < frac_den, frac_den a power of ten up to 10^DECIMALS_MAX). Kept exact
 * because strtod would round "0.1s" and, worse, read "1,5" or "1.5" depending
 * on LC_NUMERIC, which any caller may have set from the user's locale.
 */
struct decimal {
    uint64_t whole;
    uint64_t frac;
    uint64_t frac_den;
};

/* Why a value was refused. */
enum defect {
    DEFECT_SYNTAX,
    DEFECT_NEGATIVE,
    DEFECT_NO_UNIT,
    DEFECT_UNKNOWN_UNIT,
    DEFECT_UNIT_ORDER,
    DEFECT_DECIMALS,
    DEFECT_FRACTION,
    DEFECT_TOO_BIG,
};

/* Hints for the defects that read the same whatever the value is. */
static const char *const common_hints[] = {
    [DEFECT_SYNTAX] = "",
    [DEFECT_NEGATIVE] = " (negative values are not allowed)",
    [DEFECT_UNIT_ORDER] = " (put the largest unit first, each once, as in 1m30s)",
    [DEFECT_DECIMALS] = " (at most 9 decimals)",
};

/* What a parser expects, in the words its messages use. */
struct kind {
    const char *expected; /* after "expected " */
    const char *no_unit;  /* hint when the unit is missing */
    const char *units;    /* hint when the unit is unknown */
    const char *fraction; /* hint when the value is not whole */
    const char *range;    /* after "expected " when the value is too large */
};

_Static_assert(UNITS_DURATION_MAX_US == 2400ULL * 3600 * 1000000,
               "the duration range message says 2400h (100 days)");

static const struct kind duration_kind = {
    .expected = "a duration such as 250ms, 30s, 2m or 1h",
    .no_unit = " (the unit is missing)",
    .units = " (units are us, ms, s, m and h)",
    .fraction = "",
    .range = "a duration of at most 2400h (100 days)",
};

static const struct kind size_kind = {
    .expected = "a size such as 512, 64k, 5MiB or 1GB",
    .no_unit = "",
    .units = " (units are B, k, kB, KiB, M, MB, MiB, G, GB, GiB, T, TB, TiB)",
    .fraction = " (not a whole number of bytes)",
    .range = "a size below 8EiB",
};

static const struct kind count_kind = {
    .expected = "a whole number such as 100, 10k or 2M",
    .no_unit = "",
    .units = " (the suffixes are k and M)",
    .fraction = " (not a whole number)",
    .range = NULL, /* the caller's [min, max], see units_parse_count */
};

static const struct kind percent_kind = {
    .expected = "a percentage such as 1% or 0.5%",
    .no_unit = " (the % sign is missing)",
    .units = "",
    .fraction = "",
    .range = "a percentage from 0% to 100%",
};

static const struct kind rate_kind = {
    .expected = "a rate such as 100 or 2.5/s",
    .no_unit = "",
    .units = " (the only unit is /s)",
    .fraction = "",
    .range = "a rate of at most 1e15/s",
};

#define RATE_MAX_WHOLE 1000000000000000ULL

#define BOOL_EXPECTED "yes/no, true/false, on/off or 1/0"

struct unit {
    const char *name;
    uint64_t mult; /* value of one unit in the result's unit (µs, bytes, 1) */
};

/* Duration units, largest first: a multi-part duration must follow this order. */
static const struct unit duration_units[] = {
    {"h", 3600000000ULL}, {"m", 60000000ULL}, {"s", 1000000ULL}, {"ms", 1000ULL}, {"us", 1ULL},
};

static const struct unit size_units[] = {
    {"B", 1ULL},
    {"k", 1000ULL},
    {"K", 1000ULL},
    {"kB", 1000ULL},
    {"KB", 1000ULL},
    {"Ki", 1ULL << 10},
    {"KiB", 1ULL << 10},
    {"M", 1000000ULL},
    {"MB", 1000000ULL},
    {"Mi", 1ULL << 20},
    {"MiB", 1ULL << 20},
    {"G", 1000000000ULL},
    {"GB", 1000000000ULL},
    {"Gi", 1ULL << 30},
    {"GiB", 1ULL << 30},
    {"T", 1000000000000ULL},
    {"TB", 1000000000000ULL},
    {"Ti", 1ULL << 40},
    {"TiB", 1ULL << 40},
};

static const struct unit count_units[] = {
    {"k", 1000ULL},
    {"M", 1000000ULL},
};

static const struct {
    const char *word;
    int value;
} bool_words[] = {
    {"yes", 1}, {"no", 0}, {"true", 1}, {"false", 0}, {"on", 1}, {"off", 0}, {"1", 1}, {"0", 0},
};

/* Prefixes for the formatters, each 1000 times the one before. */
static const char *const size_prefixes[] = {"kB", "MB", "GB", "TB", "PB", "EB"};
static const char *const count_prefixes[] = {"k", "M", "G", "T", "P", "E"};

/* The text between leading and trailing blanks: [*begin, *end). */
static void trim(const char *s, const char **begin, const char **end)
{
    const char *e = s + strlen(s);

    while (ascii_is_blank(*s))
        s++;
    while (e > s && ascii_is_blank(e[-1]))
        e--;
    *begin = s;
    *end = e;
}

/* Writes `expected <what>, got "<value>"<hint>` to why, the value cut and
 * escaped so that the message stays one line of printable ASCII. */
static int fail(char *why, size_t why_len, const char *expected, const char *begin, const char *end,
                const char *hint, int err)
{
    char shown[SHOWN_MAX];

    msg_show_n(begin, (size_t)(end - begin), shown, sizeof(shown));
    msg_set(why, why_len, "expected %s, got \"%s\"%s", expected, shown, hint);
    return err;
}

/* Writes the message for defect d of a value of kind k and returns its errno. */
static int reject(const struct kind *k, enum defect d, const char *begin, const char *end,
                  char *why, size_t why_len)
{
    switch (d) {
    case DEFECT_TOO_BIG: return fail(why, why_len, k->range, begin, end, "", -ERANGE);
    case DEFECT_NO_UNIT: return fail(why, why_len, k->expected, begin, end, k->no_unit, -EINVAL);
    case DEFECT_UNKNOWN_UNIT: return fail(why, why_len, k->expected, begin, end, k->units, -EINVAL);
    case DEFECT_FRACTION: return fail(why, why_len, k->expected, begin, end, k->fraction, -EINVAL);
    default: return fail(why, why_len, k->expected, begin, end, common_hints[d], -EINVAL);
    }
}

/*
 * Reads the decimals after the '.' at *p into d. Trailing zeros do not count,
 * so "1.500000000000s" is fine while "1.0000000001s" is refused.
 */
static int scan_decimals(const char **p, const char *end, struct decimal *d, enum defect *defect)
{
    const char *s = *p;
    size_t decimals = 0;

    if (s == end || !ascii_is_digit(*s)) {
        *defect = DEFECT_SYNTAX;
        return -1;
    }
    for (const char *q = s; q < end && ascii_is_digit(*q); q++) {
        if (*q != '0')
            decimals = (size_t)(q - s) + 1;
    }
    if (decimals > DECIMALS_MAX) {
        *defect = DEFECT_DECIMALS;
        return -1;
    }
    for (size_t i = 0; i < decimals; i++) {
        d->frac = d->frac * 10 + (uint64_t)(s[i] - '0');
        d->frac_den *= 10;
    }
    while (s < end && ascii_is_digit(*s))
        s++;
    *p = s;
    return 0;
}

/*
 * Reads digits[.digits] at *p (before end) into d and moves *p past it.
 * Signs, exponents, hex, "inf" and "nan" are not numbers here.
 */
static int scan_decimal(const char **p, const char *end, struct decimal *d, enum defect *defect)
{
    const char *s = *p;
    char *stop;

    if (s == end || !ascii_is_digit(*s)) {
        *defect = s != end && *s == '-' ? DEFECT_NEGATIVE : DEFECT_SYNTAX;
        return -1;
    }
    /* The run of digits is followed by a non-digit or the NUL, so strtoull
     * reads exactly that run; only overflow can go wrong. */
    errno = 0;
    d->whole = strtoull(s, &stop, 10);
    if (errno == ERANGE) {
        *defect = DEFECT_TOO_BIG;
        return -1;
    }
    s = stop;
    d->frac = 0;
    d->frac_den = 1;
    if (s != end && *s == '.') {
        s++;
        if (scan_decimals(&s, end, d, defect) != 0)
            return -1;
    }
    *p = s;
    return 0;
}

/*
 * Reads the unit after a number: one optional space, then a run of letters (or
 * a lone '%'). Sets *name and *len to the unit (len 0 when there is none).
 * Fails when a space is not followed by a unit.
 */
static int scan_unit(const char **p, const char *end, const char **name, size_t *len)
{
    const char *s = *p;

    if (s < end && *s == ' ')
        s++;
    *name = s;
    if (s < end && *s == '%') {
        s++;
    } else {
        while (s < end && ascii_is_alpha(*s))
            s++;
    }
    *len = (size_t)(s - *name);
    if (*len == 0 && s != *p)
        return -1;
    *p = s;
    return 0;
}

/* Index of the unit name[0..len) in table, or -1. */
static int find_unit(const struct unit *table, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++) {
        if (strlen(table[i].name) == len && memcmp(table[i].name, name, len) == 0)
            return (int)i;
    }
    return -1;
}

/*
 * *out = d * mult rounded down, *rem = the remainder of that division in
 * units of 1/d->frac_den. With q, r = mult / den, mult % den, the fraction
 * part is frac * q + frac * r / den, and frac * r < den^2 <= 10^18 fits.
 */
static int scale(const struct decimal *d, uint64_t mult, uint64_t *out, uint64_t *rem)
{
    uint64_t q = mult / d->frac_den, r = mult % d->frac_den;
    uint64_t frac_part = d->frac * q + d->frac * r / d->frac_den;

    *rem = d->frac * r % d->frac_den;
    if (d->whole > (UINT64_MAX - frac_part) / mult)
        return -1;
    *out = d->whole * mult + frac_part;
    return 0;
}

/* Adds one part of a duration such as the "30s" of "1m30s" to *total_us. */
static int add_duration_part(const struct decimal *d, uint64_t mult, uint64_t *total_us,
                             int *below_1us)
{
    uint64_t us, rem;

    if (scale(d, mult, &us, &rem) != 0)
        return -1;
    /* Round half up to whole microseconds; remember a non-zero part that
     * vanished, since "0.1us" must not quietly become "no time at all". */
    if (rem * 2 >= d->frac_den && us < UINT64_MAX)
        us++;
    if (us == 0 && (d->whole != 0 || d->frac != 0))
        *below_1us = 1;
    if (us > UNITS_DURATION_MAX_US - *total_us)
        return -1;
    *total_us += us;
    return 0;
}

int units_parse_duration(const char *s, uint64_t *out_us, char *why, size_t why_len)
{
    const char *b, *e, *p;
    uint64_t total = 0;
    size_t n_units = sizeof(duration_units) / sizeof(duration_units[0]);
    size_t next_unit = 0; /* the units before this index were used already */
    int below_1us = 0;

    trim(s != NULL ? s : "", &b, &e);
    p = b;
    do {
        struct decimal d;
        enum defect defect;
        const char *unit;
        size_t unit_len;
        int u;

        if (scan_decimal(&p, e, &d, &defect) != 0)
            return reject(&duration_kind, defect, b, e, why, why_len);
        if (scan_unit(&p, e, &unit, &unit_len) != 0)
            return reject(&duration_kind, DEFECT_SYNTAX, b, e, why, why_len);
        if (unit_len == 0) {
            /* Only a lone zero may go without a unit: it means the same in any. */
            if (p == e && next_unit == 0 && d.whole == 0 && d.frac == 0)
                break;
            defect = p == e ? DEFECT_NO_UNIT : DEFECT_SYNTAX;
            return reject(&duration_kind, defect, b, e, why, why_len);
        }
        u = find_unit(duration_units, n_units, unit, unit_len);
        if (u < 0)
            return reject(&duration_kind, DEFECT_UNKNOWN_UNIT, b, e, why, why_len);
        if ((size_t)u < next_unit)
            return reject(&duration_kind, DEFECT_UNIT_ORDER, b, e, why, why_len);
        next_unit = (size_t)u + 1;
        if (add_duration_part(&d, duration_units[u].mult, &total, &below_1us) != 0)
            return reject(&duration_kind, DEFECT_TOO_BIG, b, e, why, why_len);
    } while (p < e);
    if (below_1us && total == 0)
        return fail(why, why_len, "a duration of at least 1us", b, e, "", -ERANGE);
    *out_us = total;
    return 0;
}

/*
 * The number and optional unit shared by sizes and counts: [b, e) must be
 * exactly one number, one optional space and a unit of table (or no unit, for
 * a multiplier of 1). The result must be whole and at most max.
 */
static int parse_scaled(const char *b, const char *e, const struct unit *table, size_t n,
                        uint64_t max, uint64_t *out, enum defect *defect)
{
    const char *p = b;
    struct decimal d;
    const char *unit;
    size_t unit_len;
    uint64_t mult = 1, v, rem;

    if (scan_decimal(&p, e, &d, defect) != 0)
        return -1;
    if (scan_unit(&p, e, &unit, &unit_len) != 0) {
        *defect = DEFECT_SYNTAX;
        return -1;
    }
    if (unit_len != 0) {
        int u = find_unit(table, n, unit, unit_len);

        if (u < 0) {
            *defect = DEFECT_UNKNOWN_UNIT;
            return -1;
        }
        mult = table[u].mult;
    }
    if (p != e) {
        *defect = DEFECT_SYNTAX;
        return -1;
    }
    if (scale(&d, mult, &v, &rem) != 0 || v > max) {
        *defect = DEFECT_TOO_BIG;
        return -1;
    }
    if (rem != 0) {
        *defect = DEFECT_FRACTION;
        return -1;
    }
    *out = v;
    return 0;
}

int units_parse_size(const char *s, uint64_t *out_bytes, char *why, size_t why_len)
{
    const char *b, *e;
    enum defect defect;
    uint64_t v;

    trim(s != NULL ? s : "", &b, &e);
    if (parse_scaled(b, e, size_units, sizeof(size_units) / sizeof(size_units[0]),
                     (uint64_t)INT64_MAX, &v, &defect) != 0)
        return reject(&size_kind, defect, b, e, why, why_len);
    *out_bytes = v;
    return 0;
}

int units_parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *why,
                      size_t why_len)
{
    struct kind k = count_kind;
    char range[64];
    const char *b, *e;
    enum defect defect;
    uint64_t v;
    int rc;

    snprintf(range, sizeof(range), "a count from %" PRIu64 " to %" PRIu64, min, max);
    k.range = range;
    trim(s != NULL ? s : "", &b, &e);
    rc = parse_scaled(b, e, count_units, sizeof(count_units) / sizeof(count_units[0]), UINT64_MAX,
                      &v, &defect);
    if (rc == 0 && (v < min || v > max))
        return reject(&k, DEFECT_TOO_BIG, b, e, why, why_len);
    if (rc != 0)
        return reject(&k, defect, b, e, why, why_len);
    *out = v;
    return 0;
}

int units_parse_percent(const char *s, double *out_fraction, char *why, size_t why_len)
{
    const char *b, *e, *p, *unit;
    struct decimal d;
    enum defect defect;
    size_t unit_len;

    trim(s != NULL ? s : "", &b, &e);
    p = b;
    if (scan_decimal(&p, e, &d, &defect) != 0)
        return reject(&percent_kind, defect, b, e, why, why_len);
    if (scan_unit(&p, e, &unit, &unit_len) != 0 || p != e || unit_len != 1 || *unit != '%') {
        defect = unit_len == 0 && p == e ? DEFECT_NO_UNIT : DEFECT_SYNTAX;
        return reject(&percent_kind, defect, b, e, why, why_len);
    }
    if (d.whole > 100 || (d.whole == 100 && d.frac != 0))
        return reject(&percent_kind, DEFECT_TOO_BIG, b, e, why, why_len);
    /* One division of two exact integers gives the double nearest the value. */
    *out_fraction = (double)(d.whole * d.frac_den + d.frac) / (double)(d.frac_den * 100);
    return 0;
}

int units_parse_rate(const char *s, double *out_per_s, char *why, size_t why_len)
{
    const char *b, *e, *p;
    struct decimal d;
    enum defect defect;

    trim(s != NULL ? s : "", &b, &e);
    p = b;
    if (scan_decimal(&p, e, &d, &defect) != 0)
        return reject(&rate_kind, defect, b, e, why, why_len);
    if (e - p == 2 && p[0] == '/' && p[1] == 's')
        p = e;
    if (p != e)
        return reject(&rate_kind, DEFECT_UNKNOWN_UNIT, b, e, why, why_len);
    if (d.whole > RATE_MAX_WHOLE || (d.whole == RATE_MAX_WHOLE && d.frac != 0))
        return reject(&rate_kind, DEFECT_TOO_BIG, b, e, why, why_len);
    /* Exact integers, one division: the double nearest the value. */
    *out_per_s = (double)d.whole + (double)d.frac / (double)d.frac_den;
    return 0;
}

int units_parse_bool(const char *s, int *out, char *why, size_t why_len)
{
    const char *b, *e;
    size_t len;

    trim(s != NULL ? s : "", &b, &e);
    len = (size_t)(e - b);
    for (size_t i = 0; i < sizeof(bool_words) / sizeof(bool_words[0]); i++) {
        const char *w = bool_words[i].word;
        size_t j = 0;

        if (strlen(w) != len)
            continue;
        while (j < len && ascii_lower(b[j]) == w[j])
            j++;
        if (j == len) {
            *out = bool_words[i].value;
            return 0;
        }
    }
    return fail(why, why_len, BOOL_EXPECTED, b, e, "", -EINVAL);
}

/* v / d rounded half up, without the overflow of (v + d / 2) / d. */
static uint64_t div_round(uint64_t v, uint64_t d)
{
    return v / d + (v % d >= d - d / 2 ? 1 : 0);
}

/*
 * Writes v / unit with three significant digits ("1.23", "45.6", "789") and
 * the suffix, if the rounded value stays below limit (1000, or 60 for
 * seconds). Returns 0 when it does not, so the caller tries a larger unit.
 * unit is a power of ten of at least 100.
 */
static int format_3sig(char *buf, size_t len, uint64_t v, uint64_t unit, uint64_t limit,
                       const char *suffix)
{
    uint64_t whole = v / unit, rest = v % unit;

    if (whole < 10) {
        uint64_t hundredths = whole * 100 + div_round(rest, unit / 100);

        if (hundredths < 1000) {
            snprintf(buf, len, "%" PRIu64 ".%02" PRIu64 "%s", hundredths / 100, hundredths % 100,
                     suffix);
            return 1;
        }
    }
    if (whole < 100) {
        uint64_t tenths = whole * 10 + div_round(rest, unit / 10);

        if (tenths < 1000 && tenths < limit * 10) {
            snprintf(buf, len, "%" PRIu64 ".%" PRIu64 "%s", tenths / 10, tenths % 10, suffix);
            return 1;
        }
    }
    if (whole < 1000) {
        uint64_t ones = whole + div_round(rest, unit);

        if (ones < 1000 && ones < limit) {
            snprintf(buf, len, "%" PRIu64 "%s", ones, suffix);
            return 1;
        }
    }
    return 0;
}

/* Values below 1000 exactly, then each prefix of 1000 in turn. */
static char *format_prefixed(uint64_t v, const char *base_suffix, const char *const *prefixes,
                             size_t n_prefixes, char *buf, size_t len)
{
    uint64_t unit = 1000;

    if (len == 0)
        return buf;
    if (v < 1000) {
        snprintf(buf, len, "%" PRIu64 "%s", v, base_suffix);
        return buf;
    }
    /* UINT64_MAX is 18.4 of the last prefix, so the loop always writes. */
    for (size_t i = 0; i < n_prefixes; i++, unit *= 1000) {
        if (format_3sig(buf, len, v, unit, 1000, prefixes[i]))
            break;
    }
    return buf;
}

char *units_format_duration(uint64_t us, char *buf, size_t len)
{
    uint64_t s, min;

    if (len == 0)
        return buf;
    if (us < 1000) {
        snprintf(buf, len, "%" PRIu64 "us", us);
        return buf;
    }
    if (format_3sig(buf, len, us, 1000, 1000, "ms") || format_3sig(buf, len, us, 1000000, 60, "s"))
        return buf;
    s = div_round(us, 1000000);
    if (s < 3600) {
        snprintf(buf, len, "%" PRIu64 "m%02" PRIu64 "s", s / 60, s % 60);
        return buf;
    }
    min = div_round(us, 60000000);
    snprintf(buf, len, "%" PRIu64 "h%02" PRIu64 "m", min / 60, min % 60);
    return buf;
}

char *units_format_size(uint64_t bytes, char *buf, size_t len)
{
    return format_prefixed(bytes, "B", size_prefixes,
                           sizeof(size_prefixes) / sizeof(size_prefixes[0]), buf, len);
}

char *units_format_count(uint64_t n, char *buf, size_t len)
{
    return format_prefixed(n, "", count_prefixes,
                           sizeof(count_prefixes) / sizeof(count_prefixes[0]), buf, len);
}
