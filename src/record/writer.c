/*
 * The session writer: a header line at open, one line per tick, a trailer at
 * close. Each line is formatted completely in memory and written with
 * write(2) (looping over short writes); if a write fails the file is cut
 * back to the end of its last complete line and the writer stops for good,
 * counting what it could not record. The run goes on either way.
 */
#include "record/record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/linebuf.h"
#include "core/msg.h"
#include "core/xalloc.h"
#include "record/internal.h"

#define DUMP_FLAGS (JSON_COMPACT | JSON_ENSURE_ASCII)

struct record_writer {
    int fd;
    int is_regular; /* a regular file: can be cut back and synced */
    off_t good_end; /* end of the last complete line */
    int error;      /* 0, or the negative errno that stopped it */
    char reason[RECORD_REASON_MAX];
    uint64_t ticks;
    uint64_t not_recorded;
    char *buf; /* the line being written */
    size_t cap;
    char path[];
};

static void stop(struct record_writer *w, int error, const char *step)
{
    w->error = error;
    msg_set(w->reason, sizeof(w->reason), "recording stopped: %s: %s: %s", w->path, step,
            msg_errno(-error).text);
}

/* Formats o as one line (newline included) in w->buf; returns its length,
 * or -E2BIG / -ENOMEM. */
static long format_line(struct record_writer *w, json_t *o)
{
    size_t n;

    if (!o)
        return -ENOMEM;
    n = json_dumpb(o, w->buf, w->cap, DUMP_FLAGS);
    if (n == 0)
        return -ENOMEM;
    if (n > RECORD_LINE_MAX)
        return -E2BIG;
    if (n + 1 > w->cap) {
        w->cap = n + 1;
        w->buf = xrealloc(w->buf, w->cap);
        n = json_dumpb(o, w->buf, w->cap, DUMP_FLAGS);
    }
    w->buf[n] = '\n';
    return (long)n + 1;
}

/* Writes o as the next line and takes its reference. */
static int put_line(struct record_writer *w, json_t *o)
{
    long len = format_line(w, o);
    int rc;

    json_decref(o);
    if (len < 0)
        return (int)len;
    rc = fd_write_all(w->fd, w->buf, (size_t)len);
    if (rc == 0) {
        w->good_end += len;
        return 0;
    }
    /* Keep the file parseable: drop the part of the line that made it. */
    if (w->is_regular && ftruncate(w->fd, w->good_end) == 0)
        (void)lseek(w->fd, w->good_end, SEEK_SET);
    stop(w, rc, "write");
    return rc;
}

static json_t *header_json(const struct record_header_info *info)
{
    json_t *o = json_object(), *h = json_object();
    int bad = !o || !h;

    bad |= json_object_set_new(o, "type", json_string("header"));
    bad |= json_object_set_new(o, "format", json_string(RECORD_FORMAT_NAME));
    bad |= json_object_set_new(o, "version", json_integer(RECORD_FORMAT_VERSION));
    bad |= json_object_set_new(o, "minor", json_integer(RECORD_FORMAT_MINOR));
    bad |= json_object_set_new(
        o, "brink", json_string(info->brink_version ? info->brink_version : BRINK_VERSION));
    bad |= json_object_set_new(o, "start_wall_ms", record__json_count(info->start_wall_ms));
    bad |= json_object_set_new(o, "host", json_string(info->host ? info->host : ""));
    bad |=
        json_object_set_new(o, "config", json_string(info->config_text ? info->config_text : ""));
    if (info->command_line)
        bad |= json_object_set_new(o, "command", json_string(info->command_line));
    if (info->n_urls) {
        json_t *urls = json_array();

        bad |= !urls;
        for (size_t i = 0; urls && i < info->n_urls && i < RECORD_URLS_MAX; i++)
            bad |= json_array_append_new(urls, json_string(info->urls[i]));
        bad |= json_object_set_new(o, "urls", urls);
    }
    bad |= json_object_set_new(h, "encoding", json_string("log-linear-b64"));
    bad |= json_object_set_new(h, "sub_buckets", json_integer(1 << RECH_SUB_BITS));
    bad |= json_object_set_new(h, "precision", json_real(RECORD_HIST_PRECISION));
    bad |= json_object_set_new(o, "hist", h);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Opens path for a new session: a new regular file, or an existing device
 * or FIFO, never an existing file or a symlink. */
static int open_new(const char *path, int *is_regular, char *err, size_t err_len)
{
    struct stat st;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

    *is_regular = 1;
    if (fd >= 0)
        return fd;
    if (errno != EEXIST) {
        int e = errno;

        msg_set(err, err_len, "brink: %s: cannot create the session file: %s", path,
                msg_errno(e).text);
        return -e;
    }
    fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd >= 0 && fstat(fd, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        *is_regular = 0;
        (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        return fd;
    }
    if (fd >= 0)
        close(fd);
    msg_set(
        err, err_len,
        "brink: %s: the file exists and brink never overwrites a session file: choose another name or remove it",
        path);
    return -EEXIST;
}

int record_open(const char *path, const struct record_header_info *info, char *err, size_t err_len,
                struct record_writer **out)
{
    size_t plen = strlen(path);
    struct record_writer *w;
    int is_regular;
    int fd = open_new(path, &is_regular, err, err_len);

    *out = NULL;
    if (fd < 0)
        return fd;
    w = xcalloc(1, sizeof(*w) + plen + 1);
    memcpy(w->path, path, plen + 1);
    w->fd = fd;
    w->is_regular = is_regular;
    if (put_line(w, header_json(info)) != 0 && w->error == 0)
        stop(w, -ENOMEM, "header");
    *out = w;
    return 0;
}

int record_write_tick(struct record_writer *w, const struct tick *t)
{
    int rc;

    if (w->error) {
        w->not_recorded++;
        return w->error;
    }
    rc = put_line(w, record__tick_to_json(t));
    if (rc == 0) {
        w->ticks++;
        return 0;
    }
    /* Too big or out of memory skips this tick only; a write error stopped w. */
    w->not_recorded++;
    return rc;
}

int record_writer_error(const struct record_writer *w, char *reason, size_t reason_len)
{
    if (reason && reason_len > 0)
        msg_set(reason, reason_len, "%s", w->reason);
    return w->error;
}

uint64_t record_writer_ticks(const struct record_writer *w)
{
    return w->ticks;
}

uint64_t record_writer_not_recorded(const struct record_writer *w)
{
    return w->not_recorded;
}

static json_t *trailer_json(const struct record_writer *w, const struct record_trailer_info *ti)
{
    json_t *o = json_object();
    int bad = !o;
    int is_complete = ti && ti->is_complete && ti->ticks_dropped == 0 && w->not_recorded == 0;

    bad |= json_object_set_new(o, "type", json_string("trailer"));
    bad |= json_object_set_new(o, "ticks", record__json_count(w->ticks));
    bad |= json_object_set_new(o, "complete", json_boolean(is_complete));
    bad |= json_object_set_new(o, "reason",
                               json_string(ti && ti->reason ? ti->reason
                                           : ti             ? ""
                                                            : "closed"));
    bad |= json_object_set_new(o, "end_wall_ms", record__json_count(ti ? ti->end_wall_ms : 0));
    bad |= json_object_set_new(o, "ticks_dropped", record__json_count(ti ? ti->ticks_dropped : 0));
    bad |= json_object_set_new(o, "ticks_not_recorded", record__json_count(w->not_recorded));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int record_close(struct record_writer *w, const struct record_trailer_info *trailer)
{
    int rc;

    if (!w)
        return 0;
    if (!w->error && put_line(w, trailer_json(w, trailer)) != 0 && !w->error)
        stop(w, -ENOMEM, "trailer");
    if (!w->error && w->is_regular && fdatasync(w->fd) != 0)
        stop(w, -errno, "fdatasync");
    if (close(w->fd) != 0 && !w->error)
        stop(w, -errno, "close");
    rc = w->error;
    free(w->buf);
    free(w);
    return rc;
}
