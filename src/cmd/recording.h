/*
 * recording: the session file of a run (see recording.c). Main thread
 * only, but for the pushes and recording_close, which say who else may
 * call them: the recorder's own thread does the writing.
 */
#ifndef BRINK_CMD_RECORDING_H
#define BRINK_CMD_RECORDING_H

#include <stddef.h>

struct config;
struct recording;
struct record_header_info;
struct tick;

/*
 * Starts recording the run of c into path, or, when path is NULL, into a
 * new file of [record] dir (default sessions/, created 0700). Nothing is
 * recorded (*out NULL, returns 0) when is_off is set, or path is NULL and
 * [record] enabled is no. run gives the header's start, command line and
 * URLs (borrowed for the call); the host and the config are added here.
 * Returns 0, or a negative errno with one line in err (an existing path is
 * never overwritten).
 */
int recording_start(const struct config *c, const struct record_header_info *run, const char *path,
                    int is_off, char *err, size_t err_len, struct recording **out);
/* Hands a copy of t to the recorder; never waits on the disk. r may be NULL. */
void recording_push(struct recording *r, const struct tick *t);
/* The same for an agent's own tick of a run with agents (t->agent set),
 * from the coordinator's thread: only the recorder's queue is touched. */
void recording_push_agent(struct recording *r, const struct tick *t);
/* The file, or NULL when not recording. */
const char *recording_path(const struct recording *r);
/* What names the run outside (the run label of --metrics-listen), into
 * buf: the session file's name without its folder and ".jsonl" (what
 * brink sessions lists and brink report takes), or, when r is NULL (not
 * recording), the name a new session file of this run would have had
 * (2026-11-30T19-40-00Z-HOST-PID). Returns buf. */
const char *recording_run_id(const struct recording *r, char *buf, size_t cap);
/* "" while all is well, else what went wrong ("recording stopped: ..."),
 * for the console's banner. */
const char *recording_problem(const struct recording *r);
/* Writes the trailer and closes the file; one line on stderr says where the
 * session is, or that it is incomplete and why. Returns 0, or a negative
 * errno when the recording is incomplete (the run's exit status says so).
 * Later pushes are dropped, a second close returns 0. r stays allocated:
 * this is the signal thread's way to close the session of a run it is
 * about to end, while other threads may still push. */
int recording_close(struct recording *r, int is_complete, const char *reason);
/* recording_close, then frees r; NULL is a no-op returning 0. Main thread,
 * once nothing pushes any more. */
int recording_stop(struct recording *r, int is_complete, const char *reason);
/* Stops and deletes a recording of a run that never started. */
void recording_discard(struct recording *r);

#endif
