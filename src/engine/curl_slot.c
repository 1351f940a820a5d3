/*
 * The curl transport's side of a slot: one easy handle per virtual user,
 * reused for every request it sends (and so, with keep-alive, one
 * connection), and the ops table that lets a worker drive libcurl.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
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

static void slot_init(struct slot *s)
{
    struct worker *w = s->w;
    const struct config *c = w->e->config;

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
    curl_easy_setopt(s->easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(s->easy, CURLOPT_PROTOCOLS_STR, "http,https");
    /* Load goes to the target, never through a proxy named by http_proxy
     * in the environment; this also spares libcurl a getenv per request. */
    curl_easy_setopt(s->easy, CURLOPT_PROXY, "");
    /* A name lookup that outlives its transfer (a DNS server that never
     * answers) is left to finish on libcurl's resolver thread; without this
     * libcurl joins that thread when the transfer ends or the handle is
     * cleaned up, and the whole worker loop waits for the lookup. */
    curl_easy_setopt(s->easy, CURLOPT_QUICK_EXIT, 1L);
    if (!c->target.keepalive) {
        curl_easy_setopt(s->easy, CURLOPT_FRESH_CONNECT, 1L);
        curl_easy_setopt(s->easy, CURLOPT_FORBID_REUSE, 1L);
    }
}

static void slot_fini(struct slot *s)
{
    curl_easy_cleanup(s->easy);
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
    s->last_kind = kind;
}

/* What is left of limit_us since s started, in whole ms, at least 1 (0
 * would mean no limit to libcurl). */
static long left_ms(const struct slot *s, uint64_t limit_us)
{
    uint64_t waited_us = (worker_now_ns(s->w) - s->start_ns) / 1000;

    return limit_us > waited_us + 1000 ? (long)((limit_us - waited_us + 999) / 1000) : 1L;
}

void curl_slot_set_deadlines(struct slot *s)
{
    const struct workload_kind *k = workload_kind(s->w->e->workload, s->kind);

    curl_easy_setopt(s->easy, CURLOPT_TIMEOUT_MS, left_ms(s, k->timeout_us));
    curl_easy_setopt(s->easy, CURLOPT_CONNECTTIMEOUT_MS,
                     left_ms(s, s->w->e->config->target.connect_timeout_us));
}

void curl_slot_expired(struct slot *s)
{
    struct transfer_result r = {.code = CURLE_OPERATION_TIMEDOUT};
    char words[96];

    /* Never connected: connect_timeout, with brink's own reason. */
    snprintf(words, sizeof(words),
             "not connected within %llu ms: queued behind a burst of new connections",
             (unsigned long long)((worker_now_ns(s->w) - s->start_ns) / 1000000));
    slot_done(s, &r, 0, 0, words);
}

static void start(struct slot *s)
{
    struct worker *w = s->w;
    int len;

    len = workload_url(w->e->workload, s->kind, s->seq, s->vu, &w->rng, w->url, sizeof(w->url));
    /* workload_new refused templates that could expand past the buffer. */
    assert(len >= 0);
    (void)len;
    if (s->kind != s->last_kind)
        set_kind(s, s->kind);
    curl_easy_setopt(s->easy, CURLOPT_URL, w->url);
    s->body_bytes = 0;
    s->is_body_cut = 0;
    s->open_errno = 0;
    s->error[0] = '\0';
    if (http_add(w, s) != 0) {
        fprintf(stderr, "brink: engine: curl_multi_add_handle failed: out of memory\n");
        abort();
    }
}

static void abort_transfer(struct slot *s)
{
    http_abort(s->w, s);
}

static int is_unsent(struct slot *s)
{
    long port = 0;
    curl_off_t lookup_us = 0;

    if (s->is_queued)
        return 1;
    /* Still resolving: no lookup time yet, and no connection (a reused one
     * has its port). */
    curl_easy_getinfo(s->easy, CURLINFO_PRIMARY_PORT, &port);
    curl_easy_getinfo(s->easy, CURLINFO_NAMELOOKUP_TIME_T, &lookup_us);
    return port == 0 && lookup_us == 0;
}

static void gather(struct slot *s, CURLcode code, struct transfer_result *r, uint64_t *bytes_in,
                   uint64_t *bytes_out)
{
    long header_bytes = 0, request_bytes = 0, os_errno = 0, port = 0;
    curl_off_t upload = 0, lookup_us = 0;

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
    /* The lookup's time is set once the name resolved (an address literal
     * too); 0 on a connection never made means the lookup was still on, or
     * had not begun: a deadline that ended before libcurl took the
     * transfer up (one added late, behind a burst) is no dns failure, and
     * libcurl's words tell the two apart. */
    curl_easy_getinfo(s->easy, CURLINFO_NAMELOOKUP_TIME_T, &lookup_us);
    r->in_lookup = !r->connected && lookup_us == 0 && code == CURLE_OPERATION_TIMEDOUT &&
                   strncmp(s->error, "Resolving timed out", 19) == 0;
    r->body_cut = s->is_body_cut;
    *bytes_in = (uint64_t)header_bytes + s->body_bytes;
    /* libcurl sends a small body in the same write as the head and counts
     * it in the request size too; only a larger one is sent, and counted,
     * apart (the h1 transport counts the same bytes once). */
    if (upload > 0 && (curl_off_t)request_bytes < upload)
        *bytes_out = (uint64_t)request_bytes + (uint64_t)upload;
    else
        *bytes_out = (uint64_t)request_bytes;
}

void curl_slot_done(struct slot *s, CURLcode code)
{
    struct transfer_result r = {0};
    uint64_t in = 0, out = 0;

    gather(s, code, &r, &in, &out);
    if (s->body_bytes > BUFFER_LARGE_BODY && s->buffer_size == BUFFER_DEFAULT) {
        s->buffer_size = large_buffer_for(s->index);
        curl_easy_setopt(s->easy, CURLOPT_BUFFERSIZE, s->buffer_size);
    }
    slot_done(s, &r, in, out, s->error);
}

const struct transport_ops transport_curl = {
    .name = "curl",
    .init = http_init,
    .close = http_close,
    .fini = http_fini,
    .slot_init = slot_init,
    .slot_free = slot_fini,
    .start = start,
    .abort = abort_transfer,
    .is_unsent = is_unsent,
};
