/*
 * The contract between the engine and a transport (src/engine/h1/,
 * src/engine/curl/): the operations a transport implements, and the only
 * calls it may make back into the engine. A transport's files include of
 * the engine this header alone (test_layering checks it).
 */
#ifndef BRINK_ENGINE_TRANSPORT_H
#define BRINK_ENGINE_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "core/cookies.h"
#include "core/tick.h"
#include "engine/capture.h"
#include "engine/classify.h"
#include "engine/closer.h"
#include "engine/pace.h"
#include "engine/request.h"
#include "engine/sigv4.h"
#include "engine/workload.h"

struct config;

/*
 * What a transport sees of its worker, and all it sees of it: the engine's
 * struct worker holds it, the transport's calls and callbacks take it.
 * The run's part is read-only (set before init); the rest is the
 * transport's to keep.
 */
struct transport_worker {
    uv_loop_t loop; /* the worker's: every handle of the transport goes on it */
    const struct config *config;
    const struct workload *workload;
    void *setup;              /* what transport_ops.setup built, shared by every worker */
    uint32_t id;              /* 0: the worker that says what is said once per run */
    uint32_t max_concurrency; /* users at most, all workers */
    uint64_t rng;             /* the worker's random state (workload_url, the heads) */
    struct pace pace;         /* new connections begun in this pass */
    struct closer closer;     /* connections closed in this pass, and those waiting */
    uint32_t fds_used;        /* sockets the transport holds open (the interval's gauge) */
    void *priv;               /* the transport's own state: init makes it, fini frees it */
    void *stream;             /* transport_stream's, in place of priv (a run may have both) */
};

/*
 * What a transport sees of a slot (a virtual user), and all it sees of it:
 * the engine's struct slot holds it. is_in_flight and rq are the engine's
 * (read-only): rq is the request in flight, as start got it.
 */
struct transport_slot {
    struct transport_worker *w; /* its worker's view */
    uint32_t index;             /* in its worker */
    uint32_t vu;                /* across the run */
    int is_in_flight;           /* started, and not done nor aborted */
    struct transport_request rq;
    void *priv;   /* the transport's own state: slot_init makes it, slot_free frees it */
    void *stream; /* transport_stream's, in place of priv (a run may have both) */
};

/*
 * A transport: how the slots of a worker send their requests. The
 * process-wide and run-wide operations run on the starting thread; every
 * other one on the worker's thread (init and fini also before the thread
 * starts or after it ended). A started transfer ends in exactly one
 * engine__slot_done call, made from a loop callback, never from inside
 * start; an aborted one ends without it.
 */
struct transport_ops {
    const char *name; /* "curl" or "h1", as ticks show it */
    /* Process-wide: the library state the transport needs, once per process
     * (engine_global_init); NULL: none. Returns 0 or a negative errno with
     * one line in err. */
    int (*global_init)(char *err, size_t err_len);
    void (*global_cleanup)(void);
    /* The version of the library it speaks through, as that library reports
     * it at run time (a static string). */
    const char *(*version)(void);
    /* Run-wide: whether it can carry the run of c and wl (0), or -EINVAL
     * with why (no "brink:"; the engine says where); NULL: any run. */
    int (*accepts)(const struct config *c, const struct workload *wl, char *why, size_t why_len);
    /* What every worker of the run shares, read-only (transport_worker.setup),
     * built once before the workers; NULL: nothing. teardown frees it. */
    void *(*setup)(const struct config *c, const struct workload *wl);
    void (*teardown)(void *setup);
    /* Creates the worker's loop handles. Returns 0 or a negative errno with
     * one line in err. */
    int (*init)(struct transport_worker *w, char *err, size_t err_len);
    /* Closes every handle and connection of the worker (the loop then ends). */
    void (*close)(struct transport_worker *w);
    /* Frees what init allocated, once the loop has ended. */
    void (*fini)(struct transport_worker *w);
    /* Makes ahead, before the run's first request, what n slots to come
     * would each make when they are (slot_init takes it then); NULL: a
     * transport whose slots cost little to make. */
    void (*prepare)(struct transport_worker *w, uint32_t n);
    void (*slot_init)(struct transport_slot *s);
    void (*slot_free)(struct transport_slot *s);
    /* A scenario script's request q is about to go from s, as its hop
     * hops (0: the request itself): returns 0 when the transport can send
     * it, having made what it sends from it, or -EINVAL with why (a script
     * error at the first hop, the hop's failure after). NULL: it sends any
     * request as it is. */
    int (*script_ready)(struct transport_slot *s, struct scene_req *q, uint32_t hops, char *why,
                        size_t why_len);
    /* Sends the request rq of s (its URL expanded here); rq stays valid
     * until its transfer ends. */
    void (*start)(struct transport_slot *s, const struct transport_request *rq);
    /* Aborts the transfer of s mid-stream: its connection closes. */
    void (*abort)(struct transport_slot *s);
    /* Whether the transfer of s has sent nothing yet, nor begun a
     * connection: it waits for a name lookup or a pass's connect budget. */
    int (*is_unsent)(struct transport_slot *s);
    /* The closed model's users of w are now n (the share changed): fewer
     * users need fewer connections, and those no user needs close, so
     * that a server that caps its connections gets them back. retire
     * closes the connection of s, a user past the share with no transfer
     * in flight; users_changed serves a transport whose connections the
     * slots share. NULL: nothing to do. */
    void (*retire)(struct transport_slot *s);
    void (*users_changed)(struct transport_worker *w, uint32_t n);
    /* The script of s closed its connection conn (brink.tcp, brink.ws;
     * nothing of it in flight): it closes now. NULL: a transport that
     * carries no script's connections. */
    void (*script_close)(struct transport_slot *s, uint32_t conn);
};

extern const struct transport_ops transport_curl;
extern const struct transport_ops transport_h1;
/* A scenario script's exchanges over its users' own connections
 * (brink.tcp, brink.ws: src/engine/stream/), beside the run's HTTP
 * transport, or alone in a run without [target] url. */
extern const struct transport_ops transport_stream;

/*
 * The transports' hooks for where the time goes and for connections, on
 * the worker's thread; each costs a counter or one histogram record.
 * engine__worker_phase records us (µs) as one sample of phase p into the
 * worker's interval: PHASE_DNS once per name lookup that succeeded,
 * PHASE_CONNECT per TCP connect that succeeded (from its start),
 * PHASE_TLS per TLS handshake that succeeded (from the TCP connect's end),
 * PHASE_TTFB per request that got a first reply byte (from the start of
 * its request's write). engine__worker_conn_opened counts a connection
 * begun (a connect started on a new socket: tick.connections_opened) and
 * open; engine__worker_conn_closed, once for each, when it is closed.
 */
void engine__worker_phase(struct transport_worker *w, enum tick_phase p, uint64_t us);
void engine__worker_conn_opened(struct transport_worker *w);
void engine__worker_conn_closed(struct transport_worker *w);

/* What a transport reads of its worker's state, which the engine keeps:
 * the transfers in flight, whether the worker is done (the run ended for
 * it: nothing more starts), its slots (index 0 to n_slots - 1; slots are
 * only added, on the worker's thread), and the protocol its latest reply
 * came over ("h2", static), for the interval. */
uint32_t engine__worker_in_flight(const struct transport_worker *w);
int engine__worker_is_done(const struct transport_worker *w);
uint32_t engine__worker_n_slots(const struct transport_worker *w);
struct transport_slot *engine__worker_slot(struct transport_worker *w, uint32_t i);
void engine__worker_http_version(struct transport_worker *w, const char *version);
/* ns since the run started, on the monotonic clock. */
uint64_t engine__worker_now_ns(const struct transport_worker *w);
/* An event for the operator in the next tick (which protocol ALPN picked,
 * what this libcurl cannot do), at_ns since the run started. Any worker. */
void engine__worker_event(struct transport_worker *w, enum event_kind kind, uint64_t at_ns,
                          const char *text);
/* Arms t (a timer of the worker's loop) to call cb limit_us after the
 * request of s started. libuv counts a timer from its loop time, ms read
 * once per pass, which a long pass (a burst) leaves far behind: the due
 * time is counted on the monotonic clock instead. */
void engine__slot_arm(const struct transport_slot *s, uv_timer_t *t, uv_timer_cb cb,
                      uint64_t limit_us);

/* How long the request of s may take: its kind's timeout, or its script's. */
uint64_t engine__slot_timeout_us(const struct transport_slot *s);
/* How long the request of s may take to connect, from its start: the
 * shorter of [target] connect_timeout and its kind's timeout. */
uint64_t engine__slot_connect_limit_us(const struct transport_slot *s);
/* The words of a request of s that never connected because it waited,
 * behind a burst of new connections, past that limit (either transport). */
void engine__slot_queued_words(const struct transport_slot *s, char *buf, size_t cap);
/* Records the finished transfer of s: r classifies it, bytes in and out
 * are its traffic, words the transport's own message, naming it ("curl
 * 56: ...", "h1: read: ..."; "" when none). */
void engine__slot_done(struct transport_slot *s, const struct transfer_result *r, uint64_t bytes_in,
                       uint64_t bytes_out, const char *words);
/*
 * Signs the request of s, whose kind has aws_sigv4, at this second of the
 * wall clock with the worker's key cache: url (url_len bytes, absolute or
 * origin-form) as sent, host the Host value sent when the kind's headers
 * set none (NULL: the URL's authority, as libcurl sends it). Returns the
 * worker's sigv4_out, valid until the next call on the worker, or NULL in
 * the case workload_new's trial signature ruled out (the request then goes
 * unsigned, and the server says why).
 */
/*
 * [target] cookies, for the transports: engine__slot_cookie_set stores the
 * Set-Cookie value v (n bytes) of a reply to url in the jar of s (a full
 * jar drops it and the interval counts it); engine__slot_cookie_line
 * writes "Cookie: ..." for a request of s to url into buf (cap bytes, at
 * least ENGINE_COOKIE_LINE_MAX) and returns its length, 0 when no cookie
 * goes (or s has no jar). Wall-clock seconds judge expiry.
 */
#define ENGINE_COOKIE_LINE_MAX (COOKIES_HEADER_MAX + 16)
/*
 * [target] follow_redirects, for the transports: the Location value v (n
 * bytes) of the reply to url, resolved against it (absolute, "//host",
 * "/path", "?query" or a relative path; a fragment dropped), to follow if
 * the reply is a redirect. A value with a blank or a control byte, or
 * longer than a URL may be, is not followed.
 */
void engine__slot_location(struct transport_slot *s, const char *url, const char *v, size_t n);
/* Whether absolute URLs a and b have the same scheme and authority (in
 * any case). */
int engine__same_origin(const char *a, const char *b);
/* Whether a header line ("Name: value") is one a redirect to another
 * origin leaves behind: Authorization or Cookie, as browsers and curl. */
int engine__is_credential(const char *line);
/* The URL, method and body the request of s sends now: its kind's, or
 * those of the redirect it follows (a hop turned into GET has no body). */
const char *engine__slot_method(const struct transport_slot *s);
int engine__slot_has_body(const struct transport_slot *s);
/*
 * Whether the request of s may be sent again for cause, which the
 * transport has established (docs/config.md, "Requests sent again"):
 * [target] retry is on and, for RESEND_CLOSED_IDLE, its method is
 * idempotent (RFC 9110, 9.2.2) or retry_non_idempotent is on. A yes is
 * counted, by cause, in the interval: the transport must then send it
 * again.
 */
int engine__slot_may_resend(struct transport_slot *s, enum resend_cause cause);
void engine__slot_cookie_set(struct transport_slot *s, const char *url, const char *v, size_t n);
size_t engine__slot_cookie_line(struct transport_slot *s, const char *url, char *buf, size_t cap);
const struct sigv4_out *engine__slot_sign(struct transport_slot *s, const char *url, size_t url_len,
                                          const char *host);

#endif
