/*
 * What every layer of h1 does with a slot's transfer, whichever protocol
 * carries it: its completion (now, or on the next loop pass inside start),
 * its failure, and its deadline. A failure lets go of what the slot holds:
 * its HTTP/2 stream or place in line (through the worker's HTTP/2 table,
 * struct h1_proto), and its connection (h1/close.c). Worker thread only.
 */
#include <stdio.h>

#include "core/dlist.h"
#include "core/msg.h"
#include "engine/transport.h"

#include "engine/h1/internal.h"

/* ---- Completion ------------------------------------------------------- */

void engine__h1_complete(struct transport_slot *s, enum transfer_outcome outcome, int os_errno,
                         const char *words)
{
    struct h1_slot *h = h1_slot_of(s);
    struct transfer_result r = {0};
    char tagged[WORDS_MAX + 8];

    uv_timer_stop(&h->timer);
    r.outcome = outcome;
    r.os_errno = os_errno;
    r.http_status = h->resp.status;
    r.connected = h->was_connected;
    /* A deadline that passed while the name was being looked up is the DNS
     * server's silence, not the target's. */
    if (h->is_looking_up && outcome == TRANSFER_TIMEOUT)
        r.outcome = TRANSFER_DNS;
    h->is_looking_up = 0;
    /* The words name the transport, as libcurl's name theirs. */
    if (words[0])
        snprintf(tagged, sizeof(tagged), "h1: %s", words);
    else
        tagged[0] = '\0';
    engine__slot_done(s, &r, h->resp.raw_bytes, h->bytes_out, tagged);
}

static void on_idle(uv_idle_t *i)
{
    struct h1_worker *hw = container_of(i, struct h1_worker, idle);
    struct h1_slot *h = hw->pending;

    /* Completions started from here queue on a fresh list. */
    hw->pending = NULL;
    uv_idle_stop(i);
    while (h) {
        struct h1_slot *next = h->next;

        h->is_pending = 0;
        engine__h1_complete(h->s, h->outcome, h->os_errno, h->words);
        h = next;
    }
}

void engine__h1_unlink_pending(struct h1_worker *hw, struct h1_slot *h)
{
    for (struct h1_slot **p = &hw->pending; *p; p = &(*p)->next) {
        if (*p == h) {
            *p = h->next;
            break;
        }
    }
    h->is_pending = 0;
}

/* The transfer of s failed: complete it now, or, inside start, on the next
 * loop pass (engine__slot_done would start the next request inside this one). */
void engine__h1_fail(struct transport_slot *s, enum transfer_outcome outcome, int os_errno,
                     const char *what)
{
    struct h1_slot *h = h1_slot_of(s);
    struct h1_worker *hw = h1_worker_of(s->w);

    /* strerror's words, so that classify does not repeat them. */
    if (os_errno)
        msg_set(h->words, sizeof(h->words), "%s: %s", what, msg_errno(os_errno).text);
    else
        msg_set(h->words, sizeof(h->words), "%s", what);
    if (h->h2)
        hw->http2->leave(s, outcome, os_errno, what);
    if (h->conn)
        engine__h1_conn_close(h->conn);
    if (!h->is_starting) {
        engine__h1_complete(s, outcome, os_errno, h->words);
        return;
    }
    uv_timer_stop(&h->timer);
    h->outcome = outcome;
    h->os_errno = os_errno;
    h->is_pending = 1;
    h->next = hw->pending;
    hw->pending = h;
    uv_idle_start(&hw->idle, on_idle);
}

/* ---- Deadlines -------------------------------------------------------- */

static void on_timeout(uv_timer_t *t);

/* Arms the timer of s to fire limit_us after the request started. */
void engine__h1_arm_timer(struct transport_slot *s, uint64_t limit_us)
{
    engine__slot_arm(s, &h1_slot_of(s)->timer, on_timeout, limit_us);
}

static void on_timeout(uv_timer_t *t)
{
    struct h1_slot *h = container_of(t, struct h1_slot, timer);
    struct transport_slot *s = h->s;
    char what[WORDS_MAX];

    if (!s->is_in_flight || h->is_pending)
        return;
    if (h->h2 && !h->conn && !h->is_looking_up && !h->is_queued) {
        h1_worker_of(s->w)->http2->timeout(s);
        return;
    }
    if (h->is_looking_up) {
        /* engine__h1_complete makes the timeout a dns failure, as libcurl's is. */
        dlist_remove(&h1_worker_of(s->w)->waiting, &h->in_line);
        snprintf(what, sizeof(what), "no answer to the name lookup within %llu ms",
                 (unsigned long long)((engine__worker_now_ns(s->w) - h1_slot_of(s)->rq->start_ns) /
                                      1000000));
        engine__h1_fail(s, TRANSFER_TIMEOUT, 0, what);
        return;
    }
    if (h->is_queued) {
        /* Never connected: connect_timeout, with brink's own reason. */
        engine__h1_unlink_queued(h1_worker_of(s->w), h);
        engine__slot_queued_words(s, what, sizeof(what));
        engine__h1_fail(s, TRANSFER_TIMEOUT, 0, what);
        return;
    }
    if (h->conn && h->conn->tls && !h->conn->is_tls_ready) {
        snprintf(what, sizeof(what), "TLS handshake not done within %llu ms",
                 (unsigned long long)((engine__worker_now_ns(s->w) - h1_slot_of(s)->rq->start_ns) /
                                      1000000));
        engine__h1_fail(s, TRANSFER_TIMEOUT, 0, what);
        return;
    }
    snprintf(what, sizeof(what), "no reply within %llu ms",
             (unsigned long long)((engine__worker_now_ns(s->w) - h1_slot_of(s)->rq->start_ns) /
                                  1000000));
    engine__h1_fail(s, TRANSFER_TIMEOUT, 0, what);
}
