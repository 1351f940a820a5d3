/*
 * summary: a run's totals built from its ticks (summary.c, summary_lost.c), read
 * by every format of the final report through the calls below; plus two of
 * those formats, declared here for their callers: the text report
 * (summary_print, format_text_summary.c) and the one-line progress of each
 * tick (format_progress.c). Reads ticks only, so it serves a live run and a
 * recording alike. One thread at a time; no curses, no libcurl.
 */
#ifndef BRINK_REPORT_SUMMARY_H
#define BRINK_REPORT_SUMMARY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/errclass.h"
#include "core/tick.h"

struct hist;
struct tick;
struct tick_status;
struct summary;

/* An empty summary. Its memory is bounded whatever the run's length: one
 * histogram (HIST_BYTES) for the total, one scratch, and one per request kind
 * seen (at most TICK_MAX_KINDS). Aborts on exhaustion; free with
 * summary_free (NULL is a no-op). */
struct summary *summary_new(void);
void summary_free(struct summary *s);

/*
 * Adds t (borrowed; read only during the call): counts, bytes, errors by
 * class (with the first message of each in the run), statuses, events, and
 * its interval histograms (total and per kind, matched by name) merged into
 * the run's. The run's duration is the sum of the ticks' durations, so ticks
 * the channel dropped are neither counted nor timed (the caller reports
 * them). Kinds past the first TICK_MAX_KINDS names count in the total only;
 * the first 100 events are kept and the rest counted. Returns 0, or -EINVAL
 * when a histogram in t is damaged (the counts are still added; the report
 * notes how many requests its latency covers).
 */
int summary_add_tick(struct summary *s, const struct tick *t);

/*
 * The final report as text, like wrk's and ab's: duration, requests,
 * requests/s, transfer rate, concurrency, how latency was measured, the
 * percentile table (50 66 75 80 90 95 98 99 99.9 100), min/mean/max/stddev,
 * errors by class with the first message of each, HTTP statuses, dropped
 * transfers and cut bodies, events, then the same figures per request kind
 * when there are several. The layout is fixed and documented, with an
 * example, in docs/report.md. The output is printable ASCII: every string
 * that came from outside passes through sanitize_display (ASCII only) and is
 * cut; figures never depend on LC_NUMERIC. Flushes out. Returns 0, or -EIO
 * when a write or the flush fails.
 */
int summary_print(const struct summary *s, FILE *out);

/*
 * One progress line for t, e.g.
 *   t=12s c=40 3120 req/s 3.1 MB/s p50 1.20ms p99 8.40ms err 0.0%
 * t is the interval's end in whole seconds (rounded); c the active virtual
 * users, as c=38/40 when the target differs (and is not 0); req/s and MB/s
 * (10^6 bytes in) over the interval, except on the run's last tick (the
 * drain after the load stopped, of any length), where "final N req in D"
 * stands for them; p50 and p99 of the interval as
 * units_format_duration writes them, "-" when it timed no request; err the
 * failed share of completed requests ("<0.1%" when not zero but below 0.05%,
 * "-" when none completed); " paused" or " stopping" appended in those
 * states. Under the open model "rate=R/s inflight=N/CAP" stands for c=,
 * " svc p99 X" (the service time's p99) follows err, and, when the tick did
 * not keep its schedule, " SCHEDULE NOT KEPT (lag L, N owed, cap hit Kx)".
 * Last, for a run with an end, its gauge (gauge_line in core/gauge.h):
 * " 12s/1m00s 20% left 48s", " 12000/100000 req 12% left ~1m30s".
 * Written into buf (cap bytes, NUL-terminated, cut when short, no
 * newline); returns buf. Any thread.
 */
char *summary_progress_line(const struct tick *t, char *buf, size_t cap);

/* The headless output of one tick: its progress line, then one line per
 * event, "  [1.47s] command: TEXT", the text escaped (printable ASCII).
 * Flushes out; returns 0 or -EIO. */
int summary_print_tick(const struct tick *t, FILE *out);

/* The run's totals, or one request kind's, for the other report formats
 * (json, hdr). Pointers are borrowed from s: valid until the next
 * summary_add_tick or summary_free. */
struct summary_totals {
    const char *name;   /* "total", or the kind's raw name (sanitize before display) */
    uint64_t completed; /* requests finished with any outcome */
    uint64_t timed;     /* requests hist should cover: successes, or for SUMMARY_FAILED,
                           SUMMARY_SERVICE and SUMMARY_SEND_LAG all it counts */
    uint64_t bytes_in;
    uint64_t bytes_out;
    const uint64_t *errors;  /* ERR__COUNT counts, by class */
    uint64_t hist_gaps;      /* interval histograms damaged or missing */
    const struct hist *hist; /* the interval histograms merged (µs): successes, except for
                                SUMMARY_FAILED */
};

#define SUMMARY_TOTAL (-1)   /* the kind index of the run's totals */
#define SUMMARY_SERVICE (-2) /* open model: the service times (actual start to end) */
#define SUMMARY_FAILED (-3)  /* the latency of failed requests, all kinds together */
/* Open model: the send lags (intended start to send), for summary_totals too;
 * completed counts the requests sent, and bytes and errors are 0. */
#define SUMMARY_SEND_LAG (-4)

/* How the open model's schedule was kept, over the run's open ticks. */
struct summary_schedule {
    uint64_t open_ticks;     /* ticks under the open model */
    uint64_t open_us;        /* their duration */
    double rate_us;          /* sum of target rate x duration (ms): the mean requested rate */
    uint64_t started;        /* requests started in them */
    uint64_t called;         /* requests the schedule called for */
    uint64_t capped;         /* times the in-flight cap held requests back */
    uint64_t max_lag_us;     /* worst schedule lag */
    uint64_t ticks_not_kept; /* ticks whose schedule was not kept (tick_schedule_kept) */
};

/* Responses by HTTP status code over the run, sorted by code: *n rows
 * (borrowed from s); and those past the table. */
const struct tick_status *summary_statuses(const struct summary *s, uint32_t *n);
uint64_t summary_statuses_other(const struct summary *s);

/* The run's schedule figures (all 0 for a closed run); borrowed from s. */
const struct summary_schedule *summary_schedule(const struct summary *s);

/* Where the time went over the run: phase p's interval histograms merged
 * (µs; empty when none was timed). Borrowed from s. */
const struct hist *summary_phase(const struct summary *s, enum tick_phase p);

/* The run's connections: opened in all (tick.connections_opened summed),
 * the most open at a tick's end, and the phase histograms damaged. */
struct summary_connections {
    uint64_t opened;
    uint32_t max_open;
    uint64_t phase_gaps;
    const uint64_t *resent; /* requests sent again, by enum resend_cause (the summary's) */
};
void summary_connections(const struct summary *s, struct summary_connections *out);

/* The run's length (sum of the ticks' durations), in µs. */
uint64_t summary_duration_us(const struct summary *s);
/* Request kinds seen (at most TICK_MAX_KINDS). */
uint32_t summary_n_kinds(const struct summary *s);
/* Fills out for kind (SUMMARY_TOTAL, SUMMARY_SERVICE or 0 .. summary_n_kinds - 1); returns 0,
 * or -ENOENT when there is no such kind. */
int summary_totals(const struct summary *s, int kind, struct summary_totals *out);

/* The run's load and what it could not count, over its ticks. */
struct summary_run {
    unsigned models_seen;            /* bit 1 << enum load_model for each model seen */
    uint32_t min_target_concurrency; /* over closed-model ticks */
    uint32_t max_target_concurrency;
    uint32_t max_actual_concurrency;
    double max_target_rate_per_s; /* over open-model ticks */
    uint32_t max_in_flight;       /* the most in flight at an open tick's end */
    uint32_t in_flight_cap;       /* the largest max_in_flight of open ticks */
    char transport[8];            /* raw, of the latest tick that named one (as struct tick's) */
    char http_version[12];        /* raw, of the latest tick that named one (as struct tick's) */
    uint64_t dropped;
    uint64_t aborted;
    uint64_t bodies_cut;
    uint64_t cookies_dropped;
    uint64_t marks_dropped;
    uint64_t unmatched_completed; /* completed requests of kinds past the first TICK_MAX_KINDS */
};
void summary_run(const struct summary *s, struct summary_run *out);

/* The run's first error message of class c (raw, borrowed from s); "" when
 * none came. */
const char *summary_first_error(const struct summary *s, enum errclass c);

/* The run's events in order, the first 100: *n rows (borrowed from s); and
 * those not kept (past the table, or dropped by a tick). */
const struct tick_event *summary_events(const struct summary *s, uint32_t *n);
uint64_t summary_events_more(const struct summary *s);

/* A server counter over the run (a probe, or a script's check, counter or
 * gauge), matched by name across ticks. */
struct summary_probe {
    char name[TICK_NAME_MAX]; /* raw */
    int has_value;            /* some tick had a value; else last, max, sum and passed are 0 */
    double last;              /* the latest value */
    double max;               /* the largest value */
    uint64_t failing_ticks;   /* ticks that ended with it failing or stale */
    char last_error[TICK_TEXT_MAX]; /* raw: the latest failing tick's error */
    enum tick_mark mark;            /* a probe, or a script's check, counter or gauge */
    double sum;                     /* a check's failures, a counter's additions, over the run */
    uint64_t passed;                /* a check's passes over the run */
};
/* The i-th server counter, in order of first sight (borrowed from s: valid
 * until the next summary_add_tick or summary_free), or NULL past the last. */
const struct summary_probe *summary_probe(const struct summary *s, uint32_t i);

/* A run with agents: a span of consecutive merged ticks that missed an
 * agent's, and which agents the first of them missed. */
struct summary_span {
    uint64_t from_us; /* the first tick's start */
    uint64_t to_us;   /* the last one's end */
    const char *lost; /* raw, borrowed from s: "a2, a3" */
};
/* The i-th span of partial ticks (the first 8 are kept): 0 and *out, or
 * -ENOENT; and the spans past those. */
int summary_span(const struct summary *s, uint32_t i, struct summary_span *out);
uint64_t summary_spans_more(const struct summary *s);

/* A lost agent of a run with agents (docs/agents.md): what it may have
 * done after its last tick in the merge, which no figure of the run holds. */
struct summary_lost {
    const char *name;     /* raw, borrowed from the summary */
    int has_tick;         /* some tick of it was merged; else the rest is 0 but lost_at_us */
    uint64_t last_end_us; /* the end of its last tick in the merge */
    uint64_t lost_at_us;  /* when the coordinator declared it lost */
    uint64_t until_us;    /* until when it may have sent requests, cut at the run's end */
    double rate_per_s;    /* its requests completed per second in its last tick */
    uint32_t in_flight;   /* its requests in flight at that tick's end */
    uint64_t requests;    /* what it may have done in (until - last end): see
                             docs/agents.md, "Faults" */
};

/* The agents of a run with agents (0 for a run without) and the merged
 * ticks that missed one. */
uint32_t summary_n_agents(const struct summary *s);
uint64_t summary_partial_ticks(const struct summary *s);
/* Lost agents: how many, and the i-th: 0 and *out, or -ENOENT. */
uint32_t summary_n_lost(const struct summary *s);
int summary_lost(const struct summary *s, uint32_t i, struct summary_lost *out);

#endif
