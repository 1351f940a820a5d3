/*
 * faults: choosing and producing the injected faults. The choice is a pure
 * function of the seed and the request's sequence number, so the same seed
 * and the same requests give the same faults. The low-level faults bypass
 * libmicrohttpd: an abortive close (SO_LINGER 0) for resets, and raw bytes
 * written to the socket before libmicrohttpd wrote anything for malformed
 * replies; under --tls the raw bytes go through the connection's GnuTLS
 * session, so the client sees the fault and not a broken TLS record.
 */
#include "target/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <gnutls/gnutls.h>

#include "core/xalloc.h"

/* Clear screen, set the window title, a hyperlink, a cursor-position query,
 * a bidi override and an 8-bit CSI; the stats name adds a carriage return
 * that overwrites the line (a header value cannot hold one). */
#define HOSTILE_COMMON                                                                             \
    "\033[2J\033]0;PWNED\007\033]8;;http://x.invalid/\033\\link"                                   \
    "\033]8;;\033\\\033[6n\xe2\x80\xae"                                                            \
    "desrever\xc2\x9b"                                                                             \
    "31m"
const char faults_hostile[] = HOSTILE_COMMON "\rover";
const char faults_hostile_header[] = HOSTILE_COMMON;

/* splitmix64: a well-mixed 64-bit value from any 64-bit input. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static enum fault draw(const struct settings *s, uint64_t seq)
{
    double u = (double)(mix(s->seed ^ mix(seq)) >> 11) / 9007199254740992.0; /* [0,1) */
    double acc = 0;

    for (int f = 1; f < FAULT_COUNT; f++) {
        acc += s->fault_p[f];
        if (u < acc)
            return (enum fault)f;
    }
    return FAULT_NONE;
}

static int any_probability(const struct settings *s)
{
    for (int f = 1; f < FAULT_COUNT; f++)
        if (s->fault_p[f] > 0)
            return 1;
    return 0;
}

/* Takes one forced fault from the control budget, if any is left. */
static enum fault take_forced(struct target *t)
{
    unsigned n = atomic_load_explicit(&t->force_remaining, memory_order_relaxed);

    while (n > 0) {
        if (atomic_compare_exchange_weak(&t->force_remaining, &n, n - 1))
            return (enum fault)atomic_load(&t->force_fault);
    }
    return FAULT_NONE;
}

enum fault target__faults_pick(struct target *t, const struct settings *s, const char *header)
{
    enum fault f = FAULT_NONE;

    if (header) {
        int named = settings_fault_by_name(header);
        f = named > 0 ? (enum fault)named : FAULT_NONE;
    }
    if (f == FAULT_NONE)
        f = take_forced(t);
    if (f == FAULT_NONE && any_probability(s))
        f = draw(s, atomic_fetch_add(&t->fault_seq, 1));
    if (f != FAULT_NONE)
        atomic_fetch_add(&t->stats.faults[f], 1);
    return f;
}

static int conn_fd(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

    return ci ? ci->connect_fd : -1;
}

void target__faults_reset(struct target *t, struct MHD_Connection *conn)
{
    struct linger lg = {.l_onoff = 1, .l_linger = 0};
    int fd = conn_fd(conn);

    /* With linger {1, 0}, close() discards unsent data and sends RST; the
     * daemon runs with MHD_USE_TURBO so it closes without a shutdown() (a
     * FIN) first. */
    if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) == 0)
        atomic_fetch_add(&t->stats.resets_sent, 1);
}

struct cut {
    struct target *t;
    const char *pattern; /* the /bytes pattern when owned is NULL */
    char *owned;
    uint64_t len, stop;
    int *is_cut; /* borrowed: the request's */
};

static ssize_t cut_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct cut *c = cls;
    size_t n;

    if (pos >= c->stop) {
        /* The close that follows is ours, not the client's. */
        *c->is_cut = 1;
        atomic_fetch_add(&c->t->stats.closed_early, 1);
        return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    n = c->stop - pos < max ? (size_t)(c->stop - pos) : max;
    if (c->owned)
        memcpy(buf, c->owned + pos, n);
    else
        target__content_pattern(buf, pos, n);
    atomic_fetch_add(&c->t->stats.bytes_sent, n);
    return (ssize_t)n;
}

static void cut_free(void *cls)
{
    struct cut *c = cls;

    free(c->owned);
    free(c);
}

struct MHD_Response *faults_cut_response(struct target *t, const char *pattern, char *owned,
                                         uint64_t len, int *is_cut)
{
    struct cut *c = xcalloc(1, sizeof(*c));
    struct MHD_Response *r;

    c->t = t;
    c->is_cut = is_cut;
    c->pattern = pattern;
    c->owned = owned;
    c->len = len;
    c->stop = len / 2;
    r = MHD_create_response_from_callback(len, 4096, cut_read, c, cut_free);
    if (!r) {
        c->owned = NULL; /* still the caller's */
        cut_free(c);
    }
    return r;
}

/* The connection's TLS session, or NULL when the daemon serves plain HTTP. */
static void *conn_tls(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);

    return ci ? ci->tls_session : NULL;
}

/* close_after_reply: a connection's socket context. */
struct fin_conn {
    uint64_t bytes_at_request; /* its socket's bytes received at its last request */
    int is_fin;                /* our FIN went out */
};

/* Bytes fd's socket has received (TCP_INFO), 0 when unknown. */
static uint64_t bytes_received(int fd)
{
    struct tcp_info ti;
    socklen_t len = sizeof(ti);

    if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0)
        return 0;
    return ti.tcpi_bytes_received;
}

void *target__faults_fin_new(void)
{
    return xcalloc(1, sizeof(struct fin_conn));
}

void target__faults_fin_request(struct MHD_Connection *conn, void *ctx)
{
    struct fin_conn *f = ctx;

    /* A client that waits for each reply has sent nothing more yet. */
    f->bytes_at_request = bytes_received(conn_fd(conn));
}

void target__faults_fin(struct target *t, struct MHD_Connection *conn, void *ctx)
{
    struct fin_conn *f = ctx;
    int fd = conn_fd(conn);

    /* Plain HTTP only: under TLS the FIN would skip its close_notify. */
    if (!f->is_fin && fd >= 0 && !conn_tls(conn) && shutdown(fd, SHUT_WR) == 0) {
        f->is_fin = 1;
        atomic_fetch_add(&t->stats.closed_after_reply, 1);
    }
}

int target__faults_is_after_fin(const void *ctx)
{
    return ((const struct fin_conn *)ctx)->is_fin;
}

void target__faults_fin_closed(struct target *t, struct MHD_Connection *conn, void *ctx)
{
    struct fin_conn *f = ctx;

    /* The client's FIN counts as one byte (TCP_INFO counts sequence
     * numbers); a request is more. */
    if (f->is_fin && bytes_received(conn_fd(conn)) > f->bytes_at_request + 1)
        atomic_fetch_add(&t->stats.requests_after_close, 1);
    free(f);
}

/*
 * send(2) on the connection, as TLS records when tls is its session. Only
 * one thread at a time may use a session: the access handler (libmicrohttpd
 * is not inside GnuTLS while it runs) or the timer thread while the
 * connection is suspended (libmicrohttpd leaves it alone). GnuTLS asks that
 * a send cut short by EAGAIN be repeated with the same bytes, which the
 * callers do (they retry from the same offset). Returns send's result, with
 * errno set on failure.
 */
static ssize_t raw_send(int fd, void *tls, const char *buf, size_t len, int flags)
{
    ssize_t n;

    if (!tls)
        return send(fd, buf, len, flags);
    n = gnutls_record_send((gnutls_session_t)tls, buf, len);
    if (n >= 0)
        return n;
    errno = n == GNUTLS_E_AGAIN ? EAGAIN : n == GNUTLS_E_INTERRUPTED ? EINTR : EPIPE;
    return -1;
}

/* Whether a failed send means the client is gone. */
static int is_peer_gone(int err)
{
    return err == EPIPE || err == ECONNRESET || err == ENOTCONN;
}

int target__faults_raw_write(struct target *t, struct MHD_Connection *conn, const char *buf,
                             size_t len)
{
    int fd = conn_fd(conn), rc = 0;
    void *tls = conn_tls(conn);
    size_t done = 0;

    if (fd < 0)
        return -EBADF;
    while (done < len) {
        ssize_t n = raw_send(fd, tls, buf + done, len - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = is_peer_gone(errno) ? -EPIPE : -EAGAIN;
            break;
        }
        done += (size_t)n;
    }
    atomic_fetch_add(&t->stats.bytes_sent, done);
    return rc;
}

char *target__faults_raw_reply(enum fault f, const struct settings *s, size_t *len)
{
    static const char malformed[] = "HTTP/1.1 2x0 Br\x01ken\r\nContent-Length: 0\r\n\r\n";
    static const char head[] = "HTTP/1.1 200 OK\r\nX-Brink-Huge: ";
    static const char tail[] = "\r\nContent-Length: 0\r\n\r\n";
    size_t n = s->huge_header_bytes;
    char *p;

    if (f == FAULT_MALFORMED_STATUS) {
        *len = sizeof(malformed) - 1;
        return xstrndup(malformed, *len);
    }
    *len = sizeof(head) - 1 + n + sizeof(tail) - 1;
    p = xmalloc(*len + 1);
    memcpy(p, head, sizeof(head) - 1);
    memset(p + sizeof(head) - 1, 'h', n);
    memcpy(p + sizeof(head) - 1 + n, tail, sizeof(tail));
    return p;
}

int target__faults_raw_start(struct raw_out *o, struct target *t, struct MHD_Connection *conn,
                             char *buf, size_t len, size_t step, uint32_t interval_us)
{
    o->t = t;
    o->fd = conn_fd(conn);
    o->tls = conn_tls(conn);
    o->buf = buf;
    o->len = len;
    o->off = 0;
    o->step = step;
    o->interval_us = interval_us;
    o->tries_left = RAW_MAX_TRIES;
    return o->fd < 0 ? -EBADF : 0;
}

int target__faults_raw_step(void *arg)
{
    struct raw_out *o = arg;
    size_t want = o->len - o->off;
    ssize_t n;

    if (o->step && want > o->step)
        want = o->step;
    n = raw_send(o->fd, o->tls, o->buf + o->off, want, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
        o->off += (size_t)n;
        atomic_fetch_add(&o->t->stats.bytes_sent, (unsigned long long)n);
    } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        /* Stop and let the connection close; an error other than the
         * client's leaving would be ours, and then the close is too. */
        return is_peer_gone(errno) ? -EPIPE : 0;
    }
    if (o->off == o->len || --o->tries_left == 0)
        return 0;
    /* A full socket buffer is retried soon; a drip waits its interval. */
    return n > 0 && o->step ? (int)o->interval_us : 1000;
}
