/*
 * curl_code: libcurl's result codes in brink's terms, the one place that
 * reads them, so that classify.c (and every other transport) never sees a
 * CURLE_* code. Pure; any thread.
 */
#include <stdio.h>
#include <string.h>

#include "engine/curl_transport.h"

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
    {CURLE_HTTP2, TRANSFER_MALFORMED},
    {CURLE_HTTP2_STREAM, TRANSFER_MALFORMED},
    {CURLE_HTTP3, TRANSFER_MALFORMED},
};

enum transfer_outcome engine__curl_code_outcome(CURLcode code, long os_errno, int connected,
                                                int is_tls, int body_cut)
{
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

void engine__curl_code_words(CURLcode code, int connected, const char *errbuf, char *buf,
                             size_t cap)
{
    const char *text = errbuf && errbuf[0] ? errbuf : curl_easy_strerror(code);

    if (code == CURLE_OUT_OF_MEMORY && connected)
        text = "a reply header line longer than libcurl's 100 KiB limit";
    snprintf(buf, cap, "curl %d: %s", (int)code, text);
}
