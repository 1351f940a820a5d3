#include "core/msg.h"

#include <stdlib.h>
#include <string.h>

#include "core/redact.h"
#include "core/sanitize.h"

int msg_vset(char *buf, size_t cap, int err, const char *fmt, va_list ap)
{
    if (cap > 0)
        vsnprintf(buf, cap, fmt, ap);
    return err;
}

int msg_set(char *buf, size_t cap, int err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    msg_vset(buf, cap, err, fmt, ap);
    va_end(ap);
    return err;
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

const char *msg_show(const char *s, size_t n, char *out, size_t cap, int ascii_only)
{
    /* Text beyond MSG_LINE_MAX is never shown whole: the copy stops there,
     * before the redaction, so that what is cut is cut redacted. */
    char piece[MSG_LINE_MAX];
    char redacted[MSG_LINE_MAX];

    if (n >= sizeof(piece))
        n = sizeof(piece) - 1;
    memcpy(piece, s, n);
    piece[n] = '\0';
    redact_text(piece, redacted, sizeof(redacted));
    sanitize_display(redacted, strlen(redacted), out, cap, ascii_only);
    return out;
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
