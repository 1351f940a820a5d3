/*
 * capacity: the simulated server behind each endpoint. `workers` workers
 * serve requests first come, first served, each for its endpoint's service
 * time; requests wait in a queue for a free worker, and past `queue_max`
 * waiting the answer is 503. Nothing really sleeps: admission computes when
 * the request would be served and the caller delays its answer until then,
 * so latency grows with the queue as it would in a real server.
 */
#include "target/internal.h"

#include <errno.h>
#include <stdlib.h>

#include "core/xalloc.h"

#define CAPACITY_MAX_WORKERS 100000

struct capacity {
    pthread_mutex_t lock;
    uint64_t *free_at_ns; /* when each worker is next free */
    unsigned n_workers;   /* size of free_at_ns */
    uint64_t in_system;   /* admitted and not yet answered */
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

int target__capacity_admit(struct capacity *c, unsigned workers, unsigned queue_max,
                           uint64_t service_us, uint64_t now_ns, uint64_t *wait_us)
{
    uint64_t start;
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
