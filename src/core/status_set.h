/*
 * status_set: a set of HTTP status codes 100 to 599, one bit each, such as
 * the statuses a request kind expects ([target] expect). Plain data, copied
 * by value; the functions are pure and safe on any thread.
 */
#ifndef BRINK_CORE_STATUS_SET_H
#define BRINK_CORE_STATUS_SET_H

#include <stddef.h>
#include <stdint.h>

#define STATUS_SET_LOW 100  /* the lowest code a set can hold */
#define STATUS_SET_HIGH 599 /* the highest (RFC 9110 defines 100 to 599) */
#define STATUS_SET_WORDS 8  /* 500 bits in 64-bit words */
/* Bytes that always hold status_set_format's text, NUL included. */
#define STATUS_SET_TEXT_MAX 1536

struct status_set {
    uint64_t bits[STATUS_SET_WORDS]; /* bit (code - STATUS_SET_LOW): code is in */
};

/* Whether code is in s; a code outside 100 to 599 never is. */
static inline int status_set_has(const struct status_set *s, long code)
{
    unsigned i;

    if (code < STATUS_SET_LOW || code > STATUS_SET_HIGH)
        return 0;
    i = (unsigned)(code - STATUS_SET_LOW);
    return (int)((s->bits[i / 64] >> (i % 64)) & 1);
}

/* Adds the codes lo to hi, both included; 100 <= lo <= hi <= 599. */
void status_set_add(struct status_set *s, unsigned lo, unsigned hi);

/* Whether s holds no code. */
int status_set_is_empty(const struct status_set *s);

/* Writes s as runs in increasing order, "200-299, 404" ("" when empty),
 * NUL-terminated and cut to cap bytes; STATUS_SET_TEXT_MAX always suffices.
 * The text reads back to the same set through [target] expect. */
void status_set_format(const struct status_set *s, char *buf, size_t cap);

#endif
