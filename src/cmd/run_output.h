/*
 * run_output: what brink run (and demo) tells of itself and where its final
 * report goes. The facts of the run (its URLs, start, command line), for
 * the session's header and the JSON and CSV reports alike; and the report
 * in the format asked for (--format text, json or csv) on stdout or into
 * -o FILE, written by the same formatters as brink report's. Main thread
 * only.
 */
#ifndef BRINK_CMD_RUN_OUTPUT_H
#define BRINK_CMD_RUN_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "record/record.h"
#include "report/formats.h"

struct config;
struct config_rules;
struct steps;
struct summary;
struct tick;

enum run_format { RUN_FORMAT_TEXT, RUN_FORMAT_JSON, RUN_FORMAT_CSV };

/* "text", "json" or "csv" into *out: 0, or -EINVAL for another value. */
int run_output_format(const char *name, enum run_format *out);

/* Request kind i's URL as the engine joins it to [target] url (a path
 * starting with '/' is appended), with ${ENV} references as written and
 * secrets redacted (redact_url); [target] url alone when i is past the
 * kinds. Into out (cap bytes). */
void run_kind_url(const struct config *c, unsigned i, char *out, size_t cap);

/* The facts of one run, owned: the URLs of its kinds (distinct, config
 * order, at most RECORD_URLS_MAX), its start, its command line. */
struct run_facts {
    char *urls[RECORD_URLS_MAX];
    size_t n_urls;
    char command_line[8192];
    struct record_header_info header; /* for recording_start: borrows the above */
    struct report_meta meta;          /* for the reports: borrows the above */
};

/* Fills f from c, argv[0..argc) (argv[0] "run" or "demo") and the wall
 * clock now; run_facts_free releases the URLs. */
void run_facts_init(struct run_facts *f, const struct config *c, int argc, char **argv);
void run_facts_free(struct run_facts *f);

struct run_output;

/*
 * Opens the output of a run's report: stdout, or path (-o FILE, created or
 * replaced now, so that a path that cannot be written starts nothing).
 * CSV is written tick by tick (run_output_tick); while the console holds
 * the terminal (is_console) rows meant for stdout wait in a temporary file.
 * meta is borrowed for o's life. Returns 0 with *out set, or -errno after
 * printing why.
 */
int run_output_open(enum run_format f, const char *path, int is_console,
                    const struct report_meta *meta, struct run_output **out);

/* Adds t to the report (a CSV row; nothing for the others). */
void run_output_tick(struct run_output *o, const struct tick *t);

/*
 * Finishes st, judges it by rules (NULL: not judged, as when the engine
 * was stuck), writes the final report and closes the output (a file cut
 * by a failed write is removed). text: format_final, then the verdicts;
 * json: the document with the verdicts in it, and their lines on stderr;
 * csv: the rows written so far, the verdicts on stderr. *n_failed gets
 * the failed conditions and steps. Frees o. Returns 0, or -EIO when a
 * write failed (said on stderr for -o FILE).
 */
int run_output_close(struct run_output *o, const struct summary *sum, struct steps *st,
                     const struct config_rules *rules, unsigned *n_failed);

/* Closes o when the run did not start: no report, and -o FILE removed.
 * Frees o. */
void run_output_discard(struct run_output *o);

#endif
