/*
 * command: what the console (or a plan) asks the engine to do. Plain data,
 * copied through the channel's command ring; the engine applies each within
 * one tick, clamps what is out of range and says so in an EV_COMMAND event.
 */
#ifndef BRINK_CORE_COMMAND_H
#define BRINK_CORE_COMMAND_H

#include <stddef.h>
#include <stdint.h>

#define CMD_NOTE_MAX 128

enum cmd_kind {
    CMD_SET_CONCURRENCY, /* n: the exact number of virtual users */
    CMD_STEP,            /* n: add n steps (negative: remove) */
    CMD_DOUBLE,          /* twice the current concurrency */
    CMD_HALVE,           /* half of it, at least 1 */
    CMD_PAUSE,           /* no new requests; those in flight finish */
    CMD_RESUME,
    CMD_DROP,      /* n: abort n transfers in flight mid-stream */
    CMD_MARK,      /* note: a mark in the record */
    CMD_STOP,      /* drain, then end the run (a replay: end it) */
    CMD_SET_RATE,  /* rate_per_s: the open model's arrival rate */
    CMD_SET_MODEL, /* n: LOAD_CLOSED or LOAD_OPEN, or CMD_MODEL_SWITCH */
    CMD_RAMP,      /* start the [ramp] plan, resume it when paused, stop it when running */
    CMD_RAMP_NEXT, /* end the plan's current step now and move on */
    /* Replay only (a live engine ignores them): */
    CMD_REPLAY_PAUSE, /* play or pause */
    CMD_REPLAY_SEEK,  /* n: move by n ms of the session (negative: back) */
    CMD_REPLAY_SPEED, /* n: +1 twice as fast, -1 half as fast */
    CMD_REPLAY_EVENT, /* n: +1 to the next tick with events, -1 to the previous */
    CMD__COUNT
};

#define CMD_MODEL_SWITCH (-1) /* CMD_SET_MODEL: the other model than the current one */
#define COMMAND_RATE_MAX 1e7  /* requests per second a rate command may ask for */

struct command {
    enum cmd_kind kind;
    int64_t n;               /* for SET_CONCURRENCY, STEP, DROP, SET_MODEL and the replay moves */
    double rate_per_s;       /* for SET_RATE: positive */
    char note[CMD_NOTE_MAX]; /* for MARK; NUL-terminated */
};

/* Stable lower-case name ("set_concurrency"); "?" when out of range. */
const char *cmd_kind_name(enum cmd_kind k);

/*
 * Parses one line of the text command language (what `brink run` reads on
 * its standard input, one command a line):
 *   concurrency N | = N      set the number of virtual users
 *   step [N] | + | -         add N steps (- removes one)
 *   double | ]   halve | [   twice or half the concurrency
 *   pause | p    resume | r
 *   drop N | d N             abort N transfers in flight
 *   mark TEXT | m TEXT       a mark with a note in the record
 *   stop | q                 drain and end the run
 *   rate N[/s]               the open model's arrival rate, requests per second
 *   model [open|closed] | o  switch to that load model (alone: to the other one)
 *   ramp                     start, resume or stop the [ramp] plan
 *   next                     end the plan's current step now
 * Under the open model the engine reads step, double, halve and = as rate
 * changes.
 * Blank lines and lines starting with # hold no command. Returns 1 and *out,
 * 0 for no command, or -EINVAL with one line in why (why_len bytes). Pure.
 */
int command_parse(const char *line, struct command *out, char *why, size_t why_len);

#endif
