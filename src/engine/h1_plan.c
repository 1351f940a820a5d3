/*
 * Which transport carries a run. h1, brink's own HTTP/1.1 client, serves
 * plain http:// workloads whose request kinds all go to one origin with no
 * placeholder in it; everything else (https, several hosts, user names in
 * URLs) is libcurl's. transport = auto picks h1 whenever it can.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/msg.h"
#include "core/xalloc.h"
#include "engine/h1_wire.h"
#include "engine/internal.h"
#include "engine/workload.h"

#define WHY_MAX 160

/* Adds the IPv4 addresses of res to out, or all the others, in res's
 * order, as long as there is room. */
static void keep(struct h1_addrs *out, const struct addrinfo *res, int is_v4)
{
    for (const struct addrinfo *a = res; a && out->n < H1_ADDRS_MAX; a = a->ai_next) {
        if ((a->ai_family == AF_INET) != is_v4 || a->ai_addrlen > sizeof(out->at[0]))
            continue;
        memcpy(&out->at[out->n++], a->ai_addr, a->ai_addrlen);
    }
}

/* Resolves o once into out, IPv4 first: most test servers listen there,
 * and a name such as localhost often has both. */
static int resolve(const struct h1_origin *o, struct h1_addrs *out, char *why, size_t why_len)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res;
    char port[8];
    int rc;

    snprintf(port, sizeof(port), "%u", o->port);
    rc = getaddrinfo(o->host, port, &hints, &res);
    if (rc != 0) {
        snprintf(why, why_len, "cannot resolve the host: %s", gai_strerror(rc));
        return -EINVAL;
    }
    out->n = 0;
    keep(out, res, 1);
    keep(out, res, 0);
    freeaddrinfo(res);
    if (out->n == 0) {
        snprintf(why, why_len, "the host has no address h1 can connect to");
        return -EINVAL;
    }
    return 0;
}

/* Checks that every kind of wl goes to one origin h1 can reach; *o is it.
 * On failure, why names the kind and the reason. */
static int check_kinds(const struct workload *wl, struct h1_origin *o, char *why, size_t why_len)
{
    char reason[WHY_MAX], name[TICK_NAME_MAX];
    struct h1_origin k;

    for (size_t i = 0; i < workload_n_kinds(wl); i++) {
        const struct workload_kind *wk = workload_kind(wl, i);
        int rc = h1_origin_parse(wk->url, &k, reason, sizeof(reason));

        if (rc == 0 && i > 0 && strcmp(k.authority, o->authority) != 0) {
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

static struct h1_plan *plan_new(const struct workload *wl, const struct h1_origin *o)
{
    struct h1_plan *p = xcalloc(1, sizeof(*p));

    p->n_kinds = workload_n_kinds(wl);
    p->kinds = xcalloc(p->n_kinds, sizeof(*p->kinds));
    for (size_t i = 0; i < p->n_kinds; i++) {
        h1_kind_build(&p->kinds[i], wl, i, o);
        if (p->kinds[i].head_max > p->head_max)
            p->head_max = p->kinds[i].head_max;
    }
    return p;
}

void h1_plan_free(struct h1_plan *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_kinds; i++)
        h1_kind_free(&p->kinds[i]);
    free(p->kinds);
    free(p);
}

int transport_choose(struct engine *e, char *err, size_t err_len)
{
    enum config_transport want = e->config->target.transport;
    struct h1_addrs addrs;
    struct h1_origin o;
    char why[2 * WHY_MAX];
    int rc;

    e->tp = &transport_curl;
    if (want == CONFIG_TRANSPORT_CURL)
        return 0;
    rc = check_kinds(e->workload, &o, why, sizeof(why));
    if (rc == 0)
        rc = resolve(&o, &addrs, why, sizeof(why));
    if (rc != 0) {
        if (want == CONFIG_TRANSPORT_AUTO)
            return 0;
        snprintf(
            err, err_len,
            "brink: [target] transport: h1 cannot serve this run: %s (use transport = curl or auto)",
            why);
        return rc;
    }
    e->h1 = plan_new(e->workload, &o);
    e->h1->addrs = addrs;
    e->tp = &transport_h1;
    return 0;
}
