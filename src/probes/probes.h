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
#ifndef PROG_PROBES_PROBES_H
#define PROG_PROBES_PROBES_H

#include <stddef.h>
#include <stdint.h>

struct board;
struct config;
struct probes;

struct probes_params {
    const struct config *config; /* borrowed; must outlive the probes */
    struct board *board;         /* borrowed; the probes' names are added to it */
    uint64_t start_ns;           /* clock_now_ns() of the run's start: times are since then */
    int allow_commands;          /* 0: type = command probes are refused (see probes_check) */
};

/*
 * Checks what probes_start would refuse, without starting anything:
 * command probes when the config file (path, NULL for a built-in config) is
 * writable by its group or by others, or not owned by the user running
 * brink (someone else could make brink run their command), or when
 * allow_commands is 0. Returns 0, or -EPERM with one line in err naming the
 * file, the probe and the fix.
 */
int probes_check(const struct config *c, const char *path, int allow_commands, char *err,
                 size_t err_len);

/*
 * Compiles every probe (selectors, patterns), adds its series to the board
 * (pending) and starts the probe thread, which samples each probe at once
 * and then on its interval. With no probe configured it starts nothing and
 * *out is NULL. Signals should be blocked in the calling thread while this
 * runs. Returns 0, or a negative errno with one line in err (nothing left
 * running).
 */
int probes_start(const struct probes_params *p, char *err, size_t err_len, struct probes **out);

/* Stops sampling (fetches and commands in progress are aborted or killed),
 * joins the thread and frees everything. probes_stop(NULL) is a no-op. */
void probes_stop(struct probes *ps);

#endif
