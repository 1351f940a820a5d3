/*
 * curl_code: libcurl's result codes in brink's terms, the one place that
 * reads them, so that classify.c (and every other transport) never sees a
 * CURLE_* code. Pure; any thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/curl/internal.h"

/* Codes that map to one outcome whatever else is known. A code not listed
 * is TRANSFER_OTHER; the few that depend on more are decided in
 * engine__curl_code_outcome. */
static const struct {
    CURLcode code;
    enum transfer_outcome outcome;
} plain[] = {
    {CURLE_OK, TRANSFER_OK},
    {CURLE_COULDNT_CONNECT, TRANSFER_CONNECT},
    /* libcurl reports both its connect timeout and the request's timeout
     * so; classify tells them apart by the phase. */
    {CURLE_OPERATION_TIMEDOUT, TRANSFER_TIMEOUT},
    {CURLE_COULDNT_RESOLVE_HOST, TRANSFER_DNS},
    {CURLE_COULDNT_RESOLVE_PROXY, TRANSFER_DNS},
    {CURLE_SSL_CONNECT_ERROR, TRANSFER_TLS},
    {CURLE_SSL_ENGINE_NOTFOUND, TRANSFER_TLS},
    {CURLE_SSL_ENGINE_SETFAILED, TRANSFER_TLS},
    {CURLE_SSL_CERTPROBLEM, TRANSFER_TLS},
    {CURLE_SSL_CIPHER, TRANSFER_TLS},
    {CURLE_PEER_FAILED_VERIFICATION, TRANSFER_TLS},
    {CURLE_USE_SSL_FAILED, TRANSFER_TLS},
    {CURLE_SSL_ENGINE_INITFAILED, TRANSFER_TLS},
    {CURLE_SSL_CACERT_BADFILE, TRANSFER_TLS},
    {CURLE_SSL_SHUTDOWN_FAILED, TRANSFER_TLS},
    {CURLE_SSL_CRL_BADFILE, TRANSFER_TLS},
    {CURLE_SSL_ISSUER_ERROR, TRANSFER_TLS},
    {CURLE_SSL_PINNEDPUBKEYNOTMATCH, TRANSFER_TLS},
    {CURLE_SSL_INVALIDCERTSTATUS, TRANSFER_TLS},
    {CURLE_SSL_CLIENTCERT, TRANSFER_TLS},
    {CURLE_SEND_ERROR, TRANSFER_SEND},
    {CURLE_GOT_NOTHING, TRANSFER_CLOSED_EMPTY},
    {CURLE_PARTIAL_FILE, TRANSFER_CLOSED_PARTIAL},
    {CURLE_WEIRD_SERVER_REPLY, TRANSFER_MALFORMED},
    {CURLE_BAD_CONTENT_ENCODING, TRANSFER_MALFORMED},
    {CURLE_HTTP3, TRANSFER_MALFORMED},
};

/* libcurl's words for the ends of an HTTP/2 stream (7.88's http2.c). */
#define H2_NOT_CLEAN "was not closed cleanly: "
#define H2_BAD_FRAMES "nghttp2_session_mem_recv() returned"

/*
 * An HTTP/2 stream that ended without its reply, which libcurl's codes
 * alone do not tell apart:
 * - CURLE_HTTP2_STREAM "HTTP/2 stream 1 was not closed cleanly: CANCEL
 *   (err 8)": the stream was reset (RST_STREAM); a code that says a side
 *   broke the protocol (PROTOCOL_ERROR, FLOW_CONTROL_ERROR, ...:
 *   classify_h2_code_is_breach) is malformed. Its other words: the stream
 *   closed before the reply's header block.
 * - CURLE_HTTP2 with no words of libcurl's: the HTTP/2 session ended under
 *   the stream, a GOAWAY that left it out (libcurl 7.88 does not send it
 *   again itself).
 * - CURLE_RECV_ERROR "Connection died, tried 5 times before giving up":
 *   libcurl sent a refused stream (REFUSED_STREAM) again on a new
 *   connection five times, and the server refused it every time.
 * Returns TRANSFER_OK when code and words are none of these.
 */
static enum transfer_outcome h2_outcome(CURLcode code, const char *errbuf, int connected)
{
    const char *p;

    switch (code) {
    case CURLE_HTTP2_STREAM:
        p = strstr(errbuf, H2_NOT_CLEAN);
        if (!p)
            return TRANSFER_CLOSED_EMPTY;
        p = strstr(p, "(err ");
        if (p && classify_h2_code_is_breach(strtoul(p + 5, NULL, 10)))
            return TRANSFER_MALFORMED;
        return TRANSFER_STREAM_RESET;
    case CURLE_HTTP2:
        return errbuf[0] == '\0' && connected ? TRANSFER_CLOSED_EMPTY : TRANSFER_MALFORMED;
    case CURLE_RECV_ERROR:
        if (strncmp(errbuf, CURL_RETRIES_SPENT, strlen(CURL_RETRIES_SPENT)) == 0)
            return TRANSFER_CLOSED_EMPTY;
        if (strstr(errbuf, H2_BAD_FRAMES))
            return TRANSFER_MALFORMED;
        return TRANSFER_OK;
    default: return TRANSFER_OK;
    }
}

enum transfer_outcome engine__curl_code_outcome(CURLcode code, long os_errno, int connected,
                                                int is_tls, int body_cut, const char *errbuf)
{
    enum transfer_outcome h2 = h2_outcome(code, errbuf ? errbuf : "", connected);

    if (h2 != TRANSFER_OK)
        return h2;
    switch (code) {
    case CURLE_WRITE_ERROR: return body_cut ? TRANSFER_BODY_CUT : TRANSFER_OTHER;
    case CURLE_RECV_ERROR:
        /* On plain http a failed read always carries the OS's errno; one
         * without is libcurl refusing what it read: a bad chunk size, or
         * headers past its 300 KiB limit (also an endless run of 1xx). */
        return os_errno == 0 && connected && !is_tls ? TRANSFER_MALFORMED : TRANSFER_RECV;
    case CURLE_OUT_OF_MEMORY:
        /* libcurl's buffer for one header line stops at 100 KiB and says
         * so with this code: a line that never ends, not a lack of memory. */
        return connected ? TRANSFER_MALFORMED : TRANSFER_OTHER;
    case CURLE_UNSUPPORTED_PROTOCOL:
        /* Once connected, this is "Unsupported HTTP version in response";
         * before, a URL scheme libcurl was built without. */
        return connected ? TRANSFER_MALFORMED : TRANSFER_OTHER;
    default: break;
    }
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
        if (plain[i].code == code)
            return plain[i].outcome;
    }
    return TRANSFER_OTHER;
}

/* libcurl's start of a failed certificate check's words, which the class
 * says already: what follows is OpenSSL's reason ("certificate has
 * expired"), kept where a report cuts the message. */
#define CERT_PROBLEM "SSL certificate problem: "

void engine__curl_code_words(CURLcode code, int connected, const char *errbuf, char *buf,
                             size_t cap)
{
    const char *text = errbuf && errbuf[0] ? errbuf : curl_easy_strerror(code);

    if (code == CURLE_OUT_OF_MEMORY && connected)
        text = "a reply header line longer than libcurl's 100 KiB limit";
    else if (code == CURLE_HTTP2 && connected && !(errbuf && errbuf[0]))
        text = "the server ended the HTTP/2 connection (GOAWAY) before the reply";
    else if (code == CURLE_PEER_FAILED_VERIFICATION &&
             strncmp(text, CERT_PROBLEM, strlen(CERT_PROBLEM)) == 0)
        text += strlen(CERT_PROBLEM);
    snprintf(buf, cap, "curl %d: %s", (int)code, text);
}
