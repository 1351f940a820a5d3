/*
 * A user's connection (brink.tcp, brink.ws), as a socket: its host's
 * lookup (engine/lookup.c, off the loop; address literals and localhost
 * need none), its connect (to the next address while one refuses) and
 * TLS handshake (tls = true, wss://: [target]'s TLS keys, a context per
 * server name), its reads into a buffer that keeps what no reply took yet (decrypted),
 * its writes and its close.
 * What happens is told to the transport above through the up callback.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "config/config.h"
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
    tls_conn_free(c->tls);
    free(c->in);
    free(c);
}

/* One of c's handles closed: the last frees c once it is closing. */
static void handle_closed(struct stream_conn *c)
{
    if (--c->n_handles == 0 && c->is_closing)
        conn_free(c);
}

static void connect_to(struct stream_conn *c, uint32_t i);

/* c's socket closed: c closes, or connects to its next address. */
static void on_closed(uv_handle_t *h)
{
    struct stream_conn *c = h->data;

    if (c->is_counted)
        engine__worker_conn_closed(c->w);
    c->is_counted = 0;
    c->w->fds_used--;
    if (!c->is_closing) {
        c->n_handles--;
        connect_to(c, c->addr_i + 1);
        return;
    }
    handle_closed(c);
}

static void on_wake_closed(uv_handle_t *h)
{
    handle_closed(h->data);
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
    if (c->has_socket) {
        c->has_socket = 0;
        uv_close((uv_handle_t *)&c->tcp, on_closed);
    }
    if (c->has_wake) {
        /* The lookup's thread lets go by itself when its name answers,
         * or never: the worker's end waits for neither. */
        engine__lookup_release(c->lookup);
        c->lookup = NULL;
        c->has_wake = 0;
        uv_close((uv_handle_t *)&c->wake, on_wake_closed);
    }
    if (c->n_handles == 0)
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
    /* Out of its owner's table before the owner hears: the exchange that
     * fails resumes the script, whose next exchange over the same object
     * (started from inside up) must connect anew, not reuse this one. */
    if (c->owner && c->owner->conns[c->index] == c)
        c->owner->conns[c->index] = NULL;
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

/* Room for STREAM_READ_MIN more bytes in c->in at least. */
static void in_room(struct stream_conn *c)
{
    if (c->in_cap - c->in_len < STREAM_READ_MIN) {
        size_t cap = c->in_cap ? c->in_cap : STREAM_READ_MIN;

        while (cap - c->in_len < STREAM_READ_MIN)
            cap *= 2;
        c->in = xrealloc(c->in, cap);
        c->in_cap = cap;
    }
}

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    struct stream_conn *c = h->data;
    struct stream_worker *sw = stream_worker_of(c->w);

    (void)hint;
    if (c->tls) {
        *buf = uv_buf_init(sw->tls_raw, STREAM_TLS_RAW);
        return;
    }
    in_room(c);
    *buf = uv_buf_init(c->in + c->in_len, (unsigned)(c->in_cap - c->in_len));
}

static void tls_step(struct stream_conn *c);
static void flush_tls(struct stream_conn *c);

/* Decrypts what c's TLS was fed into c->in: the bytes it got (0 when c
 * failed, or the server ended its side: then c is closing). */
static size_t decrypt(struct stream_conn *c)
{
    char why[TLS_WHY_MAX];
    size_t got, total = 0;
    enum tls_state st;

    /* Each pass fills the room it has: the loop ends with the bytes fed. */
    do {
        in_room(c);
        st = tls_read(c->tls, c->in + c->in_len, c->in_cap - c->in_len, &got, why, sizeof(why));
        c->in_len += got;
        total += got;
    } while (st == TLS_FULL);
    /* Reading may have written (a reply to a key update). */
    flush_tls(c);
    if (st == TLS_CLOSED) {
        c->n_read += total;
        if (total && c->owner)
            c->up(c, STREAM_DATA);
        if (!c->is_closing)
            stream__conn_fail(c, TRANSFER_CLOSED_EMPTY, 0, "the server closed the connection");
        return 0;
    }
    if (st == TLS_FAILED) {
        stream__conn_fail(c, TRANSFER_TLS, 0, "TLS: %s", why);
        return 0;
    }
    return total;
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
    struct stream_conn *c = st->data;

    if (n == 0 || c->is_closing)
        return;
    /* During the handshake, the server that goes failed TLS, as h1 says. */
    if (n == UV_EOF && c->tls && !c->is_tls_ready) {
        stream__conn_fail(c, TRANSFER_TLS, 0, "TLS handshake: the server closed the connection");
        return;
    }
    if (n < 0 && c->tls && !c->is_tls_ready) {
        stream__conn_fail(c, TRANSFER_TLS, (int)-n, "TLS handshake: read: %s",
                          msg_errno((int)-n).text);
        return;
    }
    if (n == UV_EOF) {
        stream__conn_fail(c, TRANSFER_CLOSED_EMPTY, 0, "the server closed the connection");
        return;
    }
    if (n < 0) {
        stream__conn_fail(c, TRANSFER_RECV, (int)-n, "read: %s", msg_errno((int)-n).text);
        return;
    }
    if (c->tls) {
        tls_feed(c->tls, buf->base, (size_t)n);
        if (!c->is_tls_ready) {
            tls_step(c);
            return;
        }
        n = (ssize_t)decrypt(c);
        if (n == 0)
            return;
    } else {
        c->in_len += (size_t)n;
    }
    c->n_read += (uint64_t)n;
    if (c->owner)
        c->up(c, STREAM_DATA);
    /* A server that talks while nobody listens is read up to a bound,
     * then waits for the next exchange. */
    if (!c->is_closing && c->in_len >= STREAM_IDLE_MAX && (!c->owner || c->owner->c != c)) {
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

static void on_copy_written(uv_write_t *req, int status)
{
    (void)status; /* a failure shows in the next read or write */
    free(req);
}

/* Writes n bytes as they are: at once when no write is under way (the
 * usual case: no allocation per request), else from a copy behind them. */
static void send_raw_copy(struct stream_conn *c, const void *p, size_t n)
{
    struct copy_write *cw;
    uv_buf_t buf = uv_buf_init((char *)p, (unsigned)n);
    int rc;

    if (c->is_closing || !c->has_socket || n == 0)
        return;
    /* libuv refuses (EAGAIN) while writes wait in its queue: order holds. */
    rc = uv_try_write((uv_stream_t *)&c->tcp, &buf, 1);
    if (rc > 0) {
        p = (const char *)p + rc;
        n -= (size_t)rc;
    }
    if (n == 0 || (rc < 0 && rc != UV_EAGAIN))
        return; /* a failure shows in the next read or write */
    cw = xmalloc(sizeof(*cw) + n);
    memcpy(cw->bytes, p, n);
    buf = uv_buf_init(cw->bytes, (unsigned)n);
    if (uv_write(&cw->req, (uv_stream_t *)&c->tcp, &buf, 1, on_copy_written) < 0)
        free(cw);
}

/* Writes what c's TLS has to send. */
static void flush_tls(struct stream_conn *c)
{
    const char *data;
    size_t n = tls_out(c->tls, &data);

    if (n) {
        send_raw_copy(c, data, n);
        tls_out_taken(c->tls);
    }
}

/* Encrypts n bytes of plaintext and writes them: 0, or -1 when c's TLS
 * failed (c then failed too). */
static int send_tls(struct stream_conn *c, const void *p, size_t n)
{
    char why[TLS_WHY_MAX];

    if (tls_write(c->tls, p, n, why, sizeof(why)) < 0) {
        stream__conn_fail(c, TRANSFER_TLS, 0, "TLS: %s", why);
        return -1;
    }
    flush_tls(c);
    return 0;
}

void stream__conn_send_copy(struct stream_conn *c, const void *p, size_t n)
{
    if (c->is_closing)
        return;
    if (c->tls)
        send_tls(c, p, n);
    else
        send_raw_copy(c, p, n);
}

void stream__conn_send(struct stream_conn *c, const void *p, size_t n)
{
    uv_buf_t buf = uv_buf_init((char *)p, (unsigned)n);
    int rc;

    if (c->is_writing || c->tls) {
        /* TLS writes what it encrypted from a copy; a plain write waits
         * behind the last exchange's when that is still under way (its
         * reply came first). */
        if (c->tls && send_tls(c, p, n) < 0)
            return;
        if (!c->tls)
            send_raw_copy(c, p, n);
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

/* ---- Connects ----------------------------------------------------------- */

/* The worker's TLS context for c's server name, made at its first use;
 * NULL when it cannot be made (c then failed). */
static struct tls_context *context_for(struct stream_conn *c)
{
    struct stream_worker *sw = stream_worker_of(c->w);
    enum tls_alpn alpn = c->spec->is_ws ? TLS_ALPN_HTTP1 : TLS_ALPN_NONE;
    char err[320];
    uint32_t i;

    for (i = 0; i < sw->n_tls; i++) {
        if (sw->tls[i].alpn == alpn && strcmp(sw->tls[i].name, c->spec->host) == 0)
            return sw->tls[i].ctx;
    }
    if (i == STREAM_TLS_NAMES_MAX) {
        stream__conn_fail(c, TRANSFER_TLS, 0, "TLS: more than %d server names on one worker",
                          STREAM_TLS_NAMES_MAX);
        return NULL;
    }
    if (tls_context_new(&c->w->config->target, c->spec->host, alpn, err, sizeof(err),
                        &sw->tls[i].ctx) < 0) {
        stream__conn_fail(c, TRANSFER_TLS, 0, "TLS: %s", err);
        return NULL;
    }
    sw->tls[i].name = xstrdup(c->spec->host);
    sw->tls[i].alpn = alpn;
    sw->n_tls++;
    return sw->tls[i].ctx;
}

/* Runs c's handshake as far as the bytes fed allow; once done, c is
 * connected, and application bytes that came with it are read. */
static void tls_step(struct stream_conn *c)
{
    char why[TLS_WHY_MAX];
    enum tls_state st = tls_handshake(c->tls, why, sizeof(why));
    size_t got;

    flush_tls(c);
    if (st == TLS_FAILED) {
        stream__conn_fail(c, TRANSFER_TLS, 0, "TLS: %s", why);
        return;
    }
    if (st != TLS_DONE)
        return;
    c->is_tls_ready = 1;
    engine__worker_phase(c->w, PHASE_TLS, (uv_hrtime() - c->begun_ns) / 1000);
    if (c->owner)
        c->up(c, STREAM_CONNECTED);
    if (c->is_closing)
        return;
    got = decrypt(c);
    c->n_read += got;
    if (got && c->owner)
        c->up(c, STREAM_DATA);
}

static void connect_failed(struct stream_conn *c, int rc);

static void on_connect(uv_connect_t *req, int status)
{
    struct stream_conn *c = req->data;
    struct tls_context *ctx;

    if (status == UV_ECANCELED || c->is_closing)
        return;
    if (status < 0) {
        connect_failed(c, status);
        return;
    }
    engine__worker_phase(c->w, PHASE_CONNECT, (uv_hrtime() - c->begun_ns) / 1000);
    uv_tcp_nodelay(&c->tcp, 1);
    stream__conn_read(c);
    if (!c->spec->is_tls) {
        c->up(c, STREAM_CONNECTED);
        return;
    }
    ctx = context_for(c);
    if (!ctx)
        return; /* it failed c */
    c->tls = tls_conn_new(ctx);
    c->begun_ns = uv_hrtime();
    tls_step(c);
}

/* c's connect failed with rc: c tries its next address when nobody
 * listens at this one or it cannot be reached (as h1 does), else fails. */
static void connect_failed(struct stream_conn *c, int rc)
{
    if (engine__is_address_error(rc) && c->n_tried < c->addrs.n) {
        c->has_socket = 0;
        uv_close((uv_handle_t *)&c->tcp, on_closed); /* which connects to the next */
        return;
    }
    stream__conn_fail(c, TRANSFER_CONNECT, -rc, "connect: %s", msg_errno(-rc).text);
}

/* Connects c to its address i (modulo their number). */
static void connect_to(struct stream_conn *c, uint32_t i)
{
    int rc = uv_tcp_init(&c->w->loop, &c->tcp);

    if (rc < 0) {
        stream__conn_fail(c, TRANSFER_CONNECT, -rc, "socket: %s", msg_errno(-rc).text);
        return;
    }
    c->tcp.data = c;
    c->has_socket = 1;
    c->n_handles++;
    c->w->fds_used++;
    c->state = CONN_CONNECTING;
    c->addr_i = i % c->addrs.n;
    c->n_tried++;
    c->connect.data = c;
    c->begun_ns = uv_hrtime();
    rc = uv_tcp_connect(&c->connect, &c->tcp, (const struct sockaddr *)&c->addrs.at[c->addr_i],
                        on_connect);
    /* The worker's connect budget counts these too, as h1's. */
    pace_begun(&c->w->pace, 1);
    pace_took(&c->w->pace, 1, uv_hrtime() - c->begun_ns);
    if (rc < 0) {
        connect_failed(c, rc);
        return;
    }
    c->is_counted = 1;
    engine__worker_conn_opened(c->w);
}

/* The lookup of c's host ended: c connects to its first address, or
 * fails as dns. */
static void on_resolved(uv_async_t *a)
{
    struct stream_conn *c = a->data;
    char why[LOOKUP_WHY_MAX];
    int rc;

    /* libuv coalesces sends, and one may come after the result was taken. */
    if (!c->lookup ||
        (rc = engine__lookup_result(c->lookup, &c->addrs, why, sizeof(why))) == -EAGAIN)
        return;
    if (rc == 0)
        engine__worker_phase(c->w, PHASE_DNS, engine__lookup_took_us(c->lookup));
    engine__lookup_release(c->lookup);
    c->lookup = NULL;
    c->has_wake = 0;
    uv_close((uv_handle_t *)a, on_wake_closed);
    if (rc < 0) {
        stream__conn_fail(c, TRANSFER_DNS, 0, "name lookup: %s", why);
        return;
    }
    connect_to(c, 0);
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
    char why[LOOKUP_WHY_MAX];
    int rc;

    /* Address literals and localhost need no lookup. */
    if (engine__lookup_resolve(spec->host, spec->port, AI_NUMERICHOST, AF_UNSPEC, &c->addrs, why,
                               sizeof(why)) == 0) {
        connect_to(c, 0);
        return;
    }
    rc = uv_async_init(&c->w->loop, &c->wake, on_resolved);
    if (rc < 0) {
        stream__conn_fail(c, TRANSFER_DNS, -rc, "name lookup: %s", msg_errno(-rc).text);
        return;
    }
    c->wake.data = c;
    c->has_wake = 1;
    c->n_handles++;
    rc = engine__lookup_start(spec->host, spec->port, AF_UNSPEC, &c->wake, &c->lookup);
    if (rc < 0)
        stream__conn_fail(c, TRANSFER_DNS, -rc, "cannot start the name lookup");
}

const char *stream__find(const char *p, size_t n, const char *d, size_t dn)
{
    const char *end = p + n;

    while ((size_t)(end - p) >= dn) {
        const char *at = memchr(p, d[0], (size_t)(end - p) - dn + 1);

        if (!at)
            return NULL;
        if (memcmp(at, d, dn) == 0)
            return at;
        p = at + 1;
    }
    return NULL;
}
