/*
 * expo: brink's own figures as a Prometheus scrape sees them. A state folds
 * the ticks of a run into counters (requests, errors by kind and class,
 * bytes, statuses, latency buckets) and the latest gauges (in flight,
 * target level, users, connections, probe values), all of fixed size; it
 * renders as the text exposition format 0.0.4, every sample labelled with
 * the run's id (run="..."), so that two runs scraped one after the other
 * are two series, not one with a counter reset. Pure data, no I/O, no
 * locks: one thread at a time (metrics.c copies it under its lock).
 */
#ifndef BRINK_METRICS_EXPO_H
#define BRINK_METRICS_EXPO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/errclass.h"
#include "core/tick.h"

struct hist;

/* The latency histogram's upper bounds (µs), "le" in seconds: 100 µs to
 * 60 s, then +Inf. */
#define EXPO_BOUNDS 18
extern const uint64_t expo_bounds_us[EXPO_BOUNDS];

/* Latency counts in the buckets of expo_bounds_us, not cumulative: n[i]
 * values up to bound i (above bound i - 1); count includes those above the
 * last bound. */
struct expo_latency {
    uint64_t n[EXPO_BOUNDS];
    uint64_t count;
    double sum_s; /* the sum of the values, seconds (bucket midpoints) */
};

/* One request kind's counters since the run started. */
struct expo_kind {
    char name[TICK_NAME_MAX]; /* raw; escaped when rendered */
    uint64_t started;
    uint64_t completed;
    uint64_t ok;
    uint64_t bytes_in;
    uint64_t bytes_out;
    uint64_t errors[ERR__COUNT];
    struct expo_latency latency; /* of its successes */
};

struct expo_probe {
    char name[TICK_NAME_MAX]; /* raw */
    int has_value;
    double value; /* the latest (a counter's rate per second) */
    int alerting;
    int is_ok; /* its state is PROBE_OK */
};

/* A name as sanitize_display shows it (cut with "..." past this), and that
 * text escaped for a label value. */
#define EXPO_SHOWN_MAX (4 * TICK_NAME_MAX)
#define EXPO_LABEL_MAX (2 * EXPO_SHOWN_MAX)

struct expo_state {
    char run[EXPO_LABEL_MAX]; /* the run label's value, escaped (expo_set_run); "": no label */
    uint64_t ticks;
    int is_open_model;
    uint32_t target_concurrency;
    uint32_t actual_concurrency;
    double target_rate_per_s;
    uint32_t in_flight;
    uint32_t connections;
    uint64_t connections_opened;
    uint64_t resent[RESEND__COUNT]; /* requests sent again, by cause */
    uint32_t n_kinds; /* kinds seen, by name; later ones beyond TICK_MAX_KINDS are not kept */
    struct expo_kind kinds[TICK_MAX_KINDS];
    struct expo_latency failed; /* failed requests, all kinds */
    uint32_t n_status;
    struct tick_status status[TICK_MAX_STATUS];
    uint64_t status_other;
    uint32_t n_probes;
    struct expo_probe probes[TICK_MAX_PROBES];
};

/* Folds t into s: counters add, gauges take t's values. scratch is a hist
 * the caller owns (for decoding t's histograms). A tick without kinds
 * (n_kinds 0) counts as one kind, its total. */
void expo_add_tick(struct expo_state *s, const struct tick *t, struct hist *scratch);

/*
 * Sets the run label every sample of s carries, run="ID": id (the session
 * file's name, metrics.h) with any secret in it redacted (redact_text), then
 * escaped as expo_label_value does (at most EXPO_SHOWN_MAX - 1 bytes shown,
 * cut with "..."). An empty id, or none set, renders no run label.
 */
void expo_set_run(struct expo_state *s, const char *id);

/*
 * Writes s to out in the text exposition format 0.0.4: # HELP and # TYPE
 * for each family, then its samples, each labelled run="..." first (when
 * set), then by its own labels. Label values (kind and probe names)
 * are first made printable by sanitize_display (valid UTF-8, no control
 * characters), then \, " and line feeds are escaped as the format asks.
 * Histogram buckets are cumulative and end with le="+Inf", equal to _count.
 * Numbers never depend on LC_NUMERIC. Returns 0 or -EIO.
 */
int expo_render(const struct expo_state *s, FILE *out);

/* The text exposition of a label value: raw (at most raw_cap bytes, maybe
 * not NUL-terminated) made printable by sanitize_display, then \ and "
 * escaped; into buf (EXPO_LABEL_MAX bytes, NUL-terminated). Returns buf. */
const char *expo_label_value(const char *raw, size_t raw_cap, char *buf);

#endif
