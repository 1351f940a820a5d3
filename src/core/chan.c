#include "core/chan.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "core/tick.h"
#include "core/xalloc.h"

/*
 * One mutex guards both queues. Contention is tiny (a tick a second one way,
 * a keypress now and then the other), and a plain mutex gives TSan the
 * happens-before edges that an fd-based wake (uv_async) would hide from it.
 */
struct chan {
    pthread_mutex_t lock;
    pthread_cond_t tick_ready;
    struct tick **ticks; /* ring of max_ticks */
    size_t max_ticks;
    size_t tick_head; /* index of the oldest */
    size_t n_ticks;
    uint64_t dropped;
    int closed;
    struct command *cmds; /* ring of max_cmds */
    size_t max_cmds;
    size_t cmd_head;
    size_t n_cmds;
    chan_wake_fn *wake;
    void *wake_arg;
};

struct chan *chan_new(size_t max_ticks, size_t max_commands)
{
    struct chan *ch = xcalloc(1, sizeof(*ch));
    pthread_condattr_t attr;

    ch->max_ticks = max_ticks ? max_ticks : 1;
    ch->max_cmds = max_commands ? max_commands : 1;
    ch->ticks = xcalloc(ch->max_ticks, sizeof(*ch->ticks));
    ch->cmds = xcalloc(ch->max_cmds, sizeof(*ch->cmds));
    pthread_mutex_init(&ch->lock, NULL);
    /* Timed waits measure on the monotonic clock, so a wall-clock jump
     * neither cuts a wait short nor stretches it. */
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&ch->tick_ready, &attr);
    pthread_condattr_destroy(&attr);
    return ch;
}

void chan_free(struct chan *ch)
{
    if (!ch)
        return;
    for (size_t i = 0; i < ch->n_ticks; i++)
        tick_free(ch->ticks[(ch->tick_head + i) % ch->max_ticks]);
    pthread_cond_destroy(&ch->tick_ready);
    pthread_mutex_destroy(&ch->lock);
    free(ch->ticks);
    free(ch->cmds);
    free(ch);
}

int chan_publish(struct chan *ch, struct tick *t)
{
    int rc = 0;

    pthread_mutex_lock(&ch->lock);
    if (ch->closed) {
        rc = -EPIPE;
    } else if (ch->n_ticks == ch->max_ticks) {
        /* Dropping the newest keeps the delivered ticks in order; the count
         * tells the console that its charts have a gap. */
        ch->dropped++;
        rc = -ENOBUFS;
    } else {
        ch->ticks[(ch->tick_head + ch->n_ticks) % ch->max_ticks] = t;
        ch->n_ticks++;
        t = NULL;
        pthread_cond_signal(&ch->tick_ready);
    }
    pthread_mutex_unlock(&ch->lock);
    tick_free(t);
    return rc;
}

void chan_close(struct chan *ch)
{
    pthread_mutex_lock(&ch->lock);
    ch->closed = 1;
    pthread_cond_broadcast(&ch->tick_ready);
    pthread_mutex_unlock(&ch->lock);
}

/* Pops the oldest tick; the lock is held. */
static struct tick *pop_tick(struct chan *ch)
{
    struct tick *t;

    if (ch->n_ticks == 0)
        return NULL;
    t = ch->ticks[ch->tick_head];
    ch->ticks[ch->tick_head] = NULL;
    ch->tick_head = (ch->tick_head + 1) % ch->max_ticks;
    ch->n_ticks--;
    return t;
}

struct tick *chan_take(struct chan *ch)
{
    struct tick *t;

    pthread_mutex_lock(&ch->lock);
    t = pop_tick(ch);
    pthread_mutex_unlock(&ch->lock);
    return t;
}

struct tick *chan_take_wait(struct chan *ch, unsigned timeout_ms)
{
    struct timespec deadline;
    struct tick *t;

    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&ch->lock);
    while (ch->n_ticks == 0 && !ch->closed) {
        if (pthread_cond_timedwait(&ch->tick_ready, &ch->lock, &deadline) == ETIMEDOUT)
            break;
    }
    t = pop_tick(ch);
    pthread_mutex_unlock(&ch->lock);
    return t;
}

int chan_is_done(struct chan *ch)
{
    int done;

    pthread_mutex_lock(&ch->lock);
    done = ch->closed && ch->n_ticks == 0;
    pthread_mutex_unlock(&ch->lock);
    return done;
}

uint64_t chan_dropped(struct chan *ch)
{
    uint64_t n;

    pthread_mutex_lock(&ch->lock);
    n = ch->dropped;
    pthread_mutex_unlock(&ch->lock);
    return n;
}

int chan_send(struct chan *ch, const struct command *cmd)
{
    chan_wake_fn *wake;
    void *arg;

    pthread_mutex_lock(&ch->lock);
    if (ch->n_cmds == ch->max_cmds) {
        pthread_mutex_unlock(&ch->lock);
        return -EAGAIN;
    }
    ch->cmds[(ch->cmd_head + ch->n_cmds) % ch->max_cmds] = *cmd;
    ch->n_cmds++;
    wake = ch->wake;
    arg = ch->wake_arg;
    pthread_mutex_unlock(&ch->lock);
    /* Woken outside the lock: the engine's drain takes the same lock. */
    if (wake)
        wake(arg);
    return 0;
}

void chan_set_wake(struct chan *ch, chan_wake_fn *fn, void *arg)
{
    pthread_mutex_lock(&ch->lock);
    ch->wake = fn;
    ch->wake_arg = arg;
    pthread_mutex_unlock(&ch->lock);
}

int chan_recv(struct chan *ch, struct command *cmd)
{
    int got = 0;

    pthread_mutex_lock(&ch->lock);
    if (ch->n_cmds > 0) {
        *cmd = ch->cmds[ch->cmd_head];
        ch->cmd_head = (ch->cmd_head + 1) % ch->max_cmds;
        ch->n_cmds--;
        got = 1;
    }
    pthread_mutex_unlock(&ch->lock);
    return got;
}
