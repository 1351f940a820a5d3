/*
 * Which transport carries a run. h1, brink's own HTTP/1.1 client, serves
 * http:// and https:// workloads whose request kinds all go to one origin
 * with no placeholder in it, over HTTP/1.1 or HTTP/2; everything else
 * (proxies, several hosts, user names in URLs) is libcurl's. transport = auto picks h1
 * whenever it can. Here too is where h1's connections go: the origin, the
 * address a connect_to line gives it, or a unix socket.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "config/config.h"
#include "core/msg.h"
#include "core/xalloc.h"
#include "engine/h1/wire.h"
#include "engine/transport.h"
#include "engine/h1/h1.h"

#define WHY_MAX 160

/* Checks that every kind of wl goes to one origin h1 can reach; *o is it.
 * On failure, why names the kind and the reason. */
static int check_kinds(const struct workload *wl, struct h1_origin *o, char *why, size_t why_len)
{
    char reason[WHY_MAX], name[TICK_NAME_MAX];
    struct h1_origin k;

    for (size_t i = 0; i < workload_n_kinds(wl); i++) {
        const struct workload_kind *wk = workload_kind(wl, i);
        int rc = h1_origin_parse(wk->url, &k, reason, sizeof(reason));

        if (rc == 0 && i > 0 && (strcmp(k.authority, o->authority) != 0 || k.is_tls != o->is_tls)) {
            snprintf(reason, sizeof(reason), "its host differs from the first kind's");
            rc = -EINVAL;
        }
        if (rc != 0) {
            msg_show(wk->name, name, sizeof(name));
            snprintf(why, why_len, "request kind %s: %s", name, reason);
            return rc;
        }
        if (i == 0)
            *o = k;
    }
    return 0;
}

/* The [target] keys only libcurl serves; why names the first set. */
static int check_target(const struct config_target *t, char *why, size_t why_len)
{
    if (t->proxy.value) {
        snprintf(why, why_len, "it sends no request through a proxy");
        return -EINVAL;
    }
    return 0;
}

/* Where connections to origin o go: the first connect_to line of t that
 * matches o's host (any case) and port and changes either, as libcurl
 * picks them; else o itself. */
static void route(struct h1_setup *p, const struct config_target *t, const struct h1_origin *o)
{
    struct config_route r;
    char why[WHY_MAX];

    p->connect_port = o->port;
    for (uint32_t i = 0; i < t->n_connect_to; i++) {
        /* The config checked every line when it read them. */
        if (config_route_parse(t->connect_to[i].value, &r, why, sizeof(why)) < 0 ||
            (r.host[0] && strcasecmp(r.host, o->host) != 0) || (r.port && r.port != o->port) ||
            (!r.to_host[0] && !r.to_port))
            continue;
        if (r.to_host[0])
            p->connect_host = xstrdup(r.to_host);
        if (r.to_port)
            p->connect_port = r.to_port;
        break;
    }
    if (!p->connect_host)
        p->connect_host = xstrdup(o->host);
}

/* The one address of [target] unix_socket: the config checked that its
 * path fits. */
static void unix_address(struct engine_addrs *a, const char *path)
{
    struct sockaddr_un *sun = (struct sockaddr_un *)&a->at[0];

    memset(a, 0, sizeof(*a));
    sun->sun_family = AF_UNIX;
    snprintf(sun->sun_path, sizeof(sun->sun_path), "%s", path);
    a->n = 1;
}

static struct h1_setup *setup_new(const struct workload *wl, const struct h1_origin *o,
                                  const struct config_target *t)
{
    static const int families[] = {
        [CONFIG_IP_ANY] = AF_UNSPEC,
        [CONFIG_IP_4] = AF_INET,
        [CONFIG_IP_6] = AF_INET6,
    };
    struct h1_setup *p = xcalloc(1, sizeof(*p));

    p->host = xstrdup(o->host);
    p->authority = xstrdup(o->authority);
    p->port = o->port;
    route(p, t, o);
    p->family = families[t->ip];
    p->is_tls = o->is_tls;
    p->h2 = t->http_version;
    p->tls_name = xstrdup(t->server_name.value ? t->server_name.value : o->host);
    p->n_kinds = workload_n_kinds(wl);
    p->kinds = xcalloc(p->n_kinds, sizeof(*p->kinds));
    for (size_t i = 0; i < p->n_kinds; i++) {
        h1_kind_build(&p->kinds[i], wl, i, o);
        if (p->kinds[i].head_max > p->head_max)
            p->head_max = p->kinds[i].head_max;
    }
    return p;
}

void engine__h1_setup_free(void *setup)
{
    struct h1_setup *p = setup;

    if (!p)
        return;
    for (size_t i = 0; i < p->n_kinds; i++)
        h1_kind_free(&p->kinds[i]);
    free(p->kinds);
    free(p->host);
    free(p->authority);
    free(p->connect_host);
    free(p->tls_name);
    free(p);
}

int engine__h1_accepts(const struct config *c, const struct workload *wl, char *why, size_t why_len)
{
    struct h1_origin o;
    int rc = check_target(&c->target, why, why_len);

    return rc == 0 ? check_kinds(wl, &o, why, why_len) : rc;
}

void *engine__h1_setup_new(const struct config *c, const struct workload *wl)
{
    struct h1_setup *p;
    struct h1_origin o;
    char why[2 * WHY_MAX];

    /* engine__h1_accepts found the one origin. */
    if (check_kinds(wl, &o, why, sizeof(why)) != 0)
        return NULL;
    p = setup_new(wl, &o, &c->target);
    if (c->target.unix_socket.value) {
        unix_address(&p->addrs, c->target.unix_socket.value);
        p->has_addrs = 1;
        return p;
    }
    /* An address literal needs no lookup. A name is looked up by each
     * worker, off its loop, when its first request needs it: here, on the
     * starting thread with every signal blocked, a DNS server that never
     * answers would hold the start, and a stop, for the lookup's 10 s. */
    p->has_addrs = engine__lookup_resolve(p->connect_host, p->connect_port, AI_NUMERICHOST,
                                          p->family, &p->addrs, why, sizeof(why)) == 0;
    return p;
}
