/*
 * grow: when the open model's pool takes one more connection (grow.h says
 * why it waits). Pure.
 */
#include "engine/grow.h"

/* The moving average of service times weighs the last reply this much (in
 * 1/n): about 16 replies, so that it follows the server within a few dozen
 * us at high rates and one slow reply does not throw it. */
#define REPLY_AVG_WEIGHT 16

void grow_init(struct grow *g)
{
    g->reply_avg_ns = 0;
    g->low_now_ns = UINT64_MAX;
    g->low_before_ns = UINT64_MAX;
    g->low_second = 0;
    g->last_reply_ns = 0;
    g->pass = 0;
    g->grew_pass = UINT64_MAX;
}

void grow_new_pass(struct grow *g)
{
    g->pass++;
}

void grow_replied(struct grow *g, uint64_t now_ns, uint64_t service_ns)
{
    g->last_reply_ns = now_ns;
    if (service_ns == 0)
        service_ns = 1;
    if (g->reply_avg_ns == 0)
        g->reply_avg_ns = service_ns;
    else
        g->reply_avg_ns += service_ns / REPLY_AVG_WEIGHT - g->reply_avg_ns / REPLY_AVG_WEIGHT;
    /* The shortest reply stands for the server unloaded, not for its
     * queue: a minimum over the last one to two seconds. */
    if (now_ns / 1000000000u != g->low_second) {
        g->low_before_ns = now_ns / 1000000000u == g->low_second + 1 ? g->low_now_ns : UINT64_MAX;
        g->low_now_ns = UINT64_MAX;
        g->low_second = now_ns / 1000000000u;
    }
    if (service_ns < g->low_now_ns)
        g->low_now_ns = service_ns;
}

/* Since when the arrival has waited with no reply to show for it. */
static uint64_t waited_since(const struct grow *g, uint64_t at_ns)
{
    return at_ns > g->last_reply_ns ? at_ns : g->last_reply_ns;
}

/* Connections the rate needs with replies of the shortest time: twice
 * Little's law's figure, and 2 more, for the replies' spread. */
static double needed(const struct grow *g, double rate_per_s)
{
    uint64_t low = g->low_now_ns < g->low_before_ns ? g->low_now_ns : g->low_before_ns;

    return 2 * rate_per_s * (double)low / 1e9 + 2;
}

int grow_may(const struct grow *g, double rate_per_s, uint32_t n_conns, uint32_t in_flight,
             uint64_t now_ns, uint64_t at_ns)
{
    uint64_t since = waited_since(g, at_ns);

    /* With nothing in flight no connection is coming free; with no reply
     * yet there is nothing to go by (a server that holds its requests,
     * 19,000 connections at once, looks the same as one that is about to
     * answer): the pool grows as the arrivals need, connects paced as
     * ever (pace.h). */
    if (in_flight == 0 || g->reply_avg_ns == 0)
        return 1;
    if (g->grew_pass == g->pass)
        return 0;
    return (double)n_conns < needed(g, rate_per_s) ||
           (now_ns >= since && now_ns - since >= g->reply_avg_ns);
}

void grow_grew(struct grow *g)
{
    g->grew_pass = g->pass;
}

uint64_t grow_retry_ns(const struct grow *g, uint64_t at_ns)
{
    return waited_since(g, at_ns) + g->reply_avg_ns;
}
