/*
 * listen: the listening sockets brink serves on (brink target, the metrics
 * endpoint of brink run): ADDR:PORT parsed without name lookups, and a
 * non-blocking socket bound before any thread starts, so port 0 and [::1]
 * work and the address served is known. Any thread.
 */
#ifndef BRINK_CORE_LISTEN_H
#define BRINK_CORE_LISTEN_H

#include <stddef.h>
#include <sys/socket.h>

/* Parses ADDR:PORT, with ADDR an IPv4 literal, [IPv6] or localhost, PORT
 * 0..65535, into *ss and *len. Returns 0 or -EINVAL. */
int listen_parse(const char *arg, struct sockaddr_storage *ss, socklen_t *len);

/* Binds and listens (SO_REUSEADDR; IPv6 only on an IPv6 address); returns
 * the socket (non-blocking, close-on-exec, the caller owns it) or -errno
 * with err holding why. url gets "SCHEME://ADDR:PORT" with the port bound. */
int listen_open(const struct sockaddr_storage *ss, socklen_t len, const char *scheme, char *url,
                size_t cap, char *err, size_t err_len);

#endif
