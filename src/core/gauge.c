/*
 * gauge: elapsed, total and time left of a bounded run, from one tick.
 * Times are shown in whole seconds: the elapsed and the total are rounded
 * each, and the time left is their difference, so the three always add up.
 */
#include "core/gauge.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/tick.h"
#include "core/units.h"

static uint64_t round_s(uint64_t us)
{
    return us / 1000000 + (us % 1000000 >= 500000);
}

static char *fmt_s(uint64_t s, char *buf, size_t len)
{
    if (s < 60)
        snprintf(buf, len, "%" PRIu64 "s", s);
    else if (s < 3600)
        snprintf(buf, len, "%" PRIu64 "m%02" PRIu64 "s", s / 60, s % 60);
    else
        snprintf(buf, len, "%" PRIu64 "h%02" PRIu64 "m", s / 3600, s / 60 % 60);
    return buf;
}

char *gauge_fmt_span(uint64_t us, char *buf, size_t len)
{
    return fmt_s(round_s(us), buf, len);
}

/* part of whole in [0, scale], rounded down; whole > 0. */
static unsigned share(uint64_t part, uint64_t whole, unsigned scale)
{
    if (part >= whole)
        return scale;
    return (unsigned)((double)part * scale / (double)whole);
}

int gauge_of_tick(const struct tick *t, struct gauge *g)
{
    const struct tick_bound *b = &t->bound;

    memset(g, 0, sizeof(*g));
    if (!b->end_us && !b->requests)
        return 0;
    g->is_ending = t->state == RUN_STOPPING || t->state == RUN_DONE;
    g->elapsed_us = t->start_us + t->duration_us;
    if (b->end_us) {
        g->has_time = 1;
        g->end_us = b->end_us;
    }
    if (b->requests) {
        g->has_count = 1;
        g->done = b->completed;
        g->limit = b->requests;
        if (g->done >= g->limit) {
            g->has_rate = 1;
        } else if (t->total.completed > 0 && t->duration_us > 0) {
            /* The tick's own rate: recent, and the same in a replay. */
            double left_us =
                (double)(g->limit - g->done) * (double)t->duration_us / (double)t->total.completed;

            g->has_rate = 1;
            g->count_left_us =
                left_us < (double)UNITS_DURATION_MAX_US ? (uint64_t)left_us : UNITS_DURATION_MAX_US;
        }
    }
    return 1;
}

/* The time bound's share done, of scale: in the seconds shown, so that
 * "3s/3s" is 100%, or in µs for a bound below half a second. */
static unsigned time_share(const struct gauge *g, unsigned scale)
{
    uint64_t total = round_s(g->end_us);

    if (!g->has_time)
        return 0;
    return total ? share(round_s(g->elapsed_us), total, scale)
                 : share(g->elapsed_us, g->end_us, scale);
}

unsigned gauge_time_percent(const struct gauge *g)
{
    return time_share(g, 100);
}

unsigned gauge_count_percent(const struct gauge *g)
{
    return g->has_count ? share(g->done, g->limit, 100) : 0;
}

/* Seconds of the time bound left, as shown: total minus elapsed. */
static uint64_t time_left_s(const struct gauge *g)
{
    uint64_t total = round_s(g->end_us), elapsed = round_s(g->elapsed_us);

    return total > elapsed ? total - elapsed : 0;
}

int gauge_shows_count(const struct gauge *g)
{
    if (!g->has_count)
        return 0;
    if (!g->has_time)
        return 1;
    return g->has_rate && (g->count_left_us + 999999) / 1000000 < time_left_s(g);
}

/* " left 48s", " left ~1m30s" (an estimate), " left ?"; "" once the stop began. */
static void left_text(const struct gauge *g, int is_count, char *buf, size_t len)
{
    char s[UNITS_FMT_MAX];

    if (g->is_ending)
        buf[0] = '\0';
    else if (!is_count)
        snprintf(buf, len, " left %s", fmt_s(time_left_s(g), s, sizeof(s)));
    else if (!g->has_rate)
        snprintf(buf, len, " left ?");
    else if (g->done >= g->limit)
        snprintf(buf, len, " left 0s");
    else
        /* Rounded up: an estimate never says 0s while requests are left. */
        snprintf(buf, len, " left ~%s", fmt_s((g->count_left_us + 999999) / 1000000, s, sizeof(s)));
}

/* "12s/1m00s 20%" */
static void time_done(const struct gauge *g, char *buf, size_t len)
{
    char a[UNITS_FMT_MAX], b[UNITS_FMT_MAX];

    snprintf(buf, len, "%s/%s %u%%", fmt_s(round_s(g->elapsed_us), a, sizeof(a)),
             fmt_s(round_s(g->end_us), b, sizeof(b)), gauge_time_percent(g));
}

char *gauge_line(const struct gauge *g, char *buf, size_t len)
{
    char done[2 * UNITS_FMT_MAX + 8], left[UNITS_FMT_MAX + 8];
    size_t used = 0;

    if (len == 0)
        return buf;
    buf[0] = '\0';
    if (g->has_time) {
        time_done(g, done, sizeof(done));
        left_text(g, 0, left, sizeof(left));
        snprintf(buf, len, " %s%s", done, left);
        used = strlen(buf);
    }
    if (g->has_count && used < len) {
        left_text(g, 1, left, sizeof(left));
        snprintf(buf + used, len - used, " %" PRIu64 "/%" PRIu64 " req %u%%%s", g->done, g->limit,
                 gauge_count_percent(g), left);
    }
    return buf;
}

char *gauge_brief(const struct gauge *g, int detail, char *buf, size_t len)
{
    int is_count = gauge_shows_count(g);
    char done[2 * UNITS_FMT_MAX + 8], left[UNITS_FMT_MAX + 8], a[UNITS_FMT_MAX], b[UNITS_FMT_MAX];
    unsigned pct = is_count ? gauge_count_percent(g) : gauge_time_percent(g);

    if (len == 0)
        return buf;
    buf[0] = '\0';
    if (!g->has_time && !g->has_count)
        return buf;
    left_text(g, is_count, left, sizeof(left));
    if (detail <= 0 && is_count)
        snprintf(done, sizeof(done), "%s/%s req %u%%", units_format_count(g->done, a, sizeof(a)),
                 units_format_count(g->limit, b, sizeof(b)), pct);
    else if (detail <= 0)
        time_done(g, done, sizeof(done));
    else
        snprintf(done, sizeof(done), "%u%%", pct);
    /* The least detail keeps the time left alone, when there is one. */
    if (detail >= GAUGE_DETAILS - 1 && left[0])
        snprintf(buf, len, "%s", left + 1);
    else
        snprintf(buf, len, "%s%s", done, left);
    return buf;
}

unsigned gauge_permille(const struct gauge *g)
{
    if (gauge_shows_count(g))
        return share(g->done, g->limit, 1000);
    return time_share(g, 1000);
}
