#include "core/linebuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/xalloc.h"

void linebuf_init(struct linebuf *lb, size_t max)
{
    memset(lb, 0, sizeof(*lb));
    lb->max = max;
}

void linebuf_free(struct linebuf *lb)
{
    free(lb->buf);
    memset(lb, 0, sizeof(*lb));
}

ssize_t linebuf_fill(struct linebuf *lb, int fd)
{
    ssize_t n;

    /* Move what is left to the front, then make room for a read. */
    if (lb->pos > 0) {
        memmove(lb->buf, lb->buf + lb->pos, lb->len - lb->pos);
        lb->len -= lb->pos;
        lb->pos = 0;
    }
    if (lb->cap - lb->len < 65536) {
        lb->cap = lb->len + 65536 + 1;
        lb->buf = xrealloc(lb->buf, lb->cap);
    }
    n = read(fd, lb->buf + lb->len, lb->cap - lb->len - 1);
    if (n < 0)
        return -errno;
    lb->len += (size_t)n;
    return n;
}

char *linebuf_next(struct linebuf *lb, size_t *len, int *too_long)
{
    *too_long = 0;
    for (;;) {
        char *start = lb->buf + lb->pos;
        char *nl = lb->len > lb->pos ? memchr(start, '\n', lb->len - lb->pos) : NULL;

        if (!nl) {
            /* No end in sight and already too long: drop what is held. */
            if (lb->len - lb->pos > lb->max) {
                lb->pos = lb->len;
                if (!lb->is_skipping) {
                    lb->is_skipping = 1;
                    *too_long = 1;
                }
            }
            return NULL;
        }
        lb->pos = (size_t)(nl - lb->buf) + 1;
        if (lb->is_skipping) {
            lb->is_skipping = 0;
            continue;
        }
        if ((size_t)(nl - start) > lb->max) {
            *too_long = 1;
            return NULL;
        }
        *nl = '\0';
        *len = (size_t)(nl - start);
        return start;
    }
}

int fd_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            return -EIO;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}
