/*
 * serve: what a request does whichever protocol brought it, HTTP/1.1
 * through libmicrohttpd (routes.c) or HTTP/2 (h2c.c): its endpoint, its
 * fault, its body, its admission to the capacity model and the answer its
 * endpoint builds. The protocol's file counts it, waits where told to and
 * sends the answer, or the fault, in its own terms.
 * Any thread.
 */
#include "target/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/clock.h"
#include "core/xalloc.h"

#define SMALL_BODY_MAX (64 * 1024) /* request bodies of endpoints that need none */
#define ECHO_BODY_MAX (1024 * 1024)

static const struct {
    const char *prefix;
    enum endpoint ep;
    int exact; /* the url must equal the prefix (or prefix + "/...") */
} route_table[] = {
    {"/bytes/", EP_BYTES, 0},     {"/delay/", EP_DELAY, 0},       {"/status/", EP_STATUS, 0},
    {"/echo", EP_ECHO, 1},        {"/files", EP_FILES, 0},        {"/kv/", EP_KV, 0},
    {"/mp/", EP_MP, 0},           {"/stats", EP_STATS, 1},        {"/metrics", EP_METRICS, 1},
    {"/_control", EP_CONTROL, 1}, {"/redirect/", EP_REDIRECT, 0},
};

enum endpoint target__serve_endpoint(const char *url, const char **arg)
{
    for (size_t i = 0; i < sizeof(route_table) / sizeof(route_table[0]); i++) {
        size_t n = strlen(route_table[i].prefix);
        if (strncmp(url, route_table[i].prefix, n) != 0)
            continue;
        if (route_table[i].exact && url[n] != '\0')
            continue;
        if (route_table[i].ep == EP_FILES && url[n] != '\0' && url[n] != '/')
            continue;
        *arg = url + n;
        return route_table[i].ep;
    }
    *arg = url;
    return EP_OTHER;
}

const char *target__req_header(const struct req_in *in, const char *name)
{
    if (in->conn)
        return MHD_lookup_connection_value(in->conn, MHD_HEADER_KIND, name);
    for (size_t i = 0; i < in->n_hdr; i++)
        if (strcasecmp(in->hdr[i].name, name) == 0)
            return in->hdr[i].value;
    return NULL;
}

const char *target__req_query(const struct req_in *in, const char *name, char *buf, size_t cap)
{
    size_t n = strlen(name), len;
    const char *p, *v, *end;

    if (in->conn) {
        v = MHD_lookup_connection_value(in->conn, MHD_GET_ARGUMENT_KIND, name);
        if (!v)
            return NULL;
        snprintf(buf, cap, "%s", v);
        return buf;
    }
    for (p = in->query; p && *p; p = end + (*end == '&')) {
        end = p + strcspn(p, "&");
        if (strncmp(p, name, n) != 0 || (p[n] != '=' && p + n != end))
            continue;
        v = p[n] == '=' ? p + n + 1 : end;
        len = (size_t)(end - v) < cap - 1 ? (size_t)(end - v) : cap - 1;
        memcpy(buf, v, len);
        buf[len] = '\0';
        return buf;
    }
    return NULL;
}

struct each_walk {
    req_header_fn *fn;
    void *arg;
};

static enum MHD_Result each_mhd(void *arg, enum MHD_ValueKind kind, const char *name,
                                const char *value)
{
    struct each_walk *w = arg;

    (void)kind;
    w->fn(w->arg, name, value ? value : "");
    return MHD_YES;
}

void target__req_headers_each(const struct req_in *in, req_header_fn *fn, void *arg)
{
    struct each_walk w = {fn, arg};

    if (in->conn) {
        MHD_get_connection_values(in->conn, MHD_HEADER_KIND, each_mhd, &w);
        return;
    }
    for (size_t i = 0; i < in->n_hdr; i++)
        fn(arg, in->hdr[i].name, in->hdr[i].value);
}

static int fault_eligible(enum endpoint ep)
{
    /* Probes and control must stay reliable while the load path fails. */
    return ep != EP_STATS && ep != EP_METRICS && ep != EP_CONTROL;
}

enum fault target__serve_fault(struct target *t, enum endpoint ep, const char *header)
{
    struct settings s;

    if (!fault_eligible(ep))
        return FAULT_NONE;
    target__settings_get(t, &s);
    return target__faults_pick(t, &s, header);
}

struct req *target__req_new(struct target *t, enum endpoint ep, enum fault f, const char *method)
{
    struct req *r = xcalloc(1, sizeof(*r));
    struct settings s;

    target__settings_get(t, &s);
    target__reply_init(&r->reply);
    r->ep = ep;
    r->fault = f;
    r->phase = PH_BODY;
    r->is_get = strcmp(method, MHD_HTTP_METHOD_GET) == 0;
    r->is_head = strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    r->is_put = strcmp(method, MHD_HTTP_METHOD_PUT) == 0;
    r->is_delete = strcmp(method, MHD_HTTP_METHOD_DELETE) == 0;
    r->body_max = ep == EP_KV || ep == EP_MP ? s.kv_max_object_bytes
                  : ep == EP_ECHO            ? ECHO_BODY_MAX
                                             : SMALL_BODY_MAX;
    return r;
}

void target__req_free(struct target *t, struct req *r)
{
    target__store_abort(t, r);
    if (r->in_model)
        target__capacity_leave(t->cap);
    target__reply_free(&r->reply);
    free(r->read.value);
    free(r->body);
    free(r->raw_buf);
    free(r);
}

void target__req_take_body(struct req *r, const char *data, size_t n)
{
    if (r->body_too_big || n > r->body_max - r->body_len) {
        r->body_too_big = 1;
        return;
    }
    if (r->body_len + n > r->body_cap) {
        size_t cap = r->body_cap ? r->body_cap : 4096;
        while (cap < r->body_len + n)
            cap *= 2;
        if (cap > r->body_max)
            cap = r->body_max;
        r->body = xrealloc(r->body, cap);
        r->body_cap = cap;
    }
    memcpy(r->body + r->body_len, data, n);
    r->body_len += n;
}

static int wants_text(const struct req_in *in)
{
    const char *accept = target__req_header(in, "Accept");

    return accept && strstr(accept, "text/plain") != NULL;
}

static void set_body(struct reply *rp, unsigned status, const char *type, char *body, size_t len)
{
    target__reply_free(rp);
    rp->status = body ? status : 500;
    rp->content_type = type;
    rp->owned = body;
    rp->body = body ? body : "";
    rp->len = body ? len : 0;
}

/* Builds the answer of a request whose wait is over. */
static void produce(struct target *t, const struct req_in *in, struct req *r)
{
    const char *arg;
    char code[16];
    size_t n;
    char *text;

    target__serve_endpoint(in->url, &arg);
    switch (r->ep) {
    case EP_BYTES: target__content_bytes(&r->reply, arg); break;
    case EP_DELAY:
        target__reply_text(&r->reply, 200, "delayed %llu ms\n",
                           (unsigned long long)(r->extra_us / 1000));
        break;
    case EP_STATUS: target__content_status(&r->reply, arg); break;
    case EP_ECHO:
        target__echo_log_add(&t->echo_log, in, r);
        target__content_echo(&r->reply, in->method, r);
        break;
    case EP_FILES: target__files_reply(t, arg, &r->reply); break;
    case EP_KV:
    case EP_MP: target__store_finish(t, r, in->url); break;
    case EP_STATS:
        text = target__stats_json(t, wants_text(in));
        set_body(&r->reply, 200, wants_text(in) ? "text/plain" : "application/json", text,
                 text ? strlen(text) : 0);
        break;
    case EP_METRICS:
        text = target__stats_metrics(t, &n);
        set_body(&r->reply, 200, "text/plain; version=0.0.4", text, n);
        break;
    case EP_CONTROL: target__control_reply(t, r, in->method); break;
    case EP_REDIRECT:
        target__content_redirect(&r->reply, arg, target__req_query(in, "code", code, sizeof(code)),
                                 in->method);
        break;
    default:
        target__reply_text(
            &r->reply, 404,
            "no such endpoint; try /bytes/N, /delay/MS, /status/CODE, /echo, /redirect/N, /files/, /kv/KEY, /mp/UPLOAD/PART, /stats, /metrics or /_control\n");
        break;
    }
}

void target__serve_answer(struct target *t, const struct req_in *in, struct req *r)
{
    if (r->in_model) {
        target__capacity_leave(t->cap);
        r->in_model = 0;
    }
    if (r->reply.status == 0)
        produce(t, in, r);
}

/* The wait stretched to the end of a server-wide pause it meets. The
 * counters and the control endpoint stay available, so a test can still
 * watch and steer a paused server. */
static uint64_t paused_wait_us(const struct target *t, const struct settings *s, enum endpoint ep,
                               uint64_t wait_us)
{
    uint64_t now, answer;

    if (!s->pause_every_ms || ep == EP_STATS || ep == EP_METRICS || ep == EP_CONTROL)
        return wait_us;
    now = clock_now_ns() - t->start_ns;
    answer = settings_pause_release_ns(s, now, now + wait_us * 1000u);
    return (answer - now + 999) / 1000;
}

/* The connections open now (never below 0). */
static uint64_t open_conns(struct target *t)
{
    long long n = atomic_load(&t->stats.active_connections);

    return n > 0 ? (uint64_t)n : 0;
}

enum serve_next target__serve_admit(struct target *t, const struct req_in *in, struct req *r,
                                    uint64_t *wait_us)
{
    uint64_t service_us;
    struct settings s;
    const char *arg;
    int rc;

    *wait_us = 0;
    target__settings_get(t, &s);
    target__serve_endpoint(in->url, &arg);
    if (r->body_too_big) {
        target__reply_text(&r->reply, 413, "request body larger than %zu bytes\n", r->body_max);
        return SERVE_ANSWER;
    }
    if (r->ep == EP_DELAY && target__content_delay_us(arg, &r->extra_us) != 0) {
        target__reply_text(&r->reply, 400,
                           "bad delay \"%.40s\": expected /delay/MS with MS 0..%d\n", arg,
                           CONTENT_MAX_DELAY_MS);
        return SERVE_ANSWER;
    }
    if (r->ep == EP_KV || r->ep == EP_MP) {
        rc = target__store_prepare(t, in, r, &s, wait_us);
        if (rc == 1)
            return SERVE_ANSWER;
        if (rc == 2) {
            r->phase = PH_BACKPRESSURE;
            return SERVE_WAIT;
        }
    }
    service_us = s.service_us[r->ep] + r->service_extra_us;
    if (service_us > 0) {
        if (target__capacity_admit(t->cap, s.workers, s.queue_max, service_us, s.contention_sigma,
                                   s.contention_kappa, open_conns(t), clock_now_ns(),
                                   wait_us) != 0) {
            target__store_abort(t, r);
            r->fault = FAULT_NONE;
            target__reply_text(&r->reply, 503, "queue full: %u requests wait for %u workers\n",
                               s.queue_max, s.workers);
            target__reply_header(&r->reply, "Retry-After", "1");
            return SERVE_ANSWER;
        }
        r->in_model = 1;
    }
    *wait_us += r->extra_us;
    *wait_us = paused_wait_us(t, &s, r->ep, *wait_us);
    r->phase = PH_WAIT;
    return *wait_us > 0 ? SERVE_WAIT : SERVE_ANSWER;
}

void target__serve_count_status(struct target *t, unsigned status)
{
    atomic_fetch_add_explicit(&t->stats.responses_by_class[status / 100 % 6], 1,
                              memory_order_relaxed);
    if (status == 503)
        atomic_fetch_add(&t->stats.responses_503, 1);
}
