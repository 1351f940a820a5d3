/*
 * transport_stream: a scenario's exchanges over its users' own
 * connections (brink.tcp, brink.ws). An exchange is a request: it opens
 * its connection if it is not open (the connect, and for brink.ws the
 * upgrade, are part of its latency), writes what the script queued, then
 * reads until the reply is whole as the script framed it; bytes past the
 * reply stay for the next exchange. A failed exchange closes its
 * connection, and the next one over it connects again. Connections are
 * the user's, kept between iterations until the script closes them, the
 * user retires or the run ends.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/container.h"
#include "core/xalloc.h"
#include "engine/stream/internal.h"

#define STREAM_VERSION "brink stream (TCP, WebSocket)"

/* ---- Completion --------------------------------------------------------- */

/* h has no exchange any more: its timer stops, and its connection closes
 * when is_closing (a failure, or a reply after which the connection cannot
 * go on). */
static void let_go(struct stream_slot *h, int is_closing)
{
    uv_timer_stop(&h->timer);
    if (h->c && is_closing)
        stream__conn_close(h->c);
    h->c = NULL;
    h->q = NULL;
    h->is_in_flight = 0;
}

static void on_pending(uv_idle_t *i);

static void finish(struct stream_slot *h, enum transfer_outcome outcome, int os_errno, long status,
                   const char *words)
{
    struct transfer_result r = {
        .outcome = outcome,
        .os_errno = os_errno,
        .http_status = status,
        .connected = h->is_connected,
        .is_exchange = 1,
    };

    let_go(h, outcome != TRANSFER_OK || status != 0);
    engine__slot_done(h->s, &r, h->bytes_in, h->bytes_out, words);
}

/* Ends the exchange of h: now, or in the next pass when inside start
 * (a transport never completes from inside start). */
static void complete(struct stream_slot *h, enum transfer_outcome outcome, int os_errno,
                     long status, const char *words)
{
    struct stream_worker *sw;

    if (!h->is_starting) {
        finish(h, outcome, os_errno, status, words);
        return;
    }
    sw = stream_worker_of(h->s->w);
    h->outcome = outcome;
    h->os_errno = os_errno;
    h->status = status;
    snprintf(h->words, sizeof(h->words), "%s", words);
    h->is_pending = 1;
    h->next_pending = sw->pending;
    sw->pending = h;
    uv_idle_start(&sw->idle, on_pending);
}

static void unlink_pending(struct stream_slot *h)
{
    struct stream_worker *sw = stream_worker_of(h->s->w);

    for (struct stream_slot **p = &sw->pending; *p; p = &(*p)->next_pending) {
        if (*p == h) {
            *p = h->next_pending;
            break;
        }
    }
    h->is_pending = 0;
}

static void on_pending(uv_idle_t *i)
{
    struct stream_worker *sw = container_of(i, struct stream_worker, idle);

    uv_idle_stop(i);
    while (sw->pending) {
        struct stream_slot *h = sw->pending;

        sw->pending = h->next_pending;
        h->is_pending = 0;
        finish(h, h->outcome, h->os_errno, h->status, h->words);
    }
}

/* ---- Framing ------------------------------------------------------------ */

/* Whether the reply is whole in c->in: its length (> 0), 0 while more is
 * needed, -1 when it cannot be (words say why). */
static long framed(struct stream_slot *h, struct stream_conn *c, char *words, size_t cap)
{
    const struct script_exchange *x = h->q->exchange;
    size_t n = c->in_len < x->max ? c->in_len : x->max;
    const char *at;
    long len;

    switch (x->frame) {
    case SCRIPT_FRAME_UPTO:
        /* From where the last search could not have found it: a server
         * that sends a byte at a time costs a pass over each byte once. */
        at = stream__find(c->in + h->scanned, n - h->scanned, x->upto, x->upto_len);
        if (at)
            return (long)(at - c->in) + (long)x->upto_len;
        if (n >= x->upto_len)
            h->scanned = n - x->upto_len + 1;
        break;
    case SCRIPT_FRAME_BYTES:
        if (c->in_len >= x->bytes)
            return (long)x->bytes;
        return 0;
    case SCRIPT_FRAME_PATTERN:
    case SCRIPT_FRAME_FUNCTION:
        if (n == 0)
            return 0;
        len = h->q->frame(h->q, c->in, n, words, cap);
        if (len != 0)
            return len;
        break;
    case SCRIPT_FRAME_MESSAGE: return 0;
    }
    if (c->in_len >= x->max) {
        snprintf(words, cap, "no whole reply within max (%zu bytes)", x->max);
        return -1;
    }
    return 0;
}

/* The bytes read so far may end the exchange of h. */
static void try_reply(struct stream_slot *h)
{
    struct stream_conn *c = h->c;
    char words[STREAM_WORDS_MAX];
    long len;
    int rc;

    if (c->spec->is_ws) {
        rc = stream__ws_take(c, h->q, h->q->exchange->max);
        if (rc > 0)
            complete(h, TRANSFER_OK, 0, 0, "");
        else if (rc < 0)
            complete(h, c->outcome, 0, 0, c->words);
        return;
    }
    len = framed(h, c, words, sizeof(words));
    if (len < 0) {
        complete(h, TRANSFER_MALFORMED, 0, 0, words);
    } else if (len > 0) {
        capture_add(&h->q->cap.body, c->in, (size_t)len);
        stream__conn_take(c, (size_t)len);
        complete(h, TRANSFER_OK, 0, 0, "");
    }
}

/* ---- Exchanges ---------------------------------------------------------- */

/* The connection of h is open: the exchange's bytes go. */
static void send_exchange(struct stream_slot *h)
{
    const struct script_exchange *x = h->q->exchange;

    h->is_connected = 1;
    h->sent_ns = uv_hrtime();
    h->bytes_out += x->out_len;
    stream__conn_read(h->c);
    stream__conn_send(h->c, x->out, x->out_len);
}

static void on_timeout(uv_timer_t *t);

static void on_conn(struct stream_conn *c, enum stream_event ev)
{
    struct stream_slot *h = c->owner;
    int rc;

    if (h->c != c) {
        /* No exchange waits on it: a failure closes it, bytes wait. */
        return;
    }
    switch (ev) {
    case STREAM_CONNECTED:
        /* Connected: the exchange's own deadline from now on. */
        engine__slot_arm(h->s, &h->timer, on_timeout, engine__slot_timeout_us(h->s));
        if (c->spec->is_ws) {
            h->is_connected = 1;
            stream__ws_upgrade(c);
        } else {
            c->state = CONN_OPEN;
            send_exchange(h);
        }
        break;
    case STREAM_DATA:
        h->bytes_in = c->n_read - h->read_base;
        if (!h->has_first_byte) {
            h->has_first_byte = 1;
            if (h->sent_ns)
                engine__worker_phase(c->w, PHASE_TTFB, (uv_hrtime() - h->sent_ns) / 1000);
        }
        if (c->state == CONN_UPGRADING) {
            rc = stream__ws_upgraded(c);
            if (rc < 0) {
                complete(h, c->outcome, 0, c->status, c->words);
                return;
            }
            if (rc == 0)
                return;
            h->has_first_byte = 0;
            send_exchange(h);
            return;
        }
        try_reply(h);
        break;
    case STREAM_WROTE:
        if (!c->spec->is_ws && h->q->exchange->frame == SCRIPT_FRAME_BYTES &&
            h->q->exchange->bytes == 0)
            complete(h, TRANSFER_OK, 0, 0, "");
        else if (c->in_len)
            try_reply(h); /* bytes that were there before it */
        break;
    case STREAM_FAILED: {
        enum transfer_outcome outcome = c->outcome;

        /* The server closed after some of the reply: cut short. */
        if (outcome == TRANSFER_CLOSED_EMPTY && (c->in_len || c->in_message))
            outcome = TRANSFER_CLOSED_PARTIAL;
        h->c = NULL; /* it is closing */
        complete(h, outcome, c->os_errno, 0, c->words);
        break;
    }
    }
}

static void on_timeout(uv_timer_t *t)
{
    struct stream_slot *h = container_of(t, struct stream_slot, timer);
    char name[300], words[STREAM_WORDS_MAX];

    if (!h->is_in_flight || h->is_pending)
        return;
    snprintf(words, sizeof(words), "%s: %s after %llu ms",
             h->c ? stream__conn_name(h->c, name, sizeof(name)) : "stream",
             h->is_connected ? "no whole reply" : "no connection",
             (unsigned long long)((engine__worker_now_ns(h->s->w) - h->s->rq.start_ns) / 1000000));
    finish(h, TRANSFER_TIMEOUT, 0, 0, words);
}

/* How long the exchange of s may take to connect, from its start. */
static uint64_t connect_limit_us(const struct transport_slot *s, const struct script_conn_spec *sp)
{
    uint64_t limit = engine__slot_timeout_us(s);

    if (sp->connect_timeout_us)
        return sp->connect_timeout_us < limit ? sp->connect_timeout_us : limit;
    return engine__slot_connect_limit_us(s);
}

static void stream_start(struct transport_slot *s, const struct transport_request *rq)
{
    struct stream_slot *h = stream_slot_of(s);
    const struct script_exchange *x = rq->script->exchange;
    struct stream_conn *c = h->conns[x->conn];

    h->q = rq->script;
    h->is_in_flight = 1;
    h->is_starting = 1;
    h->is_connected = 0;
    h->has_first_byte = 0;
    h->sent_ns = 0;
    h->bytes_in = 0;
    h->bytes_out = 0;
    h->scanned = 0;
    h->q->reply_type = NULL;
    /* A connection an exchange left half open (none should) starts over. */
    if (c && (c->state != CONN_OPEN || c->is_closing)) {
        stream__conn_close(c);
        c = NULL;
    }
    if (c) {
        h->c = c;
        h->read_base = c->n_read;
        engine__slot_arm(s, &h->timer, on_timeout, engine__slot_timeout_us(s));
        send_exchange(h);
    } else {
        engine__slot_arm(s, &h->timer, on_timeout, connect_limit_us(s, x->spec));
        h->c = stream__conn_new(h, x->conn, x->spec, on_conn);
        h->read_base = 0;
        stream__conn_begin(h->c);
    }
    h->is_starting = 0;
}

static void stream_abort(struct transport_slot *s)
{
    struct stream_slot *h = stream_slot_of(s);

    if (h->is_pending)
        unlink_pending(h);
    let_go(h, 1);
}

static int stream_is_unsent(struct transport_slot *s)
{
    const struct stream_slot *h = stream_slot_of(s);

    return h->c && h->c->state == CONN_LOOKUP;
}

/* ---- Slots and workers -------------------------------------------------- */

/* Closes c, saying goodbye first on a WebSocket. */
static void close_conn(struct stream_conn *c)
{
    if (c->spec->is_ws)
        stream__ws_goodbye(c);
    stream__conn_close(c);
}

static void close_conns(struct stream_slot *h)
{
    for (uint32_t i = 0; i < SCRIPT_CONNS_MAX; i++) {
        if (h->conns[i])
            close_conn(h->conns[i]);
    }
}

static void stream_slot_init(struct transport_slot *s)
{
    struct stream_slot *h = xcalloc(1, sizeof(*h));

    h->s = s;
    uv_timer_init(&s->w->loop, &h->timer);
    s->stream = h;
}

static void stream_slot_free(struct transport_slot *s)
{
    free(s->stream);
    s->stream = NULL;
}

static void stream_retire(struct transport_slot *s)
{
    close_conns(stream_slot_of(s));
}

static void stream_script_close(struct transport_slot *s, uint32_t conn)
{
    struct stream_slot *h = stream_slot_of(s);
    struct stream_conn *c = conn < SCRIPT_CONNS_MAX ? h->conns[conn] : NULL;

    if (c)
        close_conn(c);
}

static int stream_init(struct transport_worker *w, char *err, size_t err_len)
{
    struct stream_worker *sw = xcalloc(1, sizeof(*sw));

    (void)err;
    (void)err_len;
    uv_idle_init(&w->loop, &sw->idle);
    sw->tls_raw = xmalloc(STREAM_TLS_RAW);
    w->stream = sw;
    return 0;
}

static void stream_close(struct transport_worker *w)
{
    struct stream_worker *sw = stream_worker_of(w);

    for (uint32_t i = 0; i < engine__worker_n_slots(w); i++) {
        struct stream_slot *h = stream_slot_of(engine__worker_slot(w, i));

        if (h->is_pending)
            unlink_pending(h);
        close_conns(h);
        h->c = NULL;
        uv_close((uv_handle_t *)&h->timer, NULL);
    }
    uv_close((uv_handle_t *)&sw->idle, NULL);
}

static void stream_fini(struct transport_worker *w)
{
    struct stream_worker *sw = stream_worker_of(w);

    for (uint32_t i = 0; i < sw->n_tls; i++) {
        tls_context_free(sw->tls[i].ctx);
        free(sw->tls[i].name);
    }
    free(sw->tls_raw);
    free(w->stream);
    w->stream = NULL;
}

/* The run's HTTP requests, when the stream transport carries it alone. */
static int stream_script_ready(struct transport_slot *s, struct scene_req *q, uint32_t hops,
                               char *why, size_t why_len)
{
    (void)s;
    (void)q;
    (void)hops;
    snprintf(why, why_len,
             "brink.request: this run has no [target] url, so it speaks no HTTP (set [target] url "
             "to send HTTP requests beside brink.tcp and brink.ws)");
    return -EINVAL;
}

static int stream_accepts(const struct config *c, const struct workload *wl, char *why,
                          size_t why_len)
{
    (void)wl;
    if (c->scenario.script.value && !c->target.url.value)
        return 0;
    snprintf(why, why_len, "the stream transport carries a script's own connections only");
    return -EINVAL;
}

static const char *stream_version(void)
{
    return STREAM_VERSION;
}

const struct transport_ops transport_stream = {
    .name = "stream",
    .version = stream_version,
    .accepts = stream_accepts,
    .init = stream_init,
    .close = stream_close,
    .fini = stream_fini,
    .slot_init = stream_slot_init,
    .slot_free = stream_slot_free,
    .script_ready = stream_script_ready,
    .start = stream_start,
    .abort = stream_abort,
    .is_unsent = stream_is_unsent,
    .retire = stream_retire,
    .script_close = stream_script_close,
};
