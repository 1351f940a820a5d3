#include "core/redact.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#define OUT_MAX 512

static void header_line_becomes(const char *line, const char *want)
{
    char out[OUT_MAX];

    assert_int_equal(redact_header_line(line, out, sizeof(out)), strlen(want));
    assert_string_equal(out, want);
}

static void url_becomes(const char *url, const char *want)
{
    char out[OUT_MAX];

    assert_int_equal(redact_url(url, out, sizeof(out)), strlen(want));
    assert_string_equal(out, want);
}

static void url_is_kept(const char *url)
{
    url_becomes(url, url);
}

/* Header names. */

static void each_named_secret_header_is_secret_in_any_case(void **state)
{
    static const char *const names[] = {
        "Authorization", "authorization", "AUTHORIZATION", "Proxy-Authorization",
        "Cookie",        "COOKIE",        "Set-Cookie",    "set-cookie",
        "X-Api-Key",     "x-api-key",     "X-Auth-Token",  "X-AUTH-TOKEN",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        assert_true(redact_is_secret_header(names[i]));
}

static void header_names_containing_a_secret_word_are_secret(void **state)
{
    static const char *const names[] = {
        "X-Refresh-Token", "Client-Secret", "X-Password",   "X-Passwd",        "X-ApiKey",
        "X-Api_Key",       "Api-Key",       "X-Session-Id", "X-Amz-Signature", "TOKEN",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        assert_true(redact_is_secret_header(names[i]));
}

static void ordinary_header_names_are_not_secret(void **state)
{
    static const char *const names[] = {
        "Content-Type",       "Server", "X-Request-Id", "Accept", "Host", "Cookies-Policy",
        "Authorization-Hint", "X-Api",  "Tok-en",       "",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        assert_false(redact_is_secret_header(names[i]));
    assert_false(redact_is_secret_header(NULL));
}

/* Header lines. */

static void secret_header_value_is_replaced_by_its_length(void **state)
{
    (void)state;
    header_line_becomes("Authorization: Bearer abc123", "Authorization: <redacted len=13>");
    header_line_becomes("cookie:a=1; b=2", "cookie:<redacted len=8>");
    header_line_becomes("X-Auth-Token: t", "X-Auth-Token: <redacted len=1>");
    header_line_becomes("Proxy-Authorization: Basic dXNlcjpwYXNz",
                        "Proxy-Authorization: <redacted len=18>");
}

static void header_line_ending_and_spacing_are_kept(void **state)
{
    (void)state;
    header_line_becomes("Set-Cookie: id=xyz; Path=/\r\n", "Set-Cookie: <redacted len=14>\r\n");
    header_line_becomes("X-Api-Key :\t k  ", "X-Api-Key :\t <redacted len=1>  ");
}

static void empty_secret_value_is_marked_redacted(void **state)
{
    (void)state;
    header_line_becomes("Cookie:", "Cookie:<redacted len=0>");
    header_line_becomes("Cookie:   \r\n", "Cookie:   <redacted len=0>\r\n");
}

static void secret_header_holding_only_references_is_kept(void **state)
{
    (void)state;
    header_line_becomes("Authorization: Bearer ${API_TOKEN}", "Authorization: Bearer ${API_TOKEN}");
    header_line_becomes("X-Api-Key: ${KEY}", "X-Api-Key: ${KEY}");
    header_line_becomes("Cookie: ${A} ${B_2}", "Cookie: ${A} ${B_2}");
    /* A literal next to a reference is a secret all the same. */
    header_line_becomes("Authorization: Bearer abc${T}", "Authorization: <redacted len=14>");
    header_line_becomes("Authorization: Basic dXNlcjpwYXNz", "Authorization: <redacted len=18>");
    header_line_becomes("Authorization: ${T}x", "Authorization: <redacted len=5>");
    header_line_becomes("Authorization: ${1X}", "Authorization: <redacted len=5>");
    header_line_becomes("Authorization: ${}", "Authorization: <redacted len=3>");
    header_line_becomes("Authorization: Bearer", "Authorization: <redacted len=6>");
}

static void ordinary_header_line_is_copied(void **state)
{
    (void)state;
    header_line_becomes("Content-Type: text/plain; charset=utf-8",
                        "Content-Type: text/plain; charset=utf-8");
    header_line_becomes("Server: nginx\r\n", "Server: nginx\r\n");
}

static void line_without_colon_is_copied(void **state)
{
    (void)state;
    header_line_becomes("HTTP/1.1 200 OK", "HTTP/1.1 200 OK");
    header_line_becomes("", "");
}

static void cut_header_line_shows_no_secret_byte(void **state)
{
    char out[20];

    (void)state;
    assert_int_equal(redact_header_line("Authorization: hunter2", out, sizeof(out)), 19);
    assert_string_equal(out, "Authorization: <red");
    assert_int_equal(redact_header_line("Authorization: hunter2", out, 1), 0);
    assert_string_equal(out, "");
    assert_int_equal(redact_header_line("Authorization: hunter2", NULL, 0), 0);
    assert_int_equal(redact_header_line(NULL, out, sizeof(out)), 0);
    assert_string_equal(out, "");
}

/* URLs. */

static void userinfo_password_is_redacted(void **state)
{
    (void)state;
    url_becomes("https://user:hunter2@example.com/path",
                "https://user:<redacted len=7>@example.com/path");
    url_becomes("http://admin:pw@host:8080", "http://admin:<redacted len=2>@host:8080");
    url_becomes("http://u:@host/", "http://u:<redacted len=0>@host/");
}

static void user_name_without_password_is_redacted(void **state)
{
    (void)state;
    url_becomes("https://ghp_abc123@github.com/o/r.git",
                "https://<redacted len=10>@github.com/o/r.git");
}

static void last_at_sign_ends_the_userinfo(void **state)
{
    (void)state;
    url_becomes("http://u:p@ss@h/x", "http://u:<redacted len=4>@h/x");
}

static void at_sign_after_the_authority_is_not_userinfo(void **state)
{
    (void)state;
    url_is_kept("https://h/p?email=a@b.example");
    url_is_kept("https://h/users/@alice");
    url_is_kept("https://h#me@example");
}

static void url_without_scheme_starts_with_its_authority(void **state)
{
    (void)state;
    url_becomes("admin:pw@localhost:8080/x", "admin:<redacted len=2>@localhost:8080/x");
    url_is_kept("localhost:8080/x");
}

static void each_named_query_key_is_redacted_in_any_case(void **state)
{
    (void)state;
    url_becomes("https://h/?TOKEN=a&Access_Token=bb&Key=c&API_KEY=d&ApiKey=e&Sig=f"
                "&Signature=g&PASSWORD=h&passwd=i&Secret=j",
                "https://h/?TOKEN=<redacted len=1>&Access_Token=<redacted len=2>"
                "&Key=<redacted len=1>&API_KEY=<redacted len=1>&ApiKey=<redacted len=1>"
                "&Sig=<redacted len=1>&Signature=<redacted len=1>&PASSWORD=<redacted len=1>"
                "&passwd=<redacted len=1>&Secret=<redacted len=1>");
    url_becomes("https://b.s3.amazonaws.com/o?X-Amz-Credential=AK%2F2024&X-Amz-Date=20240101"
                "&X-Amz-Security-Token=tt&X-Amz-Signature=abcd",
                "https://b.s3.amazonaws.com/o?X-Amz-Credential=<redacted len=9>"
                "&X-Amz-Date=20240101&X-Amz-Security-Token=<redacted len=2>"
                "&X-Amz-Signature=<redacted len=4>");
}

static void query_keys_containing_a_secret_word_are_redacted(void **state)
{
    (void)state;
    url_becomes("https://h/cb?client_secret=s3&refresh_token=r&jsessionid=x&page=2",
                "https://h/cb?client_secret=<redacted len=2>&refresh_token=<redacted len=1>"
                "&jsessionid=<redacted len=1>&page=2");
}

static void ordinary_query_keys_are_kept(void **state)
{
    (void)state;
    url_is_kept("https://h/search?q=token&monkey=1&keyboard=2&sort=asc");
}

static void percent_encoded_key_is_recognised(void **state)
{
    (void)state;
    url_becomes("https://h/?%74oken=abc&api%5Fkey=k",
                "https://h/?%74oken=<redacted len=3>&api%5Fkey=<redacted len=1>");
}

static void semicolon_separates_pairs_but_not_a_secret_value(void **state)
{
    (void)state;
    url_becomes("https://h/?a=1;token=x", "https://h/?a=1;token=<redacted len=1>");
    url_becomes("https://h/?token=abc;def&b=2", "https://h/?token=<redacted len=7>&b=2");
}

static void keys_without_value_and_empty_values_are_handled(void **state)
{
    (void)state;
    url_becomes("https://h/?token=", "https://h/?token=<redacted len=0>");
    url_is_kept("https://h/?token");
    url_is_kept("https://h/?=abc&&x");
    url_is_kept("https://h/?");
}

static void url_without_query_is_kept(void **state)
{
    (void)state;
    url_is_kept("https://example.com/path/to/thing");
    url_is_kept("http://example.com");
    url_is_kept("http://[::1]:8080/");
    url_is_kept("");
}

static void fragment_ends_the_query(void **state)
{
    (void)state;
    url_becomes("https://h/p?token=abc#frag", "https://h/p?token=<redacted len=3>#frag");
    url_becomes("https://h/p?x=1#key", "https://h/p?x=1#key");
    url_is_kept("https://h/p#section-2");
}

static void secret_pairs_in_the_fragment_are_redacted(void **state)
{
    (void)state;
    url_becomes("https://app/cb#access_token=abc&state=1",
                "https://app/cb#access_token=<redacted len=3>&state=1");
    url_becomes("https://app/#/login?token=xyz", "https://app/#/login?token=<redacted len=3>");
}

static void cut_url_shows_no_secret_byte(void **state)
{
    char out[24];

    (void)state;
    assert_int_equal(redact_url("https://u:secretpw@h/?token=abc", out, sizeof(out)), 23);
    assert_string_equal(out, "https://u:<redacted len");
    assert_int_equal(redact_url("https://h", NULL, 0), 0);
    assert_int_equal(redact_url(NULL, out, sizeof(out)), 0);
    assert_string_equal(out, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_named_secret_header_is_secret_in_any_case),
        cmocka_unit_test(header_names_containing_a_secret_word_are_secret),
        cmocka_unit_test(ordinary_header_names_are_not_secret),
        cmocka_unit_test(secret_header_value_is_replaced_by_its_length),
        cmocka_unit_test(header_line_ending_and_spacing_are_kept),
        cmocka_unit_test(empty_secret_value_is_marked_redacted),
        cmocka_unit_test(secret_header_holding_only_references_is_kept),
        cmocka_unit_test(ordinary_header_line_is_copied),
        cmocka_unit_test(line_without_colon_is_copied),
        cmocka_unit_test(cut_header_line_shows_no_secret_byte),
        cmocka_unit_test(userinfo_password_is_redacted),
        cmocka_unit_test(user_name_without_password_is_redacted),
        cmocka_unit_test(last_at_sign_ends_the_userinfo),
        cmocka_unit_test(at_sign_after_the_authority_is_not_userinfo),
        cmocka_unit_test(url_without_scheme_starts_with_its_authority),
        cmocka_unit_test(each_named_query_key_is_redacted_in_any_case),
        cmocka_unit_test(query_keys_containing_a_secret_word_are_redacted),
        cmocka_unit_test(ordinary_query_keys_are_kept),
        cmocka_unit_test(percent_encoded_key_is_recognised),
        cmocka_unit_test(semicolon_separates_pairs_but_not_a_secret_value),
        cmocka_unit_test(keys_without_value_and_empty_values_are_handled),
        cmocka_unit_test(url_without_query_is_kept),
        cmocka_unit_test(fragment_ends_the_query),
        cmocka_unit_test(secret_pairs_in_the_fragment_are_redacted),
        cmocka_unit_test(cut_url_shows_no_secret_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
