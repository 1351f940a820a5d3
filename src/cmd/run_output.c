#include "cmd/run_output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts.h"
#include "cli/tables.h"
#include "config/config.h"
#include "core/clock.h"
#include "core/msg.h"
#include "core/redact.h"
#include "core/steps.h"
#include "core/xalloc.h"
#include "report/summary.h"
#include "cmd/report_cmd.h"
#include "cmd/verdicts.h"

int run_output_format(const char *name, enum run_format *out)
{
    int i = opts_choice(cli_run_formats, name);

    if (i < 0)
        return -EINVAL;
    *out = (enum run_format)i;
    return 0;
}

void run_kind_url(const struct config *c, unsigned i, char *out, size_t cap)
{
    const char *base = c->target.url.raw ? c->target.url.raw : "";
    const char *path = i < c->n_requests ? c->requests[i].url.raw : NULL;
    char joined[4096];

    if (path && path[0] == '/')
        snprintf(joined, sizeof(joined), "%s%s", base, path);
    else
        snprintf(joined, sizeof(joined), "%s", path ? path : base);
    redact_url(joined, out, cap);
}

void run_facts_init(struct run_facts *f, const struct config *c, int argc, char **argv)
{
    unsigned n = c->n_requests ? c->n_requests : 1;

    memset(f, 0, sizeof(*f));
    for (unsigned i = 0; i < n && f->n_urls < RECORD_URLS_MAX; i++) {
        char url[4096];
        size_t k = 0;

        run_kind_url(c, i, url, sizeof(url));
        while (k < f->n_urls && strcmp(f->urls[k], url) != 0)
            k++;
        if (url[0] && k == f->n_urls)
            f->urls[f->n_urls++] = xstrdup(url);
    }
    opts_command_line(argc, argv, f->command_line, sizeof(f->command_line));
    f->header = (struct record_header_info){.start_wall_ms = clock_wall_ms(),
                                            .command_line = f->command_line,
                                            .urls = (const char *const *)f->urls,
                                            .n_urls = f->n_urls};
    f->meta = (struct report_meta){.brink_version = BRINK_VERSION,
                                   .start_wall_ms = f->header.start_wall_ms,
                                   .urls = f->header.urls,
                                   .n_urls = f->n_urls,
                                   .command_line = f->command_line};
}

void run_facts_free(struct run_facts *f)
{
    for (size_t i = 0; i < f->n_urls; i++)
        free(f->urls[i]);
    f->n_urls = 0;
}

struct run_output {
    enum run_format format;
    const char *path;       /* -o FILE; NULL: stdout */
    FILE *out;              /* stdout or the file */
    FILE *held;             /* CSV rows waiting for the console to close; NULL: none */
    struct format_csv *csv; /* --format csv */
    const struct report_meta *meta;
};

int run_output_open(enum run_format f, const char *path, int is_console,
                    const struct report_meta *meta, struct run_output **out)
{
    struct run_output *o = xcalloc(1, sizeof(*o));

    *out = NULL;
    o->format = f;
    o->path = path;
    o->meta = meta;
    o->out = report_open_output("run", path);
    if (!o->out) {
        free(o);
        return -EIO;
    }
    if (f == RUN_FORMAT_CSV) {
        /* The console draws on stdout: its rows wait until it is closed. */
        if (!path && is_console)
            o->held = tmpfile();
        if (!path && is_console && !o->held) {
            msg_print(stderr, "brink: run: --format csv: no temporary file: %s",
                      msg_errno(errno).text);
            free(o);
            return -EIO;
        }
        o->csv = format_csv_new(o->held ? o->held : o->out, meta);
    }
    *out = o;
    return 0;
}

void run_output_tick(struct run_output *o, const struct tick *t)
{
    if (o->csv)
        (void)format_csv_tick(o->csv, t);
}

/* Copies the held rows to the output. */
static int release_held(struct run_output *o)
{
    char buf[8192];
    size_t n;

    if (!o->held)
        return 0;
    rewind(o->held);
    while ((n = fread(buf, 1, sizeof(buf), o->held)) > 0) {
        if (fwrite(buf, 1, n, o->out) != n)
            break;
    }
    n = ferror(o->held) || ferror(o->out);
    fclose(o->held);
    o->held = NULL;
    return n ? -EIO : 0;
}

/* The report in o's format; the verdicts in *v (n_rules 0 when not
 * judged). */
static int write_report(struct run_output *o, const struct summary *sum, struct steps *st,
                        const struct config_rules *rules, struct report_verdicts *v)
{
    int rc;

    memset(v, 0, sizeof(*v));
    steps_finish(st);
    if (o->format == RUN_FORMAT_TEXT) {
        rc = format_final(sum, st, o->out);
        if (rules) {
            verdicts_judge(rules, st, v);
            verdicts_print("run", v, st, o->out);
        }
        return rc;
    }
    if (rules) {
        verdicts_judge(rules, st, v);
        /* stdout holds the document alone: the verdict's lines go with the
         * progress lines. */
        verdicts_print("run", v, st, stderr);
    }
    if (o->format == RUN_FORMAT_JSON)
        return format_json(sum, st, v, o->meta, o->out);
    rc = format_csv_finish(o->csv);
    return rc == 0 ? release_held(o) : rc;
}

int run_output_close(struct run_output *o, const struct summary *sum, struct steps *st,
                     const struct config_rules *rules, unsigned *n_failed)
{
    struct report_verdicts v;
    int rc = write_report(o, sum, st, rules, &v);

    *n_failed = v.n_failed + v.steps_failed;
    if (rc == 0 && fflush(o->out) != 0)
        rc = -EIO;
    rc = report_close_output("run", o->out, o->path, rc);
    if (o->held)
        fclose(o->held);
    format_csv_free(o->csv);
    free(o);
    return rc;
}

void run_output_discard(struct run_output *o)
{
    report_close_output("run", o->out, o->path, -ECANCELED);
    if (o->held)
        fclose(o->held);
    format_csv_free(o->csv);
    free(o);
}
