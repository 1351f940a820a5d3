#include "core/sanitize.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

/* Bytes past cap that must stay untouched, to catch an overrun. */
#define GUARD 16
#define GUARD_BYTE 0x5A

/* Sanitizes in[0..len) into a buffer of exactly cap bytes followed by guard
 * bytes, checks the contract common to every call and compares with want. */
static void expect_n(const char *in, size_t len, size_t cap, int ascii_only, const char *want)
{
    char buf[512 + GUARD];
    size_t n;

    assert_true(cap + GUARD <= sizeof(buf));
    memset(buf, GUARD_BYTE, sizeof(buf));
    n = sanitize_display(in, len, buf, cap, ascii_only);
    assert_string_equal(buf, want);
    assert_int_equal(n, strlen(want));
    assert_true(n < cap);
    for (size_t i = cap; i < cap + GUARD; i++)
        assert_int_equal((unsigned char)buf[i], GUARD_BYTE);
}

static void expect(const char *in, const char *want)
{
    expect_n(in, strlen(in), 256, 0, want);
    /* The hostile corpus is ASCII once escaped, so both modes agree. */
    expect_n(in, strlen(in), 256, 1, want);
}

static void plain_text_is_copied_unchanged(void **state)
{
    (void)state;
    expect("nginx/1.25.3 (Ubuntu)", "nginx/1.25.3 (Ubuntu)");
    expect("", "");
    expect(" !\"#$%&'()*+,-./09:;<=>?@AZ[]^_`az{|}~", " !\"#$%&'()*+,-./09:;<=>?@AZ[]^_`az{|}~");
}

static void backslash_is_doubled_so_escapes_stay_unambiguous(void **state)
{
    (void)state;
    expect("C:\\temp\\x41", "C:\\\\temp\\\\x41");
}

static void esc_newline_return_and_tab_get_short_escapes(void **state)
{
    (void)state;
    expect("\x1b", "\\e");
    expect("a\nb\rc\td", "a\\nb\\rc\\td");
}

static void other_c0_controls_and_del_become_hex_escapes(void **state)
{
    (void)state;
    expect("\x01\x07\x08\x0b\x0c\x1a\x1f\x7f", "\\x01\\x07\\x08\\x0b\\x0c\\x1a\\x1f\\x7f");
}

static void nul_bytes_inside_the_input_are_escaped_not_terminating(void **state)
{
    (void)state;
    expect_n("a\0b\0", 4, 64, 0, "a\\x00b\\x00");
}

static void erase_screen_csi_is_shown_not_run(void **state)
{
    (void)state;
    expect("\x1b[2J\x1b[H", "\\e[2J\\e[H");
    /* The Server header of the kali-mcp-server report. */
    expect("Apache\x1b[2J\x1b]0;PWNED\x07", "Apache\\e[2J\\e]0;PWNED\\x07");
}

static void osc_title_hyperlink_and_clipboard_sequences_are_escaped(void **state)
{
    (void)state;
    expect("\x1b]0;owned\x07", "\\e]0;owned\\x07");
    expect("\x1b]2;owned\x1b\\", "\\e]2;owned\\e\\\\");
    expect("\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\",
           "\\e]8;;http://evil.example/\\e\\\\click\\e]8;;\\e\\\\");
    expect("\x1b]52;c;cm0gLXJmIH4K\x07", "\\e]52;c;cm0gLXJmIH4K\\x07");
}

static void dcs_and_terminal_queries_are_escaped(void **state)
{
    (void)state;
    expect("\x1bP+q544e\x1b\\", "\\eP+q544e\\e\\\\");
    expect("\x1b[6n", "\\e[6n");
    expect("\x1b[21t", "\\e[21t");
    expect("\x1b[8;0;0t", "\\e[8;0;0t");
}

static void carriage_return_cannot_overwrite_the_line(void **state)
{
    (void)state;
    expect("200 OK\rFAILED", "200 OK\\rFAILED");
}

static void c1_controls_encoded_as_utf8_become_u_escapes(void **state)
{
    (void)state;
    /* U+009B is CSI and U+009D is OSC on terminals that honour C1. */
    expect("\xc2\x9b"
           "2J",
           "\\u009b2J");
    expect("\xc2\x80\xc2\x85\xc2\x9d\xc2\x9f", "\\u0080\\u0085\\u009d\\u009f");
}

static void raw_8bit_c1_bytes_are_invalid_utf8_and_become_hex_escapes(void **state)
{
    (void)state;
    expect("\x9b"
           "2J\x9d"
           "0;x\x9c",
           "\\x9b2J\\x9d0;x\\x9c");
}

static void invisible_format_characters_are_escaped(void **state)
{
    (void)state;
    /* Tag characters spell hidden text ("A" here) inside an innocent one. */
    expect("ok\xf3\xa0\x81\x81", "ok\\U000e0041");
    expect("soft\xc2\xadhyphen", "soft\\u00adhyphen");
    expect("\xe2\x81\xa1\xe2\x81\xaa\xef\xbf\xb9", "\\u2061\\u206a\\ufff9");
    /* Neighbours outside the ranges stay as they are where UTF-8 is shown. */
    expect_n("\xc2\xae\xf3\xa0\x84\x80", 6, 64, 0, "\xc2\xae\xf3\xa0\x84\x80");
}

static void bidi_controls_are_escaped(void **state)
{
    (void)state;
    /* "txt.exe" shown as "exe.txt" by a right-to-left override. */
    expect("\xe2\x80\xae"
           "exe.txt",
           "\\u202eexe.txt");
    expect("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad", "\\u202a\\u202b\\u202c\\u202d");
    expect("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9", "\\u2066\\u2067\\u2068\\u2069");
    expect("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", "\\u200e\\u200f\\u061c");
}

static void zero_width_characters_and_separators_are_escaped(void **state)
{
    (void)state;
    expect("to\xe2\x80\x8bken", "to\\u200bken");
    expect("\xe2\x80\x8c\xe2\x80\x8d\xe2\x81\xa0\xef\xbb\xbf", "\\u200c\\u200d\\u2060\\ufeff");
    expect("one\xe2\x80\xa8two\xe2\x80\xa9", "one\\u2028two\\u2029");
}

static void neighbours_of_the_escaped_ranges_are_kept(void **state)
{
    (void)state;
    /* U+00A0, U+200A, U+2010, U+202F, U+2065, U+2070, U+FEFE: printable or
     * harmless, just outside the ranges of sanitize.h. */
    const char *kept = "\xc2\xa0\xe2\x80\x8a\xe2\x80\x90\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xb0"
                       "\xef\xbb\xbe";

    expect_n(kept, strlen(kept), 64, 0, kept);
}

static void valid_utf8_text_is_kept(void **state)
{
    (void)state;
    expect_n("h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80", 18, 64, 0,
             "h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80");
    /* The smallest and largest code point of each length. */
    expect_n("\xc2\xa0\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", 18, 64, 0,
             "\xc2\xa0\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf");
}

static void ascii_only_escapes_every_non_ascii_code_point(void **state)
{
    (void)state;
    expect_n("h\xc3\xa9llo \xe6\x97\xa5 \xf0\x9f\x98\x80", 15, 64, 1,
             "h\\u00e9llo \\u65e5 \\U0001f600");
    expect_n("\xf4\x8f\xbf\xbf", 4, 64, 1, "\\U0010ffff");
    expect_n("\xe2\x80\xae", 3, 64, 1, "\\u202e");
}

static void overlong_encodings_are_escaped_byte_by_byte(void **state)
{
    (void)state;
    /* '/', ESC and NUL in two bytes, '/' in three and four. */
    expect("\xc0\xaf", "\\xc0\\xaf");
    expect("\xc0\x9b[2J", "\\xc0\\x9b[2J");
    expect("\xc1\xbf", "\\xc1\\xbf");
    expect_n("\xc0\x80", 2, 64, 0, "\\xc0\\x80");
    expect("\xe0\x80\xaf", "\\xe0\\x80\\xaf");
    expect("\xe0\x9f\xbf", "\\xe0\\x9f\\xbf");
    expect("\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf");
    expect("\xf0\x8f\xbf\xbf", "\\xf0\\x8f\\xbf\\xbf");
}

static void surrogates_are_escaped_byte_by_byte(void **state)
{
    (void)state;
    expect("\xed\xa0\x80", "\\xed\\xa0\\x80");
    expect("\xed\xbf\xbf", "\\xed\\xbf\\xbf");
    /* U+D7FF, just below the surrogates, is a valid character. */
    expect_n("\xed\x9f\xbf", 3, 64, 1, "\\ud7ff");
}

static void code_points_above_u10ffff_are_escaped_byte_by_byte(void **state)
{
    (void)state;
    expect("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
    expect("\xf5\x80\x80\x80", "\\xf5\\x80\\x80\\x80");
    expect("\xf8\x88\x80\x80\x80", "\\xf8\\x88\\x80\\x80\\x80");
    expect("\xfe\xff", "\\xfe\\xff");
}

static void truncated_and_broken_sequences_escape_only_the_bad_bytes(void **state)
{
    (void)state;
    expect("abc\xe2\x82", "abc\\xe2\\x82");
    expect("\xe2\x82"
           "A",
           "\\xe2\\x82A");
    expect("\xf0\x9f\x98", "\\xf0\\x9f\\x98");
    /* A lead byte cut short by the next character keeps that character. */
    expect_n("\xe2\xc3\xa9", 3, 64, 1, "\\xe2\\u00e9");
    expect("\x80\xbf", "\\x80\\xbf");
}

static void long_input_is_cut_with_dots_within_cap(void **state)
{
    (void)state;
    expect_n("hello world", 11, 8, 0, "hell...");
    expect_n("12345678", 8, 8, 0, "1234...");
}

static void input_that_fits_exactly_is_not_cut(void **state)
{
    (void)state;
    expect_n("1234567", 7, 8, 0, "1234567");
    expect_n("ab\x1b", 3, 5, 0, "ab\\e");
}

static void cut_never_splits_an_escape(void **state)
{
    (void)state;
    expect_n("abc\x1b"
             "def",
             7, 8, 0, "abc...");
    expect_n("a\xe2\x80\xae"
             "bcdefgh",
             11, 11, 0, "a\\u202e...");
    expect_n("a\xe2\x80\xae"
             "bcdefgh",
             11, 10, 0, "a...");
    expect_n("\xf0\x9f\x98\x80\xf0\x9f\x98\x80", 8, 16, 1, "\\U0001f600...");
}

static void cut_never_splits_a_utf8_character(void **state)
{
    (void)state;
    expect_n("ab\xc3\xa9xyzw", 8, 8, 0, "ab\xc3\xa9...");
    expect_n("abc\xe6\x97\xa5xyz", 9, 8, 0, "abc...");
}

static void caps_below_eight_stay_within_cap(void **state)
{
    (void)state;
    expect_n("hello", 5, 6, 0, "hello");
    expect_n("hello", 5, 5, 0, "h...");
    expect_n("hello", 5, 4, 0, "...");
    expect_n("hello", 5, 3, 0, "..");
    expect_n("hello", 5, 2, 0, ".");
    expect_n("hello", 5, 1, 0, "");
    expect_n("ab", 2, 3, 0, "ab");
    expect_n("\x1b", 1, 2, 0, ".");
}

static void cap_zero_writes_nothing(void **state)
{
    char c = 'x';

    (void)state;
    assert_int_equal(sanitize_display("hello", 5, &c, 0, 0), 0);
    assert_int_equal(c, 'x');
}

static void null_input_of_length_zero_gives_empty_string(void **state)
{
    char buf[8] = "junk";

    (void)state;
    assert_int_equal(sanitize_display(NULL, 0, buf, sizeof(buf), 0), 0);
    assert_string_equal(buf, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_text_is_copied_unchanged),
        cmocka_unit_test(backslash_is_doubled_so_escapes_stay_unambiguous),
        cmocka_unit_test(esc_newline_return_and_tab_get_short_escapes),
        cmocka_unit_test(other_c0_controls_and_del_become_hex_escapes),
        cmocka_unit_test(nul_bytes_inside_the_input_are_escaped_not_terminating),
        cmocka_unit_test(erase_screen_csi_is_shown_not_run),
        cmocka_unit_test(osc_title_hyperlink_and_clipboard_sequences_are_escaped),
        cmocka_unit_test(dcs_and_terminal_queries_are_escaped),
        cmocka_unit_test(carriage_return_cannot_overwrite_the_line),
        cmocka_unit_test(c1_controls_encoded_as_utf8_become_u_escapes),
        cmocka_unit_test(raw_8bit_c1_bytes_are_invalid_utf8_and_become_hex_escapes),
        cmocka_unit_test(bidi_controls_are_escaped),
        cmocka_unit_test(invisible_format_characters_are_escaped),
        cmocka_unit_test(zero_width_characters_and_separators_are_escaped),
        cmocka_unit_test(neighbours_of_the_escaped_ranges_are_kept),
        cmocka_unit_test(valid_utf8_text_is_kept),
        cmocka_unit_test(ascii_only_escapes_every_non_ascii_code_point),
        cmocka_unit_test(overlong_encodings_are_escaped_byte_by_byte),
        cmocka_unit_test(surrogates_are_escaped_byte_by_byte),
        cmocka_unit_test(code_points_above_u10ffff_are_escaped_byte_by_byte),
        cmocka_unit_test(truncated_and_broken_sequences_escape_only_the_bad_bytes),
        cmocka_unit_test(long_input_is_cut_with_dots_within_cap),
        cmocka_unit_test(input_that_fits_exactly_is_not_cut),
        cmocka_unit_test(cut_never_splits_an_escape),
        cmocka_unit_test(cut_never_splits_a_utf8_character),
        cmocka_unit_test(caps_below_eight_stay_within_cap),
        cmocka_unit_test(cap_zero_writes_nothing),
        cmocka_unit_test(null_input_of_length_zero_gives_empty_string),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
