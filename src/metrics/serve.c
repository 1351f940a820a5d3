/*
 * The metrics endpoint's server: one thread, poll(2) over a wake pipe, the
 * listening socket and a fixed table of connections, every socket
 * non-blocking. A connection is idle (waiting for a request), reading one,
 * or writing a response, and each state has a deadline, so nothing holds a
 * slot for long: an idle connection is closed after SERVE_IDLE_TIMEOUT_MS,
 * a request must arrive whole within SERVE_READ_TIMEOUT_MS of its first
 * byte (a slowloris dribble is cut there) and in SERVE_REQUEST_MAX bytes.
 * The table is never full for a newcomer: accepting a connection into a
 * full table evicts the oldest idle one, else the oldest still reading, so
 * thousands of idle or dribbling clients cannot keep a scraper, who sends
 * its request at once, from being read. Only connections being answered
 * are never evicted; when all are, the newcomer is closed.
 */
#include "metrics/serve.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "core/xalloc.h"

#define ACCEPT_BATCH 16     /* accepts per turn of the loop: reads come between */
#define ACCEPT_PAUSE_MS 100 /* out of file descriptors: accepting waits, never spins */
#define HEAD_MAX 256

enum conn_state { CONN_FREE, CONN_IDLE, CONN_READING, CONN_WRITING };

struct conn {
    int fd;
    enum conn_state state;
    uint64_t since;       /* when it entered its state (a count): eviction takes the oldest */
    uint64_t deadline_ms; /* it is closed then */
    char in[SERVE_REQUEST_MAX];
    size_t in_len;
    char head[HEAD_MAX]; /* the response's status line and headers */
    size_t head_len;
    char *body; /* the response's; NULL when none */
    size_t body_len;
    size_t sent; /* bytes of head, then body, sent */
    int is_marked;
    int is_closing; /* closed once the response is sent */
};

struct serve {
    pthread_t thread;
    int listen_fd;
    int wake[2]; /* a byte on wake[1] stops the thread */
    serve_request_fn *on_request;
    serve_sent_fn *on_sent;
    void *arg;
    uint64_t accept_at_ms; /* accepting is paused until then */
    uint64_t changes;      /* state changes so far: orders them within a ms */
    struct conn conns[SERVE_CONNECTIONS];
};

static uint64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void set_state(struct serve *s, struct conn *c, enum conn_state state, uint64_t now)
{
    static const uint64_t timeout_ms[] = {
        [CONN_IDLE] = SERVE_IDLE_TIMEOUT_MS,
        [CONN_READING] = SERVE_READ_TIMEOUT_MS,
        [CONN_WRITING] = SERVE_WRITE_TIMEOUT_MS,
    };

    c->state = state;
    c->since = ++s->changes;
    c->deadline_ms = now + timeout_ms[state];
}

static void conn_close(struct conn *c)
{
    close(c->fd);
    free(c->body);
    c->body = NULL;
    c->state = CONN_FREE;
}

static const char *reason_of(unsigned status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 431: return "Request Header Fields Too Large";
    default: return "Internal Server Error";
    }
}

/* The end of a request's head (past its empty line) in p[0..len), looking
 * from from on; 0 when it has not come yet. */
static size_t head_end(const char *p, size_t from, size_t len)
{
    for (size_t i = from; i < len; i++) {
        if (p[i] != '\n')
            continue;
        if (i + 1 < len && p[i + 1] == '\n')
            return i + 2;
        if (i + 2 < len && p[i + 1] == '\r' && p[i + 2] == '\n')
            return i + 3;
    }
    return 0;
}

/* Sets c to send r (taken); HEAD sends the headers only. */
static void respond(struct serve *s, struct conn *c, struct serve_reply *r, int is_head,
                    uint64_t now)
{
    int n = snprintf(c->head, sizeof(c->head),
                     "HTTP/1.1 %u %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s\r\n",
                     r->status, reason_of(r->status),
                     r->content_type ? r->content_type : "text/plain; charset=utf-8", r->body_len,
                     r->status == 405 ? "Allow: GET, HEAD\r\n" : "",
                     c->is_closing ? "Connection: close\r\n" : "");

    c->head_len = n > 0 && (size_t)n < sizeof(c->head) ? (size_t)n : 0;
    free(c->body);
    c->body = r->body;
    c->body_len = is_head ? 0 : r->body_len;
    c->is_marked = r->is_marked && !is_head;
    c->sent = 0;
    set_state(s, c, CONN_WRITING, now);
}

static void respond_text(struct serve *s, struct conn *c, unsigned status, const char *text,
                         uint64_t now)
{
    struct serve_reply r = {.status = status, .body = xstrdup(text), .body_len = strlen(text)};

    c->is_closing = 1;
    respond(s, c, &r, 0, now);
}

/* The request's headers (lines after the request line, up to end): whether
 * the connection closes after the answer. A request with a body is answered
 * and closed: the endpoint reads none. */
static int closes_after(const char *p, const char *end, int is_http10)
{
    int is_closing = is_http10;

    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        size_t len = eol ? (size_t)(eol - p) : (size_t)(end - p);

        if (len >= 11 && strncasecmp(p, "connection:", 11) == 0) {
            for (size_t i = 11; i + 5 <= len; i++) {
                if (strncasecmp(p + i, "close", 5) == 0)
                    is_closing = 1;
                if (i + 10 <= len && strncasecmp(p + i, "keep-alive", 10) == 0)
                    is_closing = 0;
            }
        }
        if (len >= 18 && strncasecmp(p, "transfer-encoding:", 18) == 0)
            return 1;
        for (size_t i = 15; len >= 15 && strncasecmp(p, "content-length:", 15) == 0 && i < len;
             i++) {
            if (p[i] >= '1' && p[i] <= '9')
                return 1;
        }
        p += len + 1;
    }
    return is_closing;
}

/* Answers the request whose head is c->in[0..end) and drops it from in. */
static void answer(struct serve *s, struct conn *c, size_t end, uint64_t now)
{
    char *line = c->in, *eol = memchr(c->in, '\n', end);
    char *method, *path, *version, *query, *save = NULL;
    struct serve_reply r = {0};

    *eol = '\0';
    if (eol > line && eol[-1] == '\r')
        eol[-1] = '\0';
    method = strtok_r(line, " ", &save);
    path = method ? strtok_r(NULL, " ", &save) : NULL;
    version = path ? strtok_r(NULL, " ", &save) : NULL;
    if (!version || strncmp(version, "HTTP/1.", 7) != 0 || strtok_r(NULL, " ", &save)) {
        respond_text(s, c, 400, "brink serves GET /metrics\n", now);
    } else {
        c->is_closing = closes_after(eol + 1, c->in + end, strcmp(version, "HTTP/1.0") == 0);
        query = strchr(path, '?');
        if (query)
            *query = '\0';
        s->on_request(s->arg, method, path, &r);
        respond(s, c, &r, strcmp(method, "HEAD") == 0, now);
    }
    c->in_len -= end;
    memmove(c->in, c->in + end, c->in_len);
}

/* Answers a request once its head is whole; refuses one too long. */
static void try_request(struct serve *s, struct conn *c, size_t from, uint64_t now)
{
    size_t end = head_end(c->in, from, c->in_len);

    if (end > 0)
        answer(s, c, end, now);
    else if (c->in_len == sizeof(c->in))
        respond_text(s, c, 431, "a request's head is at most 4096 bytes\n", now);
}

static void on_writable(struct serve *s, struct conn *c, uint64_t now)
{
    struct iovec iov[2];
    struct msghdr msg = {.msg_iov = iov};
    ssize_t n;

    if (c->sent < c->head_len) {
        iov[msg.msg_iovlen++] =
            (struct iovec){.iov_base = c->head + c->sent, .iov_len = c->head_len - c->sent};
        iov[msg.msg_iovlen++] = (struct iovec){.iov_base = c->body, .iov_len = c->body_len};
    } else {
        size_t at = c->sent - c->head_len;

        iov[msg.msg_iovlen++] =
            (struct iovec){.iov_base = c->body + at, .iov_len = c->body_len - at};
    }
    /* MSG_NOSIGNAL: a scraper gone is EPIPE here, never SIGPIPE. */
    n = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
    if (n < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            conn_close(c);
        return;
    }
    c->sent += (size_t)n;
    if (c->sent < c->head_len + c->body_len)
        return;
    if (c->is_marked)
        s->on_sent(s->arg);
    free(c->body);
    c->body = NULL;
    if (c->is_closing) {
        conn_close(c);
        return;
    }
    set_state(s, c, c->in_len > 0 ? CONN_READING : CONN_IDLE, now);
    if (c->in_len > 0)
        try_request(s, c, 0, now);
}

static void on_readable(struct serve *s, struct conn *c, uint64_t now)
{
    size_t from = c->in_len > 3 ? c->in_len - 3 : 0;
    ssize_t n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, 0);

    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        conn_close(c);
        return;
    }
    if (c->state == CONN_IDLE)
        set_state(s, c, CONN_READING, now);
    c->in_len += (size_t)n;
    try_request(s, c, from, now);
}

/* The connection a newcomer may push out: the oldest idle one, else the
 * oldest still reading its request; NULL when all are being answered. */
static struct conn *oldest(struct serve *s)
{
    struct conn *victim = NULL;

    for (size_t i = 0; i < SERVE_CONNECTIONS; i++) {
        struct conn *c = &s->conns[i];

        if (c->state == CONN_FREE || c->state == CONN_WRITING)
            continue;
        if (!victim || c->state < victim->state ||
            (c->state == victim->state && c->since < victim->since))
            victim = c;
    }
    return victim;
}

/* A free slot, or oldest's (closed); NULL when there is none. */
static struct conn *take_slot(struct serve *s)
{
    struct conn *c;

    for (size_t i = 0; i < SERVE_CONNECTIONS; i++) {
        if (s->conns[i].state == CONN_FREE)
            return &s->conns[i];
    }
    c = oldest(s);
    if (c)
        conn_close(c);
    return c;
}

static void accept_some(struct serve *s, uint64_t now)
{
    for (int i = 0; i < ACCEPT_BATCH; i++) {
        int fd = accept(s->listen_fd, NULL, NULL);
        struct conn *c;

        if (fd < 0) {
            /* Out of descriptors, the oldest idle connection gives its own
             * up for the newcomer; when none can, accepting pauses, since
             * the listening socket stays readable and trying again at once
             * would spin. */
            struct conn *victim = errno == EMFILE || errno == ENFILE ? oldest(s) : NULL;

            if (victim) {
                conn_close(victim);
                continue;
            }
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                s->accept_at_ms = now + ACCEPT_PAUSE_MS;
            return;
        }
        c = take_slot(s);
        if (!c || fcntl(fd, F_SETFL, O_NONBLOCK) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
            close(fd);
            continue;
        }
        c->fd = fd;
        c->in_len = 0;
        c->is_closing = 0;
        set_state(s, c, CONN_IDLE, now);
        /* A scraper writes its request as it connects: reading it now
         * takes it out of the idle ones that the next accepts evict. */
        on_readable(s, c, now);
    }
}

/* Closes connections past their deadline; returns poll's timeout (ms) until
 * the next deadline or the end of an accept pause, -1 for none. */
static int expire(struct serve *s, uint64_t now)
{
    uint64_t next = s->accept_at_ms > now ? s->accept_at_ms : UINT64_MAX;

    for (size_t i = 0; i < SERVE_CONNECTIONS; i++) {
        struct conn *c = &s->conns[i];

        if (c->state != CONN_FREE && c->deadline_ms <= now)
            conn_close(c);
        else if (c->state != CONN_FREE && c->deadline_ms < next)
            next = c->deadline_ms;
    }
    return next == UINT64_MAX ? -1 : (int)(next - now);
}

static void *run(void *arg)
{
    struct serve *s = arg;
    struct pollfd pfd[2 + SERVE_CONNECTIONS];
    struct conn *of[2 + SERVE_CONNECTIONS];

    for (;;) {
        uint64_t now = now_ms();
        int timeout_ms = expire(s, now);
        nfds_t n = 0, listen_at = 0;

        pfd[n++] = (struct pollfd){.fd = s->wake[0], .events = POLLIN};
        if (s->accept_at_ms <= now) {
            listen_at = n;
            pfd[n++] = (struct pollfd){.fd = s->listen_fd, .events = POLLIN};
        }
        for (size_t i = 0; i < SERVE_CONNECTIONS; i++) {
            struct conn *c = &s->conns[i];

            if (c->state == CONN_FREE)
                continue;
            of[n] = c;
            pfd[n++] =
                (struct pollfd){.fd = c->fd, .events = c->state == CONN_WRITING ? POLLOUT : POLLIN};
        }
        if (poll(pfd, n, timeout_ms) < 0) {
            /* EINTR cannot come (signals are blocked); ENOMEM may pass. */
            struct timespec pause = {.tv_nsec = 10 * 1000000L};

            nanosleep(&pause, NULL);
            continue;
        }
        if (pfd[0].revents)
            break;
        now = now_ms();
        for (nfds_t i = listen_at ? 2 : 1; i < n; i++) {
            if (!pfd[i].revents)
                continue;
            if (of[i]->state == CONN_WRITING)
                on_writable(s, of[i], now);
            else
                on_readable(s, of[i], now);
        }
        if (listen_at && pfd[listen_at].revents)
            accept_some(s, now);
    }
    for (size_t i = 0; i < SERVE_CONNECTIONS; i++) {
        if (s->conns[i].state != CONN_FREE)
            conn_close(&s->conns[i]);
    }
    return NULL;
}

int serve_start(int listen_fd, serve_request_fn *on_request, serve_sent_fn *on_sent, void *arg,
                struct serve **out)
{
    struct serve *s = xcalloc(1, sizeof(*s));
    sigset_t all, old;
    int rc;

    *out = NULL;
    s->listen_fd = listen_fd;
    s->on_request = on_request;
    s->on_sent = on_sent;
    s->arg = arg;
    if (pipe(s->wake) != 0) {
        rc = -errno;
        goto out_free;
    }
    /* poll may say readable for a connection reset before accept takes it:
     * a blocking accept would then wait for the next client. */
    fcntl(listen_fd, F_SETFL, O_NONBLOCK);
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    rc = -pthread_create(&s->thread, NULL, run, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        goto out_close_pipe;
    *out = s;
    return 0;

out_close_pipe:
    close(s->wake[0]);
    close(s->wake[1]);
out_free:
    close(listen_fd);
    free(s);
    return rc;
}

void serve_stop(struct serve *s)
{
    char b = 0;

    if (!s)
        return;
    while (write(s->wake[1], &b, 1) < 0 && errno == EINTR)
        ;
    pthread_join(s->thread, NULL);
    close(s->wake[0]);
    close(s->wake[1]);
    close(s->listen_fd);
    free(s);
}
