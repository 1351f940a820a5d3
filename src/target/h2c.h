/*
 * h2c internals: the server, its connections and their streams, shared by
 * h2c.c (connections, requests, timers) and h2c_reply.c (answers and
 * faults in HTTP/2 terms). Everything runs on the h2c thread.
 */
#ifndef BRINK_TARGET_H2C_H
#define BRINK_TARGET_H2C_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <nghttp2/nghttp2.h>

#include "target/internal.h"

#define H2C_CONNS_MAX 4096     /* connections open at once; more are closed at accept */
#define H2C_STREAMS_MAX 100    /* SETTINGS_MAX_CONCURRENT_STREAMS */
#define H2C_HEADER_BYTES 65536 /* a request's header block (RFC 9113 sizes) */
#define H2C_HEADERS_MAX 64     /* regular header fields kept per request */
/* The largest header block sent: huge_header's (16 MiB at most) and more. */
#define H2C_SEND_HEADER_BYTES ((16u << 20) + 65536)

/* What a stream's timer does when it fires. */
enum h2c_timer {
    H2C_T_ADMIT,     /* admit again (backpressure) or answer (a wait is over) */
    H2C_T_STALL_END, /* a stall is over: end the stream */
    H2C_T_DRIP,      /* the next byte of a drip */
};

/* What a stream's data provider sends. */
enum h2c_body {
    H2C_BODY_WHOLE, /* the reply's body, len bytes */
    H2C_BODY_CUT,   /* up to stop, then RST_STREAM (close_mid_body) */
    H2C_BODY_STALL, /* nothing (stall) */
    H2C_BODY_DRIP,  /* one byte per drip interval, up to len */
};

struct h2c_conn;

/* One request: from its HEADERS until nghttp2 closes it. */
struct h2c_stream {
    struct h2c_conn *c;
    struct h2c_stream *prev, *next; /* the connection's streams */
    int32_t id;
    size_t heap_pos; /* in the timer heap, or SIZE_MAX */
    uint64_t due_ns;
    enum h2c_timer timer;
    char method[16];
    char *path;  /* without the query */
    char *query; /* what followed '?', or NULL */
    struct req_header hdr[H2C_HEADERS_MAX];
    size_t n_hdr, hdr_bytes;
    struct req *r; /* NULL until counted, and for a reset one */
    enum h2c_body body;
    uint64_t off, len, stop; /* body bytes given to nghttp2, to give, where a cut stops */
    int is_drip_due;         /* the drip's next byte may go */
    int is_counted;          /* in requests_total */
    int is_admitted;         /* its body is in */
    int is_complete;         /* END_STREAM went out: the reply is whole */
    int is_self;             /* we ended it on purpose (a fault) */
};

struct h2c;

struct h2c_conn {
    struct h2c *h;
    struct h2c_conn *prev, *next;
    int fd;
    nghttp2_session *session;
    const uint8_t *out; /* nghttp2's bytes not yet written */
    size_t out_len, out_off;
    uint32_t events; /* EPOLLIN or EPOLLOUT: what epoll watches */
    struct h2c_stream *streams;
    int32_t max_stream_id;  /* the highest request stream seen */
    int is_over_limit;      /* beyond max_connections: reset at its first request */
    int is_goaway;          /* close_after_reply: our GOAWAY is out */
    int32_t goaway_last_id; /* the last stream it let in */
    int is_shut;            /* close_after_reply: our FIN is out, reading until the client's */
    /* Once shut, nghttp2 takes no more bytes (it wants none): the frames
     * the client still sends are walked here (late_frames). */
    uint8_t late_hd[9];
    size_t late_hd_n;
    size_t late_skip;
    int is_dead; /* reset: close it */
};

struct h2c {
    struct target *t;
    pthread_t thread;
    atomic_int stopping;
    int listen_fd, epoll_fd, wake_fd;
    nghttp2_session_callbacks *callbacks;
    nghttp2_option *option;
    struct h2c_conn *conns;
    size_t n_conns;
    struct h2c_stream **heap; /* timers, a min-heap on due_ns */
    size_t n_heap, cap_heap;
};

/* h2c.c */
void h2c__timer_set(struct h2c *h, struct h2c_stream *s, uint64_t after_us);
void h2c__timer_cancel(struct h2c *h, struct h2c_stream *s);
void h2c__req_in(const struct h2c_stream *s, struct req_in *in);
void h2c__admit(struct h2c_conn *c, struct h2c_stream *s);

/* h2c_reply.c */
/* Builds the answer (serve.c) and sends it, or its fault. */
void h2c__answer(struct h2c_conn *c, struct h2c_stream *s);
/* Ends the stream with RST_STREAM code, on purpose. */
void h2c__reset(struct h2c_conn *c, struct h2c_stream *s, uint32_t code);
void h2c__timer_fire(struct h2c_conn *c, struct h2c_stream *s);
int h2c__on_frame_send(nghttp2_session *session, const nghttp2_frame *frame, void *user_data);
int h2c__on_frame_not_send(nghttp2_session *session, const nghttp2_frame *frame, int code,
                           void *user_data);

#endif
