/*
 * replay: `brink replay FILE`, a recorded session in the console again
 * (see replay.c). Main thread only.
 */
#ifndef BRINK_CMD_REPLAY_H
#define BRINK_CMD_REPLAY_H

/* argv[0] is "replay". Returns the exit status: 0, 1 when the file cannot
 * be read, 2 for a usage error. */
int replay_main(int argc, char **argv);

#endif
