/*
 * What the h1 transport shares between its workers (setup.c): where its
 * connections go and the serialised request kinds; and its name lookups,
 * off every loop thread (h1/lookup.c).
 */
#ifndef BRINK_ENGINE_H1_H1_H
#define BRINK_ENGINE_H1_H1_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/socket.h>

#include <uv.h>

struct config;
struct h1_kind;
struct workload;

#define H1_ADDRS_MAX 8 /* addresses of the target's name h1 keeps */

/* The target's addresses: IPv4 ones first, then the others, each in
 * getaddrinfo's order, or one unix socket's (AF_UNIX). A connect that fails
 * for want of an address (refused, unreachable) tries the next. */
struct h1_addrs {
    struct sockaddr_storage at[H1_ADDRS_MAX];
    uint32_t n; /* 1 to H1_ADDRS_MAX */
};

/* What the h1 transport sends, shared read-only by every worker. */
struct h1_setup {
    char *host; /* the origin's host, owned: what requests name (Host, TLS's server name) */
    char
        *authority; /* "host[:port]" as [target] url writes it, owned: a script's URLs must match */
    uint16_t port;  /* the origin's port */
    /* Where connections go: the origin, or the address and port of the
     * [target] connect_to line that matches it. A name is looked up by each
     * worker. */
    char *connect_host; /* owned */
    uint16_t connect_port;
    int is_tls;     /* https: every connection speaks TLS (tls/tls.h) */
    char *tls_name; /* the name TLS sends and checks: server_name, else host; owned */
    int family;     /* the addresses used ([target] ip): AF_UNSPEC, AF_INET or AF_INET6 */
    int has_addrs;  /* connect_host is an address literal, already in addrs, or
                     * [target] unix_socket is addrs' one (AF_UNIX) address */
    struct h1_addrs addrs;
    struct h1_kind *kinds; /* per request kind, serialised */
    size_t n_kinds;
    size_t head_max; /* bytes of the longest head any kind can have */
    /* [target] http_version: CONFIG_HTTP_1_1, CONFIG_HTTP_2 (offered by
     * ALPN, beside http/1.1) or CONFIG_HTTP_H2C (prior knowledge) */
    int h2;
    atomic_int h2_told; /* the event that says which version ALPN picked was sent */
};

/* h1/lookup.c: the h1 transport's name lookups, off every loop thread. */
#define LOOKUP_WHY_MAX 320 /* bytes of a lookup's failure, NUL included */
struct lookup;
/* Resolves host and port into out (blocking getaddrinfo; flags adds AI_*
 * flags, such as AI_NUMERICHOST), IPv4 addresses first, at most
 * H1_ADDRS_MAX, keeping those of family only (AF_INET or AF_INET6; AF_UNSPEC
 * keeps both: [target] ip). Returns 0; -EINVAL when AI_NUMERICHOST was asked
 * and host is no address literal; or -EHOSTUNREACH, with one line in why
 * (which says so when host has addresses, but none of family). localhost
 * and names under it are 127.0.0.1 and ::1, as libcurl has them, looked up
 * nowhere. Any thread. */
int engine__lookup_resolve(const char *host, uint16_t port, int flags, int family,
                           struct h1_addrs *out, char *why, size_t why_len);
/* Starts resolving host and port (engine__lookup_resolve, no flags) on a
 * thread of its own, which sends wake (the caller's handle) once the result
 * is in. Returns 0 and the lookup in *out, or a negative errno when no
 * thread could start (wake is then never sent). The caller's thread only. */
int engine__lookup_start(const char *host, uint16_t port, int family, uv_async_t *wake,
                         struct lookup **out);
/* The result of l: -EAGAIN while it runs, else what engine__lookup_resolve
 * returned, with addrs (on success) or why (on failure) filled in. */
int engine__lookup_result(struct lookup *l, struct h1_addrs *addrs, char *why, size_t why_len);
/* How long the lookup of l took, µs; meaningful once its result is in. */
uint64_t engine__lookup_took_us(struct lookup *l);
/* The owner lets go of l: wake is never sent after this returns (call it
 * before closing wake), and l is freed now or when its thread ends.
 * NULL: a no-op. */
void engine__lookup_release(struct lookup *l);

/* setup.c: transport_ops.accepts, setup and teardown. */
int engine__h1_accepts(const struct config *c, const struct workload *wl, char *why,
                       size_t why_len);
void *engine__h1_setup_new(const struct config *c, const struct workload *wl);
void engine__h1_setup_free(void *setup);

#endif
