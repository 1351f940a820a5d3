/*
 * tickmerge: one tick made of several sources' ticks of the same interval,
 * exactly: the load of several agents, or sessions recorded apart and
 * reported together. Counts add, histograms merge bucket by bucket (a merged
 * p99 is the p99 of the union of the requests, never an average of p99s),
 * and the run-so-far figures come from histograms the merge keeps across
 * calls, so a merged stream reads like one run.
 *
 * What each field becomes:
 * - seq, start_us, plan and model: the first source's (the sources follow
 *   one schedule); duration_us: the longest; is_restart: any source's.
 * - state: done once every source is done, else the least advanced state
 *   of the others (a starting source keeps the merge starting).
 * - transport and http_version: the common value, "mixed" when they differ.
 * - bound: the latest end, the sum of the request limits and of the
 *   requests completed.
 * - users, rates, in flight, connections, caps, schedule counts, dropped,
 *   aborted, bodies cut, file descriptors: sums; loop and schedule lags:
 *   the worst.
 * - request kinds: by name, in order of first appearance; kinds beyond
 *   TICK_MAX_KINDS are left out of the kinds (the total still counts them)
 *   and counted in tick_merge_kinds_dropped.
 * - first errors: the first source's message per class that has one.
 * - statuses: summed by code (past TICK_MAX_STATUS rows into status_other).
 * - probes: by name; where several sources sampled one, the latest sample.
 * - events: every source's, in time order (a stable merge), past
 *   TICK_MAX_EVENTS counted in events_dropped.
 * A source kind with requests but no histogram (a damaged line) adds its
 * counts but no latencies; tick_merge_hist_gaps counts such kinds.
 */
#ifndef BRINK_CORE_TICKMERGE_H
#define BRINK_CORE_TICKMERGE_H

#include <stddef.h>
#include <stdint.h>

struct tick;
struct tick_merge;

/* A merge of a new stream. Aborts through xcalloc when memory runs out. */
struct tick_merge *tick_merge_new(void);
/* Releases m; tick_merge_free(NULL) is a no-op. */
void tick_merge_free(struct tick_merge *m);

/* The merged tick of src[0..n) (n >= 1, each a tick of the same interval,
 * none NULL), with the run figures of every tick merged so far; the caller
 * owns it. Ticks from a stream must be passed in order. */
struct tick *tick_merge_next(struct tick_merge *m, const struct tick *const *src, size_t n);

/* Source kinds left out of merged ticks because TICK_MAX_KINDS names were
 * in use: one per source kind and tick. */
uint64_t tick_merge_kinds_dropped(const struct tick_merge *m);
/* Source kinds (and phases) whose requests had no readable histogram. */
uint64_t tick_merge_hist_gaps(const struct tick_merge *m);

#endif
