/*
 * Helpers of the HTML page (format_html.c, html_chart.c, html_style.c):
 * escaped text, inline SVG charts and the style sheet. Not part of the
 * public API. One thread at a time.
 */
#ifndef BRINK_REPORT_HTML_INTERNAL_H
#define BRINK_REPORT_HTML_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/html.h"

/* Writes raw (at most raw_cap bytes, maybe not NUL-terminated) sanitized by
 * sanitize_display (UTF-8 kept, control and invisible characters made
 * visible escapes) and cut to cut bytes, then HTML-escaped (& < > " '), so
 * it is safe in text and in quoted attributes alike. */
void html__text(FILE *out, const char *raw, size_t raw_cap, size_t cut);

struct summary;
/* A run with agents (html_agents.c): the agents, the partial ticks, and a
 * table of the lost agents with what each may have done after its last
 * tick; nothing for a run without agents. */
void html__agents(FILE *out, const struct summary *sum);

struct steps;
/* Table cells (html_tables.c): a duration ("-" unless has), a count with
 * its thousands grouped, successes and failures per second apart. */
void html__td_duration(FILE *out, uint64_t us, int has);
void html__td_count(FILE *out, uint64_t n);
void html__td_rates(FILE *out, uint64_t ok, uint64_t failed, uint64_t duration_us);
/* The page's tables (html_tables.c): per request kind; per step (with a
 * column of the requests sent again when any was); checks and counters
 * per step and for the run (nothing when the run had none). */
void html__table_kinds(FILE *out, const struct summary *sum);
void html__table_steps(FILE *out, const struct steps *st);
void html__table_marks(FILE *out, const struct steps *st);

/* The compare page's tables (html_compare.c): each session after the
 * first against it (B vs A), and the step tables side by side by level. */
void html__table_deltas(FILE *out, const struct html_session *s, size_t n);
void html__table_steps_compare(FILE *out, const struct html_session *s, size_t n);

/* The page's style sheet (html_style.c). */
extern const char html__css[];

/* How a series' values are written in its data-v attribute. */
enum html_value_fmt {
    HTML_V_FIXED3, /* three decimals: rates */
    HTML_V_INT,    /* whole numbers: µs, counts */
    HTML_V_G9,     /* %.9g: probe values */
};

/* One curve: n values at x (both borrowed), has[i] 0 where there is none. */
/* The colours of successes (the normal one) and of failures (the error
 * one) wherever a chart shows one of them alone. */
#define HTML_C_OK 0
#define HTML_C_FAILED 3

struct html_series {
    const char *name;  /* legend and data-series, safe ASCII */
    const char *label; /* raw: the session's label in compare (escaped here); NULL: none */
    int colour;        /* 0 .. 15 */
    int is_dashed;
    size_t n;
    const double *x;
    const double *y;
    const unsigned char *has;
    enum html_value_fmt fmt;
    int is_dots; /* circles, one per value (step charts), besides the line */
    int has_xs;  /* data-xs: each value's x, for a curve whose x are not the points' (a fit) */
};

/* A label's box in the view box's units, estimated from its length. */
struct html_box {
    double x0, y0, x1, y1;
};
/* Labels one chart holds at most: its axes' and its markers'. */
#define HTML_LABELS_MAX (HTML_EVENTS_MAX + 64)

/* A chart: an x axis of time (s since the run started), of load levels or
 * of percentiles, a y axis linear from 0, or logarithmic (latencies in µs).
 * Its labels never overlap: each is placed where its estimated box (a
 * fixed width per character) meets none placed before it, else left out. */
struct html_chart {
    FILE *out;
    const char *id;    /* element id, safe ASCII */
    const char *title; /* safe ASCII */
    const char *y_unit;
    int x_is_time; /* else levels */
    int x_is_pctl; /* x is log10(1 / (1 - p)): ticks 0%, 90%, 99%, 99.9%... */
    int y_is_log;
    int y_is_duration; /* y values are µs: labels as durations */
    double x_lo, x_hi;
    double y_lo, y_hi; /* set by html__chart_fit */
    size_t n_points;   /* data-points: values per series */
    size_t n_boxes;    /* labels placed so far */
    struct html_box boxes[HTML_LABELS_MAX];
};

/* Sets the y range of c to hold every value of the series (and extra, when
 * not NaN: a threshold), nice rounded. */
void html__chart_fit(struct html_chart *c, const struct html_series *s, size_t n, double extra);
/* Opens the figure and its svg, draws the grid, the axes and their labels. */
void html__chart_open(struct html_chart *c, const char *raw_caption);
/* Draws s as a path broken where values are missing (and dots). */
void html__chart_series(struct html_chart *c, const struct html_series *s);
/* A vertical marker at x, class cls, with a label (in the first of the rows
 * at the top where it fits; none when it fits nowhere) and a raw tooltip. */
void html__chart_vline(struct html_chart *c, double x, const char *cls, const char *label,
                       const char *raw_title);
/* A horizontal line at y (a threshold), with its label. */
void html__chart_hline(struct html_chart *c, double y, const char *cls, const char *label);
/* A ring around the point (x, y), with a label: the breaking point. */
void html__chart_ring(struct html_chart *c, double x, double y, const char *cls, const char *label);
/* A dot of colour at (x, y) with attrs (written as given: safe ASCII) and,
 * when raw_label is not NULL, data-label. */
void html__chart_dot(struct html_chart *c, double x, double y, int colour, const char *attrs,
                     const char *raw_label);
struct hist;
/* The latency distribution of n runs' successes (html_pctl.c): x the
 * percentile on a log scale of 1 / (1 - p), y the latency (h[k]: the
 * run's whole histogram, borrowed), a dot with data-p and data-us at p50,
 * p90, p99 and p99.9; raw_labels (NULL for one run) name the curves. */
void html__chart_percentiles(FILE *out, const struct hist *const *h, const char *const *raw_labels,
                             size_t n);
/* Closes the svg, writes the legend of the series and closes the figure. */
void html__chart_close(struct html_chart *c, const struct html_series *s, size_t n);

#endif
