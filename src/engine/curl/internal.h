/*
 * The curl transport, shared by the files of curl/ only: the state it
 * keeps behind a worker's and a slot's view (priv). Its files call one
 * way, from the top: transfer.c (a slot's easy handle, the request set on
 * it, the ops table), outcome.c (how a transfer ended, and the sends
 * again), uv.c (the libcurl <-> libuv glue, which reports a transfer's end
 * through the done callback outcome.c's caller hands it at init), then
 * tls.c (the TLS and HTTP version options) and code.c (libcurl's codes in
 * brink's outcomes). The only engine header that includes <curl/curl.h>.
 * Every function runs on the worker's thread, as the transport's ops do.
 */
#ifndef BRINK_ENGINE_CURL_TRANSPORT_H
#define BRINK_ENGINE_CURL_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>
#include <uv.h>

#include "core/container.h"
#include "core/dlist.h"
#include "engine/transport.h"

struct config_target;

#define CURL_URL_MAX 65536 /* bytes of an expanded URL, NUL included */
/* libcurl's words when its count of sends again ran out (curl/transfer.c,
 * curl/code.c). That count (Curl_retry_request's, five) belongs to the
 * handle, not the transfer: 7.88 clears it only when it runs out, so a
 * user's handle that met a few crossed closes over its life refuses the
 * next one a send again. */
#define CURL_RETRIES_SPENT "Connection died, tried "
/* The sends of one request at most, as libcurl 7.88 allows (one and five
 * again, Curl_retry_request). */
#define CURL_SENDS_MAX 6
/* brink keeps a transfer's deadlines in its own timer (curl/uv.c); libcurl's
 * own (CURLOPT_TIMEOUT_MS, CURLOPT_CONNECTTIMEOUT_MS) come this much later,
 * a backstop only. */
#define CURL_BACKSTOP_MS 1000

/* One open socket of a worker, polled by libuv on behalf of libcurl. */
struct sock {
    uv_poll_t poll;
    struct transport_worker *w;
    curl_socket_t fd;
    int is_ours;            /* opened through our opensocket callback: kept across transfers */
    int is_polling;         /* libcurl wants events on it */
    int events;             /* the UV_READABLE/UV_WRITABLE it wants */
    struct closing closing; /* its close, once libcurl is done with it (closer.h) */
};

/* [target] server_name on a kind whose URL names another host: the URL's
 * "scheme://authority" is replaced, so that libcurl sends the name in TLS
 * and checks the certificate against it, while the connection still goes
 * where the URL said and Host still names the URL's host (curl/tls.c). */
struct curl_rename {
    size_t from_len;               /* bytes of "scheme://authority" in the kind's URLs */
    char *to;                      /* "scheme://server_name:port", owned */
    size_t to_len;                 /* strlen(to) */
    struct curl_slist *connect_to; /* "server_name:port:host:port", owned */
};

/* A worker's libcurl state: its multi handle, the loop handles that drive
 * it, and the sockets libcurl opened. */
/* Room for a transfer's words ("curl N: ..."). */
#define CURL_WORDS_MAX 320

/* How a transfer ended, for the glue (uv.c) to report: outcome.c's
 * engine__curl_slot_done, handed down at init so that uv.c calls nothing
 * above it. */
typedef void (*engine__curl_done_fn)(struct transport_slot *s, CURLcode code);

struct curl_worker {
    CURLM *multi;
    engine__curl_done_fn done;        /* a transfer ended (the handle removed) */
    CURLSH *share;                    /* TLS sessions of its handles; NULL: tls_resume = no */
    char *ca_file;                    /* the trust store's file, owned; NULL: libcurl's default */
    struct curl_rename *renames;      /* per kind; NULL: no server_name to apply */
    long host_conns_max;              /* CURLMOPT_MAX_HOST_CONNECTIONS set, 0: none */
    int is_h2c_single_use;            /* h2c on a libcurl that cannot reuse its connections */
    uv_timer_t timer;                 /* libcurl's timeout */
    uv_idle_t now;                    /* libcurl's timeout of 0: on the next loop pass */
    struct curl_slist **kind_headers; /* per kind, built once */
    struct curl_slist *connect_to;    /* [target] connect_to lines, built once; NULL: none */
    struct sock **socks;              /* by fd */
    size_t socks_cap;
    uv_idle_t paced;     /* adds held back for the connect budget, next passes */
    struct dlist queued; /* those slots, oldest first */
    uint32_t promised;   /* adds counted as new connections, not yet handed to libcurl's loop */
    uint32_t opened;     /* sockets our opensocket callback opened, ever */
    uint64_t acts;       /* curl_multi_socket_action calls made, ever */
    struct curl_slot **spare; /* handles made ahead (prepare), for slots to come */
    uint32_t n_spare;
    uint32_t users;         /* the closed model's users of the worker, last told */
    char url[CURL_URL_MAX]; /* scratch for expanding URLs; libcurl copies it */
    /* A bit per local port: the connection from that port carried HTTP/2
     * replies, or HTTP/1.x ones; and the protocol of the last reply the
     * worker read (2, 1, 0: none yet): what a send again of libcurl's means
     * (curl/transfer.c). */
    uint8_t h2_ports[65536 / 8];
    uint8_t h1_ports[65536 / 8];
    int last_version;
};

/* What brink's own checks of a reply's header lines found (curl/transfer.c). */
struct curl_head {
    long content_length; /* -1: none seen yet in this header block */
    int is_chunked;
    uint32_t n_blocks; /* header blocks seen: interim (1xx) replies and the final one */
    const char *why;   /* why the reply was refused (static text), NULL: it was not */
};

/* A slot's libcurl state: one easy handle, reused for every request. */
struct curl_slot {
    CURL *easy;
    size_t last_kind;    /* whose options the handle holds; SIZE_MAX: none */
    uint64_t body_bytes; /* received in the current transfer */
    int is_body_cut;
    int is_retried;      /* the transfer was sent again once on a fresh connection */
    int n_sends;         /* times libcurl began to send the transfer (its prereq callback) */
    int held_errno;      /* a send again of libcurl's brink stopped: its errno (0: none) */
    int is_held;         /* brink stopped one (engine__curl_slot_prereq) */
    int is_held_refused; /* that one was of a refused stream */
    long send_port;      /* the local port of the connection of its last send */
    long send_connects;  /* CURLINFO_NUM_CONNECTS at its last send */
    int is_send_reused;  /* its last send went on a connection made before the transfer */
    int open_errno;      /* why our opensocket callback failed, 0 if it did not */
    long buffer_size;    /* CURLOPT_BUFFERSIZE, raised after a large body */
    struct curl_head head;
    struct curl_slist *req_headers;     /* a scenario script's request's header lines, or NULL */
    struct transport_slot *s;           /* the slot it belongs to */
    const struct transport_request *rq; /* the one in flight, or the last */
    int is_queued;           /* waits for a pass's connect budget, not yet in the multi */
    struct dlist_node queue; /* in its worker's queue */
    uv_timer_t deadline;     /* its connect's, then its request's deadline (curl/uv.c) */
    uint64_t added_ns;       /* when it was handed to libcurl, since the run started */
    uint64_t added_at_act;   /* its worker's acts then: libcurl takes it up in the next */
    char error[CURL_ERROR_SIZE];
    /* aws_sigv4: the signature's lines of the transfer in flight, and the
     * list nodes that put them before its kind's header list. */
    struct curl_slist sigv4_nodes[SIGV4_MAX_LINES];
    char *sigv4_lines; /* owned */
    size_t sigv4_cap;
    /* [target] cookies: the Cookie line of the transfer in flight (owned,
     * ENGINE_COOKIE_LINE_MAX bytes) and its node, first in the list. */
    char *cookie_line;
    struct curl_slist cookie_node;
    /* [target] follow_redirects: its kind's header lines without
     * Authorization and Cookie, for a hop that left the kind's origin. */
    struct curl_slist *cross_headers;
};

/* The libcurl state behind a worker's and a slot's view (their priv). */
static inline struct curl_worker *curl_worker_of(const struct transport_worker *w)
{
    return w->priv;
}

static inline struct curl_slot *curl_slot_of(const struct transport_slot *s)
{
    return s->priv;
}

/* uv.c: libcurl's global state, once per process, and its version. */
int engine__curl_uv_global_init(char *err, size_t err_len);
void engine__curl_uv_global_cleanup(void);
const char *engine__curl_version(void);

/* uv.c: the libcurl <-> libuv glue. */
int engine__curl_uv_init(struct transport_worker *w, engine__curl_done_fn done, char *err,
                         size_t err_len);
void engine__curl_uv_close(struct transport_worker *w);
void engine__curl_uv_fini(struct transport_worker *w);
/* Sets the options every easy handle of w shares on s's handle, and
 * readies s's deadline timer (closed by engine__curl_uv_close). */
void engine__curl_uv_setup_easy(struct transport_worker *w, struct transport_slot *s);
/* The protocol of the connection from local port: 2 (HTTP/2), 1 (HTTP/1.x)
 * or 0 (none of its replies read), as engine__curl_uv_port_version_set
 * last set it (version 0: forgotten, a new connection). */
int engine__curl_uv_port_version(const struct transport_worker *w, long port);
void engine__curl_uv_port_version_set(struct transport_worker *w, long port, int version);
/* Adds s's configured transfer to the multi handle, at once, or in a later
 * loop pass when it needs a new connection and the pass's connect budget
 * is spent (its deadlines still count from its start), and arms its
 * deadline. */
int engine__curl_uv_add(struct transport_worker *w, struct transport_slot *s);
/* engine__curl_uv_add, or the process dies: out of memory. */
void engine__curl_add(struct transport_slot *s);
/* Sets libcurl's deadlines of s's transfer, its backstops: what is left of
 * them since its start, and CURL_BACKSTOP_MS. */
void engine__curl_slot_set_deadlines(struct transport_slot *s);
/* s waited in the connect queue past its connect deadline (never added). */
void engine__curl_slot_expired(struct transport_slot *s);
/* Whether e's connect phase is over, as h1 and libcurl's own
 * connect_timeout count it: a connection made or reused and, for https,
 * its TLS handshake done. */
int engine__curl_slot_connected(CURL *e);
/* Aborts the transfer of s (the connection closes). */
void engine__curl_uv_abort(struct transport_worker *w, struct transport_slot *s);
/* transport_ops.users_changed: the cache keeps as many idle connections
 * as the n users need once they are fewer. */
void engine__curl_uv_users_changed(struct transport_worker *w, uint32_t n);

/* curl/tls.c: the TLS and HTTP version options ([target] insecure,
 * ca_file, client_cert, client_key, server_name, tls_min, tls_resume,
 * http_version, streams). */
/* Sets up what the worker's handles share: the trust store's file, the
 * TLS session cache, HTTP/2 multiplexing on the multi handle and the
 * server_name renames (their Host headers added to kind_headers). Returns
 * 0, or -ENOMEM / -EINVAL with one line in err. */
int engine__curl_tls_init(struct transport_worker *w, char *err, size_t err_len);
/* Frees what engine__curl_tls_init made, once every easy handle is gone. */
void engine__curl_tls_fini(struct transport_worker *w);
/* Sets the TLS and HTTP version options on a new easy handle of w. */
void engine__curl_tls_setup_easy(struct transport_worker *w, CURL *e);
/* Applies the rename of kind (if any) to url, in place (cap bytes). */
void engine__curl_tls_rename(const struct transport_worker *w, size_t kind, char *url, size_t cap);
/* Before a transfer of w is added: caps the connections HTTP/2 opens to
 * one per streams transfers in flight. */
void engine__curl_tls_before_add(struct transport_worker *w);
/* The HTTP version of the reply e received, as ALPN names it ("h2",
 * "http/1.1"; static), or NULL when none came. */
const char *engine__curl_tls_http_version(CURL *e);
/* Requests in flight one connection may carry: [target] streams. */
uint32_t engine__curl_tls_streams(const struct transport_worker *w);
/* Whether w's transfers may reuse connections: [target] keepalive, unless
 * this libcurl cannot reuse an h2c connection. */
int engine__curl_tls_reuses(const struct transport_worker *w);

/* curl/outcome.c: the transfer of s ended with code (CURLMSG_DONE, handle
 * removed). */
void engine__curl_slot_done(struct transport_slot *s, CURLcode code);
/* CURLOPT_PREREQFUNCTION, clientp the slot: libcurl is about to send the
 * request, perhaps again on its own (engine__curl_slot_prereq in
 * curl/outcome.c says when brink lets it). */
int engine__curl_slot_prereq(void *clientp, char *conn_primary_ip, char *conn_local_ip,
                             int conn_primary_port, int conn_local_port);

/*
 * Receive buffers. libcurl's default 16 KiB makes large bodies cost many more
 * reads; 512 KiB measured best for 133 KiB files. But a buffer is allocated
 * per handle, and libcurl frees and allocates it again between transfers, so
 * with small bodies a large buffer only makes the allocator wander over more
 * and more pages (RSS grew steadily at c=200). So every user starts with the
 * default and moves up once it has seen a large body; only a worker's first
 * 64 users get the largest size, which keeps memory bounded at any
 * concurrency.
 */
#define BUFFER_DEFAULT (16L * 1024)
#define BUFFER_LARGE_BODY (32u * 1024)
/* curl/outcome.c: the receive buffer of the slot of index once it saw a
 * large body. */
long engine__curl_large_buffer_for(uint32_t index);
/* Clears what the last transfer of cs left, for the next one (or a retry). */
void engine__curl_reset_transfer(struct curl_slot *cs);
/* A connect that failed for a reason [target] unix_socket or ip made:
 * words (cap bytes) say so where libcurl's name neither. */
void engine__curl_route_failed(const struct config_target *t, CURLcode code,
                               struct transfer_result *r, char *words, size_t cap);

/* curl/code.c: libcurl's result in brink's terms. */
/* The outcome of a transfer that ended with code: os_errno is
 * CURLINFO_OS_ERRNO, connected engine__curl_slot_connected,
 * is_tls whether it was https, body_cut whether our write callback
 * stopped it at max_body on purpose, errbuf CURLOPT_ERRORBUFFER's words
 * (HTTP/2's failures differ by them alone; NULL: none). */
enum transfer_outcome engine__curl_code_outcome(CURLcode code, long os_errno, int connected,
                                                int is_tls, int body_cut, const char *errbuf);
/* Writes "curl N: words" into buf: errbuf (CURLOPT_ERRORBUFFER) or, when
 * it is empty, libcurl's text for code; for libcurl's "Out of memory" on a
 * connection, what that means in a reply. */
void engine__curl_code_words(CURLcode code, int connected, const char *errbuf, char *buf,
                             size_t cap);

#endif
