/*
 * exitcode: the exit statuses of every brink command, listed in each
 * command's --help and in docs/report.md. Pure data, any thread.
 */
#ifndef BRINK_CORE_EXITCODE_H
#define BRINK_CORE_EXITCODE_H

enum brink_exit {
    BRINK_EXIT_OK = 0,      /* it ran, and every threshold and ramp step held */
    BRINK_EXIT_RUNTIME = 1, /* it could not do its work (I/O, the engine, a file) */
    BRINK_EXIT_USAGE = 2,   /* a bad command line or experiment file */
    BRINK_EXIT_VERDICT = 3, /* it ran, but a threshold or a ramp step failed */
};

#endif
