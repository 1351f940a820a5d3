/*
 * base64: RFC 4648 base64, in the standard alphabet with '=' padding (as
 * session files store histograms) or in the URL-safe one without padding
 * (section 5, for tokens). Pure functions, any thread.
 */
#ifndef BRINK_CORE_BASE64_H
#define BRINK_CORE_BASE64_H

#include <stddef.h>

/* Bytes base64_encode writes for len bytes (padded; the URL form may use
 * fewer), without the NUL. */
static inline size_t base64_encoded_len(size_t len)
{
    return (len + 2) / 3 * 4;
}

/*
 * Writes in[0..len) as base64 into out, which holds at least
 * base64_encoded_len(len) + 1 bytes, NUL-terminated, and returns the length
 * written. is_url: the URL-safe alphabet ('-', '_') and no padding.
 */
size_t base64_encode(const unsigned char *in, size_t len, char *out, int is_url);

/* in[0..len) in padded standard base64 as a new NUL-terminated string (the
 * caller frees it), for the histograms brink writes as text. Aborts through
 * xmalloc when memory runs out. */
char *base64_encode_new(const unsigned char *in, size_t len);

/*
 * Decodes in[0..len) into out, which holds at least len / 4 * 3 + 3 bytes,
 * and returns the decoded length, or -1 when in is not base64 of the given
 * form. Strict: no whitespace, no characters of the other alphabet, and the
 * unused bits of the last character must be zero. The standard form needs
 * its padding ('=' to a multiple of 4); the URL-safe form takes it or not.
 */
long base64_decode(const char *in, size_t len, unsigned char *out, int is_url);

#endif
