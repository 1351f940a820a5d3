/*
 * What one worker saw in one interval (interval.c): counts by request
 * kind, histograms, first errors, a scenario's checks and counters. The
 * worker owns it outright; the merger adds workers' intervals into a tick.
 */
#ifndef BRINK_ENGINE_INTERVAL_H
#define BRINK_ENGINE_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/errclass.h"
#include "core/tick.h"

struct hist;

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

#endif
