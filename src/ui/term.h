/*
 * term: opening and closing the terminal for the console (term.c is the
 * only file that calls newterm and endwin). Main thread only.
 */
#ifndef BRINK_UI_TERM_H
#define BRINK_UI_TERM_H

#include <stddef.h>

#include "ui/internal.h"

/* Opens curses on stdin/stdout and fills th; see ui_open for what it checks
 * and sets up. Returns 0, or -ENOTTY with one line in why and the terminal
 * untouched. */
int term_open(struct theme *th, char *why, size_t why_len);

/* Restores the terminal and stderr (writing out what stderr got meanwhile).
 * Idempotent. */
void term_close(void);

#endif
