#include "engine/pace.h"

void pace_init(struct pace *p)
{
    p->begun = 0;
    p->spent_ns = 0;
    p->cost_ns = 0;
}

void pace_new_pass(struct pace *p)
{
    p->begun = 0;
    p->spent_ns = 0;
}

uint32_t pace_left(const struct pace *p)
{
    uint64_t max = PACE_PASS_MAX;

    if (p->spent_ns >= PACE_PASS_NS)
        return 0;
    /* What the pass's time allows at the known cost, always at least one:
     * a pass that begins none would never learn that the cost fell. */
    if (p->cost_ns > 0 && PACE_PASS_NS / p->cost_ns < max)
        max = PACE_PASS_NS / p->cost_ns > 0 ? PACE_PASS_NS / p->cost_ns : 1;
    return p->begun < max ? (uint32_t)(max - p->begun) : 0;
}

void pace_begun(struct pace *p, uint32_t n)
{
    p->begun += n;
}

void pace_took(struct pace *p, uint32_t n, uint64_t took_ns)
{
    uint64_t one = took_ns / n;

    p->spent_ns += took_ns;
    /* A dearer connect is believed at once (the next one will likely cost
     * as much: the port range is as full); a cheaper one an eighth at a
     * time, so one lucky connect does not open the gates. */
    if (one >= p->cost_ns)
        p->cost_ns = one;
    else
        p->cost_ns -= (p->cost_ns - one) / 8;
}
