/*
 * tick: what happened in one interval of a run, the unit of the stream that
 * flows from sources (engine, probes, replay) to sinks (console, recorder,
 * reports). A tick is plain data in one allocation: fixed arrays, bounded
 * strings, precomputed latency figures, and a tail holding the interval
 * histograms in hist's sparse encoding. Once published it is never written
 * again, and one tick_free releases it. Strings in a tick are raw (they may
 * come from the server): sanitize them before display.
 */
#ifndef BRINK_CORE_TICK_H
#define BRINK_CORE_TICK_H

#include <stddef.h>
#include <stdint.h>

#include "core/errclass.h"

struct hist;

/*
 * The tick invariant: n_kinds <= TICK_MAX_KINDS, n_status <= TICK_MAX_STATUS,
 * n_probes <= TICK_MAX_PROBES and n_events <= TICK_MAX_EVENTS, in every tick
 * that exists. Who fills a tick guarantees it (the merger and the probe
 * board from their bounded tables; the session decoder refuses a record
 * with longer arrays), so code that reads a tick loops to n_* unclamped.
 */
#define TICK_MAX_KINDS 64  /* request kinds of a mix ([request NAME] sections) */
#define TICK_MAX_STATUS 32 /* distinct HTTP status codes kept per tick */
#define TICK_MAX_PROBES 32 /* server counters */
#define TICK_MAX_EVENTS 16 /* events per tick; more are counted in events_dropped */
#define TICK_NAME_MAX 64   /* request kind and probe names */
#define TICK_TEXT_MAX 160  /* event texts and error messages */
#define TICK_NPCT 4        /* percentiles precomputed: see tick_pcts */
#define TICK_MAX_AGENTS 16 /* agents of a coordinated run (config's CONFIG_MAX_AGENTS) */
/* Open model: a start this much behind its intended time means the schedule
 * was not kept (timers and the loop account for a few ms). */
#define TICK_SCHED_SLACK_US 10000

/* The percentiles precomputed in every struct tick_latency: 50, 90, 99, 99.9. */
extern const double tick_pcts[TICK_NPCT];

enum load_model {
    LOAD_CLOSED, /* N virtual users, each waits for its reply */
    LOAD_OPEN,   /* a fixed arrival rate, latency from the intended start */
};

enum run_state {
    RUN_STARTING,
    RUN_RUNNING,
    RUN_PAUSED,
    RUN_STOPPING,
    RUN_DONE,
};

enum event_kind {
    EV_COMMAND,     /* an operator command as applied (with its clamping) */
    EV_MARK,        /* a mark with the operator's note */
    EV_FIRST_ERROR, /* the first error of a class in the run */
    EV_ALERT,       /* a probe alert */
    EV_DETECTION,   /* knee, p99 limit, stop condition and the like */
    EV_PROBE,       /* a probe changed state (failing, stale, back) */
    EV_NOTICE,      /* anything else worth a line in the event log */
    EV__COUNT
};

enum probe_state {
    PROBE_PENDING, /* no sample yet */
    PROBE_OK,
    PROBE_STALE,   /* the last sample is older than twice the interval */
    PROBE_FAILING, /* the last attempt failed; error says why */
};

/* Where a ramp plan is (struct tick_plan). */
enum plan_phase {
    PLAN_OFF,     /* no plan running */
    PLAN_WARMUP,  /* the start of a step, kept out of its figures */
    PLAN_MEASURE, /* the figures of this tick count for the step */
    PLAN_HOLDING, /* a stop condition tripped; the plan holds a level */
    PLAN_PAUSED,  /* the operator changed the load by hand; r resumes */
};

/* How a step ended (struct tick_plan.verdict, on the tick that ended it). */
enum plan_verdict {
    VERDICT_NONE,
    VERDICT_PASS,      /* it met every stop condition */
    VERDICT_FAIL,      /* a condition tripped; why says which, with figures */
    VERDICT_CUT,       /* it ended before it measured anything (n, or the run ended) */
    VERDICT_OFF_LEVEL, /* it ran at another level than the plan's (too few users for the
                          agents, an agent lost): not judged as the plan's */
};

/* The ramp plan's state during a tick. */
struct tick_plan {
    enum plan_phase phase;
    uint32_t step;             /* 1-based; 0 when phase is PLAN_OFF */
    uint32_t n_steps;          /* steps in the plan */
    double level;              /* the step's level: users (or requests/s) */
    enum plan_verdict verdict; /* set on the last tick of a step */
    char why[TICK_TEXT_MAX];   /* VERDICT_FAIL: the condition with its figures */
};

/* How far the run goes, for its progress gauge (core/gauge.h): the bounds
 * its source knows at this tick, 0 for none. */
struct tick_bound {
    uint64_t end_us;    /* the run ends this long after its start ([load] duration, or
                           sooner, the end of a ramp plan holding by time) */
    uint64_t requests;  /* the run ends after this many requests ([load] requests) */
    uint64_t completed; /* requests completed in the run so far, this tick's included */
};

/* Latency figures of one histogram, in µs; all zero when count is 0. */
struct tick_latency {
    uint64_t count;
    uint64_t min_us;
    uint64_t max_us;
    double mean_us;
    double stddev_us;
    uint64_t pct_us[TICK_NPCT]; /* at tick_pcts */
};

/*
 * Where the time of a request goes, each phase timed apart (struct
 * tick.phases): the name lookup, the TCP connect and the TLS handshake of
 * each new connection, and the time to first byte of each request that got
 * a reply, from the start of its request's write to the first byte of the
 * reply (libcurl's STARTTRANSFER - PRETRANSFER). The names are a file
 * format, like error classes: never renamed, new phases appended.
 */
enum tick_phase {
    PHASE_DNS,     /* "dns": a name lookup (h1: one per lookup; curl: one per new connection) */
    PHASE_CONNECT, /* "connect": a TCP connect that succeeded, from its start */
    PHASE_TLS,     /* "tls": a TLS handshake, from the TCP connect to its end */
    PHASE_TTFB,    /* "ttfb": request written (its start) to the reply's first byte */
    PHASE__COUNT
};

/*
 * Why a request was sent again (struct tick.resent): the only cases where
 * its first send tells nothing about the server, each counted apart. The
 * names are a file format, like error classes: new causes are appended.
 */
enum resend_cause {
    /* "closed_idle": its kept-alive connection had been closed by the
     * server (a FIN) before any byte of the reply: the close crossed the
     * request on the wire (HTTP/1.1) */
    RESEND_CLOSED_IDLE,
    /* "refused_stream": the server said it never processed the HTTP/2
     * stream (REFUSED_STREAM, or a GOAWAY below its id) */
    RESEND_REFUSED_STREAM,
    RESEND__COUNT
};

/* Phases are kept at 16 sub-buckets per power of two (values within 1/32:
 * where the time goes, not p99.9): recorded rounded with hist_coarse_round,
 * so a session stores them at that precision and a replay shows the same
 * figures as the run did. */
#define TICK_PHASE_SUB_BITS 4

/* One phase's figures: how many were timed is window.count. */
struct tick_phase_stats {
    struct tick_latency window; /* this interval */
    struct tick_latency run;    /* the whole run so far */
    uint32_t hist_offset;       /* the interval histogram in tick.data */
    uint32_t hist_len;          /* its encoded length; 0 when none */
};

/* Counts for one request kind, or for all of them (struct tick.total). Its
 * latency figures and histogram are those of the requests that succeeded
 * (ok); failed requests are timed apart, in struct tick.failed. */
struct tick_kind {
    char name[TICK_NAME_MAX];
    uint64_t started;            /* requests started in the interval */
    uint64_t completed;          /* finished with any outcome */
    uint64_t ok;                 /* finished without an error class */
    uint64_t bytes_in;           /* response bytes, headers and body */
    uint64_t bytes_out;          /* request bytes */
    uint64_t errors[ERR__COUNT]; /* failed requests by class */
    struct tick_latency window;  /* this interval */
    struct tick_latency run;     /* the whole run so far */
    uint32_t hist_offset;        /* the interval histogram in tick.data */
    uint32_t hist_len;           /* its encoded length; 0 when none */
};

struct tick_status {
    uint16_t code;
    uint64_t count;
};

/* What a row of tick.probes holds: a probe's sample, or what a scenario's
 * brink.check, brink.counter or brink.gauge kept over the tick. The names
 * are a file format: never renamed. */
enum tick_mark {
    TICK_MARK_NONE,    /* "": a probe */
    TICK_MARK_CHECK,   /* "check": value is its failures in the tick, passed its passes */
    TICK_MARK_COUNTER, /* "counter": value is the sum of its additions in the tick */
    TICK_MARK_GAUGE,   /* "gauge": value is the last one set */
};

struct tick_probe {
    char name[TICK_NAME_MAX];
    enum probe_state state;
    int has_value;             /* value holds a sample */
    double value;              /* the latest value (a counter's rate per second) */
    uint64_t sampled_ms;       /* when it was taken, ms since the run started */
    int alerting;              /* its alert condition holds */
    char error[TICK_TEXT_MAX]; /* why it fails or is stale; "" otherwise */
    enum tick_mark mark;       /* a probe, or a script's check, counter or gauge */
    uint64_t passed;           /* a check: its passes in the tick (value: its failures) */
};

struct tick_event {
    uint64_t at_ms; /* ms since the run started */
    enum event_kind kind;
    char text[TICK_TEXT_MAX];
};

/* How brink itself is doing: a saturated generator is not a slow server. */
struct tick_health {
    uint64_t loop_lag_us; /* worst event-loop lag in the interval */
    uint32_t fds_used;
    uint32_t fds_limit;
};

/* One agent of a coordinated run, as the merged tick of an interval saw
 * it (docs/agents.md). */
struct tick_agent {
    char name[TICK_NAME_MAX]; /* its host, as [agents] hosts names it (raw) */
    int is_lost;              /* died, hung or lost its link: out of the run */
    int is_in;                /* its tick of this interval is in the merge */
    uint64_t completed;       /* its requests completed in the interval */
    uint64_t errors;          /* of which failed */
    uint64_t loop_lag_us;     /* its worst event-loop lag */
    int64_t offset_us;        /* its clock minus the coordinator's, from round trips */
    uint32_t in_flight;       /* is_in: its requests in flight at the end of its tick */
    uint64_t lost_at_us;      /* is_lost: when it was declared lost, µs since the run started */
    uint64_t lost_until_us;   /* is_lost: until when it may have sent requests (from lost_at_us
                                 on: an agent cut off on a link that hung runs until it notices) */
};

struct tick {
    uint64_t seq;         /* 0, 1, 2, ... in a run */
    int is_restart;       /* a replay jumped here: sinks keeping a history start again */
    uint64_t start_us;    /* interval start, µs since the run started */
    uint64_t duration_us; /* interval length, µs */
    enum run_state state;
    enum load_model model;
    char transport[8]; /* the engine's transport: "curl", "h1" or "stream"; "" from other sources */
    char http_version[12];       /* of the latest replies, as ALPN says: "h2"; "" when unknown */
    uint32_t target_concurrency; /* what the operator or plan asked for */
    uint32_t actual_concurrency; /* virtual users active at the end */
    double target_rate_per_s;    /* open model only */
    uint32_t in_flight;          /* requests in flight at the end */
    uint64_t connections_opened; /* new connections in the interval (connects begun) */
    uint32_t connections;        /* connections open at the end (a gauge) */
    uint64_t dropped;            /* transfers aborted by a drop command (not errors) */
    uint64_t aborted;            /* transfers cut off when a stop gave up draining */
    uint64_t bodies_cut;         /* responses cut at max_body (counted, not errors) */
    uint64_t cookies_dropped;    /* cookies a full jar dropped ([target] cookies) */
    uint64_t marks_dropped;      /* script check, counter and gauge calls whose name had no room */
    uint64_t drain_us;           /* of duration_us, the time after the run's stop began */
    struct tick_kind total;      /* all kinds together; name is "total" */
    /* Requests sent again, by enum resend_cause: not in total.started nor
     * completed, which count each request once, by its last outcome. */
    uint64_t resent[RESEND__COUNT];
    uint32_t n_kinds;
    struct tick_kind kinds[TICK_MAX_KINDS];
    char first_error[ERR__COUNT][TICK_TEXT_MAX]; /* first message per class, "" if none */
    uint32_t n_status;
    struct tick_status status[TICK_MAX_STATUS];
    uint64_t status_other; /* responses whose code did not fit in status[] */
    uint32_t n_probes;
    struct tick_probe probes[TICK_MAX_PROBES];
    uint32_t n_events;
    uint32_t events_dropped; /* events beyond TICK_MAX_EVENTS */
    struct tick_event events[TICK_MAX_EVENTS];
    struct tick_health health;
    struct tick_plan plan;
    struct tick_bound bound;
    /* Open model (all 0 in closed intervals). total's latencies count from
     * each request's intended start (coordinated omission corrected);
     * service's from its actual start, for the same requests. */
    struct tick_kind service; /* name "service"; completed, window, run and histogram */
    uint32_t max_in_flight;   /* the cap on requests in flight */
    uint64_t sched_called;    /* requests the schedule called for in the interval */
    uint64_t sched_backlog;   /* of those and earlier ones, due at the end and not started */
    uint64_t sched_lag_us;    /* worst lag of a start (or of the oldest due) behind its time */
    uint64_t sched_capped;    /* times due requests waited because max_in_flight were in flight */
    /* The latency of failed requests, all kinds together (name "failed"):
     * completed counts them (their classes are total's errors), window, run
     * and the histogram time them the way total times the successes. Apart, so that a flood of
     * fast errors cannot make latency look better as a server breaks. */
    struct tick_kind failed;
    /* Open model: how late brink itself sent each request, from its intended
     * start to its hand-off to the transport (slot_start), so that per
     * request corrected latency = send lag + service time. started and
     * completed both count the requests sent; window, run and histogram. */
    struct tick_kind send_lag; /* name "send_lag" */
    /* Where the time goes, by enum tick_phase; each with its histogram. */
    struct tick_phase_stats phases[PHASE__COUNT];
    /* A coordinated run (docs/agents.md): an agent's own tick names it in
     * agent (else ""); a merged tick has one row per agent. The tick is
     * partial when a row is not is_in. */
    char agent[TICK_NAME_MAX];
    uint32_t n_agents;
    struct tick_agent agents[TICK_MAX_AGENTS];
    size_t data_cap;      /* bytes available in data */
    size_t data_len;      /* bytes used in data */
    unsigned char data[]; /* encoded histograms, see hist_encode */
};

/* A zeroed tick with data_cap bytes for histograms. Aborts on exhaustion.
 * The caller owns it until it publishes it (chan_publish takes it). */
struct tick *tick_new(size_t data_cap);
/* Releases t; tick_free(NULL) is a no-op. */
void tick_free(struct tick *t);
/* Whether t keeps the tick invariant (above TICK_MAX_KINDS): for the
 * asserts of code that fills ticks. */
int tick_is_bounded(const struct tick *t);

/* Fills lat from h (count, min, max, mean, stddev, tick_pcts). */
void tick_latency_from_hist(struct tick_latency *lat, const struct hist *h);

/* Encodes h into t->data for kind k (t->total or one of t->kinds) and sets
 * its hist_offset and hist_len. Returns 0, or -ENOSPC when data is too small
 * (k then has no histogram). */
int tick_put_hist(struct tick *t, struct tick_kind *k, const struct hist *h);
/* Decodes the histogram of kind k of t into h. Returns 0, -ENOENT when k has
 * none, or -EINVAL when the encoding is damaged. */
int tick_get_hist(const struct tick *t, const struct tick_kind *k, struct hist *h);
/* The same for phase p of t (t->phases[p]). */
int tick_put_phase_hist(struct tick *t, enum tick_phase p, const struct hist *h);
int tick_get_phase_hist(const struct tick *t, enum tick_phase p, struct hist *h);

/* Adds n responses with HTTP status code to t (into status_other when the
 * table is full). */
void tick_count_status(struct tick *t, uint16_t code, uint64_t n);
/* The same on any status table of TICK_MAX_STATUS rows with n_used in use,
 * for the producers that gather statuses before they build a tick. */
void tick_status_add(struct tick_status *table, uint32_t *n_used, uint64_t *other, uint16_t code,
                     uint64_t n);

/* Appends an event with text (copied, cut to TICK_TEXT_MAX - 1 bytes at a
 * UTF-8 boundary); counts it in events_dropped when the tick is full. */
void tick_add_event(struct tick *t, enum event_kind kind, uint64_t at_ms, const char *text);

/* Whether some agent's tick is missing from the merged tick t. */
int tick_is_partial(const struct tick *t);

/* Whether t kept its schedule: always for a closed interval; for an open one,
 * no request waited for the in-flight cap and none started more than
 * TICK_SCHED_SLACK_US late. */
int tick_schedule_kept(const struct tick *t);

/* What a lost agent may have done in interval_us after its last merged
 * tick, of rate_per_s with in_flight in flight (docs/agents.md): its rate,
 * plus one request a second per request in flight (a second's count of one
 * user's requests is one short or over by where the second fell in its
 * round trip), over the interval, rounded up; plus its in flight twice
 * (those of its last tick, which the server may still answer, and as many
 * under way when it stopped). The coordinator's event and the reports both
 * take it from the merged ticks' agent rows. */
uint64_t tick_agent_uncounted(double rate_per_s, uint32_t in_flight, uint64_t interval_us);

/* n per second over duration_us (a tick's or a row's length); 0 when the
 * duration is 0. */
static inline double tick_per_s(uint64_t n, uint64_t duration_us)
{
    return duration_us ? (double)n * 1e6 / (double)duration_us : 0.0;
}

/* Where t ends, in whole ms since the run started (event times are ms). */
static inline uint64_t tick_end_ms(const struct tick *t)
{
    return (t->start_us + t->duration_us) / 1000;
}

/* Stable lower-case names, a format like errclass names ("running", "mark",
 * "failing", "closed"); "?" when out of range. */
const char *run_state_name(enum run_state s);
const char *event_kind_name(enum event_kind k);
const char *probe_state_name(enum probe_state s);
const char *load_model_name(enum load_model m);
const char *plan_phase_name(enum plan_phase p);
const char *plan_verdict_name(enum plan_verdict v);
const char *tick_phase_name(enum tick_phase p);
const char *tick_mark_name(enum tick_mark m); /* "" for TICK_MARK_NONE */
const char *resend_cause_name(enum resend_cause c);
/* The inverses, for reading session files: the value named name, or -1 when
 * no value has that name ("?" included). */
int run_state_from_name(const char *name);
int event_kind_from_name(const char *name);
int probe_state_from_name(const char *name);
int load_model_from_name(const char *name);
int plan_phase_from_name(const char *name);
int plan_verdict_from_name(const char *name);
int tick_phase_from_name(const char *name);
int tick_mark_from_name(const char *name);
int resend_cause_from_name(const char *name);

/* Requests sent again, all causes of counts together. */
uint64_t tick_resent_sum(const uint64_t counts[RESEND__COUNT]);

/* Copies src into dst (cap bytes, NUL-terminated), cutting at a UTF-8
 * boundary when it does not fit. Returns the length copied. */
size_t tick_copy_text(char *dst, size_t cap, const char *src);

/*
 * For sinks that follow kinds or probes by name across ticks: finds name in
 * a table of *n rows of stride bytes, each starting with its name as a
 * char[TICK_NAME_MAX], or appends a zeroed row with that name when fewer
 * than max are used. Names compare as tick_copy_text stores them, so a name
 * that fills its array still matches itself. Returns the row's index (a new
 * row's is the old *n), or -1 when the name is new and the table is full.
 */
int tick_name_row(void *rows, size_t stride, uint32_t *n, uint32_t max, const char *name);

/*
 * A probe series an agent measured ([probe] on = agents), as the merged run
 * names it: "SERIES@AGENT", the agent's name with each byte that is not a
 * letter, a digit, _ . or - as _. Returns 0, or -ENAMETOOLONG when it needs
 * more than TICK_NAME_MAX - 1 bytes (out then holds it cut). Pure.
 */
int tick_agent_series(const char *series, const char *agent, char out[TICK_NAME_MAX]);

/* Whether series is probe's: its name, or its name as an agent's series
 * ("probe@AGENT"). Pure. */
int tick_series_is(const char *series, const char *probe);

#endif
