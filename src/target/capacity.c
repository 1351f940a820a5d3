/*
 * capacity: the simulated server behind each endpoint. `workers` workers
 * serve requests first come, first served, each for its endpoint's service
 * time; requests wait in a queue for a free worker, and past `queue_max`
 * waiting the answer is 503. Nothing really sleeps: admission computes when
 * the request would be served and the caller delays its answer until then,
 * so latency grows with the queue as it would in a real server.
 *
 * Contention stretches each service time by the requests in service at its
 * admission (or the connections open, when more: the users), as the
 * Universal Scalability Law says a shared resource does (sigma: a
 * serialised share; kappa: each request's cost to every other).
 * Each such time is drawn uniformly from 0.75 to 1.25 times the law's:
 * equal times would keep the users that joined at one moment in step,
 * their answers in bursts a measuring window cuts at random (wider draws
 * would add noise of their own to a short step of few users).
 */
#include "target/internal.h"

#include <errno.h>
#include <stdlib.h>

#include "core/rng.h"
#include "core/xalloc.h"

#define CAPACITY_MAX_WORKERS 100000

struct capacity {
    pthread_mutex_t lock;
    uint64_t *free_at_ns; /* when each worker is next free */
    unsigned n_workers;   /* size of free_at_ns */
    uint64_t in_system;   /* admitted and not yet answered */
    uint64_t rng;         /* draws of contended service times */
};

struct capacity *target__capacity_new(void)
{
    struct capacity *c = xcalloc(1, sizeof(*c));

    pthread_mutex_init(&c->lock, NULL);
    return c;
}

void target__capacity_free(struct capacity *c)
{
    if (!c)
        return;
    pthread_mutex_destroy(&c->lock);
    free(c->free_at_ns);
    free(c);
}

static uint64_t waiting(const struct capacity *c, unsigned workers)
{
    return c->in_system > workers ? c->in_system - workers : 0;
}

/* service_us stretched by contention with n requests in service, times a
 * draw in [0.75, 1.25) (under the lock). */
static uint64_t contended_us(struct capacity *c, uint64_t service_us, double sigma, double kappa,
                             uint64_t n)
{
    double d = (double)n, f = 1.0 + sigma * (d - 1.0) + kappa * d * (d - 1.0);
    double jitter = 0.75 + 0.5 * (double)rng_below(&c->rng, 1u << 20) / (double)(1u << 20);

    return (uint64_t)((double)service_us * f * jitter + 0.5);
}

int target__capacity_admit(struct capacity *c, unsigned workers, unsigned queue_max,
                           uint64_t service_us, double sigma, double kappa, uint64_t conns,
                           uint64_t now_ns, uint64_t *wait_us)
{
    uint64_t start, n;
    unsigned best = 0;

    if (workers < 1)
        workers = 1;
    if (workers > CAPACITY_MAX_WORKERS)
        workers = CAPACITY_MAX_WORKERS;
    pthread_mutex_lock(&c->lock);
    if (c->n_workers != workers) {
        /* Resized through control: new workers start free. */
        c->free_at_ns = xrealloc(c->free_at_ns, workers * sizeof(*c->free_at_ns));
        for (unsigned i = c->n_workers; i < workers; i++)
            c->free_at_ns[i] = 0;
        c->n_workers = workers;
    }
    if (c->in_system >= workers && waiting(c, workers) >= queue_max) {
        pthread_mutex_unlock(&c->lock);
        return -EBUSY;
    }
    for (unsigned i = 1; i < workers; i++)
        if (c->free_at_ns[i] < c->free_at_ns[best])
            best = i;
    if (sigma > 0 || kappa > 0) {
        n = c->in_system + 1 > conns ? c->in_system + 1 : conns;
        service_us = contended_us(c, service_us, sigma, kappa, n < workers ? n : workers);
    }
    start = c->free_at_ns[best] > now_ns ? c->free_at_ns[best] : now_ns;
    c->free_at_ns[best] = start + service_us * 1000u;
    c->in_system++;
    pthread_mutex_unlock(&c->lock);
    *wait_us = (start - now_ns) / 1000u + service_us;
    return 0;
}

void target__capacity_leave(struct capacity *c)
{
    pthread_mutex_lock(&c->lock);
    if (c->in_system)
        c->in_system--;
    pthread_mutex_unlock(&c->lock);
}

uint64_t target__capacity_queue(struct capacity *c, unsigned workers)
{
    uint64_t n;

    pthread_mutex_lock(&c->lock);
    n = waiting(c, workers);
    pthread_mutex_unlock(&c->lock);
    return n;
}
