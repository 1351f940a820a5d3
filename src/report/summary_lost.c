/*
 * A run with agents: what each lost agent may have done after its last
 * tick in the merge (docs/agents.md), read from the merged ticks' agent
 * rows. Its requests of that time are in no tick: the reports say how long
 * it may have run on, at what rate and with how many in flight, so the
 * run's count and the server's can be reconciled.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/tick.h"
#include "report/internal.h"
#include "report/summary.h"

void report__trails_add(struct report__trails *tr, const struct tick *t)
{
    uint64_t end_us = t->start_us + t->duration_us;

    if (end_us > tr->run_end_us)
        tr->run_end_us = end_us;
    for (uint32_t i = 0; i < t->n_agents && i < TICK_MAX_AGENTS; i++) {
        const struct tick_agent *g = &t->agents[i];
        struct report__trail *a = &tr->agents[i];

        if (i >= tr->n)
            tr->n = i + 1;
        tick_copy_text(a->name, sizeof(a->name), g->name);
        /* A lost agent's row is in only with a tick of its own. */
        if (g->is_in && t->duration_us > 0) {
            a->has_tick = 1;
            a->last_end_us = end_us;
            a->rate_per_s = tick_per_s(g->completed, t->duration_us);
            a->in_flight = g->in_flight;
        }
        if (g->is_lost && !a->is_lost) {
            a->is_lost = 1;
            a->lost_at_us = g->lost_at_us;
            a->lost_until_us = g->lost_until_us > g->lost_at_us ? g->lost_until_us : g->lost_at_us;
        }
    }
}

uint32_t report__trails_n_lost(const struct report__trails *tr)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < tr->n; i++)
        n += tr->agents[i].is_lost;
    return n;
}

int report__trails_lost(const struct report__trails *tr, uint32_t i, struct summary_lost *out)
{
    const struct report__trail *a = NULL;

    for (uint32_t k = 0, seen = 0; k < tr->n && !a; k++) {
        if (tr->agents[k].is_lost && seen++ == i)
            a = &tr->agents[k];
    }
    if (!a)
        return -ENOENT;
    memset(out, 0, sizeof(*out));
    out->name = a->name;
    out->has_tick = a->has_tick;
    out->last_end_us = a->last_end_us;
    out->lost_at_us = a->lost_at_us;
    /* Nothing it did after the run's end counts against it. */
    out->until_us = a->lost_until_us < tr->run_end_us ? a->lost_until_us : tr->run_end_us;
    if (out->until_us < out->last_end_us)
        out->until_us = out->last_end_us;
    out->rate_per_s = a->rate_per_s;
    out->in_flight = a->in_flight;
    out->requests =
        tick_agent_uncounted(a->rate_per_s, a->in_flight, out->until_us - out->last_end_us);
    return 0;
}
