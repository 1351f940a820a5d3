/*
 * The scripted server of the transport tests (script_server.h). Its
 * assertions are cmocka's: a server that cannot listen or accept fails the
 * test that runs it.
 */
#include "script_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/container.h"
#include "core/errclass.h"
#include "core/xalloc.h"
#include "engine/h1/wire.h"

static void conn_close(struct server_conn *c, int is_reset)
{
    if (c->is_closing)
        return;
    c->is_closing = 1;
    /* Freed once the loop has ended (the server keeps every one). */
    if (c->has_drip)
        uv_close((uv_handle_t *)&c->drip, NULL);
    if (is_reset)
        uv_tcp_close_reset(&c->tcp, NULL);
    else
        uv_close((uv_handle_t *)&c->tcp, NULL);
}

static void on_written(uv_write_t *req, int status)
{
    struct server_conn *c = container_of(req, struct server_conn, write);

    if (status == 0)
        c->srv->bytes_written += c->srv->sc->len;
    if (status == 0 && c->srv->sc->after == CLOSE)
        conn_close(c, 0);
}

static void on_drip(uv_idle_t *i)
{
    struct server_conn *c = container_of(i, struct server_conn, drip);
    const struct server_script *sc = c->srv->sc;
    uv_buf_t b = uv_buf_init((char *)sc->reply + c->drip_at, 1);

    if (uv_try_write((uv_stream_t *)&c->tcp, &b, 1) == 1) {
        c->drip_at++;
        c->srv->bytes_written++;
    }
    if (c->drip_at == sc->len) {
        uv_idle_stop(i);
        if (sc->after == CLOSE)
            conn_close(c, 0);
    }
}

static void answer(struct server_conn *c)
{
    const struct server_script *sc = c->srv->sc;
    uv_buf_t b = uv_buf_init((char *)sc->reply, (unsigned)sc->len);

    c->n_requests++;
    c->srv->n_requests++;
    if (c->n_requests > 1 && (sc->after == SHUT_RESET_ON_NEXT || sc->after == RESET_ON_NEXT ||
                              sc->after == CLOSE_ON_NEXT))
        c->srv->n_crossed++;
    if (sc->after == SHUT_RESET_ON_NEXT && c->n_requests > 1) {
        int fd = -1;

        uv_fileno((uv_handle_t *)&c->tcp, &fd);
        shutdown(fd, SHUT_WR);
        conn_close(c, 1);
        return;
    }
    if (sc->after == RESET || (sc->after == RESET_ON_NEXT && c->n_requests > 1)) {
        conn_close(c, 1);
        return;
    }
    if (sc->after == CLOSE_ON_NEXT && c->n_requests > 1) {
        conn_close(c, 0);
        return;
    }
    if (sc->after == STALL)
        return;
    if (sc->is_drip) {
        c->drip_at = 0;
        uv_idle_start(&c->drip, on_drip);
        return;
    }
    /* The script's bytes outlive the run: no copy needed. */
    uv_write(&c->write, (uv_stream_t *)&c->tcp, &b, 1, on_written);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    struct server_conn *c = container_of((uv_tcp_t *)h, struct server_conn, tcp);

    (void)suggested;
    *buf = uv_buf_init(c->req + c->req_len, (unsigned)(sizeof(c->req) - c->req_len));
}

/* The end of the first request head in c's buffer, or NULL. */
static char *head_end(struct server_conn *c)
{
    for (size_t i = 0; i + 4 <= c->req_len; i++) {
        if (memcmp(c->req + i, "\r\n\r\n", 4) == 0)
            return c->req + i;
    }
    return NULL;
}

static void on_request_bytes(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
{
    struct server_conn *c = container_of((uv_tcp_t *)stream, struct server_conn, tcp);
    char *end;

    (void)buf;
    if (n < 0) {
        if (!c->is_closing)
            c->srv->n_peer_closed++;
        conn_close(c, 0);
        return;
    }
    c->req_len += (size_t)n;
    c->srv->bytes_read += (uint64_t)n;
    /* The requests are GETs without a body: a head ends each. */
    while (!c->is_closing && (end = head_end(c)) != NULL) {
        size_t used = (size_t)(end + 4 - c->req);

        memmove(c->req, c->req + used, c->req_len - used);
        c->req_len -= used;
        answer(c);
    }
    if (c->req_len == sizeof(c->req))
        conn_close(c, 0);
}

static void on_connection(uv_stream_t *listener, int status)
{
    struct script_server *srv = container_of((uv_tcp_t *)listener, struct script_server, listener);
    struct server_conn *c;

    assert_int_equal(status, 0);
    assert_true(srv->n_conns < SCRIPT_SERVER_MAX_CONNS);
    c = xcalloc(1, sizeof(*c));
    c->srv = srv;
    uv_tcp_init(listener->loop, &c->tcp);
    assert_int_equal(uv_accept(listener, (uv_stream_t *)&c->tcp), 0);
    if (srv->sc->is_drip) {
        uv_idle_init(listener->loop, &c->drip);
        c->has_drip = 1;
    }
    srv->conns[srv->n_conns++] = c;
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_request_bytes);
}

void script_server_close(struct script_server *srv)
{
    if (srv->is_closed)
        return;
    srv->is_closed = 1;
    for (uint32_t i = 0; i < srv->n_conns; i++)
        conn_close(srv->conns[i], 0);
    uv_close((uv_handle_t *)&srv->listener, NULL);
    uv_close((uv_handle_t *)&srv->done_check, NULL);
    uv_close((uv_handle_t *)&srv->watchdog, NULL);
}

/* Once the run is over the server goes too, so that the loop ends. */
static void on_done_check(uv_prepare_t *p)
{
    struct script_server *srv = container_of(p, struct script_server, done_check);

    if (srv->is_over(srv->arg))
        script_server_close(srv);
}

static void on_watchdog(uv_timer_t *t)
{
    struct script_server *srv = container_of(t, struct script_server, watchdog);

    srv->watchdog_fired = 1;
    srv->on_watchdog(srv->arg);
}

int script_server_listen(uint16_t *port)
{
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    assert_true(fd >= 0);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(fd, 64), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

void script_server_start(struct script_server *srv, uv_loop_t *loop, int fd,
                         const struct server_script *sc)
{
    srv->sc = sc;
    uv_tcp_init(loop, &srv->listener);
    assert_int_equal(uv_tcp_open(&srv->listener, fd), 0);
    assert_int_equal(uv_listen((uv_stream_t *)&srv->listener, 64, on_connection), 0);
    uv_prepare_init(loop, &srv->done_check);
    uv_prepare_start(&srv->done_check, on_done_check);
    uv_timer_init(loop, &srv->watchdog);
    uv_timer_start(&srv->watchdog, on_watchdog, SCRIPT_SERVER_WATCHDOG_MS, 0);
}

void script_server_free(struct script_server *srv)
{
    for (uint32_t i = 0; i < srv->n_conns; i++) {
        free(srv->conns[i]);
        srv->conns[i] = NULL;
    }
}

/* ---- Replies that are long to write out ------------------------------- */

static void make_many_headers(struct server_script *sc)
{
    size_t cap = 100 * (8192 + 64) + 256, len = 0;
    char *buf = xmalloc(cap);

    len += (size_t)snprintf(buf + len, cap - len, "HTTP/1.1 200 OK\r\n");
    for (int i = 0; i < 100; i++) {
        len += (size_t)snprintf(buf + len, cap - len, "X-H%d: ", i);
        memset(buf + len, 'a', 8192);
        len += 8192;
        len += (size_t)snprintf(buf + len, cap - len, "\r\n");
    }
    len += (size_t)snprintf(buf + len, cap - len, "Content-Length: 2\r\n\r\nok");
    sc->reply = buf;
    sc->len = len;
}

static void make_endless_continue(struct server_script *sc)
{
    static const char interim[] = "HTTP/1.1 100 Continue\r\n\r\n";
    size_t n = 2 * H1_HEADERS_MAX_BYTES / (sizeof(interim) - 1);
    char *buf = xmalloc(n * (sizeof(interim) - 1));

    for (size_t i = 0; i < n; i++)
        memcpy(buf + i * (sizeof(interim) - 1), interim, sizeof(interim) - 1);
    sc->reply = buf;
    sc->len = n * (sizeof(interim) - 1);
}

static void make_endless_header_line(struct server_script *sc)
{
    static const char start[] = "HTTP/1.1 200 OK\r\nX-Long: ";
    size_t n = 400 * 1024;
    char *buf = xmalloc(n);

    memset(buf, 'a', n);
    memcpy(buf, start, sizeof(start) - 1);
    sc->reply = buf;
    sc->len = n;
}

void script_server_make(struct server_script *sc)
{
    if (sc->make && !sc->reply)
        sc->make(sc);
    if (sc->reply && !sc->len)
        sc->len = strlen(sc->reply);
}

void script_server_unmake(struct server_script *sc)
{
    if (sc->make) {
        free((char *)sc->reply);
        sc->reply = NULL;
        sc->len = 0;
    }
}

/* ---- Broken replies (issue 22, A to C) -------------------------------- */

struct server_script script_server_broken[] = {
    {"a bad chunk size", HEAD200 "Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n", 0,
     NULL, 0, KEEP, ERR_MALFORMED, "chunk", 0, 0},
    {"an oversized chunk size",
     HEAD200 "Transfer-Encoding: chunked\r\n\r\n1FFFFFFFFFFFFFFFF\r\nabc\r\n0\r\n\r\n", 0, NULL, 0,
     KEEP, ERR_MALFORMED, "chunk", 0, 0},
    {"100 headers of 8 KiB", NULL, 0, make_many_headers, 0, KEEP, ERR_MALFORMED, "header", 0, 0},
    {"an endless run of 100 Continue", NULL, 0, make_endless_continue, 0, KEEP, ERR_MALFORMED,
     "header", 0, 0},
    {"Content-Length twice with different values",
     HEAD200 "Content-Length: 2\r\nContent-Length: 3\r\n\r\nok!", 0, NULL, 0, KEEP, ERR_MALFORMED,
     "content-length", 0, 0},
    {"Content-Length together with chunked",
     HEAD200 "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", 0, NULL,
     0, KEEP, ERR_MALFORMED, "content-length", 0, 0},
    {"a header line that never ends", NULL, 0, make_endless_header_line, 0, KEEP, ERR_MALFORMED,
     "header", 0, 0},
    {"a control character first in a header value",
     HEAD200 "X-Evil: \x07"
             "b\r\nContent-Length: 2\r\n\r\nok",
     0, NULL, 0, KEEP, ERR_MALFORMED, "control character", 0, 0},
    /* The server closes each connection after its reply, and the close
     * reaches brink only with its next request: sent again once on a
     * fresh connection, which answers (issue 22, B). With several users,
     * libcurl's own retry takes the next cached connection, as dead. A
     * reset instead is an error: a_crossed_close_is_sent_again_a_reset_is_not. */
    {"a server that closes after every reply", HEAD200 "Content-Length: 2\r\n\r\nok", 0, NULL, 0,
     CLOSE_ON_NEXT, SCRIPT_SERVER_OK, NULL, 4, 0},
    {"a server whose close after every reply races the next request",
     HEAD200 "Content-Length: 2\r\n\r\nok", 0, NULL, 0, SHUT_RESET_ON_NEXT, SCRIPT_SERVER_OK, NULL,
     4, 0},
};

const size_t script_server_n_broken =
    sizeof(script_server_broken) / sizeof(script_server_broken[0]);
