#include "engine/tls/tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "config/config.h"
#include "core/msg.h"
#include "core/xalloc.h"
#include "engine/transport.h"

struct tls_context {
    SSL_CTX *ctx;
    SSL_SESSION *session; /* the latest the server gave, owned; NULL: none yet */
    int is_resume;        /* tls_resume */
    int is_address;       /* name is an address literal: no SNI */
    char *name;           /* sent and checked, owned */
};

struct tls_conn {
    struct tls_context *tls;
    SSL *ssl;
    BIO *in;  /* what the socket read, for OpenSSL (owned by ssl) */
    BIO *out; /* what OpenSSL wrote, for the socket (owned by ssl) */
    int is_failed;
};

/* ---- Words ------------------------------------------------------------ */

/* OpenSSL's reason for the oldest error of this thread's queue, which is
 * then emptied: one connection's error never shows on another. */
static const char *reason_taken(char *buf, size_t len)
{
    unsigned long e = ERR_peek_error();
    const char *r = e ? ERR_reason_error_string(e) : NULL;

    if (e && ERR_SYSTEM_ERROR(e))
        snprintf(buf, len, "%s", msg_errno(ERR_GET_REASON(e)).text);
    else if (r)
        snprintf(buf, len, "%s", r);
    else if (e)
        snprintf(buf, len, "OpenSSL error %lx", e);
    else
        snprintf(buf, len, "no reason given");
    ERR_clear_error();
    return buf;
}

/* Why the certificate check refused the server's certificate, in words
 * that say which of the usual causes it is. */
static void verify_words(const struct tls_conn *c, long v, char *why, size_t why_len)
{
    const char *text = X509_verify_cert_error_string(v);

    switch (v) {
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
        snprintf(why, why_len, "certificate is for another name (expected %s)", c->tls->name);
        return;
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_CERT_UNTRUSTED: snprintf(why, why_len, "unknown CA: %s", text); return;
    default: snprintf(why, why_len, "certificate refused: %s", text); return;
    }
}

/* ---- The context ------------------------------------------------------ */

/* The server gave a session (TLS 1.3 sends its tickets after the
 * handshake): the next connection offers it. */
static int on_new_session(SSL *ssl, SSL_SESSION *session)
{
    struct tls_context *tls = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));

    SSL_SESSION_free(tls->session);
    tls->session = session;
    return 1; /* the reference is ours now */
}

/* A file that went away since the config was read says so plainly. */
static int readable(const char *key, const struct config_str *f, char *err, size_t err_len)
{
    if (access(f->value, R_OK) == 0)
        return 0;
    snprintf(err, err_len, "brink: [target] %s: %s: %s", key, f->raw, msg_errno(errno).text);
    return -EINVAL;
}

/* what: "" or words before OpenSSL's reason, such as "no private key: ". */
static int fail_file(const char *key, const char *shown, const char *what, char *err,
                     size_t err_len)
{
    char r[TLS_WHY_MAX];

    snprintf(err, err_len, "brink: [target] %s: %s: %s%s", key, shown, what,
             reason_taken(r, sizeof(r)));
    return -EINVAL;
}

/* The certificates to trust: ca_file, else SSL_CERT_FILE's, else the
 * system's. Loaded here, once per worker. */
static int load_trust(SSL_CTX *ctx, const struct config_target *t, char *err, size_t err_len)
{
    const char *env = getenv("SSL_CERT_FILE");
    char r[TLS_WHY_MAX];

    if (t->ca_file.value) {
        if (readable("ca_file", &t->ca_file, err, err_len) < 0)
            return -EINVAL;
        if (SSL_CTX_load_verify_file(ctx, t->ca_file.value) != 1)
            return fail_file("ca_file", t->ca_file.raw, "", err, err_len);
        return 0;
    }
    /* The system default would skip a SSL_CERT_FILE it cannot read in
     * silence, and then trust nothing: load it here to say why. */
    if (env && env[0]) {
        if (SSL_CTX_load_verify_file(ctx, env) != 1) {
            snprintf(err, err_len, "brink: SSL_CERT_FILE: %s: %s", env, reason_taken(r, sizeof(r)));
            return -EINVAL;
        }
        return 0;
    }
    if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
        snprintf(err, err_len, "brink: [target] ca_file: the system's certificates: %s",
                 reason_taken(r, sizeof(r)));
        return -EINVAL;
    }
    return 0;
}

static int load_client(SSL_CTX *ctx, const struct config_target *t, char *err, size_t err_len)
{
    const struct config_str *key = t->client_key.value ? &t->client_key : &t->client_cert;
    const char *key_name = t->client_key.value ? "client_key" : "client_cert";

    if (!t->client_cert.value)
        return 0;
    if (readable("client_cert", &t->client_cert, err, err_len) < 0 ||
        readable(key_name, key, err, err_len) < 0)
        return -EINVAL;
    if (SSL_CTX_use_certificate_chain_file(ctx, t->client_cert.value) != 1)
        return fail_file("client_cert", t->client_cert.raw, "", err, err_len);
    /* The key is checked against the certificate as it loads. */
    if (SSL_CTX_use_PrivateKey_file(ctx, key->value, SSL_FILETYPE_PEM) != 1)
        return fail_file(key_name, key->raw,
                         ERR_GET_REASON(ERR_peek_error()) == X509_R_KEY_VALUES_MISMATCH
                             ? "not the key of client_cert: "
                             : "no private key that loads: ",
                         err, err_len);
    return 0;
}

static int is_address(const char *name)
{
    unsigned char a[16];

    return inet_pton(AF_INET, name, a) == 1 || inet_pton(AF_INET6, name, a) == 1;
}

/* Which name the check wants: SSL_new copies the context's parameters. */
static void check_name(SSL_CTX *ctx, const char *name)
{
    X509_VERIFY_PARAM *p = SSL_CTX_get0_param(ctx);

    X509_VERIFY_PARAM_set_hostflags(p, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    if (X509_VERIFY_PARAM_set1_ip_asc(p, name) != 1)
        X509_VERIFY_PARAM_set1_host(p, name, 0);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
}

static const int min_versions[] = {
    [CONFIG_TLS_1_0] = TLS1_VERSION,
    [CONFIG_TLS_1_1] = TLS1_1_VERSION,
    [CONFIG_TLS_1_2] = TLS1_2_VERSION,
    [CONFIG_TLS_1_3] = TLS1_3_VERSION,
};

int tls_context_new(const struct config_target *t, const char *name, enum tls_alpn alpn, char *err,
                    size_t err_len, struct tls_context **out)
{
    static const unsigned char http1[] = "\x08http/1.1", h2[] = "\x02h2\x08http/1.1";
    struct tls_context *tls;
    SSL_CTX *ctx;
    int rc;

    ERR_clear_error();
    ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx)
        xalloc_die("OpenSSL");
    SSL_CTX_set_min_proto_version(ctx, min_versions[t->tls_min]);
    if (alpn == TLS_ALPN_H2)
        SSL_CTX_set_alpn_protos(ctx, h2, sizeof(h2) - 1);
    else if (alpn == TLS_ALPN_HTTP1)
        SSL_CTX_set_alpn_protos(ctx, http1, sizeof(http1) - 1);
    rc = t->insecure ? 0 : load_trust(ctx, t, err, err_len);
    if (rc == 0)
        rc = load_client(ctx, t, err, err_len);
    if (rc != 0) {
        SSL_CTX_free(ctx);
        return rc;
    }
    if (!t->insecure)
        check_name(ctx, name);
    tls = xcalloc(1, sizeof(*tls));
    tls->ctx = ctx;
    tls->name = xstrdup(name);
    tls->is_address = is_address(name);
    tls->is_resume = t->tls_resume;
    SSL_CTX_set_app_data(ctx, tls);
    if (tls->is_resume) {
        /* brink keeps the latest session itself (on_new_session). */
        SSL_CTX_set_session_cache_mode(ctx,
                                       SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
        SSL_CTX_sess_set_new_cb(ctx, on_new_session);
    } else {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
        SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
    }
    *out = tls;
    return 0;
}

void tls_context_free(struct tls_context *tls)
{
    if (!tls)
        return;
    SSL_SESSION_free(tls->session);
    SSL_CTX_free(tls->ctx);
    free(tls->name);
    free(tls);
}

/* ---- Connections ------------------------------------------------------ */

struct tls_conn *tls_conn_new(struct tls_context *tls)
{
    struct tls_conn *c = xcalloc(1, sizeof(*c));

    c->tls = tls;
    c->ssl = SSL_new(tls->ctx);
    c->in = BIO_new(BIO_s_mem());
    c->out = BIO_new(BIO_s_mem());
    if (!c->ssl || !c->in || !c->out)
        xalloc_die("OpenSSL");
    /* An empty input is "more to come", not the end of the stream: the
     * socket's end is told apart by the caller. */
    BIO_set_mem_eof_return(c->in, -1);
    SSL_set_bio(c->ssl, c->in, c->out);
    SSL_set_connect_state(c->ssl);
    /* RFC 6066, 3: no address literal in the server name. */
    if (!tls->is_address)
        SSL_set_tlsext_host_name(c->ssl, tls->name);
    if (tls->is_resume && tls->session)
        SSL_set_session(c->ssl, tls->session);
    return c;
}

void tls_conn_free(struct tls_conn *c)
{
    if (!c)
        return;
    SSL_free(c->ssl);
    free(c);
}

int tls_is_h2(const struct tls_conn *c)
{
    const unsigned char *p = NULL;
    unsigned n = 0;

    SSL_get0_alpn_selected(c->ssl, &p, &n);
    return n == 2 && memcmp(p, "h2", 2) == 0;
}

void tls_feed(struct tls_conn *c, const char *data, size_t n)
{
    if (BIO_write(c->in, data, (int)n) != (int)n)
        xalloc_die("OpenSSL");
}

/* The words of a failed SSL call that returned rc. The verify result is
 * the reason only when the check stopped the handshake: with insecure,
 * OpenSSL records a failed check and goes on. */
static enum tls_state failed(struct tls_conn *c, int rc, const char *what, char *why,
                             size_t why_len)
{
    unsigned long e = ERR_peek_error();
    long v = SSL_get_verify_result(c->ssl);

    c->is_failed = 1;
    if (SSL_get_error(c->ssl, rc) == SSL_ERROR_ZERO_RETURN) {
        ERR_clear_error();
        return TLS_CLOSED;
    }
    if (ERR_GET_LIB(e) == ERR_LIB_SSL && ERR_GET_REASON(e) == SSL_R_CERTIFICATE_VERIFY_FAILED &&
        v != X509_V_OK) {
        verify_words(c, v, why, why_len);
        ERR_clear_error();
    } else {
        char r[TLS_WHY_MAX];

        snprintf(why, why_len, "%s: %s", what, reason_taken(r, sizeof(r)));
    }
    return TLS_FAILED;
}

enum tls_state tls_handshake(struct tls_conn *c, char *why, size_t why_len)
{
    int rc;

    /* SSL_get_error reads the thread's queue: it must hold no older error. */
    ERR_clear_error();
    rc = SSL_do_handshake(c->ssl);
    if (rc == 1)
        return TLS_DONE;
    if (SSL_get_error(c->ssl, rc) == SSL_ERROR_WANT_READ)
        return TLS_WANT;
    if (failed(c, rc, "TLS handshake", why, why_len) == TLS_CLOSED)
        snprintf(why, why_len, "TLS handshake: the server ended TLS during the handshake");
    return TLS_FAILED;
}

enum tls_state tls_read(struct tls_conn *c, char *buf, size_t cap, size_t *got, char *why,
                        size_t why_len)
{
    size_t n = 0;

    *got = 0;
    ERR_clear_error();
    while (n < cap) {
        int rc = SSL_read(c->ssl, buf + n, (int)(cap - n > INT32_MAX ? INT32_MAX : cap - n));
        if (rc > 0) {
            n += (size_t)rc;
            continue;
        }
        *got = n;
        if (SSL_get_error(c->ssl, rc) == SSL_ERROR_WANT_READ)
            return TLS_WANT;
        return failed(c, rc, "TLS", why, why_len);
    }
    *got = n;
    return TLS_FULL;
}

int tls_write(struct tls_conn *c, const void *data, size_t n, char *why, size_t why_len)
{
    int rc;

    if (n == 0)
        return 0;
    ERR_clear_error();
    /* A memory BIO takes everything: the write is whole or fails. */
    rc = SSL_write(c->ssl, data, (int)n);
    if (rc > 0)
        return 0;
    failed(c, rc, "TLS", why, why_len);
    return -EIO;
}

size_t tls_out(struct tls_conn *c, const char **data)
{
    char *p = NULL;
    long n = BIO_get_mem_data(c->out, &p);

    *data = p;
    return n > 0 ? (size_t)n : 0;
}

void tls_out_taken(struct tls_conn *c)
{
    (void)BIO_reset(c->out);
}

void tls_close_notify(struct tls_conn *c)
{
    if (c->is_failed || !SSL_is_init_finished(c->ssl))
        return;
    ERR_clear_error();
    /* The first call queues close_notify; the server's is never awaited. */
    SSL_shutdown(c->ssl);
    ERR_clear_error();
}

const char *engine__tls_version(void)
{
    return OpenSSL_version(OPENSSL_VERSION_STRING);
}
