/*
 * A lost agent (coord_internal.h, docs/agents.md "Faults"): its share of
 * the run's level goes to the agents left, and the event log says what it
 * may have done after its last tick in the merge.
 */
#include "agents/coord_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "core/clock.h"
#include "core/tick.h"
#include "core/units.h"

static uint64_t now_ms(const struct coord *c)
{
    uint64_t now = clock_now_ns();

    return now > c->start_ns ? (now - c->start_ns) / 1000000 : 0;
}

static void notice_at(struct coord *c, struct tick *t, uint64_t at_ms, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void notice_at(struct coord *c, struct tick *t, uint64_t at_ms, const char *fmt, ...)
{
    char text[TICK_TEXT_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    agents__add_event_at(c, t, EV_NOTICE, at_ms, text);
}

/* What lost agent a may have done that no tick of it says, into t's
 * events: from the end of its row in the last merged tick that had one to
 * when it was lost (or, on a link that hung, until it stops by itself), at
 * that row's rate, with what it had in flight. The reports say the same
 * from the same rows (cut at the run's end, when it came first). */
void agents__say_gap(struct coord *c, struct agent *a, struct tick *t)
{
    char at[UNITS_FMT_MAX], from[UNITS_FMT_MAX], until[UNITS_FMT_MAX], span[UNITS_FMT_MAX];
    uint64_t end_us = a->row_end_us;
    uint64_t gap_us = a->lost_until_us > end_us ? a->lost_until_us - end_us : 0;

    a->has_said_gap = 1;
    units_format_duration(a->lost_at_us, at, sizeof(at));
    if (!a->has_row) {
        notice_at(c, t, a->lost_at_us / 1000,
                  "agent %s was lost at %s before any tick of it was merged: what it sent is "
                  "counted nowhere",
                  a->name, at);
        return;
    }
    units_format_duration(end_us, from, sizeof(from));
    units_format_duration(gap_us, span, sizeof(span));
    units_format_duration(a->lost_until_us, until, sizeof(until));
    notice_at(c, t, a->lost_at_us / 1000,
              "agent %s may have run %s after its last tick (%s to %s) at %.0f req/s, %u in "
              "flight: up to ~%.0f requests counted nowhere",
              a->name, span, from, until, a->row_rate_per_s, a->row_in_flight,
              (double)tick_agent_uncounted(a->row_rate_per_s, a->row_in_flight, gap_us));
}

/* The run's total level after cmd, as the agents will have it: each
 * doubles or halves its own share (at least one user each). */
void agents__note_level(struct coord *c, const struct command *cmd)
{
    uint32_t live = 0;

    for (uint32_t i = 0; i < c->n; i++)
        live += c->agents[i].phase == PH_RUNNING;
    switch (cmd->kind) {
    case CMD_SET_CONCURRENCY: c->want_users = (double)cmd->n; break;
    case CMD_SET_RATE: c->want_rate = cmd->rate_per_s; break;
    case CMD_DOUBLE:
        if (c->is_open_model)
            c->want_rate *= 2;
        else
            c->want_users *= 2;
        break;
    case CMD_HALVE:
        if (c->is_open_model)
            c->want_rate /= 2;
        else
            c->want_users = fmax(live, floor(c->want_users / 2));
        break;
    case CMD_STOP: c->is_stopping = 1; break;
    default: break;
    }
}

/* An agent was lost: the run's level goes to the agents left, split by
 * their weights, so the run keeps the level its plan or its operator set.
 * Not once the run stops, nor when none is left. */
void agents__resplit(struct coord *c)
{
    struct command cmd = {.kind = CMD_SET_CONCURRENCY, .n = (int64_t)llround(c->want_users)};
    char level[48];
    uint32_t live = 0;

    c->needs_resplit = 0;
    for (uint32_t i = 0; i < c->n; i++)
        live += c->agents[i].phase == PH_RUNNING;
    if (c->is_stopping || live == 0)
        return;
    if (c->is_open_model) {
        cmd = (struct command){.kind = CMD_SET_RATE, .rate_per_s = c->want_rate};
        snprintf(level, sizeof(level), "%.6g/s", c->want_rate);
    } else {
        snprintf(level, sizeof(level), "c=%lld", (long long)cmd.n);
    }
    notice_at(c, NULL, now_ms(c),
              "the lost agent's share goes to the %u left: %s in all, split by their weights", live,
              level);
    agents__send_split(c, &cmd);
}
