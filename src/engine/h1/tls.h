/*
 * h1_tls: TLS for the h1 transport, on OpenSSL, apart from sockets. A
 * worker has one context (trust store, client certificate, the session to
 * resume), loaded once and shared by its connections; a connection has
 * one TLS engine that takes the bytes its socket read and hands back the
 * bytes to write (memory BIOs), so libuv keeps doing the I/O. One worker's
 * loop thread per context and its connections; each object belongs to the
 * caller.
 */
#ifndef BRINK_ENGINE_H1_TLS_H
#define BRINK_ENGINE_H1_TLS_H

#include <stddef.h>
#include <stdint.h>

struct config_target;
struct h1_tls;
struct h1_tls_conn;

#define H1_TLS_WHY_MAX 160 /* bytes of a failure's words, NUL included */

/* Handshakes a context completed, by kind: what tls_resume buys. */
struct h1_tls_counts {
    uint64_t full;    /* handshakes with certificate exchange */
    uint64_t resumed; /* abbreviated handshakes, from the latest session */
};

/*
 * Makes a worker's context from t's TLS keys: trust (ca_file, else the file
 * SSL_CERT_FILE names, else the system store; none with insecure), the
 * client certificate and key, tls_min, tls_resume, ALPN http/1.1 (h2 first
 * with http_version = 2). name is
 * the server name to send (SNI, not for an address literal) and check
 * (borrowed, copied). Returns 0 and *out, or -EINVAL with one line in err
 * naming the key, the file and OpenSSL's reason. Any thread.
 */
int h1_tls_new(const struct config_target *t, const char *name, char *err, size_t err_len,
               struct h1_tls **out);
/* Frees tls (NULL: nothing); its connections were freed before. */
void h1_tls_free(struct h1_tls *tls);
/* The handshakes completed so far. */
struct h1_tls_counts h1_tls_counts(const struct h1_tls *tls);

/* What a step of a connection's TLS came to. */
enum h1_tls_state {
    H1_TLS_WANT,   /* needs more bytes from the server */
    H1_TLS_DONE,   /* the handshake is complete (h1_tls_handshake) */
    H1_TLS_FULL,   /* the plaintext buffer is full: read again (h1_tls_read) */
    H1_TLS_CLOSED, /* the server sent close_notify: the end of its bytes */
    H1_TLS_FAILED, /* a handshake, certificate or record failure; why says which */
};

/* A new connection's TLS, client side, offering tls's latest session when
 * tls_resume is on. Never fails (out of memory aborts). */
struct h1_tls_conn *h1_tls_conn_new(struct h1_tls *tls);
/* Frees c (NULL: nothing). Sends nothing: see h1_tls_close_notify. */
void h1_tls_conn_free(struct h1_tls_conn *c);

/* Whether the server picked h2 by ALPN; after the handshake. */
int h1_tls_is_h2(const struct h1_tls_conn *c);

/* Takes n bytes the socket read (copied). */
void h1_tls_feed(struct h1_tls_conn *c, const char *data, size_t n);
/* Runs the handshake as far as the bytes fed allow: H1_TLS_WANT,
 * H1_TLS_DONE, or H1_TLS_FAILED with why (a certificate the check
 * refused says why: "certificate has expired", "unknown CA: ...",
 * "certificate is for another name (expected NAME)"). Either way, what it
 * wrote waits in h1_tls_out. */
enum h1_tls_state h1_tls_handshake(struct h1_tls_conn *c, char *why, size_t why_len);
/* Decrypts what was fed into buf (cap bytes), *got bytes: H1_TLS_WANT when
 * all of it was, H1_TLS_FULL when buf filled first, H1_TLS_CLOSED or
 * H1_TLS_FAILED (with why) after the *got bytes before that. After the
 * handshake only. */
enum h1_tls_state h1_tls_read(struct h1_tls_conn *c, char *buf, size_t cap, size_t *got, char *why,
                              size_t why_len);
/* Encrypts n bytes of plaintext, after the handshake. Returns 0, or -EIO
 * with why when the connection's TLS has failed. */
int h1_tls_write(struct h1_tls_conn *c, const void *data, size_t n, char *why, size_t why_len);
/* The bytes waiting to be written to the socket, in *data; 0: none. They
 * stay until h1_tls_out_taken. */
size_t h1_tls_out(struct h1_tls_conn *c, const char **data);
/* The caller has written or copied every byte h1_tls_out gave. */
void h1_tls_out_taken(struct h1_tls_conn *c);
/* Queues close_notify in h1_tls_out, when the handshake completed and
 * nothing failed; never waits for the server's. */
void h1_tls_close_notify(struct h1_tls_conn *c);

/* OpenSSL's version, as it reports it at run time (a static string). */
const char *engine__tls_version(void);

#endif
