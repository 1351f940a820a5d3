/*
 * `brink report FILE` and `brink compare A B ...`: a session file read back
 * through the same sinks a live run feeds (the summary, the step table), and
 * printed in the format asked for. Files are never trusted: the reader's
 * notices (cut or damaged lines) go to stderr, escaped, and the figures are
 * those of the ticks it could read.
 */
#include "report_cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts.h"
#include "cli/tables.h"
#include "core/exitcode.h"
#include "core/msg.h"
#include "core/tick.h"
#include "record/record.h"
#include "report/formats.h"
#include "core/steps.h"
#include "report/summary.h"
#include "verdicts.h"

#define MAX_SESSIONS 16

enum format { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_CSV_STEPS, FMT_HDR, FMT_HDR_FAILED };

static const char *const format_names[] = {"text", "json", "csv", "csv-steps", "hdr", "hdr-failed"};

/* A session read back: its summary, its finished step table, and the
 * conditions it is judged against (recorded, or --fail-on). */
struct session {
    struct summary *summary;
    struct steps *steps;
    struct config_rules rules;
};

static void on_notice(void *arg, uint64_t line, const char *msg)
{
    char shown[512];

    (void)line;
    msg_show(msg, shown, sizeof(shown));
    msg_print(stderr, "brink: %s: %s", (const char *)arg, shown);
}

/* Reads path into s (and every tick into csv when not NULL); fail_on (may
 * be NULL) stands for the session's recorded thresholds. */
static int read_session(const char *cmd, const char *path, const char *fail_on, struct session *s,
                        struct format_csv *csv)
{
    struct record_reader *r;
    struct tick *t;
    char err[512];
    int rc = record_read_open(path, on_notice, (void *)cmd, err, sizeof(err), &r);

    if (rc) {
        /* A whole line already ("brink: FILE: ..."); the path is the user's. */
        char shown[sizeof(err) * 2];

        msg_show(err, shown, sizeof(shown));
        msg_print(stderr, "%s", shown);
        return rc;
    }
    (void)verdicts_rules(cmd, record_read_header(r)->config_text, fail_on, &s->rules);
    s->summary = summary_new();
    s->steps = steps_new();
    while ((rc = record_read_next(r, &t)) > 0) {
        summary_add_tick(s->summary, t);
        steps_add_tick(s->steps, t);
        if (csv)
            format_csv_tick(csv, t);
        tick_free(t);
    }
    steps_finish(s->steps);
    record_read_close(r);
    if (rc < 0)
        msg_print(stderr, "brink: %s: %s: read error: %s", cmd, path, msg_errno(-rc).text);
    return rc < 0 ? rc : 0;
}

static void free_session(struct session *s)
{
    summary_free(s->summary);
    steps_free(s->steps);
}

/* Prints s in format f; *n_failed gets its failed thresholds and steps. */
static int print(enum format f, const struct session *s, unsigned *n_failed)
{
    struct summary_totals total;
    struct report_verdicts v;

    verdicts_judge(&s->rules, s->steps, &v);
    *n_failed = v.n_failed + v.steps_failed;
    switch (f) {
    case FMT_TEXT:
        if (summary_print(s->summary, stdout) != 0 || format_steps_text(s->steps, stdout) != 0)
            return -EIO;
        verdicts_print("report", &v, s->steps, stdout);
        return ferror(stdout) ? -EIO : 0;
    case FMT_JSON: return format_json(s->summary, s->steps, &v, stdout);
    case FMT_HDR:
    case FMT_HDR_FAILED:
        summary_totals(s->summary, f == FMT_HDR ? SUMMARY_TOTAL : SUMMARY_FAILED, &total);
        return format_hdr(total.hist, stdout);
    case FMT_CSV_STEPS: return format_steps_csv(s->steps, stdout);
    case FMT_CSV: break; /* written as the ticks were read */
    }
    return 0;
}

static int parse_format(const char *v, enum format *out)
{
    for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++) {
        if (strcmp(v, format_names[i]) == 0) {
            *out = (enum format)i;
            return 0;
        }
    }
    return -EINVAL;
}

/* FILE, --format and --fail-on; returns 0 or the usage status (printed). */
static int parse_report_args(int argc, char **argv, const char **path, enum format *f,
                             const char **fail_on)
{
    struct opts_parser p;
    struct opts_item it;
    char err[256], shown[80];
    int rc;

    opts_start(&p, &cli_report, argc, argv);
    while ((rc = opts_next(&p, &it, err, sizeof(err))) != 0) {
        if (rc < 0)
            return opts_fail(&cli_report, stderr, "%s", err);
        if (it.id == CLI_REPORT_FAIL_ON) {
            *fail_on = it.value;
        } else if (it.id == CLI_REPORT_FORMAT) {
            if (parse_format(it.value, f) != 0)
                return opts_fail(
                    &cli_report, stderr,
                    "--format: expected text, json, csv, csv-steps, hdr or hdr-failed, got \"%s\"",
                    msg_show(it.value, shown, sizeof(shown)));
        } else if (*path) {
            return opts_fail(&cli_report, stderr, "unexpected argument \"%s\"",
                             msg_show(it.value, shown, sizeof(shown)));
        } else {
            *path = it.value;
        }
    }
    if (!*path)
        return opts_fail(&cli_report, stderr, "missing FILE");
    return 0;
}

int report_main(int argc, char **argv)
{
    enum format f = FMT_TEXT;
    const char *path = NULL, *fail_on = NULL;
    struct session s = {0};
    struct format_csv *csv = NULL;
    unsigned n_failed = 0;
    int rc;

    rc = parse_report_args(argc, argv, &path, &f, &fail_on);
    if (rc != 0)
        return rc;
    /* A bad --fail-on is a usage error, found before the file is read. */
    if (fail_on && verdicts_rules("report", NULL, fail_on, &s.rules) != 0)
        return BRINK_EXIT_USAGE;
    if (f == FMT_CSV)
        csv = format_csv_new(stdout);
    rc = read_session("report", path, fail_on, &s, csv);
    if (rc == 0)
        rc = print(f, &s, &n_failed);
    if (rc == 0 && csv)
        rc = format_csv_finish(csv);
    format_csv_free(csv);
    if (s.summary)
        free_session(&s);
    if (rc != 0)
        return BRINK_EXIT_RUNTIME;
    return n_failed ? BRINK_EXIT_VERDICT : BRINK_EXIT_OK;
}

/* The label of a session: its --label, else the file name without its
 * directory and .jsonl. */
static void default_label(const char *path, char *out, size_t cap)
{
    const char *base = strrchr(path, '/');
    size_t n;

    base = base ? base + 1 : path;
    n = strlen(base);
    if (n > 6 && strcmp(base + n - 6, ".jsonl") == 0)
        n -= 6;
    snprintf(out, cap, "%.*s", (int)n, base);
}

/* The sessions and their labels; returns 0 or the usage status (printed). */
static int parse_compare_args(int argc, char **argv, const char **paths, size_t *n,
                              const char **labels, size_t *n_labels)
{
    struct opts_parser p;
    struct opts_item it;
    char err[256], shown[80];
    int rc;

    opts_start(&p, &cli_compare, argc, argv);
    while ((rc = opts_next(&p, &it, err, sizeof(err))) != 0) {
        if (rc < 0)
            return opts_fail(&cli_compare, stderr, "%s", err);
        if (it.id == CLI_COMPARE_LABEL && *n_labels == MAX_SESSIONS)
            return opts_fail(&cli_compare, stderr, "more than %d labels at \"%s\"", MAX_SESSIONS,
                             msg_show(it.value, shown, sizeof(shown)));
        if (it.id == CLI_COMPARE_LABEL)
            labels[(*n_labels)++] = it.value;
        else if (*n == MAX_SESSIONS)
            return opts_fail(&cli_compare, stderr, "more than %d sessions at \"%s\"", MAX_SESSIONS,
                             msg_show(it.value, shown, sizeof(shown)));
        else
            paths[(*n)++] = it.value;
    }
    if (*n < 2)
        return opts_fail(&cli_compare, stderr, "expected at least two session files");
    /* A label names a session; one with no session to name is a mistake
     * (a file left out, or a label given twice). */
    if (*n_labels > *n)
        return opts_fail(&cli_compare, stderr,
                         "%zu labels for %zu sessions: expected at most one per session", *n_labels,
                         *n);
    return 0;
}

int compare_main(int argc, char **argv)
{
    const char *paths[MAX_SESSIONS], *labels[MAX_SESSIONS];
    char names[MAX_SESSIONS][64];
    struct session s[MAX_SESSIONS] = {{0}};
    const struct steps *tables[MAX_SESSIONS];
    size_t n = 0, n_labels = 0;
    int rc;

    rc = parse_compare_args(argc, argv, paths, &n, labels, &n_labels);
    if (rc != 0)
        return rc;
    for (size_t i = 0; i < n && rc == 0; i++) {
        rc = read_session("compare", paths[i], NULL, &s[i], NULL);
        tables[i] = s[i].steps;
        if (i >= n_labels) {
            default_label(paths[i], names[i], sizeof(names[i]));
            labels[i] = names[i];
        }
    }
    if (rc == 0)
        rc = format_compare(tables, labels, n, stdout);
    for (size_t i = 0; i < n; i++) {
        if (s[i].summary)
            free_session(&s[i]);
    }
    return rc == 0 ? BRINK_EXIT_OK : BRINK_EXIT_RUNTIME;
}
