/*
 * The reads and writes of h1's HTTP/2 connections, and the protocol's
 * table (struct h1_proto) over h1/http2.c, which has the rest: the bytes
 * of a read (decrypted by h1/conn.c) go whole into
 * nghttp2_session_mem_recv, the streams they ended completed after it;
 * frames go out once per loop pass and connection (one write, one TLS
 * record run, for every stream with something to send), from the
 * worker's prepare handle. A failed read or write, or bytes nghttp2
 * refuses, lose the connection. Worker thread only.
 */
#include <stdio.h>
#include <string.h>

#include <nghttp2/nghttp2.h>

#include "core/xalloc.h"

#include "engine/h1/internal.h"

/* Bytes of the connection into its session. Returns 0, or -1 once the
 * connection is lost (malformed). */
static int take(struct h2_conn *hc, const char *data, size_t n)
{
    ssize_t rc = nghttp2_session_mem_recv(hc->session, (const uint8_t *)data, n);
    char words[WORDS_MAX];

    if (rc >= 0) {
        engine__h2_mark_dirty(hc);
        return 0;
    }
    snprintf(words, sizeof(words), "HTTP/2: %s", nghttp2_strerror((int)rc));
    engine__h2_complete_done(h1_worker_of(hc->w)->h2);
    engine__h2_conn_lost(hc, TRANSFER_MALFORMED, 0, words);
    return -1;
}

/* The end of the server's bytes (UV_EOF, close_notify) or a failed read. */
static void read_ended(struct h2_conn *hc, ssize_t nread, enum transfer_outcome tls_failed,
                       const char *why)
{
    if (tls_failed != TRANSFER_OK)
        engine__h2_conn_lost(hc, tls_failed, 0, why);
    else if (nread == UV_EOF)
        engine__h2_conn_lost(hc, TRANSFER_CLOSED_EMPTY, 0,
                             "the connection closed before the reply");
    else
        engine__h2_conn_lost(hc, TRANSFER_RECV, (int)-nread, "read");
}

/* ---- The protocol's side of the connection (h1/conn.c) --------------- */

static void http2_data(struct h1_conn *c, const char *data, size_t n)
{
    if (!c->h2->is_dead)
        take(c->h2, data, n);
}

/* The streams that ended during the read completed after it (nghttp2 is
 * not re-entered). */
static void http2_read_done(struct h1_conn *c)
{
    engine__h2_complete_done(h1_worker_of(engine__h1_worker_of((uv_handle_t *)&c->tcp))->h2);
}

static void http2_ended(struct h1_conn *c, int err, const char *tls_why)
{
    struct h2_conn *hc = c->h2;
    struct h2_worker *x;

    if (!hc || hc->is_dead)
        return;
    x = h1_worker_of(hc->w)->h2;
    if (tls_why)
        read_ended(hc, 0, TRANSFER_TLS, tls_why);
    else
        read_ended(hc, err, TRANSFER_OK, "");
    engine__h2_complete_done(x);
}

static void http2_closed(struct h1_conn *c)
{
    engine__h2_conn_free(c->h2);
}

const struct h1_proto engine__h1_http2 = {
    .data = http2_data,
    .read_done = http2_read_done,
    .ended = http2_ended,
    .closed = http2_closed,
    .up = engine__h2_ready,
    .leave = engine__h2_leave,
    .timeout = engine__h2_timeout,
};

/* Every frame hc's session has to send, in one write (one run of TLS
 * records). */
static void flush(struct h2_conn *hc)
{
    struct h2_worker *x = h1_worker_of(hc->w)->h2;
    struct h1_conn *c = hc->c;
    char why[TLS_WHY_MAX];
    size_t n = 0;
    int rc = 0;

    for (;;) {
        const uint8_t *data;
        ssize_t len = nghttp2_session_mem_send(hc->session, &data);

        if (len < 0) {
            snprintf(why, sizeof(why), "HTTP/2: %s", nghttp2_strerror((int)len));
            engine__h2_conn_lost(hc, TRANSFER_OTHER, 0, why);
            return;
        }
        if (len == 0)
            break;
        if (n + (size_t)len > x->out_cap) {
            x->out_cap = 2 * (n + (size_t)len);
            x->out = xrealloc(x->out, x->out_cap);
        }
        memcpy(x->out + n, data, (size_t)len);
        n += (size_t)len;
    }
    if (n && c->tls) {
        if (tls_write(c->tls, x->out, n, why, sizeof(why)) < 0) {
            engine__h2_conn_lost(hc, TRANSFER_TLS, 0, why);
            return;
        }
        rc = engine__tls_flush(c);
    } else if (n) {
        rc = engine__h1_write(c, x->out, n);
    }
    if (rc < 0) {
        engine__h2_conn_lost(hc, TRANSFER_SEND, -rc, "write");
        return;
    }
    /* Both sides are done with it (a GOAWAY sent or received, and no
     * stream left). */
    if (nghttp2_session_want_read(hc->session) || nghttp2_session_want_write(hc->session))
        return;
    if (hc->broke) {
        int has_why = hc->broke_why[0] != '\0';

        snprintf(why, sizeof(why), "HTTP/2: the server broke the protocol: %s%s%s%s",
                 nghttp2_http2_strerror(hc->broke), has_why ? " (" : "",
                 has_why ? hc->broke_why : "", has_why ? ")" : "");
        engine__h2_conn_lost(hc, TRANSFER_MALFORMED, 0, why);
        return;
    }
    engine__h2_conn_lost(hc, TRANSFER_CLOSED_EMPTY, 0, "the HTTP/2 session ended");
}

void engine__h2_on_flush(uv_prepare_t *p)
{
    struct h2_worker *x = container_of(p, struct h2_worker, flush);
    struct dlist_node *n;

    while ((n = dlist_pop_head(&x->dirty)) != NULL) {
        struct h2_conn *hc = container_of(n, struct h2_conn, in_dirty);

        hc->is_dirty = 0;
        flush(hc);
        engine__h2_complete_done(x);
    }
}
