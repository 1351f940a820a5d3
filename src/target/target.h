/*
 * target: `brink target`, the built-in fault-injecting HTTP server used by
 * `brink demo` and the tests. It serves content, a key-value store with
 * Riak-like siblings, Riak-style /stats and Prometheus /metrics, simulates a
 * capacity limit (workers, queue, connection limit) and injects faults
 * (resets, early closes, stalls, drips, malformed replies, hostile bytes),
 * all changeable at runtime through /_control. Never touches curses or the
 * engine. Call from the main thread, before any other thread starts.
 */
#ifndef PROG_TARGET_TARGET_H
#define PROG_TARGET_TARGET_H

/*
 * Runs `brink target [--listen ADDR:PORT] [--config FILE] [--seed N]`;
 * argv[0] is "target". Prints the bound URL as the first line of stdout and
 * serves until SIGINT or SIGTERM. Returns the exit status: 0 after a clean
 * stop, 1 for a runtime failure (cannot bind, cannot start), 2 for a usage
 * or config error; errors are one line on stderr.
 */
int target_main(int argc, char **argv);

#endif
