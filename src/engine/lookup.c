/*
 * The name lookups of the transports that connect by themselves (h1's
 * target, stream's brink.tcp and brink.ws): getaddrinfo on a detached
 * thread of its own, so that a DNS server that never answers blocks neither a worker's
 * loop nor its end. libuv's uv_getaddrinfo would not do: its request keeps
 * the loop alive until the lookup returns, and uv_cancel cannot stop one
 * that has begun. The result reaches the loop through the owner's async
 * handle; an owner that goes first lets go, and the thread frees the lookup
 * when it ends. engine__lookup_start, engine__lookup_result and engine__lookup_release run on the
 * owner's thread; the lookup's own thread touches only the struct, under
 * its lock.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/xalloc.h"
#include "engine/lookup.h"

struct lookup {
    pthread_mutex_t lock;
    int refs;         /* the thread's and the owner's */
    int is_done;      /* the thread filled rc, addrs and why */
    uv_async_t *wake; /* the owner's; NULL once it let go */
    char host[LOOKUP_HOST_MAX];
    char port[8];
    int family;       /* of the addresses kept: AF_UNSPEC, AF_INET or AF_INET6 */
    int rc;           /* 0, or a negative errno with why set */
    uint64_t took_us; /* how long getaddrinfo took */
    struct engine_addrs addrs;
    char why[LOOKUP_WHY_MAX];
};

/* Adds the IPv4 addresses of res to out, or all the others, in res's
 * order, as long as there is room. */
static void keep(struct engine_addrs *out, const struct addrinfo *res, int is_v4)
{
    for (const struct addrinfo *a = res; a && out->n < ENGINE_ADDRS_MAX; a = a->ai_next) {
        if ((a->ai_family == AF_INET) != is_v4 || a->ai_addrlen > sizeof(out->at[0]))
            continue;
        memcpy(&out->at[out->n++], a->ai_addr, a->ai_addrlen);
    }
}

/* Whether host is localhost or a name under it (any case, a final dot
 * allowed), which RFC 6761 reserves for the loopback addresses. */
static int is_localhost(const char *host)
{
    size_t n = strlen(host);

    if (n > 0 && host[n - 1] == '.')
        n--;
    return (n == 9 || (n > 9 && host[n - 10] == '.')) &&
           strncasecmp(host + n - 9, "localhost", 9) == 0;
}

/* The loopback addresses of family at port, 127.0.0.1 first, into out. */
static void loopback(struct engine_addrs *out, uint16_t port, int family)
{
    out->n = 0;
    if (family != AF_INET6) {
        struct sockaddr_in *a = (struct sockaddr_in *)&out->at[out->n++];

        memset(a, 0, sizeof(*a));
        a->sin_family = AF_INET;
        a->sin_port = htons(port);
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    }
    if (family != AF_INET) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&out->at[out->n++];

        memset(a, 0, sizeof(*a));
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(port);
        a->sin6_addr = in6addr_loopback;
    }
}

int engine__lookup_resolve(const char *host, uint16_t port, int flags, int family,
                           struct engine_addrs *out, char *why, size_t why_len)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV | flags};
    struct addrinfo *res;
    char service[8];
    int rc;

    /* libcurl resolves these itself, whatever /etc/hosts says (some files
     * lack ::1): so both transports reach the same addresses. */
    if (is_localhost(host)) {
        loopback(out, port, family);
        return 0;
    }
    snprintf(service, sizeof(service), "%u", port);
    rc = getaddrinfo(host, service, &hints, &res);
    if (rc != 0) {
        snprintf(why, why_len, "cannot resolve %s: %s", host, gai_strerror(rc));
        return rc == EAI_NONAME && (flags & AI_NUMERICHOST) ? -EINVAL : -EHOSTUNREACH;
    }
    /* IPv4 first: most test servers listen there, and a name such as
     * localhost often has both. Every family is asked for and the others
     * dropped here, so that a name without the family wanted is told from
     * a name that does not resolve. */
    out->n = 0;
    if (family != AF_INET6)
        keep(out, res, 1);
    if (family != AF_INET)
        keep(out, res, 0);
    freeaddrinfo(res);
    if (out->n == 0 && family != AF_UNSPEC) {
        snprintf(why, why_len, "%s has no IPv%c address (ip = %c)", host,
                 family == AF_INET ? '4' : '6', family == AF_INET ? '4' : '6');
        return -EHOSTUNREACH;
    }
    if (out->n == 0) {
        snprintf(why, why_len, "%s has no address brink can connect to", host);
        return -EHOSTUNREACH;
    }
    return 0;
}

/* Drops one reference (lock held); frees l with the last. Returns whether
 * it did. */
static int unref(struct lookup *l)
{
    if (--l->refs > 0)
        return 0;
    pthread_mutex_unlock(&l->lock);
    pthread_mutex_destroy(&l->lock);
    free(l);
    return 1;
}

static void *run(void *arg)
{
    struct lookup *l = arg;
    struct engine_addrs addrs = {0};
    char why[LOOKUP_WHY_MAX] = "";
    uint16_t port = (uint16_t)atoi(l->port);
    uint64_t t0 = uv_hrtime();
    int rc = engine__lookup_resolve(l->host, port, 0, l->family, &addrs, why, sizeof(why));
    uint64_t took_us = (uv_hrtime() - t0) / 1000;

    pthread_mutex_lock(&l->lock);
    l->rc = rc;
    l->took_us = took_us;
    l->addrs = addrs;
    memcpy(l->why, why, sizeof(why));
    l->is_done = 1;
    /* uv_async_send is safe from any thread; the owner clears wake under
     * this lock before it closes the handle. */
    if (l->wake)
        uv_async_send(l->wake);
    if (!unref(l))
        pthread_mutex_unlock(&l->lock);
    return NULL;
}

int engine__lookup_start(const char *host, uint16_t port, int family, uv_async_t *wake,
                         struct lookup **out)
{
    struct lookup *l = xcalloc(1, sizeof(*l));
    pthread_attr_t attr;
    pthread_t thread;
    int rc;

    pthread_mutex_init(&l->lock, NULL);
    l->refs = 2;
    l->wake = wake;
    snprintf(l->host, sizeof(l->host), "%s", host);
    snprintf(l->port, sizeof(l->port), "%u", port);
    l->family = family;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* The thread inherits the caller's signal mask: worker threads block
     * every signal, so the lookup's does too. */
    rc = pthread_create(&thread, &attr, run, l);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        pthread_mutex_destroy(&l->lock);
        free(l);
        return -rc;
    }
    *out = l;
    return 0;
}

int engine__lookup_result(struct lookup *l, struct engine_addrs *addrs, char *why, size_t why_len)
{
    int rc = -EAGAIN;

    pthread_mutex_lock(&l->lock);
    if (l->is_done) {
        rc = l->rc;
        *addrs = l->addrs;
        snprintf(why, why_len, "%s", l->why);
    }
    pthread_mutex_unlock(&l->lock);
    return rc;
}

uint64_t engine__lookup_took_us(struct lookup *l)
{
    uint64_t us;

    pthread_mutex_lock(&l->lock);
    us = l->took_us;
    pthread_mutex_unlock(&l->lock);
    return us;
}

void engine__lookup_release(struct lookup *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->lock);
    l->wake = NULL;
    if (!unref(l))
        pthread_mutex_unlock(&l->lock);
}

int engine__is_address_error(int err)
{
    return err == UV_ECONNREFUSED || err == UV_ENETUNREACH || err == UV_EHOSTUNREACH ||
           err == UV_EADDRNOTAVAIL || err == UV_EAFNOSUPPORT;
}
