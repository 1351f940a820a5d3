/*
 * Fuzz target for the h1 transport's reply parser. The first byte chooses
 * HEAD or not, a max_body and a piece size; the rest is fed as the bytes of
 * a connection, in pieces, until the reply ends, then the connection
 * "closes". Checked besides "no crash": a feed never uses more than it was
 * given, the bytes counted never exceed the input, and a reply that ended
 * stays ended. Any violation aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "engine/h1/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct h1_resp r;
    enum h1_resp_state st = H1_MORE;
    size_t at = 1, piece;

    if (size < 1)
        return 0;
    piece = 1 + (data[0] >> 2);
    h1_resp_begin(&r, data[0] & 1, data[0] & 2 ? 16 : 1u << 20);
    while (at < size && st == H1_MORE) {
        size_t n = size - at < piece ? size - at : piece, used = 0;

        st = h1_resp_feed(&r, (const char *)data + at, n, &used);
        if (used > n)
            abort();
        if (st == H1_MORE && used != n)
            abort();
        at += used;
    }
    if (r.raw_bytes > size - 1)
        abort();
    if (st == H1_MORE)
        st = h1_resp_eof(&r);
    if (r.is_done && st != H1_DONE && st != H1_CUT)
        abort();
    (void)h1_resp_keeps_alive(&r);
    (void)h1_resp_error(&r);
    return 0;
}
