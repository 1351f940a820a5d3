/*
 * Name lookups for the transports that connect by themselves (h1, stream):
 * getaddrinfo off every loop thread (engine/lookup.c), localhost as the
 * loopback, IPv4 addresses first.
 */
#ifndef BRINK_ENGINE_LOOKUP_H
#define BRINK_ENGINE_LOOKUP_H

#include <stddef.h>
#include <stdint.h>

#include <sys/socket.h>

#include <uv.h>

#define ENGINE_ADDRS_MAX 8  /* addresses of a name kept */
#define LOOKUP_HOST_MAX 256 /* bytes of a host name, NUL included */
#define LOOKUP_WHY_MAX 320  /* bytes of a lookup's failure, NUL included */

/* A name's addresses: IPv4 ones first, then the others, each in
 * getaddrinfo's order, or (h1) one unix socket's (AF_UNIX). A connect that
 * fails for want of an address (refused, unreachable) tries the next. */
struct engine_addrs {
    struct sockaddr_storage at[ENGINE_ADDRS_MAX];
    uint32_t n; /* 1 to ENGINE_ADDRS_MAX */
};

struct lookup;
/* Resolves host and port into out (blocking getaddrinfo; flags adds AI_*
 * flags, such as AI_NUMERICHOST), IPv4 addresses first, at most
 * ENGINE_ADDRS_MAX, keeping those of family only (AF_INET or AF_INET6;
 * AF_UNSPEC keeps both: [target] ip). Returns 0; -EINVAL when
 * AI_NUMERICHOST was asked and host is no address literal; or
 * -EHOSTUNREACH, with one line in why (which says so when host has
 * addresses, but none of family). localhost and names under it are
 * 127.0.0.1 and ::1, as libcurl has them, looked up nowhere. Any thread. */
int engine__lookup_resolve(const char *host, uint16_t port, int flags, int family,
                           struct engine_addrs *out, char *why, size_t why_len);
/* Starts resolving host and port (engine__lookup_resolve, no flags) on a
 * thread of its own, which sends wake (the caller's handle) once the result
 * is in. Returns 0 and the lookup in *out, or a negative errno when no
 * thread could start (wake is then never sent). The caller's thread only. */
int engine__lookup_start(const char *host, uint16_t port, int family, uv_async_t *wake,
                         struct lookup **out);
/* The result of l: -EAGAIN while it runs, else what engine__lookup_resolve
 * returned, with addrs (on success) or why (on failure) filled in. */
int engine__lookup_result(struct lookup *l, struct engine_addrs *addrs, char *why, size_t why_len);
/* How long the lookup of l took, µs; meaningful once its result is in. */
uint64_t engine__lookup_took_us(struct lookup *l);
/* The owner lets go of l: wake is never sent after this returns (call it
 * before closing wake), and l is freed now or when its thread ends.
 * NULL: a no-op. */
void engine__lookup_release(struct lookup *l);
/* Whether a connect that failed with err (a UV_E* code) may work on
 * another address of the same name: nobody listens there, or it cannot be
 * reached from here (an IPv6 address on a host without IPv6, say). */
int engine__is_address_error(int err);

#endif
