/* Session files against the system: a full disk, a size limit, an existing
 * file, what reaches the file, file names, and the recorder thread (TSan). */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "record_fixture.h"

static const struct record_header_info plain = {.start_wall_ms = 1, .host = "h"};

static size_t file_size(const char *path)
{
    struct stat st;

    assert_int_equal(stat(path, &st), 0);
    return (size_t)st.st_size;
}

/* Reads path to the end; returns the ticks, checks that no line was bad. */
static int count_ticks(const char *path, int *has_trailer)
{
    struct record_reader *r;
    struct record_end end;
    struct tick *t;
    char err[256];
    int n = 0;

    assert_int_equal(record_read_open(path, NULL, NULL, err, sizeof(err), &r), 0);
    while (record_read_next(r, &t) == 1) {
        n++;
        tick_free(t);
    }
    record_read_end(r, &end);
    assert_int_equal(end.lines_skipped, 0);
    assert_false(end.is_cut);
    *has_trailer = end.has_trailer;
    record_read_close(r);
    return n;
}

static void a_full_disk_stops_the_writer_and_counts_what_is_lost(void **state)
{
    struct record_writer *w;
    struct tick *t = fx_tick(1, 2, 500, 1);
    char err[256], reason[RECORD_REASON_MAX];

    (void)state;
    if (access("/dev/full", W_OK) != 0)
        skip();
    assert_int_equal(record_open("/dev/full", &plain, err, sizeof(err), &w), 0);
    assert_int_equal(record_writer_error(w, reason, sizeof(reason)), -ENOSPC);
    assert_string_equal(reason, "recording stopped: /dev/full: write: No space left on device");
    for (int i = 0; i < 5; i++)
        assert_int_equal(record_write_tick(w, t), -ENOSPC);
    assert_int_equal(record_writer_ticks(w), 0);
    assert_int_equal(record_writer_not_recorded(w), 5);
    assert_int_equal(record_close(w, NULL), -ENOSPC);
    tick_free(t);
}

/* A file size limit mid-run (EFBIG, SIGXFSZ blocked as the recorder does):
 * the file is cut back to its last complete line and stays readable. */
static void a_size_limit_leaves_a_file_readable_to_its_last_full_line(void **state)
{
    struct timespec zero = {0, 0};
    struct rlimit old, lim;
    sigset_t xfsz, old_mask;
    struct record_writer *w;
    struct tick *t = fx_tick(1, 2, 3000, 1);
    char path[128], err[256];
    int i, rc = 0, has_trailer;

    (void)state;
    fx_temp_path(path, sizeof(path), "efbig.jsonl");
    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &xfsz, &old_mask);
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 20000;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    assert_int_equal(record_open(path, &plain, err, sizeof(err), &w), 0);
    for (i = 0; i < 50 && rc == 0; i++)
        rc = record_write_tick(w, t);
    assert_int_equal(rc, -EFBIG);
    assert_int_equal(record_write_tick(w, t), -EFBIG);
    assert_int_equal(record_writer_not_recorded(w), 2);
    assert_int_equal(record_close(w, NULL), -EFBIG);
    setrlimit(RLIMIT_FSIZE, &old);
    /* The failing write left SIGXFSZ pending: take it before unblocking. */
    while (sigtimedwait(&xfsz, NULL, &zero) > 0)
        continue;
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    assert_true(file_size(path) <= 20000);
    assert_int_equal(count_ticks(path, &has_trailer), i - 1);
    assert_false(has_trailer);
    tick_free(t);
    unlink(path);
}

static void an_existing_file_is_never_overwritten(void **state)
{
    char path[128], link_path[160], err[256];
    struct record_writer *w = (struct record_writer *)&err;
    FILE *f;

    (void)state;
    fx_temp_path(path, sizeof(path), "exists.jsonl");
    f = fopen(path, "w");
    fputs("precious\n", f);
    fclose(f);
    assert_int_equal(record_open(path, &plain, err, sizeof(err), &w), -EEXIST);
    assert_null(w);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "never overwrites"));
    assert_int_equal(file_size(path), 9);
    /* Nor is a symbolic link followed, even to a file that does not exist. */
    fx_temp_path(link_path, sizeof(link_path), "link.jsonl");
    unlink(path);
    assert_int_equal(symlink(path, link_path), 0);
    assert_int_equal(record_open(link_path, &plain, err, sizeof(err), &w), -EEXIST);
    assert_int_equal(access(path, F_OK), -1);
    unlink(link_path);
}

static void a_new_file_is_private(void **state)
{
    char path[128], err[256];
    struct record_writer *w;
    struct stat st;

    (void)state;
    fx_temp_path(path, sizeof(path), "mode.jsonl");
    assert_int_equal(record_open(path, &plain, err, sizeof(err), &w), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(record_close(w, NULL), 0);
    assert_int_equal(record_open("/nonexistent-dir/x.jsonl", &plain, err, sizeof(err), &w),
                     -ENOENT);
    assert_non_null(strstr(err, "/nonexistent-dir/x.jsonl: cannot create the session file"));
    unlink(path);
}

/* The config text is the caller's to redact: the writer writes exactly what
 * it is given and reads nothing from the environment. */
static void the_writer_writes_what_it_is_given_and_nothing_from_the_environment(void **state)
{
    static const char canary[] = "CANARY-7f3a9c-secret";
    struct record_header_info hi = {.start_wall_ms = 1,
                                    .host = "h",
                                    .config_text = "[target]\nheader = X-Key: ${BRINK_CANARY}\n"};
    struct record_writer *w;
    struct tick *t = fx_tick(3, 2, 100, 1);
    char path[128], err[256];
    char *text;
    size_t len;
    FILE *f;

    (void)state;
    setenv("BRINK_CANARY", canary, 1);
    fx_temp_path(path, sizeof(path), "canary.jsonl");
    assert_int_equal(record_open(path, &hi, err, sizeof(err), &w), 0);
    assert_int_equal(record_write_tick(w, t), 0);
    assert_int_equal(record_close(w, NULL), 0);
    len = file_size(path);
    text = malloc(len + 1);
    f = fopen(path, "r");
    assert_int_equal(fread(text, 1, len, f), len);
    fclose(f);
    text[len] = '\0';
    assert_null(strstr(text, canary));
    assert_non_null(strstr(text, "X-Key: ${BRINK_CANARY}"));
    /* Raw strings stay raw but the file is ASCII: ESC is \u001b. */
    for (size_t i = 0; i < len; i++)
        assert_true((unsigned char)text[i] < 0x80 && (text[i] >= 0x20 || text[i] == '\n'));
    free(text);
    tick_free(t);
    unsetenv("BRINK_CANARY");
    unlink(path);
}

static void session_paths_are_new_names_in_a_private_directory(void **state)
{
    char dir[128], path[256], err[256];
    struct stat st;

    (void)state;
    fx_temp_path(dir, sizeof(dir), "sessions");
    rmdir(dir);
    assert_int_equal(record_session_path(dir, 1796067600000ULL, "lab/host 1", 4242, path,
                                         sizeof(path), err, sizeof(err)),
                     0);
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_non_null(strstr(path, "/2026-11-30T19-40-00Z-lab_host_1-4242.jsonl"));
    /* The same name alone: the run label of --metrics-listen. */
    assert_int_equal(record_session_name(1796067600000ULL, "lab/host 1", 4242, path, sizeof(path)),
                     0);
    assert_string_equal(path, "2026-11-30T19-40-00Z-lab_host_1-4242");
    assert_int_equal(record_session_name(0, "h", 1, path, 10), -ENAMETOOLONG);
    assert_int_equal(record_session_path(dir, 0, NULL, 1, path, 20, err, sizeof(err)),
                     -ENAMETOOLONG);
    assert_int_equal(
        record_session_path("/nonexistent-dir/s", 0, "h", 1, path, sizeof(path), err, sizeof(err)),
        -ENOENT);
    rmdir(dir);
}

struct producer {
    struct record_recorder *rec;
    int pushed;
    int refused;
};

static void *produce(void *arg)
{
    struct producer *p = arg;

    for (uint64_t i = 0; i < 400; i++) {
        struct tick *t = fx_tick(i, 2, 50, i % 3 == 0);

        if (record_recorder_push(p->rec, t) == 0)
            p->pushed++;
        else
            p->refused++;
        tick_free(t);
    }
    return NULL;
}

static void the_recorder_writes_what_a_thread_pushes_and_counts_overflow(void **state)
{
    struct record_trailer_info ti = {.is_complete = 1, .reason = "done"};
    struct producer p = {0};
    struct record_result mid, res;
    struct record_writer *w;
    pthread_t th;
    char path[128], err[256];
    int has_trailer;

    (void)state;
    fx_temp_path(path, sizeof(path), "recorder.jsonl");
    assert_int_equal(record_open(path, &plain, err, sizeof(err), &w), 0);
    assert_int_equal(record_recorder_start(w, 4, &p.rec), 0);
    assert_int_equal(pthread_create(&th, NULL, produce, &p), 0);
    record_recorder_status(p.rec, &mid);
    assert_int_equal(mid.error, 0);
    pthread_join(th, NULL);
    assert_int_equal(record_recorder_stop(p.rec, &ti, &res), 0);
    assert_int_equal(res.ticks_written, (uint64_t)p.pushed);
    assert_int_equal(res.ticks_dropped, (uint64_t)p.refused);
    assert_int_equal(p.pushed + p.refused, 400);
    assert_int_equal(count_ticks(path, &has_trailer), p.pushed);
    assert_true(has_trailer);
    printf("# recorder: %d written, %d dropped with a queue of 4\n", p.pushed, p.refused);
    unlink(path);
}

static void a_recorder_on_a_full_disk_reports_why_and_keeps_taking_ticks(void **state)
{
    struct record_writer *w;
    struct record_recorder *rec;
    struct record_result res;
    struct tick *t = fx_tick(0, 1, 100, 0);
    char err[256];
    int accepted = 0;

    (void)state;
    if (access("/dev/full", W_OK) != 0)
        skip();
    assert_int_equal(record_open("/dev/full", &plain, err, sizeof(err), &w), 0);
    assert_int_equal(record_recorder_start(w, 64, &rec), 0);
    for (int i = 0; i < 20; i++)
        accepted += record_recorder_push(rec, t) == 0;
    assert_int_equal(record_recorder_stop(rec, NULL, &res), -ENOSPC);
    assert_int_equal(res.ticks_written, 0);
    assert_int_equal(res.ticks_not_recorded + res.ticks_dropped, 20);
    assert_int_equal(res.ticks_not_recorded, (uint64_t)accepted);
    assert_non_null(strstr(res.reason, "recording stopped: /dev/full: write: No space left"));
    assert_int_equal(record_recorder_stop(NULL, NULL, NULL), 0);
    tick_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_full_disk_stops_the_writer_and_counts_what_is_lost),
        cmocka_unit_test(a_size_limit_leaves_a_file_readable_to_its_last_full_line),
        cmocka_unit_test(an_existing_file_is_never_overwritten),
        cmocka_unit_test(a_new_file_is_private),
        cmocka_unit_test(the_writer_writes_what_it_is_given_and_nothing_from_the_environment),
        cmocka_unit_test(session_paths_are_new_names_in_a_private_directory),
        cmocka_unit_test(the_recorder_writes_what_a_thread_pushes_and_counts_overflow),
        cmocka_unit_test(a_recorder_on_a_full_disk_reports_why_and_keeps_taking_ticks),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
