/*
 * serve: the metrics endpoint's HTTP/1.1 server, one thread polling the
 * listening socket and at most SERVE_CONNECTIONS connections, each with a
 * deadline: a scraper is answered whatever other clients do (idle ones,
 * ones that dribble a request a byte at a time, ones that never read). It
 * knows nothing of the figures: a callback answers each request. Start and
 * stop from one thread; the callbacks run on the server's.
 */
#ifndef BRINK_METRICS_SERVE_H
#define BRINK_METRICS_SERVE_H

#include <stddef.h>

#define SERVE_CONNECTIONS 256        /* open at once; a new one evicts the oldest idle */
#define SERVE_IDLE_TIMEOUT_MS 5000   /* a connection with no request under way is closed */
#define SERVE_READ_TIMEOUT_MS 5000   /* from a request's first byte to its last */
#define SERVE_WRITE_TIMEOUT_MS 10000 /* to send a response whole */
#define SERVE_REQUEST_MAX 4096       /* bytes of a request's line and headers */

/* A response: the server adds the status line, Content-Length and
 * Connection; body is taken (freed by the server), NULL when empty. */
struct serve_reply {
    unsigned status;          /* 200, 404, 405, 500 */
    const char *content_type; /* static text */
    char *body;
    size_t body_len;
    int is_marked; /* serve_sent_fn is called once it is sent whole */
};

/* Answers method path (NUL-terminated, at most SERVE_REQUEST_MAX bytes) into
 * out, which comes zeroed. */
typedef void serve_request_fn(void *arg, const char *method, const char *path,
                              struct serve_reply *out);
/* A marked response was sent whole. */
typedef void serve_sent_fn(void *arg);

struct serve;

/*
 * Serves on listen_fd (taken: closed by serve_stop, or here on failure),
 * on a new thread that blocks every signal. Returns 0 with *out set, or a
 * negative errno (pipe, pthread_create).
 */
int serve_start(int listen_fd, serve_request_fn *on_request, serve_sent_fn *on_sent, void *arg,
                struct serve **out);

/* Stops the thread (it closes every connection), joins it and frees s; NULL
 * is a no-op. */
void serve_stop(struct serve *s);

#endif
