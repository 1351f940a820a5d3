/*
 * Messages of the config loader: one line each, in the form docs/config.md
 * gives under "Messages", with every piece of user text sanitized and cut, and the
 * did-you-mean suggestions for unknown sections and keys.
 */
#include "config/internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/msg.h"
#include "core/sanitize.h"

/* Words longer than this are never typos of a key, and the distance table
 * stays small. */
#define SUGGEST_WORD_MAX 40

static void say(struct config_load_ctx *ctx, uint32_t line, const char *where, const char *fmt,
                va_list ap) CONFIG_PRINTF(4, 0);

static void say(struct config_load_ctx *ctx, uint32_t line, const char *where, const char *fmt,
                va_list ap)
{
    char msg[1024];
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

/*
 * Optimal string alignment distance, ignoring case: insertions, deletions,
 * substitutions and swaps of two neighbours each cost 1, so "laod" is one
 * step from "load", as a typing slip is.
 */
static size_t distance(const char *a, const char *b)
{
    size_t d[SUGGEST_WORD_MAX + 1][SUGGEST_WORD_MAX + 1];
    size_t m = strlen(a), n = strlen(b);

    for (size_t i = 0; i <= m; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= n; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= m; i++) {
        for (size_t j = 1; j <= n; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            size_t best = d[i - 1][j - 1] + (ca != cb);

            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[m][n];
}

const char *config__closest(const char *word, const char *const *candidates)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX;

    if (strlen(word) > SUGGEST_WORD_MAX)
        return NULL;
    for (size_t i = 0; candidates[i]; i++) {
        /* One slip per five letters: close enough to be a typo, far enough
         * that "dir" is not offered for "url". */
        size_t limit = 1 + strlen(candidates[i]) / 5;
        size_t d;

        if (strlen(candidates[i]) > SUGGEST_WORD_MAX)
            continue;
        d = distance(word, candidates[i]);
        if (d <= limit && d < best_d) {
            best = candidates[i];
            best_d = d;
        }
    }
    return best;
}
