/*
 * The h1 transport: brink's own HTTP/1.1 and HTTP/2 client on libuv TCP,
 * for load on one origin where libcurl's generality costs more CPU than the
 * server under test. Its operations (transport.h) are here; a connection
 * (h1/conn.c) goes where h1/connect.c says (a name looked up off the loop
 * by engine/lookup.c, connect_to, a unix socket, addresses in turn, within
 * each pass's connect budget), speaks TLS for https:// (tls/tls.c), and
 * carries HTTP/1.1 (h1/http1.c: a connection per slot) or HTTP/2
 * (h1/http2.c, h1/http2_io.c: connections the worker's slots share),
 * chosen once it is up. What a request sends is made in h1/request.c from
 * what h1/setup.c serialised once per kind. Worker thread only.
 */
#include <stdlib.h>

#include "config/config.h"
#include "core/dlist.h"
#include "core/xalloc.h"
#include "engine/transport.h"

#include "engine/h1/internal.h"

/* ---- The ops table ---------------------------------------------------- */

static void start(struct transport_slot *s, const struct transport_request *rq)
{
    struct h1_slot *h = h1_slot_of(s);
    int is_head = rq->script ? rq->script->is_head : h1_setup_of(s->w)->kinds[rq->kind].is_head;

    h->rq = rq;
    h->is_starting = 1;
    h->is_retried = 0;
    h->bytes_out = 0;
    h->was_connected = h->conn != NULL;
    h1_resp_begin(&h->resp, is_head, s->w->config->target.max_body_bytes);
    if (rq->script)
        h->resp.cap = &rq->script->cap;
    else if (h->capture.wants)
        h1_resp_capture(&h->resp, &h->capture);
    if (!rq->script && rq->hops && !engine__h1_is_same_origin(s)) {
        engine__h1_fail(s, TRANSFER_OTHER, 0, ENGINE_H1_OTHER_ORIGIN);
    } else if (h1_worker_of(s->w)->is_h2) {
        engine__h2_start(s);
    } else if (h->conn) {
        engine__h1_http1_up(s);
    } else {
        engine__h1_conn_open(s);
    }
    h->is_starting = 0;
}

static void abort_transfer(struct transport_slot *s)
{
    struct h1_slot *h = h1_slot_of(s);

    uv_timer_stop(&h->timer);
    if (h->is_pending)
        engine__h1_unlink_pending(h1_worker_of(s->w), h);
    if (h->is_looking_up)
        dlist_remove(&h1_worker_of(s->w)->waiting, &h->in_line);
    h->is_looking_up = 0;
    if (h->is_queued)
        engine__h1_unlink_queued(h1_worker_of(s->w), h);
    if (h->h2)
        engine__h2_leave(s, TRANSFER_OTHER, 0, NULL);
    /* Closing mid-request is what a client that goes away does. */
    if (h->conn)
        engine__h1_conn_close(h->conn);
}

static int is_unsent(struct transport_slot *s)
{
    struct h1_slot *h = h1_slot_of(s);

    return h->is_looking_up || h->is_queued || (h->h2 && !h->stream_id);
}

/* s is no longer one of the users: its own connection closes (HTTP/2's
 * are the worker's, shared, and stay). */
static void retire(struct transport_slot *s)
{
    if (h1_slot_of(s)->conn)
        engine__h1_conn_close(h1_slot_of(s)->conn);
}

/* A header value of the reply to the request of the slot arg: a
 * Set-Cookie goes into its jar. */
static void on_value(void *arg, enum h1_header which, int status, const char *v, size_t n)
{
    struct transport_slot *s = arg;

    (void)status;
    if (which == H1_HEADER_SET_COOKIE && h1_slot_of(s)->url)
        engine__slot_cookie_set(s, h1_slot_of(s)->url, v, n);
    else if (which == H1_HEADER_LOCATION && h1_slot_of(s)->url)
        engine__slot_location(s, h1_slot_of(s)->url, v, n);
}

static void slot_init(struct transport_slot *s)
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
    s->priv = h;
}

static void slot_fini(struct transport_slot *s)
{
    struct h1_slot *h = h1_slot_of(s);

    /* Its timer was closed with the worker's handles (h1_close). */
    if (h) {
        free(h->url);
        free(h->value);
    }
    free(h);
}

static int h1_init(struct transport_worker *w, char *err, size_t err_len)
{
    struct h1_worker *hw = xcalloc(1, sizeof(*hw));
    const struct h1_setup *p = h1_setup_of(w);

    /* First: a file that does not load leaves nothing to close. */
    if (p->is_tls) {
        int rc = tls_context_new(&w->config->target, p->tls_name,
                                 w->config->target.http_version == CONFIG_HTTP_2 ? TLS_ALPN_H2
                                                                                 : TLS_ALPN_HTTP1,
                                 err, err_len, &hw->tls);

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
    w->priv = hw;
    hw->http1 = &engine__h1_http1;
    if (p->h2 != CONFIG_HTTP_1_1) {
        hw->http2 = &engine__h1_http2;
        engine__h2_init(w, engine__h2_on_flush);
    }
    return 0;
}

static void h1_close(struct transport_worker *w)
{
    struct h1_worker *hw = h1_worker_of(w);

    for (uint32_t i = 0; i < engine__worker_n_slots(w); i++) {
        struct h1_slot *h = h1_slot_of(engine__worker_slot(w, i));

        if (h->conn)
            engine__h1_conn_close(h->conn);
        uv_close((uv_handle_t *)&h->timer, NULL);
    }
    engine__h2_close(w);
    hw->pending = NULL;
    dlist_init(&hw->waiting);
    dlist_init(&hw->queued);
    uv_close((uv_handle_t *)&hw->idle, NULL);
    uv_close((uv_handle_t *)&hw->paced, NULL);
    /* A lookup still running finishes alone; it sends nothing from here. */
    engine__lookup_release(hw->lookup);
    hw->lookup = NULL;
    uv_close((uv_handle_t *)&hw->resolved, NULL);
}

static void h1_fini(struct transport_worker *w)
{
    if (!h1_worker_of(w))
        return;
    free(h1_worker_of(w)->head);
    free(h1_worker_of(w)->signed_head);
    free(h1_worker_of(w)->rbuf);
    free(h1_worker_of(w)->tls_in);
    tls_context_free(h1_worker_of(w)->tls);
    engine__h2_fini(w);
    free(h1_worker_of(w));
    w->priv = NULL;
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
