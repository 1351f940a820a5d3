/*
 * content: the plain endpoints. GET /bytes/N answers N deterministic bytes
 * (a fixed 64 KiB pattern, repeated), /delay/MS answers after MS
 * milliseconds, /status/CODE answers CODE, and ANY /echo answers the
 * request body. Also the helpers that build a struct reply.
 */
#include "target/internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/xalloc.h"

static char pattern[CONTENT_PATTERN_BYTES];

void target__content_init(void)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";

    /* Line after line of the alphabet, each one starting one letter on, so
     * a cut or a shifted body is visible to the eye and to a checksum. */
    for (size_t i = 0; i < sizeof(pattern); i++)
        pattern[i] = (i % 64 == 63) ? '\n' : alphabet[(i % 64 + i / 64) % 36];
}

const char *target__content_pattern_table(void)
{
    return pattern;
}

void target__content_pattern(char *dst, uint64_t off, size_t n)
{
    while (n > 0) {
        size_t at = (size_t)(off % CONTENT_PATTERN_BYTES);
        size_t k = CONTENT_PATTERN_BYTES - at;
        if (k > n)
            k = n;
        memcpy(dst, pattern + at, k);
        dst += k;
        off += k;
        n -= k;
    }
}

void target__reply_init(struct reply *rp)
{
    memset(rp, 0, sizeof(*rp));
    rp->fd = -1;
    rp->content_type = "text/plain";
    rp->body = "";
}

void target__reply_free(struct reply *rp)
{
    free(rp->owned);
    rp->owned = NULL;
    if (rp->fd >= 0) {
        close(rp->fd);
        rp->fd = -1;
    }
}

void target__reply_text(struct reply *rp, unsigned status, const char *fmt, ...)
{
    va_list ap;
    int n;

    target__reply_free(rp);
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    rp->owned = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(rp->owned, (size_t)n + 1, fmt, ap);
    va_end(ap);
    rp->status = status;
    rp->body = rp->owned;
    rp->len = (uint64_t)n;
    rp->generated = 0;
    rp->content_type = "text/plain";
}

void target__reply_header(struct reply *rp, const char *name, const char *fmt, ...)
{
    va_list ap;

    if (rp->n_hdr == REPLY_MAX_HEADERS)
        return;
    rp->hdr[rp->n_hdr].name = name;
    va_start(ap, fmt);
    vsnprintf(rp->hdr[rp->n_hdr].value, sizeof(rp->hdr[0].value), fmt, ap);
    va_end(ap);
    rp->n_hdr++;
}

/* Parses a whole decimal number in [0, max]; -EINVAL otherwise. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;

    if (!*s)
        return -EINVAL;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -EINVAL;
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > max)
            return -EINVAL;
    }
    *out = v;
    return 0;
}

void target__content_bytes(struct reply *rp, const char *arg)
{
    uint64_t n;

    if (parse_u64(arg, CONTENT_MAX_BYTES, &n)) {
        target__reply_text(rp, 400,
                           "bad size \"%.40s\": expected /bytes/N with N a whole number 0..%llu\n",
                           arg, (unsigned long long)CONTENT_MAX_BYTES);
        return;
    }
    rp->status = 200;
    rp->content_type = "application/octet-stream";
    rp->body = pattern;
    rp->len = n;
    rp->generated = n > CONTENT_PATTERN_BYTES;
}

int target__content_delay_us(const char *arg, uint64_t *us)
{
    uint64_t ms;

    if (parse_u64(arg, CONTENT_MAX_DELAY_MS, &ms))
        return -EINVAL;
    *us = ms * 1000;
    return 0;
}

void target__content_status(struct reply *rp, const char *arg)
{
    uint64_t code;

    if (parse_u64(arg, 599, &code) || code < 200) {
        target__reply_text(rp, 400,
                           "bad status \"%.40s\": expected /status/CODE with CODE 200..599\n", arg);
        return;
    }
    if (code == 204 || code == 304)
        target__reply_text(rp, (unsigned)code, "%s", "");
    else
        target__reply_text(rp, (unsigned)code, "status %u\n", (unsigned)code);
}

void target__content_echo(struct reply *rp, const char *method, struct req *r)
{
    target__reply_free(rp);
    rp->status = 200;
    rp->content_type = "application/octet-stream";
    rp->owned = r->body;
    rp->body = r->body ? r->body : "";
    rp->len = r->body_len;
    r->body = NULL;
    r->body_len = 0;
    target__reply_header(rp, "X-Brink-Method", "%.40s", method);
}

void target__content_redirect(struct reply *rp, const char *arg, const char *code,
                              const char *method)
{
    uint64_t n, c = 302;

    if (code &&
        (parse_u64(code, 308, &c) || !(c == 301 || c == 302 || c == 303 || c == 307 || c == 308))) {
        target__reply_text(rp, 400, "bad code \"%.40s\": expected 301, 302, 303, 307 or 308\n",
                           code);
        return;
    }
    if (strcmp(arg, "loop") == 0) {
        target__reply_text(rp, (unsigned)c, "redirect loop\n");
        target__reply_header(rp, "Location", "/redirect/loop?code=%u", (unsigned)c);
        return;
    }
    if (parse_u64(arg, 1000, &n)) {
        target__reply_text(
            rp, 400, "bad count \"%.40s\": expected /redirect/N with N 0..1000, or loop\n", arg);
        return;
    }
    if (n == 0) {
        if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0)
            target__reply_text(rp, 200, "redirects done\n");
        else
            target__reply_text(rp, 405, "%.20s at the end of the redirects\n", method);
        return;
    }
    target__reply_text(rp, (unsigned)c, "redirect\n");
    target__reply_header(rp, "Location", "/redirect/%llu?code=%u", (unsigned long long)(n - 1),
                         (unsigned)c);
}
