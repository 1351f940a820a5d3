/*
 * The close of an h1 connection, which every layer of h1 asks for (a
 * slot's failure, its protocols, where it connects, the transport's
 * close): its slot lets go of it at once and it reads nothing more; the
 * socket closes within a pass's budget (closer.h), after TLS's
 * close_notify when the socket takes it at once; its protocol hears of it
 * (h1_proto.closed) once it has closed. Worker thread only.
 */
#include <stdlib.h>

#include "engine/transport.h"

#include "engine/h1/internal.h"

static void on_conn_closed(uv_handle_t *h)
{
    struct h1_conn *c = container_of((uv_tcp_t *)h, struct h1_conn, tcp);

    engine__h1_worker_of(h)->fds_used--;
    if (c->proto && c->proto->closed)
        c->proto->closed(c);
    tls_conn_free(c->tls);
    if (c->is_counted)
        engine__worker_conn_closed(engine__h1_worker_of(h));
    free(c->copy);
    free(c);
}

/* The close of c its turn came to (closer.h): close_notify when the
 * socket takes it at once, never waited for; then the socket. */
static void close_now(struct closing *x)
{
    struct h1_conn *c = container_of(x, struct h1_conn, closing);

    if (c->tls && c->is_tls_ready && !c->is_writing) {
        const char *data;
        size_t n;

        tls_close_notify(c->tls);
        n = tls_out(c->tls, &data);
        if (n) {
            uv_buf_t b = uv_buf_init((char *)data, (unsigned)n);

            (void)uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
        }
    }
    uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
}

/* Closes c, now or within a later pass's budget; its slot (if any) lets go
 * of it at once, and it reads nothing more. Pending requests on it end
 * with UV_ECANCELED, which their callbacks ignore. */
void engine__h1_conn_close(struct h1_conn *c)
{
    if (c->s)
        h1_slot_of(c->s)->conn = NULL;
    c->s = NULL;
    if (c->is_let_go)
        return;
    c->is_let_go = 1;
    uv_read_stop((uv_stream_t *)&c->tcp);
    closer_close(&engine__h1_worker_of((uv_handle_t *)&c->tcp)->closer, &c->closing, close_now);
}
