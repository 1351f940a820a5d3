/* Scenario scripts on the engine (scene.c). */
#ifndef BRINK_ENGINE_SCENE_H
#define BRINK_ENGINE_SCENE_H

#include <stddef.h>
#include <stdint.h>

struct engine;
struct kind_names;
struct scene_kinds;
struct slot;
struct transfer_result;
struct worker;

/* scene.c: scenario scripts on the engine. */
/* Loads e->config's script and sets it up (main thread, before the
 * workers): -EINVAL with "FILE:LINE: why" in err for a syntax error. */
int engine__scene_init(struct engine *e, char *err, size_t err_len);
void engine__scene_free(struct engine *e);
/* The names of the request kinds its script makes, for the merger; NULL
 * when the run has no script. */
const struct kind_names *engine__scene_names(const struct engine *e);
/* The run will stop at deadline_ns (clock_now_ns): a script still running
 * then is stopped within 10 ms, even on a worker whose loop it holds (a
 * stop now is control.c's). No-op without a script. Any thread. */
void engine__scene_set_deadline(struct engine *e, uint64_t deadline_ns);
/* The worker's state and the slot's user (main thread, before the worker
 * runs, or the worker's). */
int engine__scene_worker_init(struct worker *w, char *err, size_t err_len);
void engine__scene_worker_free(struct worker *w);
void engine__scene_slot_init(struct slot *s);
void engine__scene_slot_free(struct slot *s);
/* engine__slot_start for a scenario run: the user's iteration goes on
 * (or a new one begins) until it sends a request or sleeps. Returns 0, or
 * -EAGAIN when no request may start (limit reached). */
int engine__scene_start(struct slot *s, uint64_t intended_ns);
/* Before engine__slot_done judges the reply to the request of s: its
 * Set-Cookie lines go into the jar, its Location is where a redirect goes
 * (when the request follows redirects). */
void engine__scene_take_head(struct slot *s, const struct transfer_result *r);
/* The next hop of the script's request of s, after engine__slot_done's
 * follow moved s->redirect on: its URL, method, body and lines (the jar's
 * cookies, a new signature). Returns 0, or -EINVAL with why when it cannot
 * be sent (h1 and another origin). */
int engine__scene_hop(struct slot *s, char *why, size_t why_len);
/* After engine__slot_done counted the request of s: the script gets the
 * reply (status, or cls's name when it failed) and goes on. */
void engine__scene_reply(struct slot *s, const struct transfer_result *r, int cls,
                         uint64_t latency_us);
/* Copies the worker's checks and counters into its interval and starts
 * them over (at the interval's end). */
void engine__scene_interval_end(struct worker *w);

#endif
