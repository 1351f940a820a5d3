/*
 * script: scenario scripts in Lua (LuaJIT 2.1), as the engine drives them.
 * A script defines `iteration(user)` (required) and `setup()` (optional).
 * script_setup loads it once on the main thread: a syntax error is found
 * there, setup() runs there (it may load data files, held read-only in C
 * memory for every worker). Each engine worker then opens its own Lua
 * state (script_open) and one coroutine per virtual user
 * (script_user_new); an iteration runs until it asks for something the
 * engine does: a request (SCRIPT_STEP_REQUEST: the engine sends it and
 * resumes the user with the reply) or a pause (SCRIPT_STEP_SLEEP). A Lua
 * error ends that iteration only (SCRIPT_STEP_ERROR, with its first
 * message and line).
 *
 * Threads: a struct script_setup is made and freed on the main thread and
 * read-only between; a struct script and its users belong to one worker
 * thread. Nothing here does I/O after script_setup and script_open.
 */
#ifndef BRINK_SCRIPT_SCRIPT_H
#define BRINK_SCRIPT_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "core/status_set.h"
#include "core/tick.h"

struct script_setup;
struct script;
struct script_user;

#define SCRIPT_MARK_NAMES_MAX 32    /* check names, and counter and gauge names, kept per worker */
#define SCRIPT_WHY_MAX 320          /* bytes of an error line, NUL included */
#define SCRIPT_HEADERS_MAX 64       /* header lines of one request */
#define SCRIPT_HEAD_MAX (64u << 10) /* bytes of a request's method, URL and headers */
#define SCRIPT_REDIRECTS_MAX 50     /* a request's follow_redirects, as [target]'s */
#define SCRIPT_CONNS_MAX 16         /* brink.tcp and brink.ws connections a user holds */
#define SCRIPT_SEND_MAX (16u << 20) /* bytes a connection's send queues before a receive */
#define SCRIPT_REPLY_MAX (1u << 20) /* a receive's max, unless it says otherwise */
#define SCRIPT_REPLY_MAX_MAX (256u << 20) /* the most a receive's max may be */

/* What an iteration asks the engine for. */
enum script_step {
    SCRIPT_STEP_REQUEST, /* send u's request (script_user_request), then script_user_reply */
    SCRIPT_STEP_SLEEP,   /* wait script_user_sleep_us, then script_user_resume */
    SCRIPT_STEP_END,     /* the iteration returned */
    SCRIPT_STEP_ERROR,   /* the iteration failed: script_user_error says why */
};

/* Where a user's connection (brink.tcp, brink.ws) goes: set when the
 * script makes it, the same for every exchange over it. */
struct script_conn_spec {
    const char *host; /* a name or an address literal (IPv6 without brackets) */
    uint16_t port;
    int is_tls;
    int is_ws;
    const char *path;           /* brink.ws: the upgrade's request target ("/echo") */
    const char *const *headers; /* brink.ws: "Name: value" lines the upgrade sends */
    size_t n_headers;
    uint64_t connect_timeout_us; /* 0: [target] connect_timeout */
};

/* How a receive knows its reply is whole. */
enum script_frame {
    SCRIPT_FRAME_UPTO,     /* up to and including the first `upto` */
    SCRIPT_FRAME_BYTES,    /* `bytes` bytes (0: none: the exchange only sends) */
    SCRIPT_FRAME_PATTERN,  /* what a Lua pattern matches at the start (script_user_frame) */
    SCRIPT_FRAME_FUNCTION, /* what the script's complete(buf) says (script_user_frame) */
    SCRIPT_FRAME_MESSAGE,  /* brink.ws: one whole message, or a pong */
};

/* An exchange over a user's connection: what c:send queued, then the
 * reply c:receive waits for. Valid until the user is resumed. */
struct script_exchange {
    uint32_t conn; /* the user's connection, 0 to SCRIPT_CONNS_MAX - 1 */
    const struct script_conn_spec *spec;
    const unsigned char *out; /* the bytes to write first (brink.ws: whole frames) */
    size_t out_len;
    enum script_frame frame;
    const char *upto; /* SCRIPT_FRAME_UPTO: the delimiter */
    size_t upto_len;
    size_t bytes; /* SCRIPT_FRAME_BYTES */
    size_t max;   /* the most bytes a reply may have */
};

/* A request of a script: valid until the user is resumed. */
struct script_request {
    const char *method; /* upper case as written, e.g. "GET", "PUT" */
    const char *url;    /* absolute ("http://...") or a path ("/kv/a": [target] url's origin) */
    const char *const *headers; /* "Name: value" lines in the script's order */
    size_t n_headers;
    const unsigned char *body; /* NULL: none (an empty string is a body of 0 bytes) */
    size_t body_len;
    const char *name;    /* its request kind: "name" or, when not given, the method */
    uint64_t timeout_us; /* 0: [target] timeout */
    int has_expect;      /* expect holds the statuses that count as ok */
    struct status_set expect;
    int skip_body; /* the reply's body is counted, not handed back */
    /* AWS Signature V4: 1 (aws_sigv4 = true) signs it with [target]
     * aws_sigv4's scope and credentials, 0 (false) sends it unsigned, -1
     * (not given) signs it when [target] aws_sigv4 is set. */
    int aws_sigv4;
    /* Redirects it follows (0 to SCRIPT_REDIRECTS_MAX; false: 0), or -1
     * (not given): [target] follow_redirects. */
    int follow_redirects;
    /* An exchange over a connection of the user (brink.tcp, brink.ws):
     * name and timeout_us apply, the HTTP fields do not; NULL: HTTP. */
    const struct script_exchange *exchange;
};

/* What the engine hands back for a request. Borrowed for the call only. */
struct script_reply {
    int status;          /* HTTP status; 0 when there was no reply */
    const char *error;   /* the error class's name when it failed ("timeout"), else NULL */
    const char *headers; /* the reply's header lines, "Name: value\n" each */
    size_t headers_len;
    const char *body; /* NULL when skipped or empty */
    size_t body_len;
    uint64_t latency_us;
    uint32_t redirects; /* hops followed before this reply */
    const char *url;    /* the URL this reply answered (the last hop's), absolute */
    const char *type;   /* an exchange's reply over brink.ws: "text", "binary" or "pong" */
};

/*
 * What a script may take ([scenario] budget and memory, docs/scenarios.md).
 * A resume (the main chunk, setup(), an iteration up to its next request
 * or sleep) that runs longer than budget_us, holds more than memory_bytes
 * in its Lua state, resumes coroutines inside each other deeper than 100
 * or nests callbacks deep into the C stack fails with an error at its
 * line, as a Lua error would.
 */
struct script_limits {
    uint64_t budget_us;    /* longest run of a resume without a yield */
    uint64_t memory_bytes; /* most memory one Lua state holds */
};

/*
 * Loads path (the experiment's [scenario] script, called name in messages:
 * as the experiment file writes it) and runs its main chunk
 * and setup() in a state of their own, with seed for brink.random, under
 * limits (copied; every worker's state has the same).
 * Returns 0 and *out, or a negative errno with one line in err:
 * -EINVAL for a syntax error or a failing setup ("FILE:LINE: message"),
 * -EINTR when script_interrupt_all stopped it, -ENOENT and the like when
 * it cannot be read, "no iteration function" when the script defines none.
 * Main thread.
 */
int script_setup(const char *path, const char *name, uint64_t seed,
                 const struct script_limits *limits, char *err, size_t err_len,
                 struct script_setup **out);

/*
 * The run stops: a script of su running now (on any worker) fails at its
 * next hook with "stopped: the run is ending" once it has run 10 ms, and
 * so does any later resume that runs as long. Normal resumes (far shorter)
 * finish. Any thread.
 */
void script_setup_stop(struct script_setup *su);
/* The same from deadline_ns (clock_now_ns) on: the run's duration ends
 * then, even when the worker that times it is busy in a script. Any
 * thread; 0 takes it back. */
void script_setup_set_deadline(struct script_setup *su, uint64_t deadline_ns);
/*
 * As script_setup_stop, for every script of the process, setup() and the
 * main chunk included: for a stop signal. One lock-free atomic store, so
 * it may be called from a signal handler or any thread. It is never taken
 * back.
 */
void script_interrupt_all(void);
/* Compiles path without running it, as brink check does: 0, or -EINVAL
 * with "FILE:LINE: message" for a syntax error (FILE is name, the script
 * as the experiment file names it), another negative errno when it cannot
 * be read. Any thread. */
/* The Lua brink runs scripts with, as it names itself ("LuaJIT 2.1.0-beta3"). */
const char *script_lua_version(void);

int script_check(const char *path, const char *name, char *err, size_t err_len);
/* After every script_close. NULL: a no-op. */
void script_setup_free(struct script_setup *su);

/* A worker's own state (id: its index, for streams of random numbers).
 * Returns 0 or -EINVAL with one line in err. */
int script_open(const struct script_setup *su, uint32_t id, char *err, size_t err_len,
                struct script **out);
/* Frees the state and every user still in it. NULL: a no-op. */
void script_close(struct script *sc);

/* What brink.check, brink.counter and brink.gauge kept over an interval. */
enum script_mark {
    SCRIPT_MARK_CHECK,   /* value: failures; passed: passes */
    SCRIPT_MARK_COUNTER, /* value: the sum of its additions */
    SCRIPT_MARK_GAUGE,   /* value: the last one set */
};
/* calls: brink.check, brink.counter or brink.gauge calls with the name
 * in the interval. */
typedef void script_mark_fn(void *arg, const char *name, enum script_mark kind, double value,
                            uint64_t passed, uint64_t calls);
/* Calls fn for each check, counter and gauge of sc (names raw, as the
 * script wrote them), then starts the interval's figures over. */
void script_take_marks(struct script *sc, script_mark_fn *fn, void *arg);
/* Calls of the interval (before script_take_marks starts it over) whose
 * name sc could not keep, past SCRIPT_MARK_NAMES_MAX of its class (checks:
 * is_check; counters and gauges: not), and the first such name, raw (NULL
 * while there is none). */
uint64_t script_dropped(const struct script *sc, int is_check, const char **first);

/* Virtual user vu (across the run) of sc, with a state table of its own
 * that lives as long as it does. */
struct script_user *script_user_new(struct script *sc, uint32_t vu);
void script_user_free(struct script_user *u);

/* Whether u is inside an iteration (between SCRIPT_STEP_REQUEST or
 * SCRIPT_STEP_SLEEP and the next resume). */
int script_user_is_busy(const struct script_user *u);
/* Starts a new iteration of u (not busy). */
enum script_step script_user_begin(struct script_user *u);
/* Resumes u after SCRIPT_STEP_REQUEST with the reply. */
enum script_step script_user_reply(struct script_user *u, const struct script_reply *r);
/* Resumes u after SCRIPT_STEP_REQUEST without sending it: the request
 * fails in the script with why, at the line that made it. */
enum script_step script_user_refuse(struct script_user *u, const char *why);
/* Resumes u after SCRIPT_STEP_SLEEP. */
enum script_step script_user_resume(struct script_user *u);
/* Ends u's iteration where it stands (the run stops, or its slot retires). */
void script_user_cancel(struct script_user *u);

/* After SCRIPT_STEP_REQUEST: what to send. */
const struct script_request *script_user_request(const struct script_user *u);
/* Whether u called brink.cookies.clear() since the last call (which
 * forgets it): the engine empties u's jar before its next request. */
int script_user_take_clear(struct script_user *u);
/* The connections of u the script closed (c:close(), or an object the
 * collector took) since the last call, one bit each (1u << conn): they
 * close before its next exchange; the call forgets them. */
uint32_t script_user_take_closes(struct script_user *u);
/* For an exchange of u framed by SCRIPT_FRAME_PATTERN or
 * SCRIPT_FRAME_FUNCTION: the length of the whole reply at the start of
 * the n bytes read so far at buf, 0 while more are needed, or -1 with why
 * (the pattern or the function failed: "FILE:LINE: message"). Runs Lua,
 * under the script's limits; the worker's thread, while u waits for the
 * reply. */
long script_user_frame(struct script_user *u, const char *buf, size_t n, char *why, size_t why_len);
/* After SCRIPT_STEP_SLEEP: for how long, µs. */
uint64_t script_user_sleep_us(const struct script_user *u);
/* After SCRIPT_STEP_ERROR: "FILE:LINE: message", raw (sanitise before a terminal). */
const char *script_user_error(const struct script_user *u);

#endif
