/*
 * The metrics endpoint: libmicrohttpd with one internal thread (a scrape
 * every few seconds needs no pool), on a socket bound here so the address
 * and its errors are brink's. The state is copied under the lock and
 * rendered outside it; the tick thread holds the lock only for a fold.
 */
#include "metrics/metrics.h"

#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
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

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct metrics {
    struct MHD_Daemon *daemon;
    struct hist *scratch; /* the tick thread's, outside the lock */
    pthread_mutex_t lock; /* guards state, is_final, has_final_scrape */
    pthread_cond_t scraped;
    struct expo_state state;
    int is_final;         /* the last tick is in state */
    int has_final_scrape; /* a response rendered after it was sent whole */
};

/* The con_cls of a connection whose response holds the final figures. */
static char final_marker;

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned status, const char *text)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
    enum MHD_Result rc;

    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
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

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_len, void **con_cls)
{
    struct metrics *m = cls;
    struct MHD_Response *r;
    enum MHD_Result rc;
    size_t len = 0;
    int is_final = 0;
    char *text;

    (void)version;
    (void)upload;
    if (*upload_len > 0) {
        *upload_len = 0; /* a body is read and dropped */
        return MHD_YES;
    }
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "brink serves GET /metrics\n");
    if (strcmp(url, "/metrics") != 0)
        return reply_text(c, MHD_HTTP_NOT_FOUND, "brink serves its figures at /metrics\n");
    text = render(m, &len, &is_final);
    if (!text)
        return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(text);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, CONTENT_TYPE);
    rc = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    if (rc == MHD_YES && is_final)
        *con_cls = &final_marker;
    return rc;
}

/* A response is whole once libmicrohttpd says it was sent: only then has a
 * scraper read the final figures. */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct metrics *m = cls;

    (void)c;
    if (*con_cls != &final_marker || toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
        return;
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

/* Starts libmicrohttpd on fd, its thread blocking every signal (they are
 * the main thread's). */
static struct MHD_Daemon *start_daemon(struct metrics *m, int fd)
{
    struct MHD_Daemon *d;
    sigset_t all, old;

    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, on_request, m,
                         MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_CONNECTION_LIMIT,
                         (unsigned)METRICS_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT,
                         (unsigned)METRICS_IDLE_TIMEOUT_S, MHD_OPTION_NOTIFY_COMPLETED,
                         on_completed, m, MHD_OPTION_END);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return d;
}

int metrics_start(const char *addr, char *url, size_t url_cap, char *err, size_t err_len,
                  struct metrics **out)
{
    struct sockaddr_storage ss;
    socklen_t len;
    struct metrics *m;
    char shown[200], why[256];
    int fd;

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
    m->scratch = hist_new();
    m->daemon = start_daemon(m, fd);
    if (!m->daemon) {
        snprintf(err, err_len, "brink: --metrics-listen: %s: the HTTP server did not start", shown);
        close(fd);
        metrics_stop(m);
        return -EIO;
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
    /* libmicrohttpd closes the listening socket it was given. */
    if (m->daemon)
        MHD_stop_daemon(m->daemon);
    hist_free(m->scratch);
    pthread_cond_destroy(&m->scraped);
    pthread_mutex_destroy(&m->lock);
    free(m);
}
