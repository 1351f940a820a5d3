/* regfile: only regular files are opened, and never with a blocking open. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/regfile.h"

/* A fresh path in a fresh directory; *dir is removed by the caller. */
static void temp_path(char *dir, size_t cap, char *path, size_t path_cap, const char *name)
{
    snprintf(dir, cap, "/tmp/test_regfile.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, path_cap, "%s/%s", dir, name);
}

static void regular_file_opens_and_reads(void **state)
{
    char dir[64], path[128], why[128] = "", buf[16] = "";
    FILE *f;

    (void)state;
    temp_path(dir, sizeof(dir), path, sizeof(path), "a.ini");
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("hello\n", f);
    fclose(f);
    assert_int_equal(regfile_open(path, 100, &f, why, sizeof(why)), 0);
    assert_non_null(fgets(buf, sizeof(buf), f));
    assert_string_equal(buf, "hello\n");
    fclose(f);
    unlink(path);
    rmdir(dir);
}

static void fifo_without_writer_is_refused_at_once(void **state)
{
    char dir[64], path[128], why[128];
    FILE *f;

    (void)state;
    temp_path(dir, sizeof(dir), path, sizeof(path), "fifo");
    assert_int_equal(mkfifo(path, 0600), 0);
    /* A blocking open would wait here for a writer forever. */
    assert_int_equal(regfile_open(path, 0, &f, why, sizeof(why)), -ENODEV);
    assert_null(f);
    assert_string_equal(why, "not a regular file");
    unlink(path);
    rmdir(dir);
}

static void device_and_directory_are_refused(void **state)
{
    char why[128];
    FILE *f;

    (void)state;
    assert_int_equal(regfile_open("/dev/zero", 0, &f, why, sizeof(why)), -ENODEV);
    assert_string_equal(why, "not a regular file");
    assert_int_equal(regfile_open("/tmp", 0, &f, why, sizeof(why)), -ENODEV);
    assert_null(f);
}

static void file_above_the_bound_is_refused(void **state)
{
    char dir[64], path[128], why[128];
    FILE *f;

    (void)state;
    temp_path(dir, sizeof(dir), path, sizeof(path), "big");
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("0123456789", f);
    fclose(f);
    assert_int_equal(regfile_open(path, 9, &f, why, sizeof(why)), -EFBIG);
    assert_string_equal(why, "larger than 9 bytes");
    assert_int_equal(regfile_open(path, 10, &f, why, sizeof(why)), 0);
    fclose(f);
    unlink(path);
    rmdir(dir);
}

static void missing_file_says_why(void **state)
{
    char why[128];
    FILE *f;

    (void)state;
    assert_int_equal(regfile_open("/nonexistent/x", 0, &f, why, sizeof(why)), -ENOENT);
    assert_string_equal(why, "cannot open: No such file or directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(regular_file_opens_and_reads),
        cmocka_unit_test(fifo_without_writer_is_refused_at_once),
        cmocka_unit_test(device_and_directory_are_refused),
        cmocka_unit_test(file_above_the_bound_is_refused),
        cmocka_unit_test(missing_file_says_why),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
