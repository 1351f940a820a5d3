/*
 * classify: which error class a finished transfer falls in, from its
 * outcome in brink's own terms (enum transfer_outcome), the OS errno behind
 * it, the HTTP status and whether the connection was established. Every
 * transport states its outcomes in these terms (libcurl's codes are mapped
 * in curl/code.c), so all classify alike. Pure; any thread.
 */
#ifndef BRINK_ENGINE_CLASSIFY_H
#define BRINK_ENGINE_CLASSIFY_H

#include <stddef.h>

#include "core/errclass.h"
#include "core/status_set.h"

/* How a transfer ended, whatever the transport. */
enum transfer_outcome {
    TRANSFER_OK,             /* a whole reply came */
    TRANSFER_BODY_CUT,       /* the body passed max_body and was dropped on purpose */
    TRANSFER_CONNECT,        /* no connection; os_errno says why */
    TRANSFER_TIMEOUT,        /* a deadline passed: the connect's when not connected */
    TRANSFER_DNS,            /* the host name did not resolve */
    TRANSFER_TLS,            /* the TLS handshake or certificate check failed */
    TRANSFER_SEND,           /* sending the request failed; os_errno says why */
    TRANSFER_RECV,           /* reading the reply failed; os_errno says why */
    TRANSFER_CLOSED_EMPTY,   /* the server closed before any byte of the reply */
    TRANSFER_CLOSED_PARTIAL, /* the server closed in the middle of the reply */
    TRANSFER_STREAM_RESET,   /* the server reset the request's HTTP/2 stream (RST_STREAM) */
    TRANSFER_MALFORMED,      /* the reply is not valid HTTP/1.x; the words say why */
    TRANSFER_OTHER,          /* anything else; the words say what */
};

struct transfer_result {
    enum transfer_outcome outcome;
    long os_errno;    /* the OS error behind it, 0 when none */
    long http_status; /* 0 when no status line came */
    int connected;    /* the TCP (and TLS) connection was established */
    /* The statuses the request's kind expects ([target] or [request NAME]
     * expect), borrowed; NULL: 100 to 399, expect's default. The transports
     * leave it NULL and engine__slot_done sets it, so both judge statuses alike. */
    const struct status_set *expect;
    /* An exchange of a script's connection (brink.tcp, brink.ws): a whole
     * reply is a success, no status applies; unless a brink.ws upgrade
     * was answered with an error status, which classifies as HTTP's. */
    int is_exchange;
};

/* The class of r, or -1 when the request succeeded: a reply whose status is
 * in r->expect (1xx, 2xx or 3xx when NULL), complete or with its body cut at
 * max_body on purpose (a cut reply is judged by its status, so a cut 503 is
 * still http_5xx). A status outside expect is http_4xx or http_5xx by its
 * hundred, else unexpected_status; one outside 100 to 599 is malformed. A
 * failed transfer is never -1. */
int classify_transfer(const struct transfer_result *r);

/* Whether an HTTP/2 error code (RFC 9113, 7) says a side broke the
 * protocol: PROTOCOL_ERROR, FLOW_CONTROL_ERROR, STREAM_CLOSED,
 * FRAME_SIZE_ERROR or COMPRESSION_ERROR. A stream that ends with one is
 * malformed, whichever side reset it (brink's nghttp2 resets a stream
 * whose DATA passed its window), not a reset: both transports ask here. */
int classify_h2_code_is_breach(unsigned long code);

/*
 * One line for the console and the record: the class's reason with the
 * transport's words, e.g. "connection reset by peer (curl 56: Recv failure:
 * Connection reset by peer)", "HTTP 503" or, for unexpected_status, "status
 * 200, expected 404" (the set as expect reads it). words names the
 * transport and says what it saw ("curl 56: ...", "h1: read: ..."; "" or
 * NULL: none). Raw text: sanitize before display.
 */
void classify_message(const struct transfer_result *r, const char *words, char *buf, size_t cap);

#endif
