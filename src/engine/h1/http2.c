/*
 * HTTP/2 in the h1 transport (http_version = 2 by ALPN, or h2c by prior
 * knowledge), on nghttp2. An HTTP/2 connection (its socket and TLS, one
 * nghttp2_session) is the worker's, not a slot's: a request takes a stream
 * on a connection with one free, open or still opening (up to [target]
 * streams), else opens one through h1/connect.c as an HTTP/1.1 request
 * would (lookups, the connect budget, connect_to, addresses in turn). The
 * slot whose connect opens it is its opener; the others wait for it,
 * each within its own deadline. The request is the head h1 builds, read
 * into header fields (h2_head.h); the reply's fields go through the same
 * capture as HTTP/1.1's. Its reads and writes are in h1/http2_io.c (frames
 * once per loop pass and connection, reads whole into the session), which
 * calls this file, never the other way.
 * Outcomes are those of the curl transport:
 * RST_STREAM is a reset, one with a code of a broken protocol
 * (PROTOCOL_ERROR, FLOW_CONTROL_ERROR, ...), a frame nghttp2 refuses or a
 * stream it resets itself is malformed, REFUSED_STREAM and a GOAWAY before
 * the reply are closed_early and sent once more where the server never
 * processed the stream; a deadline resets its own stream (CANCEL); a lost connection
 * fails every stream on it. Worker thread only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nghttp2/nghttp2.h>

#include "config/config.h"
#include "core/msg.h"
#include "core/xalloc.h"
#include "engine/h1/h2_head.h"
#include "engine/transport.h"

#include "engine/h1/internal.h"

#define H2_STREAM_WINDOW (1u << 20) /* bytes a stream's reply may send ahead */
#define H2_CONN_WINDOW (16u << 20)  /* bytes all of a connection's replies may */
#define H2_REPLY_LINE 15            /* bytes of "HTTP/2 NNN \r\n\r\n", counted as HTTP/1.1's */

static struct h2_worker *h2_of(const struct transport_slot *s)
{
    return h1_worker_of(s->w)->h2;
}

/* ---- Membership ------------------------------------------------------- */

static void set_free(struct h2_conn *hc)
{
    struct h2_worker *x = h1_worker_of(hc->w)->h2;
    int want = !hc->is_dead && !hc->is_goaway && !hc->is_spent && hc->slots.n < x->streams;

    if (want == hc->is_free)
        return;
    if (want)
        dlist_push_tail(&x->free, &hc->in_free);
    else
        dlist_remove(&x->free, &hc->in_free);
    hc->is_free = want;
}

void engine__h2_mark_dirty(struct h2_conn *hc)
{
    struct h2_worker *x = h1_worker_of(hc->w)->h2;

    if (hc->is_dirty || !hc->session || hc->is_dead)
        return;
    hc->is_dirty = 1;
    dlist_push_tail(&x->dirty, &hc->in_dirty);
}

static void attach(struct transport_slot *s, struct h2_conn *hc)
{
    struct h1_slot *h = h1_slot_of(s);

    h->h2 = hc;
    h->stream_id = 0;
    dlist_push_tail(&hc->slots, &h->in_h2);
    set_free(hc);
}

/* s lets go of its connection; a connection the server said goodbye to
 * closes with its last stream. */
static void detach(struct transport_slot *s)
{
    struct h1_slot *h = h1_slot_of(s);
    struct h2_conn *hc = h->h2;

    if (h->stream_id && hc->session)
        nghttp2_session_set_stream_user_data(hc->session, h->stream_id, NULL);
    dlist_remove(&hc->slots, &h->in_h2);
    h->h2 = NULL;
    h->stream_id = 0;
    set_free(hc);
    if ((hc->is_goaway || hc->is_spent) && !hc->is_dead && hc->slots.n == 0)
        engine__h2_conn_lost(hc, TRANSFER_OK, 0, "");
}

static struct h2_conn *conn_new(struct transport_worker *w)
{
    struct h2_conn *hc = xcalloc(1, sizeof(*hc));

    hc->w = w;
    dlist_push_tail(&h1_worker_of(w)->h2->all, &hc->in_all);
    set_free(hc);
    return hc;
}

/* hc is done for: out of the worker's lists, freed now if no socket
 * carries it, else when its socket has closed (engine__h2_conn_free). */
static void conn_retire(struct h2_conn *hc)
{
    struct h2_worker *x = h1_worker_of(hc->w)->h2;

    hc->is_dead = 1;
    set_free(hc);
    if (hc->is_dirty)
        dlist_remove(&x->dirty, &hc->in_dirty);
    hc->is_dirty = 0;
    dlist_remove(&x->all, &hc->in_all);
    if (hc->c)
        engine__h1_conn_close(hc->c);
    else
        engine__h2_conn_free(hc);
}

void engine__h2_conn_free(struct h2_conn *hc)
{
    if (!hc)
        return;
    if (hc->c)
        hc->c->h2 = NULL;
    nghttp2_session_del(hc->session);
    free(hc);
}

/* ---- Requests --------------------------------------------------------- */

static ssize_t read_body(nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t length,
                         uint32_t *flags, nghttp2_data_source *source, void *user_data)
{
    struct h1_slot *h = nghttp2_session_get_stream_user_data(session, stream_id);
    size_t n;

    (void)source;
    (void)user_data;
    if (!h)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    n = h->body_len - h->body_at;
    if (n > length)
        n = length;
    memcpy(buf, h->body + h->body_at, n);
    h->body_at += n;
    if (h->body_at == h->body_len)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

/* Sends the request of s on a new stream of its open connection. */
static void submit(struct transport_slot *s)
{
    struct h1_slot *h = h1_slot_of(s);
    struct h2_conn *hc = h->h2;
    struct h2_worker *x = h2_of(s);
    nghttp2_data_provider body = {.read_callback = read_body};
    const char *head;
    size_t len;
    char why[WORDS_MAX];
    int32_t id;

    engine__h1_request(s, &head, &len, &h->body, &h->body_len);
    h->body_at = 0;
    if (h2_head_read(&x->head, head, len, h1_setup_of(s->w)->is_tls ? "https" : "http", why,
                     sizeof(why)) < 0) {
        engine__h1_fail(s, TRANSFER_OTHER, 0, why);
        return;
    }
    id = nghttp2_submit_request(hc->session, NULL, x->head.nv, x->head.n,
                                h->body_len ? &body : NULL, h);
    if (id < 0) {
        msg_set(why, sizeof(why), "HTTP/2: %s", nghttp2_strerror(id));
        engine__h1_fail(s, TRANSFER_OTHER, 0, why);
        return;
    }
    h->stream_id = id;
    h->was_connected = 1;
    /* keepalive = no: the connection carries this request only. */
    if (!s->w->config->target.keepalive) {
        hc->is_spent = 1;
        set_free(hc);
    }
    h->bytes_out = len + h->body_len;
    h->sent_ns = uv_hrtime();
    engine__h2_mark_dirty(hc);
}

/* The request of s takes a stream: on a connection with one free, unless
 * is_fresh asks for a new connection. */
static void start_on(struct transport_slot *s, int is_fresh)
{
    struct h2_worker *x = h2_of(s);
    struct h1_slot *h = h1_slot_of(s);
    struct h2_conn *hc;

    h->has_end = 0;
    h->is_done = 0;
    if (x->free.head && !is_fresh) {
        hc = container_of(x->free.head, struct h2_conn, in_free);
        attach(s, hc);
        if (hc->session) {
            engine__h1_arm_timer(s, engine__slot_timeout_us(s));
            submit(s);
        } else {
            engine__h1_arm_timer(s, engine__slot_connect_limit_us(s));
        }
        return;
    }
    hc = conn_new(s->w);
    hc->opener = h;
    attach(s, hc);
    engine__h1_conn_open(s);
}

void engine__h2_start(struct transport_slot *s)
{
    start_on(s, 0);
}

/* ---- Ends ------------------------------------------------------------- */

/* The stream of h ended during a read: its completion waits for the read's
 * end (nghttp2 is not re-entered). */
static void stream_ended(struct h1_slot *h, enum transfer_outcome outcome, const char *words)
{
    struct h2_worker *x = h1_worker_of(h->s->w)->h2;

    detach(h->s);
    h->outcome = outcome;
    h->os_errno = 0;
    if (outcome != TRANSFER_OK)
        msg_set(h->words, sizeof(h->words), "%s", words);
    h->is_done = 1;
    h->next_done = x->done;
    x->done = h;
}

/* Whether a request that got nothing of its reply goes once more, on a
 * new connection, for cause (counted by engine__slot_may_resend). */
static int retried(struct transport_slot *s, enum resend_cause cause)
{
    struct h1_slot *h = h1_slot_of(s);

    if (h->is_retried || h->resp.raw_bytes > 0 || !s->is_in_flight ||
        !engine__slot_may_resend(s, cause))
        return 0;
    h->is_retried = 1;
    start_on(s, 1);
    return 1;
}

/* Completes what ended in a read. */
void engine__h2_complete_done(struct h2_worker *x)
{
    while (x->done) {
        struct h1_slot *h = x->done;
        struct transport_slot *s = h->s;
        struct transfer_result r = {0};
        char words[WORDS_MAX];

        x->done = h->next_done;
        h->is_done = 0;
        /* Only a refused stream ends so (on_stream_close). */
        if (h->outcome == TRANSFER_CLOSED_EMPTY && retried(s, RESEND_REFUSED_STREAM))
            continue;
        if (h->outcome != TRANSFER_OK) {
            /* engine__h1_fail writes its words where these are. */
            memcpy(words, h->words, sizeof(words));
            engine__h1_fail(s, h->outcome, 0, words);
            continue;
        }
        uv_timer_stop(&h->timer);
        r.outcome = TRANSFER_OK;
        r.http_status = h->resp.status;
        r.connected = 1;
        engine__worker_http_version(s->w, "h2");
        engine__slot_done(s, &r, h->resp.raw_bytes, h->bytes_out, "");
    }
}

/*
 * Why the request of h, on hc lost with outcome o (os_errno), may go once
 * more, or -1: its stream is above the last one the server's GOAWAY says
 * it processed; or hc had carried replies and the server closed it (end
 * of file, or EPIPE: a reset after its FIN; a GOAWAY naming the stream or
 * none), the close crossing the request, as libcurl sees it too. A reset
 * of the connection (ECONNRESET) is the request's error.
 */
static int lost_cause(const struct h2_conn *hc, const struct h1_slot *h, enum transfer_outcome o,
                      int os_errno)
{
    if (!h->stream_id || o == TRANSFER_MALFORMED)
        return -1;
    if (hc->is_goaway && h->stream_id > hc->last_stream_id)
        return RESEND_REFUSED_STREAM;
    if (hc->n_done == 0)
        return -1;
    if (o == TRANSFER_CLOSED_EMPTY ||
        ((o == TRANSFER_RECV || o == TRANSFER_SEND) && os_errno == EPIPE))
        return RESEND_CLOSED_IDLE;
    return -1;
}

/* hc is lost (or, with TRANSFER_OK, closes with no stream left): every
 * request on it fails with outcome, or goes once more where the server
 * cannot have processed it. */
void engine__h2_conn_lost(struct h2_conn *hc, enum transfer_outcome outcome, int os_errno,
                          const char *words)
{
    struct dlist_node *x;

    if (hc->is_dead)
        return;
    hc->is_dead = 1;
    set_free(hc);
    while ((x = dlist_pop_head(&hc->slots)) != NULL) {
        struct h1_slot *h = container_of(x, struct h1_slot, in_h2);
        struct transport_slot *s = h->s;
        enum transfer_outcome o = outcome;
        int was_processed = hc->is_goaway && h->stream_id <= hc->last_stream_id;
        int cause = lost_cause(hc, h, o, os_errno);

        h->h2 = NULL;
        if (h->stream_id && hc->session)
            nghttp2_session_set_stream_user_data(hc->session, h->stream_id, NULL);
        if (o == TRANSFER_CLOSED_EMPTY && h->resp.raw_bytes)
            o = TRANSFER_CLOSED_PARTIAL;
        if (cause >= 0 && retried(s, (enum resend_cause)cause))
            continue;
        h->stream_id = 0;
        engine__h1_fail(s, o, os_errno,
                        o == TRANSFER_CLOSED_EMPTY && was_processed
                            ? "the server ended the HTTP/2 connection (GOAWAY) before the reply"
                            : words);
    }
    conn_retire(hc);
}

/* ---- Session callbacks ------------------------------------------------ */

static struct h1_slot *stream_slot(nghttp2_session *session, int32_t id)
{
    return id > 0 ? nghttp2_session_get_stream_user_data(session, id) : NULL;
}

/* A field of the reply: its status, the values h1's capture wants
 * (Set-Cookie, Location), a script's lines; counted as HTTP/1.1 text. */
static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name,
                     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
                     void *user_data)
{
    struct h1_slot *h = stream_slot(session, frame->hd.stream_id);
    struct h1_resp *r;

    (void)flags;
    (void)user_data;
    if (!h || frame->hd.type != NGHTTP2_HEADERS)
        return 0;
    r = &h->resp;
    if (r->raw_bytes == 0)
        engine__worker_phase(h->s->w, PHASE_TTFB, (uv_hrtime() - h->sent_ns) / 1000);
    /* An endless run of 1xx replies ends where HTTP/1.1's does. */
    if (!r->has_headers && r->raw_bytes > H1_HEADERS_MAX_BYTES) {
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id, NGHTTP2_CANCEL);
        stream_ended(h, TRANSFER_MALFORMED, "reply headers over 300 KiB, interim replies included");
        return 0;
    }
    if (namelen == 7 && memcmp(name, ":status", 7) == 0) {
        r->status = (int)strtol((const char *)value, NULL, 10);
        r->raw_bytes += H2_REPLY_LINE;
        /* A script keeps the final reply's lines only. */
        if (r->cap)
            r->cap->head.len = 0;
        return 0;
    }
    r->raw_bytes += namelen + valuelen + 4;
    if (r->cap) {
        capture_add(&r->cap->head, (const char *)name, namelen);
        capture_add(&r->cap->head, ": ", 2);
        capture_add(&r->cap->head, (const char *)value, valuelen);
        capture_add(&r->cap->head, "\n", 1);
    }
    if (r->capture && valuelen <= r->capture->cap) {
        enum h1_header which = H1_HEADER_NONE;

        if (namelen == 10 && memcmp(name, "set-cookie", 10) == 0)
            which = H1_HEADER_SET_COOKIE;
        else if (namelen == 8 && memcmp(name, "location", 8) == 0)
            which = H1_HEADER_LOCATION;
        if (which != H1_HEADER_NONE && (r->capture->wants & (1u << which)))
            r->capture->fn(r->capture->arg, which, r->status, (const char *)value, valuelen);
    }
    return 0;
}

/* Reply bytes of a stream: counted against max_body, kept for a script. */
static int on_data(nghttp2_session *session, uint8_t flags, int32_t id, const uint8_t *data,
                   size_t len, void *user_data)
{
    struct h1_slot *h = stream_slot(session, id);
    struct h1_resp *r;

    (void)flags;
    (void)user_data;
    if (!h)
        return 0;
    r = &h->resp;
    if (r->raw_bytes == 0)
        engine__worker_phase(h->s->w, PHASE_TTFB, (uv_hrtime() - h->sent_ns) / 1000);
    r->raw_bytes += len;
    r->body_bytes += len;
    if (r->body_bytes > r->max_body_bytes) {
        r->is_cut = 1;
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
        stream_ended(h, TRANSFER_BODY_CUT, "body cut at max_body");
        return 0;
    }
    if (r->cap && r->cap->wants_body)
        capture_add(&r->cap->body, (const char *)data, len);
    return 0;
}

static int on_frame(nghttp2_session *session, const nghttp2_frame *frame, void *user_data)
{
    struct h2_conn *hc = user_data;
    struct h1_slot *h;

    if (frame->hd.type == NGHTTP2_GOAWAY) {
        hc->is_goaway = 1;
        hc->last_stream_id = frame->goaway.last_stream_id;
        set_free(hc);
        return 0;
    }
    h = stream_slot(session, frame->hd.stream_id);
    /* The final reply's header block is whole (1xx ones are interim). */
    if (h && frame->hd.type == NGHTTP2_HEADERS && h->resp.status >= 200)
        h->resp.has_headers = 1;
    if (h && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) &&
        (frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA))
        h->has_end = 1;
    return 0;
}

/* A GOAWAY with an error that brink's session sends is nghttp2 refusing
 * what the server sent (a frame on the wrong stream, a bad header block):
 * the session ends after it, and its streams are malformed, not closed.
 * So is a stream nghttp2 resets itself (DATA past its window): brink's own
 * resets (CANCEL) let go of their stream first. */
static int on_sent(nghttp2_session *session, const nghttp2_frame *frame, void *user_data)
{
    struct h2_conn *hc = user_data;
    struct h1_slot *h = stream_slot(session, frame->hd.stream_id);
    char words[WORDS_MAX];
    size_t n;

    if (frame->hd.type == NGHTTP2_RST_STREAM && h) {
        snprintf(words, sizeof(words), "HTTP/2: the server broke the protocol: %s",
                 nghttp2_http2_strerror(frame->rst_stream.error_code));
        stream_ended(h, TRANSFER_MALFORMED, words);
        return 0;
    }
    if (frame->hd.type != NGHTTP2_GOAWAY || frame->goaway.error_code == NGHTTP2_NO_ERROR)
        return 0;
    hc->broke = frame->goaway.error_code;
    n = frame->goaway.opaque_data_len < sizeof(hc->broke_why) - 1 ? frame->goaway.opaque_data_len
                                                                  : sizeof(hc->broke_why) - 1;
    memcpy(hc->broke_why, frame->goaway.opaque_data, n);
    hc->broke_why[n] = '\0';
    return 0;
}

/* A stream closed: its reply is complete, or why it is not. */
static int on_close(nghttp2_session *session, int32_t id, uint32_t code, void *user_data)
{
    struct h2_conn *hc = user_data;
    struct h1_slot *h = stream_slot(session, id);
    char words[WORDS_MAX];

    if (!h)
        return 0;
    if (h->has_end && code == NGHTTP2_NO_ERROR) {
        hc->n_done++;
        stream_ended(h, TRANSFER_OK, "");
        return 0;
    }
    switch (code) {
    case NGHTTP2_REFUSED_STREAM:
        /* Sent once more (complete_done): the server never processed it;
         * new requests go elsewhere, as this one does. */
        hc->is_spent = 1;
        set_free(hc);
        stream_ended(h, TRANSFER_CLOSED_EMPTY,
                     hc->is_goaway && id > hc->last_stream_id
                         ? "the server ended the HTTP/2 connection (GOAWAY) before the reply"
                         : "the server refused the stream (REFUSED_STREAM)");
        return 0;
    case NGHTTP2_NO_ERROR:
        /* No RST_STREAM of the server's: the reply was cut short. */
        stream_ended(h, h->resp.raw_bytes ? TRANSFER_CLOSED_PARTIAL : TRANSFER_CLOSED_EMPTY,
                     "HTTP/2 stream closed before the end of its reply");
        h->is_retried = 1; /* the server may have processed it */
        return 0;
    default:
        /* The server's RST_STREAM: one whose code says a side broke the
         * protocol is malformed, as with curl. */
        snprintf(words, sizeof(words), "HTTP/2 stream reset by the server: %s",
                 nghttp2_http2_strerror(code));
        stream_ended(h,
                     classify_h2_code_is_breach(code) ? TRANSFER_MALFORMED : TRANSFER_STREAM_RESET,
                     words);
        return 0;
    }
}

/* ---- Connections opening and open ------------------------------------- */

/* Says once per run which version the server picked by ALPN. */
static void tell(struct transport_worker *w, int is_h2)
{
    if (!h1_setup_of(w)->is_tls || atomic_exchange(&h1_setup_of(w)->h2_told, 1))
        return;
    engine__worker_event(w, EV_NOTICE, engine__worker_now_ns(w),
                         is_h2 ? "http_version = 2: the server picked h2 by ALPN"
                               : "http_version = 2: the server picked http/1.1 by ALPN: requests "
                                 "go as HTTP/1.1");
}

static nghttp2_session *session_new(struct h2_conn *hc)
{
    static const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, H2_STREAM_WINDOW},
    };
    nghttp2_session *session;

    if (nghttp2_session_client_new(&session, h1_worker_of(hc->w)->h2->callbacks, hc) != 0)
        xalloc_die("nghttp2");
    nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, settings,
                            sizeof(settings) / sizeof(settings[0]));
    nghttp2_session_set_local_window_size(session, NGHTTP2_FLAG_NONE, 0, H2_CONN_WINDOW);
    return session;
}

int engine__h2_ready(struct transport_slot *s, struct h1_conn *c)
{
    struct h1_slot *h = h1_slot_of(s);
    struct h2_conn *hc = h->h2;
    int is_h2 = !c->tls || tls_is_h2(c->tls);
    struct dlist_node *x, *next;

    tell(s->w, is_h2);
    hc->opener = NULL;
    if (!is_h2) {
        /* HTTP/1.1 from here on: s on c, every other request on a
         * connection of its own. */
        h1_worker_of(s->w)->is_h2 = 0;
        detach(s);
        while ((x = dlist_pop_head(&hc->slots)) != NULL) {
            struct h1_slot *o = container_of(x, struct h1_slot, in_h2);

            o->h2 = NULL;
            engine__h1_conn_open(o->s);
        }
        conn_retire(hc);
        return 1;
    }
    c->s = NULL;
    h->conn = NULL;
    c->h2 = hc;
    c->proto = h1_worker_of(s->w)->http2;
    hc->c = c;
    hc->session = session_new(hc);
    /* A request that fails here completes, and its next one may take a
     * stream of hc at once (at the tail, already sent). */
    for (x = hc->slots.head; x; x = next) {
        struct h1_slot *o = container_of(x, struct h1_slot, in_h2);

        next = x->next;
        if (o->stream_id)
            continue;
        engine__h1_arm_timer(o->s, engine__slot_timeout_us(o->s));
        submit(o->s);
    }
    engine__h2_mark_dirty(hc);
    /* What came with the handshake's last flight (a read may hold both). */
    if (c->tls)
        engine__h1_conn_deliver(c);
    return 0;
}

/* The opener of hc gave up on its own (its deadline, or it was aborted):
 * the next request waiting for hc opens it anew (the connect that did not
 * come through in time closes with the opener), within its own deadline. */
static void hand_over(struct h2_conn *hc)
{
    struct h1_slot *to;

    if (!hc->slots.head) {
        conn_retire(hc);
        return;
    }
    to = container_of(hc->slots.head, struct h1_slot, in_h2);
    hc->opener = to;
    engine__h1_conn_open(to->s);
}

void engine__h2_leave(struct transport_slot *s, enum transfer_outcome outcome, int os_errno,
                      const char *what)
{
    struct h1_slot *h = h1_slot_of(s);
    struct h2_conn *hc = h->h2;
    struct dlist_node *x;

    if (hc->opener != h) {
        if (h->stream_id && hc->session && !hc->is_dead) {
            nghttp2_submit_rst_stream(hc->session, NGHTTP2_FLAG_NONE, h->stream_id, NGHTTP2_CANCEL);
            engine__h2_mark_dirty(hc);
        }
        detach(s);
        return;
    }
    detach(s);
    if (!what || outcome == TRANSFER_TIMEOUT) {
        hand_over(hc);
        return;
    }
    /* The connect failed: so does every request waiting for it. */
    hc->opener = NULL;
    hc->is_dead = 1;
    set_free(hc);
    while ((x = dlist_pop_head(&hc->slots)) != NULL) {
        struct h1_slot *o = container_of(x, struct h1_slot, in_h2);

        o->h2 = NULL;
        engine__h1_fail(o->s, outcome, os_errno, what);
    }
    conn_retire(hc);
}

void engine__h2_timeout(struct transport_slot *s)
{
    char what[WORDS_MAX];
    unsigned long long ms = (engine__worker_now_ns(s->w) - h1_slot_of(s)->rq->start_ns) / 1000000;

    if (h1_slot_of(s)->stream_id)
        snprintf(what, sizeof(what), "no reply within %llu ms", ms);
    else
        snprintf(what, sizeof(what), "no HTTP/2 connection open within %llu ms", ms);
    engine__h1_fail(s, TRANSFER_TIMEOUT, 0, what);
}

/* ---- The worker ------------------------------------------------------- */

void engine__h2_init(struct transport_worker *w, uv_prepare_cb flush)
{
    struct h2_worker *x = xcalloc(1, sizeof(*x));
    nghttp2_session_callbacks *cb;

    if (nghttp2_session_callbacks_new(&cb) != 0)
        xalloc_die("nghttp2");
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_close);
    nghttp2_session_callbacks_set_on_frame_send_callback(cb, on_sent);
    x->callbacks = cb;
    x->streams =
        w->config->target.streams && w->config->target.keepalive ? w->config->target.streams : 1;
    dlist_init(&x->all);
    dlist_init(&x->free);
    dlist_init(&x->dirty);
    uv_prepare_init(&w->loop, &x->flush);
    uv_prepare_start(&x->flush, flush);
    h1_worker_of(w)->h2 = x;
    h1_worker_of(w)->is_h2 = 1;
}

void engine__h2_close(struct transport_worker *w)
{
    struct h2_worker *x = h1_worker_of(w)->h2;
    struct dlist_node *n;

    if (!x)
        return;
    while ((n = dlist_pop_head(&x->all)) != NULL) {
        struct h2_conn *hc = container_of(n, struct h2_conn, in_all);
        struct dlist_node *y;

        /* Nothing of theirs is called back while the sockets close. */
        while ((y = dlist_pop_head(&hc->slots)) != NULL) {
            struct h1_slot *h = container_of(y, struct h1_slot, in_h2);

            if (h->stream_id && hc->session)
                nghttp2_session_set_stream_user_data(hc->session, h->stream_id, NULL);
            h->h2 = NULL;
            h->stream_id = 0;
        }
        hc->is_dead = 1;
        if (hc->c)
            engine__h1_conn_close(hc->c);
        else
            free(hc);
    }
    dlist_init(&x->free);
    dlist_init(&x->dirty);
    x->done = NULL;
    uv_close((uv_handle_t *)&x->flush, NULL);
}

void engine__h2_fini(struct transport_worker *w)
{
    struct h2_worker *x = h1_worker_of(w)->h2;

    if (!x)
        return;
    nghttp2_session_callbacks_del(x->callbacks);
    h2_head_free(&x->head);
    free(x->out);
    free(x);
    h1_worker_of(w)->h2 = NULL;
}
