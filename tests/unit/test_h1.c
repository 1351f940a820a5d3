#include "engine/h1/wire.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "config/config.h"
#include "engine/h1/h2_head.h"
#include "engine/workload.h"

#define ERR_MAX 512
#define NO_LIMIT (1ULL << 40)

/* ---- Origins ---------------------------------------------------------- */

static void an_origin_splits_host_port_and_its_length(void **state)
{
    struct h1_origin o;
    char why[128];

    (void)state;
    assert_int_equal(h1_origin_parse("http://127.0.0.1:8080/x?y", &o, why, sizeof(why)), 0);
    assert_string_equal(o.host, "127.0.0.1");
    assert_int_equal(o.port, 8080);
    assert_string_equal(o.authority, "127.0.0.1:8080");
    assert_int_equal(o.len, strlen("http://127.0.0.1:8080"));
}

static void an_origin_without_port_is_port_80_and_v6_loses_its_brackets(void **state)
{
    struct h1_origin o;
    char why[128];

    (void)state;
    assert_int_equal(h1_origin_parse("http://h.test", &o, why, sizeof(why)), 0);
    assert_string_equal(o.host, "h.test");
    assert_int_equal(o.port, 80);
    assert_int_equal(h1_origin_parse("http://[::1]:81/", &o, why, sizeof(why)), 0);
    assert_string_equal(o.host, "::1");
    assert_int_equal(o.port, 81);
    assert_string_equal(o.authority, "[::1]:81");
}

static void an_https_origin_is_tls_on_port_443_unless_named(void **state)
{
    struct h1_origin o;
    char why[128];

    (void)state;
    assert_int_equal(h1_origin_parse("https://h.test/x", &o, why, sizeof(why)), 0);
    assert_true(o.is_tls);
    assert_int_equal(o.port, 443);
    assert_int_equal(o.len, strlen("https://h.test"));
    assert_int_equal(h1_origin_parse("HTTPS://h.test:8443", &o, why, sizeof(why)), 0);
    assert_int_equal(o.port, 8443);
    assert_int_equal(h1_origin_parse("http://h.test/", &o, why, sizeof(why)), 0);
    assert_false(o.is_tls);
}

static void origins_h1_cannot_serve_say_why(void **state)
{
    static const struct {
        const char *url, *why;
    } cases[] = {
        {"ftp://h/", "not an http:// or https:// URL"},
        {"http://u:p@h/", "the URL holds a user name or password"},
        {"http://h{vu}/", "a placeholder in the host or port"},
        {"http://h:{rand:1..2}/", "a placeholder in the host or port"},
        {"http://h/#top", "the URL has a fragment"},
        {"http://h:0/", "the host or port does not parse"},
        {"http://h:99999/", "the host or port does not parse"},
        {"http://:80/", "the host or port does not parse"},
        {"http://[::1/", "the host or port does not parse"},
    };
    struct h1_origin o;
    char why[128];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_not_equal(h1_origin_parse(cases[i].url, &o, why, sizeof(why)), 0);
        assert_string_equal(why, cases[i].why);
    }
}

/* ---- Request heads ---------------------------------------------------- */

static struct workload *compile(const char *text)
{
    struct config c;
    struct workload *w = NULL;
    char err[ERR_MAX];
    FILE *msgs = fopen("/dev/null", "w");

    assert_non_null(msgs);
    config_init(&c);
    assert_int_equal(config_load_string(&c, "/tmp/t.ini", text, NULL, msgs), 0);
    fclose(msgs);
    assert_int_equal(workload_new(&c, 1, err, sizeof(err), &w), 0);
    config_free(&c);
    return w;
}

/* The head of request seq of kind i, as a NUL-terminated string. */
static char *head_of(const char *text, size_t i, uint64_t seq, struct h1_kind *k)
{
    struct workload *w = compile(text);
    struct h1_origin o;
    char why[128], *buf, *out;
    const char *head;
    uint64_t rng = 7;
    size_t len;

    assert_int_equal(h1_origin_parse(workload_kind(w, i)->url, &o, why, sizeof(why)), 0);
    assert_int_equal(h1_kind_build(k, w, i, &o), 0);
    buf = malloc(k->head_max);
    head = h1_head(k, w, i, seq, 3, &rng, buf, k->head_max, &len);
    out = strndup(head, len);
    free(buf);
    workload_free(w);
    return out;
}

static void a_fixed_get_is_serialised_once_as_libcurl_sends_it(void **state)
{
    struct h1_kind k;
    char *head = head_of("[target]\nurl = http://127.0.0.1:8080/a?b=1\n", 0, 0, &k);

    (void)state;
    assert_non_null(k.fixed);
    assert_string_equal(head, "GET /a?b=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: */*\r\n\r\n");
    assert_null(k.body);
    free(head);
    h1_kind_free(&k);
}

static void placeholders_are_filled_in_place_between_method_and_version(void **state)
{
    struct h1_kind k;
    char *head = head_of("[target]\nurl = http://h.test\n[request put]\nmethod = PROPPATCH\n"
                         "url = /kv/{vu}-{seq}\nbody = hello\n",
                         0, 41, &k);

    (void)state;
    assert_null(k.fixed);
    assert_string_equal(head, "PROPPATCH /kv/3-41 HTTP/1.1\r\nHost: h.test\r\nAccept: */*\r\n"
                              "Content-Length: 5\r\n\r\n");
    /* The body itself is sent from the workload's copy, not the head's. */
    assert_int_equal(k.body_len, 5);
    free(head);
    h1_kind_free(&k);
}

static void headers_replace_or_remove_the_defaults(void **state)
{
    struct h1_kind k;
    char *head = head_of("[target]\nurl = http://h.test/\nheader = Host: other\n"
                         "header = Accept:\nheader = X-A: 1\n",
                         0, 0, &k);

    (void)state;
    assert_string_equal(head, "GET / HTTP/1.1\r\nHost: other\r\nX-A: 1\r\n\r\n");
    free(head);
    h1_kind_free(&k);
}

static void a_query_without_path_asks_for_the_root(void **state)
{
    struct h1_kind k;
    char *head = head_of("[target]\nurl = http://h.test?q={seq}\n", 0, 5, &k);

    (void)state;
    assert_string_equal(head, "GET /?q=5 HTTP/1.1\r\nHost: h.test\r\nAccept: */*\r\n\r\n");
    free(head);
    h1_kind_free(&k);
}

/* ---- Responses -------------------------------------------------------- */

/* Feeds text in pieces of step bytes; returns the state after the last. */
static enum h1_resp_state feed(struct h1_resp *r, const char *text, size_t step, size_t *left)
{
    size_t n = strlen(text), at = 0, used = 0;
    enum h1_resp_state st = H1_MORE;

    while (at < n && st == H1_MORE) {
        size_t piece = n - at < step ? n - at : step;

        st = h1_resp_feed(r, text + at, piece, &used);
        at += used;
    }
    *left = n - at;
    return st;
}

static void a_content_length_reply_is_done_in_any_pieces(void **state)
{
    const char *reply = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
    struct h1_resp r;
    size_t left;

    (void)state;
    for (size_t step = 1; step <= strlen(reply); step++) {
        h1_resp_begin(&r, 0, NO_LIMIT);
        assert_int_equal(feed(&r, reply, step, &left), H1_DONE);
        assert_int_equal(left, 0);
        assert_int_equal(r.status, 200);
        assert_int_equal(r.body_bytes, 5);
        assert_int_equal(r.raw_bytes, strlen(reply));
        assert_true(h1_resp_keeps_alive(&r));
    }
}

static void a_chunked_reply_counts_its_decoded_body(void **state)
{
    const char *reply = "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n"
                        "3\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\n\r\n";
    struct h1_resp r;
    size_t left;

    (void)state;
    h1_resp_begin(&r, 0, NO_LIMIT);
    assert_int_equal(feed(&r, reply, 7, &left), H1_DONE);
    assert_int_equal(r.status, 404);
    assert_int_equal(r.body_bytes, 19);
    assert_true(h1_resp_keeps_alive(&r));
}

static void connection_close_and_http_1_0_end_keep_alive(void **state)
{
    struct h1_resp r;
    size_t left;

    (void)state;
    h1_resp_begin(&r, 0, NO_LIMIT);
    assert_int_equal(
        feed(&r, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", 64, &left),
        H1_DONE);
    assert_false(h1_resp_keeps_alive(&r));
    h1_resp_begin(&r, 0, NO_LIMIT);
    assert_int_equal(feed(&r, "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 64, &left),
                     H1_DONE);
    assert_false(h1_resp_keeps_alive(&r));
    h1_resp_begin(&r, 0, NO_LIMIT);
    assert_int_equal(feed(&r,
                          "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n"
                          "\r\nok",
                          64, &left),
                     H1_DONE);
    assert_true(h1_resp_keeps_alive(&r));
}

static void a_reply_without_length_ends_with_the_connection(void **state)
{
    struct h1_resp r;
    size_t left;

    (void)state;
    h1_resp_begin(&r, 0, NO_LIMIT);
    assert_int_equal(feed(&r, "HTTP/1.0 200 OK\r\n\r\nuntil the end", 64, &left), H1_MORE);
    assert_int_equal(h1_resp_eof(&r), H1_DONE);
    assert_int_equal(r.body_bytes, strlen("until the end"));
    assert_false(h1_resp_keeps_alive(&r));
}

static void a_close_before_the_end_is_incomplete(void **state)
{
    struct h1_resp r;
    size_t left;

    (void)state;
    h1_resp_begin(&r, 0, NO_LIMIT);
    assert_int_equal(h1_resp_eof(&r), H1_MORE);
    assert_int_equal(r.raw_bytes, 0);
    h1_resp_begin(&r, 0, NO_LIMIT);
    assert_int_equal(feed(&r, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", 64, &left),
                     H1_MORE);
    assert_int_equal(h1_resp_eof(&r), H1_MORE);
    assert_true(r.raw_bytes > 0);
}

static void a_head_reply_has_no_body_whatever_its_length_says(void **state)
{
    struct h1_resp r;
    size_t left;

    (void)state;
    h1_resp_begin(&r, 1, NO_LIMIT);
    assert_int_equal(feed(&r, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", 64, &left),
                     H1_DONE);
    assert_int_equal(r.body_bytes, 0);
    assert_true(h1_resp_keeps_alive(&r));
}

static void interim_replies_are_skipped(void **state)
{
    struct h1_resp r;
    size_t left;

    (void)state;
    h1_resp_begin(&r, 0, NO_LIMIT);
    assert_int_equal(feed(&r,
                          "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\n"
                          "Content-Length: 0\r\n\r\n",
                          64, &left),
                     H1_DONE);
    assert_int_equal(r.status, 201);
}

static void a_body_over_max_body_is_cut(void **state)
{
    struct h1_resp r;
    size_t left;

    (void)state;
    h1_resp_begin(&r, 0, 4);
    assert_int_equal(feed(&r, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789", 64, &left),
                     H1_CUT);
    assert_int_equal(r.status, 200);
    assert_true(r.body_bytes > 4);
}

static void bytes_after_a_reply_are_left_over(void **state)
{
    struct h1_resp r;
    size_t left;

    (void)state;
    h1_resp_begin(&r, 0, NO_LIMIT);
    assert_int_equal(feed(&r, "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1", 64, &left), H1_DONE);
    assert_int_equal(left, strlen("HTTP/1.1"));
}

static void garbage_and_bad_status_lines_are_malformed(void **state)
{
    static const char *const replies[] = {
        "HTTP/1.1 2x0 Br\x01ken\r\nContent-Length: 0\r\n\r\n",
        "SSH-2.0-OpenSSH_9.2\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    };
    struct h1_resp r;
    size_t left;

    (void)state;
    for (size_t i = 0; i < sizeof(replies) / sizeof(replies[0]); i++) {
        h1_resp_begin(&r, 0, NO_LIMIT);
        assert_int_equal(feed(&r, replies[i], 64, &left), H1_MALFORMED);
        assert_true(strlen(h1_resp_error(&r)) > 0);
    }
}

/* RFC 9110, 5.5: no control character but tab in a field value, the
 * first byte included (libhttp-parser checks every byte but that one). */
static void a_control_character_anywhere_in_a_header_value_is_malformed(void **state)
{
    static const char *const replies[] = {
        "HTTP/1.1 200 OK\r\nX-Evil: \x07"
        "b\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX-Evil:\x1b[2J\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX-Evil: \x7f\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX-Evil: a\x07"
        "b\r\nContent-Length: 0\r\n\r\n",
    };
    struct h1_resp r;
    size_t left;

    (void)state;
    for (size_t i = 0; i < sizeof(replies) / sizeof(replies[0]); i++) {
        for (size_t step = 1; step <= 64; step += 63) {
            h1_resp_begin(&r, 0, NO_LIMIT);
            assert_int_equal(feed(&r, replies[i], step, &left), H1_MALFORMED);
        }
    }
    h1_resp_begin(&r, 0, NO_LIMIT);
    feed(&r, replies[0], 64, &left);
    assert_string_equal(h1_resp_error(&r), "a control character in a header line");
}

/* The status the server sent stays the reply's when the header lines after
 * it break (libcurl keeps it too); a status line that does not parse gives
 * none. */
static void a_status_that_parsed_is_kept_when_the_headers_break(void **state)
{
    static const struct {
        const char *reply;
        int status;
    } rows[] = {
        {"HTTP/1.1 200 OK\r\nX-Evil: \x07\r\nContent-Length: 0\r\n\r\n", 200},
        {"HTTP/1.1 503\r\nX-Evil:\x1b[2J\r\n\r\n", 503},
        {"HTTP/1.1 204 \r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 204},
        {"HTTP/1.1 2x0 Br\x01ken\r\nContent-Length: 0\r\n\r\n", 0},
    };
    struct h1_resp r;
    size_t left;

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        for (size_t step = 1; step <= 64; step += 63) {
            h1_resp_begin(&r, 0, NO_LIMIT);
            assert_int_equal(feed(&r, rows[i].reply, step, &left), H1_MALFORMED);
            assert_int_equal(r.status, rows[i].status);
        }
    }
}

static void tabs_and_plain_values_pass_the_value_check(void **state)
{
    const char *reply = "HTTP/1.1 200 OK\r\nX-A: \tb\r\nX-B: \r\nX-C: c d\r\n"
                        "Content-Length: 0\r\n\r\n";
    struct h1_resp r;
    size_t left;

    (void)state;
    for (size_t step = 1; step <= strlen(reply); step++) {
        h1_resp_begin(&r, 0, NO_LIMIT);
        assert_int_equal(feed(&r, reply, step, &left), H1_DONE);
    }
}

/* An endless run of "100 Continue" stops where libcurl stops, not at the
 * request's timeout. */
static void endless_interim_replies_are_malformed_past_the_header_limit(void **state)
{
    const char *interim = "HTTP/1.1 100 Continue\r\n\r\n";
    struct h1_resp r;
    size_t used, fed = 0;
    enum h1_resp_state st = H1_MORE;

    (void)state;
    h1_resp_begin(&r, 0, NO_LIMIT);
    while (st == H1_MORE && fed < 2 * H1_HEADERS_MAX_BYTES) {
        st = h1_resp_feed(&r, interim, strlen(interim), &used);
        fed += strlen(interim);
    }
    assert_int_equal(st, H1_MALFORMED);
    assert_true(fed > H1_HEADERS_MAX_BYTES && fed < H1_HEADERS_MAX_BYTES + 64);
    assert_non_null(strstr(h1_resp_error(&r), "300 KiB"));
}

/* ---- HTTP/2 header fields (h2_head) ----------------------------------- */

/* The fields of h as "name=value" lines, NUL-terminated, in buf. */
static const char *fields(const struct h2_head *h, char *buf, size_t cap)
{
    size_t at = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < h->n; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%.*s=%.*s\n", (int)h->nv[i].namelen,
                               (const char *)h->nv[i].name, (int)h->nv[i].valuelen,
                               (const char *)h->nv[i].value);
    return buf;
}

static void a_kinds_head_becomes_pseudo_fields_then_its_own(void **state)
{
    struct h1_kind k;
    struct h2_head h = {0};
    char *head = head_of("[target]\nurl = https://h.test:8443\nheader = X-Trace: a b \n"
                         "[request put]\nmethod = PUT\nurl = /kv/{seq}?x=1\n"
                         "header = ETag: \"v\"\nbody = hello\n",
                         0, 41, &k);
    char why[128], out[512];

    (void)state;
    assert_int_equal(h2_head_read(&h, head, strlen(head), "https", why, sizeof(why)), 0);
    /* Host is :authority, names are lower case, values lose their blanks,
     * Content-Length stays (HTTP/2 allows it). */
    assert_string_equal(fields(&h, out, sizeof(out)),
                        ":method=PUT\n:scheme=https\n:authority=h.test:8443\n:path=/kv/41?x=1\n"
                        "accept=*/*\nx-trace=a b\netag=\"v\"\ncontent-length=5\n");
    h2_head_free(&h);
    free(head);
    h1_kind_free(&k);
}

static void fields_http2_forbids_are_dropped(void **state)
{
    static const char head[] = "GET / HTTP/1.1\r\nHost: h.test\r\nConnection: keep-alive\r\n"
                               "Keep-Alive: 5\r\nProxy-Connection: x\r\nTransfer-Encoding: "
                               "chunked\r\nUpgrade: h2c\r\nTE: gzip\r\nte: Trailers\r\n"
                               "Cookie: a=1\r\n\r\n";
    struct h2_head h = {0};
    char why[128], out[512];

    (void)state;
    assert_int_equal(h2_head_read(&h, head, sizeof(head) - 1, "http", why, sizeof(why)), 0);
    assert_string_equal(fields(&h, out, sizeof(out)),
                        ":method=GET\n:scheme=http\n:authority=h.test\n:path=/\nte=Trailers\n"
                        "cookie=a=1\n");
    h2_head_free(&h);
}

static void a_head_without_host_has_no_authority(void **state)
{
    struct h1_kind k;
    struct h2_head h = {0};
    char *head =
        head_of("[target]\nurl = http://h.test/a\nheader = Host:\nheader = Accept:\n", 0, 0, &k);
    char why[128], out[256];

    (void)state;
    assert_int_equal(h2_head_read(&h, head, strlen(head), "http", why, sizeof(why)), 0);
    assert_string_equal(fields(&h, out, sizeof(out)), ":method=GET\n:scheme=http\n:path=/a\n");
    /* The same object reads the next head afresh. */
    assert_int_equal(
        h2_head_read(&h, "DELETE /b HTTP/1.1\r\nHost: x\r\n\r\n", 32, "https", why, sizeof(why)),
        0);
    assert_string_equal(fields(&h, out, sizeof(out)),
                        ":method=DELETE\n:scheme=https\n:authority=x\n:path=/b\n");
    h2_head_free(&h);
    free(head);
    h1_kind_free(&k);
}

static void what_is_not_a_request_head_says_why(void **state)
{
    static const char *const bad[] = {"", "GET\r\n\r\n", "GET /\r\n\r\n",
                                      "GET / HTTP/1.1\r\nno colon here\r\n\r\n",
                                      "GET / HTTP/1.1\r\n: empty name\r\n\r\n"};
    struct h2_head h = {0};
    char why[128];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        why[0] = '\0';
        assert_int_equal(h2_head_read(&h, bad[i], strlen(bad[i]), "http", why, sizeof(why)),
                         -EINVAL);
        assert_true(why[0] != '\0');
    }
    h2_head_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_origin_splits_host_port_and_its_length),
        cmocka_unit_test(a_control_character_anywhere_in_a_header_value_is_malformed),
        cmocka_unit_test(a_status_that_parsed_is_kept_when_the_headers_break),
        cmocka_unit_test(tabs_and_plain_values_pass_the_value_check),
        cmocka_unit_test(endless_interim_replies_are_malformed_past_the_header_limit),
        cmocka_unit_test(an_origin_without_port_is_port_80_and_v6_loses_its_brackets),
        cmocka_unit_test(an_https_origin_is_tls_on_port_443_unless_named),
        cmocka_unit_test(origins_h1_cannot_serve_say_why),
        cmocka_unit_test(a_fixed_get_is_serialised_once_as_libcurl_sends_it),
        cmocka_unit_test(placeholders_are_filled_in_place_between_method_and_version),
        cmocka_unit_test(headers_replace_or_remove_the_defaults),
        cmocka_unit_test(a_query_without_path_asks_for_the_root),
        cmocka_unit_test(a_content_length_reply_is_done_in_any_pieces),
        cmocka_unit_test(a_chunked_reply_counts_its_decoded_body),
        cmocka_unit_test(connection_close_and_http_1_0_end_keep_alive),
        cmocka_unit_test(a_reply_without_length_ends_with_the_connection),
        cmocka_unit_test(a_close_before_the_end_is_incomplete),
        cmocka_unit_test(a_head_reply_has_no_body_whatever_its_length_says),
        cmocka_unit_test(interim_replies_are_skipped),
        cmocka_unit_test(a_body_over_max_body_is_cut),
        cmocka_unit_test(bytes_after_a_reply_are_left_over),
        cmocka_unit_test(garbage_and_bad_status_lines_are_malformed),
        cmocka_unit_test(a_kinds_head_becomes_pseudo_fields_then_its_own),
        cmocka_unit_test(fields_http2_forbids_are_dropped),
        cmocka_unit_test(a_head_without_host_has_no_authority),
        cmocka_unit_test(what_is_not_a_request_head_says_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
