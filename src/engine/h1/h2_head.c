#include "engine/h1/h2_head.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/xalloc.h"

static void add(struct h2_head *h, const char *name, size_t name_len, const char *value,
                size_t value_len)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 16;
        h->nv = xrealloc(h->nv, h->cap * sizeof(*h->nv));
    }
    h->nv[h->n++] = (nghttp2_nv){.name = (uint8_t *)name,
                                 .namelen = name_len,
                                 .value = (uint8_t *)value,
                                 .valuelen = value_len,
                                 .flags = NGHTTP2_NV_FLAG_NONE};
}

/* Whether name (n bytes, lower case) is a field HTTP/2 forbids with value. */
static int is_forbidden(const char *name, size_t n, const char *value, size_t value_len)
{
    static const char *const names[] = {"connection", "keep-alive", "proxy-connection",
                                        "transfer-encoding", "upgrade"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strlen(names[i]) == n && memcmp(names[i], name, n) == 0)
            return 1;
    }
    return n == 2 && memcmp(name, "te", 2) == 0 &&
           !(value_len == 8 && strncasecmp(value, "trailers", 8) == 0);
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

int h2_head_read(struct h2_head *h, const char *head, size_t len, const char *scheme, char *why,
                 size_t why_len)
{
    const char *end = head + len, *eol = memchr(head, '\n', len), *sp, *target, *p;
    size_t authority_at, at = 0;
    int has_authority = 0;

    h->n = 0;
    if (len > h->names_cap) {
        h->names_cap = len;
        h->names = xrealloc(h->names, len);
    }
    sp = eol ? memchr(head, ' ', (size_t)(eol - head)) : NULL;
    target = sp ? sp + 1 : NULL;
    p = target ? memchr(target, ' ', (size_t)(eol - target)) : NULL;
    if (!p || sp == head || p == target) {
        snprintf(why, why_len, "no request line in the head");
        return -EINVAL;
    }
    add(h, ":method", 7, head, (size_t)(sp - head));
    add(h, ":scheme", 7, scheme, strlen(scheme));
    authority_at = h->n;
    add(h, ":authority", 10, "", 0);
    add(h, ":path", 5, target, (size_t)(p - target));
    for (const char *line = eol + 1; line < end; line = eol + 1) {
        const char *colon, *v, *v_end;
        size_t n;

        eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol)
            eol = end;
        v_end = eol > line && eol[-1] == '\r' ? eol - 1 : eol;
        if (v_end == line)
            break; /* the blank line */
        colon = memchr(line, ':', (size_t)(v_end - line));
        if (!colon || colon == line) {
            snprintf(why, why_len, "a header line without a name and a colon");
            return -EINVAL;
        }
        n = (size_t)(colon - line);
        for (size_t i = 0; i < n; i++) {
            char c = line[i];

            h->names[at + i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
        }
        for (v = colon + 1; v < v_end && is_blank(*v); v++)
            ;
        while (v_end > v && is_blank(v_end[-1]))
            v_end--;
        if (n == 4 && memcmp(h->names + at, "host", 4) == 0) {
            h->nv[authority_at].value = (uint8_t *)v;
            h->nv[authority_at].valuelen = (size_t)(v_end - v);
            has_authority = 1;
            continue;
        }
        if (is_forbidden(h->names + at, n, v, (size_t)(v_end - v)))
            continue;
        add(h, h->names + at, n, v, (size_t)(v_end - v));
        at += n;
    }
    /* Without Host (a kind that removes it), no :authority either. */
    if (!has_authority) {
        memmove(&h->nv[authority_at], &h->nv[authority_at + 1],
                (h->n - authority_at - 1) * sizeof(*h->nv));
        h->n--;
    }
    return 0;
}

void h2_head_free(struct h2_head *h)
{
    free(h->nv);
    free(h->names);
    *h = (struct h2_head){0};
}
