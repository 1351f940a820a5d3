/*
 * A slot is one virtual user of the closed model: it sends a request, waits
 * for the whole reply, records it, and sends the next, with one easy handle
 * reused for all of them (and so, with keep-alive, one connection).
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/hist.h"
#include "core/xalloc.h"
#include "engine/classify.h"
#include "engine/internal.h"
#include "engine/workload.h"

/*
 * Receive buffers. libcurl's default 16 KiB makes large bodies cost many more
 * reads; 512 KiB measured best for 133 KiB files. But a buffer is allocated
 * per handle, and libcurl frees and allocates it again between transfers, so
 * with small bodies a large buffer only makes the allocator wander over more
 * and more pages (RSS grew steadily at c=200). So every user starts with the
 * default and moves up once it has seen a large body; only a worker's first
 * 64 users get the largest size, which keeps memory bounded at any
 * concurrency.
 */
#define BUFFER_DEFAULT (16L * 1024)
#define BUFFER_LARGE_BODY (32u * 1024)

static long large_buffer_for(uint32_t index)
{
    return index < 64 ? 512L * 1024 : 64L * 1024;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
    struct slot *s = userp;
    size_t n = size * nmemb;

    (void)data;
    s->body_bytes += n;
    if (s->body_bytes > s->w->e->config->target.max_body_bytes) {
        /* Counted and cut, never buffered: returning less than n aborts. */
        s->is_body_cut = 1;
        return 0;
    }
    return n;
}

struct slot *slot_new(struct worker *w, uint32_t index)
{
    struct slot *s = xcalloc(1, sizeof(*s));
    const struct config *c = w->e->config;

    s->w = w;
    s->index = index;
    s->vu = index * w->e->n_workers + w->id;
    s->last_kind = SIZE_MAX;
    s->easy = curl_easy_init();
    if (!s->easy) {
        fprintf(stderr, "brink: engine: curl_easy_init failed: out of memory\n");
        abort();
    }
    http_setup_easy(w, s);
    curl_easy_setopt(s->easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(s->easy, CURLOPT_WRITEDATA, s);
    s->buffer_size = BUFFER_DEFAULT;
    curl_easy_setopt(s->easy, CURLOPT_BUFFERSIZE, s->buffer_size);
    curl_easy_setopt(s->easy, CURLOPT_CONNECTTIMEOUT_MS,
                     (long)(c->target.connect_timeout_us / 1000));
    curl_easy_setopt(s->easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(s->easy, CURLOPT_PROTOCOLS_STR, "http,https");
    /* Load goes to the target, never through a proxy named by http_proxy
     * in the environment; this also spares libcurl a getenv per request. */
    curl_easy_setopt(s->easy, CURLOPT_PROXY, "");
    if (!c->target.keepalive) {
        curl_easy_setopt(s->easy, CURLOPT_FRESH_CONNECT, 1L);
        curl_easy_setopt(s->easy, CURLOPT_FORBID_REUSE, 1L);
    }
    return s;
}

void slot_free(struct slot *s)
{
    if (!s)
        return;
    curl_easy_cleanup(s->easy);
    free(s);
}

/* The options that depend on the request kind, set when the kind changes. */
static void set_kind(struct slot *s, size_t kind)
{
    const struct workload_kind *k = workload_kind(s->w->e->workload, kind);
    CURL *e = s->easy;

    /* HTTPGET resets what a previous kind may have left: POST, NOBODY. */
    curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    if (k->body) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)k->body_len);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, k->body);
    }
    if (strcmp(k->method, "HEAD") == 0) {
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, NULL);
    } else if (strcmp(k->method, "GET") == 0 && !k->body) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, NULL);
    } else {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, k->method);
    }
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, s->w->kind_headers[kind]);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)(k->timeout_us / 1000));
    s->last_kind = kind;
}

/* Takes a ticket when the run is limited to a number of requests. */
static int take_ticket(struct engine *e)
{
    if (!e->request_limit)
        return 1;
    return atomic_fetch_add(&e->tickets, 1) < e->request_limit;
}

int slot_start(struct slot *s)
{
    struct worker *w = s->w;
    struct engine *e = w->e;
    int len;

    if (!take_ticket(e))
        return -EAGAIN;
    s->kind = workload_pick(e->workload, &w->rng);
    len = workload_url(e->workload, s->kind, s->seq, s->vu, &w->rng, w->url, sizeof(w->url));
    /* workload_new refused templates that could expand past the buffer. */
    assert(len >= 0);
    (void)len;
    s->seq++;
    if (s->kind != s->last_kind)
        set_kind(s, s->kind);
    curl_easy_setopt(s->easy, CURLOPT_URL, w->url);
    s->body_bytes = 0;
    s->is_body_cut = 0;
    s->open_errno = 0;
    s->error[0] = '\0';
    s->start_ns = worker_now_ns(w);
    if (http_add(w, s) != 0) {
        fprintf(stderr, "brink: engine: curl_multi_add_handle failed: out of memory\n");
        abort();
    }
    s->is_in_flight = 1;
    w->in_flight++;
    w->iv.total.started++;
    w->iv.kinds[s->kind].started++;
    return 0;
}

static void gather(struct slot *s, CURLcode code, struct transfer_result *r, uint64_t *bytes_in,
                   uint64_t *bytes_out)
{
    long header_bytes = 0, request_bytes = 0, os_errno = 0, port = 0;
    curl_off_t upload = 0;

    r->code = code;
    curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &r->http_status);
    curl_easy_getinfo(s->easy, CURLINFO_OS_ERRNO, &os_errno);
    curl_easy_getinfo(s->easy, CURLINFO_HEADER_SIZE, &header_bytes);
    curl_easy_getinfo(s->easy, CURLINFO_REQUEST_SIZE, &request_bytes);
    curl_easy_getinfo(s->easy, CURLINFO_SIZE_UPLOAD_T, &upload);
    /* The remote port is known once a connection was made or reused, so it
     * tells a connect timeout from a read timeout on a kept-alive one. */
    curl_easy_getinfo(s->easy, CURLINFO_PRIMARY_PORT, &port);
    r->os_errno = s->open_errno ? s->open_errno : os_errno;
    r->connected = port > 0;
    r->body_cut = s->is_body_cut;
    *bytes_in = (uint64_t)header_bytes + s->body_bytes;
    *bytes_out = (uint64_t)request_bytes + (upload > 0 ? (uint64_t)upload : 0);
}

static void count(struct kind_stats *k, uint64_t latency_us, int cls, uint64_t in, uint64_t out)
{
    k->completed++;
    k->bytes_in += in;
    k->bytes_out += out;
    if (cls < 0)
        k->ok++;
    else
        k->errors[cls]++;
    hist_record(k->hist, latency_us);
}

void slot_done(struct slot *s, CURLcode code)
{
    struct worker *w = s->w;
    struct interval *iv = &w->iv;
    struct transfer_result r = {0};
    uint64_t latency_us, in = 0, out = 0;
    int cls;

    /* Timeouts and failures enter the histogram at their elapsed time too:
     * dropping them would hide exactly the slow requests. */
    latency_us = (worker_now_ns(w) - s->start_ns) / 1000;
    s->is_in_flight = 0;
    w->in_flight--;
    gather(s, code, &r, &in, &out);
    cls = classify_transfer(&r);
    count(&iv->total, latency_us, cls, in, out);
    count(&iv->kinds[s->kind], latency_us, cls, in, out);
    if (r.http_status > 0 && r.http_status < 1000)
        interval_count_status(iv, (uint16_t)r.http_status, 1);
    if (r.body_cut)
        iv->bodies_cut++;
    if (s->body_bytes > BUFFER_LARGE_BODY && s->buffer_size == BUFFER_DEFAULT) {
        s->buffer_size = large_buffer_for(s->index);
        curl_easy_setopt(s->easy, CURLOPT_BUFFERSIZE, s->buffer_size);
    }
    if (cls >= 0 && !iv->first_error[cls][0])
        classify_message(&r, s->error, iv->first_error[cls], TICK_TEXT_MAX);
    worker_next(w, s);
}
