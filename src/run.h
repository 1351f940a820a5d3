/*
 * run: a load run from the command line (`brink run`, and `brink demo`,
 * which is a run of a built-in experiment). The console when stdin and
 * stdout are a terminal that can take it, else headless: one progress line
 * per tick on stderr. Either way the final report goes to stdout.
 */
#ifndef BRINK_RUN_H
#define BRINK_RUN_H

/* A built-in experiment: its config text replaces --config FILE. */
struct run_preset {
    const char *name;          /* where config errors say they are */
    const char *config;        /* INI text, as a file would hold it */
};

/* argv[0] is "run". Returns the exit status: 0, 1 runtime failure, 2 usage
 * or config error. */
int run_main(int argc, char **argv);

/* The same with the experiment of preset (not NULL); the flags of brink run
 * other than --config still override its keys. Signals, libcurl's global
 * set-up and the engine are handled as for run_main. */
int run_preset_main(int argc, char **argv, const struct run_preset *preset);

#endif
