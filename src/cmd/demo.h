/*
 * demo: `brink demo`, the console on the built-in target with a scenario
 * that breaks in known ways as the load grows. Main thread only.
 */
#ifndef BRINK_CMD_DEMO_H
#define BRINK_CMD_DEMO_H

/* argv[0] is "demo"; takes the options of cli_demo (brink run's but --url
 * and --config). Returns the exit status as run_main does. */
int demo_main(int argc, char **argv);

#endif
