/*
 * varint: unsigned LEB128 integers, the building block of brink's compact
 * histogram encodings (hist's sparse form in ticks, the stored form in
 * session files). Pure functions, any thread.
 */
#ifndef BRINK_CORE_VARINT_H
#define BRINK_CORE_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define VARINT_MAX_BYTES 10 /* a uint64_t takes at most this many */

/* Writes v at buf[len] onward, 7 bits a byte, low bits first. Bytes past cap
 * are counted but not written, so one pass can size a buffer. Returns the
 * new length (len plus 1 to VARINT_MAX_BYTES). */
size_t varint_put(unsigned char *buf, size_t cap, size_t len, uint64_t v);

struct varint_reader {
    const unsigned char *buf;
    size_t len; /* bytes in buf */
    size_t pos; /* the next byte to read */
};

/* Reads the varint at r->pos into *out and moves past it. Returns 0, or
 * -EINVAL when it is cut short, longer than 64 bits, or not in its shortest
 * form (so decoding then encoding gives back the same bytes); r->pos is
 * then past what was read. */
int varint_get(struct varint_reader *r, uint64_t *out);

#endif
