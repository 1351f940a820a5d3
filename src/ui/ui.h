/*
 * ui: the console. An ncurses front end that reads ticks from the channel,
 * shows throughput, latency, errors, server counters and events, and turns
 * keys into commands. It owns the terminal while it runs and never calls
 * libuv or libcurl. Every function here is for the main thread only: curses
 * is not thread-safe, and the signal handlers it installs restore the
 * terminal from that thread's state.
 */
#ifndef BRINK_UI_UI_H
#define BRINK_UI_UI_H

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct chan;
struct tick;
struct ui;

/* The version of ncurses brink runs with, as it reports it
 * ("6.4.20221231"); a static string. Needs no terminal. */
const char *ui_curses_version(void);

/* Called with every tick, in order, after the console has read it (the final
 * report and, later, the recorder feed on it). t is borrowed for the call. */
typedef void ui_tick_fn(void *arg, const struct tick *t);

/* A replay (brink replay): the console moves in time instead of steering a
 * load; its keys become CMD_REPLAY_* commands and q a CMD_STOP. */
struct ui_replay {
    uint64_t total_ms; /* the session's length, for the position bar */
};

struct ui_params {
    struct chan *chan;     /* borrowed: ticks in, commands out */
    const char *target;    /* what is loaded (secrets already redacted) */
    const char *recording; /* the session file, or NULL when not recording */
    /* The caller's text, "" while the recording is fine, read at each draw
     * (the caller changes it from on_tick, on this thread). May be NULL. */
    const char *recording_problem;
    const struct ui_replay *replay; /* NULL for a live run */
    ui_tick_fn *on_tick;            /* may be NULL */
    void *on_tick_arg;
    /* Set by the caller's signal thread: SIGINT/SIGTERM count (a first
     * stop drains, a second aborts) and SIGHUP (the terminal is gone). */
    atomic_int *stop_signals;
    atomic_int *hangup;
    uint64_t stop_grace_ms; /* after a stop, how long to wait for the engine */
};

enum ui_end {
    UI_END_DONE,   /* the engine closed the channel (run over or stopped) */
    UI_END_HANGUP, /* the terminal went away; the load was stopped */
    UI_END_STUCK,  /* the engine did not end within stop_grace_ms of a stop */
};

/*
 * Takes the terminal on stdin/stdout: checks TERM, opens it with newterm
 * (never initscr, which exits on a bad terminal), requires cursor
 * addressing, picks UTF-8 or ASCII glyphs from the locale's codeset and
 * colour or monochrome (NO_COLOR set and not empty, or no colours), sends
 * stderr to a temporary file until ui_close, and installs crash handlers
 * that restore the terminal and then chain to the previous handlers.
 * Returns 0 and *out, or -ENOTTY with one line in why (what the terminal
 * lacks) and the terminal untouched: the caller runs headless instead.
 */
int ui_open(struct ui **out, char *why, size_t why_len);

/*
 * Runs the console until the engine closes the channel: draws at most every
 * 100 ms and on every tick, key and resize; keys become commands (q sends a
 * stop and waits for the engine to drain). A hangup (SIGHUP, or the terminal
 * reporting a hang-up or EIO) stops the load at once (stop and abort) and
 * draws nothing more. Ticks are passed to on_tick even after a hangup.
 * Returns an enum ui_end.
 */
int ui_run(struct ui *ui, const struct ui_params *p);

/* Restores the terminal, writes what went to stderr meanwhile to the real
 * stderr, and frees ui. ui_close(NULL) is a no-op. */
void ui_close(struct ui *ui);

/* Puts back the terminal's saved modes and stderr (with what was written
 * to it meanwhile), as the crash handlers do, with async-signal-safe calls
 * only: for a thread that ends the process (_exit) while the main thread
 * may be stuck in curses. Does nothing when no console is open. Any
 * thread, once. */
void ui_restore_now(void);

#endif
