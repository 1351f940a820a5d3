/*
 * What the coordinator's files share (coordinator.c runs the handshake,
 * the merge and the lifetime; coord_agents.c an agent's process and its
 * pipes; coord_experiment.c what every agent is sent and its share of the
 * load; coord_plan.c the [ramp] plan, judged on the merged ticks;
 * coord_lost.c a lost agent's share and what it may have done). Not for
 * use outside them.
 */
#ifndef BRINK_AGENTS_COORD_INTERNAL_H
#define BRINK_AGENTS_COORD_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agents/agent.h"
#include "config/config.h"
#include "core/linebuf.h"
#include "core/tick.h"
#include "agents/coordinator.h"
#include "record/wire.h"

struct ramp;

#define MAX_WORDS 64         /* words of the ssh and brink commands together */
#define QUEUE_TICKS 8        /* ticks an agent may be ahead of the merge */
#define LINE_SLACK 4096      /* an agent's line: a tick of RECORD_LINE_MAX, and this */
#define START_LEAD_MS 300    /* from the start message to the run's start */
#define PING_EVERY_MS 250    /* round trips for the clocks, and a sign of life */
#define PINGS_BEFORE_START 4 /* round trips before the offsets are trusted */
#define SEND_TIMEOUT_MS 1000 /* a message an agent cannot take in this long: lost */
#define KILL_GRACE_MS 3000   /* after SIGTERM, before SIGKILL */
#define STDERR_KEEP 200      /* bytes of an agent's last stderr line kept */
/* An agent cut off on a link that hangs hears no ping: it stops after
 * AGENT_SILENCE_MS, and ends what is in flight within 2 s more. */
#define LOST_RUNS_ON_MS (AGENT_SILENCE_MS + 2000)

enum agent_phase { PH_HELLO, PH_READY, PH_RUNNING, PH_DONE, PH_LOST };

struct agent {
    char name[TICK_NAME_MAX];
    double weight;
    pid_t pid;
    int fd_in, fd_out, fd_err; /* its stdin (ours to write), stdout, stderr; -1 closed */
    struct linebuf out, err;
    char last_err[STDERR_KEEP]; /* its last stderr line, raw */
    enum agent_phase phase;
    char brink[32]; /* its version, from hello */
    struct wire_clock clock;
    uint64_t ping_ns; /* when the last ping left */
    struct tick *queue[QUEUE_TICKS];
    size_t n_queued;   /* ticks of seq next, next+1, ... in order */
    struct tick *last; /* its latest tick merged, for its row */
    /* Its row of the latest merged tick that had a tick of it: that tick's
     * end, its completions per second over it and its in flight (what the
     * reports read of a lost agent, so the event says the same). */
    int has_row;
    uint64_t row_end_us;
    double row_rate_per_s;
    uint32_t row_in_flight;
    int has_ended;          /* its done tick was merged */
    int has_sent_done;      /* its done tick came: the link may close */
    int has_ticked;         /* a tick of its run came: it ran */
    uint64_t lost_at_us;    /* PH_LOST: when, µs since the run's start */
    uint64_t lost_until_us; /* until when it may have sent requests (see lose) */
    int has_said_gap;       /* the event on what it may have done after its last tick is out */
    char lost_why[320];     /* lost for what it sent: why (a refused tick, ...) */
};

struct coord {
    const struct coord_params *p;
    struct coord_params params;
    uint32_t n;
    struct agent agents[CONFIG_MAX_AGENTS];
    int wake[2]; /* chan_send writes a byte: commands wait */
    pthread_t thread;
    int has_thread;
    uint64_t start_ns; /* the run's start on our clock */
    uint64_t tick_ns;
    uint64_t next_seq; /* the merged tick to make next */
    struct tick_merge *merge;
    struct tick *pending_events; /* our own events for the next merged tick */
    uint64_t last_ping_ns;
    /* The run's total level as last set (by the plan, a key, a command):
     * what the agents left share when one is lost. */
    double want_users;
    double want_rate;
    int needs_resplit; /* an agent was lost: its share goes to the others */
    int is_stopping;   /* a stop went out: the loads end, nothing is re-split */
    int is_open_model;
    struct ramp *ramp;    /* the plan, judged here on the merged ticks */
    int has_first_level;  /* --ramp: the agents start at the first step's level, */
    double first_level;   /* split by the weights */
    int has_plan_stopped; /* the plan ended the run: its stop went out */
    int is_paused;        /* the agents were sent a pause and no resume since */
};

/* ---- coordinator.c */

/* Sends cmd to every running agent; a concurrency, rate or drop is the
 * run's total, split by the weights (at least one user each). */
void agents__send_split(struct coord *c, const struct command *cmd);

/* An event of the coordinator's at at_ms: into t, or (t NULL) into the
 * next merged tick. */
void agents__add_event_at(struct coord *c, struct tick *t, enum event_kind kind, uint64_t at_ms,
                          const char *text);

/* ---- coord_lost.c: a lost agent */

/* The run's total level after cmd is sent (want_users, want_rate), and
 * whether it stops the run. */
void agents__note_level(struct coord *c, const struct command *cmd);
/* The run's level split again over the agents still running (after a
 * loss), with an event; not once the run stops, nor when none is left. */
void agents__resplit(struct coord *c);
/* Lost agent a: what it may have done after its last tick in the merge,
 * as an event in t (NULL: the next merged tick). */
void agents__say_gap(struct coord *c, struct agent *a, struct tick *t);

/* ---- coord_plan.c: the [ramp] plan */

/* The plan of the config, started when brink run --ramp asked (before the
 * agents get their shares: the first step's level is their start). */
void agents__plan_init(struct coord *c);
void agents__plan_free(struct coord *c);
/* Judges merged tick t (its figures final, before it is published): stamps
 * its plan state and detections, and sends what the plan asks next. */
void agents__plan_tick(struct coord *c, struct tick *t);
/* The console's ramp keys (taken: 1), and manual changes, which pause the
 * plan (0: the caller still sends them). */
int agents__plan_command(struct coord *c, const struct command *cmd);

/* ---- coord_agents.c: an agent's process and pipes */

/* Sends m as one line within SEND_TIMEOUT_MS; -EPIPE once the link is gone. */
int agents__send_msg(struct agent *a, const struct wire_msg *m);

/* Starts `SSH... HOST BRINK... agent` with its stdin, stdout and stderr
 * pipes ours. 0, or the exit status with err set. */
int agents__spawn_agent(const struct config *cfg, struct agent *a, char *err, size_t err_len);

void agents__close_fd(int *fd);

/* Reads what the agent's stderr has (its last line kept); stops at its end. */
void agents__read_stderr(struct agent *a);

/* What the agent said last on stderr, sanitised, for a message: buf. */
const char *agents__said(const struct agent *a, char *buf, size_t cap);

/* Its exit, if it has ended: a->pid becomes 0. */
void agents__reap(struct agent *a, int *status);

/* Whether an agent's tick t can be merged: its outcomes (ok and failed by
 * class) are at most its completed requests, in the total and each kind.
 * 0, or -EINVAL with why ("kind home: 9 ok and 0 failed of 5 completed"). */
int agents__check_tick(const struct tick *t, char *why, size_t why_len);

/* ---- coord_experiment.c: what the agents are sent */

/* w[i] = agent i's weight; returns w. */
const double *agents__weights_of(const struct coord *c, double *w);

/* The configuration every agent gets: the file, its files, the command line. */
int agents__build_config(const struct coord *c, struct wire_msg *m, char *err, size_t err_len);

/* Agent i's share appended to m's overrides; agents__drop_share removes
 * what was added past n_base. */
int agents__add_share(const struct coord *c, uint32_t i, struct wire_msg *m, char *err,
                      size_t err_len);
void agents__drop_share(struct wire_msg *m, uint32_t n_base);

#endif
