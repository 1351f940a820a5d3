/*
 * A reply's header lines and body for a scenario script.
 */
#include "engine/capture.h"

#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

void capture_begin(struct capture *c, int wants_body)
{
    c->head.len = 0;
    c->body.len = 0;
    c->wants_body = wants_body;
}

void capture_add(struct capture_buf *b, const char *data, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;

        while (cap < b->len + n)
            cap *= 2;
        b->at = xrealloc(b->at, cap);
        b->cap = cap;
    }
    memcpy(b->at + b->len, data, n);
    b->len += n;
}

void capture_free(struct capture *c)
{
    free(c->head.at);
    free(c->body.at);
    memset(c, 0, sizeof(*c));
}
