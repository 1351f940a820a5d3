/*
 * errclass: the classes every failed request lands in, exactly one each.
 * The names are a format: they appear on screen, in session files and in
 * reports, so a name never changes once released; new classes go before
 * ERR__COUNT and old session files keep reading. Pure data, any thread.
 */
#ifndef BRINK_CORE_ERRCLASS_H
#define BRINK_CORE_ERRCLASS_H

#include <stdint.h>

enum errclass {
    ERR_REFUSED,         /* refused: connection refused (RST to SYN) */
    ERR_CONNECT_TIMEOUT, /* connect_timeout: no answer to the connect in time */
    ERR_DNS,             /* dns: the host name did not resolve */
    ERR_TLS,             /* tls: TLS handshake or certificate failure */
    ERR_RESET,           /* reset: connection reset by the server (ECONNRESET) */
    ERR_BROKEN_PIPE,     /* broken_pipe: the server closed while we sent (EPIPE) */
    ERR_CLOSED_EARLY,    /* closed_early: empty reply or body cut short */
    ERR_TIMEOUT,         /* timeout: the request took longer than its timeout */
    ERR_MALFORMED,       /* malformed: the reply was not valid HTTP */
    ERR_HTTP_4XX,        /* http_4xx: the server answered 400-499 */
    ERR_HTTP_5XX,        /* http_5xx: the server answered 500-599 */
    ERR_LOCAL_FD_LIMIT,  /* local_fd_limit: brink ran out of file descriptors */
    ERR_LOCAL_NO_PORTS,  /* local_no_ports: brink ran out of local ports */
    ERR_OTHER,           /* other: anything else, with libcurl's text */
    /* unexpected_status: a 1xx to 3xx status that expect does not list */
    ERR_UNEXPECTED_STATUS,
    ERR_SCRIPT, /* script: a scenario script's iteration failed (a Lua error) */
    ERR__COUNT
};

/* Whose fault a class usually is: the operator reads LOCAL as "brink's machine
 * hit a limit", not "the server failed". */
enum err_origin {
    ERR_ORIGIN_TARGET,
    ERR_ORIGIN_NETWORK,
    ERR_ORIGIN_LOCAL,
};

/* Stable lower-case name ("broken_pipe"); "?" for a value out of range. */
const char *errclass_name(enum errclass c);
/* One line for help text and the console ("the server closed the connection
 * while brink was sending (EPIPE)"); "" for a value out of range. */
const char *errclass_describe(enum errclass c);
enum err_origin errclass_origin(enum errclass c);
/* The class named name, or -1 when there is none (for reading session files). */
int errclass_from_name(const char *name);
/* Failed requests in a table of counts by class: their sum, each failure
 * being in exactly one class. */
uint64_t errclass_sum(const uint64_t counts[ERR__COUNT]);
/* Adds each count of src to the same class in dst: two tables of counts by
 * class become one (workers into a tick, ticks into a step or a run). */
void errclass_add(uint64_t dst[ERR__COUNT], const uint64_t src[ERR__COUNT]);

#endif
