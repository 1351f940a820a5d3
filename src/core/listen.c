#include "core/listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/msg.h"

int listen_parse(const char *arg, struct sockaddr_storage *ss, socklen_t *len)
{
    struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
    const char *colon = strrchr(arg, ':');
    char host[64], *end;
    unsigned long port;
    size_t n;

    if (!colon || !colon[1])
        return -EINVAL;
    errno = 0;
    port = strtoul(colon + 1, &end, 10);
    if (errno || *end || port > 65535 || colon[1] == '-' || colon[1] == '+')
        return -EINVAL;
    n = (size_t)(colon - arg);
    if (n >= sizeof(host))
        return -EINVAL;
    memcpy(host, arg, n);
    host[n] = '\0';
    memset(ss, 0, sizeof(*ss));
    if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
        host[n - 1] = '\0';
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)port);
        *len = sizeof(*in6);
        return inet_pton(AF_INET6, host + 1, &in6->sin6_addr) == 1 ? 0 : -EINVAL;
    }
    in4->sin_family = AF_INET;
    in4->sin_port = htons((uint16_t)port);
    *len = sizeof(*in4);
    if (!strcmp(host, "localhost"))
        strcpy(host, "127.0.0.1");
    return inet_pton(AF_INET, host, &in4->sin_addr) == 1 ? 0 : -EINVAL;
}

int listen_open(const struct sockaddr_storage *ss, socklen_t len, const char *scheme, char *url,
                size_t cap, char *err, size_t err_len)
{
    int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int one = 1, e;
    struct sockaddr_storage bound;
    socklen_t blen = sizeof(bound);
    char host[INET6_ADDRSTRLEN];

    if (fd < 0) {
        e = errno;
        snprintf(err, err_len, "socket: %s", msg_errno(e).text);
        return -e;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (ss->ss_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    if (bind(fd, (const struct sockaddr *)ss, len) != 0 || listen(fd, 4096) != 0 ||
        getsockname(fd, (struct sockaddr *)&bound, &blen) != 0) {
        e = errno;
        snprintf(err, err_len, "%s", msg_errno(e).text);
        close(fd);
        return -e;
    }
    if (bound.ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&bound;
        inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
        snprintf(url, cap, "%s://[%s]:%u", scheme, host, ntohs(a->sin6_port));
    } else {
        const struct sockaddr_in *a = (const struct sockaddr_in *)&bound;
        inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
        snprintf(url, cap, "%s://%s:%u", scheme, host, ntohs(a->sin_port));
    }
    return fd;
}
