/*
 * signals: how brink's front ends (run, demo, replay) learn of Ctrl-C,
 * SIGTERM and SIGHUP. The handlers only count; the main thread reads the
 * counts between draws or ticks. SIGPIPE is ignored: a closed socket or
 * pipe is an error to report, never a reason to die.
 */
#ifndef BRINK_SIGNALS_H
#define BRINK_SIGNALS_H

#include <signal.h>

/* SIGINT and SIGTERM (and SIGHUP) received so far: the first stop drains,
 * the second aborts. */
extern volatile sig_atomic_t signals_stops;
/* Set by SIGHUP: the terminal is gone. */
extern volatile sig_atomic_t signals_hangup;

/* Installs the handlers. An inherited SIG_IGN for SIGHUP (nohup, a shell
 * that keeps its jobs at logout) is kept: the operator asked to survive the
 * logout, and the console still sees its terminal hang up. Main thread,
 * before any other thread starts. */
void signals_install(void);

#endif
