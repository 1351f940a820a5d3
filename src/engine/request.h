/*
 * A request as a slot hands it to its transport (transport_ops.start):
 * what changes from one request to the next, resolved by the engine. The
 * slot owns it; it stays as it is until the transfer ends (a redirect's
 * next hop is a new start). Worker thread only.
 */
#ifndef BRINK_ENGINE_REQUEST_H
#define BRINK_ENGINE_REQUEST_H

#include <stddef.h>
#include <stdint.h>

struct scene_req;

struct transport_request {
    size_t kind;       /* its request kind: what the transport made of it at set-up */
    uint64_t seq;      /* its {seq}: unique per kind across the run */
    uint32_t vu;       /* its user across the run: {vu} */
    uint64_t start_ns; /* when it started, ns since the run started: deadlines count from here */
    /* A scenario script's request: its method, URL, lines and body, and
     * where the reply is kept for the script; NULL: its kind's. */
    struct scene_req *script;
    /* [target] follow_redirects: the hop it is (0: the request itself);
     * from the first hop on, where it goes (absolute), whether it goes as
     * GET without a body (303, or a POST moved by 301 or 302) and whether
     * it left the request's origin, so that its Authorization and Cookie
     * lines stay behind. */
    uint32_t hops;
    const char *hop_url;
    int hop_is_get;
    int hop_is_cross;
    int has_jar; /* [target] cookies: the user's jar gives it a Cookie, takes its Set-Cookie */
};

#endif
