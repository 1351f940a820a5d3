/*
 * The session reader: a header checked at open, then one line at a time,
 * capped at RECORD_LINE_MAX. A bad line is skipped with a notice naming it; a
 * cut last line or a missing trailer ends the stream with a notice that says
 * where the recording stops. Unknown line types are ignored (later minor
 * versions may add them). Bytes no writer makes (a NUL, a line that goes
 * on far past the cap) stop the reading where they are, so a file that is
 * not a session, or a session followed by gigabytes of zeros, is never read
 * to its end.
 */
#include "record/record.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/msg.h"
#include "core/regfile.h"
#include "core/xalloc.h"
#include "record/internal.h"

#define NAME_MAX_LEN 256
#define WHY_MAX 200
/* How far past RECORD_LINE_MAX an over-long line is skipped to its newline
 * (a damaged line: the writer never makes one); beyond it reading stops. */
#define SKIP_MAX_BYTES (16 * 1024 * 1024)

/* What read_line returns besides a length. */
enum {
    LINE_END = -1,      /* the end of the file */
    LINE_LONG = -2,     /* longer than RECORD_LINE_MAX, skipped to its newline */
    LINE_NOT_TEXT = -3, /* a NUL byte, or a line past the skip budget: reading stops */
};

struct record_reader {
    FILE *f;
    int owns_file;
    record_notice_fn *notice;
    void *arg;
    char *line; /* the current line, NUL-terminated */
    size_t cap;
    int has_newline;        /* the current line ended with '\n' */
    int is_done;            /* the end notice was given */
    uint64_t pos;           /* bytes read from the start */
    char stop_why[WHY_MAX]; /* "": reading goes on; else why it stopped */
    uint64_t last_start_us;
    struct tick_latency phase_run[PHASE__COUNT]; /* each phase's last run figures */
    struct record_header header;
    char *config_text;
    char *command_line;          /* NULL: the header had none */
    char *urls[RECORD_URLS_MAX]; /* n_urls of them */
    int has_trailer;
    struct record_trailer trailer;
    struct record_end end;
    char name[NAME_MAX_LEN];
    char agent[TICK_NAME_MAX]; /* "": the run's ticks; else this agent's */
};

static void notice(struct record_reader *r, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void notice(struct record_reader *r, uint64_t line, const char *fmt, ...)
{
    char msg[RECORD_REASON_MAX + WHY_MAX];
    va_list ap;

    if (!r->notice)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    r->notice(r->arg, line, msg);
}

/* Reads the next line into r->line: returns its length, LINE_END, LINE_LONG
 * (the rest of it skipped, at most skip_max bytes) or LINE_NOT_TEXT with
 * r->stop_why set. No session holds a NUL byte (JSON escapes control
 * characters), so the first one ends the reading at once: a sparse or
 * zero-filled file costs one byte, not gigabytes. */
static long read_line(struct record_reader *r, size_t skip_max)
{
    size_t n = 0, skipped = 0;
    int c, is_long = 0;

    r->has_newline = 0;
    /* One thread per reader: the unlocked getc is the fast one. */
    while ((c = getc_unlocked(r->f)) != EOF) {
        r->pos++;
        if (c == '\n') {
            r->has_newline = 1;
            break;
        }
        if (c == '\0') {
            msg_set(r->stop_why, sizeof(r->stop_why), "a NUL byte at byte %llu",
                    (unsigned long long)(r->pos - 1));
            break;
        }
        if (n == RECORD_LINE_MAX) {
            is_long = 1;
            if (++skipped > skip_max) {
                msg_set(r->stop_why, sizeof(r->stop_why), "line %llu is longer than %u MiB",
                        (unsigned long long)r->end.lines + 1,
                        (unsigned)((RECORD_LINE_MAX + skip_max) >> 20));
                break;
            }
            continue;
        }
        if (n + 1 >= r->cap) {
            r->cap = r->cap * 2 > RECORD_LINE_MAX + 1 ? RECORD_LINE_MAX + 1 : r->cap * 2;
            r->line = xrealloc(r->line, r->cap);
        }
        r->line[n++] = (char)c;
    }
    if (r->stop_why[0]) {
        r->end.lines++; /* the line the text stops in */
        return LINE_NOT_TEXT;
    }
    if (n == 0 && !r->has_newline && !is_long)
        return LINE_END;
    r->end.lines++;
    r->line[n] = '\0';
    return is_long ? LINE_LONG : (long)n;
}

/* Parses a line as a JSON object and returns its type ("" when it has none). */
static json_t *parse_object(const char *line, size_t len, const char **type, char *why,
                            size_t why_len)
{
    json_error_t jerr;
    json_t *o = json_loadb(line, len, 0, &jerr);

    if (!o) {
        msg_set(why, why_len, "not JSON (%s at column %d)", jerr.text, jerr.column);
        return NULL;
    }
    if (!json_is_object(o)) {
        msg_set(why, why_len, "not a JSON object");
        json_decref(o);
        return NULL;
    }
    *type = json_string_value(json_object_get(o, "type"));
    if (!*type)
        *type = "";
    return o;
}

int record_parse_tick_line(const char *line, size_t len, struct tick **out, char *why,
                           size_t why_len)
{
    const char *type;
    json_t *o = parse_object(line, len, &type, why, why_len);
    int rc = 1;

    *out = NULL;
    if (!o)
        return -EINVAL;
    if (strcmp(type, "tick") == 0)
        rc = record__tick_from_json(o, out, why, why_len);
    json_decref(o);
    return rc;
}

static uint64_t count_of(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

static const char *text_of(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s ? s : "";
}

/* The header's command line and URLs (minor 1): absent from older files,
 * and a field that is not what it should be reads as absent. */
static void read_run(struct record_reader *r, json_t *o)
{
    json_t *v = json_object_get(o, "command"), *u;
    size_t i;

    if (json_is_string(v))
        r->command_line = xstrdup(json_string_value(v));
    r->header.command_line = r->command_line;
    json_array_foreach(json_object_get(o, "urls"), i, u)
    {
        if (r->header.n_urls == RECORD_URLS_MAX)
            break;
        if (json_is_string(u))
            r->urls[r->header.n_urls++] = xstrdup(json_string_value(u));
    }
    r->header.urls = (const char *const *)r->urls;
}

/* The first line must be a header of this format, within RECORD_LINE_MAX
 * bytes: whatever the file's size, at most that much is read to refuse it. */
static int read_header(struct record_reader *r, char *err, size_t err_len)
{
    char why[WHY_MAX];
    const char *type = "";
    long len = read_line(r, 0);
    json_t *o, *v;

    if (len == LINE_END) {
        msg_set(err, err_len, "%s: not a brink session: the file is empty", r->name);
        return -ENODATA;
    }
    if (len == LINE_NOT_TEXT) {
        msg_set(err, err_len, "%s: not a brink session: %s", r->name, r->stop_why);
        return -EINVAL;
    }
    o = parse_object(r->line, (size_t)len, &type, why, sizeof(why));
    if (!o || strcmp(type, "header") != 0 ||
        strcmp(text_of(o, "format"), RECORD_FORMAT_NAME) != 0 ||
        !json_is_integer(json_object_get(o, "version"))) {
        msg_set(err, err_len,
                "%s: not a brink session: its first line is not a header with format \"%s\"",
                r->name, RECORD_FORMAT_NAME);
        json_decref(o);
        return -EINVAL;
    }
    r->header.version = (int)json_integer_value(json_object_get(o, "version"));
    if (r->header.version < RECORD_FORMAT_OLDEST || r->header.version > RECORD_FORMAT_VERSION) {
        msg_set(
            err, err_len,
            "%s: session format version %d is not one this brink reads (versions %d to %d): use a matching brink",
            r->name, r->header.version, RECORD_FORMAT_OLDEST, RECORD_FORMAT_VERSION);
        json_decref(o);
        return -ENOTSUP;
    }
    r->header.minor = (int)count_of(o, "minor");
    tick_copy_text(r->header.brink, sizeof(r->header.brink), text_of(o, "brink"));
    tick_copy_text(r->header.host, sizeof(r->header.host), text_of(o, "host"));
    r->header.start_wall_ms = count_of(o, "start_wall_ms");
    r->config_text = xstrdup(text_of(o, "config"));
    r->header.config_text = r->config_text;
    read_run(r, o);
    v = json_object_get(json_object_get(o, "hist"), "precision");
    r->header.hist_precision = json_is_number(v) ? json_number_value(v) : RECORD_HIST_PRECISION;
    json_decref(o);
    return 0;
}

int record_read_stream(FILE *f, const char *name, record_notice_fn *notice_fn, void *arg, char *err,
                       size_t err_len, struct record_reader **out)
{
    struct record_reader *r = xcalloc(1, sizeof(*r));
    int rc;

    r->f = f;
    r->notice = notice_fn;
    r->arg = arg;
    r->cap = 4096;
    r->line = xmalloc(r->cap);
    tick_copy_text(r->name, sizeof(r->name), name ? name : "session");
    rc = read_header(r, err, err_len);
    if (rc != 0) {
        record_read_close(r);
        *out = NULL;
        return rc;
    }
    *out = r;
    return 0;
}

int record_read_open(const char *path, record_notice_fn *notice_fn, void *arg, char *err,
                     size_t err_len, struct record_reader **out)
{
    char why[256];
    FILE *f;
    int rc;

    *out = NULL;
    /* A FIFO with no writer would block and /dev/zero never end. */
    rc = regfile_open(path, 0, &f, why, sizeof(why));
    if (rc != 0) {
        msg_set(err, err_len, "%s: %s", path, why);
        return rc;
    }
    rc = record_read_stream(f, path, notice_fn, arg, err, err_len, out);
    if (rc != 0) {
        fclose(f);
        return rc;
    }
    (*out)->owns_file = 1;
    return 0;
}

const struct record_header *record_read_header(const struct record_reader *r)
{
    return &r->header;
}

static void read_trailer(struct record_reader *r, json_t *o)
{
    r->has_trailer = 1;
    r->end.has_trailer = 1;
    r->trailer.ticks = count_of(o, "ticks");
    r->trailer.is_complete = json_is_true(json_object_get(o, "complete"));
    tick_copy_text(r->trailer.reason, sizeof(r->trailer.reason), text_of(o, "reason"));
    r->trailer.end_wall_ms = count_of(o, "end_wall_ms");
    r->trailer.ticks_dropped = count_of(o, "ticks_dropped");
    r->trailer.ticks_not_recorded = count_of(o, "ticks_not_recorded");
}

/* Gives the end notice once: a cut last line, or no trailer. */
static void finish(struct record_reader *r)
{
    unsigned long long line = r->end.lines;
    double t_s = (double)r->end.last_ms / 1000.0;

    if (r->is_done)
        return;
    r->is_done = 1;
    if (r->stop_why[0])
        notice(
            r, line,
            "recording ends abruptly at line %llu (t=%.1f s): %s, not session text: reading stopped there",
            line, t_s, r->stop_why);
    else if (r->end.is_cut)
        notice(r, line, "recording ends abruptly at line %llu (t=%.1f s): the last line is cut",
               line, t_s);
    else if (!r->has_trailer)
        notice(
            r, line,
            "recording ends abruptly at line %llu (t=%.1f s): no trailer (the run did not close the file)",
            line, t_s);
}

/* Takes a parsed tick: keeps time moving forward, counts it. */
static void accept_tick(struct record_reader *r, struct tick *t)
{
    if (t->start_us < r->last_start_us) {
        notice(r, r->end.lines, "line %llu: time goes backwards (t=%.1f s after %.1f s), clamped",
               (unsigned long long)r->end.lines, (double)t->start_us / 1e6,
               (double)r->last_start_us / 1e6);
        t->start_us = r->last_start_us;
    }
    r->last_start_us = t->start_us;
    /* A phase's run figures are written only with its interval's: a tick
     * that timed none of it has the last ones seen. */
    for (int p = 0; p < PHASE__COUNT; p++) {
        if (t->phases[p].run.count == 0)
            t->phases[p].run = r->phase_run[p];
        else
            r->phase_run[p] = t->phases[p].run;
    }
    r->end.last_ms = tick_end_ms(t);
    r->end.ticks++;
}

static void skip(struct record_reader *r, const char *why)
{
    r->end.lines_skipped++;
    notice(r, r->end.lines, "line %llu: skipped: %s", (unsigned long long)r->end.lines, why);
}

int record_read_next(struct record_reader *r, struct tick **out)
{
    *out = NULL;
    for (;;) {
        char why[WHY_MAX];
        const char *type;
        long len = r->stop_why[0] ? LINE_END : read_line(r, SKIP_MAX_BYTES);
        json_t *o;

        if (ferror(r->f))
            return -EIO;
        if (len == LINE_END)
            break;
        if (len == LINE_NOT_TEXT) {
            r->end.is_cut = 1;
            break;
        }
        if (len == LINE_LONG && !r->has_newline) {
            r->end.is_cut = 1;
            continue;
        }
        if (len == LINE_LONG) {
            skip(r, "longer than 1 MiB");
            continue;
        }
        o = parse_object(r->line, (size_t)len, &type, why, sizeof(why));
        if (!o) {
            /* A cut last line is the normal end of a killed run: the end
             * notice says so, no second notice. */
            if (r->has_newline)
                skip(r, why);
            else
                r->end.is_cut = 1;
            continue;
        }
        if (strcmp(type, r->agent[0] ? "agent_tick" : "tick") == 0) {
            const char *agent = json_string_value(json_object_get(o, "agent"));
            int rc;

            if (r->agent[0] && (!agent || strcmp(agent, r->agent) != 0)) {
                json_decref(o);
                continue;
            }
            rc = record__tick_from_json(o, out, why, sizeof(why));

            json_decref(o);
            if (rc == 0) {
                if (r->has_trailer)
                    notice(r, r->end.lines, "line %llu: a tick after the trailer",
                           (unsigned long long)r->end.lines);
                accept_tick(r, *out);
                return 1;
            }
            skip(r, why);
            continue;
        }
        if (strcmp(type, "trailer") == 0)
            read_trailer(r, o);
        else if (strcmp(type, "header") == 0)
            skip(r, "a second header");
        json_decref(o);
    }
    if (ferror(r->f))
        return -EIO;
    finish(r);
    return 0;
}

const struct record_trailer *record_read_trailer(const struct record_reader *r)
{
    return r->has_trailer ? &r->trailer : NULL;
}

void record_read_end(const struct record_reader *r, struct record_end *out)
{
    *out = r->end;
}

void record_read_agent(struct record_reader *r, const char *agent)
{
    snprintf(r->agent, sizeof(r->agent), "%s", agent);
}

void record_read_close(struct record_reader *r)
{
    if (!r)
        return;
    if (r->owns_file)
        fclose(r->f);
    free(r->config_text);
    free(r->command_line);
    for (size_t i = 0; i < r->header.n_urls; i++)
        free(r->urls[i]);
    free(r->line);
    free(r);
}
