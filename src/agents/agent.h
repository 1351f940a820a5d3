/*
 * agent: `brink agent`, the engine run for a coordinator over standard
 * input and output (protocol in record/wire.h, docs/agents.md).
 */
#ifndef BRINK_AGENTS_AGENT_H
#define BRINK_AGENTS_AGENT_H

/* How long an agent waits for a word from its coordinator (a ping comes
 * every tick) before it stops the load and exits. */
#define AGENT_SILENCE_MS 5000

/* argv[0] is "agent". Returns the exit status: 0, 1 when the link or the
 * run failed, 2 when the protocol or the experiment was refused. */
int agent_main(int argc, char **argv);

#endif
