#include "engine/classify.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/msg.h"

#define ANY_ERRNO (-1L)
#define WORDS_MAX 256 /* bytes of a transport's words that are shown */

/* When a rule applies, by whether the connection had been established. */
enum phase {
    EITHER,
    BEFORE_CONNECT,
    AFTER_CONNECT,
};

/*
 * Failures by outcome and OS errno. The first matching row wins, so an
 * outcome's rows with a specific errno come before its ANY_ERRNO row; a
 * failure no row matches is ERR_OTHER. EMFILE and ENFILE are decided before
 * the table, whatever the outcome.
 */
static const struct rule {
    enum transfer_outcome outcome;
    long os_errno; /* ANY_ERRNO: whatever it is */
    enum phase phase;
    enum errclass class;
} rules[] = {
    {TRANSFER_CONNECT, ECONNREFUSED, EITHER, ERR_REFUSED},
    /* Only a unix socket's connect meets this: no server made the path. */
    {TRANSFER_CONNECT, ENOENT, EITHER, ERR_REFUSED},
    {TRANSFER_CONNECT, EADDRNOTAVAIL, EITHER, ERR_LOCAL_NO_PORTS},
    /* The SYN got no answer (the kernel gave up), or there was no route to
     * the host: the network's doing, which connect_timeout stands for. The
     * message keeps the errno's words. */
    {TRANSFER_CONNECT, ETIMEDOUT, EITHER, ERR_CONNECT_TIMEOUT},
    {TRANSFER_CONNECT, EHOSTUNREACH, EITHER, ERR_CONNECT_TIMEOUT},
    {TRANSFER_CONNECT, ENETUNREACH, EITHER, ERR_CONNECT_TIMEOUT},
    {TRANSFER_CONNECT, EHOSTDOWN, EITHER, ERR_CONNECT_TIMEOUT},
    {TRANSFER_CONNECT, ENETDOWN, EITHER, ERR_CONNECT_TIMEOUT},
    {TRANSFER_CONNECT, ECONNRESET, EITHER, ERR_RESET},
    /* One deadline outcome for the connect's and the request's: only the
     * phase tells them apart. */
    {TRANSFER_TIMEOUT, ANY_ERRNO, BEFORE_CONNECT, ERR_CONNECT_TIMEOUT},
    {TRANSFER_TIMEOUT, ANY_ERRNO, AFTER_CONNECT, ERR_TIMEOUT},
    {TRANSFER_DNS, ANY_ERRNO, EITHER, ERR_DNS},
    {TRANSFER_TLS, ANY_ERRNO, EITHER, ERR_TLS},
    {TRANSFER_SEND, EPIPE, EITHER, ERR_BROKEN_PIPE},
    {TRANSFER_SEND, ECONNRESET, EITHER, ERR_RESET},
    {TRANSFER_RECV, ECONNRESET, EITHER, ERR_RESET},
    /* A read that met a reset after the server's FIN (Linux gives EPIPE
     * for a socket in CLOSE_WAIT): the server had closed, a close. */
    {TRANSFER_RECV, EPIPE, EITHER, ERR_CLOSED_EARLY},
    {TRANSFER_STREAM_RESET, ANY_ERRNO, EITHER, ERR_RESET},
    {TRANSFER_CLOSED_EMPTY, ANY_ERRNO, EITHER, ERR_CLOSED_EARLY},
    {TRANSFER_CLOSED_PARTIAL, ANY_ERRNO, EITHER, ERR_CLOSED_EARLY},
    {TRANSFER_MALFORMED, ANY_ERRNO, EITHER, ERR_MALFORMED},
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
    [ERR_SCRIPT] = "script error",
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
    return r->outcome == TRANSFER_OK || r->outcome == TRANSFER_BODY_CUT;
}

static int phase_matches(enum phase p, int connected)
{
    return p == EITHER || (p == AFTER_CONNECT) == (connected != 0);
}

int classify_transfer(const struct transfer_result *r)
{
    if (is_complete(r) && r->is_exchange && r->http_status == 0)
        return -1;
    if (is_complete(r))
        return by_status(r->http_status, r->expect);
    /* Whatever the step, a socket, pipe or file could not be opened here. */
    if (r->os_errno == EMFILE || r->os_errno == ENFILE)
        return ERR_LOCAL_FD_LIMIT;
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        const struct rule *rule = &rules[i];

        if (rule->outcome == r->outcome &&
            (rule->os_errno == ANY_ERRNO || rule->os_errno == r->os_errno) &&
            phase_matches(rule->phase, r->connected))
            return rule->class;
    }
    return ERR_OTHER;
}

int classify_h2_code_is_breach(unsigned long code)
{
    /* PROTOCOL_ERROR, FLOW_CONTROL_ERROR, STREAM_CLOSED, FRAME_SIZE_ERROR,
     * COMPRESSION_ERROR (RFC 9113, 7). */
    return code == 0x1 || code == 0x3 || code == 0x5 || code == 0x6 || code == 0x9;
}

/* Length of s without the line ends and blanks a library may leave at its
 * end (libcurl's error buffer does). */
static int trimmed_len(const char *s)
{
    size_t n = strnlen(s, WORDS_MAX);

    while (n > 0 && strchr("\r\n\t ", s[n - 1]))
        n--;
    return (int)n;
}

/* Writes "; errno N: words" into buf when the OS error adds something to
 * words[0..len); "" otherwise. */
static void errno_note(long os_errno, const char *words, int len, char *buf, size_t cap)
{
    struct msg_errno_text e;
    const char *text = e.text;

    buf[0] = '\0';
    if (os_errno <= 0 || os_errno > 4095)
        return;
    e = msg_errno((int)os_errno);
    for (int i = 0; i + (int)strlen(text) <= len; i++) {
        if (strncmp(words + i, text, strlen(text)) == 0)
            return;
    }
    snprintf(buf, cap, "; errno %ld: %s", os_errno, text);
}

void classify_message(const struct transfer_result *r, const char *text, char *buf, size_t cap)
{
    int class = classify_transfer(r);
    const char *words = text ? text : "";
    int len = trimmed_len(words);
    const char *reason;
    char note[160];

    if (cap == 0)
        return;
    if (class < 0 || class == ERR_HTTP_4XX || class == ERR_HTTP_5XX) {
        /* Only a complete reply gets here: a failed one is never ok or
         * judged by its status. */
        snprintf(buf, cap, "HTTP %ld%s", r->http_status,
                 r->outcome == TRANSFER_BODY_CUT ? ", body cut at max_body" : "");
        return;
    }
    if (class == ERR_UNEXPECTED_STATUS) {
        char set[STATUS_SET_TEXT_MAX];

        /* Only a complete reply with an expect set gets here. */
        status_set_format(r->expect, set, sizeof(set));
        snprintf(buf, cap, "status %ld, expected %s%s", r->http_status, set,
                 r->outcome == TRANSFER_BODY_CUT ? ", body cut at max_body" : "");
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
    reason = r->outcome == TRANSFER_STREAM_RESET ? "stream reset by the server" : reasons[class];
    if (len > 0 || note[0])
        snprintf(buf, cap, "%s (%.*s%s)", reason, len, words, len ? note : note + 2);
    else
        snprintf(buf, cap, "%s", reason);
}
