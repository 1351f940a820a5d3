/*
 * metrics: brink run's live figures for Prometheus (--metrics-listen). A
 * sink of the tick stream: the thread that takes the ticks (the console's,
 * or the headless loop) folds each into the state (metrics/expo.h) under a
 * lock held for the fold only; the server's one thread (metrics/serve.h)
 * serves GET /metrics, copying the state under the same lock and rendering
 * it outside it. The engine's threads never touch it, so a slow or hostile
 * scraper cannot slow the load. Memory is fixed: one state, a scratch
 * histogram, and at most SERVE_CONNECTIONS connections, each rendering a
 * bounded text.
 */
#ifndef BRINK_METRICS_METRICS_H
#define BRINK_METRICS_METRICS_H

#include <stddef.h>
#include <stdint.h>

struct metrics;
struct tick;

/*
 * Listens on addr (ADDR:PORT, as brink target's --listen: an IPv4 literal,
 * [IPv6] or localhost; port 0 picks a free one) and starts the server
 * thread. Every sample served carries run_id as its run label (its secrets
 * redacted, escaped: expo_set_run): the run's session name, so that a
 * series leads to its session and two runs are two series. url gets
 * "http://ADDR:PORT" with the port bound. Returns 0, or
 * -EINVAL (addr is not ADDR:PORT) or a negative errno from the socket or
 * the server, with err holding the whole line ("brink: --metrics-listen:
 * ..."). Call before the engine's threads start.
 */
int metrics_start(const char *addr, const char *run_id, char *url, size_t url_cap, char *err,
                  size_t err_len, struct metrics **out);

/* Folds t into the figures served. Called by the one thread that takes the
 * ticks; t is borrowed. */
void metrics_add_tick(struct metrics *m, const struct tick *t);

/*
 * After the last tick: waits until a scrape has read the final figures (a
 * response rendered after the tick in state RUN_DONE, or after this call,
 * sent whole), at most linger_ms (0 does not wait). Returns 0 when one did
 * (or linger_ms is 0), -ETIMEDOUT when none came.
 */
int metrics_linger(struct metrics *m, uint64_t linger_ms);

/* Stops the server (its thread joins) and frees m; NULL is a no-op. */
void metrics_stop(struct metrics *m);

#endif
