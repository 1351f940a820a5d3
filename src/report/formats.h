/*
 * formats: the outputs of `brink report` and `brink compare` besides the
 * summary: the step table as text, a JSON document, CSV (one row per tick),
 * the latency distribution in HdrHistogram's text format and interval log,
 * and the comparison of several step tables. Layouts are fixed and documented in docs/report.md.
 * Every function writes to out, flushes it, and returns 0 or -EIO when a
 * write or the flush failed. Inputs are borrowed. One thread at a time; no
 * curses, no libcurl, no jansson (report links core, record and zlib).
 */
#ifndef BRINK_REPORT_FORMATS_H
#define BRINK_REPORT_FORMATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The layout version of the JSON document ("brink_report"): 2 counts in µs
 * and gives the latency of successes and failures apart. */
#define REPORT_JSON_VERSION 2

#include "core/tick.h"

/* How a run was judged (filled by the caller, which knows the rules): the
 * conditions of [thresholds] fail_on that failed, with their measured
 * values, and the ramp steps that failed. */
#define REPORT_VERDICTS_MAX 16
struct report_verdicts {
    uint32_t n_rules;                             /* conditions judged */
    uint32_t n_failed;                            /* of those, failed */
    char why[REPORT_VERDICTS_MAX][TICK_TEXT_MAX]; /* each with its value (raw) */
    uint32_t steps_failed;                        /* ramp steps the plan failed */
};

/* What run a report is of, from the run itself (brink run --format) or
 * from its session's header (brink report): written by the JSON and CSV
 * formats. Strings are borrowed, raw, and already redacted by the caller;
 * an unknown field is NULL (0 for the start), as in a session recorded
 * before the header held it. */
struct report_meta {
    const char *brink_version; /* the brink that ran it */
    uint64_t start_wall_ms;    /* wall clock at the start, ms since the epoch */
    const char *const *urls;   /* every request kind's URL, distinct, config order */
    size_t n_urls;             /* 0: unknown */
    const char *command_line;  /* argv as a shell line */
};

struct hist;
struct steps;
struct summary;
struct tick;

/*
 * The step table as aligned text, meant to follow summary_print: a blank
 * line, "steps: N", a header row and one row per step (level, start,
 * duration, requests, req/s, MB/s in, p50, p99, max, one column per error
 * class seen, "NAME max" and "NAME last" per probe). Printable ASCII; names
 * pass through sanitize_display; numbers never depend on LC_NUMERIC.
 * st must be finished (steps_finish).
 */
int format_steps_text(const struct steps *st, FILE *out);

/*
 * The final report of a run or a replay: summary_print, then the step
 * table when the run held more than one level (a plan, or the operator's
 * changes). The caller has finished st (steps_finish). Returns 0 or -EIO.
 */
int format_final(const struct summary *sum, const struct steps *st, FILE *out);

/*
 * One JSON document (UTF-8, RFC 8259): the run's totals and per-kind totals
 * from sum, the step rows and the by-level grouping from st (finished).
 * Strings are escaped by hand ("\"", "\\", control characters as \u00XX,
 * invalid UTF-8 bytes as \ufffd); non-finite numbers are null. v, when not
 * NULL, adds "thresholds": the conditions judged, each failed one with its
 * measured value, and the ramp steps that failed. meta (may be NULL: all
 * unknown) gives brink_version, start_time, url, urls and command_line.
 */
int format_json(const struct summary *sum, const struct steps *st, const struct report_verdicts *v,
                const struct report_meta *meta, FILE *out);

/*
 * CSV for spreadsheets (RFC 4180, CRLF line ends): a header row, then one row
 * per tick given to format_csv_tick. The probe columns are those of the first
 * tick (probes are configured for the whole run); a probe first seen later
 * has no column. meta (may be NULL) fills the last columns of every row, the
 * same in each. format_csv_new borrows out and meta (its strings too) for
 * the writer's life; aborts on
 * exhaustion. format_csv_finish writes the header if no tick came and
 * flushes. format_csv_free(NULL) is a no-op and does not close out.
 */
struct format_csv;
struct format_csv *format_csv_new(FILE *out, const struct report_meta *meta);
int format_csv_tick(struct format_csv *c, const struct tick *t);
int format_csv_finish(struct format_csv *c);

/*
 * The step table as CSV (RFC 4180, CRLF): one line per step with kind
 * "total", then one per request kind that ran in it (names quoted and
 * escaped), each with its requests, ok, failed, req/s over the step and
 * the successes' p50, p90, p99 and max in µs (empty when none was timed),
 * and the plan's verdict. st must be finished.
 */
int format_steps_csv(const struct steps *st, FILE *out);
/*
 * A scenario's checks and counters as CSV (RFC 4180, CRLF): one line per
 * step and per check or counter that counted in it, then the same for the
 * whole run (step "run", model and level empty):
 * step,model,level,name,mark,passed,failed,total (passed and failed empty
 * for a counter). st must be finished.
 */
int format_checks_csv(const struct steps *st, FILE *out);
/*
 * The lost agents of a run with agents as CSV (RFC 4180, CRLF), one line
 * each, the facts of the JSON's agents.lost (docs/agents.md, "Faults"):
 * agent,lost_at_us,has_tick,last_tick_end_us,until_us,interval_us,
 * last_rate_per_s,in_flight,uncounted_requests (has_tick 0: lost before
 * any tick of it was merged, the rest empty). The header alone when none
 * was lost.
 */
int format_lost_csv(const struct summary *sum, FILE *out);
void format_csv_free(struct format_csv *c);

/*
 * h (µs) as HdrHistogram's outputPercentileDistribution prints it with
 * 5 ticks per half distance and an output scaling ratio of 1000: values in
 * milliseconds with 3 decimals, the header, rows at increasing percentiles,
 * and the Mean/StdDeviation, Max/Total count and Buckets/SubBuckets footer.
 */
int format_hdr(const struct hist *h, FILE *out);

/*
 * HdrHistogram's interval log (format 1.3) of a session, one line per tick
 * given to format_hlog_tick: the successes' latency histogram (µs) untagged,
 * and the failures' tagged "failed" when the tick has any, each in
 * HdrHistogram's compressed V2 encoding (zlib, base64), readable by
 * HistogramLogProcessor and HistogramLogReader. format_hlog_start writes the
 * header lines (the session's wall-clock start, ms since the epoch);
 * timestamps are seconds from it. format_hlog_new borrows out for the
 * writer's life and aborts on exhaustion (it keeps about 600 KB of scratch);
 * format_hlog_free(NULL) is a no-op and does not close out. The others
 * return 0, -EIO when a write failed, or -ENOMEM when zlib failed.
 */
struct format_hlog;
struct format_hlog *format_hlog_new(FILE *out);
int format_hlog_start(struct format_hlog *f, uint64_t start_wall_ms);
int format_hlog_tick(struct format_hlog *f, const struct tick *t);
int format_hlog_finish(struct format_hlog *f);
void format_hlog_free(struct format_hlog *f);

/*
 * h in HdrHistogram's V2 encoding (uncompressed, big-endian header of 40
 * bytes, then the counts in ZigZag LEB128): 3 significant digits, values
 * 1 to HIST_MAX_VALUE_US. Writes at most cap bytes to buf and returns the
 * size of the whole encoding, as hist_encode does.
 */
size_t format_hlog_encode(const struct hist *h, unsigned char *buf, size_t cap);

/*
 * Several step tables side by side: one row per level in the union of their
 * levels (closed before open, increasing), one column group per table
 * (req/s, p50, p99, errors) headed by its label, blank where a table did not
 * hold that level. tables (finished) and labels have n entries each.
 */
int format_compare(const struct steps *const *tables, const char *const *labels, size_t n,
                   FILE *out);

#endif
