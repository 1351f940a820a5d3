/*
 * target internals: the types and helpers shared by the files of
 * src/target/. Nothing here is visible outside the module. Unless a
 * comment says otherwise, functions may be called from any of
 * libmicrohttpd's pool threads and from the scheduler thread.
 */
#ifndef BRINK_TARGET_INTERNAL_H
#define BRINK_TARGET_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <microhttpd.h>

#include "target/kv.h"
#include "target/settings.h"

#define TARGET_ERR_MAX 256

/* Ground-truth counters: what the target did, for tests and /stats. */
struct target_stats {
    atomic_ullong connections_accepted; /* TCP connections accepted */
    atomic_llong active_connections;    /* open right now */
    atomic_ullong requests_total;       /* requests whose headers were read */
    atomic_ullong requests_by_ep[EP_COUNT];
    atomic_ullong responses_by_class[6]; /* index status / 100 (1xx..5xx) */
    atomic_ullong responses_503;
    atomic_ullong resets_sent;    /* connections closed with RST */
    atomic_ullong closed_early;   /* bodies cut short on purpose */
    atomic_ullong stalled;        /* headers sent, then nothing */
    atomic_ullong dripped;        /* bodies sent a byte at a time */
    atomic_ullong malformed_sent; /* malformed status lines */
    atomic_ullong huge_headers_sent;
    atomic_ullong hostile_sent;        /* responses with hostile header bytes */
    atomic_ullong bytes_sent;          /* body and raw bytes handed to the socket */
    atomic_ullong client_aborts;       /* requests whose client left before the whole reply */
    atomic_ullong node_gets;           /* GET /kv */
    atomic_ullong node_puts;           /* PUT /kv and /mp (parts and manifests) */
    atomic_ullong kv_full;             /* writes refused with 507 */
    atomic_llong queue_depth;          /* requests waiting for a simulated worker */
    atomic_ullong faults[FAULT_COUNT]; /* drawn or forced; a 503 or an empty body may void one */
    /* close_after_reply: the connections given a FIN after a reply, and the
     * requests that came on one after it (a byte past its last request). */
    atomic_ullong closed_after_reply;
    atomic_ullong requests_after_close;
};

/* Sibling counts seen by reads over the last 60 s (Riak's node_get_fsm_siblings). */
#define SIBWIN_SECONDS 60
struct sibwin {
    pthread_mutex_t lock;
    uint64_t sec[SIBWIN_SECONDS]; /* which second each slot holds */
    uint64_t count[SIBWIN_SECONDS];
    uint64_t sum[SIBWIN_SECONDS];
    uint64_t max[SIBWIN_SECONDS];
};

/* What arrived at /echo, by shape (echo_log.c). */
#define ECHO_SHAPES_MAX 16
#define ECHO_HEADERS_MAX 256
struct echo_shape {
    char method[16];
    char body[65];                  /* its first 64 bytes, unprintable ones as '.' */
    uint64_t body_bytes;            /* its whole length */
    char headers[ECHO_HEADERS_MAX]; /* "Name: value\n" of X-* and Content-Type, in order */
    uint64_t count;
};
struct echo_log {
    pthread_mutex_t lock;
    size_t n_shapes;
    struct echo_shape shapes[ECHO_SHAPES_MAX];
    uint64_t other; /* requests of shapes beyond the first ECHO_SHAPES_MAX */
};

struct sched;
struct capacity;

/* The running server. One per process; owned by target_main. */
struct target {
    struct MHD_Daemon *daemon;
    struct sched *sched;
    struct capacity *cap;
    struct kv *kv;
    struct target_stats stats;
    struct sibwin sibwin;
    struct echo_log echo_log;
    pthread_rwlock_t settings_lock; /* guards settings */
    struct settings settings;
    atomic_ullong fault_seq; /* per eligible request, for the seeded RNG */
    atomic_uint force_fault; /* enum fault to force on the next requests */
    atomic_uint force_remaining;
    atomic_uint over_limit;      /* connections marked for reset, not yet closed */
    atomic_uint max_connections; /* copy of settings.max_connections */
    atomic_int fast_bytes;       /* /bytes needs no fault draw and no service time */
    /* A copy of settings.close_after_reply. */
    atomic_int close_after_reply;
    int files_dir_fd;  /* -1 when no files_dir */
    uint64_t start_ns; /* clock_now_ns at start: the pauses' origin */
};

/* Raw bytes written by the scheduler thread to a suspended connection:
 * step bytes every interval_us (step 0: as fast as the socket takes them). */
#define RAW_MAX_TRIES 10000 /* about 10 s of a full socket buffer */
struct raw_out {
    struct target *t;
    int fd;
    void *tls; /* the connection's gnutls_session_t under --tls, else NULL */
    char *buf; /* borrowed */
    size_t len, off, step;
    uint32_t interval_us;
    unsigned tries_left;
};

/* An answer, built by an endpoint and sent (or mangled) by routes.c. */
#define REPLY_MAX_HEADERS 4
struct reply {
    unsigned status;
    const char *content_type;
    const char *body; /* len bytes; static, or owned */
    char *owned;      /* freed with the reply; NULL when body is static */
    uint64_t len;
    int generated; /* body is the /bytes pattern (len may exceed the table) */
    int fd;        /* >= 0: serve len bytes of this file (taken); -1 otherwise */
    unsigned n_hdr;
    struct {
        const char *name;
        char value[48];
    } hdr[REPLY_MAX_HEADERS];
};

/* Steps of a request between libmicrohttpd's calls of the access handler. */
enum phase {
    PH_BODY,         /* reading the request body */
    PH_BACKPRESSURE, /* a multipart part waits for the manifest's siblings */
    PH_WAIT,         /* suspended until served (queue, service, delay, write) */
    PH_RAW,          /* suspended while raw bytes go out; closes on resume */
};

/* Per-request state (MHD's request context), freed when the request ends. */
struct req {
    enum endpoint ep;
    enum fault fault;
    enum phase phase;
    atomic_bool peer_gone; /* the client closed or reset the connection (any thread) */
    int is_self_closed;    /* we ended it on purpose (a fault, a cut body, an error) */
    int is_get, is_put, is_delete, is_head;
    char *body; /* request body, up to body_max bytes */
    size_t body_len, body_cap, body_max;
    int body_too_big;
    int in_model;              /* admitted to the capacity model, not yet left */
    uint64_t extra_us;         /* waiting that holds no worker (delay, write flight) */
    uint64_t service_extra_us; /* added to the endpoint's service time */
    /* kv and multipart */
    struct kv_write w; /* the object (or the part) being written */
    struct kv_write w_manifest;
    uint64_t base; /* version the writer names (X-Brink-Version) */
    uint64_t manifest_base;
    unsigned bp_rounds;
    struct kv_read read; /* what a GET saw */
    int read_rc;
    /* raw faults */
    struct raw_out raw;
    char *raw_buf;
    struct reply reply;
};

/* A request as it arrived, whichever protocol brought it: its headers
 * through libmicrohttpd's connection (HTTP/1.1), or as a list (HTTP/2). */
struct req_header {
    const char *name; /* lower case over HTTP/2 */
    const char *value;
};
struct req_in {
    const char *url; /* the path, without the query */
    const char *method;
    struct MHD_Connection *conn;  /* HTTP/1.1; NULL over HTTP/2 */
    const struct req_header *hdr; /* over HTTP/2: n_hdr headers, in order */
    size_t n_hdr;
    const char *query; /* over HTTP/2: what follows the '?', or NULL */
};

/* --- serve.c: a request whatever its protocol --- */
enum endpoint target__serve_endpoint(const char *url, const char **arg);
/* The header's value (names compared without case), or NULL. */
const char *target__req_header(const struct req_in *in, const char *name);
/* The query argument's value, copied into buf (cap bytes), or NULL. */
const char *target__req_query(const struct req_in *in, const char *name, char *buf, size_t cap);
typedef void req_header_fn(void *arg, const char *name, const char *value);
/* Calls fn with each header, in the order they came. */
void target__req_headers_each(const struct req_in *in, req_header_fn *fn, void *arg);
/* The fault of a new request to ep (never for /stats, /metrics or
 * /_control): forced by header (named, or NULL), through control, or drawn. */
enum fault target__serve_fault(struct target *t, enum endpoint ep, const char *header);
/* A request's state, in PH_BODY; freed with target__req_free. */
struct req *target__req_new(struct target *t, enum endpoint ep, enum fault f, const char *method);
void target__req_free(struct target *t, struct req *r);
/* Appends n bytes of the request body, up to r->body_max. */
void target__req_take_body(struct req *r, const char *data, size_t n);
enum serve_next {
    SERVE_ANSWER, /* answer now (target__serve_answer) */
    SERVE_WAIT,   /* wait *wait_us, then admit again (PH_BACKPRESSURE) or answer (PH_WAIT) */
};
/* The body is in: prepares it and admits it to the capacity model (a full
 * queue answers 503 and voids the fault). */
enum serve_next target__serve_admit(struct target *t, const struct req_in *in, struct req *r,
                                    uint64_t *wait_us);
/* The wait is over: leaves the capacity model and builds r->reply. */
void target__serve_answer(struct target *t, const struct req_in *in, struct req *r);
/* Counts a reply of status sent (responses_by_class, responses_503). */
void target__serve_count_status(struct target *t, unsigned status);

/* --- echo_log.c: the ledger of /echo, in the ground truth --- */
void target__echo_log_init(struct echo_log *l);
void target__echo_log_destroy(struct echo_log *l);
/* Counts a request to /echo under its shape. */
void target__echo_log_add(struct echo_log *l, const struct req_in *in, const struct req *r);
/* {"shapes": [{method, body, body_bytes, headers, count}...], "other": N}; owned. */
json_t *target__echo_log_json(struct echo_log *l);

/* --- content.c: /bytes, /delay, /status, /echo --- */
#define CONTENT_PATTERN_BYTES 65536
#define CONTENT_MAX_BYTES (1ull << 30)
#define CONTENT_MAX_DELAY_MS 600000
void target__content_init(void);
/* Copies n bytes of the /bytes pattern starting at offset off into dst. */
void target__content_pattern(char *dst, uint64_t off, size_t n);
const char *target__content_pattern_table(void);
void target__reply_init(struct reply *rp);
void target__reply_free(struct reply *rp);
/* Sets a text reply with a formatted body (owned). */
void target__reply_text(struct reply *rp, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void target__reply_header(struct reply *rp, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void target__content_bytes(struct reply *rp, const char *arg);
/* Parses the MS of /delay/MS into µs; -EINVAL when it is not a number in range. */
int target__content_delay_us(const char *arg, uint64_t *us);
void target__content_status(struct reply *rp, const char *arg);
/* ANY /redirect/N[?code=C]: with N from 1 to 1000, status C (301, 302,
 * 303, 307 or 308; 302 by default) and Location /redirect/(N-1) with the
 * same code; /redirect/0 answers 200 to GET and HEAD and 405 to any other
 * method (so a redirect that kept a POST shows); /redirect/loop points at
 * itself forever. code is the query's value, NULL when absent. */
void target__content_redirect(struct reply *rp, const char *arg, const char *code,
                              const char *method);
void target__content_echo(struct reply *rp, const char *method, struct req *r);

/* --- store.c: /kv and /mp --- */
/* Prepares a kv or mp request once its body is in: begins writes, reads.
 * Returns 0, or 1 when rp already holds the final answer (an error), or 2
 * when the request must wait wait_us for backpressure and call again. */
int target__store_prepare(struct target *t, const struct req_in *in, struct req *r,
                          const struct settings *s, uint64_t *wait_us);
/* Finishes it after the wait: commits writes, fills rp. */
void target__store_finish(struct target *t, struct req *r, const char *url);
/* Ends writes still in flight (the request failed or was rejected). */
void target__store_abort(struct target *t, struct req *r);

/* Copies the settings under the read lock. */
void target__settings_get(struct target *t, struct settings *out);

/* --- routes.c: the MHD callbacks --- */
enum MHD_Result routes_access(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **req_cls);
void target__routes_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                              enum MHD_RequestTerminationCode why);
void target__routes_connection(void *cls, struct MHD_Connection *conn, void **socket_ctx,
                               enum MHD_ConnectionNotificationCode what);

/* Queues resp (not destroyed here) with status, counting body_len bytes. */
enum MHD_Result respond(struct target *t, struct MHD_Connection *conn, unsigned status,
                        struct MHD_Response *resp, uint64_t body_len);

/* --- faults.c --- */
/* Picks the fault for the next eligible request: forced by header (named, or
 * NULL), forced through control, or drawn with the seeded RNG. */
enum fault target__faults_pick(struct target *t, const struct settings *s, const char *header);
/* Makes the connection's close abortive (RST) and counts it; the caller
 * returns MHD_NO so libmicrohttpd closes the socket. */
void target__faults_reset(struct target *t, struct MHD_Connection *conn);
/*
 * close_after_reply, on a connection's context (target__faults_fin_new,
 * its socket context; _fin_closed frees it): _fin_request notes the bytes
 * its socket had received at a request; _fin shuts its sending side (a
 * FIN; plain HTTP only) once a reply is out, and counts it;
 * _is_after_fin says a FIN went out; _fin_closed counts a request that
 * crossed the FIN: bytes received after the last request the connection
 * answered (whether libmicrohttpd read them or not).
 */
void *target__faults_fin_new(void);
void target__faults_fin_request(struct MHD_Connection *conn, void *ctx);
void target__faults_fin(struct target *t, struct MHD_Connection *conn, void *ctx);
int target__faults_is_after_fin(const void *ctx);
void target__faults_fin_closed(struct target *t, struct MHD_Connection *conn, void *ctx);
/* Response announcing len bytes whose body stops after half of them; the
 * connection then closes. The body is owned (taken, freed with the response)
 * or, when owned is NULL, the /bytes pattern. *is_cut (borrowed, must live as
 * long as the request) becomes 1 when the body is cut. */
struct MHD_Response *faults_cut_response(struct target *t, const char *pattern, char *owned,
                                         uint64_t len, int *is_cut);
/* Writes a whole buffer to the connection's socket, bypassing MHD; returns 0,
 * -EPIPE when the client is gone (reset, or closed), or -EAGAIN when the
 * socket took only part. Only for small buffers or before MHD wrote anything. */
int target__faults_raw_write(struct target *t, struct MHD_Connection *conn, const char *buf,
                             size_t len);
/* Builds the raw bytes of the malformed or huge-header faults (malloc'd). */
char *target__faults_raw_reply(enum fault f, const struct settings *s, size_t *len);
int target__faults_raw_start(struct raw_out *o, struct target *t, struct MHD_Connection *conn,
                             char *buf, size_t len, size_t step, uint32_t interval_us);
/* A sched_fn: writes the next piece; returns µs until the next, 0 when done
 * (or out of tries), or -EPIPE when the client is gone. */
int target__faults_raw_step(void *arg);
/* The hostile string used in headers and stats names (ESC, OSC, CSI, bidi). */
extern const char faults_hostile[];
extern const char faults_hostile_header[]; /* the same without CR or LF */

/* --- capacity.c: workers and a FIFO queue, simulated --- */
struct capacity *target__capacity_new(void);
void target__capacity_free(struct capacity *c);
/* Admits a request needing service_us of a worker: returns 0 and the time
 * in µs until it is served, or -EBUSY when the queue is full. With
 * contention (sigma, kappa not both 0) the service time is service_us x
 * (1 + sigma (n - 1) + kappa n (n - 1)) on average (each drawn from 0.75
 * to 1.25 times that), n the requests in service with it (itself
 * included) or the conns open when more, at most workers: n users that
 * each wait for their answer then get the Universal Scalability Law's
 * throughput. (A user keeps its connection between two requests: counting
 * requests alone would leave it out while its next one is on the way, and
 * understate the contention by that share of its time.) */
int target__capacity_admit(struct capacity *c, unsigned workers, unsigned queue_max,
                           uint64_t service_us, double sigma, double kappa, uint64_t conns,
                           uint64_t now_ns, uint64_t *wait_us);
/* The request admitted earlier has left the system. */
void target__capacity_leave(struct capacity *c);
/* Requests waiting for a worker now. */
uint64_t target__capacity_queue(struct capacity *c, unsigned workers);

/* --- sched.c: the timer thread that resumes suspended connections --- */
/* Returns µs until the next call, 0 when done, or a negative errno (-EPIPE)
 * when the client is gone. Runs on the scheduler thread. */
typedef int sched_fn(void *arg);
int target__sched_new(struct sched **out);
/* Resumes conn (suspended by the caller) at due_ns. When fn is set, it runs
 * at due_ns first (on the scheduler thread) and may ask to run again later
 * instead of resuming. With peer_gone set (borrowed, must outlive the wait),
 * the connection's socket is watched meanwhile: when the client closes or
 * resets it, or fn reports it gone, *peer_gone becomes 1 and conn is resumed
 * at once, within milliseconds. Returns 0, or -ECANCELED once stopping (the
 * caller resumes conn itself). Any thread. */
int target__sched_add(struct sched *s, struct MHD_Connection *conn, uint64_t due_ns, sched_fn *fn,
                      void *arg, atomic_bool *peer_gone);
/* Resumes every waiting connection now and joins the thread. */
void target__sched_stop(struct sched *s);
void target__sched_free(struct sched *s);

/* --- h2c.c: HTTP/2 cleartext with prior knowledge, on listen_fd --- */
struct h2c;
/* Starts the h2c thread serving listen_fd (borrowed; the caller closes it
 * after target__h2c_stop). 0 or -errno. */
int target__h2c_start(struct target *t, int listen_fd, struct h2c **out);
/* Stops the thread and closes every h2c connection. NULL is fine. */
void target__h2c_stop(struct h2c *h);

/* --- stats.c --- */
void target__sibwin_init(struct sibwin *w);
void target__sibwin_destroy(struct sibwin *w);
void target__sibwin_record(struct sibwin *w, uint64_t now_s, uint64_t siblings);
void target__sibwin_read(struct sibwin *w, uint64_t now_s, uint64_t *max, double *mean);
/* Bodies of /stats, /metrics and GET /_control; malloc'd, NUL-terminated. */
char *target__stats_json(struct target *t, int pretty);
char *target__stats_metrics(struct target *t, size_t *len);
char *target__stats_ground_truth(struct target *t);

/* --- files.c: GET /files/PATH from settings.files_dir --- */
/* Opens the directory once at start; returns 0 or -errno (err filled). */
int target__files_open(struct target *t, const char *dir, char *err, size_t err_len);
/* Answers a file's bytes or a directory's index; path is after "/files". */
void target__files_reply(struct target *t, const char *path, struct reply *rp);

/* --- control.c: GET and POST /_control --- */
void target__control_reply(struct target *t, struct req *r, const char *method);
/* Installs new settings (under the write lock) and applies their effects. */
void target__control_install(struct target *t, const struct settings *s);

#endif
