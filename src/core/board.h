/*
 * board: the server counters' latest state, shared by the probes (which
 * write a sample or a failure whenever they have one) and the engine's
 * merger (which copies the whole board into each tick it publishes, so a
 * sample lands in the tick of the interval it was taken in, with its own
 * timestamp). Also carries the probes' events (alerts, state changes) to
 * the next tick. Every function is safe from any thread; names are added
 * before the threads start.
 */
#ifndef BRINK_CORE_BOARD_H
#define BRINK_CORE_BOARD_H

#include <stdint.h>

#include "core/tick.h"

#define BOARD_EVENTS 64 /* events held between two ticks; more are counted */

struct board;

/* An empty board. Aborts on exhaustion; board_free(NULL) is a no-op. */
struct board *board_new(void);
void board_free(struct board *b);

/* Adds a probe called name (cut to TICK_NAME_MAX - 1 bytes), pending.
 * Returns its index, or -ENOSPC past TICK_MAX_PROBES. Before any thread
 * uses the board. */
int board_add(struct board *b, const char *name);
/* How many probes were added. */
uint32_t board_count(struct board *b);

/* Probe side: replaces probe i's state with p (copied; p->name is ignored,
 * the board keeps the name it was added with). */
void board_set(struct board *b, uint32_t i, const struct tick_probe *p);
/* Probe side: queues an event for the next tick (text copied and cut);
 * when BOARD_EVENTS are already waiting it is counted as dropped. */
void board_event(struct board *b, enum event_kind kind, uint64_t at_ms, const char *text);

/* Engine side: copies every probe into t (n_probes, probes[]) and moves the
 * waiting events into it (those that do not fit are counted in
 * t->events_dropped, as are the ones the board dropped). */
void board_fill(struct board *b, struct tick *t);

#endif
