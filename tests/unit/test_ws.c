/* The frames of WebSocket (src/core/ws.c): a client's heads at each
 * length form, masking, and the server heads read or refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/ws.h"

static const unsigned char mask[4] = {0x37, 0xfa, 0x21, 0x3d};

static void heads_use_the_shortest_length_form(void **state)
{
    static const struct {
        uint64_t len;
        size_t head;
    } cases[] = {{0, 6}, {125, 6}, {126, 8}, {65535, 8}, {65536, 14}, {1ull << 40, 14}};
    unsigned char out[WS_HEAD_MAX];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = ws_head_write(out, WS_BINARY, 1, cases[i].len, mask);

        assert_int_equal(n, cases[i].head);
        assert_int_equal(out[0], 0x82);
        assert_true(out[1] & 0x80);
        assert_memory_equal(out + n - 4, mask, 4);
    }
    /* RFC 6455, 5.7: a masked "Hello". */
    {
        unsigned char frame[WS_HEAD_MAX + 5];
        static const unsigned char want[] = {0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d,
                                             0x7f, 0x9f, 0x4d, 0x51, 0x58};
        size_t n = ws_head_write(frame, WS_TEXT, 1, 5, mask);

        memcpy(frame + n, "Hello", 5);
        ws_mask(frame + n, 5, mask, 0);
        assert_int_equal(n + 5, sizeof(want));
        assert_memory_equal(frame, want, sizeof(want));
        /* The same whole, the key's low 4 bytes the mask. */
        memset(frame, 0, sizeof(frame));
        assert_int_equal(ws_frame_write(frame, WS_TEXT, "Hello", 5, 0xdead3d21fa37ULL),
                         sizeof(want));
        assert_memory_equal(frame, want, sizeof(want));
    }
}

static void a_servers_heads_are_read_once_whole(void **state)
{
    static const unsigned char hello[] = {0x81, 0x05, 'H', 'e', 'l', 'l', 'o'};
    static const unsigned char big[] = {0x02, 0x7f, 0, 0, 0, 0, 0, 1, 0, 0};
    static const unsigned char mid[] = {0x00, 0x7e, 0x01, 0x00};
    struct ws_frame f;
    const char *why = NULL;

    (void)state;
    assert_int_equal(ws_head_read(hello, 1, &f, &why), 0);
    assert_int_equal(ws_head_read(hello, sizeof(hello), &f, &why), 1);
    assert_int_equal(f.op, WS_TEXT);
    assert_true(f.is_fin);
    assert_int_equal(f.len, 5);
    assert_int_equal(f.head, 2);
    assert_int_equal(ws_head_read(big, 9, &f, &why), 0);
    assert_int_equal(ws_head_read(big, sizeof(big), &f, &why), 1);
    assert_int_equal(f.len, 65536);
    assert_false(f.is_fin);
    assert_int_equal(f.head, 10);
    assert_int_equal(ws_head_read(mid, sizeof(mid), &f, &why), 1);
    assert_int_equal(f.op, WS_CONTINUATION);
    assert_int_equal(f.len, 256);
}

static void heads_that_break_the_protocol_are_refused(void **state)
{
    static const struct {
        unsigned char head[10];
        const char *want;
    } cases[] = {
        {{0xc1, 0x00}, "reserved bits"},  {{0x83, 0x00}, "unknown opcode"},
        {{0x81, 0x81}, "masked frame"},   {{0x09, 0x00}, "control frame fragmented"},
        {{0x89, 0x7e}, "over 125 bytes"}, {{0x82, 0x7f, 0x80, 0, 0, 0, 0, 0, 0, 1}, "top bit"},
    };
    struct ws_frame f;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *why = NULL;

        assert_int_equal(ws_head_read(cases[i].head, sizeof(cases[i].head), &f, &why), -1);
        assert_non_null(why);
        assert_non_null(strstr(why, cases[i].want));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(heads_use_the_shortest_length_form),
        cmocka_unit_test(a_servers_heads_are_read_once_whole),
        cmocka_unit_test(heads_that_break_the_protocol_are_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
