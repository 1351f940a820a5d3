/* msg and redact_text: messages built, errno text on any thread, and every
 * printed line redacted and escaped, however often it is cleaned. */
#include "core/msg.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/redact.h"

#define OUT_MAX 512

static void text_becomes(const char *text, const char *want)
{
    char out[OUT_MAX];
    char again[OUT_MAX];

    assert_int_equal(redact_text(text, out, sizeof(out)), strlen(want));
    assert_string_equal(out, want);
    /* Redacting twice changes nothing. */
    redact_text(out, again, sizeof(again));
    assert_string_equal(again, want);
}

static void a_url_password_in_a_message_is_redacted(void **state)
{
    (void)state;
    text_becomes(
        "brink: x.ini:3: [target] url: bad port in \"http://bob:hunter2@h:99999/\"",
        "brink: x.ini:3: [target] url: bad port in \"http://bob:<redacted len=7>@h:99999/\"");
    text_becomes("brink: run: --url 'https://u:p%40ss@h/' refused",
                 "brink: run: --url 'https://u:<redacted len=6>@h/' refused");
}

static void secret_query_values_in_a_message_are_redacted(void **state)
{
    (void)state;
    text_becomes("got \"http://h/x?token=abc123&page=2\"",
                 "got \"http://h/x?token=<redacted len=6>&page=2\"");
    text_becomes("unexpected argument \"token=abc123\"",
                 "unexpected argument \"token=<redacted len=6>\"");
    text_becomes("brink: token=abc: cannot open", "brink: token=<redacted len=3>: cannot open");
    text_becomes("unknown option \"--password=hunter2\" (usage: ...)",
                 "unknown option \"--password=<redacted len=7>\" (usage: ...)");
}

static void secret_header_values_in_a_message_are_redacted(void **state)
{
    (void)state;
    text_becomes("[request a] header: bad name in \"Authorization: Bearer abc def\"",
                 "[request a] header: bad name in \"Authorization: <redacted len=14>\"");
    text_becomes("--header X-Session-Id: abc", "--header X-Session-Id: abc");
    text_becomes("--header \"X-Session-Id: abc\"", "--header \"X-Session-Id: <redacted len=3>\"");
    text_becomes("cookie: a=b", "cookie: <redacted len=3>");
    text_becomes("got \"Authorization Bearer s3cr3t\"", "got \"Authorization <redacted len=13>\"");
}

static void ordinary_words_and_references_are_kept(void **state)
{
    (void)state;
    text_becomes("brink: session: cannot read: token missing",
                 "brink: session: cannot read: token missing");
    text_becomes("\"Authorization: Bearer ${API_TOKEN}\"",
                 "\"Authorization: Bearer ${API_TOKEN}\"");
    text_becomes("name=value rate=10 http://h/p?q=1", "name=value rate=10 http://h/p?q=1");
    text_becomes("", "");
}

static void errno_text_names_the_error_for_either_sign(void **state)
{
    (void)state;
    assert_string_equal(msg_errno(ENOENT).text, msg_errno(-ENOENT).text);
    assert_non_null(strstr(msg_errno(-ENOENT).text, "No such file"));
    assert_string_equal(msg_errno(99999).text, "error 99999");
}

static void msg_set_writes_what_fits(void **state)
{
    char buf[8];

    (void)state;
    msg_set(buf, sizeof(buf), "bad %s", "port number");
    assert_string_equal(buf, "bad por");
    msg_set(NULL, 0, "x");
}

static void a_clean_line_holds_no_control_and_no_secret(void **state)
{
    char out[OUT_MAX];
    char shown[64];

    (void)state;
    msg_clean("recorded 3 ticks in /tmp/\x1b]2;pwned\x07.jsonl", out, sizeof(out));
    assert_string_equal(out, "recorded 3 ticks in /tmp/\\e]2;pwned\\x07.jsonl");
    msg_clean("url = http://h/\xe2\x80\xae\xc2\x9b\xff?sig=s3cret", out, sizeof(out));
    assert_string_equal(out, "url = http://h/\\u202e\\u009b\\xff?sig=<redacted len=6>");
    /* A piece shown already passes unchanged: no doubled backslash. */
    msg_show("a\\b\x1b", shown, sizeof(shown));
    assert_string_equal(shown, "a\\\\b\\e");
    msg_clean(shown, out, sizeof(out));
    assert_string_equal(out, shown);
}

static void a_shown_piece_is_redacted_before_it_is_cut(void **state)
{
    char shown[24];
    const char *url = "http://user:averyveryverylongpassword@h/";

    (void)state;
    msg_show(url, shown, sizeof(shown));
    assert_null(strstr(shown, "avery"));
    assert_non_null(strstr(shown, "..."));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_url_password_in_a_message_is_redacted),
        cmocka_unit_test(secret_query_values_in_a_message_are_redacted),
        cmocka_unit_test(secret_header_values_in_a_message_are_redacted),
        cmocka_unit_test(ordinary_words_and_references_are_kept),
        cmocka_unit_test(errno_text_names_the_error_for_either_sign),
        cmocka_unit_test(msg_set_writes_what_fits),
        cmocka_unit_test(a_clean_line_holds_no_control_and_no_secret),
        cmocka_unit_test(a_shown_piece_is_redacted_before_it_is_cut),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
