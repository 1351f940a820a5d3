/*
 * The metrics endpoint: serve.c's one thread answers on a socket bound
 * here, so the address and its errors are brink's. The state is copied
 * under the lock and rendered outside it; the tick thread holds the lock
 * only for a fold.
 */
#include "metrics/metrics.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/hist.h"
#include "core/listen.h"
#include "core/msg.h"
#include "core/tick.h"
#include "core/xalloc.h"
#include "metrics/expo.h"
#include "metrics/serve.h"

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct metrics {
    struct serve *server;
    struct hist *scratch; /* the tick thread's, outside the lock */
    pthread_mutex_t lock; /* guards state, is_final, has_final_scrape */
    pthread_cond_t scraped;
    struct expo_state state;
    int is_final;         /* the last tick is in state */
    int has_final_scrape; /* a response rendered after it was sent whole */
};

static void reply_text(struct serve_reply *out, unsigned status, const char *text)
{
    out->status = status;
    out->body = xstrdup(text);
    out->body_len = strlen(text);
}

/* The figures as text, from a copy taken under the lock; *is_final says
 * whether the copy held the last tick. NULL when memory ran out. */
static char *render(struct metrics *m, size_t *len, int *is_final)
{
    struct expo_state *copy = malloc(sizeof(*copy));
    char *text = NULL;
    FILE *out;

    if (!copy)
        return NULL;
    pthread_mutex_lock(&m->lock);
    memcpy(copy, &m->state, sizeof(*copy));
    *is_final = m->is_final;
    pthread_mutex_unlock(&m->lock);
    out = open_memstream(&text, len);
    if (out) {
        int rc = expo_render(copy, out);

        if (fclose(out) != 0 || rc != 0) {
            free(text);
            text = NULL;
        }
    }
    free(copy);
    return text;
}

static void on_request(void *arg, const char *method, const char *path, struct serve_reply *out)
{
    struct metrics *m = arg;
    int is_final = 0;

    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        reply_text(out, 405, "brink serves GET /metrics\n");
        return;
    }
    if (strcmp(path, "/metrics") != 0) {
        reply_text(out, 404, "brink serves its figures at /metrics\n");
        return;
    }
    out->body = render(m, &out->body_len, &is_final);
    if (!out->body) {
        reply_text(out, 500, "out of memory\n");
        return;
    }
    out->status = 200;
    out->content_type = CONTENT_TYPE;
    out->is_marked = is_final;
}

/* A response is whole once it was sent: only then has a scraper read the
 * final figures. */
static void on_sent(void *arg)
{
    struct metrics *m = arg;

    pthread_mutex_lock(&m->lock);
    m->has_final_scrape = 1;
    pthread_cond_broadcast(&m->scraped);
    pthread_mutex_unlock(&m->lock);
}

static void init_sync(struct metrics *m)
{
    pthread_condattr_t attr;

    pthread_mutex_init(&m->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&m->scraped, &attr);
    pthread_condattr_destroy(&attr);
}

int metrics_start(const char *addr, const char *run_id, char *url, size_t url_cap, char *err,
                  size_t err_len, struct metrics **out)
{
    struct sockaddr_storage ss;
    socklen_t len;
    struct metrics *m;
    char shown[200], why[256];
    int fd, rc;

    *out = NULL;
    msg_show(addr, shown, sizeof(shown));
    if (listen_parse(addr, &ss, &len) != 0) {
        snprintf(err, err_len,
                 "brink: --metrics-listen: expected ADDR:PORT such as 127.0.0.1:9464 or "
                 "[::1]:9464, got \"%s\"",
                 shown);
        return -EINVAL;
    }
    fd = listen_open(&ss, len, "http", url, url_cap, why, sizeof(why));
    if (fd < 0) {
        snprintf(err, err_len, "brink: --metrics-listen: %s: %s", shown, why);
        return fd;
    }
    m = xcalloc(1, sizeof(*m));
    init_sync(m);
    expo_set_run(&m->state, run_id);
    m->scratch = hist_new();
    rc = serve_start(fd, on_request, on_sent, m, &m->server);
    if (rc != 0) {
        snprintf(err, err_len, "brink: --metrics-listen: %s: the HTTP server did not start: %s",
                 shown, msg_errno(rc).text);
        metrics_stop(m);
        return rc;
    }
    *out = m;
    return 0;
}

void metrics_add_tick(struct metrics *m, const struct tick *t)
{
    /* The fold (a few histogram decodes, microseconds) holds the lock; only
     * a scrape waits on it, never the engine, which does not see m. */
    pthread_mutex_lock(&m->lock);
    expo_add_tick(&m->state, t, m->scratch);
    /* The engine's last tick says so: a scrape from here on reads the
     * final figures, even one that comes before metrics_linger. */
    if (t->state == RUN_DONE)
        m->is_final = 1;
    pthread_mutex_unlock(&m->lock);
}

int metrics_linger(struct metrics *m, uint64_t linger_ms)
{
    struct timespec until;
    int rc = 0;

    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += (time_t)(linger_ms / 1000);
    until.tv_nsec += (long)(linger_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&m->lock);
    m->is_final = 1;
    while (linger_ms > 0 && !m->has_final_scrape && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&m->scraped, &m->lock, &until);
    rc = linger_ms == 0 || m->has_final_scrape ? 0 : -ETIMEDOUT;
    pthread_mutex_unlock(&m->lock);
    return rc;
}

void metrics_stop(struct metrics *m)
{
    if (!m)
        return;
    serve_stop(m->server); /* it closes the listening socket */
    hist_free(m->scratch);
    pthread_cond_destroy(&m->scraped);
    pthread_mutex_destroy(&m->lock);
    free(m);
}
