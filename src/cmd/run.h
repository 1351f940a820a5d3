/*
 * run: a load run from the command line (`brink run`, and `brink demo`,
 * which is a run of a built-in experiment). The console when stdin and
 * stdout are a terminal that can take it, else headless: one progress line
 * per tick on stderr. Either way the final report goes to stdout.
 */
#ifndef BRINK_CMD_RUN_H
#define BRINK_CMD_RUN_H

struct opts_table;

/* A built-in experiment: its config text replaces --config FILE. */
struct run_preset {
    const char *name;                 /* where config errors say they are */
    const char *config;               /* INI text, as a file would hold it */
    const struct opts_table *options; /* the command's options: cli_run's ids, no --config */
    const char *unattended_duration;  /* without a console, stop after this (no --duration) */
};

/* argv[0] is "run". Returns the exit status (core/exitcode.h): 0, 1
 * runtime failure, 2 usage or config error, 3 a threshold failed. */
int run_main(int argc, char **argv);

/* The same with the experiment of preset (not NULL), parsed with
 * preset->options, whose keys still override the experiment's. Signals,
 * libcurl's global set-up and the engine are handled as for run_main. */
int run_preset_main(int argc, char **argv, const struct run_preset *preset);

#endif
