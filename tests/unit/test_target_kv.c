/* The key-value store of brink target: siblings from overlapping writes,
 * resolution by version, the memory cap. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "target/kv.h"

static uint64_t put(struct kv *kv, const char *key, const char *value, uint64_t base)
{
    struct kv_write w;
    uint64_t sib = 0;

    assert_int_equal(kv_write_begin(kv, key, strlen(key), &w), 0);
    assert_int_equal(kv_write_commit(kv, &w, value, strlen(value), base, &sib), 0);
    return sib;
}

static uint64_t siblings_of(struct kv *kv, const char *key)
{
    struct kv_read r;

    if (kv_get(kv, key, strlen(key), &r) != 0)
        return 0;
    free(r.value);
    return r.siblings;
}

static void serial_writes_replace_the_value(void **state)
{
    struct kv *kv = kv_new(1 << 20);
    struct kv_read r;

    (void)state;
    for (int i = 0; i < 20; i++)
        assert_int_equal(put(kv, "k", i % 2 ? "odd" : "even", 0), 1);
    assert_int_equal(kv_get(kv, "k", 1, &r), 0);
    assert_int_equal(r.siblings, 1);
    assert_int_equal(r.len, 3);
    assert_memory_equal(r.value, "odd", 3);
    assert_int_equal(r.version, 20);
    free(r.value);
    kv_free(kv);
}

static void overlapping_writes_make_siblings(void **state)
{
    struct kv *kv = kv_new(1 << 20);
    struct kv_write w[5];
    uint64_t sib = 0;

    (void)state;
    for (int i = 0; i < 5; i++)
        assert_int_equal(kv_write_begin(kv, "hot", 3, &w[i]), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(kv_write_commit(kv, &w[i], "v", 1, 0, &sib), 0);
    assert_int_equal(sib, 5);
    assert_int_equal(siblings_of(kv, "hot"), 5);
    kv_free(kv);
}

static void a_write_that_began_first_still_overlaps_a_later_one(void **state)
{
    struct kv *kv = kv_new(1 << 20);
    struct kv_write a, b;

    (void)state;
    put(kv, "k", "old", 0);
    assert_int_equal(kv_write_begin(kv, "k", 1, &a), 0);
    assert_int_equal(kv_write_begin(kv, "k", 1, &b), 0);
    /* b began while a was in flight; a saw b begin after it. Neither replaces. */
    assert_int_equal(kv_write_commit(kv, &b, "b", 1, 0, NULL), 0);
    assert_int_equal(kv_write_commit(kv, &a, "a", 1, 0, NULL), 0);
    assert_int_equal(siblings_of(kv, "k"), 3);
    kv_free(kv);
}

static void a_write_naming_the_version_it_read_resolves(void **state)
{
    struct kv *kv = kv_new(1 << 20);
    struct kv_write w[3];
    struct kv_read r;

    (void)state;
    for (int i = 0; i < 3; i++)
        kv_write_begin(kv, "k", 1, &w[i]);
    for (int i = 0; i < 3; i++)
        kv_write_commit(kv, &w[i], "x", 1, 0, NULL);
    assert_int_equal(kv_get(kv, "k", 1, &r), 0);
    free(r.value);
    assert_int_equal(r.siblings, 3);
    assert_int_equal(put(kv, "k", "merged", r.version), 1);
    kv_free(kv);
}

static void a_stale_version_keeps_the_newer_siblings(void **state)
{
    struct kv *kv = kv_new(1 << 20);

    (void)state;
    put(kv, "k", "v1", 0); /* version 1 */
    put(kv, "k", "v2", 0); /* version 2 replaces it */
    /* A writer that read version 1 does not know about version 2. */
    assert_int_equal(put(kv, "k", "from v1", 1), 2);
    kv_free(kv);
}

static void the_cap_refuses_writes_and_delete_frees(void **state)
{
    struct kv *kv = kv_new(2000);
    struct kv_write w;
    struct kv_usage u;
    char value[600];
    int rc = 0, stored = 0;

    (void)state;
    memset(value, 'v', sizeof(value));
    for (int i = 0; i < 10 && rc == 0; i++) {
        char key[16];
        snprintf(key, sizeof(key), "key%d", i);
        rc = kv_write_begin(kv, key, strlen(key), &w);
        if (rc == 0)
            rc = kv_write_commit(kv, &w, value, sizeof(value), 0, NULL);
        stored += rc == 0;
    }
    assert_int_equal(rc, -ENOSPC);
    kv_get_usage(kv, &u);
    assert_true(u.bytes <= 2000);
    assert_int_equal(u.keys, (uint64_t)stored);
    assert_int_equal(kv_delete(kv, "key0", 4), 0);
    assert_int_equal(kv_delete(kv, "key0", 4), -ENOENT);
    assert_int_equal(put(kv, "again", "small", 0), 1);
    kv_free(kv);
}

static void an_aborted_write_leaves_nothing(void **state)
{
    struct kv *kv = kv_new(1 << 20);
    struct kv_write w;
    struct kv_usage u;

    (void)state;
    assert_int_equal(kv_write_begin(kv, "gone", 4, &w), 0);
    kv_write_abort(kv, &w);
    kv_write_abort(kv, &w); /* a second abort is a no-op */
    kv_get_usage(kv, &u);
    assert_int_equal(u.keys, 0);
    assert_int_equal(u.bytes, 0);
    assert_int_equal(siblings_of(kv, "gone"), 0);
    kv_free(kv);
}

static void keys_are_checked(void **state)
{
    struct kv *kv = kv_new(1 << 20);
    static char big[KV_MAX_KEY_BYTES + 1];
    struct kv_write w;

    (void)state;
    memset(big, 'k', sizeof(big));
    assert_int_equal(kv_write_begin(kv, "", 0, &w), -EINVAL);
    assert_int_equal(kv_write_begin(kv, big, sizeof(big), &w), -EINVAL);
    kv_free(kv);
}

static void many_keys_survive_the_table_growing(void **state)
{
    struct kv *kv = kv_new(64 << 20);
    char key[32];

    (void)state;
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        put(kv, key, key, 0);
    }
    for (int i = 0; i < 5000; i += 499) {
        struct kv_read r;
        snprintf(key, sizeof(key), "k%d", i);
        assert_int_equal(kv_get(kv, key, strlen(key), &r), 0);
        assert_memory_equal(r.value, key, strlen(key));
        free(r.value);
    }
    kv_free(kv);
    kv_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(serial_writes_replace_the_value),
        cmocka_unit_test(overlapping_writes_make_siblings),
        cmocka_unit_test(a_write_that_began_first_still_overlaps_a_later_one),
        cmocka_unit_test(a_write_naming_the_version_it_read_resolves),
        cmocka_unit_test(a_stale_version_keeps_the_newer_siblings),
        cmocka_unit_test(the_cap_refuses_writes_and_delete_frees),
        cmocka_unit_test(an_aborted_write_leaves_nothing),
        cmocka_unit_test(keys_are_checked),
        cmocka_unit_test(many_keys_survive_the_table_growing),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
