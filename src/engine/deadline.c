/*
 * deadline: wakes a worker's loop at an absolute time to the microsecond,
 * for the open model's intended starts. libuv's timers count whole
 * milliseconds, which made every request up to 1 ms late. A timerfd
 * (Linux) on CLOCK_MONOTONIC, watched by a uv_poll_t, is armed a little
 * before the time, by the median wake-up latency it has seen; over the
 * rest of the way the loop polls (a uv_idle_t), spinning in user space
 * between looks at its sockets, and fires on the first pass at or after
 * the time. A time nearer than a sleep would cost (its wake-up latency
 * and what arming the timer takes) is polled for without sleeping at all.
 * Runs on the worker's thread; init and close also before its thread
 * starts. docs/design.md ("Waiting for the next start") says why.
 */
#include "engine/deadline.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/timerfd.h>

#include "core/clock.h"
#include "core/container.h"
#include "core/msg.h"

/* The lead follows this quantile of the wake-up latencies (in 1/10): the
 * median, so that half the wake-ups come a little early (polled the rest of
 * the way: CPU) and half a little late (send lag), both by the spread of
 * the latencies, not by their size. */
#define LEAD_QUANTILE_TENTHS 5
#define LEAD_STEP_NS 1000 /* the estimate's step, split between up and down */
/* The longest the loop spins in user space before it looks at its sockets
 * again (one epoll_wait that does not sleep): how late a reply can be read
 * while the loop waits for a start. */
#define SPIN_SLICE_NS 3000

struct timespec deadline_timespec(uint64_t ns)
{
    struct timespec ts;

    ts.tv_sec = (time_t)(ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    return ts;
}

uint64_t deadline_lead_update(uint64_t lead_ns, uint64_t latency_ns)
{
    /* A frugal quantile estimate: it settles where the steps up (by 9)
     * balance the steps down (by 1), i.e. where 1 latency in 10 is above
     * it. One latency, however long (a preempted thread), moves it by one
     * step only. */
    if (latency_ns > lead_ns)
        lead_ns += LEAD_STEP_NS * LEAD_QUANTILE_TENTHS / 10;
    else if (lead_ns >= LEAD_STEP_NS * (10 - LEAD_QUANTILE_TENTHS) / 10)
        lead_ns -= LEAD_STEP_NS * (10 - LEAD_QUANTILE_TENTHS) / 10;
    return lead_ns < DEADLINE_LEAD_MAX_NS ? lead_ns : DEADLINE_LEAD_MAX_NS;
}

uint64_t deadline_cost_update(uint64_t cost_ns, uint64_t took_ns)
{
    /* A moving average over about 8 settings; one preempted call (ms)
     * weighs an eighth, and the bound keeps it within the lead's. Setting
     * a timer that is the CPU's next costs what programming its clock
     * costs: a fraction of a us on bare metal, 10 to 14 us in the VM this
     * was measured in, where it traps to the hypervisor; the interrupt
     * when it fires costs about as much again, and the wake-up more. */
    cost_ns = cost_ns - cost_ns / 8 + took_ns / 8;
    return cost_ns < DEADLINE_LEAD_MAX_NS ? cost_ns : DEADLINE_LEAD_MAX_NS;
}

/* Whether d has its handles and fd, and they are not closing. */
static int is_usable(struct deadline *d)
{
    return d->fd >= 0 && !uv_is_closing((uv_handle_t *)&d->idle);
}

/* Sets the timerfd for at_ns (DEADLINE_NONE: clears it) unless it holds
 * that already: at high rates the loop polls from one start to the next,
 * and clearing a clear timer would cost a system call a request. */
static void set_timer(struct deadline *d, uint64_t at_ns)
{
    struct itimerspec its = {{0, 0}, {0, 0}};
    uint64_t t0;

    if (at_ns == d->woken_for_ns)
        return;
    if (at_ns != DEADLINE_NONE)
        its.it_value = deadline_timespec(at_ns);
    /* An absolute time: never late by the time it takes to get here. It
     * fails only on a bad fd or value. */
    t0 = clock_now_ns();
    timerfd_settime(d->fd, TFD_TIMER_ABSTIME, &its, NULL);
    if (at_ns != DEADLINE_NONE)
        d->sleep_cost_ns = deadline_cost_update(d->sleep_cost_ns, clock_now_ns() - t0);
    d->woken_for_ns = at_ns;
}

/* Fires d: disarmed first, so that fn may arm it again. */
static void fire(struct deadline *d)
{
    d->at_ns = DEADLINE_NONE;
    uv_idle_stop(&d->idle);
    d->fn(d);
}

/* Each loop pass over the last stretch: spins in user space (the clock is
 * read without a system call) for at most SPIN_SLICE_NS, and fires once the
 * time is reached; otherwise the loop looks at its sockets and comes back. */
static void on_idle(uv_idle_t *i)
{
    struct deadline *d = container_of(i, struct deadline, idle);
    uint64_t now;

    if (d->at_ns == DEADLINE_NONE) {
        uv_idle_stop(i);
        return;
    }
    now = clock_spin(d->at_ns, SPIN_SLICE_NS);
    if (now >= d->at_ns)
        fire(d);
}

static void on_ready(uv_poll_t *p, int status, int events)
{
    struct deadline *d = container_of(p, struct deadline, poll);
    uint64_t expirations, now, woken_for = d->woken_for_ns;

    (void)status;
    (void)events;
    /* Reading clears the readiness. EAGAIN: a callback earlier in this
     * loop pass set the timer again (which resets it), so it has not fired. */
    if (read(d->fd, &expirations, sizeof(expirations)) < 0)
        return;
    d->woken_for_ns = DEADLINE_NONE; /* it fired, so it is clear */
    if (d->at_ns == DEADLINE_NONE || woken_for == DEADLINE_NONE)
        return;
    now = clock_now_ns();
    d->lead_ns = deadline_lead_update(d->lead_ns, now - woken_for);
    if (now >= d->at_ns)
        fire(d);
    else
        uv_idle_start(&d->idle, on_idle);
}

int deadline_init(uv_loop_t *loop, struct deadline *d, deadline_fn *fn, char *err, size_t err_len)
{
    int rc;

    d->at_ns = DEADLINE_NONE;
    d->woken_for_ns = DEADLINE_NONE;
    d->lead_ns = 0;
    d->sleep_cost_ns = 0;
    d->fn = fn;
    d->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (d->fd < 0) {
        rc = -errno;
        snprintf(err, err_len, "brink: engine: timerfd_create: %s", msg_errno(errno).text);
        return rc;
    }
    uv_idle_init(loop, &d->idle);
    rc = uv_poll_init(loop, &d->poll, d->fd);
    if (rc != 0) {
        snprintf(err, err_len, "brink: engine: cannot watch the timerfd: %s", msg_errno(-rc).text);
        uv_close((uv_handle_t *)&d->idle, NULL);
        close(d->fd);
        d->fd = -1;
        return rc;
    }
    rc = uv_poll_start(&d->poll, UV_READABLE, on_ready);
    if (rc != 0) {
        snprintf(err, err_len, "brink: engine: cannot watch the timerfd: %s", msg_errno(-rc).text);
        deadline_close(d);
    }
    return rc;
}

void deadline_arm(struct deadline *d, uint64_t at_ns)
{
    /* Most pumps leave the next intended start where it was. */
    if (at_ns == d->at_ns || !is_usable(d))
        return;
    d->at_ns = at_ns;
    if (at_ns <= clock_now_ns() + d->lead_ns + d->sleep_cost_ns) {
        /* Within the stretch a wake-up would take, or so near that the
         * sleep would cost more than the wait: poll the rest. */
        set_timer(d, DEADLINE_NONE);
        uv_idle_start(&d->idle, on_idle);
        return;
    }
    uv_idle_stop(&d->idle);
    set_timer(d, at_ns - d->lead_ns);
}

void deadline_disarm(struct deadline *d)
{
    if (!is_usable(d))
        return;
    set_timer(d, DEADLINE_NONE);
    uv_idle_stop(&d->idle);
    d->at_ns = DEADLINE_NONE;
}

/* The fd is closed once the loop no longer watches it (libuv: never close a
 * polled fd before its handle). */
static void on_poll_closed(uv_handle_t *h)
{
    struct deadline *d = container_of((uv_poll_t *)h, struct deadline, poll);

    close(d->fd);
    d->fd = -1;
}

void deadline_close(struct deadline *d)
{
    if (!is_usable(d))
        return;
    d->at_ns = DEADLINE_NONE;
    uv_close((uv_handle_t *)&d->idle, NULL);
    uv_close((uv_handle_t *)&d->poll, on_poll_closed);
}
