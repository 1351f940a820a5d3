#include "engine/classify.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define ANY_ERRNO (-1L)

/* When a rule applies, by whether the connection had been established. */
enum phase {
    EITHER,
    BEFORE_CONNECT,
    AFTER_CONNECT,
};

/*
 * Failures by libcurl code and OS errno. The first matching row wins, so a
 * code's rows with a specific errno come before its ANY_ERRNO row; a failure
 * no row matches is ERR_OTHER. EMFILE and ENFILE are decided before the
 * table, whatever the code.
 */
static const struct rule {
    CURLcode code;
    long os_errno; /* ANY_ERRNO: whatever it is */
    enum phase phase;
    enum errclass class;
} rules[] = {
    {CURLE_COULDNT_CONNECT, ECONNREFUSED, EITHER, ERR_REFUSED},
    {CURLE_COULDNT_CONNECT, EADDRNOTAVAIL, EITHER, ERR_LOCAL_NO_PORTS},
    /* The SYN got no answer (the kernel gave up), or there was no route to
     * the host: the network's doing, which connect_timeout stands for. The
     * message keeps the errno's words. */
    {CURLE_COULDNT_CONNECT, ETIMEDOUT, EITHER, ERR_CONNECT_TIMEOUT},
    {CURLE_COULDNT_CONNECT, EHOSTUNREACH, EITHER, ERR_CONNECT_TIMEOUT},
    {CURLE_COULDNT_CONNECT, ENETUNREACH, EITHER, ERR_CONNECT_TIMEOUT},
    {CURLE_COULDNT_CONNECT, EHOSTDOWN, EITHER, ERR_CONNECT_TIMEOUT},
    {CURLE_COULDNT_CONNECT, ENETDOWN, EITHER, ERR_CONNECT_TIMEOUT},
    {CURLE_COULDNT_CONNECT, ECONNRESET, EITHER, ERR_RESET},
    /* libcurl reports both its connect timeout and the request's timeout as
     * CURLE_OPERATION_TIMEDOUT; only the phase tells them apart. */
    {CURLE_OPERATION_TIMEDOUT, ANY_ERRNO, BEFORE_CONNECT, ERR_CONNECT_TIMEOUT},
    {CURLE_OPERATION_TIMEDOUT, ANY_ERRNO, AFTER_CONNECT, ERR_TIMEOUT},
    {CURLE_COULDNT_RESOLVE_HOST, ANY_ERRNO, EITHER, ERR_DNS},
    {CURLE_COULDNT_RESOLVE_PROXY, ANY_ERRNO, EITHER, ERR_DNS},
    {CURLE_SSL_CONNECT_ERROR, ANY_ERRNO, EITHER, ERR_TLS},
    {CURLE_SSL_ENGINE_NOTFOUND, ANY_ERRNO, EITHER, ERR_TLS},
    {CURLE_SSL_ENGINE_SETFAILED, ANY_ERRNO, EITHER, ERR_TLS},
    {CURLE_SSL_CERTPROBLEM, ANY_ERRNO, EITHER, ERR_TLS},
    {CURLE_SSL_CIPHER, ANY_ERRNO, EITHER, ERR_TLS},
    {CURLE_PEER_FAILED_VERIFICATION, ANY_ERRNO, EITHER, ERR_TLS},
    {CURLE_USE_SSL_FAILED, ANY_ERRNO, EITHER, ERR_TLS},
    {CURLE_SSL_ENGINE_INITFAILED, ANY_ERRNO, EITHER, ERR_TLS},
    {CURLE_SSL_CACERT_BADFILE, ANY_ERRNO, EITHER, ERR_TLS},
    {CURLE_SSL_SHUTDOWN_FAILED, ANY_ERRNO, EITHER, ERR_TLS},
    {CURLE_SSL_CRL_BADFILE, ANY_ERRNO, EITHER, ERR_TLS},
    {CURLE_SSL_ISSUER_ERROR, ANY_ERRNO, EITHER, ERR_TLS},
    {CURLE_SSL_PINNEDPUBKEYNOTMATCH, ANY_ERRNO, EITHER, ERR_TLS},
    {CURLE_SSL_INVALIDCERTSTATUS, ANY_ERRNO, EITHER, ERR_TLS},
    {CURLE_SSL_CLIENTCERT, ANY_ERRNO, EITHER, ERR_TLS},
    {CURLE_SEND_ERROR, EPIPE, EITHER, ERR_BROKEN_PIPE},
    {CURLE_SEND_ERROR, ECONNRESET, EITHER, ERR_RESET},
    {CURLE_RECV_ERROR, ECONNRESET, EITHER, ERR_RESET},
    {CURLE_GOT_NOTHING, ANY_ERRNO, EITHER, ERR_CLOSED_EARLY},
    {CURLE_PARTIAL_FILE, ANY_ERRNO, EITHER, ERR_CLOSED_EARLY},
    {CURLE_WEIRD_SERVER_REPLY, ANY_ERRNO, EITHER, ERR_MALFORMED},
    /* Once connected, this is libcurl's "Unsupported HTTP version in
     * response"; before, a URL scheme libcurl was built without. */
    {CURLE_UNSUPPORTED_PROTOCOL, ANY_ERRNO, AFTER_CONNECT, ERR_MALFORMED},
    {CURLE_BAD_CONTENT_ENCODING, ANY_ERRNO, EITHER, ERR_MALFORMED},
    {CURLE_HTTP2, ANY_ERRNO, EITHER, ERR_MALFORMED},
    {CURLE_HTTP2_STREAM, ANY_ERRNO, EITHER, ERR_MALFORMED},
    {CURLE_HTTP3, ANY_ERRNO, EITHER, ERR_MALFORMED},
};

/* The first words of a failure's message, by class. HTTP classes are shown
 * as "HTTP 503" instead. */
static const char *const reasons[ERR__COUNT] = {
    [ERR_REFUSED] = "connection refused",
    [ERR_CONNECT_TIMEOUT] = "no answer to the connect",
    [ERR_DNS] = "host name did not resolve",
    [ERR_TLS] = "TLS handshake or certificate failure",
    [ERR_RESET] = "connection reset by peer",
    [ERR_BROKEN_PIPE] = "broken pipe: the server closed while brink was sending",
    [ERR_CLOSED_EARLY] = "the server closed before a full reply",
    [ERR_TIMEOUT] = "request timed out",
    [ERR_MALFORMED] = "malformed reply",
    [ERR_HTTP_4XX] = "client error",
    [ERR_HTTP_5XX] = "server error",
    [ERR_LOCAL_FD_LIMIT] = "brink ran out of file descriptors (raise ulimit -n)",
    [ERR_LOCAL_NO_PORTS] =
        "brink ran out of local ports (keep keepalive on, or widen net.ipv4.ip_local_port_range)",
    [ERR_OTHER] = "request failed",
    [ERR_UNEXPECTED_STATUS] = "unexpected status",
};

/* A complete reply judged by its status: -1 for one of expect (NULL: 1xx,
 * 2xx and 3xx). A 4xx or 5xx outside it keeps the class operators watch
 * for it; only the others are unexpected_status. */
static int by_status(long status, const struct status_set *expect)
{
    /* 0 means no status line came; RFC 9110 defines only 100 to 599. */
    if (status < STATUS_SET_LOW || status > STATUS_SET_HIGH)
        return ERR_MALFORMED;
    if (expect ? status_set_has(expect, status) : status < 400)
        return -1;
    if (status >= 500)
        return ERR_HTTP_5XX;
    if (status >= 400)
        return ERR_HTTP_4XX;
    return ERR_UNEXPECTED_STATUS;
}

/* Whether the reply came in full, or as far as we wanted it, so that its
 * status decides. */
static int is_complete(const struct transfer_result *r)
{
    return r->code == CURLE_OK || (r->code == CURLE_WRITE_ERROR && r->body_cut);
}

static int phase_matches(enum phase p, int connected)
{
    return p == EITHER || (p == AFTER_CONNECT) == (connected != 0);
}

int classify_transfer(const struct transfer_result *r)
{
    if (is_complete(r))
        return by_status(r->http_status, r->expect);
    /* With CURLOPT_FAILONERROR libcurl fails on a status >= 400. The reply
     * was not read, so expect does not make it a success. */
    if (r->code == CURLE_HTTP_RETURNED_ERROR && r->http_status >= 400 && r->http_status < 600)
        return by_status(r->http_status, NULL);
    /* Whatever the step, a socket, pipe or file could not be opened here. */
    if (r->os_errno == EMFILE || r->os_errno == ENFILE)
        return ERR_LOCAL_FD_LIMIT;
    /* A timeout in the name lookup is the DNS server's silence, not the
     * target's: libcurl says CURLE_OPERATION_TIMEDOUT for both. */
    if (r->in_lookup)
        return ERR_DNS;
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        const struct rule *rule = &rules[i];

        if (rule->code == r->code &&
            (rule->os_errno == ANY_ERRNO || rule->os_errno == r->os_errno) &&
            phase_matches(rule->phase, r->connected))
            return rule->class;
    }
    return ERR_OTHER;
}

/* Length of s without the line ends and blanks libcurl may leave at its end. */
static int trimmed_len(const char *s)
{
    size_t n = strnlen(s, CURL_ERROR_SIZE);

    while (n > 0 && strchr("\r\n\t ", s[n - 1]))
        n--;
    return (int)n;
}

/* Writes "; errno N: words" into buf when the OS error adds something to
 * words[0..len); "" otherwise. */
static void errno_note(long os_errno, const char *words, int len, char *buf, size_t cap)
{
    char text[128];

    buf[0] = '\0';
    if (os_errno <= 0 || os_errno > 4095)
        return;
    /* XSI strerror_r (_GNU_SOURCE is not set): safe on any thread. */
    if (strerror_r((int)os_errno, text, sizeof(text)) != 0)
        return;
    for (int i = 0; i + (int)strlen(text) <= len; i++) {
        if (strncmp(words + i, text, strlen(text)) == 0)
            return;
    }
    snprintf(buf, cap, "; errno %ld: %s", os_errno, text);
}

void classify_message(const struct transfer_result *r, const char *curl_error, char *buf,
                      size_t cap)
{
    classify_message_via(r, NULL, curl_error, buf, cap);
}

void classify_message_via(const struct transfer_result *r, const char *via, const char *text,
                          char *buf, size_t cap)
{
    int class = classify_transfer(r);
    const char *words = text && text[0] ? text : curl_easy_strerror(r->code);
    int len = trimmed_len(words);
    char note[160];

    if (cap == 0)
        return;
    if (class < 0 || class == ERR_HTTP_4XX || class == ERR_HTTP_5XX) {
        if (is_complete(r))
            snprintf(buf, cap, "HTTP %ld%s", r->http_status,
                     r->body_cut ? ", body cut at max_body" : "");
        else
            snprintf(buf, cap, "HTTP %ld (curl %d: %.*s)", r->http_status, (int)r->code, len,
                     words);
        return;
    }
    if (class == ERR_UNEXPECTED_STATUS) {
        char set[STATUS_SET_TEXT_MAX];

        /* Only a complete reply with an expect set gets here. */
        status_set_format(r->expect, set, sizeof(set));
        snprintf(buf, cap, "status %ld, expected %s%s", r->http_status, set,
                 r->body_cut ? ", body cut at max_body" : "");
        return;
    }
    if (class == ERR_MALFORMED && is_complete(r)) {
        if (r->http_status == 0)
            snprintf(buf, cap, "malformed reply: no HTTP status line");
        else
            snprintf(buf, cap, "malformed reply: status %ld (expected 100 to 599)", r->http_status);
        return;
    }
    errno_note(r->os_errno, words, len, note, sizeof(note));
    if (via)
        snprintf(buf, cap, "%s (%s: %.*s%s)", reasons[class], via, len, words, note);
    else
        snprintf(buf, cap, "%s (curl %d: %.*s%s)", reasons[class], (int)r->code, len, words,
                 note);
}
