/*
 * The h1 transport's TLS, in process: one worker of a real engine runs its
 * loop on the test's thread against a scripted TLS server on a thread of
 * its own (blocking OpenSSL, one connection at a time, 127.0.0.1 port 0).
 * The certificates are made at start with OpenSSL's X509 API in a
 * temporary directory: a CA, a server certificate it signed for 127.0.0.1
 * and localhost, an expired one, a client certificate (key in the same
 * file) and a second CA nobody used. The server counts its handshakes and
 * the resumed ones, which the resumption tests read.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "config/config.h"
#include "core/chan.h"
#include "core/errclass.h"
#include "core/tick.h"
#include "core/xalloc.h"
#include "engine/engine.h"
#include "engine/internal.h"
#include "outcome_fixture.h"

#define ERR_MAX 512
#define OK (-1)           /* the class of a run with no error */
#define WATCHDOG_MS 60000 /* a run that has not ended by then is stopped */
#define PATH_MAX_BYTES 256
#define REPLY "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

/* ---- Certificates ----------------------------------------------------- */

static char dir[64];

/* dir/name, in a static buffer of its own per call site's slot. */
static const char *path_of(const char *name)
{
    static char paths[8][PATH_MAX_BYTES];
    static unsigned at;
    char *p = paths[at++ % 8];

    snprintf(p, PATH_MAX_BYTES, "%s/%s", dir, name);
    return p;
}

static void add_ext(X509 *x, X509V3_CTX *ctx, int nid, const char *value)
{
    X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, ctx, nid, value);

    assert_non_null(e);
    assert_int_equal(X509_add_ext(x, e, -1), 1);
    X509_EXTENSION_free(e);
}

/* A certificate of key for cn, valid from from_s to to_s (seconds from
 * now), signed by issuer (NULL: by itself). */
static X509 *new_cert(EVP_PKEY *key, const char *cn, X509 *issuer, EVP_PKEY *issuer_key,
                      const char *san, long from_s, long to_s)
{
    static long serial = 1;
    X509 *x = X509_new();
    X509_NAME *name = X509_get_subject_name(x);
    X509V3_CTX ctx;

    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), serial++);
    X509_gmtime_adj(X509_getm_notBefore(x), from_s);
    X509_gmtime_adj(X509_getm_notAfter(x), to_s);
    X509_set_pubkey(x, key);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
    X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name);
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer ? issuer : x, x, NULL, NULL, 0);
    if (san) {
        add_ext(x, &ctx, NID_basic_constraints, "CA:FALSE");
        add_ext(x, &ctx, NID_subject_alt_name, san);
    } else {
        add_ext(x, &ctx, NID_basic_constraints, "critical,CA:TRUE");
        add_ext(x, &ctx, NID_key_usage, "critical,keyCertSign,cRLSign");
    }
    add_ext(x, &ctx, NID_subject_key_identifier, "hash");
    assert_true(X509_sign(x, issuer_key ? issuer_key : key, EVP_sha256()) > 0);
    return x;
}

static void write_pem(const char *name, X509 *x, EVP_PKEY *key)
{
    FILE *f = fopen(path_of(name), "w");

    assert_non_null(f);
    if (x)
        assert_int_equal(PEM_write_X509(f, x), 1);
    if (key)
        assert_int_equal(PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL), 1);
    fclose(f);
}

static void make_certificates(void)
{
    EVP_PKEY *ca_key = EVP_EC_gen("P-256"), *other_key = EVP_EC_gen("P-256");
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *ca = new_cert(ca_key, "brink test CA", NULL, NULL, NULL, 0, 86400);
    X509 *other = new_cert(other_key, "another CA", NULL, NULL, NULL, 0, 86400);
    X509 *good = new_cert(key, "localhost", ca, ca_key, "IP:127.0.0.1,DNS:localhost", 0, 86400);
    X509 *expired =
        new_cert(key, "localhost", ca, ca_key, "IP:127.0.0.1,DNS:localhost", -7200, -3600);
    X509 *client = new_cert(key, "a client", ca, ca_key, "DNS:client.test", 0, 86400);
    FILE *f;

    write_pem("ca.pem", ca, NULL);
    write_pem("other-ca.pem", other, NULL);
    write_pem("server.pem", good, key);
    write_pem("expired.pem", expired, key);
    write_pem("client.pem", client, key);
    f = fopen(path_of("bad.pem"), "w");
    assert_non_null(f);
    fputs("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n", f);
    fclose(f);
    X509_free(ca);
    X509_free(other);
    X509_free(good);
    X509_free(expired);
    X509_free(client);
    EVP_PKEY_free(ca_key);
    EVP_PKEY_free(other_key);
    EVP_PKEY_free(key);
}

/* ---- The scripted server ---------------------------------------------- */

/* What the server does with each connection. */
enum mode {
    ANSWER,              /* a reply per request, until the client closes */
    CLOSE_ON_NEXT,       /* answers the first request, closes at the second */
    CLOSE_BEFORE_REPLY,  /* reads the request and closes without a reply */
    CLOSE_IN_HANDSHAKE,  /* reads the ClientHello and closes */
    GARBAGE_AFTER_HELLO, /* sends its ServerHello, then bytes that are not TLS */
    GARBAGE_FOR_A_REPLY, /* completes the handshake, then replies in plain text */
    REQUIRE_CLIENT_CERT, /* as ANSWER, and refuses a client without a certificate */
};

struct server {
    int fd;
    SSL_CTX *ctx;
    enum mode mode;
    pthread_t thread;
    atomic_int stop;
    atomic_uint handshakes; /* completed on the server's side */
    atomic_uint resumed;    /* of those, resumed */
    atomic_uint requests;
};

/* Reads one request head (GET, no body). Returns 0, or -1 at its end. */
static int read_head(SSL *ssl)
{
    char buf[4096];
    size_t len = 0;
    int n;

    while (len < sizeof(buf)) {
        n = SSL_read(ssl, buf + len, (int)(sizeof(buf) - len));
        if (n <= 0)
            return -1;
        len += (size_t)n;
        if (len >= 4 && memcmp(buf + len - 4, "\r\n\r\n", 4) == 0)
            return 0;
    }
    return -1;
}

/* The first record the handshake writes (the ServerHello), then garbage. */
static void send_garbage(struct server *srv, int fd)
{
    SSL *ssl = SSL_new(srv->ctx);
    BIO *in = BIO_new(BIO_s_mem()), *out = BIO_new(BIO_s_mem());
    char buf[16384], *p;
    long len = 0;
    ssize_t n;

    BIO_set_mem_eof_return(in, -1);
    SSL_set_bio(ssl, in, out);
    SSL_set_accept_state(ssl);
    while (len == 0 && (n = recv(fd, buf, sizeof(buf), 0)) > 0) {
        BIO_write(in, buf, (int)n);
        SSL_do_handshake(ssl);
        len = BIO_get_mem_data(out, &p);
    }
    if (len >= 5) {
        size_t first = 5 + ((size_t)(unsigned char)p[3] << 8 | (unsigned char)p[4]);
        static const char junk[] = "HTTP/1.1 400 Bad Request\r\n\r\nnot TLS at all";

        assert_true(send(fd, p, first, 0) == (ssize_t)first);
        assert_true(send(fd, junk, sizeof(junk) - 1, 0) == (ssize_t)(sizeof(junk) - 1));
    }
    while (recv(fd, buf, sizeof(buf), 0) > 0)
        ;
    SSL_free(ssl);
    ERR_clear_error();
}

static void serve_conn(struct server *srv, int fd)
{
    char buf[4096];
    SSL *ssl;
    unsigned n = 0;

    if (srv->mode == GARBAGE_AFTER_HELLO) {
        send_garbage(srv, fd);
        return;
    }
    if (srv->mode == CLOSE_IN_HANDSHAKE) {
        (void)recv(fd, buf, sizeof(buf), 0);
        return;
    }
    ssl = SSL_new(srv->ctx);
    SSL_set_fd(ssl, fd);
    if (SSL_accept(ssl) != 1)
        goto out;
    srv->handshakes++;
    if (SSL_session_reused(ssl))
        srv->resumed++;
    while (read_head(ssl) == 0) {
        srv->requests++;
        if (srv->mode == GARBAGE_FOR_A_REPLY) {
            assert_true(send(fd, REPLY, sizeof(REPLY) - 1, 0) == sizeof(REPLY) - 1);
            continue;
        }
        if (srv->mode == CLOSE_BEFORE_REPLY || (srv->mode == CLOSE_ON_NEXT && ++n > 1))
            break;
        if (SSL_write(ssl, REPLY, sizeof(REPLY) - 1) <= 0)
            break;
    }
out:
    SSL_free(ssl);
    ERR_clear_error();
}

static void *serve(void *arg)
{
    struct server *srv = arg;
    struct timeval limit = {.tv_sec = 10};
    int one = 1;

    while (!srv->stop) {
        struct pollfd p = {.fd = srv->fd, .events = POLLIN};
        int fd;

        if (poll(&p, 1, 20) <= 0)
            continue;
        fd = accept(srv->fd, NULL, NULL);
        if (fd < 0)
            continue;
        /* A client that stalls cannot hold the test forever; the reply
         * leaves behind the session tickets at once, not after an ACK. */
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        serve_conn(srv, fd);
        close(fd);
    }
    OPENSSL_thread_stop();
    return NULL;
}

/* Starts a server with cert (its key in the same file) in mode. */
static uint16_t server_start(struct server *srv, const char *cert, enum mode mode)
{
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t len = sizeof(a);

    memset(srv, 0, sizeof(*srv));
    srv->mode = mode;
    srv->ctx = SSL_CTX_new(TLS_server_method());
    assert_int_equal(SSL_CTX_use_certificate_chain_file(srv->ctx, path_of(cert)), 1);
    assert_int_equal(SSL_CTX_use_PrivateKey_file(srv->ctx, path_of(cert), SSL_FILETYPE_PEM), 1);
    SSL_CTX_set_session_id_context(srv->ctx, (const unsigned char *)"t", 1);
    if (mode == REQUIRE_CLIENT_CERT) {
        assert_int_equal(SSL_CTX_load_verify_file(srv->ctx, path_of("ca.pem")), 1);
        SSL_CTX_set_verify(srv->ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    }
    srv->fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(srv->fd >= 0);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(srv->fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(srv->fd, 64), 0);
    assert_int_equal(getsockname(srv->fd, (struct sockaddr *)&a, &len), 0);
    assert_int_equal(pthread_create(&srv->thread, NULL, serve, srv), 0);
    return ntohs(a.sin_port);
}

static void server_stop(struct server *srv)
{
    srv->stop = 1;
    pthread_join(srv->thread, NULL);
    close(srv->fd);
    SSL_CTX_free(srv->ctx);
}

/* ---- A run ------------------------------------------------------------ */

struct watch {
    uv_prepare_t done_check;
    uv_timer_t timer;
    struct worker *w;
    int has_fired;
};

static void on_watchdog(uv_timer_t *t)
{
    struct watch *wd = container_of(t, struct watch, timer);

    wd->has_fired = 1;
    engine__request_stop(wd->w->e, "test watchdog", 1);
}

static void on_done_check(uv_prepare_t *p)
{
    struct watch *wd = container_of(p, struct watch, done_check);

    if (!wd->w->is_done)
        return;
    uv_close((uv_handle_t *)&wd->done_check, NULL);
    uv_close((uv_handle_t *)&wd->timer, NULL);
}

/* Builds the engine of n requests to port with the [target] lines extra.
 * Returns engine__build's code; err says why it failed. */
static int build(uint16_t port, const char *extra, uint32_t n, struct chan *ch, struct config *c,
                 struct engine **e, char *err)
{
    struct engine_params p = {.config = c, .chan = ch, .seed = 1};
    char text[1400];

    snprintf(text, sizeof(text),
             "[target]\nurl = https://127.0.0.1:%u/\ntimeout = 5s\n%s\n"
             "[load]\nconcurrency = 1\nrequests = %u\n",
             port, extra, n);
    config_init(c);
    assert_int_equal(config_load_string(c, "t.ini", text, NULL, stderr), 0);
    return engine__build(&p, err, ERR_MAX, e);
}

/* Runs n requests against srv on port; what the ticks said in *out. */
static void run(uint16_t port, const char *extra, uint32_t n, struct outcome *out)
{
    struct config c;
    struct chan *ch = chan_new(256, 16);
    struct engine *e = NULL;
    struct watch wd = {0};
    char err[ERR_MAX] = "";

    if (build(port, extra, n, ch, &c, &e, err) != 0)
        fail_msg("%s", err);
    wd.w = e->workers[0];
    uv_prepare_init(&wd.w->view.loop, &wd.done_check);
    uv_prepare_start(&wd.done_check, on_done_check);
    uv_timer_init(&wd.w->view.loop, &wd.timer);
    uv_timer_start(&wd.timer, on_watchdog, WATCHDOG_MS, 0);
    engine__worker_run(wd.w);

    outcome_collect(ch, out);
    assert_false(wd.has_fired);
    engine_free(e);
    chan_free(ch);
    config_free(&c);
}

/* Runs n requests against a server of cert in mode with the [target]
 * lines extra: all of them must be ok (want = OK) or of class want, the
 * first message naming needle; h1 carries them. The server is returned
 * stopped in *srv for its counts. */
static void check(const char *cert, enum mode mode, const char *extra, uint32_t n, int want,
                  const char *needle, struct server *srv)
{
    struct outcome o;
    uint16_t port = server_start(srv, cert, mode);
    const char *first;

    run(port, extra, n, &o);
    server_stop(srv);
    first = want == OK ? "" : o.first_error[want];
    for (int k = 0; k < ERR__COUNT; k++) {
        if (o.errors[k])
            print_message("  %s %llu: %s\n", errclass_name(k), (unsigned long long)o.errors[k],
                          o.first_error[k]);
    }
    assert_string_equal(o.transport, "h1");
    assert_int_equal(o.completed, n);
    assert_int_equal(want == OK ? o.ok : o.errors[want], n);
    if (needle && !contains_any_case(first, needle))
        fail_msg("first %s error \"%s\" does not name \"%s\"", errclass_name(want), first, needle);
}

/* The [target] lines before, then ca_file = name in the temporary
 * directory. */
static const char *ca(const char *before, const char *name)
{
    static char buf[1024];

    snprintf(buf, sizeof(buf), "%s\nca_file = %s", before, path_of(name));
    return buf;
}

/* ---- Trust ------------------------------------------------------------ */

static void a_server_trusted_through_ca_file_answers(void **state)
{
    struct server srv;

    (void)state;
    check("server.pem", ANSWER, ca("", "ca.pem"), 5, OK, NULL, &srv);
    /* Keep-alive: one handshake carries every request. */
    assert_int_equal(srv.handshakes, 1);
    assert_int_equal(srv.requests, 5);
}

static void auto_picks_h1_for_https(void **state)
{
    struct server srv;

    (void)state;
    check("server.pem", ANSWER, ca("transport = auto", "ca.pem"), 3, OK, NULL, &srv);
}

/* ALPN offers h2 first; a server that picks nothing (or http/1.1) gets
 * HTTP/1.1, which it reads, on the connection the handshake made. */
static void http_version_2_where_alpn_picks_no_h2_goes_as_http_1_1(void **state)
{
    struct server srv;

    (void)state;
    check("server.pem", ANSWER, ca("http_version = 2\nstreams = 4", "ca.pem"), 5, OK, NULL, &srv);
    assert_int_equal(srv.handshakes, 1);
    assert_int_equal(srv.requests, 5);
}

static void a_server_of_another_ca_is_tls_with_unknown_ca(void **state)
{
    struct server srv;

    (void)state;
    check("server.pem", ANSWER, ca("transport = h1", "other-ca.pem"), 3, ERR_TLS, "unknown CA",
          &srv);
    assert_int_equal(srv.handshakes, 0);
}

static void the_system_store_does_not_trust_a_private_ca(void **state)
{
    struct server srv;

    (void)state;
    unsetenv("SSL_CERT_FILE");
    check("server.pem", ANSWER, "transport = h1", 2, ERR_TLS, "unknown CA", &srv);
}

static void ssl_cert_file_is_honoured_without_ca_file(void **state)
{
    struct server srv;

    (void)state;
    setenv("SSL_CERT_FILE", path_of("ca.pem"), 1);
    check("server.pem", ANSWER, "transport = h1", 2, OK, NULL, &srv);
    unsetenv("SSL_CERT_FILE");
}

static void insecure_accepts_an_untrusted_server(void **state)
{
    struct server srv;

    (void)state;
    check("server.pem", ANSWER, "transport = h1\ninsecure = yes", 3, OK, NULL, &srv);
}

static void another_server_name_is_tls_with_the_name_expected(void **state)
{
    struct server srv;

    (void)state;
    check("server.pem", ANSWER, ca("transport = h1\nserver_name = other.test", "ca.pem"), 2,
          ERR_TLS, "certificate is for another name (expected other.test)", &srv);
    /* The name the certificate holds passes. */
    check("server.pem", ANSWER, ca("transport = h1\nserver_name = localhost", "ca.pem"), 2, OK,
          NULL, &srv);
}

static void an_expired_certificate_is_tls_with_expired(void **state)
{
    struct server srv;

    (void)state;
    check("expired.pem", ANSWER, ca("transport = h1", "ca.pem"), 2, ERR_TLS, "expired", &srv);
}

static void a_client_certificate_is_given_when_required(void **state)
{
    struct server srv;
    char extra[1024];

    (void)state;
    snprintf(extra, sizeof(extra), "transport = h1\nca_file = %s\nclient_cert = %s",
             path_of("ca.pem"), path_of("client.pem"));
    check("server.pem", REQUIRE_CLIENT_CERT, extra, 3, OK, NULL, &srv);
    assert_int_equal(srv.handshakes, 1);
}

/* ---- Servers that break ----------------------------------------------- */

static void garbage_after_the_server_hello_is_tls(void **state)
{
    struct server srv;

    (void)state;
    check("server.pem", GARBAGE_AFTER_HELLO, ca("transport = h1", "ca.pem"), 2, ERR_TLS,
          "TLS handshake: ", &srv);
}

/* With insecure, OpenSSL records the failed certificate check and goes
 * on: a later failure is told in its own words, not the check's. */
static void garbage_for_a_reply_is_tls_in_openssl_words_even_when_insecure(void **state)
{
    struct server srv;

    (void)state;
    check("server.pem", GARBAGE_FOR_A_REPLY, "transport = h1\ninsecure = yes", 2, ERR_TLS,
          "TLS: ", &srv);
}

static void a_close_in_the_handshake_is_tls(void **state)
{
    struct server srv;

    (void)state;
    check("server.pem", CLOSE_IN_HANDSHAKE, ca("transport = h1", "ca.pem"), 2, ERR_TLS, "closed",
          &srv);
}

static void a_close_after_the_handshake_before_a_reply_is_closed_early(void **state)
{
    struct server srv;

    (void)state;
    check("server.pem", CLOSE_BEFORE_REPLY, ca("transport = h1", "ca.pem"), 2, ERR_CLOSED_EARLY,
          "before any reply", &srv);
}

static void a_reused_connection_closed_at_the_next_request_is_sent_again(void **state)
{
    struct server srv;

    (void)state;
    check("server.pem", CLOSE_ON_NEXT, ca("transport = h1", "ca.pem"), 4, OK, NULL, &srv);
    /* Each connection answered one request and dropped the next. */
    assert_int_equal(srv.handshakes, 4);
}

/* ---- Sessions and the context ----------------------------------------- */

static void tls_resume_yes_resumes_every_new_connection_after_the_first(void **state)
{
    struct server srv;

    (void)state;
    check("server.pem", ANSWER, ca("transport = h1\nkeepalive = no\ntls_resume = yes", "ca.pem"),
          50, OK, NULL, &srv);
    assert_int_equal(srv.handshakes, 50);
    assert_int_equal(srv.resumed, 49);
}

static void tls_resume_no_makes_every_handshake_full(void **state)
{
    struct server srv;

    (void)state;
    check("server.pem", ANSWER, ca("transport = h1\nkeepalive = no\ntls_resume = no", "ca.pem"), 50,
          OK, NULL, &srv);
    assert_int_equal(srv.handshakes, 50);
    assert_int_equal(srv.resumed, 0);
}

/* The CA file is opened when the worker's context is made, never for a
 * connection: counted by inotify, whatever brink's code does with it. */
static void a_thousand_new_connections_open_the_ca_file_once(void **state)
{
    struct server srv;
    char ev[64 * (sizeof(struct inotify_event) + 16)];
    int fd = inotify_init1(IN_NONBLOCK), opens = 0;
    ssize_t n;

    (void)state;
    assert_true(fd >= 0);
    /* inotify merges an event with the unread one before it when they are
     * the same: with closes watched too, opens alternate with closes. */
    assert_true(inotify_add_watch(fd, path_of("ca.pem"), IN_OPEN | IN_CLOSE_NOWRITE) >= 0);
    check("server.pem", ANSWER, ca("transport = h1\nkeepalive = no\ntls_resume = no", "ca.pem"),
          1000, OK, NULL, &srv);
    assert_int_equal(srv.handshakes, 1000);
    while ((n = read(fd, ev, sizeof(ev))) > 0) {
        for (char *p = ev; p < ev + n;
             p += sizeof(struct inotify_event) + ((struct inotify_event *)p)->len)
            opens += (((struct inotify_event *)p)->mask & IN_OPEN) != 0;
    }
    close(fd);
    /* The config's check when the file is read, and the worker's context;
     * a context per connection would be a thousand more. */
    assert_in_range(opens, 1, 2);
}

static void a_ca_file_that_is_no_pem_stops_the_start_naming_it(void **state)
{
    struct config c;
    struct chan *ch = chan_new(16, 16);
    struct engine *e = NULL;
    char err[ERR_MAX] = "", want[ERR_MAX];

    (void)state;
    assert_int_equal(build(1, ca("transport = h1", "bad.pem"), 1, ch, &c, &e, err), -EINVAL);
    assert_null(e);
    snprintf(want, sizeof(want), "brink: [target] ca_file: %s: ", path_of("bad.pem"));
    if (strncmp(err, want, strlen(want)) != 0 || strlen(err) == strlen(want) || strchr(err, '\n'))
        fail_msg("got \"%s\"", err);
    config_free(&c);
    chan_free(ch);
}

static int setup(void **state)
{
    (void)state;
    /* As brink's main does: a write to a closed socket is an error, not a
     * signal (the server's and brink's sides both write to peers that
     * went away). */
    signal(SIGPIPE, SIG_IGN);
    snprintf(dir, sizeof(dir), "/tmp/brink-tls-XXXXXX");
    assert_non_null(mkdtemp(dir));
    make_certificates();
    return 0;
}

static int teardown(void **state)
{
    static const char *const names[] = {"ca.pem",      "other-ca.pem", "server.pem",
                                        "expired.pem", "client.pem",   "bad.pem"};

    (void)state;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        unlink(path_of(names[i]));
    rmdir(dir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_server_trusted_through_ca_file_answers),
        cmocka_unit_test(auto_picks_h1_for_https),
        cmocka_unit_test(http_version_2_where_alpn_picks_no_h2_goes_as_http_1_1),
        cmocka_unit_test(a_server_of_another_ca_is_tls_with_unknown_ca),
        cmocka_unit_test(the_system_store_does_not_trust_a_private_ca),
        cmocka_unit_test(ssl_cert_file_is_honoured_without_ca_file),
        cmocka_unit_test(insecure_accepts_an_untrusted_server),
        cmocka_unit_test(another_server_name_is_tls_with_the_name_expected),
        cmocka_unit_test(an_expired_certificate_is_tls_with_expired),
        cmocka_unit_test(a_client_certificate_is_given_when_required),
        cmocka_unit_test(garbage_after_the_server_hello_is_tls),
        cmocka_unit_test(garbage_for_a_reply_is_tls_in_openssl_words_even_when_insecure),
        cmocka_unit_test(a_close_in_the_handshake_is_tls),
        cmocka_unit_test(a_close_after_the_handshake_before_a_reply_is_closed_early),
        cmocka_unit_test(a_reused_connection_closed_at_the_next_request_is_sent_again),
        cmocka_unit_test(tls_resume_yes_resumes_every_new_connection_after_the_first),
        cmocka_unit_test(tls_resume_no_makes_every_handshake_full),
        cmocka_unit_test(a_thousand_new_connections_open_the_ca_file_once),
        cmocka_unit_test(a_ca_file_that_is_no_pem_stops_the_start_naming_it),
    };
    char err[ERR_MAX];
    int rc;

    if (engine_global_init(err, sizeof(err)) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    rc = cmocka_run_group_tests(tests, setup, teardown);
    engine_global_cleanup();
    return rc;
}
