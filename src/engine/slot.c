/*
 * A slot is one virtual user of the closed model: it sends a request, waits
 * for the whole reply, records it, and sends the next, over one connection
 * it keeps (with keep-alive). Under the open model it is one connection of
 * the pool the schedule's requests take turns on. How the request travels is the transport's
 * business; what is counted, and how, is the same for every transport.
 * Here: a slot's life, the start of its request (its kind's, or its
 * script's: scene.c) and its end (redirects followed, the outcome
 * counted). What goes next is the worker's to say (w->next): slot.c does
 * not call worker.c, which calls it.
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

struct slot *engine__slot_new(struct worker *w, uint32_t index)
{
    struct slot *s = xcalloc(1, sizeof(*s));
    const struct transport_ops *tp[2];
    size_t n;

    s->w = w;
    s->view.w = &w->view;
    s->view.index = index;
    s->view.vu = index * w->e->n_workers + w->view.id;
    /* Closed with the worker's own handles (worker.c), before s is freed. */
    uv_timer_init(&w->view.loop, &s->think_timer);
    if (w->e->config->target.cookies)
        s->jar = cookie_jar_new();
    n = engine__transports(w->e, tp);
    for (size_t i = 0; i < n; i++)
        tp[i]->slot_init(&s->view);
    engine__scene_slot_init(s);
    return s;
}

void engine__slot_free(struct slot *s)
{
    const struct transport_ops *tp[2];
    size_t n;

    if (!s)
        return;
    n = engine__transports(s->w->e, tp);
    for (size_t i = 0; i < n; i++)
        tp[i]->slot_free(&s->view);
    engine__scene_slot_free(s);
    cookie_jar_free(s->jar);
    free(s->redirect.url);
    free(s->redirect.next);
    free(s);
}

void engine__slot_grow(struct worker *w, uint32_t n)
{
    if (n <= w->n_slots)
        return;
    if (n > w->slots_cap) {
        /* The open model grows its pool one slot at a time: room for twice
         * as many keeps a burst of n new slots from copying n * n / 2. */
        w->slots_cap = n > 2 * w->slots_cap ? n : 2 * w->slots_cap;
        w->slots = xrealloc(w->slots, w->slots_cap * sizeof(*w->slots));
    }
    while (w->n_slots < n) {
        w->slots[w->n_slots] = engine__slot_new(w, w->n_slots);
        w->n_slots++;
    }
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
    engine__slot_hand(s);
    return 1;
}

void engine__slot_done(struct transport_slot *ts, const struct transfer_result *done,
                       uint64_t bytes_in, uint64_t bytes_out, const char *words)
{
    struct slot *s = engine__slot_of(ts);
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
    now_ns = engine__now_ns(w);
    latency_us = (now_ns - s->intended_ns) / 1000;
    s->view.is_in_flight = 0;
    w->in_flight--;
    w->replies++;
    if (s->is_scheduled)
        grow_replied(&w->grow, now_ns, now_ns - s->start_ns);
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
    w->next(w, s);
}
