/*
 * chan: the only object the engine and the console share. Ticks flow from
 * the engine to the console in order through a bounded queue; commands flow
 * back through a bounded ring, and a wake function registered by the engine
 * (it calls uv_async_send, safe from any thread) tells the loop to drain it.
 * Every function is safe from any thread. main creates the channel before
 * either thread starts and frees it after both have joined.
 */
#ifndef BRINK_CORE_CHAN_H
#define BRINK_CORE_CHAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/command.h"

struct tick;
struct chan;

typedef void chan_wake_fn(void *arg);

#define CHAN_TICKS_DEFAULT 256   /* ticks queued before publish drops */
#define CHAN_COMMANDS_DEFAULT 64 /* commands queued before send refuses */

/* A channel holding up to max_ticks ticks and max_commands commands (both
 * at least 1). Aborts on exhaustion. */
struct chan *chan_new(size_t max_ticks, size_t max_commands);
/* Frees ch with every tick still queued; chan_free(NULL) is a no-op. Only
 * after both sides have stopped using it. */
void chan_free(struct chan *ch);

/*
 * Engine side. Publishes t, taking ownership: the tick is queued behind the
 * others, or, when the queue is full (a stalled console), freed and counted
 * as dropped. Returns 0, or -ENOBUFS when it was dropped, or -EPIPE after
 * chan_close. Never blocks on the consumer.
 */
int chan_publish(struct chan *ch, struct tick *t);
/* Engine side: no more ticks will come; takers see the end once the queue
 * is empty. */
void chan_close(struct chan *ch);

/* Console side. The oldest queued tick (the caller owns and frees it), or
 * NULL when none is queued. */
struct tick *chan_take(struct chan *ch);
/* Like chan_take, but waits up to timeout_ms for a tick. NULL on timeout or
 * when the channel is closed and empty (chan_is_done tells which). */
struct tick *chan_take_wait(struct chan *ch, unsigned timeout_ms);
/* True once chan_close was called and every tick has been taken. */
int chan_is_done(struct chan *ch);
/* Ticks dropped because the queue was full, since the channel was made. */
uint64_t chan_dropped(struct chan *ch);

/* Console side: copies cmd into the ring and calls the wake function.
 * Returns 0, or -EAGAIN when the ring is full (nothing queued). */
int chan_send(struct chan *ch, const struct command *cmd);
/* Engine side: fn(arg) is called by every chan_send after queueing; NULL
 * removes it. Set before the console starts sending. */
void chan_set_wake(struct chan *ch, chan_wake_fn *fn, void *arg);
/* Engine side: moves the oldest command into *cmd. Returns 1, or 0 when
 * none is queued. The wake is coalesced by libuv, so drain until 0. */
int chan_recv(struct chan *ch, struct command *cmd);

#endif
