/* The merger (merger.c): workers' intervals in, ticks out. */
#ifndef BRINK_ENGINE_MERGER_H
#define BRINK_ENGINE_MERGER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/tick.h"
#include "engine/interval.h"

struct board;
struct chan;
struct workload;

/* The names a scenario run's requests give their kinds, in the order
 * first seen (scene.c adds them, the merger reads them): each name is
 * written before n counts it. */
struct kind_names {
    atomic_uint n;
    char names[TICK_MAX_KINDS][TICK_NAME_MAX];
};

/* The merger: collects each worker's interval k and publishes tick k once
 * all running workers have delivered it. Thread-safe. */
struct merger;
/* names: a scenario run's request kinds (their names come as the script
 * makes them, at most TICK_MAX_KINDS), NULL: wl's. */
struct merger *engine__merger_new(uint32_t n_workers, const struct workload *wl,
                                  const struct kind_names *names, struct chan *ch,
                                  uint64_t tick_ns);
void engine__merger_free(struct merger *m);
/* Worker w delivers its interval; is_final marks its last one. */
void engine__merger_submit(struct merger *m, uint32_t w, const struct interval *iv, int is_final);
/* An event for the next tick published. */
void engine__merger_event(struct merger *m, enum event_kind kind, uint64_t at_ns, const char *text);
void engine__merger_set_fds_limit(struct merger *m, uint32_t limit);
/* The transport's name shown in every tick; name must outlive m. */
void engine__merger_set_transport(struct merger *m, const char *name);
/* Each tick gets a copy of the probes' board (NULL: none). Before the
 * workers start. */
void engine__merger_set_board(struct merger *m, struct board *b);
/* Each tick says where the run ends (struct tick_bound): end_us after its
 * start, after requests requests; 0 for no such bound. Before the workers
 * start. */
void engine__merger_set_bound(struct merger *m, uint64_t end_us, uint64_t requests);
/* fn sees every tick after it is built, before it is published, under the
 * merger's lock: it may stamp fields and add events. Before the workers
 * start. */
void engine__merger_set_observer(struct merger *m, void (*fn)(void *arg, struct tick *t),
                                 void *arg);
/* Run state shown in ticks (running, paused, stopping). */
void engine__merger_set_state(struct merger *m, enum run_state state, uint32_t target_concurrency);
/* The run's stop began at at_ns (since the run started); the first call counts. */
void engine__merger_set_stop(struct merger *m, uint64_t at_ns);
/* The load model shown in ticks, with the open model's rate and cap. */
void engine__merger_set_load(struct merger *m, enum load_model model, double rate_per_s,
                             uint32_t max_in_flight);
/* Requests completed per second in the last tick published (0 before the
 * first): where a switch to the open model starts when no rate was set. */
double engine__merger_last_rate(struct merger *m);

#endif
