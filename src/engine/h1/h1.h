/*
 * What the h1 transport shares between its workers (setup.c): where its
 * connections go and the serialised request kinds.
 */
#ifndef BRINK_ENGINE_H1_H1_H
#define BRINK_ENGINE_H1_H1_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/socket.h>

#include <uv.h>

#include "engine/lookup.h"

struct config;
struct h1_kind;
struct workload;

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
    struct engine_addrs addrs;
    struct h1_kind *kinds; /* per request kind, serialised */
    size_t n_kinds;
    size_t head_max; /* bytes of the longest head any kind can have */
    /* [target] http_version: CONFIG_HTTP_1_1, CONFIG_HTTP_2 (offered by
     * ALPN, beside http/1.1) or CONFIG_HTTP_H2C (prior knowledge) */
    int h2;
    atomic_int h2_told; /* the event that says which version ALPN picked was sent */
};

/* setup.c: transport_ops.accepts, setup and teardown. */
int engine__h1_accepts(const struct config *c, const struct workload *wl, char *why,
                       size_t why_len);
void *engine__h1_setup_new(const struct config *c, const struct workload *wl);
void engine__h1_setup_free(void *setup);

#endif
