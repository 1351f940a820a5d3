#include "cmd/sessions.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/opts.h"
#include "cli/tables.h"
#include "core/exitcode.h"
#include "core/msg.h"
#include "core/steps.h"
#include "core/tick.h"
#include "core/xalloc.h"
#include "record/record.h"
#include "report/formats.h"
#include "report/summary.h"
#include "cmd/verdicts.h"

#define PATH_MAX_BYTES 1024
#define MAX_DIRS 16 /* folders brink sessions lists */

/* mkdir -p, each new folder 0700. */
static int make_dirs(char *path)
{
    for (char *p = path + 1;; p++) {
        char was = *p;

        if (was != '/' && was != '\0')
            continue;
        *p = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            int e = errno;

            *p = was;
            return -e;
        }
        *p = was;
        if (was == '\0')
            return 0;
    }
}

int sessions_state_dir(char *buf, size_t cap, int is_create, char *err, size_t err_len)
{
    const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    int n, rc;

    /* The XDG base directory spec ignores a relative XDG_STATE_HOME. */
    if (state && state[0] == '/')
        n = snprintf(buf, cap, "%s/brink/sessions", state);
    else if (home && home[0] == '/')
        n = snprintf(buf, cap, "%s/.local/state/brink/sessions", home);
    else {
        msg_set(err, err_len, "no state directory (HOME and XDG_STATE_HOME are not set)");
        return -ENOENT;
    }
    if (n < 0 || (size_t)n >= cap) {
        msg_set(err, err_len, "the state directory's name is too long");
        return -ENAMETOOLONG;
    }
    if (is_create && (rc = make_dirs(buf)) != 0) {
        msg_set(err, err_len, "%s: cannot create it: %s", buf, msg_errno(-rc).text);
        return rc;
    }
    return 0;
}

/* One session file found. */
struct entry {
    char *path;
    struct timespec mtime;
};

struct list {
    struct entry *e;
    size_t n, cap;
};

static int is_session_name(const char *name)
{
    size_t n = strlen(name);

    return name[0] != '.' && n > 6 && strcmp(name + n - 6, ".jsonl") == 0;
}

/* Adds dir's *.jsonl regular files to l; a missing dir adds nothing.
 * Returns 0 or a negative errno (dir cannot be read). */
static int scan(const char *dir, struct list *l)
{
    DIR *d = opendir(dir);
    struct dirent *de;

    if (!d)
        return errno == ENOENT ? 0 : -errno;
    while ((de = readdir(d)) != NULL) {
        char path[PATH_MAX_BYTES];
        struct stat st;
        int n;

        if (!is_session_name(de->d_name))
            continue;
        n = snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if (n < 0 || (size_t)n >= sizeof(path) || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 64;
            l->e = xrealloc(l->e, l->cap * sizeof(*l->e));
        }
        l->e[l->n++] = (struct entry){xstrdup(path), st.st_mtim};
    }
    closedir(d);
    return 0;
}

/* Oldest first: the newest is printed last, next to the prompt. */
static int by_mtime(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;

    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->path, y->path);
}

static void list_free(struct list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->e[i].path);
    free(l->e);
}

/* The default folders: the state directory, where runs record by default,
 * then sessions/ here (where earlier versions recorded). Returns how many,
 * at most 2. */
static size_t default_dirs(char dirs[][PATH_MAX_BYTES])
{
    char err[256];
    size_t n = 0;

    if (sessions_state_dir(dirs[n], PATH_MAX_BYTES, 0, err, sizeof(err)) == 0)
        n++;
    snprintf(dirs[n++], PATH_MAX_BYTES, "%s", SESSIONS_DEFAULT_DIR);
    return n;
}

/* "url = X" of [target] in a recorded configuration, into out. */
static void target_of(const char *config_text, char *out, size_t cap)
{
    const char *s = strstr(config_text, "[target]\n");

    snprintf(out, cap, "-");
    for (const char *line = s; line && *line;
         line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (line != s && line[0] == '[')
            return;
        if (strncmp(line, "url = ", 6) == 0) {
            const char *end = strchr(line, '\n');

            snprintf(out, cap, "%.*s", (int)(end ? end - line - 6 : (long)strlen(line + 6)),
                     line + 6);
            return;
        }
    }
}

/* One row of brink sessions for path. */
static void print_row(const char *path, FILE *out)
{
    struct record_reader *r;
    struct summary *s;
    struct steps *st;
    struct summary_totals total;
    struct report_verdicts v;
    struct config_rules rules;
    struct record_end end;
    struct tick *t;
    char err[512], when[32] = "-", target[512], dur[32];
    time_t secs;
    struct tm tm;
    int rc;

    if (record_read_open(path, NULL, NULL, err, sizeof(err), &r) != 0) {
        msg_print(out, "%-20s  %-40s  %8s  %9s  %-8s  %s", "-", "-", "-", "-", "unread", path);
        return;
    }
    secs = (time_t)(record_read_header(r)->start_wall_ms / 1000);
    if (gmtime_r(&secs, &tm))
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%SZ", &tm);
    target_of(record_read_header(r)->config_text, target, sizeof(target));
    if (verdicts_rules("sessions", record_read_header(r)->config_text, NULL, &rules) != 0)
        rules.n_rules = 0;
    s = summary_new();
    st = steps_new();
    while ((rc = record_read_next(r, &t)) > 0) {
        summary_add_tick(s, t);
        steps_add_tick(st, t);
        tick_free(t);
    }
    steps_finish(st);
    record_read_end(r, &end);
    summary_totals(s, SUMMARY_TOTAL, &total);
    verdicts_judge(&rules, st, &v);
    snprintf(dur, sizeof(dur), "%.1fs", (double)summary_duration_us(s) / 1e6);
    if (strlen(target) > 40)
        memcpy(target + 37, "...", 4);
    msg_print(out, "%-20s  %-40s  %8s  %9llu  %-8s  %s", when, target, dur,
              (unsigned long long)total.completed,
              rc < 0 || !end.has_trailer    ? "cut"
              : v.n_failed + v.steps_failed ? "fail"
                                            : "pass",
              path);
    summary_free(s);
    steps_free(st);
    record_read_close(r);
}

int sessions_main(int argc, char **argv)
{
    struct opts_parser p;
    struct opts_item it;
    char dirs[MAX_DIRS][PATH_MAX_BYTES], err[OPTS_ERR_MAX];
    size_t n_dirs = 0;
    struct list l = {0};
    int rc, status = BRINK_EXIT_OK;

    opts_start(&p, &cli_sessions, argc, argv);
    while ((rc = opts_next(&p, &it, err, sizeof(err))) != 0) {
        if (rc < 0)
            return opts_fail(&cli_sessions, stderr, "%s", err);
        if (n_dirs == MAX_DIRS)
            return opts_fail(&cli_sessions, stderr, "more than %d folders", MAX_DIRS);
        snprintf(dirs[n_dirs++], PATH_MAX_BYTES, "%s", it.value);
    }
    if (n_dirs == 0)
        n_dirs = default_dirs(dirs);
    for (size_t i = 0; i < n_dirs; i++) {
        if ((rc = scan(dirs[i], &l)) != 0) {
            msg_print(stderr, "brink: sessions: %s: %s", dirs[i], msg_errno(-rc).text);
            status = BRINK_EXIT_RUNTIME;
        }
    }
    if (l.n == 0) {
        msg_print(stderr, "brink: sessions: no session files in %s%s%s", dirs[0],
                  n_dirs > 1 ? " or " : "", n_dirs > 1 ? dirs[1] : "");
        list_free(&l);
        return status;
    }
    qsort(l.e, l.n, sizeof(*l.e), by_mtime);
    printf("%-20s  %-40s  %8s  %9s  %-8s  %s\n", "when (UTC)", "target", "duration", "requests",
           "verdict", "file");
    for (size_t i = 0; i < l.n; i++)
        print_row(l.e[i].path, stdout);
    list_free(&l);
    if (fflush(stdout) != 0 || ferror(stdout))
        status = BRINK_EXIT_RUNTIME;
    return status;
}

int sessions_resolve_last(const struct opts_table *t, int argc, char **argv)
{
    static char last[PATH_MAX_BYTES];
    char dirs[2][PATH_MAX_BYTES], err[OPTS_ERR_MAX];
    struct opts_parser p;
    struct opts_item it;
    struct list l = {0};
    size_t n_dirs;
    int rc;

    opts_start(&p, t, argc, argv);
    while ((rc = opts_next(&p, &it, err, sizeof(err))) != 0) {
        if (rc < 0 || it.id != OPTS_OPERAND || strcmp(it.value, "last") != 0)
            continue;
        if (!last[0]) {
            n_dirs = default_dirs(dirs);
            for (size_t i = 0; i < n_dirs; i++)
                (void)scan(dirs[i], &l);
            if (l.n == 0) {
                msg_print(stderr, "brink: %s: last: no session files in %s%s%s", t->name, dirs[0],
                          n_dirs > 1 ? " or " : "", n_dirs > 1 ? dirs[1] : "");
                list_free(&l);
                return BRINK_EXIT_RUNTIME;
            }
            qsort(l.e, l.n, sizeof(*l.e), by_mtime);
            snprintf(last, sizeof(last), "%s", l.e[l.n - 1].path);
            list_free(&l);
        }
        /* The operand just taken is argv[p.i - 1]. */
        argv[p.i - 1] = last;
    }
    return 0;
}
