/*
 * Where an h1 connection goes and how it gets there: the worker's one
 * lookup of the target's name (off the loop, engine/lookup.c), the connect budget
 * of each loop pass (pace.h), the target's addresses tried in turn while
 * nobody listens at one, and unix sockets, connected by hand. Once a
 * connection is established, h1/conn.c takes over (engine__h1_connected).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/xalloc.h"
#include "engine/h1/internal.h"

static void connect_from(struct transport_slot *s, uint32_t i);

/* What a failed connect of s says: "connect", and the path of a unix
 * socket, which the errno's words alone would not name. */
static const char *connect_what(const struct transport_slot *s, char *buf, size_t cap)
{
    const struct sockaddr_storage *a = engine__h1_addr_of(s);

    if (a->ss_family != AF_UNIX)
        return "connect";
    snprintf(buf, cap, "connect to %s", ((const struct sockaddr_un *)a)->sun_path);
    return buf;
}

/* The deadline of a connect (and of the lookup before it), from the
 * request's start: connect_timeout, or the request's timeout if shorter. */
static void on_connect(uv_connect_t *req, int status)
{
    struct h1_conn *c = container_of(req, struct h1_conn, connect);
    struct transport_slot *s = c->s;

    if (status == UV_ECANCELED || !s)
        return;
    if (status < 0) {
        if (engine__is_address_error(status) &&
            h1_slot_of(s)->n_tried < h1_worker_of(s->w)->addrs.n) {
            engine__h1_conn_close(c);
            connect_from(s, h1_slot_of(s)->addr_i + 1);
            return;
        }
        engine__h1_fail(s, TRANSFER_CONNECT, -status, "connect");
        return;
    }
    engine__h1_connected(s, c);
}

/*
 * Connects tcp to the unix socket sun by hand, as uv_tcp_connect takes IP
 * addresses only, then hands the fd to libuv, which drives any stream
 * socket alike. On Linux a unix socket's connect never stays in progress:
 * it is done or it failed (EAGAIN when the server's backlog is full).
 * Returns 0 once connected, or a UV_E* code.
 */
static int unix_connect(uv_tcp_t *tcp, const struct sockaddr_un *sun)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int rc;

    if (fd < 0)
        return uv_translate_sys_error(errno);
    rc = connect(fd, (const struct sockaddr *)sun, sizeof(*sun)) < 0 ? uv_translate_sys_error(errno)
                                                                     : uv_tcp_open(tcp, fd);
    if (rc < 0)
        close(fd);
    return rc;
}

/* Starts a connection of s to the target's address i. Returns 0 when it
 * is under way, 1 when it is already established (a unix socket), or the
 * error of the connect (the connection is then closing). */
static int conn_try(struct transport_slot *s, uint32_t i)
{
    struct h1_slot *h = h1_slot_of(s);
    struct transport_worker *w = s->w;
    struct h1_conn *c = xcalloc(1, sizeof(*c));
    const struct sockaddr_storage *a = &h1_worker_of(w)->addrs.at[i];
    uint64_t t0 = uv_hrtime();
    int rc;

    uv_tcp_init(&w->loop, &c->tcp);
    if (a->ss_family == AF_UNIX) {
        rc = unix_connect(&c->tcp, (const struct sockaddr_un *)a);
        rc = rc < 0 ? rc : 1;
    } else {
        rc = uv_tcp_connect(&c->connect, &c->tcp, (const struct sockaddr *)a, on_connect);
    }
    pace_begun(&w->pace, 1);
    pace_took(&w->pace, 1, uv_hrtime() - t0);
    w->fds_used++;
    c->begun_ns = t0;
    c->s = s;
    h->conn = c;
    h->addr_i = i;
    h->n_tried++;
    if (rc < 0) {
        engine__h1_conn_close(c);
        return rc;
    }
    c->is_counted = 1;
    engine__worker_conn_opened(w);
    return rc;
}

/* Connects s to the target's address i (modulo their number), or to the
 * next ones while a connect fails at once for want of an address. */
static void connect_from(struct transport_slot *s, uint32_t i)
{
    uint32_t n = h1_worker_of(s->w)->addrs.n;
    char what[sizeof(((struct sockaddr_un *)0)->sun_path) + 16];
    int rc;

    while ((rc = conn_try(s, i % n)) < 0) {
        /* No socket (EMFILE) or no local port (EADDRNOTAVAIL on every
         * address) are brink's own limits, which classify.c shows apart. */
        if (!engine__is_address_error(rc) || h1_slot_of(s)->n_tried >= n) {
            engine__h1_fail(s, TRANSFER_CONNECT, -rc, connect_what(s, what, sizeof(what)));
            return;
        }
        i++;
    }
    if (rc == 1) {
        engine__h1_connected(s, h1_slot_of(s)->conn);
        return;
    }
    /* The deadline counts from the request's start, whatever address. */
    engine__h1_arm_timer(s, engine__slot_connect_limit_us(s));
}

/* s needs the target's addresses: it waits for the worker's lookup (the
 * one running, else a new one) within its connect deadline, as libcurl
 * counts its lookups in the connect timeout. */
static void wait_for_addrs(struct transport_slot *s)
{
    struct h1_worker *hw = h1_worker_of(s->w);
    const struct h1_setup *p = h1_setup_of(s->w);
    struct h1_slot *h = h1_slot_of(s);
    int rc;

    if (!hw->lookup) {
        rc = engine__lookup_start(p->connect_host, p->connect_port, p->family, &hw->resolved,
                                  &hw->lookup);
        if (rc < 0) {
            engine__h1_fail(s, TRANSFER_DNS, -rc, "cannot start the name lookup");
            return;
        }
    }
    h->is_looking_up = 1;
    dlist_push_tail(&hw->waiting, &h->in_line);
    engine__h1_arm_timer(s, engine__slot_connect_limit_us(s));
}

/* The worker's lookup ended: every slot that waited for it connects, or
 * fails as dns. The list is taken whole, and every slot on it marked no
 * longer waiting, first: a slot that fails starts its next request at
 * once, which waits for the next lookup on a new list, which nothing may
 * unlink from this one. */
void engine__h1_on_resolved(uv_async_t *a)
{
    struct h1_worker *hw = container_of(a, struct h1_worker, resolved);
    char why[LOOKUP_WHY_MAX];
    struct dlist taken;
    struct dlist_node *x;
    int rc;

    /* libuv coalesces sends, and one may come after the result was taken. */
    if (!hw->lookup ||
        (rc = engine__lookup_result(hw->lookup, &hw->addrs, why, sizeof(why))) == -EAGAIN)
        return;
    /* One sample per lookup, however many slots waited for it. */
    if (rc == 0)
        engine__worker_phase(engine__h1_worker_of((uv_handle_t *)a), PHASE_DNS,
                             engine__lookup_took_us(hw->lookup));
    engine__lookup_release(hw->lookup);
    hw->lookup = NULL;
    hw->has_addrs = rc == 0;
    taken = hw->waiting;
    dlist_init(&hw->waiting);
    for (x = taken.head; x; x = x->next)
        container_of(x, struct h1_slot, in_line)->is_looking_up = 0;
    while ((x = dlist_pop_head(&taken)) != NULL) {
        struct h1_slot *h = container_of(x, struct h1_slot, in_line);

        if (rc == 0)
            engine__h1_conn_open(h->s);
        else
            engine__h1_fail(h->s, TRANSFER_DNS, 0, why);
    }
}

/* The pass's budget of new connections is spent: s connects in a later
 * pass, behind those queued before it, within its connect deadline. */
static void queue_connect(struct transport_slot *s)
{
    struct h1_worker *hw = h1_worker_of(s->w);
    struct h1_slot *h = h1_slot_of(s);

    h->is_queued = 1;
    dlist_push_tail(&hw->queued, &h->in_line);
    engine__h1_arm_timer(s, engine__slot_connect_limit_us(s));
    uv_idle_start(&hw->paced, engine__h1_on_paced);
}

/* A new pass: the queued connects its budget allows, oldest first. A connect
 * that fails at once completes its slot, whose next request may queue
 * again, at the tail. */
void engine__h1_on_paced(uv_idle_t *i)
{
    struct h1_worker *hw = container_of(i, struct h1_worker, paced);
    struct transport_worker *w = engine__h1_worker_of((uv_handle_t *)i);

    while (hw->queued.head && pace_left(&w->pace) > 0 && !closer_is_busy(&w->closer)) {
        struct h1_slot *h = container_of(hw->queued.head, struct h1_slot, in_line);

        engine__h1_unlink_queued(hw, h);
        h->n_tried = 0;
        connect_from(h->s, hw->addr_at);
    }
    if (!hw->queued.head)
        uv_idle_stop(i);
}

void engine__h1_conn_open(struct transport_slot *s)
{
    struct h1_worker *hw = h1_worker_of(s->w);

    h1_slot_of(s)->n_tried = 0;
    if (!hw->has_addrs)
        wait_for_addrs(s);
    else if (hw->queued.head || pace_left(&s->w->pace) == 0 || closer_is_busy(&s->w->closer))
        queue_connect(s);
    else
        connect_from(s, hw->addr_at);
}
