/*
 * The curl transport's TLS and HTTP version options: [target] insecure,
 * ca_file, client_cert, client_key, server_name, tls_min, tls_resume,
 * http_version and streams, set once per worker (what its handles share)
 * and once per easy handle. The worker's thread, or the thread that
 * creates the worker before it starts.
 *
 * One trust store per worker. libcurl 7.88 with OpenSSL builds a new
 * SSL_CTX for every connection, and without a cache it loads the trust
 * store into each: the system bundle's 140-odd certificates, about 20 ms
 * of CPU a handshake. It keeps the store of a multi handle for
 * CURLOPT_CA_CACHE_TIMEOUT, but only when the store comes from one file:
 * Debian's libcurl also names /etc/ssl/certs as CURLOPT_CAPATH by
 * default, which turns the cache off. So every handle names its file
 * alone, and the store is loaded once per worker for the whole run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config.h"
#include "core/xalloc.h"
#include "engine/curl/internal.h"
#include "engine/transport.h"

#define AUTHORITY_MAX 512 /* bytes of a URL's user, host and port */

static const long tls_versions[] = {
    [CONFIG_TLS_1_0] = CURL_SSLVERSION_TLSv1_0,
    [CONFIG_TLS_1_1] = CURL_SSLVERSION_TLSv1_1,
    [CONFIG_TLS_1_2] = CURL_SSLVERSION_TLSv1_2,
    [CONFIG_TLS_1_3] = CURL_SSLVERSION_TLSv1_3,
};

static const long http_versions[] = {
    [CONFIG_HTTP_1_1] = CURL_HTTP_VERSION_1_1,
    /* HTTP/2 when the server's ALPN says so, else 1.1: https only. */
    [CONFIG_HTTP_2] = CURL_HTTP_VERSION_2TLS,
    [CONFIG_HTTP_H2C] = CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE,
};

/* ---- server_name ------------------------------------------------------ */

/* The parts of an absolute URL's authority. */
struct authority {
    size_t scheme_len; /* "https://" included */
    size_t end;        /* where the authority ends: its path, query or the end */
    const char *user;  /* "user:pass@", or the host when there is none */
    const char *host;  /* "[::1]" keeps its brackets */
    size_t host_len;   /* of host, brackets included */
    const char *port;  /* the digits after the host's colon, or NULL */
    size_t port_len;   /* of port */
    int is_https;      /* the scheme is https */
};

/* Splits url (an absolute http(s) URL, as workload_new made it) into a;
 * -EINVAL when its authority has a placeholder or is not host[:port]. */
static int split_authority(const char *url, struct authority *a)
{
    const char *p = strstr(url, "://"), *at, *h, *colon;

    memset(a, 0, sizeof(*a));
    if (!p)
        return -EINVAL;
    a->scheme_len = (size_t)(p - url) + 3;
    a->is_https = strncasecmp(url, "https://", 8) == 0;
    a->end = a->scheme_len + strcspn(url + a->scheme_len, "/?#");
    if (memchr(url + a->scheme_len, '{', a->end - a->scheme_len))
        return -EINVAL;
    a->user = url + a->scheme_len;
    h = a->user;
    at = memchr(h, '@', (size_t)(url + a->end - h));
    while (at) {
        h = at + 1;
        at = memchr(h, '@', (size_t)(url + a->end - h));
    }
    a->host = h;
    if (*h == '[') {
        const char *close = memchr(h, ']', (size_t)(url + a->end - h));

        if (!close)
            return -EINVAL;
        colon = close + 1 < url + a->end && close[1] == ':' ? close + 1 : NULL;
        a->host_len = (size_t)(close + 1 - h);
    } else {
        colon = memchr(h, ':', (size_t)(url + a->end - h));
        a->host_len = (size_t)((colon ? colon : url + a->end) - h);
    }
    if (colon) {
        a->port = colon + 1;
        a->port_len = (size_t)(url + a->end - a->port);
    }
    return a->host_len > 0 ? 0 : -EINVAL;
}

/* Whether the kind sets its own Host header, which then stays as it is. */
static int has_host_header(const struct workload_kind *k)
{
    for (size_t i = 0; i < k->n_headers; i++) {
        if (strncasecmp(k->headers[i], "Host:", 5) == 0)
            return 1;
    }
    return 0;
}

/*
 * Writes the CONNECT_TO line of a renamed kind into line: "NAME:PORT:TO:TOPORT",
 * where TO:TOPORT is where the URL's own host:port goes, that is the first
 * [target] connect_to line matching it that changes something (as libcurl
 * would have picked it for the URL as written), else the host itself.
 */
static void route_of(const struct config_target *t, const char *host, size_t host_len,
                     const char *port, char *line, size_t cap, const char *name)
{
    unsigned long port_n = strtoul(port, NULL, 10), to_port = port_n;
    char to[CONFIG_HOST_MAX + 3], why[160];
    struct config_route r;

    snprintf(to, sizeof(to), "%.*s", (int)host_len, host);
    for (uint32_t i = 0; i < t->n_connect_to; i++) {
        /* The config checked every line when it read them. */
        if (config_route_parse(t->connect_to[i].value, &r, why, sizeof(why)) < 0 ||
            (r.host[0] && (strlen(r.host) != host_len || strncasecmp(r.host, host, host_len))) ||
            (r.port && r.port != port_n) || (!r.to_host[0] && !r.to_port))
            continue;
        if (r.to_host[0])
            snprintf(to, sizeof(to), strchr(r.to_host, ':') ? "[%s]" : "%s", r.to_host);
        if (r.to_port)
            to_port = r.to_port;
        break;
    }
    snprintf(line, cap, "%s:%s:%s:%lu", name, port, to, to_port);
}

/*
 * Makes the rename of kind i: "https://10.0.0.5:8443/x" is sent as
 * "https://api.test:8443/x" with CURLOPT_CONNECT_TO "api.test:8443:10.0.0.5:8443"
 * and "Host: 10.0.0.5:8443". libcurl 7.88 has no option for the TLS server
 * name alone: it sends and checks the URL's host. CURLOPT_RESOLVE could
 * give server_name the URL's address, but only for an address literal;
 * CONNECT_TO sends the connection to the URL's host whatever it is, a name
 * included, and libcurl takes an explicit Host as HTTP/2's :authority too.
 */
static int make_rename(struct transport_worker *w, size_t i, char *err, size_t err_len)
{
    struct curl_worker *cw = curl_worker_of(w);
    const struct workload_kind *k = workload_kind(w->workload, i);
    const char *name = w->config->target.server_name.value;
    struct curl_rename *r = &cw->renames[i];
    struct authority a;
    char port[8], line[AUTHORITY_MAX + CONFIG_HOST_MAX + 16];
    size_t user_len, cap;

    if (split_authority(k->url, &a) < 0) {
        snprintf(
            err, err_len,
            "brink: [target] server_name: the host of %s's url has a placeholder (expected a fixed host with server_name)",
            k->name);
        return -EINVAL;
    }
    /* Plain http has no server name; a URL naming it already needs none. */
    if (!a.is_https || (a.host_len == strlen(name) && strncasecmp(a.host, name, a.host_len) == 0))
        return 0;
    if (a.end - a.scheme_len > AUTHORITY_MAX) {
        snprintf(err, err_len,
                 "brink: [target] server_name: the authority of %s's url is longer than %d bytes",
                 k->name, AUTHORITY_MAX);
        return -EINVAL;
    }
    snprintf(port, sizeof(port), "%.*s", a.port_len ? (int)a.port_len : 3,
             a.port_len ? a.port : "443");
    user_len = (size_t)(a.host - a.user);
    cap = a.scheme_len + user_len + strlen(name) + strlen(port) + 2;
    r->to = xmalloc(cap);
    snprintf(r->to, cap, "%.*s%.*s%s:%s", (int)a.scheme_len, k->url, (int)user_len, a.user, name,
             port);
    r->to_len = strlen(r->to);
    r->from_len = a.end;
    route_of(&w->config->target, a.host, a.host_len, port, line, sizeof(line), name);
    r->connect_to = curl_slist_append(NULL, line);
    if (!has_host_header(k)) {
        snprintf(line, sizeof(line), "Host: %.*s", (int)(k->url + a.end - a.host), a.host);
        cw->kind_headers[i] = curl_slist_append(cw->kind_headers[i], line);
    }
    if (!r->connect_to || !cw->kind_headers[i]) {
        snprintf(err, err_len, "brink: engine: out of memory for server_name");
        return -ENOMEM;
    }
    return 0;
}

static int make_renames(struct transport_worker *w, char *err, size_t err_len)
{
    size_t n_kinds = workload_n_kinds(w->workload);

    if (!w->config->target.server_name.value)
        return 0;
    curl_worker_of(w)->renames = xcalloc(n_kinds, sizeof(*curl_worker_of(w)->renames));
    for (size_t i = 0; i < n_kinds; i++) {
        int rc = make_rename(w, i, err, err_len);

        if (rc < 0)
            return rc;
    }
    return 0;
}

void engine__curl_tls_rename(const struct transport_worker *w, size_t kind, char *url, size_t cap)
{
    const struct curl_rename *r =
        curl_worker_of(w)->renames ? &curl_worker_of(w)->renames[kind] : NULL;
    size_t len;

    if (!r || !r->to)
        return;
    len = strlen(url);
    /* The authority has no placeholder, so every URL of the kind starts
     * as its template does; the tail always fits (URLs are at most
     * WORKLOAD_URL_MAX bytes in a CURL_URL_MAX buffer). */
    if (len < r->from_len || len - r->from_len + r->to_len >= cap)
        return;
    memmove(url + r->to_len, url + r->from_len, len - r->from_len + 1);
    memcpy(url, r->to, r->to_len);
}

/* ---- Per worker ------------------------------------------------------- */

/*
 * libcurl before 8.0.0 cannot send a second request on an h2c connection:
 * it stacks one more HTTP/2 layer on the connection it reuses, and the
 * request fails with "Error in the HTTP2 framing layer" (curl issue 10634,
 * fixed in 8.0.0). There, h2c opens one connection per request, and the
 * run says so once.
 */
static void check_h2c(struct transport_worker *w)
{
    if (w->config->target.http_version != CONFIG_HTTP_H2C ||
        curl_version_info(CURLVERSION_NOW)->version_num >= 0x080000)
        return;
    curl_worker_of(w)->is_h2c_single_use = 1;
    if (w->id == 0)
        engine__worker_event(
            w, EV_NOTICE, 0,
            "h2c: this libcurl (before 8.0.0) cannot reuse an h2c connection: one connection per request, no streams");
}

int engine__curl_tls_init(struct transport_worker *w, char *err, size_t err_len)
{
    struct curl_worker *cw = curl_worker_of(w);
    const struct config_target *t = &w->config->target;
    const char *env = getenv("SSL_CERT_FILE");

    /* libcurl reads no environment variable for its trust store (only the
     * curl tool does), so brink honours SSL_CERT_FILE itself. */
    if (t->ca_file.value)
        cw->ca_file = xstrdup(t->ca_file.value);
    else if (env && env[0])
        cw->ca_file = xstrdup(env);
    if (t->tls_resume) {
        /* One worker's handles run on its thread alone: the share needs no
         * lock functions. */
        cw->share = curl_share_init();
        if (!cw->share || curl_share_setopt(cw->share, CURLSHOPT_SHARE,
                                            CURL_LOCK_DATA_SSL_SESSION) != CURLSHE_OK) {
            snprintf(err, err_len, "brink: engine: curl_share_init failed");
            return -ENOMEM;
        }
    }
    check_h2c(w);
    if (t->http_version != CONFIG_HTTP_1_1) {
        curl_multi_setopt(cw->multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
        /* A transfer joins a connection with fewer streams than this in
         * flight, else opens one: users / streams connections carry the load. */
        curl_multi_setopt(cw->multi, CURLMOPT_MAX_CONCURRENT_STREAMS, (long)t->streams);
    }
    return make_renames(w, err, err_len);
}

void engine__curl_tls_fini(struct transport_worker *w)
{
    struct curl_worker *cw = curl_worker_of(w);
    size_t n_kinds = workload_n_kinds(w->workload);

    for (size_t i = 0; cw->renames && i < n_kinds; i++) {
        free(cw->renames[i].to);
        curl_slist_free_all(cw->renames[i].connect_to);
    }
    free(cw->renames);
    cw->renames = NULL;
    /* Every easy handle was cleaned up: the share is no longer in use. */
    if (cw->share)
        curl_share_cleanup(cw->share);
    cw->share = NULL;
    free(cw->ca_file);
    cw->ca_file = NULL;
}

uint32_t engine__curl_tls_streams(const struct transport_worker *w)
{
    const struct config_target *t = &w->config->target;

    /* Without keep-alive every request has a connection of its own. */
    if (t->http_version == CONFIG_HTTP_1_1 || !engine__curl_tls_reuses(w))
        return 1;
    return t->streams;
}

int engine__curl_tls_reuses(const struct transport_worker *w)
{
    return w->config->target.keepalive && !curl_worker_of(w)->is_h2c_single_use;
}

/*
 * libcurl 7.88 joins a transfer to a connection with a free stream, but
 * not to one still opening (it counts as about to close until its first
 * reply), and PIPEWAIT waits only while the server's HTTP version is
 * unknown. So once the first connection is full, every transfer added
 * while the next one opens would open one more: 55 connections, not 7,
 * for 64 users at 10 streams. A cap on the connections to a host of
 * in flight / streams, rounded up, makes them wait in libcurl's pending
 * list instead, from which each finished transfer lets one go.
 */
void engine__curl_tls_before_add(struct transport_worker *w)
{
    struct curl_worker *cw = curl_worker_of(w);
    uint32_t streams = engine__curl_tls_streams(w);
    long want;

    if (streams <= 1)
        return;
    want = (long)((engine__worker_in_flight(w) - cw->queued.n + streams - 1) / streams);
    if (want < 1)
        want = 1;
    if (want != cw->host_conns_max) {
        curl_multi_setopt(cw->multi, CURLMOPT_MAX_HOST_CONNECTIONS, want);
        cw->host_conns_max = want;
    }
}

const char *engine__curl_tls_http_version(CURL *e)
{
    long v = 0;

    curl_easy_getinfo(e, CURLINFO_HTTP_VERSION, &v);
    switch (v) {
    case CURL_HTTP_VERSION_1_0: return "http/1.0";
    case CURL_HTTP_VERSION_1_1: return "http/1.1";
    case CURL_HTTP_VERSION_2_0: return "h2";
    case CURL_HTTP_VERSION_3: return "h3";
    default: return NULL;
    }
}

/* ---- Per easy handle -------------------------------------------------- */

static void set_trust(struct transport_worker *w, CURL *e)
{
    const struct config_target *t = &w->config->target;

    if (t->insecure) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
        /* Nothing is checked against a store: none is loaded. */
        curl_easy_setopt(e, CURLOPT_CAINFO, NULL);
        curl_easy_setopt(e, CURLOPT_CAPATH, NULL);
        return;
    }
    if (curl_worker_of(w)->ca_file)
        curl_easy_setopt(e, CURLOPT_CAINFO, curl_worker_of(w)->ca_file);
    /* The store then comes from one file (libcurl's default bundle when
     * none is named), which is what libcurl caches: see the top. */
    curl_easy_setopt(e, CURLOPT_CAPATH, NULL);
    /* Never expires: loaded once for the whole run, however long. */
    curl_easy_setopt(e, CURLOPT_CA_CACHE_TIMEOUT, -1L);
}

void engine__curl_tls_setup_easy(struct transport_worker *w, CURL *e)
{
    const struct config_target *t = &w->config->target;

    set_trust(w, e);
    if (t->client_cert.value)
        curl_easy_setopt(e, CURLOPT_SSLCERT, t->client_cert.value);
    if (t->client_key.value)
        curl_easy_setopt(e, CURLOPT_SSLKEY, t->client_key.value);
    curl_easy_setopt(e, CURLOPT_SSLVERSION, tls_versions[t->tls_min]);
    if (curl_worker_of(w)->share)
        curl_easy_setopt(e, CURLOPT_SHARE, curl_worker_of(w)->share);
    else
        curl_easy_setopt(e, CURLOPT_SSL_SESSIONID_CACHE, 0L);
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, http_versions[t->http_version]);
    /* A new transfer waits for a connection being opened to say whether it
     * multiplexes, rather than open one more: one connection per streams
     * users. With one stream a connection, it would only wait in line. */
    if (engine__curl_tls_streams(w) > 1)
        curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
}
