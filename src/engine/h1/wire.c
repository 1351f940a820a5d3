#include "engine/h1/wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/ascii.h"
#include "core/msg.h"
#include "core/text.h"
#include "core/xalloc.h"
#include "engine/transport.h"

#define SCHEME "http://"
#define SCHEME_TLS "https://"

/* ---- Origins ---------------------------------------------------------- */

static int parse_port(const char *p, const char *end, uint16_t *port)
{
    unsigned long v = 0;

    if (p == end)
        return -EINVAL;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9')
            return -EINVAL;
        v = v * 10 + (unsigned long)(*p - '0');
        if (v > 65535)
            return -EINVAL;
    }
    if (v == 0)
        return -EINVAL;
    *port = (uint16_t)v;
    return 0;
}

/* Splits "host[:port]" or "[v6][:port]" (auth to end) into o. */
static int split_authority(const char *auth, const char *end, uint16_t default_port,
                           struct h1_origin *o)
{
    const char *host = auth, *host_end, *colon;

    if (*auth == '[') {
        host = auth + 1;
        host_end = memchr(host, ']', (size_t)(end - host));
        if (!host_end)
            return -EINVAL;
        colon = host_end + 1 < end && host_end[1] == ':' ? host_end + 1 : NULL;
        if (!colon && host_end + 1 != end)
            return -EINVAL;
    } else {
        colon = memchr(auth, ':', (size_t)(end - auth));
        host_end = colon ? colon : end;
    }
    if (host_end == host || (size_t)(host_end - host) >= sizeof(o->host))
        return -EINVAL;
    memcpy(o->host, host, (size_t)(host_end - host));
    o->host[host_end - host] = '\0';
    o->port = default_port;
    if (colon && parse_port(colon + 1, end, &o->port) < 0)
        return -EINVAL;
    return 0;
}

int h1_origin_parse(const char *url, struct h1_origin *o, char *why, size_t why_len)
{
    const char *auth, *end;

    memset(o, 0, sizeof(*o));
    if (strncasecmp(url, SCHEME_TLS, strlen(SCHEME_TLS)) == 0) {
        o->is_tls = 1;
        auth = url + strlen(SCHEME_TLS);
    } else if (strncasecmp(url, SCHEME, strlen(SCHEME)) == 0) {
        auth = url + strlen(SCHEME);
    } else {
        msg_set(why, why_len, "not an http:// or https:// URL");
        return -EINVAL;
    }
    end = auth + strcspn(auth, "/?#");
    if (memchr(auth, '@', (size_t)(end - auth))) {
        msg_set(why, why_len, "the URL holds a user name or password");
        return -EINVAL;
    }
    if (memchr(auth, '{', (size_t)(end - auth))) {
        msg_set(why, why_len, "a placeholder in the host or port");
        return -EINVAL;
    }
    if (strchr(url, '#')) {
        msg_set(why, why_len, "the URL has a fragment");
        return -EINVAL;
    }
    if ((size_t)(end - auth) >= sizeof(o->authority) ||
        split_authority(auth, end, o->is_tls ? 443 : 80, o) < 0) {
        msg_set(why, why_len, "the host or port does not parse");
        return -EINVAL;
    }
    memcpy(o->authority, auth, (size_t)(end - auth));
    o->authority[end - auth] = '\0';
    o->len = (size_t)(end - url);
    return 0;
}

/* ---- Request heads ---------------------------------------------------- */

/* True when header line h names the header name. */
static int names(const char *h, const char *name)
{
    size_t n = strlen(name);

    return strncasecmp(h, name, n) == 0 && h[n] == ':';
}

/* True when the header lines set (or remove) name. */
static int sets(const char *const *headers, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (names(headers[i], name))
            return 1;
    }
    return 0;
}

/* A "Name:" line with only blanks after the colon: libcurl's way to remove
 * one of its own headers, never sent. */
static int is_removal(const char *h)
{
    const char *v = strchr(h, ':') + 1;

    return v[strspn(v, " \t")] == '\0';
}

static void build_suffix(struct text *t, const char *const *headers, size_t n, int has_body,
                         size_t body_len, const struct h1_origin *o)
{
    char line[64];

    text_str(t, " HTTP/1.1\r\n");
    if (!sets(headers, n, "Host")) {
        text_str(t, "Host: ");
        text_str(t, o->authority);
        text_str(t, "\r\n");
    }
    if (!sets(headers, n, "Accept"))
        text_str(t, "Accept: */*\r\n");
    for (size_t i = 0; i < n; i++) {
        if (is_removal(headers[i]))
            continue;
        text_str(t, headers[i]);
        text_str(t, "\r\n");
    }
    if (has_body && !sets(headers, n, "Content-Length") && !sets(headers, n, "Transfer-Encoding")) {
        snprintf(line, sizeof(line), "Content-Length: %zu\r\n", body_len);
        text_str(t, line);
    }
    text_str(t, "\r\n");
}

void h1_head_build(struct capture_buf *b, const char *method, const char *url,
                   const struct h1_origin *o, const char *const *headers, size_t n, int has_body,
                   size_t body_len)
{
    struct text t = {b->at, 0, b->cap};
    const char *path = url + o->len;

    text_str(&t, method);
    text_str(&t, path[0] == '/' ? " " : " /");
    text_str(&t, path);
    build_suffix(&t, headers, n, has_body, body_len, o);
    b->at = t.buf;
    b->len = t.len;
    b->cap = t.cap;
}

int h1_kind_build(struct h1_kind *k, const struct workload *wl, size_t i, const struct h1_origin *o)
{
    const struct workload_kind *wk = workload_kind(wl, i);
    struct text prefix = {0}, suffix = {0}, fixed = {0}, suffix_get = {0};
    const char *path = wk->url + o->len;

    memset(k, 0, sizeof(*k));
    text_str(&prefix, wk->method);
    /* "http://h?q" asks for "/?q", as libcurl sends it. */
    text_str(&prefix, path[0] == '/' ? " " : " /");
    build_suffix(&suffix, wk->headers, wk->n_headers, wk->body != NULL, wk->body_len, o);
    build_suffix(&suffix_get, wk->headers, wk->n_headers, 0, 0, o);
    k->suffix_get = suffix_get.buf;
    k->suffix_get_len = suffix_get.len;
    k->prefix = prefix.buf;
    k->prefix_len = prefix.len;
    k->suffix = suffix.buf;
    k->suffix_len = suffix.len;
    k->origin_len = o->len;
    k->head_max = prefix.len + WORKLOAD_URL_MAX + suffix.len;
    k->body = wk->body;
    k->body_len = wk->body_len;
    k->is_head = strcmp(wk->method, "HEAD") == 0;
    k->host = xstrdup(o->authority);
    if (!wk->has_placeholders) {
        text_add(&fixed, prefix.buf, prefix.len);
        text_str(&fixed, path);
        text_add(&fixed, suffix.buf, suffix.len);
        k->fixed = fixed.buf;
        k->fixed_len = fixed.len;
    }
    return 0;
}

void h1_kind_free(struct h1_kind *k)
{
    free(k->prefix);
    free(k->suffix);
    free(k->suffix_get);
    free(k->fixed);
    free(k->host);
    memset(k, 0, sizeof(*k));
}

const char *h1_head(const struct h1_kind *k, const struct workload *wl, size_t i, uint64_t seq,
                    uint32_t vu, uint64_t *rng, char *buf, size_t cap, size_t *len)
{
    /* The URL is expanded at url; its origin is then overwritten by the
     * prefix, which ends where the path starts. Room before url keeps that
     * inside buf when the prefix is longer than the origin. */
    size_t room = k->prefix_len > k->origin_len ? k->prefix_len - k->origin_len : 0;
    char *url = buf + room, *head;
    int n;

    if (k->fixed) {
        *len = k->fixed_len;
        return k->fixed;
    }
    n = workload_url(wl, i, seq, vu, rng, url, cap - room - k->suffix_len);
    /* workload_new refused templates that could expand past the buffer. */
    if (n < 0)
        n = 0;
    head = url + k->origin_len - k->prefix_len;
    memcpy(head, k->prefix, k->prefix_len);
    memcpy(url + n, k->suffix, k->suffix_len);
    *len = (size_t)(url + n + k->suffix_len - head);
    return head;
}

/* ---- Responses -------------------------------------------------------- */

static struct h1_resp *resp_of(http_parser *p)
{
    return (struct h1_resp *)((char *)p - offsetof(struct h1_resp, parser));
}

/* Hands the value read to the caller, if it was wanted and fitted. */
static void capture_flush(struct h1_resp *r)
{
    struct h1_capture *c = r->capture;

    if (c->which != H1_HEADER_NONE && !c->is_cut)
        c->fn(c->arg, c->which, r->parser.status_code, c->buf, c->len);
    c->which = H1_HEADER_NONE;
    c->len = 0;
    c->is_cut = 0;
    c->name_len = 0;
}

static enum h1_header capture_which(const struct h1_capture *c)
{
    static const struct {
        const char *name;
        enum h1_header which;
    } names[] = {{"set-cookie", H1_HEADER_SET_COOKIE}, {"location", H1_HEADER_LOCATION}};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strlen(names[i].name) == c->name_len &&
            memcmp(names[i].name, c->name, c->name_len) == 0 && (c->wants & (1u << names[i].which)))
            return names[i].which;
    }
    return H1_HEADER_NONE;
}

static int on_header_field(http_parser *p, const char *at, size_t n)
{
    struct h1_resp *r = resp_of(p);
    struct h1_capture *c = r->capture;

    if (c) {
        /* A name after a value begins the next header. */
        if (r->is_in_value)
            capture_flush(r);
        for (size_t i = 0; i < n; i++) {
            if (c->name_len < sizeof(c->name))
                c->name[c->name_len] = ascii_lower(at[i]);
            c->name_len++;
        }
    }
    r->is_in_value = 0;
    if (r->cap) {
        if (r->cap_at == 2)
            capture_add(&r->cap->head, "\n", 1);
        capture_add(&r->cap->head, at, n);
        r->cap_at = 1;
    }
    return 0;
}

static void capture_value(struct h1_resp *r, const char *at, size_t n)
{
    struct h1_capture *c = r->capture;

    if (!r->is_in_value)
        c->which = capture_which(c);
    if (c->which == H1_HEADER_NONE || c->is_cut)
        return;
    if (c->len + n > c->cap) {
        c->is_cut = 1;
        return;
    }
    memcpy(c->buf + c->len, at, n);
    c->len += n;
}

/* libhttp-parser checks every byte of a value but its first: a control
 * character there (RFC 9110, 5.5 forbids them) would pass. */
static int on_header_value(http_parser *p, const char *at, size_t n)
{
    struct h1_resp *r = resp_of(p);
    unsigned char c = n ? (unsigned char)at[0] : 'x';

    if (r->cap) {
        if (r->cap_at == 1)
            capture_add(&r->cap->head, ": ", 2);
        capture_add(&r->cap->head, at, n);
        r->cap_at = 2;
    }
    if (r->capture)
        capture_value(r, at, n);
    if (r->is_in_value)
        return 0;
    r->is_in_value = 1;
    if ((c < 0x20 && c != '\t') || c == 0x7f) {
        r->error = "a control character in a header line";
        return 1;
    }
    return 0;
}

/* The status line is whole: its status is what the server sent, kept
 * even when the header lines that follow break the reply (libcurl keeps
 * it too), so that both transports count it. */
static int on_status(http_parser *p, const char *at, size_t n)
{
    (void)at;
    (void)n;
    resp_of(p)->status = p->status_code;
    return 0;
}

static int on_headers_complete(http_parser *p)
{
    struct h1_resp *r = resp_of(p);

    if (r->capture && r->is_in_value)
        capture_flush(r);
    if (r->capture)
        r->capture->name_len = 0;
    r->is_in_value = 0;
    r->status = p->status_code;
    if (r->cap) {
        if (r->cap_at == 2)
            capture_add(&r->cap->head, "\n", 1);
        r->cap_at = 0;
        /* An interim reply's lines are not the reply's. */
        if (p->status_code < 200 && p->status_code != 101)
            r->cap->head.len = 0;
    }
    /* 1xx replies are interim: their headers do not end the exchange. */
    if (p->status_code >= 200 || p->status_code == 101)
        r->has_headers = 1;
    /* 1 tells the parser that the reply has no body (HEAD). */
    return r->is_head && p->status_code >= 200 ? 1 : 0;
}

static int on_body(http_parser *p, const char *at, size_t n)
{
    struct h1_resp *r = resp_of(p);

    (void)at;
    r->body_bytes += n;
    if (r->body_bytes > r->max_body_bytes) {
        r->is_cut = 1;
        return 1;
    }
    if (r->cap && r->cap->wants_body)
        capture_add(&r->cap->body, at, n);
    return 0;
}

static int on_message_complete(http_parser *p)
{
    struct h1_resp *r = resp_of(p);

    if (p->status_code < 200 && p->status_code != 101)
        return 0;
    r->is_done = 1;
    /* Stop at the end of this reply: bytes after it are not ours. */
    http_parser_pause(p, 1);
    return 0;
}

static const http_parser_settings settings = {
    .on_status = on_status,
    .on_header_field = on_header_field,
    .on_header_value = on_header_value,
    .on_headers_complete = on_headers_complete,
    .on_body = on_body,
    .on_message_complete = on_message_complete,
};

void h1_resp_begin(struct h1_resp *r, int is_head, uint64_t max_body_bytes)
{
    http_parser_init(&r->parser, HTTP_RESPONSE);
    r->max_body_bytes = max_body_bytes;
    r->body_bytes = 0;
    r->raw_bytes = 0;
    r->status = 0;
    r->is_head = is_head;
    r->has_headers = 0;
    r->is_done = 0;
    r->is_cut = 0;
    r->is_in_value = 0;
    r->error = NULL;
    r->cap = NULL;
    r->cap_at = 0;
    r->capture = NULL;
}

void h1_resp_capture(struct h1_resp *r, struct h1_capture *c)
{
    r->capture = c;
    c->len = 0;
    c->name_len = 0;
    c->which = H1_HEADER_NONE;
    c->is_cut = 0;
}

enum h1_resp_state h1_resp_feed(struct h1_resp *r, const char *data, size_t n, size_t *used)
{
    size_t done = http_parser_execute(&r->parser, &settings, data, n);
    enum http_errno e = HTTP_PARSER_ERRNO(&r->parser);

    *used = done;
    r->raw_bytes += done;
    if (r->is_cut)
        return H1_CUT;
    if (r->is_done)
        return H1_DONE;
    if (e != HPE_OK || done != n)
        return H1_MALFORMED;
    /* An endless run of 1xx replies would otherwise be read until the
     * timeout; libcurl stops at the same size. */
    if (!r->has_headers && r->raw_bytes > H1_HEADERS_MAX_BYTES) {
        r->error = "reply headers over 300 KiB, interim replies included";
        return H1_MALFORMED;
    }
    return H1_MORE;
}

enum h1_resp_state h1_resp_eof(struct h1_resp *r)
{
    if (r->is_done)
        return H1_DONE;
    if (!r->has_headers || HTTP_PARSER_ERRNO(&r->parser) != HPE_OK)
        return H1_MORE;
    /* A reply without length ends with the connection: a feed of 0 bytes
     * tells the parser, which completes it if that is how it was framed. */
    http_parser_execute(&r->parser, &settings, NULL, 0);
    return r->is_done ? H1_DONE : H1_MORE;
}

int h1_resp_keeps_alive(const struct h1_resp *r)
{
    /* The pause set at the end of the reply would make the parser answer
     * "no": ask a copy that is not paused. */
    http_parser p = r->parser;

    p.http_errno = HPE_OK;
    return http_should_keep_alive(&p);
}

const char *h1_resp_error(const struct h1_resp *r)
{
    enum http_errno e = HTTP_PARSER_ERRNO(&r->parser);

    if (r->error)
        return r->error;
    /* The parser reports a chunk size past 64 bits in its content length's
     * words, which would point at the wrong header. */
    if (e == HPE_INVALID_CONTENT_LENGTH && (r->parser.flags & F_CHUNKED))
        return "chunk size too large";
    return http_errno_description(e);
}
