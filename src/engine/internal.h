/*
 * Shared inside src/engine only. One struct engine owns N workers; each
 * worker is a thread with its own uv_loop_t and one transport (libcurl's
 * multi handle, or brink's own HTTP/1.1 client), and owns its slots
 * (virtual users), its sockets and its interval statistics outright, so the
 * request path takes no lock. Workers meet in two places: the control state
 * (commands, under engine.lock) and the merger (intervals, under its lock).
 */
#ifndef BRINK_ENGINE_INTERNAL_H
#define BRINK_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/socket.h>

#include <uv.h>

#include "core/command.h"
#include "core/cookies.h"
#include "core/container.h"
#include "core/errclass.h"
#include "core/tick.h"
#include "engine/engine.h"
#include "ramp/ramp.h"
#include "engine/capture.h"
#include "engine/deadline.h"
#include "engine/closer.h"
#include "engine/pace.h"
#include "engine/schedule.h"
#include "engine/sigv4.h"

struct hist;
struct workload;
struct worker;
struct slot;
struct curl_slot;
struct curl_worker;
struct h1_kind;
struct h1_slot;
struct h1_worker;
struct transfer_result;
struct ramp;
struct cookie_jar;
struct script;
struct script_setup;
struct script_user;
struct scene_kinds;

/* Counts of one request kind (or of all) over one interval. */
struct kind_stats {
    uint64_t started;
    uint64_t completed;
    uint64_t ok;
    uint64_t bytes_in;
    uint64_t bytes_out;
    uint64_t errors[ERR__COUNT];
    struct hist *hist; /* latencies of the requests that succeeded (ok), µs */
};

/* A scenario script's check or counter over one interval, shown in the
 * tick beside the probes: a check NAME as "check:NAME", its failures in
 * the interval; a counter, the sum of its additions; a gauge, its last
 * value. */
struct scene_mark {
    char name[TICK_NAME_MAX];
    int is_gauge;
    int is_check;
    double value;
    uint64_t passed; /* checks */
};

/* What one worker saw in one interval; merged across workers into a tick. */
struct interval {
    uint64_t seq;
    uint64_t start_ns; /* since the run started */
    uint64_t end_ns;
    struct kind_stats total;
    struct kind_stats *kinds; /* n_kinds */
    size_t n_kinds;
    struct tick_status status[TICK_MAX_STATUS];
    uint32_t n_status;
    uint64_t status_other;
    char first_error[ERR__COUNT][TICK_TEXT_MAX];
    /* When each first error was seen, ns since the run started: its event
     * carries this time, not the interval's start, so that it never shows
     * before the change that caused it. Meaningful where first_error is set. */
    uint64_t first_error_ns[ERR__COUNT];
    uint64_t connections_opened; /* connects begun (engine__worker_conn_opened) */
    uint32_t connections;        /* its connections open at the end */
    const char *http_version;    /* static: of its latest reply, "h2"; NULL: none yet */
    uint64_t dropped;
    uint64_t aborted;
    uint64_t bodies_cut;
    uint64_t cookies_dropped; /* Set-Cookies a full jar dropped */
    uint64_t marks_dropped;   /* script check, counter and gauge calls whose name had no room */
    uint64_t resent[RESEND__COUNT]; /* requests sent again, by cause */
    uint64_t loop_lag_us;
    uint32_t target;    /* this worker's share at the end */
    uint32_t active;    /* its slots that may run */
    uint32_t in_flight; /* its transfers in flight at the end */
    uint32_t fds_used;
    /* Open model: service times (actual start to end) of its requests, and
     * how the schedule was kept. */
    struct hist *service;
    uint64_t service_completed;
    /* Latencies of failed requests, all kinds together: apart from the
     * successes', so a flood of fast errors cannot pull those down. */
    struct hist *failed;
    uint64_t sched_taken;   /* requests started from the schedule */
    uint64_t sched_called;  /* requests the schedule called for */
    uint64_t sched_backlog; /* due at the end and not started */
    uint64_t sched_lag_us;  /* worst lag */
    uint64_t sched_capped;  /* times the cap held due requests back */
    /* Open model: send lags (intended start to engine__slot_start) of the requests
     * it started from the schedule, µs. */
    struct hist *send_lag;
    /* Where the time went, by enum tick_phase, µs (engine__worker_phase). */
    struct hist *phases[PHASE__COUNT];
    /* A scenario run: its checks and counters, by name. */
    uint32_t n_marks;
    struct scene_mark marks[TICK_MAX_PROBES];
};

void engine__interval_init(struct interval *iv, size_t n_kinds);
void engine__interval_reset(struct interval *iv);
void engine__interval_free(struct interval *iv);
/* Adds src into dst (counts summed, histograms merged, first messages kept). */
void engine__interval_add(struct interval *dst, const struct interval *src);
void engine__interval_count_status(struct interval *iv, uint16_t code, uint64_t n);
/* Adds mk into iv's marks (by name; a name past TICK_MAX_PROBES is not kept). */
void engine__interval_add_mark(struct interval *iv, const struct scene_mark *mk);

/* The merger: collects each worker's interval k and publishes tick k once
 * all running workers have delivered it. Thread-safe. */
struct merger;
/* kinds: a scenario run's request kinds (their names come as the script
 * makes them, at most TICK_MAX_KINDS), NULL: wl's. */
struct merger *engine__merger_new(uint32_t n_workers, const struct workload *wl,
                                  const struct scene_kinds *kinds, struct chan *ch,
                                  uint64_t tick_ns);
void engine__merger_free(struct merger *m);
/* Worker w delivers its interval; is_final marks its last one. */
void engine__merger_submit(struct merger *m, uint32_t w, const struct interval *iv, int is_final);
/* An event for the next tick published. */
void engine__merger_event(struct merger *m, enum event_kind kind, uint64_t at_ns, const char *text);
void engine__merger_set_fds_limit(struct merger *m, uint32_t limit);
/* The transport's name shown in every tick; name must outlive m. */
void engine__merger_set_transport(struct merger *m, const char *name);
/* Each tick gets a copy of the probes' board (NULL: none). Before the
 * workers start. */
void engine__merger_set_board(struct merger *m, struct board *b);
/* Each tick says where the run ends (struct tick_bound): end_us after its
 * start, after requests requests; 0 for no such bound. Before the workers
 * start. */
void engine__merger_set_bound(struct merger *m, uint64_t end_us, uint64_t requests);
/* fn sees every tick after it is built, before it is published, under the
 * merger's lock: it may stamp fields and add events. Before the workers
 * start. */
void engine__merger_set_observer(struct merger *m, void (*fn)(void *arg, struct tick *t),
                                 void *arg);
/* Run state shown in ticks (running, paused, stopping). */
void engine__merger_set_state(struct merger *m, enum run_state state, uint32_t target_concurrency);
/* The run's stop began at at_ns (since the run started); the first call counts. */
void engine__merger_set_stop(struct merger *m, uint64_t at_ns);
/* The load model shown in ticks, with the open model's rate and cap. */
void engine__merger_set_load(struct merger *m, enum load_model model, double rate_per_s,
                             uint32_t max_in_flight);
/* Requests completed per second in the last tick published (0 before the
 * first): where a switch to the open model starts when no rate was set. */
double engine__merger_last_rate(struct merger *m);

/* Control state: what the commands asked for. Guarded by engine.lock. */
struct control {
    uint32_t concurrency; /* total target across workers */
    int is_paused;
    int is_stopping;
    int is_aborting;     /* a second stop, or the drain timed out */
    uint64_t stop_at_ns; /* since the run started; when the drain gives up */
    enum load_model model;
    double rate_per_s;      /* open model: total arrivals per second (kept while closed) */
    uint32_t max_in_flight; /* open model: total cap, within the fd limit */
};

/*
 * A transport: how the slots of a worker send their requests. Every
 * function runs on the worker's thread (init and fini also before the
 * thread starts or after it ended). A started transfer ends in exactly one
 * engine__slot_done call, made from a loop callback, never from inside start;
 * an aborted one ends without it.
 */
struct transport_ops {
    const char *name; /* "curl" or "h1", as ticks show it */
    /* Creates the worker's loop handles. Returns 0 or a negative errno with
     * one line in err. */
    int (*init)(struct worker *w, char *err, size_t err_len);
    /* Closes every handle and connection of the worker (the loop then ends). */
    void (*close)(struct worker *w);
    /* Frees what init allocated, once the loop has ended. */
    void (*fini)(struct worker *w);
    /* Makes ahead, before the run's first request, what n slots to come
     * would each make when they are (slot_init takes it then); NULL: a
     * transport whose slots cost little to make. */
    void (*prepare)(struct worker *w, uint32_t n);
    void (*slot_init)(struct slot *s);
    void (*engine__slot_free)(struct slot *s);
    /* Sends the request s->kind, s->seq of s (its URL expanded here). */
    void (*start)(struct slot *s);
    /* Aborts the transfer of s mid-stream: its connection closes. */
    void (*abort)(struct slot *s);
    /* Whether the transfer of s has sent nothing yet, nor begun a
     * connection: it waits for a name lookup or a pass's connect budget. */
    int (*is_unsent)(struct slot *s);
    /* The closed model's users of w are now n (the share changed): fewer
     * users need fewer connections, and those no user needs close, so
     * that a server that caps its connections gets them back. retire
     * closes the connection of s, a user past the share with no transfer
     * in flight; users_changed serves a transport whose connections the
     * slots share. NULL: nothing to do. */
    void (*retire)(struct slot *s);
    void (*users_changed)(struct worker *w, uint32_t n);
};

extern const struct transport_ops transport_curl;
extern const struct transport_ops transport_h1;

#define H1_ADDRS_MAX 8 /* addresses of the target's name h1 keeps */

/* The target's addresses: IPv4 ones first, then the others, each in
 * getaddrinfo's order, or one unix socket's (AF_UNIX). A connect that fails
 * for want of an address (refused, unreachable) tries the next. */
struct h1_addrs {
    struct sockaddr_storage at[H1_ADDRS_MAX];
    uint32_t n; /* 1 to H1_ADDRS_MAX */
};

/* What the h1 transport sends, shared read-only by every worker. */
struct h1_setup {
    char *host; /* the origin's host, owned: what requests name (Host, TLS's server name) */
    char
        *authority; /* "host[:port]" as [target] url writes it, owned: a script's URLs must match */
    uint16_t port;  /* the origin's port */
    /* Where connections go: the origin, or the address and port of the
     * [target] connect_to line that matches it. A name is looked up by each
     * worker. */
    char *connect_host; /* owned */
    uint16_t connect_port;
    int is_tls;     /* https: every connection speaks TLS (h1_tls.h) */
    char *tls_name; /* the name TLS sends and checks: server_name, else host; owned */
    int family;     /* the addresses used ([target] ip): AF_UNSPEC, AF_INET or AF_INET6 */
    int has_addrs;  /* connect_host is an address literal, already in addrs, or
                     * [target] unix_socket is addrs' one (AF_UNIX) address */
    struct h1_addrs addrs;
    struct h1_kind *kinds; /* per request kind, serialised */
    size_t n_kinds;
    size_t head_max; /* bytes of the longest head any kind can have */
    /* [target] http_version: CONFIG_HTTP_1_1, CONFIG_HTTP_2 (offered by
     * ALPN, beside http/1.1) or CONFIG_HTTP_H2C (prior knowledge) */
    int h2;
    atomic_int h2_told; /* the event that says which version ALPN picked was sent */
};

struct engine {
    const struct config *config;
    const struct transport_ops *tp;
    struct h1_setup *h1; /* what the h1 transport sends, built once; NULL for curl */
    struct chan *chan;
    struct workload *workload;
    struct merger *merger;
    uint64_t seed;
    uint64_t start_ns; /* uv_hrtime at the start */
    uint64_t tick_ns;
    uint32_t fds_limit;
    uint32_t max_concurrency;
    uint64_t request_limit;       /* 0: none */
    uint64_t think_ms;            /* [load] think_time as applied: whole ms, rounded up */
    atomic_uint_fast64_t tickets; /* requests started so far, all workers */
    /* Per request kind: requests of it started so far, all workers; {seq}
     * takes the next value, so no two requests of a kind share one. */
    atomic_uint_fast64_t *kind_seq;
    pthread_mutex_t lock;
    struct control control;
    uint32_t *drop_pending; /* per worker: transfers to abort */
    uint32_t n_workers;
    struct worker **workers;
    /* A scenario run ([scenario] script): the script loaded and set up
     * once, and the request kinds its names make (scene.c); else NULL. */
    struct script_setup *script;
    struct scene_kinds *scene_kinds;
    /* The ramp plan and detections (plan.c), under ramp_lock. */
    pthread_mutex_t ramp_lock;
    struct ramp *ramp;
    struct ramp_out ramp_todo; /* what the plan asked, for worker 0 to apply */
    int ramp_is_detached;      /* worker 0's wake is closing: nobody to ask */
};

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
};

/* A virtual user: one request at a time, over one connection it keeps. */
struct slot {
    struct worker *w;
    uint32_t index; /* in its worker */
    uint32_t vu;    /* across the run */
    int is_in_flight;
    size_t kind;  /* of the request in flight */
    uint64_t seq; /* of the request in flight: its {seq}, from the engine's kind_seq */
    uint64_t start_ns;
    uint64_t intended_ns; /* when the request was meant to start (closed: start_ns) */
    int is_scheduled;     /* started by the open model's schedule */
    /* Closed model: the pause ([load] think_time) between its reply and its
     * next request. A thinking user is active but not in flight. */
    uv_timer_t think_timer;
    int is_thinking;
    /* [target] cookies: the user's jar, kept across its requests; else NULL. */
    struct cookie_jar *jar;
    /* [target] follow_redirects: the hops of the request in flight. url is
     * where the current hop goes (hops > 0), next the Location the reply
     * named (has_next), both WORKLOAD_URL_MAX bytes, allocated at the
     * first; is_get: the hop goes as GET without a body (303, or a POST
     * moved by 301 or 302, as browsers do); is_cross: a hop left the
     * request's origin, so its Authorization and Cookie lines stay behind. */
    struct {
        char *url;
        char *next;
        int has_next;
        int is_get;
        int is_cross;
        uint32_t hops;
    } redirect;
    /* A scenario run: the user's coroutine (its iteration), its request
     * (set while one is in flight), and brink.sleep on think_timer. */
    struct script_user *user;
    struct scene_req *req;
    struct scene_req req_store;
    int is_sleeping;
    int is_iteration_start; /* the next request is its iteration's first */
    /* Each transport's state, behind its own pointer; NULL for the others. */
    struct curl_slot *curl; /* its easy handle (curl_transport.h) */
    struct h1_slot *h1;     /* its connection, timer and reply parser (h1.c) */
};

struct worker {
    struct engine *e;
    uint32_t id;
    pthread_t thread;
    uv_loop_t loop;
    /* Each transport's state, behind its own pointer; NULL for the others. */
    struct curl_worker *curl; /* its multi handle and sockets (curl_transport.h) */
    struct h1_worker *h1;     /* its buffers and pending completions (h1.c) */
    uv_timer_t tick_timer;    /* interval boundaries */
    uv_timer_t end_timer;     /* duration and drain deadlines (worker 0 only) */
    uv_idle_t filling;        /* closed model: users a pass's slice left unstarted, next pass */
    uv_async_t wake;          /* control state changed */
    uv_prepare_t pace_pass;   /* each loop pass: a new connect budget */
    struct pace pace;         /* new connections begun in this pass */
    struct closer closer;     /* connections closed in this pass, and those waiting */
    struct slot **slots;
    uint32_t n_slots;
    uint32_t slots_cap; /* room in slots */
    uint32_t share;     /* slots [0, share) may run */
    int is_paused;
    int is_stopping;
    int is_done;
    int is_started; /* its thread was created */
    int has_run;    /* its loop ran to the end (its handles are closed) */
    uint32_t in_flight;
    uint32_t fds_used;
    uint32_t conns_open; /* connections open (engine__worker_conn_opened, _closed) */
    uint64_t rng;
    uint64_t next_tick_ns; /* the boundary the tick timer waits for */
    /* Open model: its part of the rate and of the cap, and its schedule. */
    struct deadline sched_deadline; /* the next intended start */
    struct schedule sched;
    int is_open;
    double rate_per_s;
    uint32_t cap;
    uint64_t owed_at_start; /* requests due and not started when the interval began */
    struct script *script;  /* a scenario run: this worker's Lua state */
    struct interval iv;
    /* aws_sigv4: the day's signing key, and where requests are signed
     * (allocated at the first). */
    struct sigv4_cache sigv4_cache;
    struct sigv4_out *sigv4_out;
};

/* Worker i's part of a total split over n workers: the first (total % n)
 * get one more. Concurrency and drops are split the same way. */
static inline uint64_t engine__share(uint64_t total, uint32_t n, uint32_t i)
{
    return total / n + (i < total % n ? 1 : 0);
}

/* worker.c */
int engine__worker_new(struct engine *e, uint32_t id, char *err, size_t err_len,
                       struct worker **out);
int engine__worker_start(struct worker *w, char *err, size_t err_len);
/* Runs the worker's loop on the calling thread until the worker is done:
 * what its thread does, and what in-process tests call instead. */
void engine__worker_run(struct worker *w);
void engine__worker_join(struct worker *w);
void engine__worker_free(struct worker *w);
uint64_t engine__worker_now_ns(const struct worker *w);
/* Re-reads the control state and acts on it (engine.lock not held). */
void engine__worker_apply_control(struct worker *w);
/* Starts requests on idle slots that may run; ends the worker when nothing
 * is left to do. */
void engine__worker_fill(struct worker *w);
/* After s finished a transfer: its next request, or the end of the worker. */
void engine__worker_next(struct worker *w, struct slot *s);
/* Ends the worker when nothing is in flight and nothing more may start. */
void engine__worker_check_finished(struct worker *w);
/* Adds slots until it has n. */
void engine__worker_grow_slots(struct worker *w, uint32_t n);
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
void engine__worker_phase(struct worker *w, enum tick_phase p, uint64_t us);
void engine__worker_conn_opened(struct worker *w);
void engine__worker_conn_closed(struct worker *w);

/* open.c: the open model on a worker. */
/* Takes the model, rate and cap of c (engine.lock not held; c a copy);
 * was_paused is the worker's state before c. */
/* Before the first request: the transport's set-up of the slots a burst
 * will need, made ahead (an event says so when it took
 * ENGINE_PREPARE_NOTE_NS or more). */
void engine__open_prepare(struct worker *w);
void engine__open_apply(struct worker *w, const struct control *c, int was_paused);
/* Starts the requests due, on hint first when it is idle, up to the cap,
 * and arms the timer for the next. A no-op unless open and running. */
void engine__open_pump(struct worker *w, struct slot *hint);
/* Fills the schedule's figures of the interval ending at now_ns. */
void engine__open_interval_end(struct worker *w, uint64_t now_ns);
/* The worker's sched_deadline fired: starts what is due. */
void engine__open_on_deadline(struct deadline *d);

/* curl_uv.c: libcurl's global state, once per process (engine_global_*). */
int engine__curl_uv_global_init(char *err, size_t err_len);
void engine__curl_uv_global_cleanup(void);
/* libcurl's version (curl_uv.c) and OpenSSL's (h1_tls.c), as they report
 * them at run time: static strings. */
const char *engine__curl_version(void);
const char *engine__tls_version(void);

/* h1_setup.c: whether h1 can serve the workload, and what it sends. */
/* Chooses e->tp for the config's transport key, building e->h1 for h1.
 * Returns 0, or -EINVAL with one line in err when transport = h1 was asked
 * for and cannot serve the run. */
int engine__transport_choose(struct engine *e, char *err, size_t err_len);
void engine__h1_setup_free(struct h1_setup *p);

/* lookup.c: the h1 transport's name lookups, off every loop thread. */
#define LOOKUP_WHY_MAX 320 /* bytes of a lookup's failure, NUL included */
struct lookup;
/* Resolves host and port into out (blocking getaddrinfo; flags adds AI_*
 * flags, such as AI_NUMERICHOST), IPv4 addresses first, at most
 * H1_ADDRS_MAX, keeping those of family only (AF_INET or AF_INET6; AF_UNSPEC
 * keeps both: [target] ip). Returns 0; -EINVAL when AI_NUMERICHOST was asked
 * and host is no address literal; or -EHOSTUNREACH, with one line in why
 * (which says so when host has addresses, but none of family). localhost
 * and names under it are 127.0.0.1 and ::1, as libcurl has them, looked up
 * nowhere. Any thread. */
int engine__lookup_resolve(const char *host, uint16_t port, int flags, int family,
                           struct h1_addrs *out, char *why, size_t why_len);
/* Starts resolving host and port (engine__lookup_resolve, no flags) on a
 * thread of its own, which sends wake (the caller's handle) once the result
 * is in. Returns 0 and the lookup in *out, or a negative errno when no
 * thread could start (wake is then never sent). The caller's thread only. */
int engine__lookup_start(const char *host, uint16_t port, int family, uv_async_t *wake,
                         struct lookup **out);
/* The result of l: -EAGAIN while it runs, else what engine__lookup_resolve
 * returned, with addrs (on success) or why (on failure) filled in. */
int engine__lookup_result(struct lookup *l, struct h1_addrs *addrs, char *why, size_t why_len);
/* How long the lookup of l took, µs; meaningful once its result is in. */
uint64_t engine__lookup_took_us(struct lookup *l);
/* The owner lets go of l: wake is never sent after this returns (call it
 * before closing wake), and l is freed now or when its thread ends.
 * NULL: a no-op. */
void engine__lookup_release(struct lookup *l);

/* slot.c */
struct slot *engine__slot_new(struct worker *w, uint32_t index);
void engine__slot_free(struct slot *s);
#define SLOT_NOW UINT64_MAX /* engine__slot_start: no intended time, the closed model */
/* How long one call starts requests for, new slots included (a libcurl
 * easy handle costs tens of µs): 19,000 users or arrivals at once held the
 * loop, its ticks and its deadlines, for a second. What is left starts on
 * the next loop pass (open.c, engine__worker_fill). */
#define ENGINE_START_SLICE_NS 10000000ULL
/* Set-up before the first request that is worth an event (open.c). */
#define ENGINE_PREPARE_NOTE_NS 50000000ULL
/* The schedule's first part the set-up before it covers (open.c). */
#define ENGINE_PREPARE_AHEAD_US 1000000ULL

/* Sets up and starts the next request of s, meant to start at intended_ns
 * (SLOT_NOW: now); latency counts from then. Returns 0 or -EAGAIN when no
 * request may start (limit reached). */
int engine__slot_start(struct slot *s, uint64_t intended_ns);
/* Sends the request s is set up for (s->kind, and s->req for a script's),
 * meant to start at intended_ns (SLOT_NOW: now): the part of
 * engine__slot_start after the ticket and the kind. */
void engine__slot_send(struct slot *s, uint64_t intended_ns);
/* Takes a ticket when the run is limited to a number of requests; 0 when
 * none is left. */
int engine__take_ticket(struct engine *e);
/* How long the request of s may take: its kind's timeout, or its script's. */
uint64_t engine__slot_timeout_us(const struct slot *s);
/* How long the request of s may take to connect, from its start: the
 * shorter of [target] connect_timeout and its kind's timeout. */
uint64_t engine__slot_connect_limit_us(const struct slot *s);
/* The words of a request of s that never connected because it waited,
 * behind a burst of new connections, past that limit (either transport). */
void engine__slot_queued_words(const struct slot *s, char *buf, size_t cap);
/* Records the finished transfer of s: r classifies it, bytes in and out
 * are its traffic, words the transport's own message, naming it ("curl
 * 56: ...", "h1: read: ..."; "" when none). */
void engine__slot_done(struct slot *s, const struct transfer_result *r, uint64_t bytes_in,
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
void engine__slot_location(struct slot *s, const char *url, const char *v, size_t n);
/* Whether absolute URLs a and b have the same scheme and authority (in
 * any case). */
int engine__same_origin(const char *a, const char *b);
/* Whether a header line ("Name: value") is one a redirect to another
 * origin leaves behind: Authorization or Cookie, as browsers and curl. */
int engine__is_credential(const char *line);
/* Why h1 ends a request whose redirect leaves its origin. */
#define ENGINE_H1_OTHER_ORIGIN                                                                     \
    "redirect to another origin (h1 follows its own only; transport = curl follows any)"
/* The URL, method and body the request of s sends now: its kind's, or
 * those of the redirect it follows (a hop turned into GET has no body). */
const char *engine__slot_method(const struct slot *s);
int engine__slot_has_body(const struct slot *s);
/*
 * Whether the request of s may be sent again for cause, which the
 * transport has established (docs/config.md, "Requests sent again"):
 * [target] retry is on and, for RESEND_CLOSED_IDLE, its method is
 * idempotent (RFC 9110, 9.2.2) or retry_non_idempotent is on. A yes is
 * counted, by cause, in the interval: the transport must then send it
 * again.
 */
int engine__slot_may_resend(struct slot *s, enum resend_cause cause);
void engine__slot_cookie_set(struct slot *s, const char *url, const char *v, size_t n);
size_t engine__slot_cookie_line(struct slot *s, const char *url, char *buf, size_t cap);
const struct sigv4_out *engine__slot_sign(struct slot *s, const char *url, size_t url_len,
                                          const char *host);

/* scene.c: scenario scripts on the engine. */
/* Loads e->config's script and sets it up (main thread, before the
 * workers): -EINVAL with "FILE:LINE: why" in err for a syntax error. */
int engine__scene_init(struct engine *e, char *err, size_t err_len);
void engine__scene_free(struct engine *e);
/* The run stops, or will at deadline_ns (clock_now_ns): a script still
 * running is stopped within 10 ms, even on a worker whose loop it holds.
 * No-ops without a script. Any thread. */
void engine__scene_stop(struct engine *e);
void engine__scene_set_deadline(struct engine *e, uint64_t deadline_ns);
/* The worker's state and the slot's user (main thread, before the worker
 * runs, or the worker's). */
int engine__scene_worker_init(struct worker *w, char *err, size_t err_len);
void engine__scene_worker_free(struct worker *w);
void engine__scene_slot_init(struct slot *s);
void engine__scene_slot_free(struct slot *s);
/* engine__slot_start for a scenario run: the user's iteration goes on
 * (or a new one begins) until it sends a request or sleeps. Returns 0, or
 * -EAGAIN when no request may start (limit reached). */
int engine__scene_start(struct slot *s, uint64_t intended_ns);
/* Before engine__slot_done judges the reply to the request of s: its
 * Set-Cookie lines go into the jar, its Location is where a redirect goes
 * (when the request follows redirects). */
void engine__scene_take_head(struct slot *s, const struct transfer_result *r);
/* The next hop of the script's request of s, after engine__slot_done's
 * follow moved s->redirect on: its URL, method, body and lines (the jar's
 * cookies, a new signature). Returns 0, or -EINVAL with why when it cannot
 * be sent (h1 and another origin). */
int engine__scene_hop(struct slot *s, char *why, size_t why_len);
/* After engine__slot_done counted the request of s: the script gets the
 * reply (status, or cls's name when it failed) and goes on. */
void engine__scene_reply(struct slot *s, const struct transfer_result *r, int cls,
                         uint64_t latency_us);
/* The tick's request kinds of a scenario run: their number and names. */
uint32_t engine__scene_n_kinds(const struct scene_kinds *k);
const char *engine__scene_kind_name(const struct scene_kinds *k, uint32_t i);
/* Copies the worker's checks and counters into its interval and starts
 * them over (at the interval's end). */
void engine__scene_interval_end(struct worker *w);

/* engine.c: engine_start without the threads: the engine and its workers
 * built, no loop running, no wake set on the channel. In-process tests run
 * a worker with engine__worker_run, then engine_free. */
int engine__build(const struct engine_params *p, char *err, size_t err_len, struct engine **out);

/* engine.c: commands, from worker 0's wake. */
void engine__drain_commands(struct engine *e);
/* Wakes every worker to re-read the control state (any thread). */
void engine__wake_all(struct engine *e);
/* Sets the load to level: the concurrency, or under the open model the
 * rate (clamped, said in an event that names who asked), resuming a paused
 * run. engine.lock not held; the caller wakes the workers. */
void engine__set_level(struct engine *e, double level, const char *who);

/* plan.c: the ramp plan. engine__plan_init creates it and hooks it to the merger,
 * starting it when start is set (before the workers start); with none set
 * there is no plan (e->ramp NULL: a coordinator judges it); engine__plan_command
 * handles CMD_RAMP and CMD_RAMP_NEXT (returns 1) and tells the plan about
 * manual changes (returns 0: the engine applies them); engine__plan_apply_todo
 * does, on worker 0, what the plan asked; engine__plan_detach is worker 0's last
 * word before its wake closes. */
void engine__plan_init(struct engine *e, int start, int none);
void engine__plan_free(struct engine *e);
int engine__plan_command(struct engine *e, const struct command *cmd);
/* Returns whether there was anything to do. */
int engine__plan_apply_todo(struct engine *e);
void engine__plan_detach(struct engine *e);
/* Called by worker 0 when the duration is reached or the drain times out. */
void engine__request_stop(struct engine *e, const char *why, int abort_now);

#endif
