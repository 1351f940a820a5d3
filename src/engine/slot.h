/*
 * A virtual user (slot.c): one request at a time, over the connection its
 * transport keeps for it; and a scenario script's request on it.
 */
#ifndef BRINK_ENGINE_SLOT_H
#define BRINK_ENGINE_SLOT_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "core/container.h"
#include "engine/capture.h"
#include "engine/request.h"
#include "engine/transport.h"

struct cookie_jar;
struct engine;
struct script_user;
struct status_set;
struct worker;

/* A virtual user: one request at a time, over one connection it keeps. */
struct slot {
    struct worker *w;
    /* What its transport sees of it (transport.h): its index in its worker,
     * its vu across the run, whether in flight, the request in flight as
     * its transport got it (view.rq), and the transport's own state. */
    struct transport_slot view;
    size_t kind;  /* of the request in flight */
    uint64_t seq; /* of the request in flight: its {seq}, from the engine's kind_seq */
    uint64_t start_ns;
    uint64_t intended_ns; /* when the request was meant to start (closed: start_ns) */
    int is_scheduled;     /* started by the open model's schedule */
    /* Closed model: the pause ([load] think_time) between its reply and its
     * next request. A thinking user is active but not in flight. */
    uv_timer_t think_timer;
    int is_thinking;
    /* [target] cookies: the user's jar, kept across its requests; else NULL. */
    struct cookie_jar *jar;
    /* [target] follow_redirects: the hops of the request in flight. url is
     * where the current hop goes (hops > 0), next the Location the reply
     * named (has_next), both WORKLOAD_URL_MAX bytes, allocated at the
     * first; is_get: the hop goes as GET without a body (303, or a POST
     * moved by 301 or 302, as browsers do); is_cross: a hop left the
     * request's origin, so its Authorization and Cookie lines stay behind. */
    struct {
        char *url;
        char *next;
        int has_next;
        int is_get;
        int is_cross;
        uint32_t hops;
    } redirect;
    /* A scenario run: the user's coroutine (its iteration), its request
     * (set while one is in flight), and brink.sleep on think_timer. */
    struct script_user *user;
    struct scene_req *req;
    struct scene_req req_store;
    int is_sleeping;
    int is_iteration_start; /* the next request is its iteration's first */
};

/* The slot whose view a transport handed back (transport.h). */
static inline struct slot *engine__slot_of(const struct transport_slot *ts)
{
    return container_of(ts, struct slot, view);
}

/* slot.c */
struct slot *engine__slot_new(struct worker *w, uint32_t index);
void engine__slot_free(struct slot *s);
/* Adds slots to w until it has n. */
void engine__slot_grow(struct worker *w, uint32_t n);
#define SLOT_NOW UINT64_MAX /* engine__slot_start: no intended time, the closed model */
/* How long one call starts requests for, new slots included (a libcurl
 * easy handle costs tens of µs): 19,000 users or arrivals at once held the
 * loop, its ticks and its deadlines, for a second. What is left starts on
 * the next loop pass (open.c, worker.c's fill). */
#define ENGINE_START_SLICE_NS 10000000ULL
/* Set-up before the first request that is worth an event (open.c). */
#define ENGINE_PREPARE_NOTE_NS 50000000ULL
/* The schedule's first part the set-up before it covers (open.c). */
#define ENGINE_PREPARE_AHEAD_US 1000000ULL

/* Sets up and starts the next request of s, meant to start at intended_ns
 * (SLOT_NOW: now); latency counts from then. Returns 0 or -EAGAIN when no
 * request may start (limit reached). */
int engine__slot_start(struct slot *s, uint64_t intended_ns);
/* request.c: the request of a slot as it goes out (and transport.h's
 * calls about it). */
/* Sends the request s is set up for (s->kind, and s->req for a script's),
 * meant to start at intended_ns (SLOT_NOW: now): the part of
 * engine__slot_start after the ticket and the kind. */
void engine__slot_send(struct slot *s, uint64_t intended_ns);
/* Hands the request of s to its transport: its first hop, or the next
 * (engine__slot_done's redirects). */
void engine__slot_hand(struct slot *s);
/* Takes a ticket when the run is limited to a number of requests; 0 when
 * none is left. */
int engine__take_ticket(struct engine *e);

#endif
