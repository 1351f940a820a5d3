/*
 * An h1 connection apart from the protocol it carries: the TCP socket,
 * TLS on it (tls/tls.h: the handshake on the worker's loop after the
 * connect, within the connect deadline; records through memory BIOs),
 * writes that keep their order, reads that land in the worker's one read
 * buffer (decrypted, with TLS); h1/close.c closes it. Once the connection
 * is up (connected, and with TLS its handshake done) its protocol is
 * chosen, once, from the tables the transport set on the worker: HTTP/2
 * when the transport offers it and ALPN (or h2c's prior knowledge) agrees,
 * else HTTP/1.1. From then on every byte the server sends, the end of its
 * bytes and a failed write go to that protocol through c->proto.
 * Until then the connection belongs to the slot that opened it (c->s),
 * whose request fails if the connect or the handshake does. Worker thread
 * only.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/xalloc.h"
#include "engine/transport.h"

#include "engine/h1/internal.h"

/* ---- Writes ----------------------------------------------------------- */

/* A write failed (not cancelled by the close): during the handshake the
 * request of the slot that opened c fails; after it, its protocol says. */
static void write_failed(struct h1_conn *c, int status)
{
    if (!c->is_tls_ready && c->tls) {
        if (c->s)
            engine__h1_fail(c->s, TRANSFER_TLS, -status, "write during the TLS handshake");
        return;
    }
    if (c->proto->write_failed)
        c->proto->write_failed(c, status);
}

static void on_write(uv_write_t *req, int status)
{
    struct h1_conn *c = container_of(req, struct h1_conn, write);

    free(c->copy);
    c->copy = NULL;
    c->is_writing = 0;
    if (status < 0 && status != UV_ECANCELED)
        write_failed(c, status);
}

/* Queues what uv_try_write left of bufs (done bytes went out already). */
static int write_rest(struct h1_conn *c, uv_buf_t *bufs, size_t done)
{
    size_t head_left = done < bufs[0].len ? bufs[0].len - done : 0;
    uv_buf_t rest[2];
    unsigned n = 0;

    if (head_left) {
        c->copy = xmalloc(head_left);
        memcpy(c->copy, bufs[0].base + done, head_left);
        rest[n++] = uv_buf_init(c->copy, (unsigned)head_left);
        done = 0;
    } else {
        done -= bufs[0].len;
    }
    if (bufs[1].len > done)
        rest[n++] = uv_buf_init(bufs[1].base + done, (unsigned)(bufs[1].len - done));
    c->is_writing = 1;
    return uv_write(&c->write, (uv_stream_t *)&c->tcp, rest, n, on_write);
}

static void on_tls_write(uv_write_t *req, int status)
{
    struct tls_write *tw = container_of(req, struct tls_write, req);
    struct h1_conn *c = tw->c;

    free(tw);
    c->is_writing--;
    if (status < 0 && status != UV_ECANCELED)
        write_failed(c, status);
}

/* Writes n bytes of data on c: at once when the socket takes them, else
 * from a copy, behind the writes still queued. Returns 0 or a UV error. */
int engine__h1_write(struct h1_conn *c, const char *data, size_t n)
{
    size_t done = 0;
    struct tls_write *tw;
    uv_buf_t b = uv_buf_init((char *)data, (unsigned)n);
    int rc;

    if (n == 0)
        return 0;
    /* libuv refuses (UV_EAGAIN) while writes are queued: order is kept. */
    rc = uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
    if (rc >= 0)
        done = (size_t)rc;
    if (done == n || (rc < 0 && rc != UV_EAGAIN))
        return rc < 0 ? rc : 0;
    tw = xmalloc(sizeof(*tw) + n - done);
    tw->c = c;
    memcpy(tw->bytes, data + done, n - done);
    b = uv_buf_init(tw->bytes, (unsigned)(n - done));
    rc = uv_write(&tw->req, (uv_stream_t *)&c->tcp, &b, 1, on_tls_write);
    if (rc < 0) {
        free(tw);
        return rc;
    }
    c->is_writing++;
    return 0;
}

/* Writes what c's TLS has to send (engine__h1_write). */
int engine__tls_flush(struct h1_conn *c)
{
    const char *data;
    size_t n = tls_out(c->tls, &data);
    int rc = engine__h1_write(c, data, n);

    tls_out_taken(c->tls);
    return rc;
}

int engine__h1_conn_send(struct h1_conn *c, const char *head, size_t len, const unsigned char *body,
                         size_t body_len, char *why, size_t why_len)
{
    uv_buf_t bufs[2];
    int rc;

    if (c->tls) {
        if (tls_write(c->tls, head, len, why, why_len) < 0 ||
            tls_write(c->tls, body, body_len, why, why_len) < 0)
            return H1_SEND_TLS;
        return engine__tls_flush(c);
    }
    bufs[0] = uv_buf_init((char *)head, (unsigned)len);
    bufs[1] = uv_buf_init((char *)body, (unsigned)body_len);
    rc = uv_try_write((uv_stream_t *)&c->tcp, bufs, body_len ? 2 : 1);
    if (rc >= 0 && (size_t)rc == len + body_len)
        return 0;
    if (rc >= 0 || rc == UV_EAGAIN)
        rc = write_rest(c, bufs, rc >= 0 ? (size_t)rc : 0);
    return rc;
}

/* ---- Reads ------------------------------------------------------------ */

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    struct h1_conn *c = container_of((uv_tcp_t *)h, struct h1_conn, tcp);
    struct h1_worker *hw = h1_worker_of(engine__h1_worker_of(h));

    (void)suggested;
    if (c->tls)
        *buf = uv_buf_init(hw->tls_in, TLS_READ_BUFFER);
    else
        *buf = uv_buf_init(hw->rbuf, READ_BUFFER);
}

void engine__h1_conn_deliver(struct h1_conn *c)
{
    struct h1_worker *hw = h1_worker_of(engine__h1_worker_of((uv_handle_t *)&c->tcp));
    char why[TLS_WHY_MAX];
    enum tls_state st;
    size_t got;
    int rc;

    do {
        st = tls_read(c->tls, hw->rbuf, READ_BUFFER, &got, why, sizeof(why));
        if (got)
            c->proto->data(c, hw->rbuf, got);
    } while (st == TLS_FULL && !c->is_let_go);
    /* Even when the bytes lost the connection (a GOAWAY, a refused
     * stream): what they ended is completed. */
    if (c->proto->read_done)
        c->proto->read_done(c);
    if (c->is_let_go)
        return;
    switch (st) {
    case TLS_WANT:
        /* Reading may have written (a reply to a key update). */
        rc = engine__tls_flush(c);
        if (rc < 0 && c->proto->write_failed)
            c->proto->write_failed(c, rc);
        return;
    case TLS_CLOSED: c->proto->ended(c, UV_EOF, NULL); return;
    default: c->proto->ended(c, 0, why); return;
    }
}

/* The connection is up: its protocol is chosen, once. */
static void up(struct transport_slot *s, struct h1_conn *c)
{
    struct h1_worker *hw = h1_worker_of(s->w);

    if (h1_slot_of(s)->h2 && hw->http2->up(s, c) == 0)
        return;
    hw->http1->up(s, c);
}

/* The handshake of s's connection goes as far as the bytes read allow. */
static void handshake_step(struct transport_slot *s)
{
    struct h1_conn *c = h1_slot_of(s)->conn;
    char why[TLS_WHY_MAX];
    enum tls_state st = tls_handshake(c->tls, why, sizeof(why));
    int rc;

    if (st == TLS_DONE) {
        c->is_tls_ready = 1;
        /* The handshake's duration, TCP connect excluded: the TLS phase. */
        c->tls_handshake_us = (uv_hrtime() - c->tls_start_ns) / 1000;
        engine__worker_phase(s->w, PHASE_TLS, c->tls_handshake_us);
        /* Its last flight (Finished) leaves with the first request. */
        up(s, c);
        return;
    }
    /* The next flight, or the alert that says why brink gives up. */
    rc = engine__tls_flush(c);
    if (st == TLS_FAILED)
        engine__h1_fail(s, TRANSFER_TLS, 0, why);
    else if (rc < 0)
        engine__h1_fail(s, TRANSFER_TLS, -rc, "write during the TLS handshake");
}

/* A read during the handshake: the slot that opened c gives up with it. */
static void handshake_read(struct h1_conn *c, ssize_t nread)
{
    if (!c->s)
        engine__h1_conn_close(c);
    else if (nread == UV_EOF)
        engine__h1_fail(c->s, TRANSFER_TLS, 0, "TLS handshake: the server closed the connection");
    else if (nread < 0)
        engine__h1_fail(c->s, TRANSFER_TLS, (int)-nread, "TLS handshake: read");
    else
        handshake_step(c->s);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    struct h1_conn *c = container_of((uv_tcp_t *)stream, struct h1_conn, tcp);

    if (nread == 0)
        return;
    if (c->tls) {
        if (nread > 0)
            tls_feed(c->tls, buf->base, (size_t)nread);
        if (!c->is_tls_ready)
            handshake_read(c, nread);
        else if (nread > 0)
            engine__h1_conn_deliver(c);
        else
            c->proto->ended(c, (int)nread, NULL);
        return;
    }
    if (nread < 0) {
        c->proto->ended(c, (int)nread, NULL);
        return;
    }
    c->proto->data(c, buf->base, (size_t)nread);
    if (c->proto->read_done)
        c->proto->read_done(c);
}

/* ---- Connected -------------------------------------------------------- */

/* c, the connection of s, is established: TLS begins, or it is up. */
void engine__h1_connected(struct transport_slot *s, struct h1_conn *c)
{
    int status;

    engine__worker_phase(s->w, PHASE_CONNECT, (uv_hrtime() - c->begun_ns) / 1000);
    h1_worker_of(s->w)->addr_at = h1_slot_of(s)->addr_i;
    c->is_connected = 1;
    if (engine__h1_addr_of(s)->ss_family != AF_UNIX)
        uv_tcp_nodelay(&c->tcp, 1);
    if (h1_worker_of(s->w)->tls) {
        c->tls = tls_conn_new(h1_worker_of(s->w)->tls);
        c->tls_start_ns = uv_hrtime();
    }
    status = uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    if (status < 0) {
        engine__h1_fail(s, TRANSFER_RECV, -status, "read");
        return;
    }
    /* With TLS, the request waits for the handshake, within the connect
     * deadline still armed. */
    if (c->tls)
        handshake_step(s);
    else
        up(s, c);
}
