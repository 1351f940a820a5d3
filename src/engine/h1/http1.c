/*
 * The h1 transport: brink's own HTTP/1.1 client on libuv TCP, for plain
 * http:// load where libcurl's generality costs more CPU than the server
 * under test. Each slot keeps one connection (keep-alive) that is always
 * read, so an idle connection the server closes is noticed and dropped. A
 * request is one write of a pre-serialised head (and the kind's body, from
 * the workload's copy); the reply is parsed and counted in the worker's one
 * read buffer, never copied. Outcomes are stated in brink's terms (enum
 * transfer_outcome), as the curl transport maps libcurl's, so classify.c
 * puts them in the same classes. As with curl, a request whose reused
 * connection the server had closed before any byte of the reply is sent
 * again once on a fresh one (retried), and a
 * connect refused at one address of the target tries the next. A name is
 * looked up off the loop (h1/lookup.c); a unix socket ([target] unix_socket)
 * is connected by hand and its fd handed to libuv. New connections are begun within
 * each loop pass's budget (pace.h): requests wait for either within their
 * connect deadline (h1/connect.c). An https:// target speaks TLS (h1/tls.h) on the same
 * sockets: the handshake runs on the worker's loop after the connect,
 * within the connect deadline, the request is written after it, and replies
 * are decrypted into the read buffer and parsed as plain ones. With
 * http_version = 2 or h2c, requests go as HTTP/2 streams of connections
 * the worker shares between its slots (h1/http2.c), opened here alike.
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
#include "engine/h1/tls.h"
#include "engine/h1/wire.h"

#include "engine/h1/internal.h"

static const struct config *config_of(const struct slot *s)
{
    return s->w->config;
}

/* ---- Connections ------------------------------------------------------ */

static void on_conn_closed(uv_handle_t *h)
{
    struct h1_conn *c = container_of((uv_tcp_t *)h, struct h1_conn, tcp);

    engine__h1_worker_of(h)->fds_used--;
    engine__h2_conn_free(c->h2);
    h1_tls_conn_free(c->tls);
    if (c->is_counted)
        engine__worker_conn_closed(engine__h1_worker_of(h));
    free(c->copy);
    free(c);
}

/* The close of c its turn came to (closer.h): close_notify when the
 * socket takes it at once, never waited for; then the socket. */
static void close_now(struct closing *x)
{
    struct h1_conn *c = container_of(x, struct h1_conn, closing);

    if (c->tls && c->is_tls_ready && !c->is_writing) {
        const char *data;
        size_t n;

        h1_tls_close_notify(c->tls);
        n = h1_tls_out(c->tls, &data);
        if (n) {
            uv_buf_t b = uv_buf_init((char *)data, (unsigned)n);

            (void)uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
        }
    }
    uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
}

/* Closes c, now or within a later pass's budget; its slot (if any) lets go
 * of it at once, and it reads nothing more. Pending requests on it end
 * with UV_ECANCELED, which their callbacks ignore. */
void engine__h1_conn_close(struct h1_conn *c)
{
    if (c->s)
        c->s->h1->conn = NULL;
    c->s = NULL;
    if (c->is_let_go)
        return;
    c->is_let_go = 1;
    uv_read_stop((uv_stream_t *)&c->tcp);
    closer_close(&engine__h1_worker_of((uv_handle_t *)&c->tcp)->closer, &c->closing, close_now);
}

/* ---- Completion ------------------------------------------------------- */

static void complete(struct slot *s, enum transfer_outcome outcome, int os_errno, const char *words)
{
    struct h1_slot *h = s->h1;
    struct transfer_result r = {0};
    char tagged[WORDS_MAX + 8];

    uv_timer_stop(&h->timer);
    r.outcome = outcome;
    r.os_errno = os_errno;
    r.http_status = h->resp.status;
    r.connected = h->was_connected;
    /* A deadline that passed while the name was being looked up is the DNS
     * server's silence, not the target's. */
    if (h->is_looking_up && outcome == TRANSFER_TIMEOUT)
        r.outcome = TRANSFER_DNS;
    h->is_looking_up = 0;
    /* The words name the transport, as libcurl's name theirs. */
    if (words[0])
        snprintf(tagged, sizeof(tagged), "h1: %s", words);
    else
        tagged[0] = '\0';
    engine__slot_done(s, &r, h->resp.raw_bytes, h->bytes_out, tagged);
}

static void on_idle(uv_idle_t *i)
{
    struct h1_worker *hw = container_of(i, struct h1_worker, idle);
    struct h1_slot *h = hw->pending;

    /* Completions started from here queue on a fresh list. */
    hw->pending = NULL;
    uv_idle_stop(i);
    while (h) {
        struct h1_slot *next = h->next;

        h->is_pending = 0;
        complete(h->s, h->outcome, h->os_errno, h->words);
        h = next;
    }
}

static void unlink_pending(struct h1_worker *hw, struct h1_slot *h)
{
    for (struct h1_slot **p = &hw->pending; *p; p = &(*p)->next) {
        if (*p == h) {
            *p = h->next;
            break;
        }
    }
    h->is_pending = 0;
}

/* The transfer of s failed: complete it now, or, inside start, on the next
 * loop pass (engine__slot_done would start the next request inside this one). */
void engine__h1_fail(struct slot *s, enum transfer_outcome outcome, int os_errno, const char *what)
{
    struct h1_slot *h = s->h1;
    struct h1_worker *hw = s->w->h1;

    /* strerror's words, so that classify does not repeat them. */
    if (os_errno)
        msg_set(h->words, sizeof(h->words), "%s: %s", what, msg_errno(os_errno).text);
    else
        msg_set(h->words, sizeof(h->words), "%s", what);
    if (h->h2)
        engine__h2_leave(s, outcome, os_errno, what);
    if (h->conn)
        engine__h1_conn_close(h->conn);
    if (!h->is_starting) {
        complete(s, outcome, os_errno, h->words);
        return;
    }
    uv_timer_stop(&h->timer);
    h->outcome = outcome;
    h->os_errno = os_errno;
    h->is_pending = 1;
    h->next = hw->pending;
    hw->pending = h;
    uv_idle_start(&hw->idle, on_idle);
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
static int retried(struct slot *s, int err)
{
    struct h1_slot *h = s->h1;

    if (h->is_retried || !h->conn || h->conn->n_sent < 2 || h->resp.raw_bytes > 0 ||
        (err != UV_EOF && err != UV_EPIPE) || !engine__slot_may_resend(s, RESEND_CLOSED_IDLE))
        return 0;
    h->is_retried = 1;
    engine__h1_conn_close(h->conn);
    engine__h1_conn_open(s);
    return 1;
}

static void on_timeout(uv_timer_t *t);

static void on_write(uv_write_t *req, int status)
{
    struct h1_conn *c = container_of(req, struct h1_conn, write);

    free(c->copy);
    c->copy = NULL;
    c->is_writing = 0;
    if (status == UV_ECANCELED || !c->s || status >= 0)
        return;
    if (!retried(c->s, status))
        engine__h1_fail(c->s, TRANSFER_SEND, -status, "write");
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
    if (status == UV_ECANCELED || !c->s || status >= 0)
        return;
    if (!c->is_tls_ready)
        engine__h1_fail(c->s, TRANSFER_TLS, -status, "write during the TLS handshake");
    else if (!retried(c->s, status))
        engine__h1_fail(c->s, TRANSFER_SEND, -status, "write");
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
int engine__h1_tls_flush(struct h1_conn *c)
{
    const char *data;
    size_t n = h1_tls_out(c->tls, &data);
    int rc = engine__h1_write(c, data, n);

    h1_tls_out_taken(c->tls);
    return rc;
}

/* The request's head and body, through c's TLS. */
static void send_tls(struct slot *s, const char *head, size_t len, const unsigned char *body,
                     size_t body_len)
{
    struct h1_slot *h = s->h1;
    struct h1_conn *c = h->conn;
    char why[H1_TLS_WHY_MAX];
    int rc;

    if (h1_tls_write(c->tls, head, len, why, sizeof(why)) < 0 ||
        h1_tls_write(c->tls, body, body_len, why, sizeof(why)) < 0) {
        engine__h1_fail(s, TRANSFER_TLS, 0, why);
        return;
    }
    rc = engine__h1_tls_flush(c);
    if (rc < 0 && !retried(s, rc))
        engine__h1_fail(s, TRANSFER_SEND, -rc, "write");
}

static void send_request(struct slot *s)
{
    struct h1_slot *h = s->h1;
    struct h1_conn *c = h->conn;
    const unsigned char *body;
    size_t len, body_len;
    uv_buf_t bufs[2];
    const char *head;
    int rc;

    engine__h1_request(s, &head, &len, &body, &body_len);
    bufs[0] = uv_buf_init((char *)head, (unsigned)len);
    bufs[1] = uv_buf_init((char *)body, (unsigned)body_len);
    h->bytes_out = len + body_len;
    /* From the write's start, as libcurl's PRETRANSFER. */
    h->sent_ns = uv_hrtime();
    c->n_sent++;
    if (c->tls) {
        send_tls(s, head, len, body, body_len);
        return;
    }
    rc = uv_try_write((uv_stream_t *)&c->tcp, bufs, body_len ? 2 : 1);
    if (rc >= 0 && (size_t)rc == h->bytes_out)
        return;
    if (rc >= 0 || rc == UV_EAGAIN)
        rc = write_rest(c, bufs, rc >= 0 ? (size_t)rc : 0);
    if (rc < 0 && !retried(s, rc))
        engine__h1_fail(s, TRANSFER_SEND, -rc, "write");
}

/* ---- Replies ---------------------------------------------------------- */

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    struct h1_conn *c = container_of((uv_tcp_t *)h, struct h1_conn, tcp);
    struct h1_worker *hw = engine__h1_worker_of(h)->h1;

    (void)suggested;
    if (c->tls)
        *buf = uv_buf_init(hw->tls_in, TLS_READ_BUFFER);
    else
        *buf = uv_buf_init(hw->rbuf, READ_BUFFER);
}

static void replied(struct slot *s, size_t used, size_t n)
{
    struct h1_conn *c = s->h1->conn;

    /* Bytes after the reply, or a request still being written, leave the
     * connection in no state to carry another request. */
    if (!config_of(s)->target.keepalive || !h1_resp_keeps_alive(&s->h1->resp) || used != n ||
        c->is_writing)
        engine__h1_conn_close(c);
    complete(s, TRANSFER_OK, 0, "");
}

static void on_data(struct slot *s, const char *data, size_t n)
{
    struct h1_slot *h = s->h1;
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

static void on_read_error(struct slot *s, ssize_t nread)
{
    struct h1_slot *h = s->h1;

    if (nread != UV_EOF) {
        if (!retried(s, (int)nread))
            engine__h1_fail(s, TRANSFER_RECV, (int)-nread, "read");
        return;
    }
    if (h1_resp_eof(&h->resp) == H1_DONE) {
        engine__h1_conn_close(h->conn);
        complete(s, TRANSFER_OK, 0, "");
    } else if (!retried(s, UV_EOF)) {
        engine__h1_fail(s, h->resp.raw_bytes ? TRANSFER_CLOSED_PARTIAL : TRANSFER_CLOSED_EMPTY, 0,
                        h->resp.raw_bytes ? "the connection closed in the middle of the reply"
                                          : "the connection closed before any reply");
    }
}

/* ---- TLS -------------------------------------------------------------- */

/* The handshake of s's connection goes as far as the bytes read allow;
 * once complete, the request is sent. */
static void handshake_step(struct slot *s)
{
    struct h1_conn *c = s->h1->conn;
    char why[H1_TLS_WHY_MAX];
    enum h1_tls_state st = h1_tls_handshake(c->tls, why, sizeof(why));
    int rc;

    if (st == H1_TLS_DONE) {
        c->is_tls_ready = 1;
        /* The handshake's duration, TCP connect excluded: the TLS phase. */
        c->tls_handshake_us = (uv_hrtime() - c->tls_start_ns) / 1000;
        engine__worker_phase(s->w, PHASE_TLS, c->tls_handshake_us);
        if (s->h1->h2 && !engine__h2_ready(s, c))
            return;
        s->h1->was_connected = 1;
        engine__h1_arm_timer(s, engine__slot_timeout_us(s));
        /* Its last flight (Finished) leaves with the request, in one write. */
        send_request(s);
        return;
    }
    /* The next flight, or the alert that says why brink gives up. */
    rc = engine__h1_tls_flush(c);
    if (st == H1_TLS_FAILED)
        engine__h1_fail(s, TRANSFER_TLS, 0, why);
    else if (rc < 0)
        engine__h1_fail(s, TRANSFER_TLS, -rc, "write during the TLS handshake");
}

/* Hands the plaintext of c's TLS to its request, as on_data does the bytes
 * of a plain connection: an idle connection that talks is dropped. */
static void tls_deliver(struct h1_conn *c)
{
    struct h1_worker *hw = engine__h1_worker_of((uv_handle_t *)&c->tcp)->h1;
    char why[H1_TLS_WHY_MAX];
    enum h1_tls_state st;
    size_t got;

    do {
        st = h1_tls_read(c->tls, hw->rbuf, READ_BUFFER, &got, why, sizeof(why));
        if (got) {
            if (!c->s || !c->s->is_in_flight) {
                engine__h1_conn_close(c);
                return;
            }
            on_data(c->s, hw->rbuf, got);
            if (uv_is_closing((uv_handle_t *)&c->tcp))
                return;
        }
    } while (st == H1_TLS_FULL);
    if (st == H1_TLS_WANT) {
        /* Reading may have written (a reply to a key update). */
        int rc = engine__h1_tls_flush(c);

        if (rc >= 0)
            return;
        if (!c->s || !c->s->is_in_flight)
            engine__h1_conn_close(c);
        else if (!retried(c->s, rc))
            engine__h1_fail(c->s, TRANSFER_SEND, -rc, "write");
        return;
    }
    if (!c->s || !c->s->is_in_flight)
        engine__h1_conn_close(c);
    else if (st == H1_TLS_CLOSED)
        on_read_error(c->s, UV_EOF);
    else
        engine__h1_fail(c->s, TRANSFER_TLS, 0, why);
}

static void on_tls_read(struct h1_conn *c, ssize_t nread, const uv_buf_t *buf)
{
    struct slot *s = c->s;

    if (nread > 0)
        h1_tls_feed(c->tls, buf->base, (size_t)nread);
    if (c->is_tls_ready) {
        if (nread > 0)
            tls_deliver(c);
        else if (!s || !s->is_in_flight)
            engine__h1_conn_close(c);
        else
            on_read_error(s, nread);
        return;
    }
    if (!s) {
        engine__h1_conn_close(c);
        return;
    }
    if (nread == UV_EOF)
        engine__h1_fail(s, TRANSFER_TLS, 0, "TLS handshake: the server closed the connection");
    else if (nread < 0)
        engine__h1_fail(s, TRANSFER_TLS, (int)-nread, "TLS handshake: read");
    else
        handshake_step(s);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    struct h1_conn *c = container_of((uv_tcp_t *)stream, struct h1_conn, tcp);
    struct slot *s = c->s;

    if (nread == 0)
        return;
    if (c->h2) {
        engine__h2_on_read(c, nread, buf);
        return;
    }
    if (c->tls) {
        on_tls_read(c, nread, buf);
        return;
    }
    /* An idle connection that closes, fails or talks out of turn is
     * dropped; the next request opens another. */
    if (!s || !s->is_in_flight) {
        engine__h1_conn_close(c);
        return;
    }
    if (nread < 0)
        on_read_error(s, nread);
    else
        on_data(s, buf->base, (size_t)nread);
}

/* ---- Connected -------------------------------------------------------- */

/* c, the connection of s, is established: the request goes out. */
void engine__h1_connected(struct slot *s, struct h1_conn *c)
{
    int status;

    engine__worker_phase(s->w, PHASE_CONNECT, (uv_hrtime() - c->begun_ns) / 1000);
    s->w->h1->addr_at = s->h1->addr_i;
    c->is_connected = 1;
    if (engine__h1_addr_of(s)->ss_family != AF_UNIX)
        uv_tcp_nodelay(&c->tcp, 1);
    if (s->w->h1->tls) {
        c->tls = h1_tls_conn_new(s->w->h1->tls);
        c->tls_start_ns = uv_hrtime();
    }
    status = uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    if (status < 0) {
        engine__h1_fail(s, TRANSFER_RECV, -status, "read");
        return;
    }
    /* With TLS, the request waits for the handshake, within the connect
     * deadline still armed. */
    if (c->tls) {
        handshake_step(s);
        return;
    }
    if (s->h1->h2 && !engine__h2_ready(s, c))
        return;
    s->h1->was_connected = 1;
    engine__h1_arm_timer(s, engine__slot_timeout_us(s));
    send_request(s);
}

/* ---- Deadlines -------------------------------------------------------- */

/* Arms the timer of s to fire limit_us after the request started. */
void engine__h1_arm_timer(struct slot *s, uint64_t limit_us)
{
    engine__slot_arm(s, &s->h1->timer, on_timeout, limit_us);
}

static void on_timeout(uv_timer_t *t)
{
    struct h1_slot *h = container_of(t, struct h1_slot, timer);
    struct slot *s = h->s;
    char what[WORDS_MAX];

    if (!s->is_in_flight || h->is_pending)
        return;
    if (h->h2 && !h->conn && !h->is_looking_up && !h->is_queued) {
        engine__h2_timeout(s);
        return;
    }
    if (h->is_looking_up) {
        /* complete() makes the timeout a dns failure, as libcurl's is. */
        dlist_remove(&s->w->h1->waiting, &h->in_line);
        snprintf(
            what, sizeof(what), "no answer to the name lookup within %llu ms",
            (unsigned long long)((engine__worker_now_ns(s->w) - s->h1->rq->start_ns) / 1000000));
        engine__h1_fail(s, TRANSFER_TIMEOUT, 0, what);
        return;
    }
    if (h->is_queued) {
        /* Never connected: connect_timeout, with brink's own reason. */
        engine__h1_unlink_queued(s->w->h1, h);
        engine__slot_queued_words(s, what, sizeof(what));
        engine__h1_fail(s, TRANSFER_TIMEOUT, 0, what);
        return;
    }
    if (h->conn && h->conn->tls && !h->conn->is_tls_ready) {
        snprintf(
            what, sizeof(what), "TLS handshake not done within %llu ms",
            (unsigned long long)((engine__worker_now_ns(s->w) - s->h1->rq->start_ns) / 1000000));
        engine__h1_fail(s, TRANSFER_TIMEOUT, 0, what);
        return;
    }
    snprintf(what, sizeof(what), "no reply within %llu ms",
             (unsigned long long)((engine__worker_now_ns(s->w) - s->h1->rq->start_ns) / 1000000));
    engine__h1_fail(s, TRANSFER_TIMEOUT, 0, what);
}

/* ---- The ops table ---------------------------------------------------- */

static void start(struct slot *s, const struct transport_request *rq)
{
    struct h1_slot *h = s->h1;
    int is_head = rq->script ? rq->script->is_head : h1_setup_of(s->w)->kinds[rq->kind].is_head;

    h->rq = rq;
    h->is_starting = 1;
    h->is_retried = 0;
    h->bytes_out = 0;
    h->was_connected = h->conn != NULL;
    h1_resp_begin(&h->resp, is_head, config_of(s)->target.max_body_bytes);
    if (rq->script)
        h->resp.cap = &rq->script->cap;
    else if (h->capture.wants)
        h1_resp_capture(&h->resp, &h->capture);
    if (!rq->script && rq->hops && !engine__h1_is_same_origin(s)) {
        engine__h1_fail(s, TRANSFER_OTHER, 0, ENGINE_H1_OTHER_ORIGIN);
    } else if (s->w->h1->is_h2) {
        engine__h2_start(s);
    } else if (h->conn) {
        engine__h1_arm_timer(s, engine__slot_timeout_us(s));
        send_request(s);
    } else {
        engine__h1_conn_open(s);
    }
    h->is_starting = 0;
}

static void abort_transfer(struct slot *s)
{
    struct h1_slot *h = s->h1;

    uv_timer_stop(&h->timer);
    if (h->is_pending)
        unlink_pending(s->w->h1, h);
    if (h->is_looking_up)
        dlist_remove(&s->w->h1->waiting, &h->in_line);
    h->is_looking_up = 0;
    if (h->is_queued)
        engine__h1_unlink_queued(s->w->h1, h);
    if (h->h2)
        engine__h2_leave(s, TRANSFER_OTHER, 0, NULL);
    /* Closing mid-request is what a client that goes away does. */
    if (h->conn)
        engine__h1_conn_close(h->conn);
}

static int is_unsent(struct slot *s)
{
    return s->h1->is_looking_up || s->h1->is_queued || (s->h1->h2 && !s->h1->stream_id);
}

/* s is no longer one of the users: its own connection closes (HTTP/2's
 * are the worker's, shared, and stay). */
static void retire(struct slot *s)
{
    if (s->h1->conn)
        engine__h1_conn_close(s->h1->conn);
}

/* A header value of the reply to the request of the slot arg: a
 * Set-Cookie goes into its jar. */
static void on_value(void *arg, enum h1_header which, int status, const char *v, size_t n)
{
    struct slot *s = arg;

    (void)status;
    if (which == H1_HEADER_SET_COOKIE && s->h1->url)
        engine__slot_cookie_set(s, s->h1->url, v, n);
    else if (which == H1_HEADER_LOCATION && s->h1->url)
        engine__slot_location(s, s->h1->url, v, n);
}

static void slot_init(struct slot *s)
{
    struct h1_slot *h = xcalloc(1, sizeof(*h));

    h->s = s;
    uv_timer_init(&s->w->loop, &h->timer);
    if (s->w->config->target.cookies || s->w->config->target.follow_redirects) {
        h->value = xmalloc(H1_VALUE_MAX);
        h->capture =
            (struct h1_capture){.fn = on_value, .arg = s, .buf = h->value, .cap = H1_VALUE_MAX};
        if (s->w->config->target.cookies)
            h->capture.wants |= 1u << H1_HEADER_SET_COOKIE;
        if (s->w->config->target.follow_redirects)
            h->capture.wants |= 1u << H1_HEADER_LOCATION;
    }
    s->h1 = h;
}

static void slot_fini(struct slot *s)
{
    /* Its timer was closed with the worker's handles (h1_close). */
    if (s->h1) {
        free(s->h1->url);
        free(s->h1->value);
    }
    free(s->h1);
}

static int h1_init(struct worker *w, char *err, size_t err_len)
{
    struct h1_worker *hw = xcalloc(1, sizeof(*hw));
    const struct h1_setup *p = h1_setup_of(w);

    /* First: a file that does not load leaves nothing to close. */
    if (p->is_tls) {
        int rc = h1_tls_new(&w->config->target, p->tls_name, err, err_len, &hw->tls);

        if (rc != 0) {
            free(hw);
            return rc;
        }
        hw->tls_in = xmalloc(TLS_READ_BUFFER);
    }
    uv_idle_init(&w->loop, &hw->idle);
    uv_async_init(&w->loop, &hw->resolved, engine__h1_on_resolved);
    uv_idle_init(&w->loop, &hw->paced);
    hw->has_addrs = h1_setup_of(w)->has_addrs;
    hw->addrs = h1_setup_of(w)->addrs;
    hw->head_cap = h1_setup_of(w)->head_max;
    hw->head = xmalloc(hw->head_cap);
    hw->rbuf = xmalloc(READ_BUFFER);
    w->h1 = hw;
    if (p->h2 != CONFIG_HTTP_1_1)
        engine__h2_init(w);
    return 0;
}

static void h1_close(struct worker *w)
{
    for (uint32_t i = 0; i < w->n_slots; i++) {
        struct h1_slot *h = w->slots[i]->h1;

        if (h->conn)
            engine__h1_conn_close(h->conn);
        uv_close((uv_handle_t *)&h->timer, NULL);
    }
    engine__h2_close(w);
    w->h1->pending = NULL;
    dlist_init(&w->h1->waiting);
    dlist_init(&w->h1->queued);
    uv_close((uv_handle_t *)&w->h1->idle, NULL);
    uv_close((uv_handle_t *)&w->h1->paced, NULL);
    /* A lookup still running finishes alone; it sends nothing from here. */
    engine__lookup_release(w->h1->lookup);
    w->h1->lookup = NULL;
    uv_close((uv_handle_t *)&w->h1->resolved, NULL);
}

static void h1_fini(struct worker *w)
{
    if (!w->h1)
        return;
    free(w->h1->head);
    free(w->h1->signed_head);
    free(w->h1->rbuf);
    free(w->h1->tls_in);
    h1_tls_free(w->h1->tls);
    engine__h2_fini(w);
    free(w->h1);
    w->h1 = NULL;
}

const struct transport_ops transport_h1 = {
    .name = "h1",
    .version = engine__tls_version,
    .accepts = engine__h1_accepts,
    .setup = engine__h1_setup_new,
    .teardown = engine__h1_setup_free,
    .init = h1_init,
    .close = h1_close,
    .fini = h1_fini,
    .slot_init = slot_init,
    .slot_free = slot_fini,
    .script_ready = engine__h1_script_ready,
    .start = start,
    .abort = abort_transfer,
    .is_unsent = is_unsent,
    .retire = retire,
};
