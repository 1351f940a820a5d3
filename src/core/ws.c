#include "core/ws.h"

#include <string.h>

size_t ws_head_write(unsigned char *out, enum ws_opcode op, int is_fin, uint64_t len,
                     const unsigned char mask[4])
{
    size_t n = 2;

    out[0] = (unsigned char)((is_fin ? 0x80 : 0) | (op & 0x0F));
    if (len < 126) {
        out[1] = (unsigned char)(0x80 | len);
    } else if (len <= 0xFFFF) {
        out[1] = 0x80 | 126;
        out[2] = (unsigned char)(len >> 8);
        out[3] = (unsigned char)len;
        n = 4;
    } else {
        out[1] = 0x80 | 127;
        for (int i = 0; i < 8; i++)
            out[2 + i] = (unsigned char)(len >> (56 - 8 * i));
        n = 10;
    }
    for (int i = 0; i < 4; i++)
        out[n + (size_t)i] = mask[i];
    return n + 4;
}

void ws_mask(unsigned char *p, size_t n, const unsigned char mask[4], uint64_t offset)
{
    for (size_t i = 0; i < n; i++)
        p[i] ^= mask[(offset + i) & 3];
}

static int is_known(unsigned op)
{
    return op <= WS_BINARY || (op >= WS_CLOSE && op <= WS_PONG);
}

int ws_head_read(const unsigned char *p, size_t n, struct ws_frame *f, const char **why)
{
    unsigned op, len7;
    size_t need = 2;

    if (n < 2)
        return 0;
    op = p[0] & 0x0F;
    len7 = p[1] & 0x7F;
    if (p[0] & 0x70) {
        *why = "a frame with reserved bits set (no extension was agreed)";
        return -1;
    }
    if (!is_known(op)) {
        *why = "a frame of an unknown opcode";
        return -1;
    }
    if (p[1] & 0x80) {
        *why = "a masked frame from the server";
        return -1;
    }
    if (op >= WS_CLOSE && (!(p[0] & 0x80) || len7 > WS_CONTROL_MAX)) {
        *why = "a control frame fragmented or over 125 bytes";
        return -1;
    }
    need += len7 == 126 ? 2 : len7 == 127 ? 8 : 0;
    if (n < need)
        return 0;
    f->op = (enum ws_opcode)op;
    f->is_fin = (p[0] & 0x80) != 0;
    f->head = need;
    if (len7 < 126) {
        f->len = len7;
    } else if (len7 == 126) {
        f->len = (uint64_t)p[2] << 8 | p[3];
    } else {
        f->len = 0;
        for (int i = 0; i < 8; i++)
            f->len = f->len << 8 | p[2 + i];
        if (f->len >> 63) {
            *why = "a frame length with its top bit set";
            return -1;
        }
    }
    return 1;
}

size_t ws_frame_write(unsigned char *out, enum ws_opcode op, const void *p, size_t n, uint64_t key)
{
    unsigned char mask[4] = {(unsigned char)key, (unsigned char)(key >> 8),
                             (unsigned char)(key >> 16), (unsigned char)(key >> 24)};
    size_t head = ws_head_write(out, op, 1, n, mask);

    memcpy(out + head, p, n);
    ws_mask(out + head, n, mask, 0);
    return head + n;
}
