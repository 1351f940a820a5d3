/*
 * engine: makes the load. Worker threads, each one libuv loop driving one
 * transport (libcurl's multi handle, or brink's own HTTP/1.1 client), run
 * virtual users (closed model) or a fixed arrival rate (open model, latency
 * from each request's intended start) against the workload of a config,
 * apply the commands that arrive through the channel within one tick, and
 * publish one merged tick per interval. Never touches curses. engine_start,
 * engine_join and engine_free are for the thread that owns the channel
 * (main); everything else happens on the engine's threads.
 */
#ifndef BRINK_ENGINE_ENGINE_H
#define BRINK_ENGINE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

struct board;
struct chan;
struct config;
struct engine;

#define ENGINE_DRAIN_MS 5000      /* how long a stop waits for requests in flight */
#define ENGINE_RATE_MIN_PER_S 0.1 /* the open model's rate is clamped to this range */
#define ENGINE_RATE_MAX_PER_S 1e7

/* Process-wide set-up: libcurl's global init. Call once from main before any
 * thread starts (libcurl's init is not thread-safe). Returns 0 or -EIO with
 * one line in err. */
int engine_global_init(char *err, size_t err_len);
void engine_global_cleanup(void);

/* The libraries the engine runs on, as they report their versions at run
 * time (brink --version): static strings; any thread. */
struct engine_versions {
    const char *curl;    /* "8.0.1" */
    const char *uv;      /* "1.44.2" */
    const char *openssl; /* "3.0.15" */
};
void engine_versions(struct engine_versions *v);

struct engine_params {
    const struct config *config; /* borrowed; must outlive the engine */
    struct chan *chan;           /* borrowed; ticks out, commands in */
    uint64_t seed;               /* workload randomness ({rand}, {uuid}, the mix) */
    struct board *board;         /* borrowed or NULL: probes' samples copied into each tick */
    uint64_t start_ns;           /* clock_now_ns() the run's times count from; 0: at start */
    int start_ramp;              /* start the [ramp] plan at once (brink run --ramp) */
    int no_plan;                 /* another judges the [ramp] plan (an agent's coordinator):
                                  * no plan, no detections; CMD_RAMP* are ignored */
};

/*
 * Raises the soft RLIMIT_NOFILE to the hard one, checks that the configured
 * concurrency fits in it, compiles the workload and starts the worker
 * threads, which start the load at once. Signals should be blocked in the
 * calling thread while this runs, so the workers inherit a blocked mask.
 * Returns 0 and *out, or a negative errno with one line in err (nothing is
 * left running): -ENOEXEC when the [scenario] script failed before the
 * load (a syntax error, an error or a limit at its top level or in
 * setup(): the script ran, the run did not); -EINTR when a stop
 * interrupted it.
 */
int engine_start(const struct engine_params *p, char *err, size_t err_len, struct engine **out);

/*
 * Waits until the run is over: the duration or request count was reached,
 * or a CMD_STOP drained (a second CMD_STOP aborts what is still in flight).
 * When it returns, the last tick (state RUN_DONE) has been published and the
 * channel is closed.
 */
void engine_join(struct engine *e);

/* Frees a joined engine; engine_free(NULL) is a no-op. */
void engine_free(struct engine *e);

#endif
