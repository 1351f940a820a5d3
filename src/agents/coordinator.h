/*
 * coordinator: the source of ticks of `brink run --agents` (docs/agents.md).
 * Starts one `brink agent` per host over ssh, ships it the experiment with
 * its share of the load, starts them together, merges their ticks of each
 * interval exactly (core/tickmerge.h) into the channel, records each
 * agent's own ticks, and passes the console's commands on to every agent,
 * split where a command names an amount. coord_start, coord_join and
 * coord_free are for the main thread; the rest runs on the coordinator's
 * own thread.
 */
#ifndef BRINK_AGENTS_COORDINATOR_H
#define BRINK_AGENTS_COORDINATOR_H

#include <stddef.h>
#include <stdint.h>

struct board;
struct chan;
struct config;
struct config_override;
struct coord;
struct tick;

/* How long the agents have to say they are ready. */
#define COORD_READY_TIMEOUT_MS 30000
/* An agent whose tick is this many ticks late is lost (with the tick
 * being waited for, three ticks). */
#define COORD_LOST_TICKS 2

struct coord_params {
    const struct config *config;             /* borrowed; outlives the coordinator */
    const char *config_path;                 /* the experiment file, NULL: none */
    const struct config_override *overrides; /* brink run's options, shipped as they are */
    size_t n_overrides;
    uint64_t seed;
    int start_ramp;
    struct chan *chan;   /* merged ticks out, commands in */
    struct board *board; /* the probes' samples copied into merged ticks; may be NULL */
    /* Each agent's own tick (t->agent set) as it comes, before the merge:
     * the command records it. Called on the coordinator's thread, t
     * borrowed for the call; NULL: not wanted. */
    void (*on_agent_tick)(void *arg, const struct tick *t);
    void *on_agent_tick_arg;
};

/*
 * Starts the agents and waits until every one is ready (at most
 * COORD_READY_TIMEOUT_MS), estimates their clocks, starts them together
 * and the thread that follows them. Returns 0 and *out, or the exit status
 * (2: a refused config or protocol, 1: an agent that could not start) with
 * one line in err naming the host and what it said, or -EINTR when a stop
 * (core/signals.h) came before every agent was ready; no agent is left running
 * then.
 */
int coord_start(const struct coord_params *p, char *err, size_t err_len, struct coord **out);

/* Waits until every agent has ended or is lost and the channel is closed. */
void coord_join(struct coord *c);

/* After coord_join: BRINK_EXIT_RUNTIME, with err saying which agent ended
 * and what it said, when no agent ran the load (each ended at its start: a
 * script's setup failed there, a file it needs was not shipped); else 0. */
int coord_failed(const struct coord *c, char *err, size_t err_len);

/* Ends what is still running (agents get SIGTERM, then SIGKILL) and frees
 * c; coord_free(NULL) is a no-op. */
void coord_free(struct coord *c);

/* Splits total into n shares in proportion to weights (NULL: equal), by
 * largest remainder: the shares add up to total. Pure. */
void coord_split(uint64_t total, const double *weights, size_t n, uint64_t *shares);

#endif
