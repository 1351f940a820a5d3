/*
 * version: what brink --version prints: brink's version and the commit it
 * was built from, then the version of each library it runs with, as the
 * library reports it at run time (so a package built against one libcurl
 * and run with another says which runs). Main thread.
 */
#ifndef BRINK_CMD_VERSION_H
#define BRINK_CMD_VERSION_H

#include <stdio.h>

/* Prints the version lines on out; returns 0, or -1 when out failed. */
int version_print(FILE *out);

#endif
