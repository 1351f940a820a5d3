/*
 * sched: one timer thread for every delayed answer. libmicrohttpd's pool
 * threads must never sleep (a sleeping thread stalls every connection it
 * owns), so a request that has to wait suspends its connection and hands it
 * here; the thread resumes it when its time comes. A task function lets the
 * thread write to a suspended connection's socket (the drip fault) first.
 *
 * libmicrohttpd polls no suspended connection, so it cannot see a client
 * leave during the wait. The thread therefore watches each waiting socket
 * in its own epoll set for the client's close (EPOLLRDHUP: the FIN;
 * EPOLLHUP, EPOLLERR: a reset) and resumes that connection at once, with
 * its peer_gone flag set. An eventfd in the same set wakes the thread for a
 * new earliest deadline and for the stop.
 */
#include "target/internal.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/xalloc.h"

#define SCHED_EVENTS 64        /* epoll events taken per wake-up */
#define SCHED_MAX_WAIT_MS 6000 /* the longest single epoll_wait; then look again */

/* One suspended connection: owned by the scheduler from target__sched_add until it
 * is resumed. While fd >= 0 it is also registered in the epoll set, with
 * itself as the event's data. */
struct timer {
    uint64_t due_ns;
    struct MHD_Connection *conn;
    sched_fn *fn;
    void *arg;
    atomic_bool *peer_gone; /* borrowed; NULL: not watched */
    int fd;                 /* the watched socket, or -1 */
    size_t pos;             /* index in the heap */
};

struct sched {
    pthread_mutex_t lock; /* guards heap, n, cap and stopping */
    pthread_t thread;
    int epoll_fd;        /* the watched sockets and wake_fd */
    int wake_fd;         /* eventfd: an earlier deadline, or the stop */
    struct timer **heap; /* a binary min-heap on due_ns */
    size_t n, cap;
    int stopping;
};

static void place(struct sched *s, size_t i, struct timer *t)
{
    s->heap[i] = t;
    t->pos = i;
}

static void sift_up(struct sched *s, size_t i)
{
    struct timer *t = s->heap[i];

    while (i > 0 && s->heap[(i - 1) / 2]->due_ns > t->due_ns) {
        place(s, i, s->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    place(s, i, t);
}

static void sift_down(struct sched *s, size_t i)
{
    struct timer *t = s->heap[i];

    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = l;
        if (l >= s->n)
            break;
        if (r < s->n && s->heap[r]->due_ns < s->heap[l]->due_ns)
            m = r;
        if (s->heap[m]->due_ns >= t->due_ns)
            break;
        place(s, i, s->heap[m]);
        i = m;
    }
    place(s, i, t);
}

static void heap_push(struct sched *s, struct timer *t)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->heap = xrealloc(s->heap, s->cap * sizeof(*s->heap));
    }
    place(s, s->n++, t);
    sift_up(s, t->pos);
}

/* Takes the timer at index i out of the heap. */
static struct timer *heap_remove(struct sched *s, size_t i)
{
    struct timer *t = s->heap[i], *last;

    s->n--;
    if (i < s->n) {
        /* The last timer fills the hole; it may belong above it or below. */
        last = s->heap[s->n];
        place(s, i, last);
        sift_down(s, i);
        sift_up(s, last->pos);
    }
    return t;
}

/* Stops watching t's socket, then resumes its connection and frees it. The
 * socket leaves the epoll set first: once resumed, libmicrohttpd may close
 * it and the number may come back for another connection. */
static void resume(struct sched *s, struct timer *t, int is_peer_gone)
{
    if (t->fd >= 0)
        epoll_ctl(s->epoll_fd, EPOLL_CTL_DEL, t->fd, NULL);
    if (is_peer_gone && t->peer_gone)
        atomic_store(t->peer_gone, 1);
    MHD_resume_connection(t->conn);
    free(t);
}

/* Runs one due timer outside the lock: its task, then the resume. */
static void fire(struct sched *s, struct timer *t)
{
    int next_us = t->fn ? t->fn(t->arg) : 0;

    if (next_us > 0) {
        pthread_mutex_lock(&s->lock);
        if (!s->stopping) {
            t->due_ns = clock_now_ns() + (uint64_t)next_us * 1000u;
            heap_push(s, t);
            pthread_mutex_unlock(&s->lock);
            return;
        }
        pthread_mutex_unlock(&s->lock);
    }
    resume(s, t, next_us < 0);
}

/* Fires every timer due by now; ones a task puts back wait for the next round. */
static void fire_due(struct sched *s)
{
    uint64_t now = clock_now_ns();

    for (;;) {
        struct timer *t = NULL;
        pthread_mutex_lock(&s->lock);
        if (!s->stopping && s->n > 0 && s->heap[0]->due_ns <= now)
            t = heap_remove(s, 0);
        pthread_mutex_unlock(&s->lock);
        if (!t)
            return;
        fire(s, t);
    }
}

/* The client of t left: its wait ends now. */
static void peer_left(struct sched *s, struct timer *t)
{
    pthread_mutex_lock(&s->lock);
    if (s->stopping) {
        pthread_mutex_unlock(&s->lock); /* target__sched_stop resumes it */
        return;
    }
    /* Only this thread takes timers out of the heap, and it unregisters a
     * timer's socket before it frees the timer, so a reported timer is in
     * the heap. */
    assert(t->pos < s->n && s->heap[t->pos] == t);
    heap_remove(s, t->pos);
    pthread_mutex_unlock(&s->lock);
    resume(s, t, 1);
}

/* Milliseconds until the earliest deadline (rounded up), or -1 for none. */
static int wait_ms(struct sched *s)
{
    uint64_t now = clock_now_ns(), ms;
    int rc = -1;

    pthread_mutex_lock(&s->lock);
    if (s->stopping) {
        rc = 0;
    } else if (s->n > 0) {
        ms = s->heap[0]->due_ns > now ? (s->heap[0]->due_ns - now + 999999u) / 1000000u : 0;
        rc = ms > SCHED_MAX_WAIT_MS ? SCHED_MAX_WAIT_MS : (int)ms;
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static int is_stopping(struct sched *s)
{
    int stopping;

    pthread_mutex_lock(&s->lock);
    stopping = s->stopping;
    pthread_mutex_unlock(&s->lock);
    return stopping;
}

static void *run(void *arg)
{
    struct sched *s = arg;
    struct epoll_event ev[SCHED_EVENTS];
    eventfd_t count;

    while (!is_stopping(s)) {
        int n = epoll_wait(s->epoll_fd, ev, SCHED_EVENTS, wait_ms(s));
        for (int i = 0; i < n; i++) {
            if (ev[i].data.ptr == NULL)
                eventfd_read(s->wake_fd, &count);
            else
                peer_left(s, ev[i].data.ptr);
        }
        fire_due(s);
    }
    return NULL;
}

int target__sched_new(struct sched **out)
{
    struct sched *s = xcalloc(1, sizeof(*s));
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    int rc;

    s->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (s->epoll_fd < 0) {
        rc = errno;
        goto out_free;
    }
    s->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (s->wake_fd < 0) {
        rc = errno;
        goto out_close_epoll;
    }
    if (epoll_ctl(s->epoll_fd, EPOLL_CTL_ADD, s->wake_fd, &ev) != 0) {
        rc = errno;
        goto out_close_wake;
    }
    pthread_mutex_init(&s->lock, NULL);
    rc = pthread_create(&s->thread, NULL, run, s);
    if (rc) {
        pthread_mutex_destroy(&s->lock);
        goto out_close_wake;
    }
    *out = s;
    return 0;

out_close_wake:
    close(s->wake_fd);
out_close_epoll:
    close(s->epoll_fd);
out_free:
    free(s);
    return -rc;
}

static int conn_fd(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

    return ci ? ci->connect_fd : -1;
}

int target__sched_add(struct sched *s, struct MHD_Connection *conn, uint64_t due_ns, sched_fn *fn,
                      void *arg, atomic_bool *peer_gone)
{
    struct timer *t = xmalloc(sizeof(*t));
    struct epoll_event ev = {.events = EPOLLRDHUP, .data.ptr = t};
    int is_first;

    *t = (struct timer){
        .due_ns = due_ns, .conn = conn, .fn = fn, .arg = arg, .peer_gone = peer_gone, .fd = -1};
    pthread_mutex_lock(&s->lock);
    if (s->stopping) {
        pthread_mutex_unlock(&s->lock);
        free(t);
        return -ECANCELED;
    }
    heap_push(s, t);
    /* Registered under the lock, so an event reported at once finds the
     * timer in the heap. EPOLLHUP and EPOLLERR are always reported; a
     * client that already left is reported at once too. Not watched when
     * the socket cannot be registered: the wait then runs its course. */
    if (peer_gone) {
        int fd = conn_fd(conn);
        if (fd >= 0 && epoll_ctl(s->epoll_fd, EPOLL_CTL_ADD, fd, &ev) == 0)
            t->fd = fd;
    }
    is_first = s->heap[0] == t;
    pthread_mutex_unlock(&s->lock);
    if (is_first)
        eventfd_write(s->wake_fd, 1);
    return 0;
}

void target__sched_stop(struct sched *s)
{
    pthread_mutex_lock(&s->lock);
    s->stopping = 1;
    pthread_mutex_unlock(&s->lock);
    eventfd_write(s->wake_fd, 1);
    pthread_join(s->thread, NULL);
    /* The thread is gone: whatever still waits is resumed now, early. */
    while (s->n)
        resume(s, heap_remove(s, s->n - 1), 0);
}

void target__sched_free(struct sched *s)
{
    if (!s)
        return;
    close(s->wake_fd);
    close(s->epoll_fd);
    pthread_mutex_destroy(&s->lock);
    free(s->heap);
    free(s);
}
