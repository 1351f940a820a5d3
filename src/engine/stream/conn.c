/*
 * A user's connection (brink.tcp, brink.ws), as a socket: its host's
 * lookup (address literals need none), its connect, its reads into a
 * buffer that keeps what no reply took yet, its writes and its close.
 * What happens is told to the transport above through the up callback.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include "core/msg.h"
#include "core/xalloc.h"
#include "engine/stream/internal.h"

/* A write of bytes copied (a pong, a close frame, the upgrade request). */
struct copy_write {
    uv_write_t req;
    char bytes[];
};

const char *stream__conn_name(const struct stream_conn *c, char *buf, size_t cap)
{
    int is_v6 = strchr(c->spec->host, ':') != NULL;

    snprintf(buf, cap, "%s %s%s%s:%u", c->spec->is_ws ? "ws" : "tcp", is_v6 ? "[" : "",
             c->spec->host, is_v6 ? "]" : "", (unsigned)c->spec->port);
    return buf;
}

static void conn_free(struct stream_conn *c)
{
    free(c->in);
    free(c);
}

static void on_closed(uv_handle_t *h)
{
    struct stream_conn *c = h->data;

    if (c->is_counted)
        engine__worker_conn_closed(c->w);
    c->w->fds_used--;
    conn_free(c);
}

void stream__conn_close(struct stream_conn *c)
{
    if (c->is_closing)
        return;
    c->is_closing = 1;
    if (c->owner) {
        if (c->owner->conns[c->index] == c)
            c->owner->conns[c->index] = NULL;
        c->owner = NULL;
    }
    if (c->has_socket)
        uv_close((uv_handle_t *)&c->tcp, on_closed);
    else if (c->is_looking_up)
        uv_cancel((uv_req_t *)&c->gai); /* its callback frees it */
    else
        conn_free(c);
}

void stream__conn_fail(struct stream_conn *c, enum transfer_outcome outcome, int os_errno,
                       const char *fmt, ...)
{
    char name[300], what[STREAM_WORDS_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    c->outcome = outcome;
    c->os_errno = os_errno;
    msg_set(c->words, sizeof(c->words), "%s: %s", stream__conn_name(c, name, sizeof(name)), what);
    if (c->owner)
        c->up(c, STREAM_FAILED);
    stream__conn_close(c);
}

void stream__conn_take(struct stream_conn *c, size_t n)
{
    memmove(c->in, c->in + n, c->in_len - n);
    c->in_len -= n;
}

/* ---- Reads -------------------------------------------------------------- */

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    struct stream_conn *c = h->data;

    (void)hint;
    if (c->in_cap - c->in_len < STREAM_READ_MIN) {
        size_t cap = c->in_cap ? c->in_cap : STREAM_READ_MIN;

        while (cap - c->in_len < STREAM_READ_MIN)
            cap *= 2;
        c->in = xrealloc(c->in, cap);
        c->in_cap = cap;
    }
    *buf = uv_buf_init(c->in + c->in_len, (unsigned)(c->in_cap - c->in_len));
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
    struct stream_conn *c = st->data;

    (void)buf;
    if (n == 0 || c->is_closing)
        return;
    if (n == UV_EOF) {
        stream__conn_fail(c, TRANSFER_CLOSED_EMPTY, 0, "the server closed the connection");
        return;
    }
    if (n < 0) {
        stream__conn_fail(c, TRANSFER_RECV, (int)-n, "read: %s", msg_errno((int)-n).text);
        return;
    }
    c->in_len += (size_t)n;
    c->n_read += (uint64_t)n;
    if (c->owner)
        c->up(c, STREAM_DATA);
    /* A server that talks while nobody listens is read up to a bound,
     * then waits for the next exchange. */
    if (!c->is_closing && c->in_len >= STREAM_IDLE_MAX &&
        (!c->owner || c->owner->c != c)) {
        uv_read_stop(st);
        c->is_reading = 0;
    }
}

void stream__conn_read(struct stream_conn *c)
{
    if (!c->is_reading && c->has_socket && !c->is_closing) {
        c->is_reading = 1;
        uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    }
}

/* ---- Writes ------------------------------------------------------------- */

static void on_written(uv_write_t *req, int status)
{
    struct stream_conn *c = req->data;

    c->is_writing = 0;
    if (status == UV_ECANCELED || c->is_closing)
        return;
    if (status < 0) {
        stream__conn_fail(c, TRANSFER_SEND, -status, "write: %s", msg_errno(-status).text);
        return;
    }
    if (c->owner)
        c->up(c, STREAM_WROTE);
}

void stream__conn_send(struct stream_conn *c, const void *p, size_t n)
{
    uv_buf_t buf = uv_buf_init((char *)p, (unsigned)n);
    int rc;

    if (c->is_writing) {
        /* The last exchange's write is still under way (its reply came
         * first): this one queues behind it. */
        stream__conn_send_copy(c, p, n);
        c->up(c, STREAM_WROTE);
        return;
    }
    rc = n ? uv_try_write((uv_stream_t *)&c->tcp, &buf, 1) : 0;

    if (rc == UV_EAGAIN)
        rc = 0;
    if (rc < 0) {
        stream__conn_fail(c, TRANSFER_SEND, -rc, "write: %s", msg_errno(-rc).text);
        return;
    }
    if ((size_t)rc == n) {
        c->up(c, STREAM_WROTE);
        return;
    }
    buf = uv_buf_init((char *)p + rc, (unsigned)(n - (size_t)rc));
    c->write.data = c;
    c->is_writing = 1;
    rc = uv_write(&c->write, (uv_stream_t *)&c->tcp, &buf, 1, on_written);
    if (rc < 0) {
        c->is_writing = 0;
        stream__conn_fail(c, TRANSFER_SEND, -rc, "write: %s", msg_errno(-rc).text);
    }
}

static void on_copy_written(uv_write_t *req, int status)
{
    (void)status; /* a failure shows in the next read or write */
    free(req);
}

void stream__conn_send_copy(struct stream_conn *c, const void *p, size_t n)
{
    struct copy_write *cw;
    uv_buf_t buf;

    if (c->is_closing || !c->has_socket)
        return;
    cw = xmalloc(sizeof(*cw) + n);
    memcpy(cw->bytes, p, n);
    buf = uv_buf_init(cw->bytes, (unsigned)n);
    if (uv_write(&cw->req, (uv_stream_t *)&c->tcp, &buf, 1, on_copy_written) < 0)
        free(cw);
}

/* ---- Connects ----------------------------------------------------------- */

static void on_connect(uv_connect_t *req, int status)
{
    struct stream_conn *c = req->data;

    if (status == UV_ECANCELED || c->is_closing)
        return;
    if (status < 0) {
        stream__conn_fail(c, TRANSFER_CONNECT, -status, "connect: %s", msg_errno(-status).text);
        return;
    }
    engine__worker_phase(c->w, PHASE_CONNECT, (uv_hrtime() - c->begun_ns) / 1000);
    uv_tcp_nodelay(&c->tcp, 1);
    stream__conn_read(c);
    c->up(c, STREAM_CONNECTED);
}

static void connect_to(struct stream_conn *c, const struct sockaddr *sa)
{
    int rc = uv_tcp_init(&c->w->loop, &c->tcp);

    if (rc < 0) {
        stream__conn_fail(c, TRANSFER_CONNECT, -rc, "socket: %s", msg_errno(-rc).text);
        return;
    }
    c->tcp.data = c;
    c->has_socket = 1;
    c->w->fds_used++;
    c->state = CONN_CONNECTING;
    c->connect.data = c;
    c->begun_ns = uv_hrtime();
    rc = uv_tcp_connect(&c->connect, &c->tcp, sa, on_connect);
    if (rc < 0) {
        stream__conn_fail(c, TRANSFER_CONNECT, -rc, "connect: %s", msg_errno(-rc).text);
        return;
    }
    c->is_counted = 1;
    engine__worker_conn_opened(c->w);
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
    struct stream_conn *c = req->data;

    c->is_looking_up = 0;
    if (c->is_closing) {
        uv_freeaddrinfo(res);
        conn_free(c);
        return;
    }
    if (status < 0 || !res) {
        stream__conn_fail(c, TRANSFER_DNS, 0, "name lookup: %s",
                          status < 0 ? uv_strerror(status) : "no address");
        uv_freeaddrinfo(res);
        return;
    }
    connect_to(c, res->ai_addr);
    uv_freeaddrinfo(res);
}

struct stream_conn *stream__conn_new(struct stream_slot *h, uint32_t i,
                                     const struct script_conn_spec *spec,
                                     void (*up)(struct stream_conn *, enum stream_event))
{
    struct stream_conn *c = xcalloc(1, sizeof(*c));

    c->w = h->s->w;
    c->owner = h;
    c->index = i;
    c->spec = spec;
    c->up = up;
    c->state = CONN_LOOKUP;
    h->conns[i] = c;
    return c;
}

void stream__conn_begin(struct stream_conn *c)
{
    const struct script_conn_spec *spec = c->spec;
    struct sockaddr_storage sa;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    char port[8];
    int rc;

    if (uv_ip4_addr(spec->host, spec->port, (struct sockaddr_in *)&sa) == 0 ||
        uv_ip6_addr(spec->host, spec->port, (struct sockaddr_in6 *)&sa) == 0) {
        connect_to(c, (const struct sockaddr *)&sa);
        return;
    }
    snprintf(port, sizeof(port), "%u", (unsigned)spec->port);
    c->gai.data = c;
    rc = uv_getaddrinfo(&c->w->loop, &c->gai, on_resolved, spec->host, port, &hints);
    if (rc < 0) {
        stream__conn_fail(c, TRANSFER_DNS, 0, "name lookup: %s", uv_strerror(rc));
        return;
    }
    c->is_looking_up = 1;
}
