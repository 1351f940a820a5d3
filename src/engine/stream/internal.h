/*
 * The stream transport's private state and the functions its files
 * share: a scenario user's own connections (brink.tcp, brink.ws) and the
 * exchanges over them. stream/conn.c (a connection: name lookup, connect,
 * reads, writes, close) is below stream/ws.c (the WebSocket upgrade and
 * frames), both below stream/transport.c (the exchanges and the ops
 * table); what goes up goes through struct stream_conn's up callback.
 * Worker thread only.
 */
#ifndef BRINK_ENGINE_STREAM_INTERNAL_H
#define BRINK_ENGINE_STREAM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "core/ws.h"
#include "engine/lookup.h"
#include "engine/tls/tls.h"
#include "engine/transport.h"
#include "script/script.h"

#define STREAM_READ_MIN (16u * 1024) /* room a read gets at least */
#define STREAM_IDLE_MAX (1u << 20)   /* bytes kept while no exchange waits: then reads pause */
#define STREAM_HEAD_MAX (16u * 1024) /* bytes of a WebSocket upgrade's reply head */
#define STREAM_WORDS_MAX 192
#define STREAM_TLS_RAW (64u * 1024) /* a TLS connection's read, before decryption */
#define STREAM_TLS_NAMES_MAX 16     /* server names a worker keeps a TLS context for */

enum stream_state {
    CONN_LOOKUP,     /* its host's name is being looked up */
    CONN_CONNECTING, /* the TCP connect is under way */
    CONN_UPGRADING,  /* brink.ws: the upgrade request went, its reply is awaited */
    CONN_OPEN,       /* exchanges go over it */
};

/* What a connection tells the transport above it. */
enum stream_event {
    STREAM_CONNECTED, /* the TCP connect succeeded (brink.ws: the upgrade is next) */
    STREAM_DATA,      /* bytes were read into in */
    STREAM_WROTE,     /* the exchange's bytes were all written */
    STREAM_FAILED,    /* it failed (outcome, os_errno, words): it is closing */
};

struct stream_slot;

struct stream_conn {
    uv_tcp_t tcp;
    uv_connect_t connect;
    uv_write_t write; /* the exchange's bytes (at most one such write at a time) */
    uv_async_t wake;  /* the lookup's result is in (engine/lookup.c) */
    struct transport_worker *w;
    struct stream_slot *owner; /* NULL once let go: it closes and frees itself */
    uint32_t index;            /* in its owner's conns */
    const struct script_conn_spec *spec;
    enum stream_state state;
    int has_socket; /* tcp is open (initialised, not closing) */
    int has_wake;   /* wake is open: lookup runs */
    int n_handles;  /* tcp and wake, until their close: the last frees a closing connection */
    struct lookup *lookup;
    struct engine_addrs addrs; /* its host's, once looked up */
    uint32_t addr_i;           /* the address connected to */
    uint32_t n_tried;          /* addresses tried */
    int is_closing;
    int is_counted; /* engine__worker_conn_opened counted it */
    int is_reading;
    int is_writing;
    struct tls_conn *tls; /* tls = true or wss://, once connected; else NULL */
    int is_tls_ready;     /* its handshake completed */
    uint64_t begun_ns;    /* uv_hrtime when the connect began */
    char *in;             /* the server's bytes not yet taken by a reply */
    size_t in_len, in_cap;
    uint64_t n_read; /* bytes read in all */
    /* brink.ws: the upgrade's key, and the message being put together. */
    char key[WS_KEY_LEN + 1];
    int in_message;
    enum ws_opcode message_op;
    /* A failure, for the up callback. */
    enum transfer_outcome outcome;
    int os_errno;
    long status;
    char words[STREAM_WORDS_MAX];
    void (*up)(struct stream_conn *c, enum stream_event ev);
};

/* A user's connections, and its exchange in flight. */
struct stream_slot {
    struct transport_slot *s;
    uv_timer_t timer; /* the exchange's deadline */
    struct stream_conn *conns[SCRIPT_CONNS_MAX];
    struct stream_conn *c; /* the exchange's connection while in flight */
    struct scene_req *q;   /* the exchange's request while in flight */
    int is_in_flight;
    int is_starting; /* inside start: a completion waits for the next pass */
    int is_connected;
    int has_first_byte;
    uint64_t sent_ns; /* uv_hrtime when the exchange's write began */
    uint64_t bytes_in, bytes_out;
    uint64_t read_base; /* the connection's n_read when the exchange began */
    size_t scanned;     /* bytes of the connection's in that hold no upto: not searched again */
    /* A completion made inside start, done in the next pass. */
    int is_pending;
    struct stream_slot *next_pending;
    enum transfer_outcome outcome;
    int os_errno;
    long status;
    char words[STREAM_WORDS_MAX];
};

struct stream_worker {
    uv_idle_t idle;              /* runs the pending completions */
    struct stream_slot *pending; /* newest first */
    /* TLS: a context per server name (and ALPN), made at its first
     * connection, and where TLS connections read before decryption. */
    struct {
        char *name;
        enum tls_alpn alpn;
        struct tls_context *ctx;
    } tls[STREAM_TLS_NAMES_MAX];
    uint32_t n_tls;
    char *tls_raw;
};

static inline struct stream_worker *stream_worker_of(const struct transport_worker *w)
{
    return w->stream;
}

static inline struct stream_slot *stream_slot_of(const struct transport_slot *s)
{
    return s->stream;
}

/* stream/conn.c */
/* The first d (dn bytes, at least 1) in p (n bytes), or NULL. */
const char *stream__find(const char *p, size_t n, const char *d, size_t dn);
/* A new connection of h at index i to spec, which up hears of; nothing
 * happens until stream__conn_begin starts its lookup or connect (a
 * failure there is told at once). */
struct stream_conn *stream__conn_new(struct stream_slot *h, uint32_t i,
                                     const struct script_conn_spec *spec,
                                     void (*up)(struct stream_conn *, enum stream_event));
void stream__conn_begin(struct stream_conn *c);
/* Lets go of c: its socket closes (a FIN) and it frees itself. */
void stream__conn_close(struct stream_conn *c);
/* Writes n bytes that stay valid until STREAM_WROTE or a failure. */
void stream__conn_send(struct stream_conn *c, const void *p, size_t n);
/* Writes a copy of n bytes, behind any write under way (no event). */
void stream__conn_send_copy(struct stream_conn *c, const void *p, size_t n);
/* c failed: its words say so, and up hears it (STREAM_FAILED). */
void stream__conn_fail(struct stream_conn *c, enum transfer_outcome outcome, int os_errno,
                       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Takes the first n bytes of c->in (a reply's). */
void stream__conn_take(struct stream_conn *c, size_t n);
/* Reads resume (they pause while no exchange waits and in is full). */
void stream__conn_read(struct stream_conn *c);
/* "tcp HOST:PORT" or "ws HOST:PORT", for words. */
const char *stream__conn_name(const struct stream_conn *c, char *buf, size_t cap);

/* stream/ws.c */
/* Sends the upgrade request of c, just connected. */
void stream__ws_upgrade(struct stream_conn *c);
/* Reads the upgrade's reply from c->in: 1 when it switched (the head
 * taken), 0 while more is needed, -1 when it failed (c->outcome, status
 * and words set). */
int stream__ws_upgraded(struct stream_conn *c);
/* Takes frames from c->in for an exchange whose reply q keeps (at most
 * max bytes): answers pings; returns 1 when a whole message or a pong is
 * in q->cap.body (q->reply_type set), 0 while more is needed, -1 when it
 * failed (c->outcome and words set). */
int stream__ws_take(struct stream_conn *c, struct scene_req *q, size_t max);
/* Sends a close frame (code 1000) on c before it closes. */
void stream__ws_goodbye(struct stream_conn *c);

#endif
