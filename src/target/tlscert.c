/*
 * tlscert: a self-signed certificate made with OpenSSL's EVP and X509 API,
 * and the checks of --cert and --key files, for brink target --tls.
 */
#include "target/tlscert.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "core/msg.h"
#include "core/regfile.h"
#include "core/xalloc.h"

/* The names a client on this machine reaches the target by. */
#define SELF_NAMES "DNS:localhost,IP:127.0.0.1,IP:::1"
#define SELF_CN "brink target"

/* OpenSSL's reason for the last failure; the queue is this thread's. */
static void ssl_why(char *err, size_t err_len, const char *step)
{
    unsigned long e = ERR_peek_last_error();
    const char *r = e ? ERR_reason_error_string(e) : NULL;

    msg_set(err, err_len, "%s: %s", step, r ? r : "unknown OpenSSL error");
    ERR_clear_error();
}

/* The PEM text a mem BIO holds, as a NUL-terminated string of ours. */
static char *bio_text(BIO *b)
{
    char *data;
    long n = BIO_get_mem_data(b, &data);

    return xstrndup(data, n > 0 ? (size_t)n : 0);
}

static int add_ext(X509 *x, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509_EXTENSION *ext;
    int ok;

    /* Self-signed: the certificate is its own issuer. */
    X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
    ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (!ext)
        return 0;
    ok = X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
    return ok;
}

static int set_serial(X509 *x)
{
    unsigned char b[8];
    uint64_t v = 0;

    if (RAND_bytes(b, sizeof(b)) != 1)
        return 0;
    for (size_t i = 0; i < sizeof(b); i++)
        v = v << 8 | b[i];
    /* Positive and never 0, as RFC 5280 asks. */
    v = (v >> 1) | 1;
    return ASN1_INTEGER_set_uint64(X509_get_serialNumber(x), v);
}

/* Fills in everything but the signature; 1 on success. */
static int fill_cert(X509 *x, EVP_PKEY *key, int64_t now_s)
{
    X509_NAME *name = X509_get_subject_name(x);
    time_t from = (time_t)(now_s - TLSCERT_SELF_BEFORE_S);

    return X509_set_version(x, 2) && set_serial(x) && ASN1_TIME_set(X509_getm_notBefore(x), from) &&
           ASN1_TIME_set(X509_getm_notAfter(x), from + TLSCERT_SELF_VALID_S) &&
           X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)SELF_CN, -1,
                                      -1, 0) &&
           X509_set_issuer_name(x, name) && X509_set_pubkey(x, key) &&
           add_ext(x, NID_basic_constraints, "critical,CA:FALSE") &&
           add_ext(x, NID_key_usage, "critical,digitalSignature") &&
           add_ext(x, NID_ext_key_usage, "serverAuth") &&
           add_ext(x, NID_subject_key_identifier, "hash") &&
           add_ext(x, NID_authority_key_identifier, "keyid:always") &&
           add_ext(x, NID_subject_alt_name, SELF_NAMES);
}

/* The certificate and key of x and key as PEM text; 1 on success. */
static int to_pem(X509 *x, EVP_PKEY *key, struct tlscert_pem *out)
{
    /* The key goes through secure memory, which is wiped when freed. */
    BIO *c = BIO_new(BIO_s_mem()), *k = BIO_new(BIO_s_secmem());
    int ok = c && k && PEM_write_bio_X509(c, x) &&
             PEM_write_bio_PrivateKey(k, key, NULL, NULL, 0, NULL, NULL);

    if (ok) {
        out->cert = bio_text(c);
        out->key = bio_text(k);
    }
    BIO_free(c);
    BIO_free(k);
    return ok;
}

int tlscert_self_signed(int64_t now_s, struct tlscert_pem *out, char *err, size_t err_len)
{
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *x = NULL;
    int rc = -EIO;

    out->cert = out->key = NULL;
    if (!key) {
        ssl_why(err, err_len, "making an EC P-256 key");
        return rc;
    }
    x = X509_new();
    if (!x || !fill_cert(x, key, now_s)) {
        ssl_why(err, err_len, "making the certificate");
        goto out_free;
    }
    if (!X509_sign(x, key, EVP_sha256())) {
        ssl_why(err, err_len, "signing the certificate");
        goto out_free;
    }
    if (!to_pem(x, key, out)) {
        ssl_why(err, err_len, "writing the certificate as PEM");
        goto out_free;
    }
    rc = 0;
out_free:
    X509_free(x);
    EVP_PKEY_free(key);
    return rc;
}

/* Reads a whole regular file of at most TLSCERT_MAX_BYTES; 0 with *text
 * (ours, NUL-terminated) or -errno with "OPT FILE: why" in err. */
static int read_pem(const char *opt, const char *path, char **text, size_t *len, char *err,
                    size_t err_len)
{
    char why[128], show[200];
    FILE *f;
    int rc = regfile_open(path, TLSCERT_MAX_BYTES, &f, why, sizeof(why));

    if (rc == 0) {
        *text = xmalloc(TLSCERT_MAX_BYTES + 1);
        *len = fread(*text, 1, TLSCERT_MAX_BYTES, f);
        if (ferror(f)) {
            rc = -EIO;
            msg_set(why, sizeof(why), "read failed: %s", msg_errno(EIO).text);
            free(*text);
        } else {
            (*text)[*len] = '\0';
        }
        fclose(f);
    }
    if (rc)
        msg_set(err, err_len, "%s %s: %s", opt, msg_show(path, show, sizeof(show)), why);
    return rc;
}

/* Tells PEM_read_bio_PrivateKey there is no password (never prompts on
 * the terminal, as OpenSSL's default callback would); notes it was asked. */
static int no_password(char *buf, int size, int rwflag, void *asked)
{
    (void)buf;
    (void)size;
    (void)rwflag;
    *(int *)asked = 1;
    return -1;
}

static X509 *parse_cert(const char *path, const char *text, size_t len, char *err, size_t err_len)
{
    BIO *b = BIO_new_mem_buf(text, (int)len);
    X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
    char show[200];

    BIO_free(b);
    ERR_clear_error();
    if (!x)
        msg_set(err, err_len,
                "--cert %s: no PEM certificate in it (expected -----BEGIN CERTIFICATE-----)%s",
                msg_show(path, show, sizeof(show)),
                strstr(text, "PRIVATE KEY-----") ? "; it holds a private key: is it the --key file?"
                                                 : "");
    return x;
}

static EVP_PKEY *parse_key(const char *path, const char *text, size_t len, char *err,
                           size_t err_len)
{
    BIO *b = BIO_new_mem_buf(text, (int)len);
    int asked = 0;
    EVP_PKEY *k = b ? PEM_read_bio_PrivateKey(b, NULL, no_password, &asked) : NULL;
    char show[200];

    BIO_free(b);
    ERR_clear_error();
    msg_show(path, show, sizeof(show));
    if (!k && asked)
        msg_set(err, err_len,
                "--key %s: the key is encrypted: give it unencrypted (openssl pkey -in FILE)",
                show);
    else if (!k)
        msg_set(err, err_len,
                "--key %s: no PEM private key in it (expected -----BEGIN PRIVATE KEY-----)%s", show,
                strstr(text, "-----BEGIN CERTIFICATE")
                    ? "; it holds a certificate: is it the --cert file?"
                    : "");
    return k;
}

int tlscert_load(const char *cert_path, const char *key_path, struct tlscert_pem *out, char *err,
                 size_t err_len)
{
    char *cert = NULL, *key = NULL, show[200], show_cert[200];
    size_t cert_len, key_len;
    X509 *x = NULL;
    EVP_PKEY *k = NULL;
    int rc;

    out->cert = out->key = NULL;
    rc = read_pem("--cert", cert_path, &cert, &cert_len, err, err_len);
    if (rc)
        return rc;
    rc = read_pem("--key", key_path, &key, &key_len, err, err_len);
    if (rc)
        goto out_free;
    rc = -EINVAL;
    x = parse_cert(cert_path, cert, cert_len, err, err_len);
    if (!x)
        goto out_free;
    k = parse_key(key_path, key, key_len, err, err_len);
    if (!k)
        goto out_free;
    if (X509_check_private_key(x, k) != 1) {
        ERR_clear_error();
        msg_set(err, err_len, "--key %s: does not match the certificate of --cert %s",
                msg_show(key_path, show, sizeof(show)),
                msg_show(cert_path, show_cert, sizeof(show_cert)));
        goto out_free;
    }
    out->cert = cert;
    out->key = key;
    cert = key = NULL;
    rc = 0;
out_free:
    EVP_PKEY_free(k);
    X509_free(x);
    free(cert);
    if (key) {
        OPENSSL_cleanse(key, key_len);
        free(key);
    }
    return rc;
}

int tlscert_write(const char *path, const char *pem, char *err, size_t err_len)
{
    size_t len = strlen(pem), done = 0;
    char show[200];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), e = 0;

    if (fd < 0) {
        e = errno;
        goto out_fail;
    }
    while (done < len) {
        ssize_t n = write(fd, pem + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            e = errno;
            break;
        }
        done += (size_t)n;
    }
    if (close(fd) != 0 && !e)
        e = errno;
    if (!e)
        return 0;
out_fail:
    msg_set(err, err_len, "--cert-out %s: %s", msg_show(path, show, sizeof(show)),
            msg_errno(e).text);
    return -e;
}

void tlscert_pem_free(struct tlscert_pem *p)
{
    if (!p)
        return;
    if (p->key)
        OPENSSL_cleanse(p->key, strlen(p->key));
    free(p->key);
    free(p->cert);
    p->cert = p->key = NULL;
}
