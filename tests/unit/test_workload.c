#include "engine/workload.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "config/config.h"

#define TARGET "[target]\nurl = http://h.test/\n"
#define SEED 20240611u
#define ERR_MAX 512
#define DRAWS 100000

/*
 * Chi-square critical value for 9 degrees of freedom at p = 0.001: an
 * unbiased generator goes above it once in a thousand seeds. The seeds here
 * are fixed, so a passing test passes every time; a biased draw (modulo
 * bias over a small range, an end of the range never drawn, a weight off by
 * one) lands in the hundreds or thousands.
 */
#define CHI2_DF9_P001 27.88

/* Loads text, which must be a good config, as "/tmp/t.ini". */
static void load(struct config *c, const char *text)
{
    char *msg;
    size_t len;
    FILE *err = open_memstream(&msg, &len);
    int rc;

    assert_non_null(err);
    config_init(c);
    rc = config_load_string(c, "/tmp/t.ini", text, NULL, err);
    fclose(err);
    if (rc != 0)
        print_error("config errors:\n%s", msg);
    assert_int_equal(rc, 0);
    free(msg);
}

/* Compiles text with seed; the config is freed at once, which the workload
 * must survive. */
static struct workload *compile(const char *text, uint64_t seed)
{
    struct config c;
    struct workload *w = NULL;
    char err[ERR_MAX];
    int rc;

    load(&c, text);
    rc = workload_new(&c, seed, err, sizeof(err), &w);
    config_free(&c);
    if (rc != 0)
        print_error("workload_new: %s\n", err);
    assert_int_equal(rc, 0);
    assert_string_equal(err, "");
    assert_non_null(w);
    return w;
}

/* Expands kind 0 of w into buf (WORKLOAD_URL_MAX bytes). */
static const char *url_of(const struct workload *w, uint64_t seq, uint32_t vu, uint64_t *rng,
                          char *buf)
{
    int n = workload_url(w, 0, seq, vu, rng, buf, WORKLOAD_URL_MAX);

    assert_true(n >= 0);
    assert_int_equal((size_t)n, strlen(buf));
    return buf;
}

static double chi_square(const unsigned *counts, const double *expected, size_t n)
{
    double sum = 0;

    for (size_t i = 0; i < n; i++) {
        double d = counts[i] - expected[i];

        sum += d * d / expected[i];
    }
    return sum;
}

static void a_config_without_requests_has_one_default_get_kind(void **state)
{
    struct workload *w =
        compile("[target]\nurl = http://h.test/x\ntimeout = 7s\nheader = A: 1\n", SEED);
    const struct workload_kind *k;
    char buf[WORKLOAD_URL_MAX];
    uint64_t rng = 1;

    (void)state;
    assert_int_equal(workload_n_kinds(w), 1);
    k = workload_kind(w, 0);
    assert_string_equal(k->name, "default");
    assert_string_equal(k->method, "GET");
    assert_int_equal(k->timeout_us, 7000000);
    assert_int_equal(k->weight, 1);
    assert_int_equal(k->n_headers, 1);
    assert_string_equal(k->headers[0], "A: 1");
    assert_null(k->body);
    assert_int_equal(k->body_len, 0);
    assert_string_equal(url_of(w, 1, 1, &rng, buf), "http://h.test/x");
    workload_free(w);
}

static void target_headers_come_first_then_the_request_ones_in_file_order(void **state)
{
    struct workload *w = compile("[target]\nurl = http://h.test/\nheader = A: 1\nheader = B: 2\n"
                                 "[request one]\nheader = C: 3\nheader = D: 4\n"
                                 "[request two]\n",
                                 SEED);
    const struct workload_kind *one, *two;

    (void)state;
    assert_int_equal(workload_n_kinds(w), 2);
    one = workload_kind(w, 0);
    two = workload_kind(w, 1);
    assert_int_equal(one->n_headers, 4);
    assert_string_equal(one->headers[0], "A: 1");
    assert_string_equal(one->headers[1], "B: 2");
    assert_string_equal(one->headers[2], "C: 3");
    assert_string_equal(one->headers[3], "D: 4");
    assert_int_equal(two->n_headers, 2);
    assert_string_equal(two->headers[0], "A: 1");
    assert_string_equal(two->headers[1], "B: 2");
    workload_free(w);
}

static void request_kinds_keep_name_method_timeout_weight_and_url(void **state)
{
    struct workload *w = compile("[target]\nurl = http://h.test/base/\ntimeout = 9s\n"
                                 "[request find]\nmethod = PROPFIND\nweight = 3\nurl = /dav\n"
                                 "[request slow]\ntimeout = 250ms\nurl = http://other.test/s\n",
                                 SEED);
    const struct workload_kind *find = workload_kind(w, 0), *slow = workload_kind(w, 1);
    char buf[WORKLOAD_URL_MAX];
    uint64_t rng = 1;

    (void)state;
    assert_string_equal(find->name, "find");
    assert_string_equal(find->method, "PROPFIND");
    assert_int_equal(find->weight, 3);
    assert_int_equal(find->timeout_us, 9000000);
    assert_string_equal(slow->name, "slow");
    assert_string_equal(slow->method, "GET");
    assert_int_equal(slow->weight, 1);
    assert_int_equal(slow->timeout_us, 250000);
    assert_int_equal(workload_url(w, 0, 0, 0, &rng, buf, sizeof(buf)), 22);
    assert_string_equal(buf, "http://h.test/base/dav");
    assert_true(workload_url(w, 1, 0, 0, &rng, buf, sizeof(buf)) > 0);
    assert_string_equal(buf, "http://other.test/s");
    workload_free(w);
}

static void each_kind_carries_its_expect_set(void **state)
{
    struct workload *w = compile("[target]\nexpect = 200, 404\n"
                                 "[request get]\nurl = http://h.test/kv/{seq}\n"
                                 "[request put]\nurl = http://h.test/kv/1\nexpect = 2xx\n",
                                 SEED);
    struct workload *def = compile(TARGET, SEED);
    struct workload *only = compile(TARGET "expect = 404\n", SEED);

    (void)state;
    assert_true(status_set_has(&workload_kind(w, 0)->expect, 404));
    assert_false(status_set_has(&workload_kind(w, 0)->expect, 204));
    assert_true(status_set_has(&workload_kind(w, 1)->expect, 204));
    assert_false(status_set_has(&workload_kind(w, 1)->expect, 404));
    /* The default kind takes [target] expect, 100-399 unless set. */
    assert_true(status_set_has(&workload_kind(def, 0)->expect, 302));
    assert_false(status_set_has(&workload_kind(def, 0)->expect, 404));
    assert_true(status_set_has(&workload_kind(only, 0)->expect, 404));
    assert_false(status_set_has(&workload_kind(only, 0)->expect, 200));
    workload_free(w);
    workload_free(def);
    workload_free(only);
}

static void seq_and_vu_are_written_in_decimal_without_drawing(void **state)
{
    struct workload *w = compile("[target]\nurl = http://h.test/{seq}/u{vu}/{seq}\n", SEED);
    char buf[WORKLOAD_URL_MAX];
    uint64_t rng = 5;

    (void)state;
    assert_string_equal(url_of(w, 0, 0, &rng, buf), "http://h.test/0/u0/0");
    assert_string_equal(url_of(w, 42, 7, &rng, buf), "http://h.test/42/u7/42");
    assert_string_equal(url_of(w, UINT64_MAX, UINT32_MAX, &rng, buf),
                        "http://h.test/18446744073709551615/u4294967295/18446744073709551615");
    assert_int_equal(rng, 5);
    workload_free(w);
}

static void rand_stays_within_its_bounds_and_reaches_both_ends(void **state)
{
    struct workload *w = compile("[target]\nurl = http://h.test/{rand:-3..3}\n", SEED);
    char buf[WORKLOAD_URL_MAX];
    unsigned seen[7] = {0};
    uint64_t rng = SEED;

    (void)state;
    for (int i = 0; i < 10000; i++) {
        char *end;
        long v = strtol(url_of(w, 0, 0, &rng, buf) + strlen("http://h.test/"), &end, 10);

        assert_int_equal(*end, '\0');
        assert_true(v >= -3 && v <= 3);
        seen[v + 3]++;
    }
    for (int i = 0; i < 7; i++)
        assert_true(seen[i] > 0);
    workload_free(w);
}

static void rand_with_equal_bounds_is_that_number(void **state)
{
    struct workload *w =
        compile("[target]\nurl = http://h.test/{rand:7..7}/{rand:-9223372036854775808"
                "..-9223372036854775808}\n",
                SEED);
    char buf[WORKLOAD_URL_MAX];
    uint64_t rng = SEED;

    (void)state;
    for (int i = 0; i < 100; i++)
        assert_string_equal(url_of(w, 0, 0, &rng, buf), "http://h.test/7/-9223372036854775808");
    workload_free(w);
}

static void rand_over_all_of_int64_gives_both_signs_in_range(void **state)
{
    struct workload *w = compile(
        "[target]\nurl = http://h.test/{rand:-9223372036854775808..9223372036854775807}\n", SEED);
    char buf[WORKLOAD_URL_MAX];
    unsigned negative = 0;
    uint64_t rng = SEED;

    (void)state;
    for (int i = 0; i < 1000; i++) {
        const char *s = url_of(w, 0, 0, &rng, buf) + strlen("http://h.test/");
        char *end;

        errno = 0;
        (void)strtoll(s, &end, 10);
        assert_int_equal(errno, 0);
        assert_int_equal(*end, '\0');
        negative += s[0] == '-';
    }
    /* Half of them, give or take 10 standard deviations (16). */
    assert_true(negative > 340 && negative < 660);
    workload_free(w);
}

static void rand_is_roughly_uniform(void **state)
{
    struct workload *w = compile("[target]\nurl = http://h.test/{rand:10..19}\n", SEED);
    char buf[WORKLOAD_URL_MAX];
    unsigned counts[10] = {0};
    double expected[10];
    uint64_t rng = SEED;

    (void)state;
    for (int i = 0; i < DRAWS; i++) {
        long v = strtol(url_of(w, 0, 0, &rng, buf) + strlen("http://h.test/"), NULL, 10);

        assert_true(v >= 10 && v <= 19);
        counts[v - 10]++;
    }
    for (int i = 0; i < 10; i++)
        expected[i] = DRAWS / 10.0;
    assert_true(chi_square(counts, expected, 10) < CHI2_DF9_P001);
    workload_free(w);
}

static int is_lower_hex(char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
}

static void uuid_is_a_lower_case_version_4_uuid(void **state)
{
    struct workload *w = compile("[target]\nurl = http://h.test/{uuid}\n", SEED);
    char buf[WORKLOAD_URL_MAX], first[64];
    uint64_t rng = SEED;

    (void)state;
    for (int i = 0; i < 1000; i++) {
        const char *u = url_of(w, 0, 0, &rng, buf) + strlen("http://h.test/");

        assert_int_equal(strlen(u), 36);
        for (int j = 0; j < 36; j++) {
            if (j == 8 || j == 13 || j == 18 || j == 23)
                assert_int_equal(u[j], '-');
            else
                assert_true(is_lower_hex(u[j]));
        }
        assert_int_equal(u[14], '4');           /* version: random */
        assert_non_null(strchr("89ab", u[19])); /* variant: RFC 4122 */
        if (i == 0)
            strcpy(first, u);
        else
            assert_string_not_equal(first, u);
    }
    workload_free(w);
}

static void placeholders_and_text_alternate_in_order(void **state)
{
    struct workload *w =
        compile("[target]\nurl = http://h.test/a{seq}b{vu}c{rand:5..5}d{uuid}e?x={seq}\n", SEED);
    char buf[WORKLOAD_URL_MAX];
    const char *u;
    uint64_t rng = SEED;

    (void)state;
    u = url_of(w, 12, 34, &rng, buf);
    assert_int_equal(strncmp(u, "http://h.test/a12b34c5d", 23), 0);
    assert_int_equal(u[23 + 14], '4');
    assert_string_equal(u + 23 + 36, "e?x=12");
    workload_free(w);
}

static void a_url_that_does_not_fit_is_enospc_and_empty(void **state)
{
    struct workload *w = compile("[target]\nurl = http://h.test/{seq}\n", SEED);
    char buf[32];
    uint64_t rng = SEED;

    (void)state;
    /* "http://h.test/12345" is 19 bytes and needs 20 with its NUL. */
    assert_int_equal(workload_url(w, 0, 12345, 0, &rng, buf, 20), 19);
    assert_string_equal(buf, "http://h.test/12345");
    assert_int_equal(workload_url(w, 0, 12345, 0, &rng, buf, 19), -ENOSPC);
    assert_string_equal(buf, "");
    strcpy(buf, "x");
    assert_int_equal(workload_url(w, 0, 1, 0, &rng, buf, 14), -ENOSPC);
    assert_string_equal(buf, "");
    assert_int_equal(workload_url(w, 0, 1, 0, &rng, buf, 1), -ENOSPC);
    assert_string_equal(buf, "");
    strcpy(buf, "x");
    assert_int_equal(workload_url(w, 0, 1, 0, &rng, buf, 0), -ENOSPC);
    assert_string_equal(buf, "x");
    workload_free(w);
}

/* A config whose [target] url is "http://h.test/" followed by n_uuid
 * {uuid}, n_x "x" and tail; written into text (BIG bytes). */
#define BIG 4096
static void long_template(char *text, int n_uuid, int n_x, const char *tail)
{
    size_t n = (size_t)snprintf(text, BIG, "[target]\nurl = http://h.test/");

    for (int i = 0; i < n_uuid; i++)
        n += (size_t)snprintf(text + n, BIG - n, "{uuid}");
    for (int i = 0; i < n_x; i++)
        text[n++] = 'x';
    snprintf(text + n, BIG - n, "%s\n", tail);
}

static void a_template_whose_longest_expansion_fits_always_expands(void **state)
{
    char text[BIG], buf[WORKLOAD_URL_MAX];
    struct workload *w;
    uint64_t rng = SEED;

    (void)state;
    /* 14 + 226 * 36 + 11 + 20 + 10 = 8191 bytes, and the NUL. */
    long_template(text, 226, 11, "{seq}{vu}");
    w = compile(text, SEED);
    assert_int_equal(workload_url(w, 0, UINT64_MAX, UINT32_MAX, &rng, buf, sizeof(buf)),
                     WORKLOAD_URL_MAX - 1);
    workload_free(w);
}

static void a_template_that_could_expand_past_the_maximum_is_refused(void **state)
{
    char text[BIG], err[ERR_MAX];
    struct workload *w = NULL;
    struct config c;

    (void)state;
    long_template(text, 226, 12, "{seq}{vu}");
    load(&c, text);
    assert_int_equal(workload_new(&c, SEED, err, sizeof(err), &w), -EINVAL);
    assert_null(w);
    assert_string_equal(err, "brink: [target] url: expands to up to 8192 bytes, more than the "
                             "8191 accepted (use fewer or shorter placeholders)");
    config_free(&c);
}

static void a_negative_rand_bound_counts_its_minus_sign(void **state)
{
    char text[BIG], err[ERR_MAX];
    struct workload *w = NULL;
    struct config c;

    (void)state;
    /* 14 + 227 * 36 + 1 = 8187 bytes before the {rand}: "-1000" makes 8192,
     * too long, while "1000" or "-99" would make 8191. */
    long_template(text, 227, 1, "{rand:-1000..99}");
    load(&c, text);
    assert_int_equal(workload_new(&c, SEED, err, sizeof(err), &w), -EINVAL);
    config_free(&c);
    long_template(text, 227, 1, "{rand:-99..1000}");
    w = compile(text, SEED);
    workload_free(w);
}

static void weights_1_to_9_are_drawn_in_proportion(void **state)
{
    struct workload *w = compile(TARGET "[request rare]\nweight = 1\n"
                                        "[request common]\nweight = 9\n",
                                 SEED);
    unsigned counts[2] = {0};
    uint64_t rng = SEED;

    (void)state;
    for (int i = 0; i < DRAWS; i++) {
        size_t k = workload_pick(w, &rng);

        assert_true(k < 2);
        counts[k]++;
    }
    /* Binomial: mean 10000, standard deviation sqrt(100000 * 0.1 * 0.9) =
     * 94.9. 500 is 5.3 of them: never reached by chance for a fixed seed,
     * while weights 2:8 or 1:10 (an off-by-one) miss by 900 or more. */
    assert_true(counts[0] > 10000 - 500 && counts[0] < 10000 + 500);
    assert_int_equal(counts[0] + counts[1], DRAWS);
    workload_free(w);
}

static void each_kind_is_drawn_by_its_share_of_the_weights(void **state)
{
    /* Ten kinds with weights 1..10, so every boundary of the binary search
     * is crossed; chi-square with 9 degrees of freedom. */
    static const char text[] =
        TARGET "[request k1]\nweight = 1\n[request k2]\nweight = 2\n[request k3]\nweight = 3\n"
               "[request k4]\nweight = 4\n[request k5]\nweight = 5\n[request k6]\nweight = 6\n"
               "[request k7]\nweight = 7\n[request k8]\nweight = 8\n[request k9]\nweight = 9\n"
               "[request k10]\nweight = 10\n";
    struct workload *w = compile(text, SEED);
    unsigned counts[10] = {0};
    double expected[10];
    uint64_t rng = SEED;

    (void)state;
    for (int i = 0; i < DRAWS; i++)
        counts[workload_pick(w, &rng)]++;
    for (int i = 0; i < 10; i++)
        expected[i] = DRAWS * (i + 1) / 55.0;
    assert_true(chi_square(counts, expected, 10) < CHI2_DF9_P001);
    workload_free(w);
}

static void one_kind_is_always_picked_without_drawing(void **state)
{
    struct workload *w = compile(TARGET, SEED);
    uint64_t rng = 99;

    (void)state;
    for (int i = 0; i < 10; i++)
        assert_int_equal(workload_pick(w, &rng), 0);
    assert_int_equal(rng, 99);
    workload_free(w);
}

static void the_rng_is_splitmix64(void **state)
{
    /* The first outputs of splitmix64 from state 0, computed independently. */
    uint64_t s = 0;

    (void)state;
    assert_int_equal(workload_rng_next(&s), 0xe220a8397b1dcdafu);
    assert_int_equal(workload_rng_next(&s), 0x6e789e6aa1b965f4u);
    assert_int_equal(workload_rng_next(&s), 0x06c45d188009454fu);
}

static void a_text_body_is_the_value(void **state)
{
    struct workload *w = compile(TARGET "[request p]\nmethod = PUT\nbody = {\"a\": 1}\n", SEED);
    const struct workload_kind *k = workload_kind(w, 0);

    (void)state;
    assert_int_equal(k->body_len, 8);
    assert_memory_equal(k->body, "{\"a\": 1}", 8);
    workload_free(w);
}

/* A temporary body file holding len bytes of data; path is filled in. */
static void make_file(char *path, const void *data, size_t len)
{
    int fd;

    strcpy(path, "/tmp/brink-test-workload-XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    assert_int_equal(close(fd), 0);
}

static void body_config(char *text, size_t cap, const char *path)
{
    snprintf(text, cap, TARGET "[request put]\nmethod = PUT\nbody = @%s\n", path);
}

static void a_file_body_is_read_once_at_creation(void **state)
{
    static const unsigned char data[] = {'b', 0, 'o', 0xff, 'd', '\n', 'y'};
    char path[64], text[256];
    struct workload *w;
    const struct workload_kind *k;
    FILE *f;

    (void)state;
    make_file(path, data, sizeof(data));
    body_config(text, sizeof(text), path);
    w = compile(text, SEED);
    /* Changing the file afterwards changes nothing. */
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("changed", f);
    fclose(f);
    k = workload_kind(w, 0);
    assert_int_equal(k->body_len, sizeof(data));
    assert_memory_equal(k->body, data, sizeof(data));
    workload_free(w);
    unlink(path);
}

static void an_empty_file_body_is_empty_not_absent(void **state)
{
    char path[64], text[256];
    struct workload *w;

    (void)state;
    make_file(path, "", 0);
    body_config(text, sizeof(text), path);
    w = compile(text, SEED);
    assert_non_null(workload_kind(w, 0)->body);
    assert_int_equal(workload_kind(w, 0)->body_len, 0);
    workload_free(w);
    unlink(path);
}

/* Loads a config whose body is @path, lets change() alter the file, and
 * checks that workload_new then fails with rc and a message that names the
 * file and gives reason. */
static void body_file_fails(void (*change)(const char *path), int rc, const char *reason)
{
    char path[64], text[256], err[ERR_MAX], want[ERR_MAX];
    /* Not NULL, so that the test sees workload_new clear it. */
    struct workload *w = (struct workload *)(uintptr_t)1;
    struct config c;

    make_file(path, "x", 1);
    body_config(text, sizeof(text), path);
    load(&c, text);
    change(path);
    assert_int_equal(workload_new(&c, SEED, err, sizeof(err), &w), rc);
    assert_null(w);
    snprintf(want, sizeof(want), "brink: [request put] body: cannot read @%s: %s", path, reason);
    assert_string_equal(err, want);
    config_free(&c);
    rmdir(path);
    unlink(path);
}

static void remove_file(const char *path)
{
    assert_int_equal(unlink(path), 0);
}

static void replace_by_directory(const char *path)
{
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkdir(path, 0700), 0);
}

static void make_unreadable(const char *path)
{
    assert_int_equal(chmod(path, 0), 0);
}

static void make_too_big(const char *path)
{
    /* Sparse: nothing is written, and the size alone is refused. */
    assert_int_equal(truncate(path, (off_t)WORKLOAD_FILE_MAX + 1), 0);
}

static void a_missing_body_file_names_the_file_and_the_reason(void **state)
{
    (void)state;
    body_file_fails(remove_file, -ENOENT, "No such file or directory");
}

static void a_body_file_that_became_a_directory_is_refused(void **state)
{
    (void)state;
    body_file_fails(replace_by_directory, -EINVAL,
                    "not a regular file (expected @FILE naming a file)");
}

static void an_unreadable_body_file_names_the_reason(void **state)
{
    (void)state;
    if (geteuid() == 0)
        skip(); /* root reads a file of mode 000 */
    body_file_fails(make_unreadable, -EACCES, "Permission denied");
}

static void a_body_file_over_the_limit_is_refused(void **state)
{
    (void)state;
    body_file_fails(make_too_big, -EFBIG, "it is 268435457 bytes, more than the 256 MiB accepted");
}

static void a_random_body_has_its_size_and_depends_only_on_the_seed(void **state)
{
    static const char text[] = TARGET "[request a]\nbody = random:13k\n"
                                      "[request b]\nbody = random:5\n";
    struct workload *w1 = compile(text, 1), *w2 = compile(text, 1), *w3 = compile(text, 2);
    const struct workload_kind *a1 = workload_kind(w1, 0), *a2 = workload_kind(w2, 0),
                               *a3 = workload_kind(w3, 0);
    unsigned zeros = 0;

    (void)state;
    assert_int_equal(a1->body_len, 13000);
    assert_int_equal(workload_kind(w1, 1)->body_len, 5);
    assert_memory_equal(a1->body, a2->body, 13000);
    assert_memory_equal(workload_kind(w1, 1)->body, workload_kind(w2, 1)->body, 5);
    assert_memory_not_equal(a1->body, a3->body, 13000);
    /* Binary bytes, not a constant: about 13000 / 256 = 51 zeros. */
    for (size_t i = 0; i < a1->body_len; i++)
        zeros += a1->body[i] == 0;
    assert_true(zeros > 10 && zeros < 150);
    workload_free(w1);
    workload_free(w2);
    workload_free(w3);
}

static void an_empty_random_body_is_empty_not_absent(void **state)
{
    struct workload *w = compile(TARGET "[request a]\nbody = random:0\n", SEED);

    (void)state;
    assert_non_null(workload_kind(w, 0)->body);
    assert_int_equal(workload_kind(w, 0)->body_len, 0);
    workload_free(w);
}

static void freeing_null_does_nothing(void **state)
{
    (void)state;
    workload_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_config_without_requests_has_one_default_get_kind),
        cmocka_unit_test(target_headers_come_first_then_the_request_ones_in_file_order),
        cmocka_unit_test(request_kinds_keep_name_method_timeout_weight_and_url),
        cmocka_unit_test(each_kind_carries_its_expect_set),
        cmocka_unit_test(seq_and_vu_are_written_in_decimal_without_drawing),
        cmocka_unit_test(rand_stays_within_its_bounds_and_reaches_both_ends),
        cmocka_unit_test(rand_with_equal_bounds_is_that_number),
        cmocka_unit_test(rand_over_all_of_int64_gives_both_signs_in_range),
        cmocka_unit_test(rand_is_roughly_uniform),
        cmocka_unit_test(uuid_is_a_lower_case_version_4_uuid),
        cmocka_unit_test(placeholders_and_text_alternate_in_order),
        cmocka_unit_test(a_url_that_does_not_fit_is_enospc_and_empty),
        cmocka_unit_test(a_template_whose_longest_expansion_fits_always_expands),
        cmocka_unit_test(a_template_that_could_expand_past_the_maximum_is_refused),
        cmocka_unit_test(a_negative_rand_bound_counts_its_minus_sign),
        cmocka_unit_test(weights_1_to_9_are_drawn_in_proportion),
        cmocka_unit_test(each_kind_is_drawn_by_its_share_of_the_weights),
        cmocka_unit_test(one_kind_is_always_picked_without_drawing),
        cmocka_unit_test(the_rng_is_splitmix64),
        cmocka_unit_test(a_text_body_is_the_value),
        cmocka_unit_test(a_file_body_is_read_once_at_creation),
        cmocka_unit_test(an_empty_file_body_is_empty_not_absent),
        cmocka_unit_test(a_missing_body_file_names_the_file_and_the_reason),
        cmocka_unit_test(a_body_file_that_became_a_directory_is_refused),
        cmocka_unit_test(an_unreadable_body_file_names_the_reason),
        cmocka_unit_test(a_body_file_over_the_limit_is_refused),
        cmocka_unit_test(a_random_body_has_its_size_and_depends_only_on_the_seed),
        cmocka_unit_test(an_empty_random_body_is_empty_not_absent),
        cmocka_unit_test(freeing_null_does_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
