/*
 * signals: how brink's front ends (run, demo, replay, agent) learn of
 * Ctrl-C, SIGTERM and SIGHUP. One thread of its own takes them (sigwait),
 * so a stop is seen whatever the other threads are doing: it counts the
 * stops for the main thread to read between draws or ticks, and, when a
 * stop is not honoured within the grace the front end set, ends the process
 * itself through the front end's last-resort function. SIGPIPE is ignored:
 * a closed socket or pipe is an error to report, never a reason to die.
 */
#ifndef BRINK_CORE_SIGNALS_H
#define BRINK_CORE_SIGNALS_H

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

/* SIGINT and SIGTERM (and SIGHUP) received so far: the first stop drains,
 * the second aborts. Atomic: the signal thread writes them, the others
 * read them. */
extern atomic_int signals_stops;
/* Set by SIGHUP: the terminal is gone. */
extern atomic_int signals_hangup;

/* What a stop also does, on whatever thread takes the signal (a handler,
 * perhaps): async-signal-safe. */
typedef void signals_stop_fn(void);

/* Sets what every stop (SIGINT, SIGTERM, SIGHUP) also calls: main's
 * script_interrupt_all, so that a script that never yields hears it. Main
 * thread, before signals_install; NULL: nothing. */
void signals_on_stop(signals_stop_fn *fn);

/* Ends the process (it must not return): runs on the signal thread, while
 * the main thread may be stuck anywhere, so it touches only what is safe
 * to reach from there (see cmd/run.c's last_resort). */
typedef void signals_end_fn(void *arg);

/* Blocks SIGINT, SIGTERM and SIGHUP in the calling thread (and so in every
 * thread started after it) and starts the thread that takes them. An
 * inherited SIG_IGN for SIGHUP (nohup, a shell that keeps its jobs at
 * logout) is kept: the operator asked to survive the logout, and the
 * console still sees its terminal hang up. Main thread, before any other
 * thread starts; a second call does nothing. */
void signals_install(void);

/*
 * Arms the last resort: if the stops are not done with (signals_disarm)
 * within grace_ms of the first stop, fn(arg) runs on the signal thread.
 * A call after the first stop counts the new grace from that stop too, so a
 * run that moves from its set-up to its load can widen the grace. Any
 * thread.
 */
void signals_arm(uint64_t grace_ms, signals_end_fn *fn, void *arg);

/* The run has ended (its session is closed): the last resort no longer
 * fires. Any thread. */
void signals_disarm(void);

#endif
