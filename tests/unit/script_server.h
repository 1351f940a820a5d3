/*
 * A scripted HTTP/1.1 server for the transport tests, in the libuv style:
 * it runs on the loop of the client under test, bound to 127.0.0.1 port
 * 0. Its script is the byte stream it writes for every request head it
 * reads and what it does with the connection after. It counts what it
 * read and wrote (the ground truth of a transport's byte counts), and
 * closes itself once its owner says the run is over, so that the loop
 * ends. Used by test_engine_run.c (a real engine worker) and
 * test_transports.c (each transport against a fake engine).
 */
#ifndef BRINK_TESTS_SCRIPT_SERVER_H
#define BRINK_TESTS_SCRIPT_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#define SCRIPT_SERVER_OK (-1)           /* the class of a run with no error */
#define SCRIPT_SERVER_MAX_CONNS 1024    /* connections a run opens at most here */
#define SCRIPT_SERVER_REQUEST_MAX 4096  /* bytes of one request head */
#define SCRIPT_SERVER_WATCHDOG_MS 20000 /* a run not over by then is stopped */
#define HEAD200 "HTTP/1.1 200 OK\r\n"   /* a reply's status line */

/* What the server does once it wrote a reply (or instead of one). */
enum after {
    KEEP,               /* keeps the connection for the next request */
    CLOSE,              /* closes it (FIN) once the reply is written */
    CLOSE_ON_NEXT,      /* keeps it, and closes it (FIN) when the next request comes */
    RESET_ON_NEXT,      /* keeps it, and resets it when the next request comes */
    SHUT_RESET_ON_NEXT, /* the same with a FIN first, as a race with a close does */
    RESET,              /* resets it instead of replying */
    STALL,              /* never replies */
};

struct server_script {
    const char *name;
    const char *reply; /* written once per request; NULL: made by make() */
    size_t len;        /* 0: strlen(reply) */
    void (*make)(struct server_script *sc);
    int is_drip; /* one byte per loop pass */
    enum after after;
    int want;            /* the class of every request, SCRIPT_SERVER_OK for none */
    const char *needle;  /* in the class's first message, any case */
    uint32_t users;      /* concurrency; 0: 1 */
    uint32_t timeout_ms; /* [target] timeout; 0: 5 s, far above any other outcome */
};

struct server_conn {
    uv_tcp_t tcp;
    struct script_server *srv;
    char req[SCRIPT_SERVER_REQUEST_MAX];
    size_t req_len;
    uint32_t n_requests;
    uv_idle_t drip;
    size_t drip_at;
    int has_drip;
    int is_closing;
    uv_write_t write;
};

struct script_server {
    uv_tcp_t listener;
    uv_prepare_t done_check;
    uv_timer_t watchdog;
    const struct server_script *sc;
    /* Asked once per loop pass: the server closes once it says the run is
     * over. on_watchdog: the run took SCRIPT_SERVER_WATCHDOG_MS; it must
     * end it. Both get arg. */
    int (*is_over)(void *arg);
    void (*on_watchdog)(void *arg);
    void *arg;
    struct server_conn *conns[SCRIPT_SERVER_MAX_CONNS];
    uint32_t n_conns;
    uint64_t n_requests;    /* request heads read */
    uint64_t bytes_read;    /* request bytes read */
    uint64_t bytes_written; /* reply bytes written */
    uint64_t n_crossed; /* requests that came on a connection it then closed or reset (_ON_NEXT) */
    uint32_t n_peer_closed; /* connections the client closed */
    int is_closed;
    int watchdog_fired;
};

/* A listening socket on 127.0.0.1, port 0; its port in *port. */
int script_server_listen(uint16_t *port);
/* Serves sc on loop from fd (script_server_listen's); srv's is_over,
 * on_watchdog and arg are set by the caller first. */
void script_server_start(struct script_server *srv, uv_loop_t *loop, int fd,
                         const struct server_script *sc);
/* Closes every connection, the listener and the server's own handles. */
void script_server_close(struct script_server *srv);
/* Frees the connections, once the loop has ended (its counts stay). */
void script_server_free(struct script_server *srv);
/* Makes sc's reply if sc has a make() and no reply yet, and sets its len;
 * script_server_unmake frees a made reply. */
void script_server_make(struct server_script *sc);
void script_server_unmake(struct server_script *sc);

/* ---- Broken replies (issue 22, A to C): both transports must put each in
 * the same class, with a message that names the problem. ---------------- */
extern struct server_script script_server_broken[];
extern const size_t script_server_n_broken;

#endif
