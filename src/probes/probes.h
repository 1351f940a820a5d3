/*
 * probes: the server's own counters on the load's timeline. One thread with
 * its own libuv loop samples every [probe NAME] of the config on its
 * interval (HTTP fetches run in libuv's thread pool, commands through
 * uv_spawn), so a slow or dead stats endpoint never delays a request, and
 * writes each sample or failure to the board, which the engine copies into
 * its ticks. Probe traffic is never counted in the load's statistics.
 * Never touches curses. probes_start and probes_stop are for the thread
 * that owns the run.
 */
#ifndef BRINK_PROBES_PROBES_H
#define BRINK_PROBES_PROBES_H

#include <stddef.h>
#include <stdint.h>

struct board;
struct config;
struct probes;

/* Which of the config's probes run here ([probe] on). */
enum probes_which {
    PROBES_ALL,         /* every one: a run without agents */
    PROBES_COORDINATOR, /* on = coordinator: the coordinator of a run with agents */
    PROBES_AGENTS,      /* on = agents: brink agent */
};

struct probes_params {
    const struct config *config; /* borrowed; must outlive the probes */
    enum probes_which which;     /* default PROBES_ALL */
    struct board *board;         /* borrowed; the probes' names are added to it */
    uint64_t start_ns;           /* clock_now_ns() of the run's start: times are since then */
    int allow_commands;          /* 0: type = command probes are refused (a replay) */
};

/*
 * Refuses command probes when allow_commands is 0, or when the config file
 * can be written by its group or others or is not the user's (someone else
 * could make brink run their command). Then compiles every probe
 * (selectors, patterns), adds its series to the board (pending) and starts
 * the probe thread, which samples each probe at once and then on its
 * interval. With no probe configured it starts nothing and *out is NULL.
 * Signals should be blocked in the calling thread while this runs. Returns
 * 0, or a negative errno with one line in err and nothing left running
 * (-EPERM for a refused command probe).
 */
int probes_start(const struct probes_params *p, char *err, size_t err_len, struct probes **out);

/*
 * What probes_start refuses, without starting anything: the same command
 * check and the same compilation, with the same messages and codes (-EPERM
 * for a refused command probe). For `brink check`, which must refuse what
 * `brink run` would. Any thread.
 */
int probes_check(const struct config *c, int allow_commands, char *err, size_t err_len);

/* Stops sampling (fetches and commands in progress are aborted or killed),
 * joins the thread and frees everything. probes_stop(NULL) is a no-op. */
void probes_stop(struct probes *ps);

#endif
