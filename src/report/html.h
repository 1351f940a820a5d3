/*
 * html: `brink report --format html` and `brink compare --format html`, one
 * self-contained page (inline SVG and CSS, no script, no network) drawn from
 * session files alone, so a replayed or merged session draws the same
 * pictures. Layout documented in docs/report.md. Every string from a session
 * is sanitized (sanitize_display) and HTML-escaped. One thread at a time; no
 * curses, no libcurl.
 */
#ifndef BRINK_REPORT_HTML_H
#define BRINK_REPORT_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/errclass.h"
#include "core/tick.h"
#include "record/record.h"

/* Points drawn per curve at most: a longer run merges HTML_POINTS_MAX
 * consecutive-tick groups into one point each (counts summed, histograms
 * merged), so memory and page size stay bounded whatever the run's length. */
#define HTML_POINTS_MAX 4000
/* Events drawn on the time charts and listed (level changes, marks,
 * detections, alerts, first errors); later ones are counted. */
#define HTML_EVENTS_MAX 200

struct report_verdicts;
struct steps;
struct summary;

/* One point of the time charts: one tick, or a group of ticks. */
struct html_point {
    uint64_t start_us;    /* start of its first tick, since the run started */
    uint64_t duration_us; /* its ticks' lengths summed */
    uint64_t completed;   /* requests finished with any outcome */
    uint64_t failed;      /* of those, with an error class */
    uint64_t errors[ERR__COUNT];
    uint32_t target_concurrency; /* of its last tick */
    double target_rate_per_s;    /* of its last tick (open model) */
    uint64_t ok_us[4];           /* successes: p50, p90, p99, max; all 0 when none timed */
    uint64_t ok_timed;
    uint64_t failed_us[4]; /* the same for failed requests */
    uint64_t failed_timed;
    double probe[TICK_MAX_PROBES]; /* by index of html_run's probe names */
    uint32_t has_probe;            /* bit i: probe[i] holds a value */
};

/* An event drawn on the time charts. */
struct html_event {
    uint64_t at_ms;
    int kind;                 /* enum event_kind, or HTML_EV_LEVEL */
    char text[TICK_TEXT_MAX]; /* raw */
};
#define HTML_EV_LEVEL (-1) /* a change of the target level (text "c=16", "rate=500/s") */

/* A probe's alert threshold ([probe NAME] alert = > N or < N). */
struct html_alert {
    int op; /* '>' or '<'; 0: none */
    double value;
};

struct html_grouper;

/* What the page draws of one session, fed tick by tick. */
struct html_run {
    char path[512]; /* the (first) file, raw */
    size_t n_files; /* files merged into the run (report --merge), else 1 */
    char brink[32]; /* version that wrote it */
    char host[256]; /* raw */
    uint64_t start_wall_ms;
    char *config_text; /* the effective config as recorded (raw; "" when none) */
    int has_trailer;   /* the file ended with a trailer */
    int is_complete;   /* the trailer says the run ended as planned */
    char end_reason[TICK_TEXT_MAX];
    uint64_t ticks_per_point; /* ticks merged into each point (1 up to HTML_POINTS_MAX ticks) */
    size_t n_points;
    struct html_point *points; /* n_points */
    uint32_t n_probes;
    char probe_names[TICK_MAX_PROBES][TICK_NAME_MAX]; /* raw, those of the first ticks */
    struct html_alert alerts[TICK_MAX_PROBES];        /* by probe index */
    size_t n_events;
    uint64_t events_not_kept;
    struct html_event events[HTML_EVENTS_MAX];
    int has_knee;           /* a knee detection was recorded */
    double knee_level;      /* at this concurrency */
    struct html_grouper *g; /* the group of ticks being merged into a point */
};

/*
 * A new run for the session read from path (n_files merged, as report
 * --merge reads them) with header h (its first file's; borrowed), which
 * holds n_ticks ticks (counted by a first pass over the same ticks): one
 * point per tick, or per ceil(n_ticks / HTML_POINTS_MAX) ticks. Memory: at
 * most HTML_POINTS_MAX points (about 2 MB) and, when ticks are grouped, three
 * histograms. Aborts on exhaustion; free with html_run_free (NULL is a
 * no-op).
 */
struct html_run *html_run_new(const char *path, const struct record_header *h, size_t n_files,
                              uint64_t n_ticks);
/* Adds t (borrowed, read during the call) in the order of the run. Ticks past
 * the n_ticks announced are ignored. */
void html_run_add_tick(struct html_run *r, const struct tick *t);
/* Closes the last point and reads the probes' alerts from the configuration;
 * tr (NULL: none, or several files) says how the file ended. */
void html_run_finish(struct html_run *r, const struct record_trailer *tr);
void html_run_free(struct html_run *r);

/* One session's report: its run, summary, finished step table and verdicts
 * (borrowed). */
struct html_session {
    const struct html_run *run;
    const struct summary *sum;
    const struct steps *steps;
    const struct report_verdicts *verdicts;
    const char *label; /* raw; the page's title, the legend's name in compare */
};

/* The report page of one session. Returns 0 or -EIO. */
int format_html(const struct html_session *s, FILE *out);

/* Several sessions' curves overlaid on one page, each in its colour and
 * labelled; n at most 16. Returns 0 or -EIO. */
int format_html_compare(const struct html_session *s, size_t n, FILE *out);

#endif
