/*
 * routes: libmicrohttpd's callbacks. A request goes through phases (see
 * enum phase): its body is read, it is admitted to the capacity model, it
 * waits suspended if it must (the scheduler resumes it), then its answer is
 * built and sent, or mangled by the fault chosen when its headers arrived.
 * GET /bytes/N with no fault and no service time is answered without any
 * state of ours: it is the benchmark's path. When a request ends, it is
 * counted as a client abort if its client left before the whole reply was
 * sent (see is_client_abort).
 * Runs on libmicrohttpd's pool threads.
 */
#include "target/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/xalloc.h"

/* The socket context of a connection over max_connections. */
static char over_limit_mark;
/* The request context of a GET /bytes on the fast path (no state of ours),
 * and of one we failed to answer (out of memory): its close is ours. */
static char fast_mark;
static char fast_failed_mark;

static ssize_t pattern_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)cls;
    target__content_pattern(buf, pos, max);
    return (ssize_t)max;
}

enum MHD_Result respond(struct target *t, struct MHD_Connection *conn, unsigned status,
                        struct MHD_Response *resp, uint64_t body_len)
{
    enum MHD_Result rc;

    if (!resp)
        return MHD_NO;
    rc = MHD_queue_response(conn, status, resp);
    MHD_destroy_response(resp);
    target__serve_count_status(t, status);
    atomic_fetch_add_explicit(&t->stats.bytes_sent, body_len, memory_order_relaxed);
    return rc;
}

static enum MHD_Result fast_bytes(struct target *t, struct MHD_Connection *conn, const char *arg)
{
    struct MHD_Response *resp;
    struct reply rp;

    target__reply_init(&rp);
    target__content_bytes(&rp, arg);
    if (rp.generated)
        resp = MHD_create_response_from_callback(rp.len, 64 * 1024, pattern_read, NULL, NULL);
    else
        resp = MHD_create_response_from_buffer(
            rp.len, (void *)rp.body, rp.owned ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_PERSISTENT);
    if (resp)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, rp.content_type);
    target__reply_free(&rp);
    return respond(t, conn, rp.status, resp, rp.len);
}

/* Suspends the connection until us from now; fn (if set) runs first. The
 * wait ends early, with r->peer_gone set, if the client leaves. */
static enum MHD_Result suspend_for(struct target *t, struct MHD_Connection *conn, struct req *r,
                                   uint64_t us, sched_fn *fn, void *arg)
{
    MHD_suspend_connection(conn);
    if (target__sched_add(t->sched, conn, clock_now_ns() + us * 1000u, fn, arg, &r->peer_gone) != 0)
        MHD_resume_connection(conn); /* stopping: go on at once */
    return MHD_YES;
}

/* conn's close_after_reply context, or NULL. */
static void *fin_ctx(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

    return ci && ci->socket_context != &over_limit_mark ? ci->socket_context : NULL;
}

static enum MHD_Result first_call(struct target *t, struct MHD_Connection *conn, const char *url,
                                  const char *method, void **req_cls)
{
    const char *arg, *hdr;
    enum endpoint ep;
    enum fault f;

    void *fin = fin_ctx(conn);

    /* close_after_reply: the client sent this before our FIN reached it
     * (counted when the connection closes). */
    if (fin && target__faults_is_after_fin(fin))
        return MHD_NO;
    if (fin)
        target__faults_fin_request(conn, fin);
    atomic_fetch_add_explicit(&t->stats.requests_total, 1, memory_order_relaxed);
    if (atomic_load(&t->over_limit) > 0) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        if (ci && ci->socket_context == &over_limit_mark) {
            target__faults_reset(t, conn);
            return MHD_NO;
        }
    }
    ep = target__serve_endpoint(url, &arg);
    atomic_fetch_add_explicit(&t->stats.requests_by_ep[ep], 1, memory_order_relaxed);
    hdr = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Brink-Fault");
    if (ep == EP_BYTES && !hdr && atomic_load_explicit(&t->fast_bytes, memory_order_relaxed) &&
        atomic_load_explicit(&t->force_remaining, memory_order_relaxed) == 0 &&
        strcmp(method, MHD_HTTP_METHOD_GET) == 0) {
        /* Answer on the next call: a response queued before the request is
         * complete makes libmicrohttpd close the connection after it. */
        *req_cls = &fast_mark;
        return MHD_YES;
    }
    f = target__serve_fault(t, ep, hdr);
    if (f == FAULT_RESET) {
        target__faults_reset(t, conn);
        return MHD_NO;
    }
    *req_cls = target__req_new(t, ep, f, method);
    return MHD_YES;
}

static struct MHD_Response *plain_response(struct target *t, struct req *r)
{
    struct reply *rp = &r->reply;
    struct MHD_Response *resp;

    if (rp->fd >= 0) {
        resp = MHD_create_response_from_fd(rp->len, rp->fd);
        if (resp)
            rp->fd = -1; /* libmicrohttpd closes it */
    } else if (r->fault == FAULT_CLOSE_MID_BODY) {
        resp = faults_cut_response(t, rp->owned ? NULL : rp->body, rp->owned, rp->len,
                                   &r->is_self_closed);
        if (resp)
            rp->owned = NULL;
    } else if (rp->generated) {
        resp = MHD_create_response_from_callback(rp->len, 64 * 1024, pattern_read, NULL, NULL);
    } else if (rp->owned) {
        resp = MHD_create_response_from_buffer(rp->len, rp->owned, MHD_RESPMEM_MUST_FREE);
        if (resp)
            rp->owned = NULL;
    } else {
        resp = MHD_create_response_from_buffer(rp->len, (void *)rp->body, MHD_RESPMEM_PERSISTENT);
    }
    if (!resp)
        return NULL;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, rp->content_type);
    for (unsigned i = 0; i < rp->n_hdr; i++)
        MHD_add_response_header(resp, rp->hdr[i].name, rp->hdr[i].value);
    if (r->fault == FAULT_HOSTILE_HEADER &&
        MHD_add_response_header(resp, "X-Brink-Note", faults_hostile_header) == MHD_YES)
        atomic_fetch_add(&t->stats.hostile_sent, 1);
    return resp;
}

/* Status line and headers of the reply, as raw bytes, into buf. */
static size_t raw_head(const struct reply *rp, uint64_t len, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "HTTP/1.1 %u %s\r\nContent-Type: %s\r\nContent-Length: %llu\r\n\r\n",
                     rp->status, MHD_get_reason_phrase_for(rp->status), rp->content_type,
                     (unsigned long long)len);

    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* Writes raw bytes; 0, or -errno with r->peer_gone set when the client left. */
static int raw_write(struct target *t, struct MHD_Connection *conn, struct req *r, const char *buf,
                     size_t len)
{
    int rc = target__faults_raw_write(t, conn, buf, len);

    if (rc == -EPIPE)
        atomic_store(&r->peer_gone, 1);
    return rc;
}

static enum MHD_Result send_raw_fault(struct target *t, struct MHD_Connection *conn, struct req *r,
                                      const struct settings *s)
{
    struct reply *rp = &r->reply;
    char head[512];
    size_t n;

    r->phase = PH_RAW;
    if (r->fault == FAULT_STALL || r->fault == FAULT_DRIP) {
        uint64_t len = r->fault == FAULT_DRIP && rp->len > s->drip_bytes ? s->drip_bytes : rp->len;
        n = raw_head(rp, len, head, sizeof(head));
        if (raw_write(t, conn, r, head, n) != 0)
            return MHD_NO;
        if (r->fault == FAULT_STALL) {
            atomic_fetch_add(&t->stats.stalled, 1);
            return suspend_for(t, conn, r, (uint64_t)s->stall_ms * 1000, NULL, NULL);
        }
        atomic_fetch_add(&t->stats.dripped, 1);
        r->raw_buf = xmalloc(len ? len : 1);
        if (rp->owned || !rp->generated)
            memcpy(r->raw_buf, rp->body, len);
        else
            target__content_pattern(r->raw_buf, 0, len);
        if (len == 0 || target__faults_raw_start(&r->raw, t, conn, r->raw_buf, len, 1,
                                                 s->drip_interval_ms * 1000u) != 0)
            return MHD_NO;
        return suspend_for(t, conn, r, 0, target__faults_raw_step, &r->raw);
    }
    r->raw_buf = target__faults_raw_reply(r->fault, s, &n);
    if (r->fault == FAULT_MALFORMED_STATUS) {
        atomic_fetch_add(&t->stats.malformed_sent, 1);
        raw_write(t, conn, r, r->raw_buf, n);
        return MHD_NO;
    }
    atomic_fetch_add(&t->stats.huge_headers_sent, 1);
    if (target__faults_raw_start(&r->raw, t, conn, r->raw_buf, n, 0, 0) != 0)
        return MHD_NO;
    return suspend_for(t, conn, r, 0, target__faults_raw_step, &r->raw);
}

static enum MHD_Result finish(struct target *t, const struct req_in *in, struct req *r)
{
    struct MHD_Connection *conn = in->conn;
    struct settings s;

    target__serve_answer(t, in, r);
    if (r->reply.fd < 0 && (r->fault == FAULT_STALL || r->fault == FAULT_DRIP ||
                            r->fault == FAULT_MALFORMED_STATUS || r->fault == FAULT_HUGE_HEADER)) {
        target__settings_get(t, &s);
        return send_raw_fault(t, conn, r, &s);
    }
    return respond(t, conn, r->reply.status, plain_response(t, r),
                   r->fault == FAULT_CLOSE_MID_BODY ? 0 : r->reply.len);
}

/* The body is in: prepare, admit to the capacity model, wait or answer. */
static enum MHD_Result start(struct target *t, const struct req_in *in, struct req *r)
{
    uint64_t wait_us;

    if (target__serve_admit(t, in, r, &wait_us) == SERVE_WAIT)
        return suspend_for(t, in->conn, r, wait_us, NULL, NULL);
    return finish(t, in, r);
}

/* One more call for a request of ours: the next step of its phase. */
static enum MHD_Result step(struct target *t, struct MHD_Connection *conn, struct req *r,
                            const char *url, const char *method, const char *upload,
                            size_t *upload_size)
{
    struct req_in in = {.url = url, .method = method, .conn = conn};

    switch (r->phase) {
    case PH_BODY:
        if (*upload_size) {
            target__req_take_body(r, upload, *upload_size);
            *upload_size = 0;
            return MHD_YES;
        }
        return start(t, &in, r);
    case PH_BACKPRESSURE: return start(t, &in, r);
    case PH_WAIT: return finish(t, &in, r);
    case PH_RAW: break;
    }
    return MHD_NO; /* a raw fault is over: close the connection */
}

enum MHD_Result routes_access(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **req_cls)
{
    struct target *t = cls;
    struct req *r = *req_cls;
    enum MHD_Result rc;

    (void)version;
    if (!r)
        return first_call(t, conn, url, method, req_cls);
    if ((void *)r == &fast_mark) {
        if (*upload_size) {
            *upload_size = 0; /* a GET body: ignored */
            return MHD_YES;
        }
        rc = fast_bytes(t, conn, url + strlen("/bytes/"));
        if (rc == MHD_NO)
            *req_cls = &fast_failed_mark;
        return rc;
    }
    /* Resumed because the client left: there is no one to answer. */
    if (atomic_load(&r->peer_gone))
        return MHD_NO;
    rc = step(t, conn, r, url, method, upload, upload_size);
    /* MHD_NO closes the connection: our doing, unless the client left. */
    if (rc == MHD_NO && !atomic_load(&r->peer_gone))
        r->is_self_closed = 1;
    return rc;
}

/*
 * Whether a request ended because its client left before the whole reply
 * was sent. libmicrohttpd reports the client's close as CLIENT_ABORT (end of
 * file on read), a reset while reading as READ_ERROR and a failed send as
 * WITH_ERROR; WITH_ERROR is also what our own closes give (MHD_NO, a cut
 * body), hence is_self_closed. A client leaving a suspended connection is
 * seen by the scheduler instead (is_peer_gone).
 */
static int is_client_abort(enum MHD_RequestTerminationCode why, int is_peer_gone,
                           int is_self_closed)
{
    if (is_peer_gone)
        return 1;
    if (is_self_closed)
        return 0;
    return why == MHD_REQUEST_TERMINATED_CLIENT_ABORT || why == MHD_REQUEST_TERMINATED_READ_ERROR ||
           why == MHD_REQUEST_TERMINATED_WITH_ERROR;
}

void target__routes_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                              enum MHD_RequestTerminationCode why)
{
    struct target *t = cls;
    struct req *r = *req_cls;
    int is_raw_sent;

    void *fin = fin_ctx(conn);

    if (fin && why == MHD_REQUEST_TERMINATED_COMPLETED_OK)
        target__faults_fin(t, conn, fin);
    /* No context: the request was reset at its first call, on purpose. */
    if (!r)
        return;
    if ((void *)r == &fast_mark || (void *)r == &fast_failed_mark) {
        if ((void *)r == &fast_mark && is_client_abort(why, 0, 0))
            atomic_fetch_add(&t->stats.client_aborts, 1);
        *req_cls = NULL;
        return;
    }
    /* A raw reply (a drip, a huge header) handed to the socket whole is
     * not an abort: its client may close before the resumed connection is
     * ours again, and libmicrohttpd's poll() then ends it first. */
    is_raw_sent = r->raw_buf && r->raw.len > 0 && r->raw.off == r->raw.len;
    if (is_client_abort(why, atomic_load(&r->peer_gone), r->is_self_closed || is_raw_sent))
        atomic_fetch_add(&t->stats.client_aborts, 1);
    target__req_free(t, r);
    *req_cls = NULL;
}

void target__routes_connection(void *cls, struct MHD_Connection *conn, void **socket_ctx,
                               enum MHD_ConnectionNotificationCode what)
{
    struct target *t = cls;
    unsigned max;
    long long active;

    if (what == MHD_CONNECTION_NOTIFY_CLOSED) {
        atomic_fetch_sub(&t->stats.active_connections, 1);
        if (*socket_ctx == &over_limit_mark)
            atomic_fetch_sub(&t->over_limit, 1);
        else if (*socket_ctx)
            target__faults_fin_closed(t, conn, *socket_ctx);
        return;
    }
    atomic_fetch_add_explicit(&t->stats.connections_accepted, 1, memory_order_relaxed);
    active = atomic_fetch_add(&t->stats.active_connections, 1) + 1;
    max = atomic_load_explicit(&t->max_connections, memory_order_relaxed);
    if (max > 0 && active > (long long)max) {
        /* Accepted, then reset at its first request, as a small server
         * past its connection limit does. */
        *socket_ctx = &over_limit_mark;
        atomic_fetch_add(&t->over_limit, 1);
    } else if (atomic_load_explicit(&t->close_after_reply, memory_order_relaxed)) {
        *socket_ctx = target__faults_fin_new();
    }
}
