/*
 * The h1 transport's private state and the functions its files share.
 * Each file calls only those below it. Over h1/wire.c, h1/h2_head.c,
 * tls/tls.c, h1/request.c (the head a request sends) and
 * h1/setup.c: h1/close.c (a connection's close); h1/slot.c (a request's
 * completion, failure and deadline); h1/conn.c (a connection: socket, TLS,
 * writes, reads, its protocol chosen once it is up); h1/connect.c (where a
 * connection goes: lookups, the connect budget, addresses tried in turn,
 * unix sockets); h1/http1.c (HTTP/1.1) and h1/http2.c (HTTP/2 on the same
 * connections), neither calling the other, with h1/http2_io.c (HTTP/2's
 * reads and writes) over h1/http2.c; h1/transport.c (the ops table) on
 * top. What goes up goes through struct h1_proto or a callback. Worker
 * thread only.
 */
#ifndef BRINK_ENGINE_H1_INTERNAL_H
#define BRINK_ENGINE_H1_INTERNAL_H

#include <stdint.h>
#include <sys/socket.h>

#include <nghttp2/nghttp2.h>
#include <uv.h>

#include "core/container.h"
#include "core/dlist.h"
#include "engine/transport.h"
#include "engine/tls/tls.h"
#include "engine/h1/h1.h"
#include "engine/h1/wire.h"
#include "engine/h1/h2_head.h"

#define READ_BUFFER (256u * 1024)    /* one read takes a 133 KiB reply whole */
#define TLS_READ_BUFFER (64u * 1024) /* TLS records read at once, before decryption */
#define WORDS_MAX 96
/* Why h1 ends a request whose redirect leaves its origin. */
#define ENGINE_H1_OTHER_ORIGIN                                                                     \
    "redirect to another origin (h1 follows its own only; transport = curl follows any)"
#define H1_VALUE_MAX 8192 /* bytes of a Set-Cookie value read whole; longer ones are ignored */

struct h1_proto;

struct h1_worker {
    uv_idle_t idle;            /* completes what failed inside start, next pass */
    uv_async_t resolved;       /* the lookup of the target's name ended */
    struct lookup *lookup;     /* that lookup while it runs, else NULL */
    struct dlist waiting;      /* slots whose connect waits for it */
    struct engine_addrs addrs; /* the target's addresses, once has_addrs */
    int has_addrs;
    uv_idle_t paced;         /* connects the pass's budget held back, next passes */
    struct dlist queued;     /* those connects, oldest first */
    uint32_t addr_at;        /* the target's address that connected last: new ones start there */
    struct h1_slot *pending; /* those completions, newest first */
    char *head;              /* where heads with placeholders are filled in */
    size_t head_cap;
    char *signed_head;       /* aws_sigv4: where a head gets its signature (at the first) */
    char *rbuf;              /* every read of the worker lands here (decrypted, with TLS) */
    struct tls_context *tls; /* https: the worker's one TLS context, else NULL */
    char *tls_in;            /* https: where reads land before decryption */
    /* HTTP/2 (h1/http2.c): its connections and streams, while is_h2 (NULL
     * when http_version = 1.1); is_h2 ends when a server picks http/1.1. */
    struct h2_worker *h2;
    int is_h2;
    /* The protocols a connection may carry (h1/transport.c sets them):
     * engine__h1_http1, and engine__h1_http2 (NULL when http_version = 1.1). */
    const struct h1_proto *http1;
    const struct h1_proto *http2;
};

struct h1_conn;

/*
 * The protocol an h1 connection carries, chosen once it is up (h1/conn.c):
 * HTTP/1.1 (engine__h1_http1) or HTTP/2 (engine__h1_http2). data takes the
 * server's bytes (decrypted); read_done (NULL: none) follows the bytes of
 * one read, even when they closed the connection; ended says the server's
 * bytes ended: err UV_EOF (a FIN, or close_notify), a UV read error, or TLS
 * failing with tls_why (not NULL); write_failed (NULL: none, as HTTP/2,
 * which sees a failed write of its frames in its flush, a later one at its
 * read's end) a write that failed after the handshake; closed (NULL: none)
 * the socket's close. Each may close the connection. What a slot asks of
 * its protocol: up, that c, the connection s opened, is up (0: the
 * protocol took c; 1: ALPN picked http/1.1, which takes it); leave (NULL:
 * none), that s let go of its stream or its place in line for one (failed
 * with outcome and words, or aborted: words NULL); timeout (NULL: none),
 * that the deadline of s passed while it waits for a connection or a reply.
 */
struct h1_proto {
    void (*data)(struct h1_conn *c, const char *data, size_t n);
    void (*read_done)(struct h1_conn *c);
    void (*ended)(struct h1_conn *c, int err, const char *tls_why);
    void (*write_failed)(struct h1_conn *c, int status);
    void (*closed)(struct h1_conn *c);
    int (*up)(struct transport_slot *s, struct h1_conn *c);
    void (*leave)(struct transport_slot *s, enum transfer_outcome outcome, int os_errno,
                  const char *words);
    void (*timeout)(struct transport_slot *s);
};

extern const struct h1_proto engine__h1_http1;
extern const struct h1_proto engine__h1_http2;

struct h1_conn {
    uv_tcp_t tcp;
    const struct h1_proto *proto; /* once it is up, else NULL */
    uv_connect_t connect;
    uv_write_t write;
    struct transport_slot *s; /* NULL once the slot let go of it */
    char *copy;               /* what an asynchronous write still sends */
    uint32_t n_sent;          /* requests sent on it */
    uint64_t begun_ns;        /* uv_hrtime when its connect began */
    int is_counted;           /* engine__worker_conn_opened counted it: closing uncounts it */
    int is_let_go;            /* engine__h1_conn_close took it: closed, or waiting to be */
    struct closing closing;   /* its close, in the worker's closer (closer.h) */
    int is_connected;
    int is_writing;            /* writes in progress (TLS may queue several) */
    struct tls_conn *tls;      /* https, once connected, else NULL */
    int is_tls_ready;          /* its handshake completed */
    uint64_t tls_start_ns;     /* uv_hrtime when the handshake began */
    uint64_t tls_handshake_us; /* how long the handshake took, once ready */
    struct h2_conn *h2;        /* HTTP/2 took it (h1/http2.c): its session and streams */
};

/* A TLS write libuv could not take at once: the bytes it still sends. */
struct tls_write {
    uv_write_t req;
    struct h1_conn *c;
    char bytes[];
};

struct h1_slot {
    uv_timer_t timer; /* the request's (or the connect's) deadline */
    struct transport_slot *s;
    const struct transport_request *rq; /* the one in flight, or the last */
    struct h1_conn *conn;
    struct h1_resp resp;
    uint64_t bytes_out;
    uint64_t sent_ns; /* uv_hrtime when its request's write began: time to first byte */
    int is_starting;  /* inside start: a failure must wait for the next pass */
    int is_retried;
    uint32_t addr_i;  /* the address its connection tries or uses */
    uint32_t n_tried; /* addresses its current connect has tried */
    int was_connected;
    int is_pending;
    struct h1_slot *next;          /* in the pending list */
    int is_looking_up;             /* waits for the target's addresses */
    int is_queued;                 /* its connect waits for a pass's budget */
    struct dlist_node in_line;     /* in the waiting list or the queue (never both) */
    enum transfer_outcome outcome; /* a pending completion */
    int os_errno;
    char words[WORDS_MAX];
    /* [target] cookies: the URL of the request in flight (the origin and
     * the head's target), the reply's Set-Cookie values read through
     * capture into value. */
    char *url;
    size_t url_cap;
    struct h1_capture capture;
    char *value;
    /* HTTP/2 (h1/http2.c): the connection its request waits for or has a
     * stream on, the stream, and the body its data provider sends. */
    struct h2_conn *h2;
    int32_t stream_id;
    struct dlist_node in_h2; /* in that connection's slots */
    const unsigned char *body;
    size_t body_len;
    size_t body_at;
    int has_end; /* the reply's last frame (END_STREAM) came */
    int is_done; /* its stream ended during a read: completed after it */
    struct h1_slot *next_done;
};

/* The h1 state behind a worker's and a slot's view (their priv). */
static inline struct h1_worker *h1_worker_of(const struct transport_worker *w)
{
    return w->priv;
}

static inline struct h1_slot *h1_slot_of(const struct transport_slot *s)
{
    return s->priv;
}

static inline struct transport_worker *engine__h1_worker_of(uv_handle_t *h)
{
    return container_of(h->loop, struct transport_worker, loop);
}

/* The address of the target that s connects to, or did. */
static inline const struct sockaddr_storage *engine__h1_addr_of(const struct transport_slot *s)
{
    return &h1_worker_of(s->w)->addrs.at[h1_slot_of(s)->addr_i];
}

static inline struct h1_setup *h1_setup_of(const struct transport_worker *w)
{
    return w->setup;
}

/* h1/close.c */
/* Closes c; its slot (if any) lets go of it. */
void engine__h1_conn_close(struct h1_conn *c);

/* h1/slot.c: a request's completion and deadline, whatever protocol. */
/* Completes the request of s with outcome (words: "" when none). */
void engine__h1_complete(struct transport_slot *s, enum transfer_outcome outcome, int os_errno,
                         const char *words);
/* Ends the request of s with outcome; what names the step that failed. */
void engine__h1_fail(struct transport_slot *s, enum transfer_outcome outcome, int os_errno,
                     const char *what);
/* Takes h out of its worker's completions waiting for the next pass. */
void engine__h1_unlink_pending(struct h1_worker *hw, struct h1_slot *h);
/* Arms the timer of s to fire limit_us after the request started. */
void engine__h1_arm_timer(struct transport_slot *s, uint64_t limit_us);

/* h1/http1.c */
/* The connection of s carries HTTP/1.1 and is up: its request goes out. */
void engine__h1_http1_up(struct transport_slot *s);

/* h1/conn.c: the connection, whatever protocol it carries. */
/* c, the connection of s, is established: TLS begins, or it is up. */
void engine__h1_connected(struct transport_slot *s, struct h1_conn *c);
/* Writes n bytes on c: at once, else from a copy behind the queued
 * writes. Returns 0 or a UV error. */
int engine__h1_write(struct h1_conn *c, const char *data, size_t n);
/* Writes what c's TLS has to send (engine__h1_write). */
int engine__tls_flush(struct h1_conn *c);
/* Sends a request's head and body on c (through its TLS, if any): 0, a
 * UV error, or H1_SEND_TLS with why when TLS refused them. */
#define H1_SEND_TLS 1
int engine__h1_conn_send(struct h1_conn *c, const char *head, size_t len, const unsigned char *body,
                         size_t body_len, char *why, size_t why_len);
/* Hands what c's TLS holds, decrypted, to its protocol. */
void engine__h1_conn_deliver(struct h1_conn *c);

/* h1/request.c */
/* The request s sends now, as HTTP/1.1 text: its head (in the worker's
 * buffers, or the script's) and body (borrowed). */
void engine__h1_request(struct transport_slot *s, const char **head, size_t *len,
                        const unsigned char **body, size_t *body_len);
/* transport_ops.script_ready: a script's request goes to [target] url's
 * origin (h1 connects to one only); its head, serialised into q. */
int engine__h1_script_ready(struct transport_slot *s, struct scene_req *q, uint32_t hops, char *why,
                            size_t why_len);
/* Whether the redirect s follows stays on its kind's origin. */
int engine__h1_is_same_origin(const struct transport_slot *s);

/* HTTP/2 (h1/http2.c, h1/http2_io.c): the worker's connections, and one. */
struct h2_worker {
    uv_prepare_t flush;   /* each pass: the frames of every connection written */
    struct dlist all;     /* every connection, opening or open (h2_conn.in_all) */
    struct dlist free;    /* those that take one more stream (h2_conn.in_free) */
    struct dlist dirty;   /* those with frames to write (h2_conn.in_dirty) */
    struct h1_slot *done; /* streams that ended during a read, completed after it */
    uint32_t streams;     /* [target] streams */
    struct h2_head head;  /* where a request's fields are read */
    char *out;            /* where a pass's frames are gathered */
    size_t out_cap;
    nghttp2_session_callbacks *callbacks;
};

struct h2_conn {
    struct transport_worker *w;
    struct h1_conn *c;        /* its socket and TLS once open, else NULL */
    nghttp2_session *session; /* once open */
    struct h1_slot *opener;   /* while it opens: the slot whose connect it is */
    struct dlist slots;       /* requests waiting for it, then its streams (h1_slot.in_h2) */
    struct dlist_node in_all, in_free, in_dirty;
    int is_free, is_dirty;
    int is_goaway; /* the server sent GOAWAY: no new stream */
    int is_spent;  /* the server refused a stream: no new one either */
    int32_t last_stream_id;
    uint32_t broke;     /* the error code of a GOAWAY brink sent: the server broke HTTP/2 */
    char broke_why[48]; /* nghttp2's words for what it refused */
    int is_dead;        /* lost: its slots failed, its socket closes */
    uint64_t n_done;    /* replies completed on it */
};

/* h1/http2.c: HTTP/2 on h1's connections (http_version = 2 or h2c). */
/* flush writes the frames of every connection marked dirty, each loop
 * pass (engine__h2_on_flush). */
void engine__h2_init(struct transport_worker *w, uv_prepare_cb flush);
void engine__h2_close(struct transport_worker *w);
void engine__h2_fini(struct transport_worker *w);
/* Sends the request of s on a stream: of a connection with one free
 * (open or opening), else of a new one. */
void engine__h2_start(struct transport_slot *s);
/* c, the connection s opened, is up (TLS done): returns 0 when HTTP/2
 * took it, with every request waiting for it; 1 when the server picked
 * http/1.1 by ALPN: s sends its request on c as HTTP/1.1. */
int engine__h2_ready(struct transport_slot *s, struct h1_conn *c);
/* s lets go of its connection and stream: it failed with outcome and
 * words (NULL: it was aborted). An opening connection goes on for the
 * requests waiting for it, unless the failure is the connection's. */
void engine__h2_leave(struct transport_slot *s, enum transfer_outcome outcome, int os_errno,
                      const char *words);
/* The deadline of s passed while it waits for a connection or a reply. */
void engine__h2_timeout(struct transport_slot *s);
/* Frees the HTTP/2 state of a closed connection (NULL: nothing). */
void engine__h2_conn_free(struct h2_conn *hc);
/* hc has frames to write: they go in this loop pass (engine__h2_on_flush). */
void engine__h2_mark_dirty(struct h2_conn *hc);
/* Completes the streams that ended during a read (nghttp2 is not
 * re-entered). */
void engine__h2_complete_done(struct h2_worker *x);
/* hc is lost (or, with TRANSFER_OK, closes with no stream left): every
 * request on it fails with outcome, or goes once more where the server
 * cannot have processed it. */
void engine__h2_conn_lost(struct h2_conn *hc, enum transfer_outcome outcome, int os_errno,
                          const char *words);

/* h1/http2_io.c: the reads and writes of HTTP/2 connections. */
/* Writes the frames of every connection marked dirty (the worker's
 * uv_prepare_t, each loop pass). */
void engine__h2_on_flush(uv_prepare_t *p);

/* h1/connect.c */
/* Opens a connection for s: at once, after the worker's lookup, or in a
 * later pass when this one's connect budget is spent. */
void engine__h1_conn_open(struct transport_slot *s);
/* Takes h out of its worker's connect queue. */
static inline void engine__h1_unlink_queued(struct h1_worker *hw, struct h1_slot *h)
{
    dlist_remove(&hw->queued, &h->in_line);
    h->is_queued = 0;
}
/* The worker's lookup ended (its uv_async_t); a new loop pass (its paced idle). */
void engine__h1_on_resolved(uv_async_t *a);
void engine__h1_on_paced(uv_idle_t *i);

#endif
