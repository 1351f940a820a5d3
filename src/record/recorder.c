/*
 * The recorder: a thread that owns a writer and drains a bounded ring of
 * tick copies into it, so the producer (the engine's loop) never waits on
 * the disk. The lock guards the ring, the flags and the counts; the thread
 * drops it while it writes. Every signal is blocked in the thread, so a file
 * size limit arrives as EFBIG instead of SIGXFSZ killing the process.
 */
#include "record/record.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "core/msg.h"
#include "core/xalloc.h"
#include "record/internal.h"

struct record_recorder {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct record_writer *w; /* the thread's alone until the join */
    int is_stopping;
    struct record_trailer_info trailer;
    struct record_result result; /* counts, under lock */
    size_t cap;
    size_t head; /* next to take */
    size_t len;  /* queued */
    struct tick *ring[];
};

/* Copies what the writer just did into the shared counts. */
static void publish(struct record_recorder *rec)
{
    char reason[RECORD_REASON_MAX];
    int error = record_writer_error(rec->w, reason, sizeof(reason));
    uint64_t written = record_writer_ticks(rec->w);
    uint64_t not_recorded = record_writer_not_recorded(rec->w);

    pthread_mutex_lock(&rec->lock);
    rec->result.ticks_written = written;
    rec->result.ticks_not_recorded = not_recorded;
    if (error && !rec->result.error) {
        rec->result.error = error;
        memcpy(rec->result.reason, reason, sizeof(reason));
    }
    pthread_mutex_unlock(&rec->lock);
}

static void *run(void *arg)
{
    struct record_recorder *rec = arg;

    publish(rec);
    pthread_mutex_lock(&rec->lock);
    for (;;) {
        struct tick *t;

        while (rec->len == 0 && !rec->is_stopping)
            pthread_cond_wait(&rec->wake, &rec->lock);
        if (rec->len == 0)
            break;
        t = rec->ring[rec->head];
        rec->head = (rec->head + 1) % rec->cap;
        rec->len--;
        pthread_mutex_unlock(&rec->lock);
        (void)record_write_tick(rec->w, t);
        tick_free(t);
        publish(rec);
        pthread_mutex_lock(&rec->lock);
    }
    rec->trailer.ticks_dropped = rec->result.ticks_dropped;
    pthread_mutex_unlock(&rec->lock);
    return NULL;
}

int record_recorder_start(struct record_writer *w, size_t queue_len, struct record_recorder **out)
{
    struct record_recorder *rec;
    sigset_t all, old;
    int rc;

    *out = NULL;
    if (queue_len == 0)
        queue_len = 1;
    rec = xcalloc(1, sizeof(*rec) + queue_len * sizeof(rec->ring[0]));
    rec->w = w;
    rec->cap = queue_len;
    pthread_mutex_init(&rec->lock, NULL);
    pthread_cond_init(&rec->wake, NULL);
    /* The thread inherits the mask: it takes no signal, SIGXFSZ included. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&rec->thread, NULL, run, rec);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&rec->wake);
        pthread_mutex_destroy(&rec->lock);
        free(rec);
        return -rc;
    }
    *out = rec;
    return 0;
}

int record_recorder_push(struct record_recorder *rec, const struct tick *t)
{
    size_t size = offsetof(struct tick, data) + t->data_len;
    /* Copied before taking the lock, so the writing thread never waits on it. */
    struct tick *copy = xmalloc(size);

    memcpy(copy, t, size);
    copy->data_cap = t->data_len;
    pthread_mutex_lock(&rec->lock);
    if (rec->len == rec->cap || rec->is_stopping) {
        rec->result.ticks_dropped++;
        pthread_mutex_unlock(&rec->lock);
        tick_free(copy);
        return -EAGAIN;
    }
    rec->ring[(rec->head + rec->len) % rec->cap] = copy;
    rec->len++;
    pthread_cond_signal(&rec->wake);
    pthread_mutex_unlock(&rec->lock);
    return 0;
}

void record_recorder_status(struct record_recorder *rec, struct record_result *out)
{
    pthread_mutex_lock(&rec->lock);
    *out = rec->result;
    pthread_mutex_unlock(&rec->lock);
}

int record_recorder_stop(struct record_recorder *rec, const struct record_trailer_info *trailer,
                         struct record_result *out)
{
    struct record_result res;
    int rc;

    if (!rec)
        return 0;
    pthread_mutex_lock(&rec->lock);
    if (trailer)
        rec->trailer = *trailer;
    else
        rec->trailer.reason = "closed";
    rec->is_stopping = 1;
    pthread_cond_signal(&rec->wake);
    pthread_mutex_unlock(&rec->lock);
    pthread_join(rec->thread, NULL);
    rec->trailer.ticks_dropped += trailer ? trailer->ticks_dropped : 0;
    rc = record_close(rec->w, &rec->trailer);
    res = rec->result;
    if (rc != 0 && res.error == 0) {
        res.error = rc;
        msg_set(res.reason, sizeof(res.reason), "recording stopped: closing the file: %s",
                msg_errno(-rc).text);
    }
    pthread_cond_destroy(&rec->wake);
    pthread_mutex_destroy(&rec->lock);
    free(rec);
    if (out)
        *out = res;
    return res.error;
}
