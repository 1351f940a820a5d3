/*
 * sched: one timer thread for every delayed answer. libmicrohttpd's pool
 * threads must never sleep (a sleeping thread stalls every connection it
 * owns), so a request that has to wait suspends its connection and hands it
 * here; the thread resumes it when its time comes. A task function lets the
 * thread write to a suspended connection's socket (the drip fault) first.
 */
#include "target/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "core/clock.h"
#include "core/xalloc.h"

struct timer {
    uint64_t due_ns;
    struct MHD_Connection *conn;
    sched_fn *fn;
    void *arg;
};

struct sched {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    struct timer *heap; /* a binary min-heap on due_ns */
    size_t n, cap;
    int stopping;
};

static void swap(struct timer *a, struct timer *b)
{
    struct timer t = *a;

    *a = *b;
    *b = t;
}

static void heap_push(struct sched *s, struct timer t)
{
    size_t i;

    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->heap = xrealloc(s->heap, s->cap * sizeof(*s->heap));
    }
    i = s->n++;
    s->heap[i] = t;
    while (i > 0 && s->heap[(i - 1) / 2].due_ns > s->heap[i].due_ns) {
        swap(&s->heap[(i - 1) / 2], &s->heap[i]);
        i = (i - 1) / 2;
    }
}

static struct timer heap_pop(struct sched *s)
{
    struct timer top = s->heap[0];
    size_t i = 0;

    s->heap[0] = s->heap[--s->n];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->n && s->heap[l].due_ns < s->heap[m].due_ns)
            m = l;
        if (r < s->n && s->heap[r].due_ns < s->heap[m].due_ns)
            m = r;
        if (m == i)
            break;
        swap(&s->heap[m], &s->heap[i]);
        i = m;
    }
    return top;
}

/* Runs one due timer outside the lock: its task, then the resume. */
static void fire(struct sched *s, struct timer t)
{
    if (t.fn) {
        int next_us = t.fn(t.arg);
        if (next_us > 0) {
            pthread_mutex_lock(&s->lock);
            if (!s->stopping) {
                t.due_ns = clock_now_ns() + (uint64_t)next_us * 1000u;
                heap_push(s, t);
                pthread_mutex_unlock(&s->lock);
                return;
            }
            pthread_mutex_unlock(&s->lock);
        }
    }
    MHD_resume_connection(t.conn);
}

static void *run(void *arg)
{
    struct sched *s = arg;

    pthread_mutex_lock(&s->lock);
    while (!s->stopping) {
        uint64_t now = clock_now_ns();
        if (s->n == 0) {
            pthread_cond_wait(&s->wake, &s->lock);
        } else if (s->heap[0].due_ns > now) {
            struct timespec ts;
            ts.tv_sec = (time_t)(s->heap[0].due_ns / 1000000000u);
            ts.tv_nsec = (long)(s->heap[0].due_ns % 1000000000u);
            pthread_cond_timedwait(&s->wake, &s->lock, &ts);
        } else {
            struct timer t = heap_pop(s);
            pthread_mutex_unlock(&s->lock);
            fire(s, t);
            pthread_mutex_lock(&s->lock);
        }
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

int sched_new(struct sched **out)
{
    struct sched *s = xcalloc(1, sizeof(*s));
    pthread_condattr_t attr;
    int rc;

    pthread_mutex_init(&s->lock, NULL);
    /* Deadlines come from the monotonic clock, so the wait must use it too. */
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wake, &attr);
    pthread_condattr_destroy(&attr);
    rc = pthread_create(&s->thread, NULL, run, s);
    if (rc) {
        pthread_cond_destroy(&s->wake);
        pthread_mutex_destroy(&s->lock);
        free(s);
        return -rc;
    }
    *out = s;
    return 0;
}

int sched_add(struct sched *s, struct MHD_Connection *conn, uint64_t due_ns, sched_fn *fn,
              void *arg)
{
    struct timer t = {.due_ns = due_ns, .conn = conn, .fn = fn, .arg = arg};

    pthread_mutex_lock(&s->lock);
    if (s->stopping) {
        pthread_mutex_unlock(&s->lock);
        return -ECANCELED;
    }
    heap_push(s, t);
    if (s->heap[0].conn == conn)
        pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    return 0;
}

void sched_stop(struct sched *s)
{
    pthread_mutex_lock(&s->lock);
    s->stopping = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    /* The thread is gone: whatever still waits is resumed now, early. */
    while (s->n)
        MHD_resume_connection(heap_pop(s).conn);
}

void sched_free(struct sched *s)
{
    if (!s)
        return;
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    free(s->heap);
    free(s);
}
