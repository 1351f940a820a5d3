/*
 * Messages of the config loader: one line each, in the form docs/config.md
 * gives under "Messages", with every piece of user text sanitized and cut, and the
 * did-you-mean suggestions for unknown sections and keys (core/suggest.h).
 */
#include "config/internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/msg.h"
#include "core/sanitize.h"

static void say(struct config_load_ctx *ctx, uint32_t line, const char *where, const char *fmt,
                va_list ap) CONFIG_PRINTF(4, 0);

static void say(struct config_load_ctx *ctx, uint32_t line, const char *where, const char *fmt,
                va_list ap)
{
    char msg[MSG_LINE_MAX];
    char at[32] = "";

    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (line)
        snprintf(at, sizeof(at), ":%lu", (unsigned long)line);
    msg_print(ctx->err, "brink: %s%s: %s%s%s", ctx->file, at, where ? where : "", where ? ": " : "",
              msg);
}

void config__error(struct config_load_ctx *ctx, uint32_t line, const char *where, const char *fmt,
                   ...)
{
    va_list ap;

    /* A file of noise (a binary, random bytes) must not flood the terminal:
     * the first errors are printed, the rest counted (config__errors_end). */
    if (ctx->n_errors < CONFIG_ERRORS_SHOWN) {
        va_start(ap, fmt);
        say(ctx, line, where, fmt, ap);
        va_end(ap);
    }
    ctx->n_errors++;
}

void config__errors_end(struct config_load_ctx *ctx)
{
    if (ctx->n_errors > CONFIG_ERRORS_SHOWN)
        fprintf(ctx->err, "brink: %s: ... %u more errors\n", ctx->file,
                ctx->n_errors - CONFIG_ERRORS_SHOWN);
}

void config__notice(struct config_load_ctx *ctx, uint32_t line, const char *where, const char *fmt,
                    ...)
{
    va_list ap;

    va_start(ap, fmt);
    say(ctx, line, where, fmt, ap);
    va_end(ap);
}

const char *config__show_n(const char *s, size_t n, char *buf)
{
    msg_show_n(s, n, buf, CONFIG_SHOW_MAX);
    return buf;
}

const char *config__show(const char *s, char *buf)
{
    return config__show_n(s, strlen(s), buf);
}

void config__tidy_why(char *why, size_t why_len)
{
    char out[4 * CONFIG_SHOW_MAX];
    size_t n = strlen(why);

    /* units.h already quotes the value sanitized and cut; this is only the
     * guarantee that a message stays one printable line whatever it wrote. */
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)why[i] < ' ' || (unsigned char)why[i] >= 0x7F || i >= sizeof(out) / 2) {
            sanitize_display(why, n, out, sizeof(out), 1);
            snprintf(why, why_len, "%s", out);
            return;
        }
    }
}
