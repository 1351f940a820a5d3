/*
 * h2c: HTTP/2 over cleartext TCP with prior knowledge (RFC 9113, 3.3), on
 * a port of its own (--h2c). One thread serves every connection with
 * nghttp2 (a server session each) and an epoll set; each stream is one
 * request that goes through serve.c (endpoint, fault, body, capacity
 * model, answer) as an HTTP/1.1 request does, and is counted in the same
 * ground truth. Waits (the queue, /delay, a stall, a drip) are timers of
 * this thread, in a heap; nothing sleeps. The faults in HTTP/2 terms are
 * in h2c_reply.c.
 *
 * Bounds: H2C_CONNS_MAX connections (more are closed at accept),
 * H2C_STREAMS_MAX concurrent streams per connection (SETTINGS), request
 * header blocks of H2C_HEADER_BYTES (more resets the stream), request
 * bodies as serve.c caps them, and a connection's output one frame at a
 * time: while the socket will not take it, its requests are not read.
 */
#include "target/h2c.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/xalloc.h"

#define H2C_EVENTS 64
#define H2C_READ_BYTES 16384
#define H2C_READS_PER_EVENT 8 /* then the other connections get their turn */

static void heap_place(struct h2c *h, size_t i, struct h2c_stream *s)
{
    h->heap[i] = s;
    s->heap_pos = i;
}

static void heap_up(struct h2c *h, size_t i)
{
    struct h2c_stream *s = h->heap[i];

    while (i > 0 && h->heap[(i - 1) / 2]->due_ns > s->due_ns) {
        heap_place(h, i, h->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_place(h, i, s);
}

static void heap_down(struct h2c *h, size_t i)
{
    struct h2c_stream *s = h->heap[i];

    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = l;
        if (l >= h->n_heap)
            break;
        if (r < h->n_heap && h->heap[r]->due_ns < h->heap[l]->due_ns)
            m = r;
        if (h->heap[m]->due_ns >= s->due_ns)
            break;
        heap_place(h, i, h->heap[m]);
        i = m;
    }
    heap_place(h, i, s);
}

void h2c__timer_cancel(struct h2c *h, struct h2c_stream *s)
{
    size_t i = s->heap_pos;
    struct h2c_stream *last;

    if (i == SIZE_MAX)
        return;
    s->heap_pos = SIZE_MAX;
    h->n_heap--;
    if (i < h->n_heap) {
        last = h->heap[h->n_heap];
        heap_place(h, i, last);
        heap_down(h, i);
        heap_up(h, last->heap_pos);
    }
}

void h2c__timer_set(struct h2c *h, struct h2c_stream *s, uint64_t after_us)
{
    h2c__timer_cancel(h, s);
    if (h->n_heap == h->cap_heap) {
        h->cap_heap = h->cap_heap ? h->cap_heap * 2 : 64;
        h->heap = xrealloc(h->heap, h->cap_heap * sizeof(*h->heap));
    }
    s->due_ns = clock_now_ns() + after_us * 1000u;
    heap_place(h, h->n_heap++, s);
    heap_up(h, s->heap_pos);
}

/* ---- Streams ----------------------------------------------------------- */

static struct h2c_stream *stream_of(nghttp2_session *session, int32_t id)
{
    return nghttp2_session_get_stream_user_data(session, id);
}

static void stream_free(struct h2c_conn *c, struct h2c_stream *s)
{
    struct target *t = c->h->t;

    /* A request counted whose reply did not go out whole, and that we
     * did not end ourselves: its client left (RST_STREAM, or the
     * connection closed). */
    if (s->is_counted && !s->is_complete && !s->is_self)
        atomic_fetch_add(&t->stats.client_aborts, 1);
    h2c__timer_cancel(c->h, s);
    if (s->r)
        target__req_free(t, s->r);
    for (size_t i = 0; i < s->n_hdr; i++) {
        free((char *)s->hdr[i].name);
        free((char *)s->hdr[i].value);
    }
    free(s->path);
    if (s->prev)
        s->prev->next = s->next;
    else
        c->streams = s->next;
    if (s->next)
        s->next->prev = s->prev;
    free(s);
}

/* close_after_reply: a request the client sent after our GOAWAY (a
 * stream beyond its last one, which nghttp2 ignores) is counted, once. */
static void count_late(struct h2c_conn *c, uint8_t type, int32_t stream_id)
{
    if (c->is_goaway && type == NGHTTP2_HEADERS && (stream_id & 1) &&
        stream_id > c->max_stream_id) {
        c->max_stream_id = stream_id;
        atomic_fetch_add(&c->h->t->stats.requests_after_close, 1);
    }
}

static int on_begin_frame(nghttp2_session *session, const nghttp2_frame_hd *hd, void *user_data)
{
    (void)session;
    count_late(user_data, hd->type, hd->stream_id);
    return 0;
}

/* Our FIN is out and nghttp2 wants no more bytes (it drops them unread):
 * the client's frames are walked by their 9-byte headers, so a request
 * that crossed the GOAWAY is still counted. */
static void late_frames(struct h2c_conn *c, const uint8_t *p, size_t n)
{
    while (n > 0) {
        const uint8_t *h = c->late_hd;
        size_t k;

        if (c->late_skip > 0) {
            k = c->late_skip < n ? c->late_skip : n;
            c->late_skip -= k;
            p += k;
            n -= k;
            continue;
        }
        c->late_hd[c->late_hd_n++] = *p++;
        n--;
        if (c->late_hd_n < sizeof(c->late_hd))
            continue;
        c->late_hd_n = 0;
        c->late_skip = (size_t)h[0] << 16 | (size_t)h[1] << 8 | h[2];
        count_late(c, h[3],
                   (int32_t)((uint32_t)(h[5] & 0x7f) << 24 | (uint32_t)h[6] << 16 |
                             (uint32_t)h[7] << 8 | h[8]));
    }
}

static int on_begin_headers(nghttp2_session *session, const nghttp2_frame *frame, void *user_data)
{
    struct h2c_conn *c = user_data;
    struct h2c_stream *s;

    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    if (c->is_goaway && frame->hd.stream_id > c->goaway_last_id) {
        /* Counted in on_begin_frame; refused, so the client may send it again. */
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id,
                                  NGHTTP2_REFUSED_STREAM);
        return 0;
    }
    s = xcalloc(1, sizeof(*s));
    s->c = c;
    s->id = frame->hd.stream_id;
    s->heap_pos = SIZE_MAX;
    if (s->id > c->max_stream_id)
        c->max_stream_id = s->id;
    s->next = c->streams;
    if (c->streams)
        c->streams->prev = s;
    c->streams = s;
    nghttp2_session_set_stream_user_data(session, s->id, s);
    return 0;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name,
                     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
                     void *user_data)
{
    struct h2c_stream *s = stream_of(session, frame->hd.stream_id);

    (void)flags;
    (void)user_data;
    if (!s || frame->hd.type != NGHTTP2_HEADERS)
        return 0;
    s->hdr_bytes += namelen + valuelen + 32; /* RFC 9113, 6.5.2's size of a field */
    if (s->hdr_bytes > H2C_HEADER_BYTES || s->n_hdr == H2C_HEADERS_MAX)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* resets the stream */
    if (namelen == 7 && memcmp(name, ":method", 7) == 0) {
        snprintf(s->method, sizeof(s->method), "%.*s", (int)valuelen, (const char *)value);
    } else if (namelen == 5 && memcmp(name, ":path", 5) == 0 && !s->path) {
        char *q;
        s->path = xstrndup((const char *)value, valuelen);
        q = strchr(s->path, '?');
        if (q) {
            *q = '\0';
            s->query = q + 1;
        }
    } else if (namelen > 0 && name[0] != ':') {
        s->hdr[s->n_hdr].name = xstrndup((const char *)name, namelen);
        s->hdr[s->n_hdr].value = xstrndup((const char *)value, valuelen);
        s->n_hdr++;
    }
    return 0;
}

/* The request as serve.c reads it. */
void h2c__req_in(const struct h2c_stream *s, struct req_in *in)
{
    memset(in, 0, sizeof(*in));
    in->url = s->path ? s->path : "/";
    in->method = s->method;
    in->hdr = s->hdr;
    in->n_hdr = s->n_hdr;
    in->query = s->query;
}

/* Resets the whole connection (RST): over max_connections. */
static void conn_reset(struct h2c_conn *c)
{
    struct linger lg = {.l_onoff = 1, .l_linger = 0};

    if (setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) == 0)
        atomic_fetch_add(&c->h->t->stats.resets_sent, 1);
    c->is_dead = 1;
}

/* The request's header block is in: count it, draw its fault. */
static void request_begins(struct h2c_conn *c, struct h2c_stream *s)
{
    struct target *t = c->h->t;
    struct req_in in;
    const char *arg;
    enum endpoint ep;
    enum fault f;

    h2c__req_in(s, &in);
    atomic_fetch_add_explicit(&t->stats.requests_total, 1, memory_order_relaxed);
    s->is_counted = 1;
    if (c->is_over_limit) {
        s->is_self = 1;
        conn_reset(c);
        return;
    }
    ep = target__serve_endpoint(in.url, &arg);
    atomic_fetch_add_explicit(&t->stats.requests_by_ep[ep], 1, memory_order_relaxed);
    f = target__serve_fault(t, ep, target__req_header(&in, "x-brink-fault"));
    if (f == FAULT_RESET) {
        h2c__reset(c, s, NGHTTP2_INTERNAL_ERROR);
        atomic_fetch_add(&t->stats.resets_sent, 1);
        return;
    }
    s->r = target__req_new(t, ep, f, s->method);
}

/* The body is in: admit, then wait or answer. */
void h2c__admit(struct h2c_conn *c, struct h2c_stream *s)
{
    struct req_in in;
    uint64_t wait_us;

    h2c__req_in(s, &in);
    if (target__serve_admit(c->h->t, &in, s->r, &wait_us) == SERVE_WAIT) {
        s->timer = H2C_T_ADMIT;
        h2c__timer_set(c->h, s, wait_us);
        return;
    }
    h2c__answer(c, s);
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame, void *user_data)
{
    struct h2c_conn *c = user_data;
    struct h2c_stream *s = stream_of(session, frame->hd.stream_id);

    if (!s || (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA))
        return 0;
    if (frame->hd.type == NGHTTP2_HEADERS && !s->is_counted)
        request_begins(c, s);
    if (s->r && !s->is_admitted && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
        s->is_admitted = 1;
        h2c__admit(c, s);
    }
    return 0;
}

static int on_data(nghttp2_session *session, uint8_t flags, int32_t id, const uint8_t *data,
                   size_t len, void *user_data)
{
    struct h2c_stream *s = stream_of(session, id);

    (void)flags;
    (void)user_data;
    if (s && s->r && !s->is_admitted)
        target__req_take_body(s->r, (const char *)data, len);
    return 0;
}

static int on_stream_close(nghttp2_session *session, int32_t id, uint32_t code, void *user_data)
{
    struct h2c_conn *c = user_data;
    struct h2c_stream *s = stream_of(session, id);

    (void)code;
    if (!s)
        return 0;
    nghttp2_session_set_stream_user_data(session, id, NULL);
    stream_free(c, s);
    return 0;
}

/* ---- Connections ------------------------------------------------------- */

static nghttp2_session_callbacks *callbacks_new(void)
{
    nghttp2_session_callbacks *cb;

    if (nghttp2_session_callbacks_new(&cb) != 0)
        xalloc_die("nghttp2");
    nghttp2_session_callbacks_set_on_begin_frame_callback(cb, on_begin_frame);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
    nghttp2_session_callbacks_set_on_frame_send_callback(cb, h2c__on_frame_send);
    nghttp2_session_callbacks_set_on_frame_not_send_callback(cb, h2c__on_frame_not_send);
    return cb;
}

static void conn_watch(struct h2c_conn *c)
{
    struct epoll_event ev = {.data.ptr = c};
    uint32_t want = c->out_len > c->out_off ? EPOLLOUT : EPOLLIN;

    if (want == c->events)
        return;
    /* While output waits, a half-close must not wake us over and over:
     * it is seen once the socket takes our bytes and reading resumes. */
    ev.events = want == EPOLLIN ? want | EPOLLRDHUP : want;
    epoll_ctl(c->h->epoll_fd, EPOLL_CTL_MOD, c->fd, &ev);
    c->events = want;
}

static void conn_free(struct h2c_conn *c)
{
    struct h2c *h = c->h;
    struct h2c_stream *s;

    /* nghttp2_session_del does not report its streams closed: their
     * requests are ended here, and the session forgets them first. */
    while ((s = c->streams) != NULL) {
        s->is_self |= c->is_dead; /* our reset ended them, not the client */
        nghttp2_session_set_stream_user_data(c->session, s->id, NULL);
        stream_free(c, s);
    }
    nghttp2_session_del(c->session);
    epoll_ctl(h->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    if (c->prev)
        c->prev->next = c->next;
    else
        h->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    h->n_conns--;
    atomic_fetch_sub(&h->t->stats.active_connections, 1);
    free(c);
}

/* Writes what nghttp2 has to send until the socket is full; -1 when the
 * connection is over. nghttp2's buffer stays valid until its next
 * mem_send, which waits until the socket took it all. */
static int conn_flush(struct h2c_conn *c)
{
    const uint8_t *drop;

    if (c->is_shut) {
        /* Our FIN is out: what nghttp2 would still send goes nowhere. */
        while (nghttp2_session_mem_send(c->session, &drop) > 0)
            ;
        return 0;
    }
    for (;;) {
        if (c->out_off == c->out_len) {
            ssize_t n = nghttp2_session_mem_send(c->session, &c->out);
            if (n < 0)
                return -1;
            c->out_len = (size_t)n;
            c->out_off = 0;
            if (n == 0)
                break;
        }
        ssize_t w =
            send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (w <= 0)
            return -1;
        c->out_off += (size_t)w;
    }
    if (c->is_dead)
        return -1;
    if (!c->is_shut && !nghttp2_session_want_read(c->session) &&
        !nghttp2_session_want_write(c->session) && c->out_off == c->out_len) {
        if (!c->is_goaway)
            return -1;
        /* close_after_reply: our side is done. As over HTTP/1.1, a FIN,
         * then read until the client closes: a close with its next request
         * unread would be a reset, and that request would go uncounted. */
        shutdown(c->fd, SHUT_WR);
        c->is_shut = 1;
    }
    conn_watch(c);
    return 0;
}

/* Reads what the client sent, a budget at a time; -1 when it is over. */
static int conn_read(struct h2c_conn *c)
{
    uint8_t buf[H2C_READ_BYTES];

    for (int i = 0; i < H2C_READS_PER_EVENT && c->out_off == c->out_len; i++) {
        ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n <= 0)
            return -1; /* the client closed or reset it */
        if (c->is_shut) {
            /* Only counted: nothing more is sent. */
            if (nghttp2_session_want_read(c->session))
                nghttp2_session_mem_recv(c->session, buf, (size_t)n);
            else
                late_frames(c, buf, (size_t)n);
            continue;
        }
        if (nghttp2_session_mem_recv(c->session, buf, (size_t)n) < 0)
            return -1; /* not HTTP/2, or broken: nghttp2 said why (GOAWAY) */
        if (conn_flush(c) != 0 || c->is_dead)
            return -1;
    }
    return 0;
}

static void conn_event(struct h2c_conn *c, uint32_t events)
{
    int rc = 0;

    /* Reset, or closed both ways: no reply can reach the client. What it
     * sent before its close is read first: a request that crossed our
     * GOAWAY is in the ground truth (requests_after_close). */
    if (events & (EPOLLHUP | EPOLLERR)) {
        if (!(events & EPOLLERR))
            conn_read(c);
        conn_free(c);
        return;
    }
    if (events & (EPOLLIN | EPOLLRDHUP))
        rc = conn_read(c);
    if (rc == 0)
        rc = conn_flush(c);
    if (rc != 0)
        conn_free(c);
}

static void conn_accept(struct h2c *h)
{
    static const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, H2C_STREAMS_MAX},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, H2C_HEADER_BYTES},
    };
    struct epoll_event ev;
    struct h2c_conn *c;
    unsigned max;
    long long active;
    int fd, one = 1;

    for (int i = 0; i < H2C_EVENTS; i++) {
        fd = accept(h->listen_fd, NULL, NULL);
        if (fd < 0)
            return;
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        fcntl(fd, F_SETFL, O_NONBLOCK);
        /* A reply is a few frames, each its own send: without this, Nagle
         * holds the last one for the client's delayed ACK (40 ms). */
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (h->n_conns >= H2C_CONNS_MAX) {
            close(fd);
            continue;
        }
        c = xcalloc(1, sizeof(*c));
        c->h = h;
        c->fd = fd;
        if (nghttp2_session_server_new2(&c->session, h->callbacks, c, h->option) != 0)
            xalloc_die("nghttp2");
        nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, settings,
                                sizeof(settings) / sizeof(settings[0]));
        c->next = h->conns;
        if (h->conns)
            h->conns->prev = c;
        h->conns = c;
        h->n_conns++;
        atomic_fetch_add_explicit(&h->t->stats.connections_accepted, 1, memory_order_relaxed);
        active = atomic_fetch_add(&h->t->stats.active_connections, 1) + 1;
        max = atomic_load_explicit(&h->t->max_connections, memory_order_relaxed);
        /* Accepted, then reset at its first request, as over HTTP/1.1. */
        c->is_over_limit = max > 0 && active > (long long)max;
        c->events = EPOLLIN;
        ev.events = EPOLLIN | EPOLLRDHUP;
        ev.data.ptr = c;
        epoll_ctl(h->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
        if (conn_flush(c) != 0)
            conn_free(c);
    }
}

/* ---- The thread ---------------------------------------------------------- */

static int next_wait_ms(struct h2c *h)
{
    uint64_t now = clock_now_ns();

    if (h->n_heap == 0)
        return 1000;
    if (h->heap[0]->due_ns <= now)
        return 0;
    return (int)((h->heap[0]->due_ns - now + 999999) / 1000000);
}

/* Runs the timers that are due, then writes what they made. */
static void run_timers(struct h2c *h)
{
    uint64_t now = clock_now_ns();

    while (h->n_heap > 0 && h->heap[0]->due_ns <= now) {
        struct h2c_stream *s = h->heap[0];
        struct h2c_conn *c = s->c;

        h2c__timer_cancel(h, s);
        h2c__timer_fire(c, s);
        if (conn_flush(c) != 0)
            conn_free(c);
    }
}

static void *h2c_thread(void *arg)
{
    struct h2c *h = arg;
    struct epoll_event ev[H2C_EVENTS];

    while (!atomic_load(&h->stopping)) {
        int n = epoll_wait(h->epoll_fd, ev, H2C_EVENTS, next_wait_ms(h));
        for (int i = 0; i < n; i++) {
            if (ev[i].data.ptr == h)
                conn_accept(h);
            else if (ev[i].data.ptr != &h->wake_fd)
                conn_event(ev[i].data.ptr, ev[i].events);
        }
        run_timers(h);
    }
    while (h->conns)
        conn_free(h->conns);
    return NULL;
}

int target__h2c_start(struct target *t, int listen_fd, struct h2c **out)
{
    struct h2c *h = xcalloc(1, sizeof(*h));
    struct epoll_event ev = {.events = EPOLLIN};
    sigset_t all, old;
    int rc;

    h->t = t;
    h->listen_fd = listen_fd;
    h->callbacks = callbacks_new();
    if (nghttp2_option_new(&h->option) != 0)
        xalloc_die("nghttp2");
    /* huge_header sends one header of up to 16 MiB. */
    nghttp2_option_set_max_send_header_block_length(h->option, H2C_SEND_HEADER_BYTES);
    h->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    h->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (h->epoll_fd < 0 || h->wake_fd < 0) {
        rc = -errno;
        goto fail;
    }
    ev.data.ptr = h;
    epoll_ctl(h->epoll_fd, EPOLL_CTL_ADD, listen_fd, &ev);
    ev.data.ptr = &h->wake_fd;
    epoll_ctl(h->epoll_fd, EPOLL_CTL_ADD, h->wake_fd, &ev);
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    rc = -pthread_create(&h->thread, NULL, h2c_thread, h);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0) {
        *out = h;
        return 0;
    }
fail:
    if (h->epoll_fd >= 0)
        close(h->epoll_fd);
    if (h->wake_fd >= 0)
        close(h->wake_fd);
    nghttp2_option_del(h->option);
    nghttp2_session_callbacks_del(h->callbacks);
    free(h);
    return rc;
}

void target__h2c_stop(struct h2c *h)
{
    uint64_t one = 1;

    if (!h)
        return;
    atomic_store(&h->stopping, 1);
    if (write(h->wake_fd, &one, sizeof(one)) < 0) {
        /* the counter is full: the thread is awake anyway */
    }
    pthread_join(h->thread, NULL);
    close(h->epoll_fd);
    close(h->wake_fd);
    free(h->heap);
    nghttp2_option_del(h->option);
    nghttp2_session_callbacks_del(h->callbacks);
    free(h);
}
