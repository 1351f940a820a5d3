/*
 * Helpers shared by the report's output formats (steps, text, json, csv, hdr,
 * compare): locale-independent number formatting and escaping of text that
 * came from outside. Not part of the public API. One thread at a time.
 */
#ifndef BRINK_REPORT_INTERNAL_H
#define BRINK_REPORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/tick.h"

#define REPORT_NUM_MAX 48  /* a formatted number, with room to spare */
#define REPORT_NAME_MAX 80 /* a sanitized name as shown in a table */

/* v rounded to the nearest integer; 0 for negative or NaN, capped at 9e18. */
uint64_t report__round_u64(double v);
/* a - b, or 0 when b is larger: the successes of completed requests less
 * the failed (or the failed, completed less ok), never wrapping round when
 * a damaged session says more of the part than of the whole. */
uint64_t report__minus(uint64_t a, uint64_t b);
/* "93,512": digits grouped by three with commas. buf holds REPORT_NUM_MAX. */
char *report__fmt_grouped(uint64_t v, char *buf);
/* v >= 0 with exactly decimals (0 to 3) digits after the point, no %f. */
char *report__fmt_fixed(double v, unsigned decimals, char *buf);
/* part as a percentage of whole, with decimals (1 or 2) digits and a % sign
 * (buf holds REPORT_NUM_MAX); a share that is not zero never reads as zero:
 * "<0.1%", "<0.01%". */
char *report__fmt_percent(uint64_t part, uint64_t whole, unsigned decimals, char *buf);
/* A rate per second: whole and grouped from 100 up, one decimal below. */
char *report__fmt_rate(double per_s, char *buf);
/* A double as "%.*g" prints it in the C locale ("0.5", "1e+06"), whatever
 * LC_NUMERIC says; "null"-free: NaN and infinities give "0". */
char *report__fmt_g(double v, int precision, char *buf);
/* A script counter's total: a whole number grouped by three ("-1,250"),
 * else as report__fmt_g with 6 digits. buf holds REPORT_NUM_MAX. */
char *report__fmt_total(double v, char *buf);
/* raw (at most raw_cap bytes, maybe not NUL-terminated) escaped by
 * sanitize_display, ASCII only, cut to cap bytes; returns buf. */
const char *report__shown(const char *raw, size_t raw_cap, char *buf, size_t cap);
/* A step's level: "c=40" (closed model, concurrency) or "rate=500/s" (open
 * model, rate as report__fmt_rate writes it). buf holds REPORT_NUM_MAX. */
char *report__fmt_level(int is_open_model, double level, char *buf);
/* ms since the epoch as ISO 8601 UTC with ms, "2026-12-05T14:33:10.123Z",
 * into buf (REPORT_TIME_MAX bytes); "" when ms is 0 (unknown). */
#define REPORT_TIME_MAX 32
char *report__fmt_time(uint64_t ms, char *buf);
/* 0 when every write to out succeeded and the flush did, else -EIO. */
int report__finish(FILE *out);
/* Requests sent again, "1,509 (closed_idle 1,502, refused_stream 7)" with
 * the causes that had any; "" when none was. buf holds REPORT_RESENT_MAX. */
#define REPORT_RESENT_MAX (REPORT_NUM_MAX * (RESEND__COUNT + 1) + 64)
char *report__fmt_resent(const uint64_t resent[RESEND__COUNT], char *buf);

/* levels.c, for compare (format_compare.c, html_compare.c): the sessions'
 * step tables side by side, by level. */
struct report__level {
    enum load_model model;
    double level;
};
struct steps;
struct step_row;
/* The union of the tables' levels, sorted, without duplicates; *n_out keys
 * (free the array). */
struct report__level *report__union_levels(const struct steps *const *tables, size_t n,
                                           size_t *n_out);
/* The merged row of level key in st; 0 when st held it, -1 otherwise. */
int report__find_level(const struct steps *st, const struct report__level *key,
                       struct step_row *out);

/* capacity.c: the Universal Scalability Law fitted to st's closed-model
 * steps (those cut short or at another level than their plan's left out).
 * 1 and *fit; 0 and why (one line) when the steps cannot support a fit; -1
 * when the run asked nothing of it (no plan, fewer than USL_MIN_LEVELS
 * levels held by hand). */
struct usl_fit;
int report__usl(const struct steps *st, struct usl_fit *fit, char *why, size_t len);
/* "capacity: USL fit: ..." (or its refusal) as a line of the text report;
 * nothing for -1. */
void report__print_usl(FILE *out, const struct steps *st);
/* compare's capacity lines: each session's fit (or refusal), then which
 * scales better (the higher peak throughput, or ceiling; linear above
 * both) and by how much. Nothing when no session asked it anything. */
void report__print_usl_compare(FILE *out, const struct steps *const *tables,
                               const char *const *labels, size_t n);

struct summary_lost;

/* summary_lost.c: each agent of a run with agents as its merged ticks' rows tell
 * (by row index, at most TICK_MAX_AGENTS): its last tick in the merge
 * and, once lost, when and until when it may have gone on. */
struct report__trail {
    char name[TICK_NAME_MAX]; /* raw, as the rows name it */
    int has_tick;             /* a tick of its own was merged */
    uint64_t last_end_us;     /* the end of the latest one */
    double rate_per_s;        /* its requests completed per second in it */
    uint32_t in_flight;       /* at its end */
    int is_lost;              /* a row said lost */
    uint64_t lost_at_us;      /* the first such row's lost_at_us */
    uint64_t lost_until_us;   /* and lost_until_us */
};

struct report__trails {
    uint32_t n;
    uint64_t run_end_us; /* the latest end of a tick */
    struct report__trail agents[TICK_MAX_AGENTS];
};

void report__trails_add(struct report__trails *tr, const struct tick *t);
uint32_t report__trails_n_lost(const struct report__trails *tr);
/* The i-th lost agent, 0 and *out (name borrowed from tr), or -ENOENT. */
int report__trails_lost(const struct report__trails *tr, uint32_t i, struct summary_lost *out);

#endif
