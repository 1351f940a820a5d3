#include "engine/classify.h"
#include "engine/curl/internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#define OK (-1) /* classify_transfer's "not a failure" */
#define MSG_MAX 512

/* One row per rule of classify.c and curl/code.c, and the edges between
 * them: libcurl's results, mapped as the curl transport maps them. */
static const struct row {
    CURLcode code;
    long os_errno;
    long status;
    int connected;
    int body_cut;
    int want;
} table[] = {
    /* Complete replies go by their status. */
    {CURLE_OK, 0, 100, 1, 0, OK},
    {CURLE_OK, 0, 200, 1, 0, OK},
    {CURLE_OK, 0, 204, 1, 0, OK},
    {CURLE_OK, 0, 301, 1, 0, OK},
    {CURLE_OK, 0, 399, 1, 0, OK},
    {CURLE_OK, 0, 400, 1, 0, ERR_HTTP_4XX},
    {CURLE_OK, 0, 404, 1, 0, ERR_HTTP_4XX},
    {CURLE_OK, 0, 499, 1, 0, ERR_HTTP_4XX},
    {CURLE_OK, 0, 500, 1, 0, ERR_HTTP_5XX},
    {CURLE_OK, 0, 503, 1, 0, ERR_HTTP_5XX},
    {CURLE_OK, 0, 599, 1, 0, ERR_HTTP_5XX},
    {CURLE_OK, 0, 0, 1, 0, ERR_MALFORMED},
    {CURLE_OK, 0, 99, 1, 0, ERR_MALFORMED},
    {CURLE_OK, 0, 600, 1, 0, ERR_MALFORMED},
    /* An errno left over from a failed attempt does not spoil a success. */
    {CURLE_OK, EMFILE, 200, 1, 0, OK},
    {CURLE_OK, ECONNREFUSED, 200, 1, 0, OK},
    /* A body cut at max_body on purpose is judged by the status. */
    {CURLE_WRITE_ERROR, 0, 200, 1, 1, OK},
    {CURLE_WRITE_ERROR, 0, 503, 1, 1, ERR_HTTP_5XX},
    {CURLE_WRITE_ERROR, 0, 200, 1, 0, ERR_OTHER},
    /* brink never sets CURLOPT_FAILONERROR: this is no reply to judge. */
    {CURLE_HTTP_RETURNED_ERROR, 0, 404, 1, 0, ERR_OTHER},
    /* Connecting. */
    {CURLE_COULDNT_CONNECT, ECONNREFUSED, 0, 0, 0, ERR_REFUSED},
    /* A unix socket whose path is not there: nobody listens. */
    {CURLE_COULDNT_CONNECT, ENOENT, 0, 0, 0, ERR_REFUSED},
    {CURLE_COULDNT_CONNECT, EMFILE, 0, 0, 0, ERR_LOCAL_FD_LIMIT},
    {CURLE_COULDNT_CONNECT, ENFILE, 0, 0, 0, ERR_LOCAL_FD_LIMIT},
    {CURLE_COULDNT_CONNECT, EADDRNOTAVAIL, 0, 0, 0, ERR_LOCAL_NO_PORTS},
    {CURLE_COULDNT_CONNECT, ETIMEDOUT, 0, 0, 0, ERR_CONNECT_TIMEOUT},
    {CURLE_COULDNT_CONNECT, EHOSTUNREACH, 0, 0, 0, ERR_CONNECT_TIMEOUT},
    {CURLE_COULDNT_CONNECT, ENETUNREACH, 0, 0, 0, ERR_CONNECT_TIMEOUT},
    {CURLE_COULDNT_CONNECT, EHOSTDOWN, 0, 0, 0, ERR_CONNECT_TIMEOUT},
    {CURLE_COULDNT_CONNECT, ENETDOWN, 0, 0, 0, ERR_CONNECT_TIMEOUT},
    {CURLE_COULDNT_CONNECT, ECONNRESET, 0, 0, 0, ERR_RESET},
    {CURLE_COULDNT_CONNECT, 0, 0, 0, 0, ERR_OTHER},
    {CURLE_COULDNT_CONNECT, EACCES, 0, 0, 0, ERR_OTHER},
    {CURLE_OPERATION_TIMEDOUT, 0, 0, 0, 0, ERR_CONNECT_TIMEOUT},
    {CURLE_OPERATION_TIMEDOUT, ETIMEDOUT, 0, 0, 0, ERR_CONNECT_TIMEOUT},
    {CURLE_OPERATION_TIMEDOUT, 0, 0, 1, 0, ERR_TIMEOUT},
    {CURLE_OPERATION_TIMEDOUT, 0, 200, 1, 0, ERR_TIMEOUT},
    {CURLE_COULDNT_RESOLVE_HOST, 0, 0, 0, 0, ERR_DNS},
    {CURLE_COULDNT_RESOLVE_PROXY, 0, 0, 0, 0, ERR_DNS},
    /* TLS. */
    {CURLE_SSL_CONNECT_ERROR, 0, 0, 0, 0, ERR_TLS},
    {CURLE_PEER_FAILED_VERIFICATION, 0, 0, 0, 0, ERR_TLS},
    {CURLE_SSL_CERTPROBLEM, 0, 0, 0, 0, ERR_TLS},
    {CURLE_SSL_CIPHER, 0, 0, 0, 0, ERR_TLS},
    {CURLE_SSL_CACERT_BADFILE, 0, 0, 0, 0, ERR_TLS},
    {CURLE_SSL_ENGINE_NOTFOUND, 0, 0, 0, 0, ERR_TLS},
    {CURLE_SSL_ENGINE_SETFAILED, 0, 0, 0, 0, ERR_TLS},
    {CURLE_SSL_ENGINE_INITFAILED, 0, 0, 0, 0, ERR_TLS},
    {CURLE_SSL_SHUTDOWN_FAILED, 0, 0, 1, 0, ERR_TLS},
    {CURLE_SSL_CRL_BADFILE, 0, 0, 0, 0, ERR_TLS},
    {CURLE_SSL_ISSUER_ERROR, 0, 0, 0, 0, ERR_TLS},
    {CURLE_SSL_PINNEDPUBKEYNOTMATCH, 0, 0, 0, 0, ERR_TLS},
    {CURLE_SSL_INVALIDCERTSTATUS, 0, 0, 0, 0, ERR_TLS},
    {CURLE_SSL_CLIENTCERT, 0, 0, 0, 0, ERR_TLS},
    {CURLE_USE_SSL_FAILED, 0, 0, 0, 0, ERR_TLS},
    /* Sending and receiving. */
    {CURLE_SEND_ERROR, EPIPE, 0, 1, 0, ERR_BROKEN_PIPE},
    {CURLE_SEND_ERROR, ECONNRESET, 0, 1, 0, ERR_RESET},
    {CURLE_SEND_ERROR, 0, 0, 1, 0, ERR_OTHER},
    {CURLE_RECV_ERROR, ECONNRESET, 0, 1, 0, ERR_RESET},
    {CURLE_RECV_ERROR, ECONNRESET, 200, 1, 0, ERR_RESET},
    /* A reset after the server's FIN, met by a read: the server closed. */
    {CURLE_RECV_ERROR, EPIPE, 0, 1, 0, ERR_CLOSED_EARLY},
    /* No errno on plain http: libcurl refused what it read (a bad chunk
     * size, headers past its limit). */
    {CURLE_RECV_ERROR, 0, 0, 1, 0, ERR_MALFORMED},
    {CURLE_RECV_ERROR, 0, 0, 0, 0, ERR_OTHER},
    {CURLE_GOT_NOTHING, 0, 0, 1, 0, ERR_CLOSED_EARLY},
    {CURLE_PARTIAL_FILE, 0, 200, 1, 0, ERR_CLOSED_EARLY},
    /* Not HTTP. */
    {CURLE_WEIRD_SERVER_REPLY, 0, 0, 1, 0, ERR_MALFORMED},
    {CURLE_UNSUPPORTED_PROTOCOL, 0, 0, 1, 0, ERR_MALFORMED},
    {CURLE_UNSUPPORTED_PROTOCOL, 0, 0, 0, 0, ERR_OTHER},
    {CURLE_BAD_CONTENT_ENCODING, 0, 200, 1, 0, ERR_MALFORMED},
    /* HTTP/2 without libcurl's words: the session or the stream ended
     * before the reply (h2_table has the words). */
    {CURLE_HTTP2, 0, 0, 1, 0, ERR_CLOSED_EARLY},
    {CURLE_HTTP2, 0, 0, 0, 0, ERR_MALFORMED},
    {CURLE_HTTP2_STREAM, 0, 0, 1, 0, ERR_CLOSED_EARLY},
    {CURLE_HTTP3, 0, 0, 1, 0, ERR_MALFORMED},
    /* brink's own limits, whatever the step that hit them. */
    {CURLE_RECV_ERROR, EMFILE, 0, 1, 0, ERR_LOCAL_FD_LIMIT},
    {CURLE_OUT_OF_MEMORY, EMFILE, 0, 0, 0, ERR_LOCAL_FD_LIMIT},
    {CURLE_FAILED_INIT, ENFILE, 0, 0, 0, ERR_LOCAL_FD_LIMIT},
    /* Everything else. */
    {CURLE_OUT_OF_MEMORY, 0, 0, 0, 0, ERR_OTHER},
    /* Connected, it is libcurl's cap on one header line. */
    {CURLE_OUT_OF_MEMORY, 0, 200, 1, 0, ERR_MALFORMED},
    {CURLE_TOO_MANY_REDIRECTS, 0, 301, 1, 0, ERR_OTHER},
    {CURLE_ABORTED_BY_CALLBACK, 0, 0, 1, 0, ERR_OTHER},
    {CURLE_URL_MALFORMAT, 0, 0, 0, 0, ERR_OTHER},
    {CURLE_FAILED_INIT, 0, 0, 0, 0, ERR_OTHER},
};

/* A transfer libcurl ended with code and errbuf's words (NULL: none),
 * mapped as the curl transport does. */
static struct transfer_result curl_result_said(CURLcode code, long os_errno, long status,
                                               int connected, int body_cut, const char *errbuf)
{
    return (struct transfer_result){
        .outcome = engine__curl_code_outcome(code, os_errno, connected, 0, body_cut, errbuf),
        .os_errno = os_errno,
        .http_status = status,
        .connected = connected,
    };
}

/* The same without words. */
static struct transfer_result curl_result(CURLcode code, long os_errno, long status, int connected,
                                          int body_cut)
{
    return (struct transfer_result){
        .outcome = engine__curl_code_outcome(code, os_errno, connected, 0, body_cut, NULL),
        .os_errno = os_errno,
        .http_status = status,
        .connected = connected,
    };
}

static struct transfer_result result_of(const struct row *r)
{
    return curl_result(r->code, r->os_errno, r->status, r->connected, r->body_cut);
}

/* The expect sets of the rows below, made by make_sets. */
enum { SET_200_404, SET_404, SET_2XX, SET_200_503, N_SETS };
static struct status_set sets[N_SETS];

static void make_sets(void)
{
    memset(sets, 0, sizeof(sets));
    status_set_add(&sets[SET_200_404], 200, 200);
    status_set_add(&sets[SET_200_404], 404, 404);
    status_set_add(&sets[SET_404], 404, 404);
    status_set_add(&sets[SET_2XX], 200, 299);
    status_set_add(&sets[SET_200_503], 200, 200);
    status_set_add(&sets[SET_200_503], 503, 503);
}

/* Statuses against a kind's expect set: in it is ok; out of it, 4xx and 5xx
 * keep their classes and the rest is unexpected_status. */
static const struct expect_row {
    int set;
    CURLcode code;
    long os_errno;
    long status;
    int body_cut;
    int want;
} expect_table[] = {
    {SET_200_404, CURLE_OK, 0, 200, 0, OK},
    {SET_200_404, CURLE_OK, 0, 404, 0, OK},
    {SET_200_404, CURLE_OK, 0, 403, 0, ERR_HTTP_4XX},
    {SET_200_404, CURLE_OK, 0, 503, 0, ERR_HTTP_5XX},
    {SET_200_404, CURLE_OK, 0, 204, 0, ERR_UNEXPECTED_STATUS},
    {SET_200_404, CURLE_OK, 0, 301, 0, ERR_UNEXPECTED_STATUS},
    {SET_404, CURLE_OK, 0, 200, 0, ERR_UNEXPECTED_STATUS},
    {SET_404, CURLE_OK, 0, 100, 0, ERR_UNEXPECTED_STATUS},
    {SET_404, CURLE_OK, 0, 404, 0, OK},
    {SET_404, CURLE_OK, 0, 405, 0, ERR_HTTP_4XX},
    {SET_2XX, CURLE_OK, 0, 200, 0, OK},
    {SET_2XX, CURLE_OK, 0, 299, 0, OK},
    {SET_2XX, CURLE_OK, 0, 199, 0, ERR_UNEXPECTED_STATUS},
    {SET_2XX, CURLE_OK, 0, 302, 0, ERR_UNEXPECTED_STATUS},
    {SET_2XX, CURLE_OK, 0, 404, 0, ERR_HTTP_4XX},
    {SET_200_503, CURLE_OK, 0, 503, 0, OK},
    {SET_200_503, CURLE_OK, 0, 500, 0, ERR_HTTP_5XX},
    /* No status line, or one no set can hold, is still malformed. */
    {SET_2XX, CURLE_OK, 0, 0, 0, ERR_MALFORMED},
    {SET_2XX, CURLE_OK, 0, 600, 0, ERR_MALFORMED},
    /* A body cut on purpose is judged by its status, against the set. */
    {SET_404, CURLE_WRITE_ERROR, 0, 404, 1, OK},
    {SET_404, CURLE_WRITE_ERROR, 0, 200, 1, ERR_UNEXPECTED_STATUS},
    /* A failed transfer is never ok, whatever status it had. */
    {SET_404, CURLE_RECV_ERROR, ECONNRESET, 404, 0, ERR_RESET},
    {SET_404, CURLE_PARTIAL_FILE, 0, 404, 0, ERR_CLOSED_EARLY},
    {SET_404, CURLE_OPERATION_TIMEDOUT, 0, 404, 0, ERR_TIMEOUT},
};

static struct transfer_result expect_result_of(const struct expect_row *r)
{
    struct transfer_result t = curl_result(r->code, r->os_errno, r->status, 1, r->body_cut);

    t.expect = &sets[r->set];
    return t;
}

static void each_row_of_the_table_lands_in_its_class(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        struct transfer_result r = result_of(&table[i]);
        int got = classify_transfer(&r);

        if (got != table[i].want)
            print_error("row %zu: curl %d errno %ld status %ld connected %d cut %d: got %d, "
                        "want %d\n",
                        i, (int)table[i].code, r.os_errno, r.http_status, r.connected,
                        table[i].body_cut, got, table[i].want);
        assert_int_equal(got, table[i].want);
    }
}

/* libcurl reports a lookup that timed out as CURLE_OPERATION_TIMEDOUT, as it
 * does a connect that timed out; the transports tell the two apart and say
 * TRANSFER_DNS for the first. */
static void a_timeout_in_the_name_lookup_is_dns(void **state)
{
    struct transfer_result r = {.outcome = TRANSFER_DNS};
    char buf[256];

    (void)state;
    assert_int_equal(classify_transfer(&r), ERR_DNS);
    classify_message(&r, "curl 28: Resolving timed out after 1000 milliseconds", buf, sizeof(buf));
    assert_string_equal(
        buf, "host name did not resolve (curl 28: Resolving timed out after 1000 milliseconds)");
    r.outcome = TRANSFER_TIMEOUT;
    assert_int_equal(classify_transfer(&r), ERR_CONNECT_TIMEOUT);
    /* Out of sockets is brink's own limit, whatever the step. */
    r.outcome = TRANSFER_DNS;
    r.os_errno = EMFILE;
    assert_int_equal(classify_transfer(&r), ERR_LOCAL_FD_LIMIT);
}

static void every_class_is_reachable(void **state)
{
    int seen[ERR__COUNT] = {0};

    (void)state;
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        struct transfer_result r = result_of(&table[i]);
        int got = classify_transfer(&r);

        if (got >= 0)
            seen[got] = 1;
    }
    make_sets();
    for (size_t i = 0; i < sizeof(expect_table) / sizeof(expect_table[0]); i++) {
        struct transfer_result r = expect_result_of(&expect_table[i]);
        int got = classify_transfer(&r);

        if (got >= 0)
            seen[got] = 1;
    }
    /* A scenario script's failed iteration is no transfer: the engine
     * counts it (scene.c), and test_scenario.sh sees it. */
    seen[ERR_SCRIPT] = 1;
    for (int c = 0; c < ERR__COUNT; c++) {
        if (!seen[c])
            print_error("no row reaches %s\n", errclass_name((enum errclass)c));
        assert_true(seen[c]);
    }
}

static void statuses_are_judged_against_the_kinds_expect_set(void **state)
{
    (void)state;
    make_sets();
    for (size_t i = 0; i < sizeof(expect_table) / sizeof(expect_table[0]); i++) {
        struct transfer_result r = expect_result_of(&expect_table[i]);
        int got = classify_transfer(&r);

        if (got != expect_table[i].want)
            print_error("expect row %zu: curl %d status %ld: got %d, want %d\n", i,
                        (int)expect_table[i].code, r.http_status, got, expect_table[i].want);
        assert_int_equal(got, expect_table[i].want);
    }
}

/* expect's default, 100-399, is the rule from before expect existed: with
 * it every reply lands where it did with no set at all. */
static void the_default_expect_set_judges_as_no_set_did(void **state)
{
    static const enum transfer_outcome outcomes[] = {TRANSFER_OK, TRANSFER_BODY_CUT,
                                                     TRANSFER_CLOSED_PARTIAL, TRANSFER_OTHER};
    struct status_set def = {{0}};

    (void)state;
    status_set_add(&def, 100, 399);
    for (size_t c = 0; c < sizeof(outcomes) / sizeof(outcomes[0]); c++) {
        for (long status = 0; status < 1000; status++) {
            struct transfer_result none = {outcomes[c], 0, status, 1, NULL, 0};
            struct transfer_result with = {outcomes[c], 0, status, 1, &def, 0};

            assert_int_equal(classify_transfer(&with), classify_transfer(&none));
        }
    }
}

/* An exchange of a script's connection (brink.tcp, brink.ws) has no
 * status: a whole reply succeeds, failures classify as HTTP's do, and a
 * brink.ws upgrade refused with an error status is that status's class. */
static void an_exchange_succeeds_without_a_status(void **state)
{
    struct transfer_result r = {.outcome = TRANSFER_OK, .connected = 1, .is_exchange = 1};

    (void)state;
    assert_int_equal(classify_transfer(&r), -1);
    r.http_status = 404;
    assert_int_equal(classify_transfer(&r), ERR_HTTP_4XX);
    r.http_status = 503;
    assert_int_equal(classify_transfer(&r), ERR_HTTP_5XX);
    r = (struct transfer_result){
        .outcome = TRANSFER_CLOSED_PARTIAL, .connected = 1, .is_exchange = 1};
    assert_int_equal(classify_transfer(&r), ERR_CLOSED_EARLY);
    r = (struct transfer_result){
        .outcome = TRANSFER_CONNECT, .os_errno = ECONNREFUSED, .is_exchange = 1};
    assert_int_equal(classify_transfer(&r), ERR_REFUSED);
    r = (struct transfer_result){.outcome = TRANSFER_TIMEOUT, .is_exchange = 1};
    assert_int_equal(classify_transfer(&r), ERR_CONNECT_TIMEOUT);
    /* Without the flag, a whole reply with no status is malformed HTTP. */
    r = (struct transfer_result){.outcome = TRANSFER_OK, .connected = 1};
    assert_int_equal(classify_transfer(&r), ERR_MALFORMED);
}

static void an_unexpected_status_names_the_status_and_the_expected_set(void **state)
{
    struct transfer_result r = {TRANSFER_OK, 0, 200, 1, NULL, 0};
    char buf[MSG_MAX];

    (void)state;
    make_sets();
    r.expect = &sets[SET_404];
    classify_message(&r, "", buf, sizeof(buf));
    assert_string_equal(buf, "status 200, expected 404");
    r.expect = &sets[SET_2XX];
    r.http_status = 302;
    classify_message(&r, "", buf, sizeof(buf));
    assert_string_equal(buf, "status 302, expected 200-299");
    r.expect = &sets[SET_200_404];
    r.http_status = 301;
    classify_message(&r, "", buf, sizeof(buf));
    assert_string_equal(buf, "status 301, expected 200, 404");
    /* A 4xx outside the set keeps its usual words. */
    r.expect = &sets[SET_2XX];
    r.http_status = 404;
    classify_message(&r, "", buf, sizeof(buf));
    assert_string_equal(buf, "HTTP 404");
}

static void every_failed_transfer_lands_in_exactly_one_class(void **state)
{
    static const long errnos[] = {0,         EPIPE,  ECONNRESET,    ECONNREFUSED,
                                  ETIMEDOUT, EMFILE, EADDRNOTAVAIL, EHOSTUNREACH,
                                  EINTR,     -1,     100000};
    static const long statuses[] = {0, 200, 404, 503};

    (void)state;
    for (int code = 1; code < CURL_LAST; code++) {
        for (size_t e = 0; e < sizeof(errnos) / sizeof(errnos[0]); e++) {
            for (size_t s = 0; s < sizeof(statuses) / sizeof(statuses[0]); s++) {
                for (int connected = 0; connected <= 1; connected++) {
                    struct transfer_result r =
                        curl_result((CURLcode)code, errnos[e], statuses[s], connected, 0);
                    int got = classify_transfer(&r);

                    /* One class, never "succeeded". */
                    assert_true(got >= 0 && got < ERR__COUNT);
                }
            }
        }
    }
}

/* The message for r with curl's error buffer holding curl_error. */
static const char *message(CURLcode code, long os_errno, long status, int connected,
                           const char *curl_error, char *buf)
{
    struct transfer_result r = curl_result_said(code, os_errno, status, connected, 0, curl_error);
    char words[MSG_MAX];

    engine__curl_code_words(code, connected, curl_error, words, sizeof(words));
    classify_message(&r, words, buf, MSG_MAX);
    return buf;
}

static void a_refusal_shows_curls_words_and_the_errno(void **state)
{
    char buf[MSG_MAX], want[MSG_MAX];

    (void)state;
    snprintf(want, sizeof(want),
             "connection refused (curl 7: Failed to connect to 127.0.0.1 port 1 after 0 ms: "
             "Couldn't connect to server; errno %d: %s)",
             ECONNREFUSED, strerror(ECONNREFUSED));
    assert_string_equal(
        message(CURLE_COULDNT_CONNECT, ECONNREFUSED, 0, 0,
                "Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server",
                buf),
        want);
}

static void an_errno_already_in_curls_words_is_not_repeated(void **state)
{
    char buf[MSG_MAX];

    (void)state;
    assert_string_equal(
        message(CURLE_RECV_ERROR, ECONNRESET, 0, 1, "Recv failure: Connection reset by peer", buf),
        "connection reset by peer (curl 56: Recv failure: Connection reset by peer)");
}

static void an_http_status_is_shown_alone(void **state)
{
    char buf[MSG_MAX];

    (void)state;
    assert_string_equal(message(CURLE_OK, 0, 503, 1, "", buf), "HTTP 503");
    assert_string_equal(message(CURLE_OK, 0, 404, 1, NULL, buf), "HTTP 404");
}

static void an_empty_error_buffer_falls_back_to_curls_text_for_the_code(void **state)
{
    char buf[MSG_MAX];

    (void)state;
    assert_string_equal(message(CURLE_OPERATION_TIMEDOUT, 0, 0, 1, "", buf),
                        "request timed out (curl 28: Timeout was reached)");
    assert_string_equal(message(CURLE_GOT_NOTHING, 0, 0, 1, NULL, buf),
                        "the server closed before a full reply (curl 52: Server returned nothing "
                        "(no headers, no data))");
}

static void a_trailing_newline_from_curl_is_dropped(void **state)
{
    char buf[MSG_MAX];

    (void)state;
    assert_string_equal(message(CURLE_GOT_NOTHING, 0, 0, 1, "Empty reply from server\r\n", buf),
                        "the server closed before a full reply (curl 52: Empty reply from server)");
}

/* libcurl stops a header line at 100 KiB with its out-of-memory code: the
 * message says what the server did, not that brink ran out of memory. */
static void an_endless_header_line_is_malformed_not_out_of_memory(void **state)
{
    char buf[MSG_MAX];

    (void)state;
    message(CURLE_OUT_OF_MEMORY, 0, 0, 1, "", buf);
    assert_non_null(strstr(buf, "malformed reply"));
    assert_non_null(strstr(buf, "header line"));
    assert_null(strstr(buf, "Out of memory"));
}

static void local_limits_say_how_to_raise_them(void **state)
{
    char buf[MSG_MAX];

    (void)state;
    assert_non_null(strstr(message(CURLE_COULDNT_CONNECT, EMFILE, 0, 0, "", buf), "ulimit -n"));
    assert_non_null(strstr(message(CURLE_COULDNT_CONNECT, EADDRNOTAVAIL, 0, 0, "", buf),
                           "ip_local_port_range"));
}

static void replies_without_a_usable_status_are_malformed(void **state)
{
    char buf[MSG_MAX];

    (void)state;
    assert_string_equal(message(CURLE_OK, 0, 0, 1, "", buf),
                        "malformed reply: no HTTP status line");
    assert_string_equal(message(CURLE_OK, 0, 999, 1, "", buf),
                        "malformed reply: status 999 (expected 100 to 599)");
}

static void a_body_cut_on_purpose_says_so(void **state)
{
    struct transfer_result r = curl_result(CURLE_WRITE_ERROR, 0, 200, 1, 1);
    char buf[MSG_MAX];

    (void)state;
    classify_message(&r, "curl 23: Failure writing output to destination", buf, sizeof(buf));
    assert_string_equal(buf, "HTTP 200, body cut at max_body");
}

/* How HTTP/2 streams end without their reply, told apart by libcurl
 * 7.88's words (the e2e test h2_faults sees them from a real server). */
static const struct h2_row {
    CURLcode code;
    int is_tls;
    const char *errbuf;
    int want;
    const char *message; /* how the message starts */
} h2_table[] = {
    /* RST_STREAM from the server. */
    {CURLE_HTTP2_STREAM, 0, "HTTP/2 stream 1 was not closed cleanly: INTERNAL_ERROR (err 2)",
     ERR_RESET, "stream reset by the server (curl 92: HTTP/2 stream 1 was not closed cleanly: "},
    {CURLE_HTTP2_STREAM, 1, "HTTP/2 stream 7 was not closed cleanly: CANCEL (err 8)", ERR_RESET,
     "stream reset by the server"},
    /* A side broke the protocol. */
    {CURLE_HTTP2_STREAM, 0, "HTTP/2 stream 3 was not closed cleanly: PROTOCOL_ERROR (err 1)",
     ERR_MALFORMED, "malformed reply"},
    /* nghttp2 reset a stream whose DATA passed its window (or the server
     * said a side did): the protocol broken, as h1 calls it. */
    {CURLE_HTTP2_STREAM, 0, "HTTP/2 stream 1 was not closed cleanly: FLOW_CONTROL_ERROR (err 3)",
     ERR_MALFORMED, "malformed reply (curl 92: HTTP/2 stream 1 was not closed cleanly: FLOW"},
    {CURLE_HTTP2_STREAM, 1, "HTTP/2 stream 5 was not closed cleanly: STREAM_CLOSED (err 5)",
     ERR_MALFORMED, "malformed reply"},
    {CURLE_HTTP2_STREAM, 0, "HTTP/2 stream 1 was not closed cleanly: FRAME_SIZE_ERROR (err 6)",
     ERR_MALFORMED, "malformed reply"},
    {CURLE_HTTP2_STREAM, 0, "HTTP/2 stream 1 was not closed cleanly: COMPRESSION_ERROR (err 9)",
     ERR_MALFORMED, "malformed reply"},
    {CURLE_HTTP2_STREAM, 0, "HTTP/2 stream 1 was not closed cleanly: ENHANCE_YOUR_CALM (err 11)",
     ERR_RESET, "stream reset by the server"},
    {CURLE_HTTP2_STREAM, 0,
     "HTTP/2 stream 1 was closed cleanly, but before getting  all response header fields, treated as error",
     ERR_CLOSED_EARLY, "the server closed before a full reply"},
    /* A GOAWAY that left the stream out. */
    {CURLE_HTTP2, 0, "", ERR_CLOSED_EARLY,
     "the server closed before a full reply (curl 16: the server ended the HTTP/2 connection (GOAWAY) before the reply)"},
    {CURLE_HTTP2, 0, "nghttp2_session_send() failed: The user callback function failed(-902)",
     ERR_MALFORMED, "malformed reply"},
    /* Refused on every new connection libcurl tried. */
    {CURLE_RECV_ERROR, 0, "Connection died, tried 5 times before giving up", ERR_CLOSED_EARLY,
     "the server closed before a full reply (curl 56: Connection died, tried 5 times"},
    {CURLE_RECV_ERROR, 1, "Connection died, tried 5 times before giving up", ERR_CLOSED_EARLY,
     "the server closed before a full reply"},
    /* Frames nghttp2 could not take. */
    {CURLE_RECV_ERROR, 1,
     "h2_process_pending_input: nghttp2_session_mem_recv() returned -505:Invalid frame length",
     ERR_MALFORMED, "malformed reply"},
    /* The connection ended under the stream: GOAWAY with an error, a crash. */
    {CURLE_PARTIAL_FILE, 0,
     "HTTP/2 stream 1 was not closed cleanly before end of the underlying stream", ERR_CLOSED_EARLY,
     "the server closed before a full reply"},
};

static void http2_stream_ends_land_in_their_classes(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(h2_table) / sizeof(h2_table[0]); i++) {
        const struct h2_row *row = &h2_table[i];
        struct transfer_result r = {
            .outcome = engine__curl_code_outcome(row->code, 0, 1, row->is_tls, 0, row->errbuf),
            .connected = 1,
        };
        char words[MSG_MAX], buf[MSG_MAX];

        engine__curl_code_words(row->code, 1, row->errbuf, words, sizeof(words));
        classify_message(&r, words, buf, sizeof(buf));
        if (classify_transfer(&r) != row->want || strncmp(buf, row->message, strlen(row->message)))
            print_error("h2 row %zu: got class %d \"%s\", want %d \"%s...\"\n", i,
                        classify_transfer(&r), buf, row->want, row->message);
        assert_int_equal(classify_transfer(&r), row->want);
        assert_memory_equal(buf, row->message, strlen(row->message));
    }
}

/* Every code libcurl has for TLS, whatever the phase: the handshake, the
 * certificates, the keys, the engines. */
static void every_tls_code_is_tls(void **state)
{
    static const CURLcode codes[] = {
        CURLE_SSL_CONNECT_ERROR,
        CURLE_SSL_ENGINE_NOTFOUND,
        CURLE_SSL_ENGINE_SETFAILED,
        CURLE_SSL_CERTPROBLEM,
        CURLE_SSL_CIPHER,
        CURLE_PEER_FAILED_VERIFICATION,
        CURLE_USE_SSL_FAILED,
        CURLE_SSL_ENGINE_INITFAILED,
        CURLE_SSL_CACERT_BADFILE,
        CURLE_SSL_SHUTDOWN_FAILED,
        CURLE_SSL_CRL_BADFILE,
        CURLE_SSL_ISSUER_ERROR,
        CURLE_SSL_PINNEDPUBKEYNOTMATCH,
        CURLE_SSL_INVALIDCERTSTATUS,
        CURLE_SSL_CLIENTCERT,
    };
    static const int numbers[] = {35, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91, 98};

    (void)state;
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        assert_int_equal((int)codes[i], numbers[i]);
        for (int connected = 0; connected <= 1; connected++) {
            struct transfer_result r = curl_result(codes[i], 0, 0, connected, 0);

            assert_int_equal(classify_transfer(&r), ERR_TLS);
        }
    }
}

/* OpenSSL's reason comes first in the words, where a report that cuts the
 * message still shows it. */
static void a_certificate_failure_says_why(void **state)
{
    char buf[MSG_MAX];

    (void)state;
    assert_string_equal(message(CURLE_PEER_FAILED_VERIFICATION, 0, 0, 1,
                                "SSL certificate problem: certificate has expired", buf),
                        "TLS handshake or certificate failure (curl 60: certificate has expired)");
    assert_string_equal(
        message(CURLE_PEER_FAILED_VERIFICATION, 0, 0, 1,
                "SSL: no alternative certificate subject name matches target host name 'a.test'",
                buf),
        "TLS handshake or certificate failure (curl 60: SSL: no alternative certificate subject name matches target host name 'a.test')");
}

static void messages_are_one_line_and_fit_their_buffer(void **state)
{
    char buf[MSG_MAX], small[8] = "xxxxxxx";

    (void)state;
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        struct transfer_result r = result_of(&table[i]);

        classify_message(&r, "", buf, sizeof(buf));
        assert_true(strlen(buf) > 0);
        assert_null(strchr(buf, '\n'));
    }
    classify_message(&(struct transfer_result){TRANSFER_OK, 0, 503, 1, NULL, 0}, "", small, 5);
    assert_string_equal(small, "HTTP");
    classify_message(&(struct transfer_result){TRANSFER_OK, 0, 503, 1, NULL, 0}, "", small, 0);
    assert_string_equal(small, "HTTP");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_row_of_the_table_lands_in_its_class),
        cmocka_unit_test(a_timeout_in_the_name_lookup_is_dns),
        cmocka_unit_test(every_class_is_reachable),
        cmocka_unit_test(every_failed_transfer_lands_in_exactly_one_class),
        cmocka_unit_test(statuses_are_judged_against_the_kinds_expect_set),
        cmocka_unit_test(the_default_expect_set_judges_as_no_set_did),
        cmocka_unit_test(an_exchange_succeeds_without_a_status),
        cmocka_unit_test(an_unexpected_status_names_the_status_and_the_expected_set),
        cmocka_unit_test(a_refusal_shows_curls_words_and_the_errno),
        cmocka_unit_test(an_errno_already_in_curls_words_is_not_repeated),
        cmocka_unit_test(an_http_status_is_shown_alone),
        cmocka_unit_test(an_empty_error_buffer_falls_back_to_curls_text_for_the_code),
        cmocka_unit_test(a_trailing_newline_from_curl_is_dropped),
        cmocka_unit_test(an_endless_header_line_is_malformed_not_out_of_memory),
        cmocka_unit_test(local_limits_say_how_to_raise_them),
        cmocka_unit_test(replies_without_a_usable_status_are_malformed),
        cmocka_unit_test(a_body_cut_on_purpose_says_so),
        cmocka_unit_test(messages_are_one_line_and_fit_their_buffer),
        cmocka_unit_test(http2_stream_ends_land_in_their_classes),
        cmocka_unit_test(every_tls_code_is_tls),
        cmocka_unit_test(a_certificate_failure_says_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
