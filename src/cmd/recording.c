/*
 * recording: a run's session file, wired to the run: where it goes ([record]
 * dir, --record FILE, --no-record), what its header holds (the effective
 * config as `brink check` prints it: ${ENV} references as written, secrets
 * redacted), the recorder thread that writes it off the console's thread,
 * and what the console and the exit status learn when it fails.
 */
#include "cmd/recording.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "core/clock.h"
#include "core/msg.h"
#include "core/xalloc.h"
#include "record/record.h"
#include "cmd/sessions.h"

#define QUEUE_TICKS 256 /* ticks the recorder may lag behind */
#define CONFIG_TEXT_MAX (1u << 20)

struct recording {
    /* Guards rec: the session may be closed (recording_close) by the
     * signal thread while the front end or the coordinator pushes. */
    pthread_mutex_t lock;
    struct record_recorder *rec; /* NULL once closed */
    char path[1024];
    char problem[RECORD_REASON_MAX]; /* "" or "recording stopped: ..." */
};

/* The config as `brink check` writes it, as one string (the caller frees). */
static char *config_text(const struct config *c)
{
    FILE *f = tmpfile();
    char *text;
    size_t n;

    if (!f)
        return xstrdup("");
    if (config_write(c, f) != 0 || fflush(f) != 0) {
        fclose(f);
        return xstrdup("");
    }
    text = xmalloc(CONFIG_TEXT_MAX + 1);
    rewind(f);
    n = fread(text, 1, CONFIG_TEXT_MAX, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* The folder of a new session: [record] dir as set, else the per-user
 * state directory (made 0700 when missing), so that a one-liner leaves no
 * file where it ran. */
static int choose_dir(const struct config *c, char *dir, size_t cap, char *err, size_t err_len)
{
    char why[512];
    int rc;

    if (c->record.key_line[CONFIG_RECORD_DIR]) {
        snprintf(dir, cap, "%s", c->record.dir.value ? c->record.dir.value : SESSIONS_DEFAULT_DIR);
        return 0;
    }
    rc = sessions_state_dir(dir, cap, 1, why, sizeof(why));
    if (rc != 0)
        msg_set(err, err_len, "brink: run: recording: %s", why);
    return rc;
}

static int choose_path(const struct config *c, const char *path, struct recording *r, char *err,
                       size_t err_len)
{
    char host[256] = "", dir[1024];
    int rc;

    if (path) {
        snprintf(r->path, sizeof(r->path), "%s", path);
        return 0;
    }
    if ((rc = choose_dir(c, dir, sizeof(dir), err, err_len)) != 0)
        return rc;
    gethostname(host, sizeof(host) - 1);
    return record_session_path(dir, clock_wall_ms(), host, (long)getpid(), r->path, sizeof(r->path),
                               err, err_len);
}

int recording_start(const struct config *c, const struct record_header_info *run, const char *path,
                    int is_off, char *err, size_t err_len, struct recording **out)
{
    struct record_header_info info = *run;
    struct recording *r;
    struct record_writer *w = NULL;
    char host[256] = "", detail[512] = "";
    int rc;

    *out = NULL;
    if (is_off || (!path && !c->record.enabled))
        return 0;
    r = xcalloc(1, sizeof(*r));
    rc = choose_path(c, path, r, detail, sizeof(detail));
    if (rc == 0) {
        gethostname(host, sizeof(host) - 1);
        info.host = host;
        info.config_text = config_text(c);
        rc = record_open(r->path, &info, detail, sizeof(detail), &w);
        free((char *)info.config_text);
    }
    if (rc == 0)
        rc = record_recorder_start(w, QUEUE_TICKS, &r->rec);
    if (rc != 0) {
        if (w && !r->rec)
            record_close(w, NULL);
        /* The record module says what failed in a whole line; only a
         * thread that would not start leaves it to us. */
        if (detail[0])
            snprintf(err, err_len, "%s (--no-record runs without a recording)", detail);
        else
            snprintf(err, err_len, "brink: run: recording: starting its thread: %s",
                     msg_errno(-rc).text);
        free(r);
        return rc;
    }
    pthread_mutex_init(&r->lock, NULL);
    *out = r;
    return 0;
}

void recording_push(struct recording *r, const struct tick *t)
{
    struct record_result res;

    if (!r)
        return;
    pthread_mutex_lock(&r->lock);
    if (!r->rec) {
        pthread_mutex_unlock(&r->lock);
        return;
    }
    record_recorder_push(r->rec, t);
    if (!r->problem[0]) {
        record_recorder_status(r->rec, &res);
        if (res.error)
            snprintf(r->problem, sizeof(r->problem), "%s", res.reason);
        else if (res.ticks_dropped)
            snprintf(r->problem, sizeof(r->problem),
                     "recording fell behind: %llu ticks not recorded",
                     (unsigned long long)res.ticks_dropped);
    }
    pthread_mutex_unlock(&r->lock);
}

void recording_push_agent(struct recording *r, const struct tick *t)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->lock);
    if (r->rec)
        record_recorder_push(r->rec, t);
    pthread_mutex_unlock(&r->lock);
}

const char *recording_path(const struct recording *r)
{
    return r ? r->path : NULL;
}

const char *recording_run_id(const struct recording *r, char *buf, size_t cap)
{
    char host[256] = "";
    const char *name;
    size_t n;

    if (!r) {
        gethostname(host, sizeof(host) - 1);
        record_session_name(clock_wall_ms(), host, (long)getpid(), buf, cap);
        return buf;
    }
    name = strrchr(r->path, '/');
    name = name ? name + 1 : r->path;
    n = strlen(name);
    if (n > 6 && strcmp(name + n - 6, ".jsonl") == 0)
        n -= 6;
    snprintf(buf, cap, "%.*s", (int)n, name);
    return buf;
}

const char *recording_problem(const struct recording *r)
{
    return r ? r->problem : "";
}

int recording_close(struct recording *r, int is_complete, const char *reason)
{
    struct record_trailer_info t = {
        .is_complete = is_complete, .reason = reason, .end_wall_ms = clock_wall_ms()};
    struct record_result res;
    int rc;

    if (!r)
        return 0;
    pthread_mutex_lock(&r->lock);
    if (!r->rec) {
        pthread_mutex_unlock(&r->lock);
        return 0;
    }
    rc = record_recorder_stop(r->rec, &t, &res);
    r->rec = NULL;
    pthread_mutex_unlock(&r->lock);
    if (rc || res.ticks_dropped || res.ticks_not_recorded) {
        msg_print(stderr, "brink: run: the recording %s is incomplete: %s", r->path,
                  res.reason[0] ? res.reason : "ticks were dropped");
        rc = rc ? rc : -EIO;
    } else {
        msg_print(stderr, "brink: run: recorded %llu ticks in %s",
                  (unsigned long long)res.ticks_written, r->path);
    }
    return rc;
}

int recording_stop(struct recording *r, int is_complete, const char *reason)
{
    int rc = recording_close(r, is_complete, reason);

    if (r) {
        pthread_mutex_destroy(&r->lock);
        free(r);
    }
    return rc;
}

void recording_discard(struct recording *r)
{
    if (!r)
        return;
    record_recorder_stop(r->rec, NULL, NULL);
    unlink(r->path);
    pthread_mutex_destroy(&r->lock);
    free(r);
}
