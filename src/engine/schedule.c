#include "engine/schedule.h"

#include <math.h>
#include <string.h>

/* Intended start of arrival i of the stream. Computed from the anchor, not
 * summed period by period, so rounding never accumulates into drift. */
static uint64_t intended(const struct schedule *s, uint64_t i)
{
    return s->anchor_ns + (uint64_t)((double)i * 1e9 / s->rate_per_s);
}

/* Arrivals of the stream (the backlog aside) due at now and not taken. */
static uint64_t stream_due(const struct schedule *s, uint64_t now_ns)
{
    uint64_t n;

    if (s->rate_per_s <= 0 || now_ns < s->anchor_ns)
        return 0;
    /* An estimate from the rate, then corrected against intended() so that
     * "due" and the times schedule_take hands out always agree. */
    n = (uint64_t)floor((double)(now_ns - s->anchor_ns) * s->rate_per_s / 1e9) + 1;
    while (n > 0 && intended(s, n - 1) > now_ns)
        n--;
    while (intended(s, n) <= now_ns)
        n++;
    return n > s->issued ? n - s->issued : 0;
}

void schedule_start(struct schedule *s, double rate_per_s, uint64_t now_ns)
{
    memset(s, 0, sizeof(*s));
    s->rate_per_s = rate_per_s > 0 ? rate_per_s : 0;
    s->anchor_ns = now_ns;
}

/* Intended start of the next arrival of the backlog, from its first and
 * how many were taken (not summed, so that rounding cannot drift). */
static uint64_t backlog_next(const struct schedule *s)
{
    return (uint64_t)llround(s->backlog_first_ns + (double)s->backlog_taken * s->backlog_period_ns);
}

/* Moves the stream's due arrivals into the backlog. Several rate changes
 * during one stall merge into one backlog: its count and first intended
 * time stay exact, the times in between are spread evenly up to now. */
static void keep_due(struct schedule *s, uint64_t now_ns)
{
    uint64_t due = stream_due(s, now_ns);
    uint64_t first;

    if (due == 0)
        return;
    first = intended(s, s->issued);
    if (s->backlog == 0) {
        s->backlog_first_ns = (double)first;
        s->backlog_period_ns = 1e9 / s->rate_per_s;
    } else {
        s->backlog_first_ns = (double)backlog_next(s);
        s->backlog_period_ns =
            ((double)now_ns - s->backlog_first_ns) / (double)(s->backlog + due - 1);
    }
    s->backlog_taken = 0;
    s->backlog += due;
    s->issued += due;
}

void schedule_set_rate(struct schedule *s, double rate_per_s, uint64_t now_ns)
{
    uint64_t next, gap = 0;

    if (rate_per_s < 0)
        rate_per_s = 0;
    keep_due(s, now_ns);
    if (s->rate_per_s > 0) {
        next = intended(s, s->issued);
        gap = next > now_ns ? next - now_ns : 0;
    }
    if (rate_per_s > 0 && (s->rate_per_s <= 0 || (double)gap > 1e9 / rate_per_s))
        gap = (uint64_t)(1e9 / rate_per_s);
    s->rate_per_s = rate_per_s;
    s->anchor_ns = now_ns + gap;
    s->issued = 0;
}

uint64_t schedule_due(const struct schedule *s, uint64_t now_ns)
{
    return s->backlog + stream_due(s, now_ns);
}

uint64_t schedule_next_ns(const struct schedule *s)
{
    if (s->backlog)
        return backlog_next(s);
    if (s->rate_per_s <= 0)
        return SCHEDULE_NONE;
    return intended(s, s->issued);
}

uint64_t schedule_take(struct schedule *s)
{
    uint64_t at;

    if (s->backlog) {
        at = backlog_next(s);
        s->backlog_taken++;
        s->backlog--;
        return at;
    }
    at = intended(s, s->issued);
    s->issued++;
    return at;
}

uint64_t schedule_lag_ns(const struct schedule *s, uint64_t now_ns)
{
    uint64_t next = schedule_next_ns(s);

    return next != SCHEDULE_NONE && next < now_ns ? now_ns - next : 0;
}

uint64_t schedule_may_start(const struct schedule *s, uint64_t now_ns, uint32_t in_flight,
                            uint32_t cap, int *is_capped)
{
    uint64_t due = schedule_due(s, now_ns);
    uint64_t room = in_flight < cap ? cap - in_flight : 0;

    if (due > room) {
        *is_capped = 1;
        return room;
    }
    return due;
}
