/*
 * tls: TLS for the transports that do their own I/O (h1, stream), on
 * OpenSSL, apart from sockets. A worker has one context per server name (trust store, client
 * certificate, the session to resume), loaded once and shared by its connections; a connection has
 * one TLS engine that takes the bytes its socket read and hands back the
 * bytes to write (memory BIOs), so libuv keeps doing the I/O. One worker's
 * loop thread per context and its connections; each object belongs to the
 * caller.
 */
#ifndef BRINK_ENGINE_TLS_TLS_H
#define BRINK_ENGINE_TLS_TLS_H

#include <stddef.h>
#include <stdint.h>

struct config_target;
struct tls_context;
struct tls_conn;

#define TLS_WHY_MAX 160 /* bytes of a failure's words, NUL included */

/*
 * Makes a worker's context from t's TLS keys: trust (ca_file, else the file
 * SSL_CERT_FILE names, else the system store; none with insecure), the
 * client certificate and key, tls_min, tls_resume, and the protocols
 * ALPN offers. name is the server name to send (SNI, not for an address
 * literal) and check (borrowed, copied). Returns 0 and *out, or -EINVAL
 * with one line in err naming the key, the file and OpenSSL's reason. Any
 * thread.
 */
enum tls_alpn {
    TLS_ALPN_NONE,  /* no ALPN (a protocol that is not HTTP) */
    TLS_ALPN_HTTP1, /* http/1.1 */
    TLS_ALPN_H2,    /* h2, then http/1.1 */
};
int tls_context_new(const struct config_target *t, const char *name, enum tls_alpn alpn, char *err,
                    size_t err_len, struct tls_context **out);
/* Frees tls (NULL: nothing); its connections were freed before. */
void tls_context_free(struct tls_context *tls);

/* What a step of a connection's TLS came to. */
enum tls_state {
    TLS_WANT,   /* needs more bytes from the server */
    TLS_DONE,   /* the handshake is complete (tls_handshake) */
    TLS_FULL,   /* the plaintext buffer is full: read again (tls_read) */
    TLS_CLOSED, /* the server sent close_notify: the end of its bytes */
    TLS_FAILED, /* a handshake, certificate or record failure; why says which */
};

/* A new connection's TLS, client side, offering tls's latest session when
 * tls_resume is on. Never fails (out of memory aborts). */
struct tls_conn *tls_conn_new(struct tls_context *tls);
/* Frees c (NULL: nothing). Sends nothing: see tls_close_notify. */
void tls_conn_free(struct tls_conn *c);

/* Whether the server picked h2 by ALPN; after the handshake. */
int tls_is_h2(const struct tls_conn *c);

/* Takes n bytes the socket read (copied). */
void tls_feed(struct tls_conn *c, const char *data, size_t n);
/* Runs the handshake as far as the bytes fed allow: TLS_WANT,
 * TLS_DONE, or TLS_FAILED with why (a certificate the check
 * refused says why: "certificate has expired", "unknown CA: ...",
 * "certificate is for another name (expected NAME)"). Either way, what it
 * wrote waits in tls_out. */
enum tls_state tls_handshake(struct tls_conn *c, char *why, size_t why_len);
/* Decrypts what was fed into buf (cap bytes), *got bytes: TLS_WANT when
 * all of it was, TLS_FULL when buf filled first, TLS_CLOSED or
 * TLS_FAILED (with why) after the *got bytes before that. After the
 * handshake only. */
enum tls_state tls_read(struct tls_conn *c, char *buf, size_t cap, size_t *got, char *why,
                        size_t why_len);
/* Encrypts n bytes of plaintext, after the handshake. Returns 0, or -EIO
 * with why when the connection's TLS has failed. */
int tls_write(struct tls_conn *c, const void *data, size_t n, char *why, size_t why_len);
/* The bytes waiting to be written to the socket, in *data; 0: none. They
 * stay until tls_out_taken. */
size_t tls_out(struct tls_conn *c, const char **data);
/* The caller has written or copied every byte tls_out gave. */
void tls_out_taken(struct tls_conn *c);
/* Queues close_notify in tls_out, when the handshake completed and
 * nothing failed; never waits for the server's. */
void tls_close_notify(struct tls_conn *c);

/* OpenSSL's version, as it reports it at run time (a static string). */
const char *engine__tls_version(void);

#endif
