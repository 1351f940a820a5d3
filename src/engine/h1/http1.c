/*
 * HTTP/1.1 on an h1 connection (h1/conn.c carries the bytes): each slot
 * keeps one connection (keep-alive) that is always read, so an idle
 * connection the server closes is noticed and dropped. A request is one
 * write of a pre-serialised head (h1/request.c) and the kind's body; the
 * reply is parsed and counted in the worker's one read buffer, never
 * copied. Outcomes are stated in brink's terms (enum transfer_outcome), as
 * the curl transport maps libcurl's, so classify.c puts them in the same
 * classes. As with curl, a request whose reused connection the server had
 * closed before any byte of the reply is sent again once on a fresh one
 * (retried). Worker thread only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "config/config.h"
#include "core/dlist.h"
#include "core/msg.h"
#include "core/xalloc.h"
#include "engine/transport.h"
#include "engine/tls/tls.h"
#include "engine/h1/wire.h"

#include "engine/h1/internal.h"

static const struct config *config_of(const struct transport_slot *s)
{
    return s->w->config;
}

/* ---- Requests --------------------------------------------------------- */

/*
 * Whether a request whose connection failed with err (UV_EOF, or the UV
 * error of a read or write) goes once more, on a fresh connection: only
 * when the connection had carried a request before, no byte of the reply
 * came, and the server had closed it (a FIN): the close crossed the
 * request on the wire (docs/config.md, "Requests sent again"). Linux says
 * so by end of file on a read, or EPIPE: a reset that follows the
 * server's FIN (the socket in CLOSE_WAIT) sets EPIPE, where a reset of an
 * established connection sets ECONNRESET, which is the request's error.
 * The head is filled in again: the same {seq} and {vu}, new {rand} and
 * {uuid}.
 */
static int retried(struct transport_slot *s, int err)
{
    struct h1_slot *h = h1_slot_of(s);

    if (h->is_retried || !h->conn || h->conn->n_sent < 2 || h->resp.raw_bytes > 0 ||
        (err != UV_EOF && err != UV_EPIPE) || !engine__slot_may_resend(s, RESEND_CLOSED_IDLE))
        return 0;
    h->is_retried = 1;
    engine__h1_conn_close(h->conn);
    engine__h1_conn_open(s);
    return 1;
}

static void send_request(struct transport_slot *s)
{
    struct h1_slot *h = h1_slot_of(s);
    struct h1_conn *c = h->conn;
    char why[TLS_WHY_MAX];
    const unsigned char *body;
    size_t len, body_len;
    const char *head;
    int rc;

    engine__h1_request(s, &head, &len, &body, &body_len);
    h->bytes_out = len + body_len;
    /* From the write's start, as libcurl's PRETRANSFER. */
    h->sent_ns = uv_hrtime();
    c->n_sent++;
    rc = engine__h1_conn_send(c, head, len, body, body_len, why, sizeof(why));
    if (rc == H1_SEND_TLS)
        engine__h1_fail(s, TRANSFER_TLS, 0, why);
    else if (rc < 0 && !retried(s, rc))
        engine__h1_fail(s, TRANSFER_SEND, -rc, "write");
}

static void replied(struct transport_slot *s, size_t used, size_t n)
{
    struct h1_conn *c = h1_slot_of(s)->conn;

    /* Bytes after the reply, or a request still being written, leave the
     * connection in no state to carry another request. */
    if (!config_of(s)->target.keepalive || !h1_resp_keeps_alive(&h1_slot_of(s)->resp) ||
        used != n || c->is_writing)
        engine__h1_conn_close(c);
    engine__h1_complete(s, TRANSFER_OK, 0, "");
}

static void on_data(struct transport_slot *s, const char *data, size_t n)
{
    struct h1_slot *h = h1_slot_of(s);
    size_t used;

    if (h->resp.raw_bytes == 0)
        engine__worker_phase(s->w, PHASE_TTFB, (uv_hrtime() - h->sent_ns) / 1000);
    switch (h1_resp_feed(&h->resp, data, n, &used)) {
    case H1_MORE: return;
    case H1_DONE: replied(s, used, n); return;
    case H1_CUT: engine__h1_fail(s, TRANSFER_BODY_CUT, 0, "body cut at max_body"); return;
    case H1_MALFORMED: engine__h1_fail(s, TRANSFER_MALFORMED, 0, h1_resp_error(&h->resp)); return;
    }
}

static void on_read_error(struct transport_slot *s, ssize_t nread)
{
    struct h1_slot *h = h1_slot_of(s);

    if (nread != UV_EOF) {
        if (!retried(s, (int)nread))
            engine__h1_fail(s, TRANSFER_RECV, (int)-nread, "read");
        return;
    }
    if (h1_resp_eof(&h->resp) == H1_DONE) {
        engine__h1_conn_close(h->conn);
        engine__h1_complete(s, TRANSFER_OK, 0, "");
    } else if (!retried(s, UV_EOF)) {
        engine__h1_fail(s, h->resp.raw_bytes ? TRANSFER_CLOSED_PARTIAL : TRANSFER_CLOSED_EMPTY, 0,
                        h->resp.raw_bytes ? "the connection closed in the middle of the reply"
                                          : "the connection closed before any reply");
    }
}

/* ---- The protocol's side of the connection --------------------------- */

/* An idle connection that talks out of turn, closes or fails is dropped;
 * the next request opens another. */
static int is_idle(struct h1_conn *c)
{
    if (c->s && c->s->is_in_flight)
        return 0;
    engine__h1_conn_close(c);
    return 1;
}

static void http1_data(struct h1_conn *c, const char *data, size_t n)
{
    if (!is_idle(c))
        on_data(c->s, data, n);
}

static void http1_ended(struct h1_conn *c, int err, const char *tls_why)
{
    if (is_idle(c))
        return;
    if (tls_why)
        engine__h1_fail(c->s, TRANSFER_TLS, 0, tls_why);
    else
        on_read_error(c->s, err);
}

static void http1_write_failed(struct h1_conn *c, int status)
{
    if (!is_idle(c) && !retried(c->s, status))
        engine__h1_fail(c->s, TRANSFER_SEND, -status, "write");
}

void engine__h1_http1_up(struct transport_slot *s)
{
    h1_slot_of(s)->was_connected = 1;
    engine__h1_arm_timer(s, engine__slot_timeout_us(s));
    send_request(s);
}

/* c, the connection s opened, is up: it carries HTTP/1.1 from here on. */
static int http1_up(struct transport_slot *s, struct h1_conn *c)
{
    c->proto = &engine__h1_http1;
    engine__h1_http1_up(s);
    return 0;
}

const struct h1_proto engine__h1_http1 = {
    .data = http1_data,
    .ended = http1_ended,
    .write_failed = http1_write_failed,
    .up = http1_up,
};
