/*
 * run: `brink run`, a load run from the command line. For now it runs
 * headless (the console comes with its own module): one progress line per
 * tick on stderr, the final report on stdout.
 */
#ifndef PROG_RUN_H
#define PROG_RUN_H

/* argv[0] is "run". Returns the exit status: 0, 1 runtime failure, 2 usage
 * or config error. */
int run_main(int argc, char **argv);

#endif
