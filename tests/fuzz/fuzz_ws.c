/*
 * Fuzz target for WebSocket frame heads (core/ws.c): the input is read as
 * a server's byte stream, frame after frame, as stream/ws.c reads it.
 * Checked besides "no crash": a head is read whole or not at all (every
 * shorter prefix needs more bytes or is refused for the same reason
 * already), its length form is the one its second byte says, a refusal
 * says why, and a client head written for the frame read, its mask bit
 * and key taken off, reads back the same. Any violation aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/ws.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_prefixes(const uint8_t *p, size_t n, int rc, const struct ws_frame *f)
{
    for (size_t k = 0; k < n && k < WS_HEAD_MAX; k++) {
        struct ws_frame g;
        const char *why = NULL;
        int r = ws_head_read(p, k, &g, &why);

        /* Whole only from its last byte on, and then the same head. */
        if (r == 1 &&
            (rc != 1 || k < f->head || g.head != f->head || g.len != f->len || g.op != f->op))
            abort();
        if (r == -1 && (rc != -1 || !why))
            abort();
        if (rc == 1 && k < f->head && r != 0)
            abort();
    }
}

static void check_round_trip(const struct ws_frame *f)
{
    static const unsigned char mask[4] = {1, 2, 3, 4};
    unsigned char out[WS_HEAD_MAX];
    size_t n = ws_head_write(out, f->op, f->is_fin, f->len, mask);
    struct ws_frame g;
    const char *why = NULL;

    if (n < 6 || n > WS_HEAD_MAX || !(out[1] & 0x80))
        abort();
    out[1] &= 0x7f; /* as a server sends it: no mask bit, no key */
    if (ws_head_read(out, n - 4, &g, &why) != 1 || g.op != f->op || g.is_fin != f->is_fin ||
        g.len != f->len || g.head != n - 4)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t at = 0;

    /* Each pass takes one frame (head and payload): at grows each time. */
    while (at < size) {
        struct ws_frame f;
        const char *why = NULL;
        int rc = ws_head_read(data + at, size - at, &f, &why);

        check_prefixes(data + at, size - at, rc, &f);
        if (rc <= 0) {
            if (rc == -1 && (!why || !why[0]))
                abort();
            break;
        }
        if (f.head != 2 && f.head != 4 && f.head != 10)
            abort();
        if ((f.head == 4) != ((data[at + 1] & 0x7f) == 126) || (f.op >= WS_CLOSE && f.len > 125))
            abort();
        check_round_trip(&f);
        if (f.len > size - at - f.head)
            break;
        at += f.head + (size_t)f.len;
    }
    return 0;
}
