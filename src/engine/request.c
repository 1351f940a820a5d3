/*
 * The request of a slot as it goes out: its ticket, its hand-over to the
 * transport, and what the transports and scene.c ask of it while it
 * travels (its method, body, timeouts, resends, signature, cookies and
 * redirects). Below slot.c and scene.c: it calls neither, nor the worker.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "config/config.h"
#include "core/msg.h"
#include "core/xalloc.h"
#include "engine/internal.h"
#include "engine/workload.h"

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
    const struct slot *s = engine__slot_of(ts);
    uint64_t due_ms = (s->w->start_ns + s->start_ns + limit_us * 1000 + 999999) / 1000000;
    uint64_t now_ms = uv_now(&s->w->view.loop);

    uv_timer_start(t, cb, due_ms > now_ms ? due_ms - now_ms : 0, 0);
}

uint64_t engine__slot_timeout_us(const struct transport_slot *ts)
{
    const struct slot *s = engine__slot_of(ts);

    return s->req ? s->req->timeout_us : workload_kind(s->w->e->workload, s->kind)->timeout_us;
}

uint64_t engine__slot_connect_limit_us(const struct transport_slot *ts)
{
    const struct slot *s = engine__slot_of(ts);
    uint64_t connect_us = s->w->e->config->target.connect_timeout_us;
    uint64_t limit_us = engine__slot_timeout_us(ts);

    return connect_us < limit_us ? connect_us : limit_us;
}

void engine__slot_queued_words(const struct transport_slot *ts, char *buf, size_t cap)
{
    const struct slot *s = engine__slot_of(ts);

    msg_set(buf, cap, "not connected within %llu ms: queued behind a burst of new connections",
            (unsigned long long)((engine__now_ns(s->w) - s->start_ns) / 1000000));
}

void engine__slot_hand(struct slot *s)
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
    engine__slot_tp(s)->start(&s->view, &s->view.rq);
}

void engine__slot_send(struct slot *s, uint64_t intended_ns)
{
    struct worker *w = s->w;

    s->start_ns = engine__now_ns(w);
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
    engine__slot_hand(s);
}

const struct sigv4_out *engine__slot_sign(struct transport_slot *ts, const char *url,
                                          size_t url_len, const char *host)
{
    struct slot *s = engine__slot_of(ts);
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
    struct slot *s = engine__slot_of(ts);

    if (s->jar && cookie_jar_set(s->jar, v, n, url, (int64_t)time(NULL)) == -ENOSPC)
        s->w->iv.cookies_dropped++;
}

size_t engine__slot_cookie_line(struct transport_slot *ts, const char *url, char *buf, size_t cap)
{
    struct slot *s = engine__slot_of(ts);
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
    const struct slot *s = engine__slot_of(ts);

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
    struct slot *s = engine__slot_of(ts);
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
    const struct slot *s = engine__slot_of(ts);

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
    struct slot *s = engine__slot_of(ts);
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
