#include "core/varint.h"

#include <errno.h>

size_t varint_put(unsigned char *buf, size_t cap, size_t len, uint64_t v)
{
    do {
        unsigned char b = (unsigned char)(v & 0x7f);

        v >>= 7;
        if (v)
            b |= 0x80;
        if (len < cap)
            buf[len] = b;
        len++;
    } while (v);
    return len;
}

int varint_get(struct varint_reader *r, uint64_t *out)
{
    uint64_t v = 0;

    for (unsigned n = 0; n < VARINT_MAX_BYTES && r->pos < r->len; n++) {
        unsigned char b = r->buf[r->pos++];
        uint64_t bits = b & 0x7f;

        if (n == VARINT_MAX_BYTES - 1 && bits > 1)
            return -EINVAL;
        v |= bits << (7 * n);
        if (!(b & 0x80)) {
            if (b == 0 && n > 0)
                return -EINVAL;
            *out = v;
            return 0;
        }
    }
    return -EINVAL;
}
