/*
 * report_cmd: `brink report` and `brink compare`, session files read back
 * into the report module's tables (see report_cmd.c). Main thread only.
 */
#ifndef BRINK_REPORT_CMD_H
#define BRINK_REPORT_CMD_H

/* argv[0] is "report" / "compare". Exit status: 0, 1 when a file cannot be
 * read or the output cannot be written, 2 for a usage error. */
int report_main(int argc, char **argv);
int compare_main(int argc, char **argv);

#endif
