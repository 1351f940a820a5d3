#include "core/errclass.h"

#include <string.h>

static const struct {
    const char *name;
    enum err_origin origin;
    const char *describe;
} classes[ERR__COUNT] = {
    [ERR_REFUSED] = {"refused", ERR_ORIGIN_TARGET,
                     "the server refused the connection (nothing listening, or backlog full)"},
    [ERR_CONNECT_TIMEOUT] = {"connect_timeout", ERR_ORIGIN_NETWORK,
                             "the connection was not established within the connect timeout"},
    [ERR_DNS] = {"dns", ERR_ORIGIN_NETWORK, "the host name could not be resolved"},
    [ERR_TLS] = {"tls", ERR_ORIGIN_TARGET, "the TLS handshake or certificate check failed"},
    [ERR_RESET] = {"reset", ERR_ORIGIN_TARGET, "the server reset the connection (ECONNRESET)"},
    [ERR_BROKEN_PIPE] = {"broken_pipe", ERR_ORIGIN_TARGET,
                         "the server closed the connection while brink was sending (EPIPE)"},
    [ERR_CLOSED_EARLY] = {"closed_early", ERR_ORIGIN_TARGET,
                          "the server closed before a full reply (empty reply or partial body)"},
    [ERR_TIMEOUT] = {"timeout", ERR_ORIGIN_TARGET,
                     "the request did not complete within its timeout"},
    [ERR_MALFORMED] = {"malformed", ERR_ORIGIN_TARGET, "the reply was not valid HTTP"},
    [ERR_HTTP_4XX] = {"http_4xx", ERR_ORIGIN_TARGET, "the server answered with a 4xx status"},
    [ERR_HTTP_5XX] = {"http_5xx", ERR_ORIGIN_TARGET, "the server answered with a 5xx status"},
    [ERR_LOCAL_FD_LIMIT] = {"local_fd_limit", ERR_ORIGIN_LOCAL,
                            "brink ran out of file descriptors (EMFILE/ENFILE), not the server"},
    [ERR_LOCAL_NO_PORTS] = {"local_no_ports", ERR_ORIGIN_LOCAL,
                            "brink ran out of local ports (EADDRNOTAVAIL), not the server"},
    [ERR_OTHER] = {"other", ERR_ORIGIN_LOCAL, "any other failure, with libcurl's message"},
    [ERR_UNEXPECTED_STATUS] = {"unexpected_status", ERR_ORIGIN_TARGET,
                               "the server answered a 1xx to 3xx status that expect does not list"},
    [ERR_SCRIPT] = {"script", ERR_ORIGIN_LOCAL,
                    "a scenario script's iteration stopped on a Lua error, with its line"},
};

static int in_range(enum errclass c)
{
    return (int)c >= 0 && c < ERR__COUNT;
}

const char *errclass_name(enum errclass c)
{
    return in_range(c) ? classes[c].name : "?";
}

const char *errclass_describe(enum errclass c)
{
    return in_range(c) ? classes[c].describe : "";
}

enum err_origin errclass_origin(enum errclass c)
{
    return in_range(c) ? classes[c].origin : ERR_ORIGIN_LOCAL;
}

int errclass_from_name(const char *name)
{
    for (int i = 0; i < ERR__COUNT; i++) {
        if (strcmp(classes[i].name, name) == 0)
            return i;
    }
    return -1;
}

uint64_t errclass_sum(const uint64_t counts[ERR__COUNT])
{
    uint64_t n = 0;

    for (int c = 0; c < ERR__COUNT; c++)
        n += counts[c];
    return n;
}

void errclass_add(uint64_t dst[ERR__COUNT], const uint64_t src[ERR__COUNT])
{
    for (int c = 0; c < ERR__COUNT; c++)
        dst[c] += src[c];
}
