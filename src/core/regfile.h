/*
 * regfile: opening an input file that brink reads to its end (an experiment
 * file, a session file, a settings document) only when it is a regular
 * file. A FIFO, a device or a directory would block, never end, or pour out
 * noise; so they are refused before the first read. No I/O library, any
 * thread.
 */
#ifndef BRINK_CORE_REGFILE_H
#define BRINK_CORE_REGFILE_H

#include <stdint.h>
#include <stdio.h>

/*
 * Opens path for reading without blocking (O_NONBLOCK, so a FIFO with no
 * writer cannot hang the open), checks with fstat what was opened, and
 * hands it back as a blocking stdio stream. max_bytes bounds the size
 * (0: no bound). Returns 0 and *out (the caller's, fclose it), or a
 * negative errno with why (the user's words, no path, no newline):
 *   -ENODEV  "not a regular file" (a FIFO, a device, a directory, a socket)
 *   -EFBIG   "larger than N bytes" (N = max_bytes)
 *   -errno   "cannot open: REASON" (open or fstat failed)
 */
int regfile_open(const char *path, uint64_t max_bytes, FILE **out, char *why, size_t why_len);

/* The folder of path, where the files it names are looked up: ".", "/",
 * or path up to its last '/'. The caller frees it. */
char *regfile_dir(const char *path);

#endif
