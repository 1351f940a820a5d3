/*
 * A slot is one virtual user of the closed model: it sends a request, waits
 * for the whole reply, records it, and sends the next, over one connection
 * it keeps (with keep-alive). Under the open model it is one connection of
 * the pool the schedule's requests take turns on. How the request travels is the transport's
 * business; what is counted, and how, is the same for every transport.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "config/config.h"
#include "core/hist.h"
#include "core/msg.h"
#include "core/xalloc.h"
#include "engine/classify.h"
#include "engine/internal.h"
#include "engine/workload.h"

/* The slot whose view a transport handed back (transport.h). */
static struct slot *slot_of(const struct transport_slot *ts)
{
    return container_of(ts, struct slot, view);
}

struct slot *engine__slot_new(struct worker *w, uint32_t index)
{
    struct slot *s = xcalloc(1, sizeof(*s));

    s->w = w;
    s->view.w = &w->view;
    s->view.index = index;
    s->view.vu = index * w->e->n_workers + w->view.id;
    /* Closed with the worker's own handles (worker.c), before s is freed. */
    uv_timer_init(&w->view.loop, &s->think_timer);
    if (w->e->config->target.cookies)
        s->jar = cookie_jar_new();
    w->e->tp->slot_init(&s->view);
    engine__scene_slot_init(s);
    return s;
}

void engine__slot_free(struct slot *s)
{
    if (!s)
        return;
    s->w->e->tp->slot_free(&s->view);
    engine__scene_slot_free(s);
    cookie_jar_free(s->jar);
    free(s->redirect.url);
    free(s->redirect.next);
    free(s);
}

/* Takes a ticket when the run is limited to a number of requests. */
int engine__take_ticket(struct engine *e)
{
    uint64_t n;

    if (!e->request_limit)
        return 1;
    n = atomic_fetch_add(&e->tickets, 1);
    /* A worker whose users all think would otherwise learn that nothing
     * is left to send only when a pause ends, maybe an hour later: the
     * last ticket wakes every worker to see that and finish. */
    if (n + 1 == e->request_limit && e->think_ms)
        engine__wake_all(e);
    return n < e->request_limit;
}

void engine__slot_arm(const struct transport_slot *ts, uv_timer_t *t, uv_timer_cb cb,
                      uint64_t limit_us)
{
    const struct slot *s = slot_of(ts);
    uint64_t due_ms = (s->w->start_ns + s->start_ns + limit_us * 1000 + 999999) / 1000000;
    uint64_t now_ms = uv_now(&s->w->view.loop);

    uv_timer_start(t, cb, due_ms > now_ms ? due_ms - now_ms : 0, 0);
}

uint64_t engine__slot_timeout_us(const struct transport_slot *ts)
{
    const struct slot *s = slot_of(ts);

    return s->req ? s->req->timeout_us : workload_kind(s->w->e->workload, s->kind)->timeout_us;
}

uint64_t engine__slot_connect_limit_us(const struct transport_slot *ts)
{
    const struct slot *s = slot_of(ts);
    uint64_t connect_us = s->w->e->config->target.connect_timeout_us;
    uint64_t limit_us = engine__slot_timeout_us(ts);

    return connect_us < limit_us ? connect_us : limit_us;
}

void engine__slot_queued_words(const struct transport_slot *ts, char *buf, size_t cap)
{
    const struct slot *s = slot_of(ts);

    msg_set(buf, cap, "not connected within %llu ms: queued behind a burst of new connections",
            (unsigned long long)((engine__worker_now_ns(&s->w->view) - s->start_ns) / 1000000));
}

int engine__slot_start(struct slot *s, uint64_t intended_ns)
{
    struct worker *w = s->w;
    struct engine *e = w->e;

    /* One request at a time, and none while the user thinks. */
    assert(!s->view.is_in_flight && !s->is_thinking);
    if (e->script)
        return engine__scene_start(s, intended_ns);
    if (!engine__take_ticket(e))
        return -EAGAIN;
    s->kind = workload_pick(e->workload, &w->view.rng);
    /* Relaxed: the value only has to be unique, and the kind's counter is
     * touched once per request (a shared cache line, but one add). */
    s->seq = atomic_fetch_add_explicit(&e->kind_seq[s->kind], 1, memory_order_relaxed);
    engine__slot_send(s, intended_ns);
    return 0;
}

/* Hands the request of s to its transport: its first hop, or the next. */
static void hand(struct slot *s)
{
    s->view.rq = (struct transport_request){
        .kind = s->kind,
        .seq = s->seq,
        .vu = s->view.vu,
        .start_ns = s->start_ns,
        .script = s->req,
        .hops = s->redirect.hops,
        .hop_url = s->redirect.url,
        .hop_is_get = s->redirect.is_get,
        .hop_is_cross = s->redirect.is_cross,
        .has_jar = s->jar != NULL,
    };
    s->w->e->tp->start(&s->view, &s->view.rq);
}

void engine__slot_send(struct slot *s, uint64_t intended_ns)
{
    struct worker *w = s->w;

    s->start_ns = engine__worker_now_ns(&w->view);
    s->is_scheduled = intended_ns != SLOT_NOW;
    s->intended_ns = s->is_scheduled && intended_ns < s->start_ns ? intended_ns : s->start_ns;
    s->view.is_in_flight = 1;
    s->redirect.hops = 0;
    s->redirect.has_next = 0;
    s->redirect.is_get = 0;
    s->redirect.is_cross = 0;
    w->in_flight++;
    w->iv.total.started++;
    w->iv.kinds[s->kind].started++;
    hand(s);
}

static void count(struct kind_stats *k, uint64_t latency_us, int cls, uint64_t in, uint64_t out)
{
    k->completed++;
    k->bytes_in += in;
    k->bytes_out += out;
    if (cls < 0) {
        k->ok++;
        hist_record(k->hist, latency_us);
    } else {
        k->errors[cls]++;
    }
}

static int is_redirect(long status)
{
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

/* The redirects the request of s follows: the script's request's own
 * limit, else [target] follow_redirects. */
static uint32_t follow_limit(const struct slot *s)
{
    return s->req ? s->req->follow_redirects : s->w->e->config->target.follow_redirects;
}

/*
 * [target] follow_redirects, or a script request's follow_redirects: when
 * the reply of s is a redirect with a Location, sends the next hop and
 * returns 1 (its traffic is counted now, its latency when the last hop
 * ends, from the first one's start); past the limit, returns -1: the
 * request ends as too many redirects; -2: a script's hop cannot be sent
 * (why in words). 0: the reply is the request's answer.
 */
static int follow(struct slot *s, const struct transfer_result *r, uint64_t in, uint64_t out,
                  char *words, size_t words_len)
{
    struct worker *w = s->w;
    uint32_t limit = follow_limit(s);
    const char *from;
    char *url;

    if (limit == 0 || r->outcome != TRANSFER_OK || !is_redirect(r->http_status) ||
        !s->redirect.has_next)
        return 0;
    if (s->redirect.hops == limit) {
        snprintf(words, words_len, "too many redirects (%" PRIu32 ")", s->redirect.hops);
        return -1;
    }
    /* Once a hop leaves the origin, the request's credentials stay
     * behind for the rest of the chain (as the Fetch standard says). */
    if (s->req)
        from = s->req->url;
    else if (s->redirect.hops)
        from = s->redirect.url;
    else
        from = workload_kind(w->e->workload, s->kind)->url;
    if (!engine__same_origin(from, s->redirect.next))
        s->redirect.is_cross = 1;
    /* Browsers turn a 303, and a POST moved by 301 or 302, into a GET
     * without a body; 307 and 308 keep the method and the body. */
    if ((r->http_status == 303 && strcmp(engine__slot_method(&s->view), "HEAD") != 0) ||
        ((r->http_status == 301 || r->http_status == 302) &&
         strcmp(engine__slot_method(&s->view), "POST") == 0))
        s->redirect.is_get = 1;
    url = s->redirect.url;
    s->redirect.url = s->redirect.next;
    s->redirect.next = url;
    s->redirect.has_next = 0;
    s->redirect.hops++;
    w->iv.total.bytes_in += in;
    w->iv.total.bytes_out += out;
    w->iv.kinds[s->kind].bytes_in += in;
    w->iv.kinds[s->kind].bytes_out += out;
    if (r->http_status > 0 && r->http_status < 1000)
        engine__interval_count_status(&w->iv, (uint16_t)r->http_status, 1);
    if (s->req && engine__scene_hop(s, words, words_len) < 0)
        return -2;
    hand(s);
    return 1;
}

void engine__slot_done(struct transport_slot *ts, const struct transfer_result *done,
                       uint64_t bytes_in, uint64_t bytes_out, const char *words)
{
    struct slot *s = slot_of(ts);
    struct worker *w = s->w;
    struct interval *iv = &w->iv;
    /* Judged here, for every transport, against the statuses its kind
     * expects (resolved once, in the workload). */
    struct transfer_result judged = *done;
    const struct transfer_result *r = &judged;
    uint64_t latency_us, now_ns;
    char why[TICK_TEXT_MAX];
    int cls;

    judged.expect = s->req ? s->req->expect : &workload_kind(w->e->workload, s->kind)->expect;
    /* A script's request reads its reply's Set-Cookie and Location from
     * the lines it keeps for the script (the transports read them for a
     * plain request as they arrive). */
    if (s->req)
        engine__scene_take_head(s, done);
    switch (follow(s, done, bytes_in, bytes_out, why, sizeof(why))) {
    case 1: return;
    case -1:
    case -2:
        judged.outcome = TRANSFER_OTHER;
        words = why;
        break;
    default: break;
    }

    /* Timeouts and failures are timed too, at their elapsed time, but in a
     * histogram of their own: mixed in, a flood of fast 503s would pull the
     * successes' percentiles down as the server breaks. Latency counts
     * from the intended start, so a request the schedule had to hold back
     * is charged for its wait (coordinated omission); the service time of
     * a success, from the actual start, goes to its own histogram. */
    now_ns = engine__worker_now_ns(&w->view);
    latency_us = (now_ns - s->intended_ns) / 1000;
    s->view.is_in_flight = 0;
    w->in_flight--;
    cls = classify_transfer(r);
    if (cls >= 0) {
        hist_record(iv->failed, latency_us);
    } else if (s->is_scheduled) {
        hist_record(iv->service, (now_ns - s->start_ns) / 1000);
        iv->service_completed++;
    }
    count(&iv->total, latency_us, cls, bytes_in, bytes_out);
    count(&iv->kinds[s->kind], latency_us, cls, bytes_in, bytes_out);
    if (r->http_status > 0 && r->http_status < 1000)
        engine__interval_count_status(iv, (uint16_t)r->http_status, 1);
    if (r->outcome == TRANSFER_BODY_CUT)
        iv->bodies_cut++;
    if (cls >= 0 && !iv->first_error[cls][0]) {
        classify_message(r, words, iv->first_error[cls], TICK_TEXT_MAX);
        iv->first_error_ns[cls] = now_ns;
    }
    if (s->req) {
        engine__scene_reply(s, r, cls, latency_us);
        return;
    }
    engine__worker_next(w, s);
}

const struct sigv4_out *engine__slot_sign(struct transport_slot *ts, const char *url,
                                          size_t url_len, const char *host)
{
    struct slot *s = slot_of(ts);
    struct worker *w = s->w;
    const struct workload_kind *k = workload_kind(w->e->workload, s->kind);
    struct sigv4_request rq = {.method = engine__slot_method(&s->view),
                               .url = url,
                               .url_len = url_len,
                               .host = host,
                               .headers = k->headers,
                               .n_headers = k->n_headers,
                               .payload_hash = k->payload_hash};
    char empty[SIGV4_HASH_HEX];

    /* A hop turned into GET carries no body. */
    if (!engine__slot_has_body(&s->view) && k->body) {
        sigv4_payload_hash(NULL, 0, empty);
        rq.payload_hash = empty;
    }

    if (!w->sigv4_out)
        w->sigv4_out = xmalloc(sizeof(*w->sigv4_out));
    /* SigV4 dates are wall-clock UTC, and a server allows 15 minutes of
     * skew: the second at send time. */
    if (sigv4_sign(k->sigv4, &w->sigv4_cache, &rq, (int64_t)time(NULL), w->sigv4_out) != 0)
        return NULL;
    return w->sigv4_out;
}

void engine__slot_cookie_set(struct transport_slot *ts, const char *url, const char *v, size_t n)
{
    struct slot *s = slot_of(ts);

    if (s->jar && cookie_jar_set(s->jar, v, n, url, (int64_t)time(NULL)) == -ENOSPC)
        s->w->iv.cookies_dropped++;
}

size_t engine__slot_cookie_line(struct transport_slot *ts, const char *url, char *buf, size_t cap)
{
    struct slot *s = slot_of(ts);
    static const char name[] = "Cookie: ";
    size_t n;

    if (!s->jar || cap < sizeof(name))
        return 0;
    n = cookie_jar_header(s->jar, url, (int64_t)time(NULL), buf + sizeof(name) - 1,
                          cap - sizeof(name) + 1);
    if (n == 0)
        return 0;
    memcpy(buf, name, sizeof(name) - 1);
    return n + sizeof(name) - 1;
}

const char *engine__slot_method(const struct transport_slot *ts)
{
    const struct slot *s = slot_of(ts);

    if (s->redirect.is_get)
        return "GET";
    return s->req ? s->req->method : workload_kind(s->w->e->workload, s->kind)->method;
}

/* RFC 9110, 9.2.2: the methods whose request may be sent twice with the
 * effect of once. Any other, an extension method included, is not. */
static int is_idempotent(const char *method)
{
    static const char *const safe[] = {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"};

    for (size_t i = 0; i < sizeof(safe) / sizeof(safe[0]); i++) {
        if (strcmp(method, safe[i]) == 0)
            return 1;
    }
    return 0;
}

int engine__slot_may_resend(struct transport_slot *ts, enum resend_cause cause)
{
    struct slot *s = slot_of(ts);
    const struct config_target *t = &s->w->e->config->target;

    /* A refused stream was never processed, the server says: any method
     * may go again. A crossed close cannot say so. */
    if (!t->retry || (cause == RESEND_CLOSED_IDLE && !t->retry_non_idempotent &&
                      !is_idempotent(engine__slot_method(&s->view))))
        return 0;
    s->w->iv.resent[cause]++;
    return 1;
}

int engine__slot_has_body(const struct transport_slot *ts)
{
    const struct slot *s = slot_of(ts);

    return !s->redirect.is_get && workload_kind(s->w->e->workload, s->kind)->body != NULL;
}

/* Bytes of "scheme://authority" at the start of url. */
static size_t origin_len(const char *url)
{
    const char *p = strstr(url, "://");

    if (!p)
        return 0;
    p += 3;
    return (size_t)(p - url) + strcspn(p, "/?#");
}

int engine__same_origin(const char *a, const char *b)
{
    size_t n = origin_len(a);

    return n > 0 && n == origin_len(b) && strncasecmp(a, b, n) == 0;
}

int engine__is_credential(const char *line)
{
    return (strncasecmp(line, "Authorization:", 14) == 0) || strncasecmp(line, "Cookie:", 7) == 0;
}

void engine__slot_location(struct transport_slot *ts, const char *url, const char *v, size_t n)
{
    struct slot *s = slot_of(ts);
    char *out;
    size_t at, base;

    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)v[i] <= ' ' || (unsigned char)v[i] >= 0x7F)
            return;
        if (v[i] == '#')
            n = i;
    }
    if (!s->redirect.next) {
        s->redirect.next = xmalloc(WORKLOAD_URL_MAX);
        s->redirect.url = xmalloc(WORKLOAD_URL_MAX);
    }
    out = s->redirect.next;
    if (n >= 7 && (strncasecmp(v, "http://", 7) == 0 || strncasecmp(v, "https://", 8) == 0)) {
        base = 0;
    } else if (n >= 2 && v[0] == '/' && v[1] == '/') {
        base = (size_t)(strstr(url, "://") - url) + 1; /* the scheme and its colon */
    } else if (n >= 1 && v[0] == '/') {
        base = origin_len(url);
    } else if (n >= 1 && v[0] == '?') {
        base = strcspn(url, "?#");
    } else {
        /* A relative path: after the last '/' of the base's path. */
        size_t o = origin_len(url), end = strcspn(url, "?#");

        base = end;
        while (base > o && url[base - 1] != '/')
            base--;
        if (base == o) {
            if (o + 1 >= WORKLOAD_URL_MAX)
                return;
            memcpy(out, url, o);
            out[o] = '/';
            base = o + 1;
            url = out;
        }
    }
    if (base + n >= WORKLOAD_URL_MAX || (base > 0 && !strstr(url, "://")))
        return;
    if (url != out)
        memcpy(out, url, base);
    at = base;
    memcpy(out + at, v, n);
    out[at + n] = '\0';
    s->redirect.has_next =
        strncasecmp(out, "http://", 7) == 0 || strncasecmp(out, "https://", 8) == 0;
}
