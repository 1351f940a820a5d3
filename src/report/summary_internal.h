/* The state of a summary, shared by its two halves: summary.c adds ticks
 * and answers the other formats, format_text_summary.c writes the text report. */
#ifndef PROG_REPORT_SUMMARY_INTERNAL_H
#define PROG_REPORT_SUMMARY_INTERNAL_H

#include <stdint.h>

#include "core/errclass.h"
#include "core/hist.h"
#include "core/tick.h"
#include "report/internal.h"
#include "report/summary.h"

#define SUMMARY_MAX_EVENTS 100 /* events kept for the report; the rest are only counted */
#define SUMMARY_MAX_STATUS 64  /* distinct HTTP codes kept; the rest go to status_other */
#define SUMMARY_MAX_SPANS 8    /* spans of partial ticks kept */

/* One request kind's totals over the run, or those of all kinds (summary.total). */
struct kind_totals {
    char name[TICK_NAME_MAX];
    uint64_t completed;
    uint64_t bytes_in;
    uint64_t bytes_out;
    uint64_t errors[ERR__COUNT];
    uint64_t timed;     /* requests its histogram should cover: successes, or failures */
    uint64_t hist_gaps; /* interval histograms that were damaged or missing */
    struct hist *hist;  /* the interval histograms merged */
};

/* A server counter over the run, matched by name across ticks. */
struct probe_totals {
    char name[TICK_NAME_MAX];
    int has_value;
    double last;
    double max;
    uint64_t failing_ticks; /* ticks that ended with it failing or stale */
    char last_error[TICK_TEXT_MAX];
    enum tick_mark mark; /* a probe, or a script's check, counter or gauge */
    double sum;          /* a check's failures, a counter's additions, over the run */
    uint64_t passed;     /* a check's passes over the run */
};

struct summary {
    uint64_t n_ticks;
    uint64_t duration_us; /* sum of the ticks' durations */
    unsigned models_seen; /* bit 1 << enum load_model for each model seen */
    uint32_t min_target_concurrency;
    uint32_t max_target_concurrency;
    uint32_t max_actual_concurrency;
    double max_target_rate_per_s; /* over open-model ticks */
    uint32_t max_in_flight;       /* the most in flight at a tick's end, open ticks */
    uint32_t in_flight_cap;       /* the largest max_in_flight of open ticks */
    uint64_t connections_opened;
    char transport[8];        /* of the latest tick that named one */
    char http_version[12];    /* of the latest tick that named one */
    uint32_t max_connections; /* the most open at a tick's end */
    uint64_t dropped;
    uint64_t aborted;
    uint64_t bodies_cut;
    uint64_t cookies_dropped;
    uint64_t marks_dropped;
    uint64_t resent[RESEND__COUNT];
    struct kind_totals total;
    struct kind_totals service;  /* open model: service times (actual start to end) */
    struct kind_totals failed;   /* the latency of failed requests, all kinds */
    struct kind_totals send_lag; /* open model: intended start to send, brink's own delay */
    struct summary_schedule sched;
    struct hist *phases[PHASE__COUNT]; /* where the time went, merged */
    uint64_t phase_gaps;               /* phase histograms damaged */
    uint32_t n_kinds;
    struct kind_totals kinds[TICK_MAX_KINDS];
    uint64_t unmatched_completed; /* completed requests of kinds past the table */
    char first_error[ERR__COUNT][TICK_TEXT_MAX];
    uint32_t n_status;
    struct tick_status status[SUMMARY_MAX_STATUS]; /* sorted by code */
    uint64_t status_other;
    uint32_t n_events;
    struct tick_event events[SUMMARY_MAX_EVENTS];
    uint64_t events_more; /* events not kept: past the table, or dropped by a tick */
    uint32_t n_probes;
    struct probe_totals probes[TICK_MAX_PROBES];
    struct hist *scratch; /* one decoded interval histogram */
    /* A run with agents: how many, and the ticks some agent was missing
     * from, as spans of ticks (the first SUMMARY_MAX_SPANS). */
    uint32_t n_agents;
    uint64_t partial_ticks;
    uint32_t n_spans;
    struct {
        uint64_t from_us, to_us; /* the first tick's start, the last one's end */
        uint64_t last_seq;
        char lost[TICK_TEXT_MAX]; /* the agents missing at its first tick */
    } spans[SUMMARY_MAX_SPANS];
    uint64_t spans_more;
    struct report__trails trails; /* each agent's last tick, and when it was lost */
};

#endif
