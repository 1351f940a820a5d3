/*
 * capture: what a scenario script gets back of a reply, kept by either
 * transport: its header lines ("Name: value\n" each, the final reply's
 * only) and, unless the script skips it, its body. Each buffer grows to
 * the largest reply its slot has seen, bounded by the transports' own
 * limits (header blocks of H1_HEADERS_MAX_BYTES, bodies of [target]
 * max_body), and past 1 MiB is let go before the next reply. Pure: no
 * I/O. One slot's, on its worker's thread.
 */
#ifndef BRINK_ENGINE_CAPTURE_H
#define BRINK_ENGINE_CAPTURE_H

#include <stddef.h>

struct capture_buf {
    char *at;
    size_t len;
    size_t cap;
};

struct capture {
    struct capture_buf head;
    struct capture_buf body;
    int wants_body; /* keep the body (else only its length is counted) */
};

/* Empties both buffers for a new reply (their memory is kept). */
void capture_begin(struct capture *c, int wants_body);
/* Appends n bytes to b. */
void capture_add(struct capture_buf *b, const char *data, size_t n);
void capture_free(struct capture *c);

#endif
