/*
 * A reply's header lines and body for a scenario script.
 */
#include "engine/capture.h"

#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

/* A buffer that grew past this for one large reply is let go before the
 * next, so that a few large bodies do not pin their memory in every slot. */
#define KEEP_MAX (1u << 20)

static void buf_reset(struct capture_buf *b)
{
    b->len = 0;
    if (b->cap > KEEP_MAX) {
        free(b->at);
        b->at = NULL;
        b->cap = 0;
    }
}

void capture_begin(struct capture *c, int wants_body)
{
    buf_reset(&c->head);
    buf_reset(&c->body);
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
