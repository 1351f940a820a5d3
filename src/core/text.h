/*
 * text: a growing string, NUL-terminated after every append, for building
 * request heads and canonical requests. Allocation through xrealloc (out of
 * memory ends the program); the owner frees buf. Pure, any thread; each
 * text belongs to its caller. Zero-initialise before the first append.
 */
#ifndef BRINK_CORE_TEXT_H
#define BRINK_CORE_TEXT_H

#include <stddef.h>
#include <string.h>

#include "core/xalloc.h"

struct text {
    char *buf; /* NULL until the first append */
    size_t len;
    size_t cap;
};

/* Appends the n bytes at s (which may not point into t). */
static inline void text_add(struct text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = 2 * (t->len + n + 1);
        t->buf = xrealloc(t->buf, t->cap);
    }
    if (n > 0)
        memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

static inline void text_str(struct text *t, const char *s)
{
    text_add(t, s, strlen(s));
}

static inline void text_char(struct text *t, char c)
{
    text_add(t, &c, 1);
}

#endif
