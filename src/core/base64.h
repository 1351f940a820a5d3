/*
 * base64: the standard alphabet with padding (RFC 4648, section 4), for the
 * histograms brink writes as text (session files, HdrHistogram logs). Pure
 * functions, any thread.
 */
#ifndef BRINK_CORE_BASE64_H
#define BRINK_CORE_BASE64_H

#include <stddef.h>

/* in[0..len) as a new NUL-terminated string (the caller frees it). Aborts
 * through xmalloc when memory runs out. */
char *base64_encode(const unsigned char *in, size_t len);

/* Strict decoding of in[0..len) into out, which holds at least len / 4 * 3
 * bytes: padding only at the end, no whitespace, no other character.
 * Returns the decoded length, or -1 when in is not such text. */
long base64_decode(const char *in, size_t len, unsigned char *out);

#endif
