/* brink target's certificates: the self-signed one and the checks of
 * --cert and --key files. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "target/tlscert.h"

/* A fixed "now": 2030-01-01 00:00:00 UTC. */
#define NOW_S INT64_C(1893456000)

static X509 *parse_cert(const char *pem)
{
    BIO *b = BIO_new_mem_buf(pem, -1);
    X509 *x = PEM_read_bio_X509(b, NULL, NULL, NULL);

    BIO_free(b);
    assert_non_null(x);
    return x;
}

static EVP_PKEY *parse_key(const char *pem)
{
    BIO *b = BIO_new_mem_buf(pem, -1);
    EVP_PKEY *k = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);

    BIO_free(b);
    assert_non_null(k);
    return k;
}

static void make(struct tlscert_pem *p)
{
    char err[256] = "";

    assert_int_equal(tlscert_self_signed(NOW_S, p, err, sizeof(err)), 0);
    assert_string_equal(err, "");
}

static void self_signed_names_localhost_and_both_loopbacks(void **state)
{
    struct tlscert_pem p;
    X509 *x;

    (void)state;
    make(&p);
    x = parse_cert(p.cert);
    assert_int_equal(X509_check_host(x, "localhost", 0, 0, NULL), 1);
    assert_int_equal(X509_check_ip_asc(x, "127.0.0.1", 0), 1);
    assert_int_equal(X509_check_ip_asc(x, "::1", 0), 1);
    assert_int_equal(X509_check_host(x, "example.com", 0, 0, NULL), 0);
    assert_int_equal(X509_check_ip_asc(x, "127.0.0.2", 0), 0);
    X509_free(x);
    tlscert_pem_free(&p);
}

/* Seconds from t to the time tm holds. */
static long seconds_after(const ASN1_TIME *tm, int64_t t)
{
    ASN1_TIME *base = ASN1_TIME_set(NULL, (time_t)t);
    int days = 0, secs = 0;

    assert_non_null(base);
    assert_int_equal(ASN1_TIME_diff(&days, &secs, base, tm), 1);
    ASN1_TIME_free(base);
    return (long)days * 86400 + secs;
}

static void self_signed_is_valid_from_an_hour_before_for_seven_days(void **state)
{
    struct tlscert_pem p;
    X509 *x;

    (void)state;
    make(&p);
    x = parse_cert(p.cert);
    assert_int_equal(seconds_after(X509_get0_notBefore(x), NOW_S), -3600);
    assert_int_equal(seconds_after(X509_get0_notAfter(x), NOW_S), 7 * 86400 - 3600);
    X509_free(x);
    tlscert_pem_free(&p);
}

static void self_signed_is_signed_by_its_own_p256_key(void **state)
{
    struct tlscert_pem p;
    EVP_PKEY *k;
    X509 *x;

    (void)state;
    make(&p);
    x = parse_cert(p.cert);
    k = parse_key(p.key);
    assert_true(EVP_PKEY_is_a(k, "EC"));
    assert_int_equal(EVP_PKEY_get_bits(k), 256);
    assert_int_equal(X509_check_private_key(x, k), 1);
    assert_int_equal(X509_verify(x, k), 1);
    assert_int_equal(X509_NAME_cmp(X509_get_subject_name(x), X509_get_issuer_name(x)), 0);
    /* A leaf, not a CA: it cannot sign other certificates. */
    assert_int_equal(X509_check_ca(x), 0);
    assert_non_null(strstr(p.key, "-----BEGIN PRIVATE KEY-----"));
    EVP_PKEY_free(k);
    X509_free(x);
    tlscert_pem_free(&p);
}

static void two_certificates_have_their_own_keys_and_serials(void **state)
{
    struct tlscert_pem a, b;
    X509 *xa, *xb;

    (void)state;
    make(&a);
    make(&b);
    assert_string_not_equal(a.key, b.key);
    xa = parse_cert(a.cert);
    xb = parse_cert(b.cert);
    assert_int_not_equal(ASN1_INTEGER_cmp(X509_get0_serialNumber(xa), X509_get0_serialNumber(xb)),
                         0);
    X509_free(xa);
    X509_free(xb);
    tlscert_pem_free(&a);
    tlscert_pem_free(&b);
}

/* Files in a directory of the test's own. */
struct files {
    char dir[64];
    char cert[96], key[96], other[96];
};

static int files_setup(void **state)
{
    struct files *f = calloc(1, sizeof(*f));

    strcpy(f->dir, "/tmp/brink-tlscert-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->cert, sizeof(f->cert), "%s/cert.pem", f->dir);
    snprintf(f->key, sizeof(f->key), "%s/key.pem", f->dir);
    snprintf(f->other, sizeof(f->other), "%s/other.pem", f->dir);
    *state = f;
    return 0;
}

static int files_teardown(void **state)
{
    struct files *f = *state;

    unlink(f->cert);
    unlink(f->key);
    unlink(f->other);
    rmdir(f->dir);
    free(f);
    return 0;
}

static void put(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");

    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

/* Loads the files, expecting rc, and err matching the words given. */
static void load_fails(struct files *f, const char *cert, const char *key, int rc, const char *want)
{
    struct tlscert_pem p = {NULL, NULL};
    char err[512] = "";

    assert_int_equal(tlscert_load(cert, key, &p, err, sizeof(err)), rc);
    if (!strstr(err, want))
        fail_msg("err \"%s\" does not hold \"%s\"", err, want);
    assert_null(p.cert);
    assert_null(p.key);
    (void)f;
}

static void load_gives_back_a_pair_that_belongs_together(void **state)
{
    struct files *f = *state;
    struct tlscert_pem made, p;
    char err[256] = "";

    make(&made);
    put(f->cert, made.cert);
    put(f->key, made.key);
    assert_int_equal(tlscert_load(f->cert, f->key, &p, err, sizeof(err)), 0);
    assert_string_equal(p.cert, made.cert);
    assert_string_equal(p.key, made.key);
    tlscert_pem_free(&p);
    tlscert_pem_free(&made);
}

static void load_names_a_missing_file(void **state)
{
    struct files *f = *state;
    char want[512];

    snprintf(want, sizeof(want), "--cert %s/none.pem: cannot open: No such file or directory",
             f->dir);
    snprintf(f->other, sizeof(f->other), "%s/none.pem", f->dir);
    load_fails(f, f->other, f->key, -ENOENT, want);
}

static void load_refuses_a_directory(void **state)
{
    struct files *f = *state;
    struct tlscert_pem made;
    char want[512];

    make(&made);
    put(f->cert, made.cert);
    snprintf(want, sizeof(want), "--key %s: not a regular file", f->dir);
    load_fails(f, f->cert, f->dir, -ENODEV, want);
    tlscert_pem_free(&made);
}

static void load_says_the_files_are_swapped(void **state)
{
    struct files *f = *state;
    struct tlscert_pem made;
    char want[512];

    make(&made);
    put(f->cert, made.cert);
    put(f->key, made.key);
    snprintf(
        want, sizeof(want),
        "--cert %s: no PEM certificate in it (expected -----BEGIN CERTIFICATE-----); it holds a private key: is it the --key file?",
        f->key);
    load_fails(f, f->key, f->cert, -EINVAL, want);
    tlscert_pem_free(&made);
}

static void load_says_when_the_key_file_has_no_key(void **state)
{
    struct files *f = *state;
    struct tlscert_pem made;
    char want[512];

    make(&made);
    put(f->cert, made.cert);
    put(f->other, "not a key\n");
    snprintf(want, sizeof(want), "--key %s: no PEM private key in it", f->other);
    load_fails(f, f->cert, f->other, -EINVAL, want);
    put(f->other, "");
    load_fails(f, f->cert, f->other, -EINVAL, want);
    tlscert_pem_free(&made);
}

static void load_refuses_a_key_of_another_certificate(void **state)
{
    struct files *f = *state;
    struct tlscert_pem a, b;
    char want[512];

    make(&a);
    make(&b);
    put(f->cert, a.cert);
    put(f->key, b.key);
    snprintf(want, sizeof(want), "--key %s: does not match the certificate of --cert %s", f->key,
             f->cert);
    load_fails(f, f->cert, f->key, -EINVAL, want);
    tlscert_pem_free(&a);
    tlscert_pem_free(&b);
}

static void load_refuses_an_encrypted_key_without_asking(void **state)
{
    struct files *f = *state;
    struct tlscert_pem made;
    EVP_PKEY *k;
    char want[512];
    FILE *fp;

    make(&made);
    put(f->cert, made.cert);
    k = parse_key(made.key);
    fp = fopen(f->key, "w");
    assert_non_null(fp);
    assert_int_equal(PEM_write_PKCS8PrivateKey(fp, k, EVP_aes_128_cbc(), NULL, 0, NULL, "secret"),
                     1);
    fclose(fp);
    snprintf(want, sizeof(want), "--key %s: the key is encrypted: give it unencrypted", f->key);
    load_fails(f, f->cert, f->key, -EINVAL, want);
    EVP_PKEY_free(k);
    tlscert_pem_free(&made);
}

static void write_puts_the_certificate_in_a_readable_file(void **state)
{
    struct files *f = *state;
    struct tlscert_pem made;
    char err[256] = "", buf[4096];
    struct stat st;
    size_t n;
    FILE *fp;

    make(&made);
    umask(022);
    put(f->other, "older and longer content that must go away entirely\n");
    assert_int_equal(tlscert_write(f->other, made.cert, err, sizeof(err)), 0);
    fp = fopen(f->other, "r");
    assert_non_null(fp);
    n = fread(buf, 1, sizeof(buf) - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    assert_string_equal(buf, made.cert);
    assert_int_equal(stat(f->other, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    tlscert_pem_free(&made);
}

static void write_names_the_file_it_cannot_create(void **state)
{
    struct files *f = *state;
    char err[256] = "", want[512];

    snprintf(want, sizeof(want), "--cert-out %s/no/such/dir.pem: No such file or directory",
             f->dir);
    snprintf(f->other, sizeof(f->other), "%s/no/such/dir.pem", f->dir);
    assert_int_equal(tlscert_write(f->other, "x", err, sizeof(err)), -ENOENT);
    assert_string_equal(err, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(self_signed_names_localhost_and_both_loopbacks),
        cmocka_unit_test(self_signed_is_valid_from_an_hour_before_for_seven_days),
        cmocka_unit_test(self_signed_is_signed_by_its_own_p256_key),
        cmocka_unit_test(two_certificates_have_their_own_keys_and_serials),
        cmocka_unit_test_setup_teardown(load_gives_back_a_pair_that_belongs_together, files_setup,
                                        files_teardown),
        cmocka_unit_test_setup_teardown(load_names_a_missing_file, files_setup, files_teardown),
        cmocka_unit_test_setup_teardown(load_refuses_a_directory, files_setup, files_teardown),
        cmocka_unit_test_setup_teardown(load_says_the_files_are_swapped, files_setup,
                                        files_teardown),
        cmocka_unit_test_setup_teardown(load_says_when_the_key_file_has_no_key, files_setup,
                                        files_teardown),
        cmocka_unit_test_setup_teardown(load_refuses_a_key_of_another_certificate, files_setup,
                                        files_teardown),
        cmocka_unit_test_setup_teardown(load_refuses_an_encrypted_key_without_asking, files_setup,
                                        files_teardown),
        cmocka_unit_test_setup_teardown(write_puts_the_certificate_in_a_readable_file, files_setup,
                                        files_teardown),
        cmocka_unit_test_setup_teardown(write_names_the_file_it_cannot_create, files_setup,
                                        files_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
