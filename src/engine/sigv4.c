#include "engine/sigv4.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "core/ascii.h"
#include "core/text.h"
#include "core/xalloc.h"

static void hex_of(const unsigned char *bytes, size_t n, char *hex)
{
    static const char digits[] = "0123456789abcdef";

    for (size_t i = 0; i < n; i++) {
        hex[2 * i] = digits[bytes[i] >> 4];
        hex[2 * i + 1] = digits[bytes[i] & 15];
    }
    hex[2 * n] = '\0';
}

void sigv4_payload_hash(const void *body, size_t len, char hex[SIGV4_HASH_HEX])
{
    unsigned char md[32];
    unsigned int md_len = 0;

    EVP_Digest(body ? body : "", len, md, &md_len, EVP_sha256(), NULL);
    hex_of(md, 32, hex);
}

static void hmac(const void *key, size_t key_len, const char *msg, size_t n, unsigned char out[32])
{
    unsigned int len = 0;

    HMAC(EVP_sha256(), key, (int)key_len, (const unsigned char *)msg, n, out, &len);
}

/* ---- Percent-encoding ------------------------------------------------- */

/* RFC 3986's unreserved characters: the only ones AWS leaves unencoded. */
static int is_unreserved(unsigned char c)
{
    return ascii_is_alnum(c) || c == '-' || c == '_' || c == '.' || c == '~';
}

static void put_encoded(struct text *t, unsigned char c)
{
    static const char digits[] = "0123456789ABCDEF";
    char e[3] = {'%', digits[c >> 4], digits[c & 15]};

    if (is_unreserved(c))
        text_char(t, (char)c);
    else
        text_add(t, e, 3);
}

/*
 * Appends s[0..n) decoded ("%XX" read as its byte; a '%' not followed by
 * two hex digits is itself) and encoded again as AWS wants; a literal '/'
 * is kept when keep_slash (a path), while an encoded one stays encoded.
 */
static void put_canonical(struct text *t, const char *s, size_t n, int keep_slash)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && ascii_hex_value(s[i + 1]) >= 0 &&
            ascii_hex_value(s[i + 2]) >= 0) {
            put_encoded(
                t, (unsigned char)(ascii_hex_value(s[i + 1]) * 16 + ascii_hex_value(s[i + 2])));
            i += 2;
        } else if (s[i] == '/' && keep_slash) {
            text_char(t, '/');
        } else {
            put_encoded(t, (unsigned char)s[i]);
        }
    }
}

/* ---- The URL's parts -------------------------------------------------- */

struct url_parts {
    const char *authority; /* NULL for an origin-form URL */
    size_t authority_len;
    int is_https;
    const char *path;
    size_t path_len;
    const char *query; /* after '?' */
    size_t query_len;
};

static int split_url(const char *url, size_t n, struct url_parts *p)
{
    size_t i = 0, end;

    memset(p, 0, sizeof(*p));
    if (n > 0 && url[0] != '/') {
        if (n >= 7 && strncasecmp(url, "http://", 7) == 0) {
            i = 7;
        } else if (n >= 8 && strncasecmp(url, "https://", 8) == 0) {
            i = 8;
            p->is_https = 1;
        } else {
            return -EINVAL;
        }
        p->authority = url + i;
        while (i < n && url[i] != '/' && url[i] != '?' && url[i] != '#')
            i++;
        p->authority_len = (size_t)(url + i - p->authority);
    }
    end = i;
    while (end < n && url[end] != '#')
        end++;
    p->path = url + i;
    while (i < end && url[i] != '?')
        i++;
    p->path_len = (size_t)(url + i - p->path);
    if (i < end) {
        p->query = url + i + 1;
        p->query_len = end - i - 1;
    }
    return 0;
}

/* ---- Canonical path --------------------------------------------------- */

/* RFC 3986's remove_dot_segments, with empty segments dropped too (AWS
 * services other than S3 want consecutive slashes removed), as botocore
 * normalizes. In place; s is a path starting with '/'. */
static void remove_dot_segments(struct text *t)
{
    struct text out = {0};
    size_t *starts = xmalloc((t->len / 2 + 2) * sizeof(*starts));
    size_t n_segs = 0, i = 0;
    int ends_with_slash = t->len > 0 && t->buf[t->len - 1] == '/';

    text_char(&out, '/');
    while (i < t->len) {
        size_t j = i;

        while (j < t->len && t->buf[j] != '/')
            j++;
        if (j - i == 2 && memcmp(t->buf + i, "..", 2) == 0) {
            if (n_segs > 0)
                out.len = starts[--n_segs];
        } else if (j > i && !(j - i == 1 && t->buf[i] == '.')) {
            starts[n_segs++] = out.len;
            if (out.len > 1)
                text_char(&out, '/');
            text_add(&out, t->buf + i, j - i);
        }
        i = j + 1;
    }
    out.buf[out.len] = '\0';
    if (ends_with_slash && n_segs > 0)
        text_char(&out, '/');
    free(starts);
    free(t->buf);
    *t = out;
}

static void put_path(struct text *cr, const struct url_parts *p, const char *service)
{
    struct text once = {0};

    if (p->path_len == 0)
        text_char(&once, '/');
    else
        put_canonical(&once, p->path, p->path_len, 1);
    if (strcmp(service, "s3") == 0) {
        text_add(cr, once.buf, once.len);
    } else {
        /* Every other service wants each segment encoded twice. */
        remove_dot_segments(&once);
        for (size_t i = 0; i < once.len; i++) {
            if (once.buf[i] == '/')
                text_char(cr, '/');
            else
                put_encoded(cr, (unsigned char)once.buf[i]);
        }
    }
    free(once.buf);
}

/* ---- Sorted pairs ----------------------------------------------------- */

/* A key and a value, both spans of one text. */
struct pair {
    size_t key, key_len;
    size_t value, value_len;
};

static int span_cmp(const char *base, size_t a, size_t a_len, size_t b, size_t b_len)
{
    size_t n = a_len < b_len ? a_len : b_len;
    int c = memcmp(base + a, base + b, n);

    if (c != 0)
        return c;
    return a_len < b_len ? -1 : a_len > b_len;
}

static int pair_cmp(const char *base, const struct pair *a, const struct pair *b, int by_value)
{
    int c = span_cmp(base, a->key, a->key_len, b->key, b->key_len);

    if (c != 0 || !by_value)
        return c;
    return span_cmp(base, a->value, a->value_len, b->value, b->value_len);
}

/* Sorts p[0..n) by key (then value when by_value), bytewise as botocore's
 * sorted() does; stable, so same-named headers keep their order. A merge
 * sort: qsort takes no context, and the engine signs on every worker. */
static void sort_pairs(struct pair *p, size_t n, const char *base, int by_value)
{
    struct pair *tmp;

    if (n < 2)
        return;
    tmp = xmalloc(n * sizeof(*tmp));
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t a = lo, b = mid, k = lo;

            while (a < mid && b < hi)
                tmp[k++] = pair_cmp(base, &p[b], &p[a], by_value) < 0 ? p[b++] : p[a++];
            while (a < mid)
                tmp[k++] = p[a++];
            while (b < hi)
                tmp[k++] = p[b++];
        }
        memcpy(p, tmp, n * sizeof(*p));
    }
    free(tmp);
}

/* ---- Canonical query -------------------------------------------------- */

static void put_query(struct text *cr, const struct url_parts *p)
{
    struct text enc = {0};
    struct pair *params = xmalloc((p->query_len / 2 + 1) * sizeof(*params));
    size_t n = 0, i = 0;

    text_add(&enc, "", 0);
    while (i < p->query_len) {
        const char *q = p->query;
        size_t j = i, eq;

        while (j < p->query_len && q[j] != '&')
            j++;
        if (j > i) {
            eq = i;
            while (eq < j && q[eq] != '=')
                eq++;
            params[n].key = enc.len;
            put_canonical(&enc, q + i, eq - i, 0);
            params[n].key_len = enc.len - params[n].key;
            params[n].value = enc.len;
            if (eq < j)
                put_canonical(&enc, q + eq + 1, j - eq - 1, 0);
            params[n].value_len = enc.len - params[n].value;
            n++;
        }
        i = j + 1;
    }
    sort_pairs(params, n, enc.buf, 1);
    for (i = 0; i < n; i++) {
        if (i > 0)
            text_char(cr, '&');
        text_add(cr, enc.buf + params[i].key, params[i].key_len);
        text_char(cr, '=');
        text_add(cr, enc.buf + params[i].value, params[i].value_len);
    }
    free(params);
    free(enc.buf);
}

/* ---- Canonical headers ------------------------------------------------ */

/* Headers never signed: those a proxy or the transport may change
 * (botocore's list), and the four sigv4_sign adds itself. */
static const char *const unsigned_names[] = {
    "connection",
    "expect",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "user-agent",
    "x-amzn-trace-id",
    "authorization",
    "x-amz-date",
    "x-amz-content-sha256",
    "x-amz-security-token",
};

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static int is_unsigned(const char *lower, size_t n)
{
    for (size_t i = 0; i < sizeof(unsigned_names) / sizeof(unsigned_names[0]); i++) {
        if (strlen(unsigned_names[i]) == n && memcmp(unsigned_names[i], lower, n) == 0)
            return 1;
    }
    return 0;
}

/* Adds name (lower-cased) and value (trimmed, inner runs of blanks made
 * one space) to enc as pair p. */
static void add_header(struct text *enc, struct pair *p, const char *name, size_t name_len,
                       const char *value, size_t value_len)
{
    size_t i = 0;
    int is_first = 1;

    p->key = enc->len;
    for (size_t k = 0; k < name_len; k++)
        text_char(enc, ascii_lower(name[k]));
    p->key_len = enc->len - p->key;
    p->value = enc->len;
    while (i < value_len) {
        size_t j;

        while (i < value_len && is_space(value[i]))
            i++;
        if (i == value_len)
            break;
        j = i;
        while (j < value_len && !is_space(value[j]))
            j++;
        if (!is_first)
            text_char(enc, ' ');
        text_add(enc, value + i, j - i);
        is_first = 0;
        i = j;
    }
    p->value_len = enc->len - p->value;
}

/* The Host value of an absolute URL: its authority without a user name and
 * without its scheme's default port. */
static void derive_host(const struct url_parts *u, const char **host, size_t *len)
{
    const char *a = u->authority, *end = a + u->authority_len, *colon = NULL;
    const char *dflt = u->is_https ? "443" : "80";

    for (const char *p = a; p < end; p++) {
        if (*p == '@')
            a = p + 1;
    }
    for (const char *p = a; p < end; p++) {
        if (*p == ']')
            colon = NULL;
        else if (*p == ':')
            colon = p;
    }
    if (colon && (size_t)(end - colon - 1) == strlen(dflt) &&
        memcmp(colon + 1, dflt, strlen(dflt)) == 0)
        end = colon;
    *host = a;
    *len = (size_t)(end - a);
}

/* Collects the headers to sign into enc and p (room for n_headers + 4),
 * sorted; returns how many. */
static size_t collect_headers(const struct sigv4_request *rq, const struct url_parts *u,
                              const char *amz_date, const char *token, struct text *enc,
                              struct pair *p)
{
    size_t n = 0;
    int has_host = 0;

    for (size_t i = 0; i < rq->n_headers; i++) {
        const char *h = rq->headers[i], *colon = strchr(h, ':'), *v;
        size_t name_len;

        if (!colon)
            continue;
        name_len = (size_t)(colon - h);
        while (name_len > 0 && ascii_is_blank(h[name_len - 1]))
            name_len--;
        v = colon + 1;
        if (v[strspn(v, " \t")] == '\0')
            continue; /* a removal: libcurl sends no such header */
        add_header(enc, &p[n], h, name_len, v, strlen(v));
        if (is_unsigned(enc->buf + p[n].key, p[n].key_len)) {
            enc->len = p[n].key;
            continue;
        }
        has_host |= p[n].key_len == 4 && memcmp(enc->buf + p[n].key, "host", 4) == 0;
        n++;
    }
    if (!has_host) {
        const char *host = rq->host;
        size_t len = host ? strlen(host) : 0;

        if (!host && u->authority)
            derive_host(u, &host, &len);
        if (host)
            add_header(enc, &p[n++], "host", 4, host, len);
    }
    add_header(enc, &p[n++], "x-amz-content-sha256", 20, rq->payload_hash,
               strlen(rq->payload_hash));
    add_header(enc, &p[n++], "x-amz-date", 10, amz_date, strlen(amz_date));
    if (token)
        add_header(enc, &p[n++], "x-amz-security-token", 20, token, strlen(token));
    sort_pairs(p, n, enc->buf, 0);
    return n;
}

/* Appends the canonical headers (one "name:values\n" per name) and then,
 * into signed, the names joined with ';'. */
static void put_headers(struct text *cr, struct text *signed_names, const char *base,
                        const struct pair *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int is_same =
            i > 0 && span_cmp(base, p[i].key, p[i].key_len, p[i - 1].key, p[i - 1].key_len) == 0;

        if (is_same) {
            text_char(cr, ',');
        } else {
            if (i > 0) {
                text_char(cr, '\n');
                text_char(signed_names, ';');
            }
            text_add(cr, base + p[i].key, p[i].key_len);
            text_char(cr, ':');
            text_add(signed_names, base + p[i].key, p[i].key_len);
        }
        text_add(cr, base + p[i].value, p[i].value_len);
    }
    text_str(cr, "\n\n");
}

/* ---- Signing ---------------------------------------------------------- */

static int is_payload_hash(const char *h)
{
    size_t n = 0;

    if (!h)
        return 0;
    if (strcmp(h, SIGV4_UNSIGNED_PAYLOAD) == 0)
        return 1;
    while ((h[n] >= '0' && h[n] <= '9') || (h[n] >= 'a' && h[n] <= 'f'))
        n++;
    return n == 64 && h[n] == '\0';
}

/* The day's signing key: HMAC over the date, region, service and
 * "aws4_request", keyed first by "AWS4" and the secret. */
static void signing_key(const struct sigv4_creds *c, const char *day, unsigned char key[32])
{
    struct text secret = {0};

    text_str(&secret, "AWS4");
    text_str(&secret, c->secret_access_key);
    hmac(secret.buf, secret.len, day, 8, key);
    hmac(key, 32, c->region, strlen(c->region), key);
    hmac(key, 32, c->service, strlen(c->service), key);
    hmac(key, 32, "aws4_request", 12, key);
    /* The secret does not stay in freed memory longer than it must. */
    OPENSSL_cleanse(secret.buf, secret.len);
    free(secret.buf);
}

static void key_for(const struct sigv4_creds *c, struct sigv4_cache *cache, const char *day,
                    unsigned char key[32])
{
    if (cache && cache->creds == c && memcmp(cache->day, day, 8) == 0) {
        memcpy(key, cache->key, 32);
        return;
    }
    signing_key(c, day, key);
    if (cache) {
        cache->creds = c;
        memcpy(cache->day, day, 8);
        cache->day[8] = '\0';
        memcpy(cache->key, key, 32);
    }
}

/* Appends "name: value" to out->buf and out->lines; -ENOSPC when it does
 * not fit. */
static int add_line(struct sigv4_out *out, size_t *used, const char *name, const char *value)
{
    size_t room = sizeof(out->buf) - *used;
    int n = snprintf(out->buf + *used, room, "%s: %s", name, value);

    if (n < 0 || (size_t)n >= room)
        return -ENOSPC;
    out->lines[out->n_lines++] = out->buf + *used;
    *used += (size_t)n + 1;
    return 0;
}

/* The canonical request's SHA-256, hex; the signed header names in
 * signed_names. */
static void canonical_hash(const struct sigv4_creds *c, const struct sigv4_request *rq,
                           const struct url_parts *u, const char *amz_date, const char *token,
                           struct text *signed_names, char hash[SIGV4_HASH_HEX])
{
    struct text cr = {0}, enc = {0};
    struct pair *p = xmalloc((rq->n_headers + 4) * sizeof(*p));
    size_t n;

    text_str(&cr, rq->method);
    text_char(&cr, '\n');
    put_path(&cr, u, c->service);
    text_char(&cr, '\n');
    put_query(&cr, u);
    text_char(&cr, '\n');
    text_add(&enc, "", 0);
    n = collect_headers(rq, u, amz_date, token, &enc, p);
    put_headers(&cr, signed_names, enc.buf, p, n);
    text_add(signed_names, "", 0);
    text_str(&cr, signed_names->buf);
    text_char(&cr, '\n');
    text_str(&cr, rq->payload_hash);
    sigv4_payload_hash(cr.buf, cr.len, hash);
    free(p);
    free(enc.buf);
    free(cr.buf);
}

int sigv4_sign(const struct sigv4_creds *c, struct sigv4_cache *cache,
               const struct sigv4_request *rq, int64_t unix_s, struct sigv4_out *out)
{
    struct url_parts u;
    struct text sts = {0}, signed_names = {0};
    char amz_date[17], day[9], hash[SIGV4_HASH_HEX], signature[SIGV4_HASH_HEX];
    unsigned char key[32], mac[32];
    const char *token = c->session_token && c->session_token[0] ? c->session_token : NULL;
    time_t t = (time_t)unix_s;
    struct tm tm;
    size_t used = 0;
    int rc;

    out->n_lines = 0;
    if (!is_payload_hash(rq->payload_hash) || split_url(rq->url, rq->url_len, &u) != 0)
        return -EINVAL;
    gmtime_r(&t, &tm);
    strftime(amz_date, sizeof(amz_date), "%Y%m%dT%H%M%SZ", &tm);
    memcpy(day, amz_date, 8);
    day[8] = '\0';
    canonical_hash(c, rq, &u, amz_date, token, &signed_names, hash);

    text_str(&sts, "AWS4-HMAC-SHA256\n");
    text_str(&sts, amz_date);
    text_char(&sts, '\n');
    text_str(&sts, day);
    text_char(&sts, '/');
    text_str(&sts, c->region);
    text_char(&sts, '/');
    text_str(&sts, c->service);
    text_str(&sts, "/aws4_request\n");
    text_str(&sts, hash);
    key_for(c, cache, day, key);
    hmac(key, 32, sts.buf, sts.len, mac);
    hex_of(mac, 32, signature);
    OPENSSL_cleanse(key, sizeof(key));

    /* sts is done with: it becomes the Authorization value. */
    sts.len = 0;
    text_str(&sts, "AWS4-HMAC-SHA256 Credential=");
    text_str(&sts, c->access_key_id);
    text_char(&sts, '/');
    text_str(&sts, day);
    text_char(&sts, '/');
    text_str(&sts, c->region);
    text_char(&sts, '/');
    text_str(&sts, c->service);
    text_str(&sts, "/aws4_request, SignedHeaders=");
    text_str(&sts, signed_names.buf);
    text_str(&sts, ", Signature=");
    text_str(&sts, signature);
    rc = add_line(out, &used, "Authorization", sts.buf);
    if (rc == 0)
        rc = add_line(out, &used, "X-Amz-Date", amz_date);
    if (rc == 0)
        rc = add_line(out, &used, "X-Amz-Content-SHA256", rq->payload_hash);
    if (rc == 0 && token)
        rc = add_line(out, &used, "X-Amz-Security-Token", token);
    free(sts.buf);
    free(signed_names.buf);
    if (rc != 0)
        out->n_lines = 0;
    return rc;
}

size_t sigv4_join(const struct sigv4_out *out, char *buf, size_t cap)
{
    size_t len = 0;

    if (cap == 0)
        return 0;
    buf[0] = '\0';
    for (size_t i = 0; i < out->n_lines; i++) {
        size_t n = strlen(out->lines[i]);

        if (len + n + 3 > cap)
            break;
        memcpy(buf + len, out->lines[i], n);
        memcpy(buf + len + n, "\r\n", 3);
        len += n + 2;
    }
    return len;
}
