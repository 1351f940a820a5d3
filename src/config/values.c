/*
 * Checks and transformations of string values that several keys share:
 * ${ENV} expansion, URL templates, absolute URLs, HTTP tokens and the items
 * of comma-separated lists.
 */
#include "config/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/ascii.h"
#include "core/xalloc.h"

#define ENV_NAME_MAX 128

int config__is_tchar(unsigned char ch)
{
    return ascii_is_alpha(ch) || ascii_is_digit(ch) ||
           (ch != '\0' && strchr("!#$%&'*+-.^_`|~", ch));
}

static int is_env_name(const char *s, size_t n)
{
    if (n == 0 || n > ENV_NAME_MAX || ascii_is_digit((unsigned char)s[0]))
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!ascii_is_alpha((unsigned char)s[i]) && !ascii_is_digit((unsigned char)s[i]) &&
            s[i] != '_')
            return 0;
    }
    return 1;
}

/*
 * Finds the text a "${NAME}" at p stands for. Returns 0 with *piece, *len
 * and *next (just after the "}") set, or -EINVAL with why set.
 */
static int lookup_reference(struct config_load_ctx *ctx, const char *p, const char **piece,
                            size_t *len, const char **next, char *why, size_t why_len)
{
    const char *name = p + 2, *end = strchr(name, '}');
    char shown[CONFIG_SHOW_MAX], buf[ENV_NAME_MAX + 1];

    if (!end) {
        snprintf(why, why_len, "unterminated ${ (expected ${NAME}, got \"%s\")",
                 config__show(p, shown));
        return -EINVAL;
    }
    if (!is_env_name(name, (size_t)(end - name))) {
        snprintf(why, why_len,
                 "bad variable name (expected ${NAME} with letters, digits and _, got \"%s\")",
                 config__show_n(p, (size_t)(end - p + 1), shown));
        return -EINVAL;
    }
    memcpy(buf, name, (size_t)(end - name));
    buf[end - name] = '\0';
    *piece = ctx->getenv(buf, ctx->getenv_arg);
    if (!*piece) {
        snprintf(why, why_len,
                 "environment variable %s is not set (expected it exported, or $$ for a literal $)",
                 buf);
        return -EINVAL;
    }
    *len = strlen(*piece);
    *next = end + 1;
    return 0;
}

int config__expand(struct config_load_ctx *ctx, const char *raw, char **out, char *why,
                   size_t why_len)
{
    char *buf = xmalloc(CONFIG_VALUE_MAX + 1);
    size_t n = 0;
    const char *p = raw;
    int rc = 0;

    while (*p) {
        const char *piece = p, *next = p + 1;
        size_t len = 1;

        if (p[0] == '$' && p[1] == '$') {
            next = p + 2;
        } else if (p[0] == '$' && p[1] == '{') {
            rc = lookup_reference(ctx, p, &piece, &len, &next, why, why_len);
            if (rc < 0)
                goto out_free_buf;
        }
        if (len > CONFIG_VALUE_MAX - n) {
            snprintf(
                why, why_len,
                "value is longer than the %d bytes accepted once ${NAME} references are expanded",
                CONFIG_VALUE_MAX);
            rc = -EINVAL;
            goto out_free_buf;
        }
        memcpy(buf + n, piece, len);
        n += len;
        p = next;
    }
    *out = xstrndup(buf, n);
out_free_buf:
    free(buf);
    return rc;
}

int config__next_item(const char **s, char *buf, size_t len)
{
    const char *p = *s + strspn(*s, " \t");
    const char *end;
    size_t n;

    if (*p == '\0')
        return -ENOENT;
    end = strchr(p, ',');
    n = end ? (size_t)(end - p) : strlen(p);
    *s = end ? end + 1 : p + n;
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    if (n >= len)
        return -E2BIG;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return 0;
}

/* Parses a decimal int64 at s; *end is just after it. */
static int parse_int(const char *s, long long *out, const char **end)
{
    char *e;

    if (!ascii_is_digit((unsigned char)s[0]) &&
        !(s[0] == '-' && ascii_is_digit((unsigned char)s[1])))
        return -EINVAL;
    errno = 0;
    *out = strtoll(s, &e, 10);
    if (errno == ERANGE)
        return -ERANGE;
    *end = e;
    return 0;
}

/* Checks the inside of a {rand:A..B} placeholder, from just after "rand:"
 * to end (the closing brace). */
static int check_rand(const char *s, const char *end)
{
    long long a, b;
    const char *p;

    if (parse_int(s, &a, &p) < 0 || strncmp(p, "..", 2) != 0)
        return -EINVAL;
    if (parse_int(p + 2, &b, &p) < 0 || p != end || a > b)
        return -EINVAL;
    return 0;
}

static int check_placeholder(const char *open, const char *close, char *why, size_t why_len)
{
    static const char *const names[] = {"seq", "vu", "uuid"};
    size_t n = (size_t)(close - open - 1);
    char shown[CONFIG_SHOW_MAX];

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (n == strlen(names[i]) && strncmp(open + 1, names[i], n) == 0)
            return 0;
    }
    config__show_n(open, n + 2, shown);
    if (strncmp(open + 1, "rand:", 5) == 0) {
        if (check_rand(open + 6, close) == 0)
            return 0;
        snprintf(why, why_len,
                 "bad placeholder (expected {rand:A..B} with integers A <= B, got \"%s\")", shown);
        return -EINVAL;
    }
    snprintf(why, why_len,
             "unknown placeholder (expected {seq}, {vu}, {uuid} or {rand:A..B}, got \"%s\")",
             shown);
    return -EINVAL;
}

static int check_template(const char *url, char *why, size_t why_len)
{
    char shown[CONFIG_SHOW_MAX];

    for (const char *p = url; *p; p++) {
        const char *close, *reopen;

        if (*p == '}') {
            snprintf(
                why, why_len,
                "} without { in the URL template (expected {seq}, {vu}, {uuid} or {rand:A..B}, got \"%s\")",
                config__show(url, shown));
            return -EINVAL;
        }
        if (*p != '{')
            continue;
        close = strchr(p + 1, '}');
        reopen = strchr(p + 1, '{');
        if (!close || (reopen && reopen < close)) {
            snprintf(
                why, why_len,
                "{ without } in the URL template (expected {seq}, {vu}, {uuid} or {rand:A..B}, got \"%s\")",
                config__show(url, shown));
            return -EINVAL;
        }
        if (check_placeholder(p, close, why, why_len) < 0)
            return -EINVAL;
        p = close;
    }
    return 0;
}

/* The port of the authority auth[0..len), if any, is 1 to 65535: a typo
 * like "http://host:8080path" would otherwise fail every request. */
static int check_port(const char *url, const char *auth, size_t len, char *why, size_t why_len)
{
    char shown[CONFIG_SHOW_MAX];
    const char *end = auth + len, *at, *colon = NULL;
    unsigned long port = 0;

    /* Skip user:pass@, whose colon is not a port's. */
    for (at = auth; at < end; at++) {
        if (*at == '@')
            auth = at + 1;
    }
    if (auth < end && *auth == '[') {
        const char *close = memchr(auth, ']', (size_t)(end - auth));

        if (close && close + 1 < end && close[1] == ':')
            colon = close + 1;
        else if (!close || close + 1 != end)
            goto bad;
    } else {
        colon = memchr(auth, ':', (size_t)(end - auth));
    }
    if (!colon)
        return 0;
    if (colon + 1 == end || colon + 6 < end)
        goto bad;
    for (const char *p = colon + 1; p < end; p++) {
        if (*p < '0' || *p > '9')
            goto bad;
        port = port * 10 + (unsigned long)(*p - '0');
    }
    if (port >= 1 && port <= 65535)
        return 0;
bad:
    snprintf(
        why, why_len,
        "bad host or port in the URL (expected http://HOST:PORT/ with a port from 1 to 65535, got \"%s\")",
        config__show(url, shown));
    return -EINVAL;
}

static int check_absolute(const char *url, int may_be_path, char *why, size_t why_len)
{
    char shown[CONFIG_SHOW_MAX];
    size_t scheme_len;

    if (strncasecmp(url, "http://", 7) == 0) {
        scheme_len = 7;
    } else if (strncasecmp(url, "https://", 8) == 0) {
        scheme_len = 8;
    } else if (may_be_path) {
        snprintf(why, why_len,
                 "expected an http:// or https:// URL or a path starting with /, got \"%s\"",
                 config__show(url, shown));
        return -EINVAL;
    } else {
        snprintf(why, why_len, "expected an http:// or https:// URL, got \"%s\"",
                 config__show(url, shown));
        return -EINVAL;
    }
    if (strcspn(url + scheme_len, "/?#") == 0) {
        snprintf(why, why_len, "no host in the URL (expected http://HOST/..., got \"%s\")",
                 config__show(url, shown));
        return -EINVAL;
    }
    return check_port(url, url + scheme_len, strcspn(url + scheme_len, "/?#"), why, why_len);
}

int config__check_url(const char *url, int may_be_path, char *why, size_t why_len)
{
    char shown[CONFIG_SHOW_MAX];

    if (!(may_be_path && url[0] == '/') && check_absolute(url, may_be_path, why, why_len) < 0)
        return -EINVAL;
    for (const char *p = url; *p; p++) {
        /* libcurl would send these as they are, which no server accepts. */
        if ((unsigned char)*p <= ' ' || *p == 0x7F) {
            snprintf(why, why_len, "blank in the URL (expected %%20 in its place, got \"%s\")",
                     config__show(url, shown));
            return -EINVAL;
        }
    }
    return check_template(url, why, why_len);
}
