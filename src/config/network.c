/*
 * The value types of [target]'s connection keys: the TLS files, the server
 * name, connect_to routes, a unix socket path and a proxy URL. Each is
 * checked when the file is read, so `brink check` refuses what a run
 * would refuse.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "config/internal.h"
#include "core/ascii.h"
#include "core/xalloc.h"

static void *field_of(const struct config_key *k, void *base)
{
    return (char *)base + k->offset;
}

static const void *cfield_of(const struct config_key *k, const void *base)
{
    return (const char *)base + k->offset;
}

/* A PEM file (ca_file, client_cert, client_key): read when the run starts,
 * so checked now; its value becomes the resolved path. */
static int parse_file(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                      const struct config_value *v, char *why, size_t why_len)
{
    struct config_str *s = field_of(k, base);
    char *path = NULL;

    if (v->value[0] == '\0') {
        snprintf(why, why_len, "expected a file name, got \"\"");
        return -EINVAL;
    }
    if (config__resolve_file(ctx, "", v->value, &path, why, why_len) < 0)
        return -EINVAL;
    config__set_str(s, v);
    free(s->value);
    s->value = path;
    return 0;
}

/* A host name or address literal, as sent in TLS's server name. */
static int parse_host_name(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                           const struct config_value *v, char *why, size_t why_len)
{
    char shown[CONFIG_SHOW_MAX];
    size_t len = strlen(v->value);

    (void)ctx;
    for (const char *p = v->value; *p; p++) {
        unsigned char c = (unsigned char)*p;

        if (c <= ' ' || c >= 0x7F || c == '/' || c == '@') {
            len = 0;
            break;
        }
    }
    if (len == 0 || len > CONFIG_HOST_MAX) {
        snprintf(why, why_len, "expected a host name such as api.test, got \"%s\"",
                 config__show(v->value, shown));
        return -EINVAL;
    }
    config__set_str(field_of(k, base), v);
    return 0;
}

/* Takes one field of a connect_to line from *p: a host (an IPv6 literal in
 * brackets) or a port, up to the next colon. */
static int route_field(const char **p, char *out, size_t cap, int is_host)
{
    const char *s = *p, *end;
    size_t len;

    if (is_host && *s == '[') {
        end = strchr(s, ']');
        if (!end || (end[1] != ':' && end[1] != '\0'))
            return -EINVAL;
        s++;
        len = (size_t)(end - s);
        end++;
    } else {
        end = s + strcspn(s, ":");
        len = (size_t)(end - s);
    }
    if (len >= cap)
        return -EINVAL;
    memcpy(out, s, len);
    out[len] = '\0';
    *p = *end == ':' ? end + 1 : end;
    return *end == ':' ? 1 : 0; /* 1: more fields follow */
}

static int route_port(const char *text, uint16_t *port)
{
    char *end;
    unsigned long n;

    *port = 0;
    if (text[0] == '\0')
        return 0;
    if (text[0] < '0' || text[0] > '9')
        return -EINVAL;
    n = strtoul(text, &end, 10);
    if (*end != '\0' || n < 1 || n > 65535)
        return -EINVAL;
    *port = (uint16_t)n;
    return 0;
}

int config_route_parse(const char *text, struct config_route *r, char *why, size_t why_len)
{
    char port[8], to_port[8], shown[CONFIG_SHOW_MAX];
    const char *p = text;

    memset(r, 0, sizeof(*r));
    if (route_field(&p, r->host, sizeof(r->host), 1) != 1 ||
        route_field(&p, port, sizeof(port), 0) != 1 ||
        route_field(&p, r->to_host, sizeof(r->to_host), 1) != 1 ||
        route_field(&p, to_port, sizeof(to_port), 0) != 0 || route_port(port, &r->port) < 0 ||
        route_port(to_port, &r->to_port) < 0) {
        snprintf(
            why, why_len,
            "expected HOST:PORT:ADDR:PORT such as api.test:443:127.0.0.1:8443 (empty parts allowed, ports 1 to 65535), got \"%s\"",
            config__show(text, shown));
        return -EINVAL;
    }
    return 0;
}

static int parse_route(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                       const struct config_value *v, char *why, size_t why_len)
{
    uint32_t *n = (uint32_t *)((char *)base + k->count_offset);
    struct config_str *routes = field_of(k, base);
    struct config_route r;

    (void)ctx;
    if (config_route_parse(v->value, &r, why, why_len) < 0)
        return -EINVAL;
    if (*n == CONFIG_MAX_CONNECT_TO) {
        snprintf(why, why_len, "too many connect_to lines (expected at most %d)",
                 CONFIG_MAX_CONNECT_TO);
        return -EINVAL;
    }
    config__set_str(&routes[(*n)++], v);
    return 0;
}

static void write_routes(const struct config_key *k, const void *base, FILE *out)
{
    uint32_t n = *(const uint32_t *)((const char *)base + k->count_offset);
    const struct config_str *routes = cfield_of(k, base);

    for (uint32_t i = 0; i < n; i++)
        fprintf(out, "%s = %s\n", k->name, routes[i].raw);
}

/* A unix socket's path: it may appear only when the server starts, so it
 * need not exist yet; if something is there, it must be a socket. */
static int parse_socket_path(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                             const struct config_value *v, char *why, size_t why_len)
{
    struct config_str *s = field_of(k, base);
    char shown[CONFIG_SHOW_MAX];
    size_t len = strlen(ctx->dir) + strlen(v->value) + 2;
    char *path = xmalloc(len);
    struct stat st;

    if (v->value[0] == '/')
        snprintf(path, len, "%s", v->value);
    else
        snprintf(path, len, "%s/%s", ctx->dir, v->value);
    if (v->value[0] == '\0' || strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        snprintf(why, why_len, "expected a socket path of 1 to %zu bytes, got \"%s\"",
                 sizeof(((struct sockaddr_un *)0)->sun_path) - 1, config__show(path, shown));
        free(path);
        return -EINVAL;
    }
    if (stat(path, &st) == 0 && !S_ISSOCK(st.st_mode)) {
        snprintf(why, why_len, "%s is not a socket (expected the path a server listens on)",
                 config__show(path, shown));
        free(path);
        return -EINVAL;
    }
    config__set_str(s, v);
    free(s->value);
    s->value = path;
    return 0;
}

static const char *const proxy_schemes[] = {"http://",   "https://",   "socks4://", "socks4a://",
                                            "socks5://", "socks5h://", NULL};

static int parse_proxy_url(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                           const struct config_value *v, char *why, size_t why_len)
{
    char shown[CONFIG_SHOW_MAX];
    size_t host_len = 0;

    (void)ctx;
    for (int i = 0; proxy_schemes[i]; i++) {
        size_t len = strlen(proxy_schemes[i]);

        if (strncasecmp(v->value, proxy_schemes[i], len) == 0) {
            host_len = strcspn(v->value + len, "/?# \t");
            break;
        }
    }
    if (host_len == 0 || strpbrk(v->value, " \t")) {
        config__show(v->value, shown);
        snprintf(why, why_len,
                 "expected a proxy URL such as http://proxy.test:3128 (http, https, socks4, "
                 "socks4a, socks5 or socks5h), got \"%s\"",
                 shown);
        return -EINVAL;
    }
    config__set_str(field_of(k, base), v);
    return 0;
}

/* Written with its password redacted; nothing when unset. */
static void write_proxy_url(const struct config_key *k, const void *base, FILE *out)
{
    if (((const struct config_str *)cfield_of(k, base))->raw)
        config__write_url(k, base, out);
}

const struct config_type config__file = {parse_file, config__write_raw, 1};
/* Whether s[0..n) is a region or service name AWS could use: letters,
 * digits, '-', '_' and '.', 1 to 63 bytes. */
static int is_scope_name(const char *s, size_t n)
{
    if (n == 0 || n > 63)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!ascii_is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return 0;
    }
    return 1;
}

/* aws_sigv4 = REGION/SERVICE, or off. */
static int parse_sigv4_scope(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                             const struct config_value *v, char *why, size_t why_len)
{
    char shown[CONFIG_SHOW_MAX];
    const char *slash = strchr(v->value, '/');

    (void)ctx;
    if (strcmp(v->value, "off") != 0 &&
        (!slash || !is_scope_name(v->value, (size_t)(slash - v->value)) ||
         !is_scope_name(slash + 1, strlen(slash + 1)))) {
        snprintf(why, why_len, "expected REGION/SERVICE such as us-east-1/s3, or off, got \"%s\"",
                 config__show(v->value, shown));
        return -EINVAL;
    }
    config__set_str(field_of(k, base), v);
    return 0;
}

const struct config_type config__host_name = {parse_host_name, config__write_raw, 1};
const struct config_type config__route = {parse_route, write_routes, 1};
const struct config_type config__socket_path = {parse_socket_path, config__write_raw, 1};
const struct config_type config__proxy_url = {parse_proxy_url, write_proxy_url, 1};
const struct config_type config__sigv4_scope = {parse_sigv4_scope, config__write_raw, 1};
