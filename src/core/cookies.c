#include "core/cookies.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/ascii.h"
#include "core/xalloc.h"

#define EXPIRES_NEVER INT64_MAX
#define MAX_AGE_MAX (400LL * 24 * 3600) /* RFC 6265bis caps expiry at 400 days */

struct cookie {
    char *mem; /* name, value, domain and path, each NUL-terminated */
    const char *name, *value, *domain, *path;
    size_t bytes; /* of the four, without the NULs */
    int64_t expires_s;
    uint64_t created; /* order of creation, for the Cookie header's order */
    int is_host_only;
    int is_secure;
};

struct cookie_jar {
    struct cookie items[COOKIES_MAX];
    size_t n;
    size_t bytes;
    uint64_t next_created;
    uint64_t dropped;
};

/* The parts of a request URL a jar looks at. */
struct url_view {
    char host[256]; /* lower case, without brackets or port */
    int is_ip;
    int is_https;
    const char *path; /* from its '/', "/" when it has none */
    size_t path_len;
};

struct cookie_jar *cookie_jar_new(void)
{
    return xcalloc(1, sizeof(struct cookie_jar));
}

void cookie_jar_free(struct cookie_jar *j)
{
    if (!j)
        return;
    cookie_jar_clear(j);
    free(j);
}

void cookie_jar_clear(struct cookie_jar *j)
{
    for (size_t i = 0; i < j->n; i++)
        free(j->items[i].mem);
    j->n = 0;
    j->bytes = 0;
}

size_t cookie_jar_count(const struct cookie_jar *j)
{
    return j->n;
}

uint64_t cookie_jar_dropped(const struct cookie_jar *j)
{
    return j->dropped;
}

static void remove_at(struct cookie_jar *j, size_t i)
{
    j->bytes -= j->items[i].bytes;
    free(j->items[i].mem);
    j->items[i] = j->items[--j->n];
}

static void remove_expired(struct cookie_jar *j, int64_t now_s)
{
    for (size_t i = j->n; i-- > 0;) {
        if (j->items[i].expires_s <= now_s)
            remove_at(j, i);
    }
}

/* ---- URLs, domains, paths -------------------------------------------- */

static int parse_url(const char *url, struct url_view *u)
{
    const char *p, *end, *at, *h, *h_end;
    size_t n;

    memset(u, 0, sizeof(*u));
    if (strncasecmp(url, "http://", 7) == 0) {
        p = url + 7;
    } else if (strncasecmp(url, "https://", 8) == 0) {
        p = url + 8;
        u->is_https = 1;
    } else {
        return -EINVAL;
    }
    end = p + strcspn(p, "/?#");
    at = p;
    for (const char *q = p; q < end; q++) {
        if (*q == '@')
            at = q + 1;
    }
    h = at;
    if (*h == '[') {
        h++;
        h_end = memchr(h, ']', (size_t)(end - h));
        if (!h_end)
            return -EINVAL;
        u->is_ip = 1;
    } else {
        h_end = h;
        while (h_end < end && *h_end != ':')
            h_end++;
    }
    n = (size_t)(h_end - h);
    if (n == 0 || n >= sizeof(u->host))
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        u->host[i] = ascii_lower(h[i]);
    u->host[n] = '\0';
    if (!u->is_ip)
        u->is_ip = strspn(u->host, "0123456789.") == n;
    if (*end == '/') {
        u->path = end;
        u->path_len = strcspn(end, "?#");
    } else {
        u->path = "/";
        u->path_len = 1;
    }
    return 0;
}

/* RFC 6265 5.1.3: host is domain, or ends with "." domain (a name, not an
 * address). */
static int domain_matches(const struct url_view *u, const char *domain)
{
    size_t hn = strlen(u->host), dn = strlen(domain);

    if (hn == dn)
        return memcmp(u->host, domain, hn) == 0;
    return !u->is_ip && hn > dn && u->host[hn - dn - 1] == '.' &&
           memcmp(u->host + hn - dn, domain, dn) == 0;
}

/* RFC 6265 5.1.4: the request path is the cookie's, or below it. */
static int path_matches(const struct url_view *u, const char *path)
{
    size_t n = strlen(path);

    if (u->path_len < n || memcmp(u->path, path, n) != 0)
        return 0;
    return u->path_len == n || path[n - 1] == '/' || u->path[n] == '/';
}

/* RFC 6265 5.1.4's default-path: the request path up to its last '/'. */
static size_t default_path_len(const struct url_view *u)
{
    size_t n = u->path_len;

    while (n > 0 && u->path[n - 1] != '/')
        n--;
    return n <= 1 ? 1 : n - 1;
}

/* ---- Dates ------------------------------------------------------------ */

static int is_date_delimiter(unsigned char c)
{
    return c == 0x09 || (c >= 0x20 && c <= 0x2F) || (c >= 0x3B && c <= 0x40) ||
           (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
}

/* 1 to max digits at s (n bytes) followed by a non-digit or the end: their
 * value, or -1. */
static int digits(const char *s, size_t n, size_t max, size_t *used)
{
    size_t i = 0;
    int v = 0;

    while (i < n && ascii_is_digit(s[i]) && i < max + 1) {
        v = v * 10 + (s[i] - '0');
        i++;
    }
    if (i == 0 || i > max)
        return -1;
    *used = i;
    return v;
}

static int parse_time(const char *s, size_t n, int hms[3])
{
    size_t used = 0;

    for (int f = 0; f < 3; f++) {
        hms[f] = digits(s, n, 2, &used);
        if (hms[f] < 0)
            return 0;
        s += used;
        n -= used;
        if (f < 2) {
            if (n == 0 || *s != ':')
                return 0;
            s++;
            n--;
        }
    }
    return 1;
}

/* Days since 1970-01-01 of a date of the proleptic Gregorian calendar. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    int64_t era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int cookie_parse_date(const char *s, size_t n, int64_t *out_s)
{
    static const char months[] = "janfebmaraprmayjunjulaugsepoctnovdec";
    int hms[3] = {0}, day = -1, month = -1, year = -1, has_time = 0;
    size_t i = 0;

    while (i < n) {
        size_t start, len, used = 0;
        int v;

        while (i < n && is_date_delimiter((unsigned char)s[i]))
            i++;
        start = i;
        while (i < n && !is_date_delimiter((unsigned char)s[i]))
            i++;
        len = i - start;
        if (len == 0)
            break;
        if (!has_time && parse_time(s + start, len, hms)) {
            has_time = 1;
        } else if (day < 0 && (v = digits(s + start, len, 2, &used)) >= 0) {
            day = v;
        } else if (month < 0 && len >= 3) {
            for (int m = 0; m < 12; m++) {
                if (strncasecmp(s + start, months + 3 * m, 3) == 0)
                    month = m + 1;
            }
            if (month < 0 && year < 0 && (v = digits(s + start, len, 4, &used)) >= 0 && used >= 2)
                year = v;
        } else if (year < 0 && (v = digits(s + start, len, 4, &used)) >= 0 && used >= 2) {
            year = v;
        }
    }
    if (year >= 70 && year <= 99)
        year += 1900;
    else if (year >= 0 && year <= 69)
        year += 2000;
    if (!has_time || day < 1 || day > 31 || month < 1 || year < 1601 || hms[0] > 23 ||
        hms[1] > 59 || hms[2] > 59)
        return -EINVAL;
    *out_s = days_from_civil(year, month, day) * 86400 + hms[0] * 3600 + hms[1] * 60 + hms[2];
    return 0;
}

/* ---- Set-Cookie ------------------------------------------------------- */

/* What one Set-Cookie value says. */
struct parsed {
    const char *name, *value, *domain, *path;
    size_t name_len, value_len, domain_len, path_len;
    int64_t expires_s;
    int has_max_age;
    int is_secure;
};

static void trim(const char **s, size_t *n)
{
    while (*n > 0 && ascii_is_blank(**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n > 0 && ascii_is_blank((*s)[*n - 1]))
        (*n)--;
}

static int has_control(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7F)
            return 1;
    }
    return 0;
}

static void attribute(struct parsed *p, const char *a, size_t n, int64_t now_s)
{
    const char *eq = memchr(a, '=', n), *v = eq ? eq + 1 : a + n;
    size_t name_len = eq ? (size_t)(eq - a) : n, v_len = (size_t)(a + n - v);
    int64_t t;

    trim(&a, &name_len);
    trim(&v, &v_len);
    if (name_len == 7 && strncasecmp(a, "expires", 7) == 0) {
        if (!p->has_max_age && cookie_parse_date(v, v_len, &t) == 0)
            p->expires_s = t;
    } else if (name_len == 7 && strncasecmp(a, "max-age", 7) == 0) {
        size_t i = v_len > 0 && v[0] == '-' ? 1 : 0;
        int64_t delta = 0;

        if (i == v_len || strspn(v + i, "0123456789") < v_len - i)
            return;
        for (size_t k = i; k < v_len && delta < MAX_AGE_MAX; k++)
            delta = delta * 10 + (v[k] - '0');
        p->has_max_age = 1;
        p->expires_s =
            i == 1 || delta == 0 ? INT64_MIN : now_s + (delta < MAX_AGE_MAX ? delta : MAX_AGE_MAX);
    } else if (name_len == 6 && strncasecmp(a, "domain", 6) == 0 && v_len > 0) {
        if (v[0] == '.') {
            v++;
            v_len--;
        }
        p->domain = v;
        p->domain_len = v_len;
    } else if (name_len == 4 && strncasecmp(a, "path", 4) == 0) {
        p->path = v_len > 0 && v[0] == '/' ? v : NULL;
        p->path_len = p->path ? v_len : 0;
    } else if (name_len == 6 && strncasecmp(a, "secure", 6) == 0) {
        p->is_secure = 1;
    }
}

/* Splits v into p; 0, or -EINVAL for a value RFC 6265 says to ignore. */
static int parse_set_cookie(const char *v, size_t n, int64_t now_s, struct parsed *p)
{
    const char *end = v + n, *semi = memchr(v, ';', n), *pair_end = semi ? semi : end;
    const char *eq = memchr(v, '=', (size_t)(pair_end - v));

    memset(p, 0, sizeof(*p));
    p->expires_s = EXPIRES_NEVER;
    if (!eq)
        return -EINVAL;
    p->name = v;
    p->name_len = (size_t)(eq - v);
    p->value = eq + 1;
    p->value_len = (size_t)(pair_end - eq - 1);
    trim(&p->name, &p->name_len);
    trim(&p->value, &p->value_len);
    /* A control byte (CR, LF...) could split the request head it goes in. */
    if (p->name_len == 0 || has_control(v, n))
        return -EINVAL;
    while (semi) {
        const char *a = semi + 1, *next = memchr(a, ';', (size_t)(end - a));

        attribute(p, a, (size_t)((next ? next : end) - a), now_s);
        semi = next;
    }
    return 0;
}

static int same_cookie(const struct cookie *c, const struct parsed *p, const char *domain,
                       size_t domain_len)
{
    return strlen(c->name) == p->name_len && memcmp(c->name, p->name, p->name_len) == 0 &&
           strlen(c->domain) == domain_len && memcmp(c->domain, domain, domain_len) == 0 &&
           strlen(c->path) == p->path_len && memcmp(c->path, p->path, p->path_len) == 0;
}

static char *put(char *at, const char *s, size_t n)
{
    memcpy(at, s, n);
    at[n] = '\0';
    return at + n + 1;
}

static void store(struct cookie_jar *j, const struct parsed *p, const char *domain,
                  size_t domain_len, int is_host_only)
{
    struct cookie *c = &j->items[j->n++];
    size_t bytes = p->name_len + p->value_len + domain_len + p->path_len;
    char *at;

    c->mem = xmalloc(bytes + 4);
    c->name = c->mem;
    at = put(c->mem, p->name, p->name_len);
    c->value = at;
    at = put(at, p->value, p->value_len);
    c->domain = at;
    for (size_t i = 0; i < domain_len; i++)
        at[i] = ascii_lower(domain[i]);
    at[domain_len] = '\0';
    at += domain_len + 1;
    c->path = at;
    put(at, p->path, p->path_len);
    c->bytes = bytes;
    c->expires_s = p->expires_s;
    c->created = j->next_created++;
    c->is_host_only = is_host_only;
    c->is_secure = p->is_secure;
    j->bytes += bytes;
}

int cookie_jar_set(struct cookie_jar *j, const char *v, size_t n, const char *url, int64_t now_s)
{
    struct url_view u;
    struct parsed p;
    char domain[256];
    size_t domain_len, bytes;
    int is_host_only = 1;

    if (parse_url(url, &u) != 0 || parse_set_cookie(v, n, now_s, &p) != 0)
        return 0;
    if (p.domain) {
        if (p.domain_len >= sizeof(domain))
            return 0;
        for (size_t i = 0; i < p.domain_len; i++)
            domain[i] = ascii_lower(p.domain[i]);
        domain[p.domain_len] = '\0';
        /* A host sets cookies for itself and its parents only. */
        if (!domain_matches(&u, domain))
            return 0;
        is_host_only = 0;
    } else {
        strcpy(domain, u.host);
    }
    domain_len = strlen(domain);
    if (!p.path) {
        p.path = u.path;
        p.path_len = default_path_len(&u);
    }
    for (size_t i = 0; i < j->n; i++) {
        if (same_cookie(&j->items[i], &p, domain, domain_len)) {
            remove_at(j, i);
            break;
        }
    }
    if (p.expires_s <= now_s)
        return 0;
    bytes = p.name_len + p.value_len + domain_len + p.path_len;
    if (j->n == COOKIES_MAX || j->bytes + bytes > COOKIES_BYTES_MAX)
        remove_expired(j, now_s);
    if (j->n == COOKIES_MAX || j->bytes + bytes > COOKIES_BYTES_MAX) {
        j->dropped++;
        return -ENOSPC;
    }
    store(j, &p, domain, domain_len, is_host_only);
    return 1;
}

/* ---- Cookie ----------------------------------------------------------- */

static int sends(const struct cookie *c, const struct url_view *u)
{
    if (c->is_secure && !u->is_https)
        return 0;
    if (c->is_host_only ? strcmp(c->domain, u->host) != 0 : !domain_matches(u, c->domain))
        return 0;
    return path_matches(u, c->path);
}

/* RFC 6265 5.4: longer paths first, then older first. */
static int goes_before(const struct cookie *a, const struct cookie *b)
{
    size_t an = strlen(a->path), bn = strlen(b->path);

    return an != bn ? an > bn : a->created < b->created;
}

size_t cookie_jar_header(struct cookie_jar *j, const char *url, int64_t now_s, char *buf,
                         size_t cap)
{
    const struct cookie *order[COOKIES_MAX];
    struct url_view u;
    size_t n = 0, len = 0;

    if (cap > 0)
        buf[0] = '\0';
    if (parse_url(url, &u) != 0)
        return 0;
    remove_expired(j, now_s);
    for (size_t i = 0; i < j->n; i++) {
        const struct cookie *c = &j->items[i];
        size_t k = n++;

        if (!sends(c, &u)) {
            n--;
            continue;
        }
        while (k > 0 && goes_before(c, order[k - 1])) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = c;
    }
    for (size_t i = 0; i < n; i++) {
        size_t nn = strlen(order[i]->name), vn = strlen(order[i]->value);

        if (len + (i ? 2 : 0) + nn + 1 + vn + 1 > cap)
            break;
        if (i) {
            memcpy(buf + len, "; ", 2);
            len += 2;
        }
        memcpy(buf + len, order[i]->name, nn);
        buf[len + nn] = '=';
        memcpy(buf + len + nn + 1, order[i]->value, vn);
        len += nn + 1 + vn;
        buf[len] = '\0';
    }
    return len;
}
