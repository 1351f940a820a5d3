/*
 * `brink report FILE` and `brink compare A B ...`: a session file read back
 * through the same sinks a live run feeds (the summary, the step table), and
 * printed in the format asked for. Files are never trusted: the reader's
 * notices (cut or damaged lines) go to stderr, escaped, and the figures are
 * those of the ticks it could read.
 */
#include "cmd/report_cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts.h"
#include "cli/tables.h"
#include "core/exitcode.h"
#include "core/msg.h"
#include "core/tick.h"
#include "core/tickmerge.h"
#include "core/xalloc.h"
#include "record/record.h"
#include "report/formats.h"
#include "report/html.h"
#include "core/steps.h"
#include "report/summary.h"
#include "cmd/verdicts.h"

#define MAX_SESSIONS 16

enum format {
    FMT_TEXT,
    FMT_JSON,
    FMT_CSV,
    FMT_CSV_STEPS,
    FMT_HDR,
    FMT_HDR_FAILED,
    FMT_HLOG,
    FMT_HTML,
    FMT_CSV_CHECKS,
    FMT_CSV_LOST
};

/* A session read back: its summary, its finished step table, and the
 * conditions it is judged against (recorded, or --fail-on). */
struct session {
    struct summary *summary;
    struct steps *steps;
    struct config_rules rules;
    uint64_t n_ticks;      /* ticks read */
    struct html_run *html; /* what the HTML page draws; NULL for other formats */
    /* What run it is, from the (first) file's header, set once it is open:
     * the CSV writer, made before, reads it at its first row. */
    struct report_meta meta;
    char brink[32];
    char *command_line;
    char *urls[RECORD_URLS_MAX];
    /* How the run ended when that was not its end or a stop ("script
     * failed before the start: ...", "the engine did not stop"), as its
     * trailer says; "" otherwise, or for merged files. */
    char ending[TICK_TEXT_MAX + 16];
};

/* Notes in s how the session of r ended, when it ended otherwise than by
 * its end or a stop. */
static void session_ending(struct session *s, struct record_reader *r)
{
    const struct record_trailer *tr = record_read_trailer(r);

    if (!tr || (tr->is_complete && (strcmp(tr->reason, "done") == 0 ||
                                    strcmp(tr->reason, "stopped") == 0 || !tr->reason[0])))
        return;
    snprintf(s->ending, sizeof(s->ending), "%s%s",
             tr->is_complete ? "" : "incomplete: ", tr->reason[0] ? tr->reason : "no reason given");
}

/* Copies the run's facts of header h into s->meta. */
static void session_meta(struct session *s, const struct record_header *h)
{
    snprintf(s->brink, sizeof(s->brink), "%s", h->brink);
    s->command_line = h->command_line ? xstrdup(h->command_line) : NULL;
    for (size_t i = 0; i < h->n_urls && i < RECORD_URLS_MAX; i++)
        s->urls[i] = xstrdup(h->urls[i]);
    s->meta =
        (struct report_meta){.brink_version = s->brink,
                             .start_wall_ms = h->start_wall_ms,
                             .urls = (const char *const *)s->urls,
                             .n_urls = h->n_urls < RECORD_URLS_MAX ? h->n_urls : RECORD_URLS_MAX,
                             .command_line = s->command_line};
}

static void on_notice(void *arg, uint64_t line, const char *msg)
{
    char shown[512];

    (void)line;
    msg_show(msg, shown, sizeof(shown));
    msg_print(stderr, "brink: %s: %s", (const char *)arg, shown);
}

/* Prints a reader's opening error ("FILE: ...", the path is the user's)
 * as cmd's line. */
static void print_open_error(const char *cmd, const char *err)
{
    char shown[1024];

    msg_show(err, shown, sizeof(shown));
    msg_print(stderr, "brink: %s: %s", cmd, shown);
}

/* The ticks of one session file, or of several read as one run (--merge):
 * tick N is the merge of every file's tick N that exists. */
struct reading {
    const char *cmd;
    const char *const *paths;
    size_t n;
    int is_quiet;                          /* a second pass: the notices were given */
    const char *agent;                     /* --agent NAME: that agent's ticks; NULL: the run's */
    struct record_reader *r[MAX_SESSIONS]; /* NULL once its file ended */
    uint64_t n_ticks[MAX_SESSIONS];        /* ticks read from each */
    struct tick_merge *merge;              /* NULL: one file, its ticks as they are */
    int has_ref;                           /* a first tick was read: */
    uint64_t tick_us;                      /* its length */
    int ref_is_last;                       /* it was also its file's last (and short) */
    enum load_model model;                 /* its load model */
    size_t ref;                            /* its file */
};

/* Whether t, the first tick of file i, can be merged with the first tick
 * read before it (of another file). */
static int check_alike(struct reading *rd, size_t i, const struct tick *t)
{
    char a[256], b[256];
    uint64_t d = t->duration_us, ref = rd->tick_us;

    if (!rd->has_ref) {
        rd->has_ref = 1;
        rd->tick_us = d;
        rd->ref_is_last = t->state == RUN_DONE;
        rd->model = t->model;
        rd->ref = i;
        return 0;
    }
    msg_show(rd->paths[i], a, sizeof(a));
    msg_show(rd->paths[rd->ref], b, sizeof(b));
    /* A first tick runs a little long (the start), and a run's last one is
     * cut short: a quarter tells 1 s from 500 ms. */
    if (!rd->ref_is_last && t->state != RUN_DONE &&
        (d > ref ? d - ref : ref - d) > (d > ref ? d : ref) / 4) {
        msg_print(stderr,
                  "brink: %s: %s: ticks of %" PRIu64 " ms, but %s has ticks of %" PRIu64
                  " ms: --merge needs sessions of one tick length",
                  rd->cmd, a, d / 1000, b, ref / 1000);
        return -EINVAL;
    }
    if (t->model != rd->model) {
        msg_print(stderr,
                  "brink: %s: %s: load model %s, but %s is %s: --merge needs one load model",
                  rd->cmd, a, load_model_name(t->model), b, load_model_name(rd->model));
        return -EINVAL;
    }
    return 0;
}

static int reading_open(struct reading *rd, int merge)
{
    char err[512];

    for (size_t i = 0; i < rd->n; i++) {
        int rc = record_read_open(rd->paths[i], rd->is_quiet ? NULL : on_notice, (void *)rd->cmd,
                                  err, sizeof(err), &rd->r[i]);

        if (rc) {
            print_open_error(rd->cmd, err);
            return rc;
        }
        if (rd->agent)
            record_read_agent(rd->r[i], rd->agent);
    }
    rd->merge = merge ? tick_merge_new() : NULL;
    return 0;
}

/* The next tick of the run: 1 with *out set, 0 at the end, or a negative
 * errno (said on stderr). */
static int reading_next(struct reading *rd, struct tick **out)
{
    struct tick *got[MAX_SESSIONS];
    size_t k = 0;
    int rc = 0;

    if (!rd->merge)
        return rd->r[0] ? record_read_next(rd->r[0], out) : 0;
    for (size_t i = 0; i < rd->n && rc >= 0; i++) {
        if (!rd->r[i])
            continue;
        rc = record_read_next(rd->r[i], &got[k]);
        if (rc < 0) {
            char shown[256];

            msg_print(stderr, "brink: %s: %s: read error: %s", rd->cmd,
                      msg_show(rd->paths[i], shown, sizeof(shown)), msg_errno(-rc).text);
        } else if (rc == 0) {
            record_read_close(rd->r[i]);
            rd->r[i] = NULL;
        } else if (rd->n_ticks[i] > 0 || (rc = check_alike(rd, i, got[k])) == 0) {
            rd->n_ticks[i]++;
            k++;
        } else {
            tick_free(got[k]);
        }
    }
    if (rc >= 0 && k > 0)
        *out = tick_merge_next(rd->merge, (const struct tick *const *)got, k);
    for (size_t i = 0; i < k; i++)
        tick_free(got[i]);
    return rc < 0 ? rc : k > 0;
}

/* Says which files ended before the others, and what the merge left out. */
static void reading_notices(const struct reading *rd)
{
    uint64_t most = 0;
    char shown[256];

    if (!rd->merge)
        return;
    for (size_t i = 0; i < rd->n; i++)
        most = rd->n_ticks[i] > most ? rd->n_ticks[i] : most;
    for (size_t i = 0; i < rd->n; i++) {
        if (rd->n_ticks[i] < most)
            msg_print(stderr,
                      "brink: %s: %s: ends after %" PRIu64 " ticks of %" PRIu64
                      ": later ticks are merged without it",
                      rd->cmd, msg_show(rd->paths[i], shown, sizeof(shown)), rd->n_ticks[i], most);
    }
    if (tick_merge_kinds_dropped(rd->merge))
        msg_print(stderr,
                  "brink: %s: more than %d request kinds in all: the others are in the "
                  "totals only",
                  rd->cmd, TICK_MAX_KINDS);
}

static void reading_close(struct reading *rd)
{
    for (size_t i = 0; i < rd->n; i++)
        record_read_close(rd->r[i]);
    tick_merge_free(rd->merge);
}

/* The formats written tick by tick as the files are read; NULL when not
 * asked for. */
struct tick_formats {
    struct format_csv *csv;
    struct format_hlog *hlog;
};

/* Reads paths[0..n) into s (and every tick into the formats of tf, when
 * not NULL), merged when merge is set; fail_on (may be NULL) stands for the
 * first session's recorded thresholds. */
static int read_session(const char *cmd, const char *const *paths, size_t n, int merge,
                        const char *agent, const char *fail_on, struct session *s,
                        const struct tick_formats *tf)
{
    struct reading rd = {.cmd = cmd, .paths = paths, .n = n, .agent = agent};
    struct tick *t;
    int rc = reading_open(&rd, merge);

    if (rc) {
        reading_close(&rd);
        return rc;
    }
    (void)verdicts_rules(cmd, record_read_header(rd.r[0])->config_text, fail_on, &s->rules);
    session_meta(s, record_read_header(rd.r[0]));
    s->summary = summary_new();
    s->steps = steps_new();
    /* Merged sessions ran at the same time: the first one's start is theirs. */
    if (tf && tf->hlog)
        format_hlog_start(tf->hlog, record_read_header(rd.r[0])->start_wall_ms);
    while ((rc = reading_next(&rd, &t)) > 0) {
        summary_add_tick(s->summary, t);
        steps_add_tick(s->steps, t);
        s->n_ticks++;
        if (tf && tf->csv)
            format_csv_tick(tf->csv, t);
        if (tf && tf->hlog)
            format_hlog_tick(tf->hlog, t);
        tick_free(t);
    }
    steps_finish(s->steps);
    if (rc == 0)
        reading_notices(&rd);
    if (rc == 0 && !merge)
        session_ending(s, rd.r[0]);
    if (rc < 0 && !merge) {
        char shown[256];

        msg_print(stderr, "brink: %s: %s: read error: %s", cmd,
                  msg_show(paths[0], shown, sizeof(shown)), msg_errno(-rc).text);
    }
    reading_close(&rd);
    return rc < 0 ? rc : 0;
}

static void free_session(struct session *s)
{
    free(s->command_line);
    for (size_t i = 0; i < s->meta.n_urls; i++)
        free(s->urls[i]);
    summary_free(s->summary);
    steps_free(s->steps);
    html_run_free(s->html);
}

/* Reads paths[0..n) once more (merged as read_session did) into the HTML
 * page's curves; the first pass counted the ticks and gave the notices. */
static int read_html(const char *cmd, const char *const *paths, size_t n, int merge,
                     const char *agent, struct session *s)
{
    struct reading rd = {.cmd = cmd, .paths = paths, .n = n, .is_quiet = 1, .agent = agent};
    struct tick *t;
    int rc = reading_open(&rd, merge);

    if (rc) {
        reading_close(&rd);
        return rc;
    }
    s->html = html_run_new(paths[0], record_read_header(rd.r[0]), n, s->n_ticks);
    while ((rc = reading_next(&rd, &t)) > 0) {
        html_run_add_tick(s->html, t);
        tick_free(t);
    }
    /* One file's trailer says how it ended; merged files each had theirs. */
    html_run_finish(s->html, merge ? NULL : record_read_trailer(rd.r[0]));
    reading_close(&rd);
    return rc < 0 ? rc : 0;
}

/* Prints s in format f to out; *n_failed gets its failed thresholds and
 * steps. label names the session on an HTML page. */
static int print(enum format f, const struct session *s, const char *label, FILE *out,
                 unsigned *n_failed)
{
    struct summary_totals total;
    struct report_verdicts v;

    verdicts_judge(&s->rules, s->steps, &v);
    *n_failed = v.n_failed + v.steps_failed;
    switch (f) {
    case FMT_TEXT:
        if (summary_print(s->summary, out) != 0 || format_steps_text(s->steps, out) != 0)
            return -EIO;
        if (s->ending[0]) {
            char shown[sizeof(s->ending)];

            fprintf(out, "\nended: %s\n", msg_show(s->ending, shown, sizeof(shown)));
        }
        verdicts_print("report", &v, s->steps, out);
        return ferror(out) ? -EIO : 0;
    case FMT_JSON: return format_json(s->summary, s->steps, &v, &s->meta, out);
    case FMT_HTML: {
        struct html_session hs = {
            .run = s->html, .sum = s->summary, .steps = s->steps, .verdicts = &v, .label = label};

        return format_html(&hs, out);
    }
    case FMT_HDR:
    case FMT_HDR_FAILED:
        summary_totals(s->summary, f == FMT_HDR ? SUMMARY_TOTAL : SUMMARY_FAILED, &total);
        return format_hdr(total.hist, out);
    case FMT_CSV_STEPS: return format_steps_csv(s->steps, out);
    case FMT_CSV_CHECKS: return format_checks_csv(s->steps, out);
    case FMT_CSV_LOST: return format_lost_csv(s->summary, out);
    case FMT_CSV:
    case FMT_HLOG: break; /* written as the ticks were read */
    }
    return 0;
}

static int parse_format(const char *v, enum format *out)
{
    int i = opts_choice(cli_report_formats, v);

    if (i < 0)
        return -EINVAL;
    *out = (enum format)i;
    return 0;
}

/* What brink report was asked for. */
struct report_args {
    const char *paths[MAX_SESSIONS];
    size_t n;
    enum format format;
    const char *fail_on; /* NULL: the recorded thresholds */
    const char *output;  /* -o FILE; NULL: stdout */
    int merge;           /* --merge */
    const char *agent;   /* --agent NAME */
};

/* FILEs, --format, -o, --fail-on and --merge; returns 0 or the usage
 * status (printed). */
static int parse_report_args(int argc, char **argv, struct report_args *a)
{
    struct opts_parser p;
    struct opts_item it;
    char err[OPTS_ERR_MAX], shown[MSG_SHOWN_MAX];
    int rc;

    opts_start(&p, &cli_report, argc, argv);
    while ((rc = opts_next(&p, &it, err, sizeof(err))) != 0) {
        if (rc < 0)
            return opts_fail(&cli_report, stderr, "%s", err);
        if (it.id == CLI_REPORT_FAIL_ON) {
            a->fail_on = it.value;
        } else if (it.id == CLI_REPORT_MERGE) {
            a->merge = 1;
        } else if (it.id == CLI_REPORT_AGENT) {
            a->agent = it.value;
        } else if (it.id == CLI_REPORT_OUTPUT) {
            a->output = it.value;
        } else if (it.id == CLI_REPORT_FORMAT) {
            if (parse_format(it.value, &a->format) != 0)
                return opts_fail(&cli_report, stderr,
                                 "--format: expected text, json, csv, csv-steps, csv-checks, "
                                 "csv-lost, hdr, hdr-failed, hlog or html, got \"%s\"",
                                 msg_show(it.value, shown, sizeof(shown)));
        } else if (a->n == MAX_SESSIONS) {
            return opts_fail(&cli_report, stderr, "more than %d sessions at \"%s\"", MAX_SESSIONS,
                             msg_show(it.value, shown, sizeof(shown)));
        } else {
            a->paths[a->n++] = it.value;
        }
    }
    if (a->n == 0)
        return opts_fail(&cli_report, stderr, "missing FILE");
    /* Options may come after the files: judge the count once all are read. */
    if (a->n > 1 && !a->merge)
        return opts_fail(&cli_report, stderr,
                         "unexpected argument \"%s\": one FILE, or --merge to read several as "
                         "one run",
                         msg_show(a->paths[1], shown, sizeof(shown)));
    return 0;
}

FILE *report_open_output(const char *cmd, const char *path)
{
    char shown[600];
    FILE *out;

    if (!path)
        return stdout;
    out = fopen(path, "w");
    if (!out)
        msg_print(stderr, "brink: %s: -o %s: cannot create: %s", cmd,
                  msg_show(path, shown, sizeof(shown)), msg_errno(errno).text);
    return out;
}

int report_close_output(const char *cmd, FILE *out, const char *path, int rc)
{
    char shown[600];

    if (out == stdout)
        return rc;
    if (fclose(out) != 0 && rc == 0)
        rc = -EIO;
    if (rc == -EIO)
        msg_print(stderr, "brink: %s: -o %s: write error", cmd,
                  msg_show(path, shown, sizeof(shown)));
    if (rc != 0)
        remove(path);
    return rc;
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

int report_main(int argc, char **argv)
{
    struct report_args a = {.format = FMT_TEXT};
    struct session s = {0};
    struct tick_formats tf = {0};
    char label[64];
    unsigned n_failed = 0;
    FILE *out;
    int rc;

    rc = parse_report_args(argc, argv, &a);
    if (rc != 0)
        return rc;
    /* A bad --fail-on is a usage error, found before the file is read. */
    if (a.fail_on && verdicts_rules("report", NULL, a.fail_on, &s.rules) != 0)
        return BRINK_EXIT_USAGE;
    out = report_open_output("report", a.output);
    if (!out)
        return BRINK_EXIT_RUNTIME;
    if (a.format == FMT_CSV)
        tf.csv = format_csv_new(out, &s.meta);
    if (a.format == FMT_HLOG)
        tf.hlog = format_hlog_new(out);
    rc = read_session("report", a.paths, a.n, a.merge, a.agent, a.fail_on, &s, &tf);
    if (rc == 0 && a.agent && s.n_ticks == 0) {
        char shown[256], name[128];

        msg_print(stderr,
                  "brink: report: %s: no ticks of agent \"%s\" (expected a host of the run's "
                  "[agents] hosts)",
                  msg_show(a.paths[0], shown, sizeof(shown)),
                  msg_show(a.agent, name, sizeof(name)));
        rc = -ENOENT;
    }
    if (rc == 0 && a.format == FMT_HTML)
        rc = read_html("report", a.paths, a.n, a.merge, a.agent, &s);
    default_label(a.paths[0], label, sizeof(label));
    if (rc == 0)
        rc = print(a.format, &s, label, out, &n_failed);
    if (rc == 0 && tf.csv)
        rc = format_csv_finish(tf.csv);
    if (rc == 0 && tf.hlog)
        rc = format_hlog_finish(tf.hlog);
    format_csv_free(tf.csv);
    format_hlog_free(tf.hlog);
    if (s.summary)
        free_session(&s);
    rc = report_close_output("report", out, a.output, rc);
    if (rc != 0)
        return BRINK_EXIT_RUNTIME;
    return n_failed ? BRINK_EXIT_VERDICT : BRINK_EXIT_OK;
}

/* What compare was asked for. */
struct compare_args {
    const char *paths[MAX_SESSIONS];
    const char *labels[MAX_SESSIONS];
    size_t n, n_labels;
    int is_html;        /* --format html */
    const char *output; /* -o FILE; NULL: stdout */
};

/* The sessions, their labels, --format and -o; returns 0 or the usage status
 * (printed). */
static int parse_compare_args(int argc, char **argv, struct compare_args *a)
{
    const char **paths = a->paths, **labels = a->labels;
    size_t *n = &a->n, *n_labels = &a->n_labels;
    struct opts_parser p;
    struct opts_item it;
    char err[OPTS_ERR_MAX], shown[MSG_SHOWN_MAX];
    int rc;

    opts_start(&p, &cli_compare, argc, argv);
    while ((rc = opts_next(&p, &it, err, sizeof(err))) != 0) {
        if (rc < 0)
            return opts_fail(&cli_compare, stderr, "%s", err);
        if (it.id == CLI_COMPARE_LABEL && *n_labels == MAX_SESSIONS)
            return opts_fail(&cli_compare, stderr, "more than %d labels at \"%s\"", MAX_SESSIONS,
                             msg_show(it.value, shown, sizeof(shown)));
        if (it.id == CLI_COMPARE_OUTPUT)
            a->output = it.value;
        else if (it.id == CLI_COMPARE_FORMAT && opts_choice(cli_compare_formats, it.value) < 0)
            return opts_fail(&cli_compare, stderr, "--format: expected text or html, got \"%s\"",
                             msg_show(it.value, shown, sizeof(shown)));
        else if (it.id == CLI_COMPARE_FORMAT)
            a->is_html = strcmp(it.value, "html") == 0;
        else if (it.id == CLI_COMPARE_LABEL)
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

/* The sessions' curves overlaid on one page. */
static int print_compare_html(struct session *s, const char *const *labels, size_t n, FILE *out)
{
    struct html_session hs[MAX_SESSIONS];
    struct report_verdicts v[MAX_SESSIONS];

    for (size_t i = 0; i < n; i++) {
        verdicts_judge(&s[i].rules, s[i].steps, &v[i]);
        hs[i] = (struct html_session){.run = s[i].html,
                                      .sum = s[i].summary,
                                      .steps = s[i].steps,
                                      .verdicts = &v[i],
                                      .label = labels[i]};
    }
    return format_html_compare(hs, n, out);
}

int compare_main(int argc, char **argv)
{
    struct compare_args a = {0};
    char names[MAX_SESSIONS][64];
    struct session s[MAX_SESSIONS] = {{0}};
    const struct steps *tables[MAX_SESSIONS];
    FILE *out;
    int rc;

    rc = parse_compare_args(argc, argv, &a);
    if (rc != 0)
        return rc;
    out = report_open_output("compare", a.output);
    if (!out)
        return BRINK_EXIT_RUNTIME;
    for (size_t i = 0; i < a.n && rc == 0; i++) {
        rc = read_session("compare", &a.paths[i], 1, 0, NULL, NULL, &s[i], NULL);
        if (rc == 0 && a.is_html)
            rc = read_html("compare", &a.paths[i], 1, 0, NULL, &s[i]);
        tables[i] = s[i].steps;
        if (i >= a.n_labels) {
            default_label(a.paths[i], names[i], sizeof(names[i]));
            a.labels[i] = names[i];
        }
    }
    if (rc == 0)
        rc = a.is_html ? print_compare_html(s, a.labels, a.n, out)
                       : format_compare(tables, a.labels, a.n, out);
    for (size_t i = 0; i < a.n; i++) {
        if (s[i].summary)
            free_session(&s[i]);
    }
    rc = report_close_output("compare", out, a.output, rc);
    return rc == 0 ? BRINK_EXIT_OK : BRINK_EXIT_RUNTIME;
}
