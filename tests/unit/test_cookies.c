/* cookies: RFC 6265's storage and sending rules, the jar's bounds, dates. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/cookies.h"

#define NOW 1796169598 /* 2026-12-01 23:59:58 UTC */

static char header[COOKIES_HEADER_MAX];

static int set(struct cookie_jar *j, const char *v, const char *url)
{
    return cookie_jar_set(j, v, strlen(v), url, NOW);
}

static const char *cookie_for(struct cookie_jar *j, const char *url, long long later_s)
{
    cookie_jar_header(j, url, NOW + later_s, header, sizeof(header));
    return header;
}

static void a_cookie_goes_back_to_its_host_and_path(void **state)
{
    struct cookie_jar *j = cookie_jar_new();

    (void)state;
    assert_int_equal(set(j, "sid=abc123; HttpOnly; SameSite=Lax", "http://shop.test/cart/view"), 1);
    /* The default path is the request path's directory: /cart. */
    assert_string_equal(cookie_for(j, "http://shop.test/cart", 0), "sid=abc123");
    assert_string_equal(cookie_for(j, "http://shop.test:8080/cart/x?y=1", 0), "sid=abc123");
    assert_string_equal(cookie_for(j, "http://shop.test/cartoon", 0), "");
    assert_string_equal(cookie_for(j, "http://shop.test/", 0), "");
    assert_string_equal(cookie_for(j, "http://other.test/cart", 0), "");
    /* Without Domain it is the host's alone, not its subdomains'. */
    assert_string_equal(cookie_for(j, "http://www.shop.test/cart", 0), "");
    cookie_jar_free(j);
}

static void a_domain_cookie_reaches_subdomains_and_only_parents_may_be_named(void **state)
{
    struct cookie_jar *j = cookie_jar_new();

    (void)state;
    assert_int_equal(set(j, "a=1; Domain=.Example.TEST; Path=/", "http://www.example.test/"), 1);
    assert_string_equal(cookie_for(j, "http://example.test/x", 0), "a=1");
    assert_string_equal(cookie_for(j, "http://api.example.test/x", 0), "a=1");
    assert_string_equal(cookie_for(j, "http://badexample.test/x", 0), "");
    /* A host cannot set a cookie for a sibling, a child or another site. */
    assert_int_equal(set(j, "b=2; Domain=other.test", "http://www.example.test/"), 0);
    assert_int_equal(set(j, "b=2; Domain=deep.www.example.test", "http://www.example.test/"), 0);
    /* Nor an address for a "parent" of it. */
    assert_int_equal(set(j, "c=3; Domain=0.1", "http://127.0.0.1/"), 0);
    assert_int_equal(set(j, "c=3; Path=/", "http://127.0.0.1:9000/"), 1);
    assert_string_equal(cookie_for(j, "http://127.0.0.1:1234/z", 0), "c=3");
    assert_int_equal(cookie_jar_count(j), 2);
    cookie_jar_free(j);
}

static void expiry_max_age_and_deletion(void **state)
{
    struct cookie_jar *j = cookie_jar_new();

    (void)state;
    assert_int_equal(set(j, "short=1; Max-Age=60; Path=/", "http://h.test/"), 1);
    assert_int_equal(
        set(j, "dated=2; Expires=Wed, 02 Dec 2026 00:00:58 GMT; Path=/", "http://h.test/"), 1);
    /* Max-Age wins over Expires, whichever comes first. */
    assert_int_equal(set(j, "both=3; Expires=Wed, 09 Oct 2030 10:00:00 GMT; Max-Age=10; Path=/",
                         "http://h.test/"),
                     1);
    assert_string_equal(cookie_for(j, "http://h.test/", 5), "short=1; dated=2; both=3");
    assert_string_equal(cookie_for(j, "http://h.test/", 30), "short=1; dated=2");
    assert_string_equal(cookie_for(j, "http://h.test/", 61), "");
    assert_int_equal(cookie_jar_count(j), 0);
    assert_int_equal(set(j, "s=1; Path=/", "http://h.test/"), 1);
    assert_int_equal(set(j, "s=; Max-Age=0; Path=/", "http://h.test/"), 0);
    assert_string_equal(cookie_for(j, "http://h.test/", 0), "");
    assert_int_equal(set(j, "t=1; Path=/", "http://h.test/"), 1);
    assert_int_equal(set(j, "t=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/", "http://h.test/"),
                     0);
    assert_int_equal(cookie_jar_count(j), 0);
    cookie_jar_free(j);
}

static void secure_cookies_go_over_https_only(void **state)
{
    struct cookie_jar *j = cookie_jar_new();

    (void)state;
    assert_int_equal(set(j, "s=1; Secure; Path=/", "https://h.test/login"), 1);
    assert_string_equal(cookie_for(j, "https://h.test/", 0), "s=1");
    assert_string_equal(cookie_for(j, "http://h.test/", 0), "");
    cookie_jar_free(j);
}

static void the_same_name_domain_and_path_replaces_and_longer_paths_go_first(void **state)
{
    struct cookie_jar *j = cookie_jar_new();

    (void)state;
    assert_int_equal(set(j, "a=1; Path=/", "http://h.test/"), 1);
    assert_int_equal(set(j, "b=2; Path=/api", "http://h.test/"), 1);
    assert_int_equal(set(j, "a=3; Path=/api/v1", "http://h.test/"), 1);
    assert_int_equal(set(j, "a=4; Path=/", "http://h.test/"), 1);
    assert_int_equal(cookie_jar_count(j), 3);
    assert_string_equal(cookie_for(j, "http://h.test/api/v1/x", 0), "a=3; b=2; a=4");
    cookie_jar_free(j);
}

static void malformed_values_are_ignored(void **state)
{
    struct cookie_jar *j = cookie_jar_new();

    (void)state;
    assert_int_equal(set(j, "no-equals-sign", "http://h.test/"), 0);
    assert_int_equal(set(j, "=value-without-name", "http://h.test/"), 0);
    assert_int_equal(set(j, "a=1\r\nX-Injected: yes", "http://h.test/"), 0);
    assert_int_equal(set(j, "a=1", "ftp://h.test/"), 0);
    assert_int_equal(set(j, "  spaced  =  value  ; path = /p ", "http://h.test/"), 1);
    assert_string_equal(cookie_for(j, "http://h.test/p", 0), "spaced=value");
    assert_int_equal(cookie_jar_count(j), 1);
    cookie_jar_free(j);
}

static void a_full_jar_drops_and_counts(void **state)
{
    struct cookie_jar *j = cookie_jar_new();
    char v[64];
    static char big[COOKIES_BYTES_MAX + 8];

    (void)state;
    for (int i = 0; i < COOKIES_MAX; i++) {
        snprintf(v, sizeof(v), "c%d=%d; Path=/", i, i);
        assert_int_equal(set(j, v, "http://h.test/"), 1);
    }
    assert_int_equal(set(j, "one=more; Path=/", "http://h.test/"), -ENOSPC);
    assert_int_equal(cookie_jar_count(j), COOKIES_MAX);
    assert_int_equal(cookie_jar_dropped(j), 1);
    /* Replacing one that is there still works. */
    assert_int_equal(set(j, "c7=seven; Path=/", "http://h.test/"), 1);
    cookie_jar_header(j, "http://h.test/", NOW, header, sizeof(header));
    assert_non_null(strstr(header, "c7=seven"));
    cookie_jar_free(j);

    j = cookie_jar_new();
    memset(big, 'x', sizeof(big) - 1);
    big[0] = 'k';
    big[1] = '=';
    assert_int_equal(set(j, big, "http://h.test/"), -ENOSPC);
    assert_int_equal(cookie_jar_dropped(j), 1);
    assert_int_equal(cookie_jar_count(j), 0);
    cookie_jar_free(j);
}

static void a_cleared_jar_is_empty_and_fills_again(void **state)
{
    struct cookie_jar *j = cookie_jar_new();
    char v[64];

    (void)state;
    for (int i = 0; i <= COOKIES_MAX; i++) {
        snprintf(v, sizeof(v), "c%d=%d; Path=/", i, i);
        set(j, v, "http://h.test/");
    }
    cookie_jar_clear(j);
    assert_int_equal(cookie_jar_count(j), 0);
    assert_int_equal(cookie_jar_header(j, "http://h.test/", NOW, header, sizeof(header)), 0);
    /* What it dropped stays counted; its room is whole again. */
    assert_int_equal(cookie_jar_dropped(j), 1);
    for (int i = 0; i < COOKIES_MAX; i++) {
        snprintf(v, sizeof(v), "d%d=%d; Path=/", i, i);
        assert_int_equal(set(j, v, "http://h.test/"), 1);
    }
    cookie_jar_free(j);
}

static void dates_in_every_form_rfc_6265_reads(void **state)
{
    int64_t t = 0;

    (void)state;
    assert_int_equal(cookie_parse_date("Sun, 06 Nov 1994 08:49:37 GMT", 29, &t), 0);
    assert_int_equal(t, 784111777);
    assert_int_equal(cookie_parse_date("Sunday, 06-Nov-94 08:49:37 GMT", 30, &t), 0);
    assert_int_equal(t, 784111777);
    assert_int_equal(cookie_parse_date("Sun Nov  6 08:49:37 1994", 24, &t), 0);
    assert_int_equal(t, 784111777);
    assert_int_equal(cookie_parse_date("Thu, 29 Feb 2024 23:59:59 GMT", 29, &t), 0);
    assert_int_equal(t, 1709251199);
    assert_int_equal(cookie_parse_date("yesterday", 9, &t), -EINVAL);
    assert_int_equal(cookie_parse_date("Sun, 06 Nov 1994 25:49:37 GMT", 29, &t), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_cookie_goes_back_to_its_host_and_path),
        cmocka_unit_test(a_domain_cookie_reaches_subdomains_and_only_parents_may_be_named),
        cmocka_unit_test(expiry_max_age_and_deletion),
        cmocka_unit_test(secure_cookies_go_over_https_only),
        cmocka_unit_test(the_same_name_domain_and_path_replaces_and_longer_paths_go_first),
        cmocka_unit_test(malformed_values_are_ignored),
        cmocka_unit_test(a_full_jar_drops_and_counts),
        cmocka_unit_test(a_cleared_jar_is_empty_and_fills_again),
        cmocka_unit_test(dates_in_every_form_rfc_6265_reads),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
