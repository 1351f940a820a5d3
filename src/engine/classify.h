/*
 * classify: which error class a finished transfer falls in, from libcurl's
 * result, the OS errno behind it (CURLINFO_OS_ERRNO), the HTTP status and
 * whether the connection was established. The h1 transport states its
 * outcomes in the same terms (the CURLcode libcurl would have given), so
 * both transports classify alike. Pure; any thread.
 */
#ifndef BRINK_ENGINE_CLASSIFY_H
#define BRINK_ENGINE_CLASSIFY_H

#include <stddef.h>

#include <curl/curl.h>

#include "core/errclass.h"
#include "core/status_set.h"

struct transfer_result {
    CURLcode code;    /* from CURLMSG_DONE */
    long os_errno;    /* CURLINFO_OS_ERRNO, 0 when none */
    long http_status; /* CURLINFO_RESPONSE_CODE, 0 when no status line came */
    int connected;    /* the TCP (and TLS) connection was established */
    int body_cut;     /* our write callback stopped at max_body on purpose */
    /* The statuses the request's kind expects ([target] or [request NAME]
     * expect), borrowed; NULL: 100 to 399, expect's default. The transports
     * leave it NULL and slot_done sets it, so both judge statuses alike. */
    const struct status_set *expect;
    int in_lookup; /* it ended before the host name was resolved: a dns failure */
};

/* The class of r, or -1 when the request succeeded: a reply whose status is
 * in r->expect (1xx, 2xx or 3xx when NULL), complete or with its body cut at
 * max_body on purpose (a cut reply is judged by its status, so a cut 503 is
 * still http_5xx). A status outside expect is http_4xx or http_5xx by its
 * hundred, else unexpected_status; one outside 100 to 599 is malformed. A
 * failed transfer is never -1. */
int classify_transfer(const struct transfer_result *r);

/*
 * One line for the console and the record: the class's reason with the
 * library's words, e.g. "connection reset by peer (curl 56: Recv failure:
 * Connection reset by peer)", "HTTP 503" or, for unexpected_status, "status
 * 200, expected 404" (the set as expect reads it). curl_error is the transfer's
 * CURLOPT_ERRORBUFFER ("" when empty). Raw text: sanitize before display.
 */
void classify_message(const struct transfer_result *r, const char *curl_error, char *buf,
                      size_t cap);
/* The same for a transfer of another transport: via names it and words are
 * its own ("connection reset by peer (h1: read: connection reset by peer)").
 * With via NULL it is classify_message. */
void classify_message_via(const struct transfer_result *r, const char *via, const char *words,
                          char *buf, size_t cap);

#endif
