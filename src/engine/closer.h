/*
 * closer: the closes of a worker's connections, within each loop pass's
 * budget. Closing a TCP connection sends its FIN, and over loopback the
 * kernel runs the peer's side of it inside the close: tens of µs each.
 * Thousands of 2 s timeouts due together (the burst of issue 22) closed
 * their connections one by one in the pass that handled them, which held
 * the loop for half a second, and every timeout handled after those closes
 * was reported that much late. Now a request gives up first and its
 * connection closes within the pass's close budget (a struct pace of its
 * own): the closes it does not allow wait in a queue, oldest first, for
 * later passes. The request they belonged to has ended already; new
 * connects wait until the queue is empty (closer_is_busy), so the sockets
 * open never exceed what they were before. Worker's thread.
 */
#ifndef BRINK_ENGINE_CLOSER_H
#define BRINK_ENGINE_CLOSER_H

#include <uv.h>

#include "core/dlist.h"
#include "engine/pace.h"

struct closing;
typedef void closing_fn(struct closing *c);

/* A close to do, inside its owner (container_of gets it back). */
struct closing {
    struct dlist_node in_line;
    closing_fn *fn; /* closes the owner's socket */
};

struct closer {
    uv_idle_t pass;     /* running while closes wait: each pass closes some */
    struct dlist queue; /* the closes waiting, oldest first */
    struct pace pace;   /* closes done in this pass, and their cost */
};

/* Starts c empty on loop, with a whole budget. */
void closer_init(uv_loop_t *loop, struct closer *c);
/* A new loop pass: the budget is whole again. */
void closer_new_pass(struct closer *c);
/* Runs fn(x) now when nothing waits and the pass's budget allows it, else
 * queues x behind the closes waiting, for later passes. */
void closer_close(struct closer *c, struct closing *x, closing_fn *fn);
/* Whether closes wait in the queue (new connects wait for them). */
int closer_is_busy(const struct closer *c);
/* How many closes wait in the queue. */
size_t closer_waiting(const struct closer *c);
/* Does every waiting close now, then closes c's handle (the worker's end). */
void closer_close_all(struct closer *c);

#endif
