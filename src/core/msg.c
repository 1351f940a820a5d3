#include "core/msg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/redact.h"
#include "core/sanitize.h"
#include "core/xalloc.h"

void msg_vset(char *buf, size_t cap, const char *fmt, va_list ap)
{
    if (buf != NULL && cap > 0)
        vsnprintf(buf, cap, fmt, ap);
}

void msg_set(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    msg_vset(buf, cap, fmt, ap);
    va_end(ap);
}

struct msg_errno_text msg_errno(int e)
{
    struct msg_errno_text t;

    if (e < 0)
        e = -e;
    /* XSI strerror_r (_GNU_SOURCE is not set): it writes into our buffer,
     * where plain strerror may return one shared between threads. */
    if (strerror_r(e, t.text, sizeof(t.text)) != 0)
        snprintf(t.text, sizeof(t.text), "error %d", e);
    return t;
}

const char *msg_show_n(const char *s, size_t n, char *out, size_t cap)
{
    char piece[MSG_LINE_MAX];
    char redacted[MSG_LINE_MAX];

    /* Text beyond MSG_LINE_MAX is never shown whole: the copy stops there,
     * before the redaction, so that what is cut is cut redacted. */
    if (n >= sizeof(piece))
        n = sizeof(piece) - 1;
    memcpy(piece, s, n);
    piece[n] = '\0';
    redact_text(piece, redacted, sizeof(redacted));
    sanitize_display(redacted, strlen(redacted), out, cap, 1);
    return out;
}

const char *msg_show(const char *s, char *out, size_t cap)
{
    return msg_show_n(s, strnlen(s, MSG_LINE_MAX), out, cap);
}

size_t msg_clean(const char *in, char *out, size_t cap)
{
    char redacted[MSG_LINE_MAX];

    redact_text(in, redacted, sizeof(redacted));
    return sanitize_line(redacted, strlen(redacted), out, cap);
}

void msg_vprint(FILE *out, const char *fmt, va_list ap)
{
    char line[MSG_LINE_MAX];
    char clean[MSG_LINE_MAX];

    vsnprintf(line, sizeof(line), fmt, ap);
    msg_clean(line, clean, sizeof(clean));
    fprintf(out, "%s\n", clean);
}

void msg_print(FILE *out, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    msg_vprint(out, fmt, ap);
    va_end(ap);
}

/* Writes line[0..n) cleaned, in buffers sized for it: a redacted value's mark
 * ("<redacted len=N>") is at most 24 bytes longer than the value, and a
 * sanitized byte at most 10 bytes long. */
static int print_line(FILE *out, const char *line, size_t n)
{
    char *piece = xmalloc(n + 1);
    size_t cap = 25 * n + 64;
    char *redacted = xmalloc(cap);
    char *clean;
    size_t len;
    int rc;

    memcpy(piece, line, n);
    piece[n] = '\0';
    len = redact_text(piece, redacted, cap);
    clean = xmalloc(10 * len + 8);
    len = sanitize_line(redacted, len, clean, 10 * len + 8);
    rc = fwrite(clean, 1, len, out) == len ? 0 : -EIO;
    free(clean);
    free(redacted);
    free(piece);
    return rc;
}

int msg_print_text(FILE *out, const char *text, size_t len)
{
    size_t i = 0;

    while (i < len) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - text) - i : len - i;

        if (print_line(out, text + i, n) != 0 || (nl && fputc('\n', out) == EOF))
            return -EIO;
        i += n + (nl != NULL);
    }
    return ferror(out) ? -EIO : 0;
}
