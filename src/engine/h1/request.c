/*
 * The request an h1 slot sends, as HTTP/1.1 text, whichever version then
 * carries it: its kind's head (placeholders filled in), a redirect's hop,
 * or a scenario script's, with the lines of this request alone (the jar's
 * Cookie, the aws_sigv4 signature) added. HTTP/2 reads its header fields
 * from the same text (h2_head.h). Worker thread only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config.h"
#include "core/msg.h"
#include "core/xalloc.h"
#include "engine/h1/wire.h"
#include "engine/transport.h"

#include "engine/h1/internal.h"

/* Whether the redirect s follows stays on the origin its kind's
 * connections go to: h1 connects to one origin only. */
int engine__h1_is_same_origin(const struct transport_slot *s)
{
    struct h1_slot *h = h1_slot_of(s);
    const struct h1_kind *k = &h1_setup_of(s->w)->kinds[h->rq->kind];
    const char *url = h->rq->hop_url;

    return strncasecmp(url, workload_kind(s->w->workload, h->rq->kind)->url, k->origin_len) == 0 &&
           strchr("/?", url[k->origin_len]) != NULL;
}

/* The head of the redirect s follows, in the worker's head buffer: the
 * hop's method and target, then the kind's headers (without its
 * Content-Length when the hop goes as GET). */
static const char *hop_head(struct transport_slot *s, const struct h1_kind *k, size_t *len)
{
    struct h1_worker *hw = h1_worker_of(s->w);
    const char *method = engine__slot_method(s),
               *target = h1_slot_of(s)->rq->hop_url + k->origin_len;
    const char *suffix = h1_slot_of(s)->rq->hop_is_get ? k->suffix_get : k->suffix;
    size_t suffix_len = h1_slot_of(s)->rq->hop_is_get ? k->suffix_get_len : k->suffix_len;
    size_t m = strlen(method), t = strlen(target), at = 0;

    memcpy(hw->head, method, m);
    at = m;
    hw->head[at++] = ' ';
    /* "http://h?q" asks for "/?q", as libcurl sends it. */
    if (target[0] != '/')
        hw->head[at++] = '/';
    memcpy(hw->head + at, target, t);
    at += t;
    memcpy(hw->head + at, suffix, suffix_len);
    *len = at + suffix_len;
    return hw->head;
}

/* Keeps the URL of the request in flight for the cookie jar: the kind's
 * origin and the head's target. */
static void keep_url(struct transport_slot *s, const struct h1_kind *k, const char *target,
                     size_t n)
{
    struct h1_slot *h = h1_slot_of(s);
    const char *origin = workload_kind(s->w->workload, h1_slot_of(s)->rq->kind)->url;
    size_t need = k->origin_len + n + 1;

    if (need > h->url_cap) {
        h->url_cap = need;
        h->url = xrealloc(h->url, need);
    }
    memcpy(h->url, origin, k->origin_len);
    memcpy(h->url + k->origin_len, target, n);
    h->url[need - 1] = '\0';
}

/*
 * The head with the lines of this request alone added before its blank
 * line, in the worker's signed_head: the jar's Cookie ([target] cookies)
 * and the signature (aws_sigv4), which covers the request target and Host
 * the head carries. Returns head itself when it has no request line to
 * read, or nothing was added.
 */
static const char *extend_head(struct transport_slot *s, const struct h1_kind *k, const char *head,
                               size_t *len)
{
    static const char version[] = " HTTP/1.1\r\n";
    struct h1_worker *hw = h1_worker_of(s->w);
    size_t cap = h1_setup_of(s->w)->head_max + SIGV4_LINES_MAX + ENGINE_COOKIE_LINE_MAX + 4, at;
    const char *target = memchr(head, ' ', *len), *end = NULL;
    const struct sigv4_out *o = NULL;

    /* The method has no blank, the target neither: the first blank starts
     * it and the next one begins the version. */
    if (target)
        end = memchr(target + 1, ' ', *len - (size_t)(target + 1 - head));
    if (!end || (size_t)(head + *len - end) < sizeof(version) - 1 ||
        memcmp(end, version, sizeof(version) - 1) != 0)
        return head;
    target++;
    if (workload_kind(s->w->workload, h1_slot_of(s)->rq->kind)->sigv4)
        o = engine__slot_sign(s, target, (size_t)(end - target), k->host);
    if (!hw->signed_head)
        hw->signed_head = xmalloc(cap);
    /* The head ends with the blank line: the lines go before it. */
    at = *len - 2;
    memcpy(hw->signed_head, head, at);
    keep_url(s, k, target, (size_t)(end - target));
    if (h1_slot_of(s)->rq->has_jar) {
        size_t n;

        n = engine__slot_cookie_line(s, h1_slot_of(s)->url, hw->signed_head + at, cap - at - 4);
        if (n) {
            memcpy(hw->signed_head + at + n, "\r\n", 2);
            at += n + 2;
        }
    }
    if (o)
        at += sigv4_join(o, hw->signed_head + at, cap - at - 2);
    memcpy(hw->signed_head + at, "\r\n", 2);
    *len = at + 2;
    return hw->signed_head;
}

void engine__h1_request(struct transport_slot *s, const char **head, size_t *len,
                        const unsigned char **body, size_t *body_len)
{
    struct h1_worker *hw = h1_worker_of(s->w);
    const struct h1_kind *k;

    if (h1_slot_of(s)->rq->script) {
        /* A script's request: its head was serialised (and signed) when it
         * was made. */
        *head = h1_slot_of(s)->rq->script->head_buf.at;
        *len = h1_slot_of(s)->rq->script->head_buf.len;
        *body = h1_slot_of(s)->rq->script->body;
        *body_len = h1_slot_of(s)->rq->script->body_len;
        return;
    }
    k = &h1_setup_of(s->w)->kinds[h1_slot_of(s)->rq->kind];
    if (h1_slot_of(s)->rq->hops)
        *head = hop_head(s, k, len);
    else
        *head = h1_head(k, s->w->workload, h1_slot_of(s)->rq->kind, h1_slot_of(s)->rq->seq,
                        h1_slot_of(s)->rq->vu, &s->w->rng, hw->head, hw->head_cap, len);
    if (workload_kind(s->w->workload, h1_slot_of(s)->rq->kind)->sigv4 ||
        h1_slot_of(s)->rq->has_jar || s->w->config->target.follow_redirects)
        *head = extend_head(s, k, *head, len);
    *body = k->body;
    *body_len = engine__slot_has_body(s) ? k->body_len : 0;
}

int engine__h1_script_ready(struct transport_slot *s, struct scene_req *q, uint32_t hops, char *why,
                            size_t why_len)
{
    const struct h1_setup *p = h1_setup_of(s->w);
    struct h1_origin o;
    char reason[160];

    if (h1_origin_parse(q->url, &o, reason, sizeof(reason)) < 0) {
        msg_set(why, why_len, "brink.request: %s", reason);
        return -EINVAL;
    }
    if (strcmp(o.authority, p->authority) != 0 || o.is_tls != p->is_tls) {
        if (hops)
            msg_set(why, why_len, "%s", ENGINE_H1_OTHER_ORIGIN);
        else
            msg_set(why, why_len,
                    "brink.request: %.80s: the h1 transport sends to [target] url's origin only "
                    "(set [target] transport = curl for others)",
                    q->url);
        return -EINVAL;
    }
    h1_head_build(&q->head_buf, q->method, q->url, &o, q->headers, q->n_headers, q->body != NULL,
                  q->body_len);
    return 0;
}
