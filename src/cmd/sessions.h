/*
 * sessions: where session files are and which is the newest. A run records
 * into [record] dir when it is set, else into the per-user state directory
 * ($XDG_STATE_HOME/brink/sessions, else ~/.local/state/brink/sessions);
 * `brink sessions` lists it and sessions/ of the working directory (where
 * earlier versions recorded), and "last" names the newest session wherever
 * a command takes a session file. Main thread only.
 */
#ifndef BRINK_CMD_SESSIONS_H
#define BRINK_CMD_SESSIONS_H

#include <stddef.h>

struct opts_table;

#define SESSIONS_DEFAULT_DIR "sessions" /* [record] dir as earlier versions had it */

/* The state directory's sessions folder into buf; with is_create, made
 * (and its parents, 0700) when missing. Returns 0, or a negative errno with
 * one line in err (no HOME, or a folder that cannot be made). */
int sessions_state_dir(char *buf, size_t cap, int is_create, char *err, size_t err_len);

/* argv[0] is "sessions". Exit status: 0, 1 when a folder cannot be read,
 * 2 for a usage error. */
int sessions_main(int argc, char **argv);

/*
 * For a command of table t that takes session files: every operand "last"
 * of argv (not the value of an option) is replaced by the path of the
 * newest session of the default folders. Returns 0, or the exit status
 * after a one-line message (no session found). The paths stay valid until
 * the process ends.
 */
int sessions_resolve_last(const struct opts_table *t, int argc, char **argv);

#endif
