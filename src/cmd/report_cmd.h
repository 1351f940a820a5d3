/*
 * report_cmd: `brink report` and `brink compare`, session files read back
 * into the report module's tables (see report_cmd.c). Main thread only.
 */
#ifndef BRINK_CMD_REPORT_CMD_H
#define BRINK_CMD_REPORT_CMD_H

#include <stdio.h>

/* argv[0] is "report" / "compare". Exit status: 0, 1 when a file cannot be
 * read or the output cannot be written, 2 for a usage error. */
int report_main(int argc, char **argv);
int compare_main(int argc, char **argv);

/* The stream a report goes to: stdout when path is NULL, else -o FILE
 * created (or replaced). NULL after printing why, "brink: CMD: -o FILE:
 * cannot create: ...". brink run's -o is the same. */
FILE *report_open_output(const char *cmd, const char *path);
/* Closes out (unless it is stdout) and returns rc, or -EIO when the close
 * failed; after a failure (rc not 0) says so for -EIO and removes path, so
 * that a report cut half way is not left behind as if it were whole. */
int report_close_output(const char *cmd, FILE *out, const char *path, int rc);

#endif
