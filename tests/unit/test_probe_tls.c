/*
 * The TLS settings of HTTP probes (probes__tls_of): the [target] keys of
 * the config, as its requests use them, with SSL_CERT_FILE as their
 * fallback.
 */
#include "probes/sampler.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "config/config.h"

/* A directory with the files the configs name (the config opens them). */
static char dir[] = "/tmp/brink-probe-tls-XXXXXX";
static const char *const files[] = {"ca.pem", "other.pem", "me.pem", "me.key"};

static char *path_of(const char *name)
{
    static char buf[4][128];
    static int next;
    char *p = buf[next++ % 4];

    snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
    return p;
}

static int make_dir(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        FILE *f = fopen(path_of(files[i]), "w");

        if (!f)
            return -1;
        fclose(f);
    }
    return 0;
}

static int remove_dir(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        unlink(path_of(files[i]));
    return rmdir(dir);
}

/* Loads the text fmt makes as DIR/t.ini (paths resolve against DIR)
 * into c; its arguments are DIR for each %s. */
__attribute__((format(printf, 2, 3))) static void load(struct config *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    config_init(c);
    assert_int_equal(config_load_string(c, path_of("t.ini"), buf, NULL, stderr), 0);
}

static void without_tls_keys_probes_use_libcurls_store_and_check(void **state)
{
    struct config c;
    struct probe_tls t;

    (void)state;
    load(&c, "[target]\nurl = https://127.0.0.1:1/\n");
    probes__tls_of(&c.target, NULL, &t);
    assert_false(t.is_insecure);
    assert_null(t.ca_file);
    assert_null(t.client_cert);
    assert_null(t.client_key);
    assert_int_equal(t.tls_min, CONFIG_TLS_1_2);
    config_free(&c);
}

static void ca_file_is_the_probes_trust_store(void **state)
{
    struct config c;
    struct probe_tls t;

    (void)state;
    load(&c, "[target]\nurl = https://127.0.0.1:1/\nca_file = %s/ca.pem\n", dir);
    probes__tls_of(&c.target, NULL, &t);
    assert_false(t.is_insecure);
    assert_non_null(t.ca_file);
    assert_string_equal(t.ca_file, path_of("ca.pem"));
    config_free(&c);
}

static void a_relative_ca_file_is_found_next_to_the_config(void **state)
{
    struct config c;
    struct probe_tls t;

    (void)state;
    load(&c, "[target]\nurl = https://127.0.0.1:1/\nca_file = ca.pem\n");
    probes__tls_of(&c.target, NULL, &t);
    assert_non_null(t.ca_file);
    assert_string_equal(t.ca_file, path_of("ca.pem"));
    config_free(&c);
}

static void ssl_cert_file_is_used_without_ca_file(void **state)
{
    struct config c;
    struct probe_tls t;

    (void)state;
    load(&c, "[target]\nurl = https://127.0.0.1:1/\n");
    probes__tls_of(&c.target, path_of("other.pem"), &t);
    assert_non_null(t.ca_file);
    assert_string_equal(t.ca_file, path_of("other.pem"));
    probes__tls_of(&c.target, "", &t);
    assert_null(t.ca_file);
    config_free(&c);
}

static void ca_file_wins_over_ssl_cert_file(void **state)
{
    struct config c;
    struct probe_tls t;

    (void)state;
    load(&c, "[target]\nurl = https://127.0.0.1:1/\nca_file = %s/ca.pem\n", dir);
    probes__tls_of(&c.target, path_of("other.pem"), &t);
    assert_string_equal(t.ca_file, path_of("ca.pem"));
    config_free(&c);
}

static void insecure_checks_nothing_and_names_no_store(void **state)
{
    struct config c;
    struct probe_tls t;

    (void)state;
    load(&c, "[target]\nurl = https://127.0.0.1:1/\ninsecure = yes\n");
    probes__tls_of(&c.target, path_of("other.pem"), &t);
    assert_true(t.is_insecure);
    assert_null(t.ca_file);
    config_free(&c);
}

static void client_certificate_and_tls_min_come_from_target(void **state)
{
    struct config c;
    struct probe_tls t;

    (void)state;
    load(&c,
         "[target]\nurl = https://127.0.0.1:1/\nclient_cert = %s/me.pem\n"
         "client_key = %s/me.key\ntls_min = 1.3\n",
         dir, dir);
    probes__tls_of(&c.target, NULL, &t);
    assert_string_equal(t.client_cert, path_of("me.pem"));
    assert_string_equal(t.client_key, path_of("me.key"));
    assert_int_equal(t.tls_min, CONFIG_TLS_1_3);
    config_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(without_tls_keys_probes_use_libcurls_store_and_check),
        cmocka_unit_test(ca_file_is_the_probes_trust_store),
        cmocka_unit_test(a_relative_ca_file_is_found_next_to_the_config),
        cmocka_unit_test(ssl_cert_file_is_used_without_ca_file),
        cmocka_unit_test(ca_file_wins_over_ssl_cert_file),
        cmocka_unit_test(insecure_checks_nothing_and_names_no_store),
        cmocka_unit_test(client_certificate_and_tls_min_come_from_target),
    };

    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
