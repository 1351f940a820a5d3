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

#include "engine/capture.h"

struct script_exchange;
struct status_set;

/* A scenario script's request on a slot (scene.c): what the transports
 * send instead of its kind's, and where the reply is kept for the script. */
struct scene_req {
    const char *method;
    const char *url; /* absolute, NUL-terminated (in url_buf, or the hop's s->redirect.url) */
    const char *const *headers;
    size_t n_headers;
    const unsigned char *body; /* NULL: none */
    size_t body_len;
    uint64_t timeout_us;
    const struct status_set *expect;
    int is_head;
    uint32_t follow_redirects; /* hops it follows: its own, else [target]'s */
    /* The lines every hop sends ([target]'s, then the script's), before
     * the hop's own: the jar's Cookie and the signature. */
    const char **base;
    size_t n_base;
    const char **lines; /* room for the header lines a hop sends */
    int is_signed;      /* signed with [target] aws_sigv4 at each hop */
    int has_cookie;     /* the script set a Cookie header: the jar adds none */
    char *cookie_line;  /* the jar's "Cookie: ..." (ENGINE_COOKIE_LINE_MAX), at the first */
    struct capture_buf url_buf;
    struct capture_buf head_buf; /* h1: the serialised head */
    struct capture cap;          /* the reply, for the script */
    /* An exchange over a connection of the user (brink.tcp, brink.ws),
     * which transport_stream carries, its reply's bytes kept in cap.body;
     * NULL: an HTTP request. frame: for SCRIPT_FRAME_PATTERN and
     * SCRIPT_FRAME_FUNCTION, the length of the whole reply at the start
     * of the n bytes read at buf, 0 while more are needed, or -1 with why.
     * reply_type: what a brink.ws reply is ("text", "binary", "pong";
     * static), which the transport sets. */
    const struct script_exchange *exchange;
    long (*frame)(struct scene_req *q, const char *buf, size_t n, char *why, size_t why_len);
    const char *reply_type;
};

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
