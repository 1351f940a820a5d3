/*
 * The reader that ini_parse_stream pulls lines from. inih itself cannot say
 * which line a value came from (Debian builds it with INI_HANDLER_LINENO 0),
 * silently cuts lines at 200 bytes (INI_MAX_LINE) and 49-byte section names,
 * and turns indented lines into continuations of the previous value. So this
 * reader reads whole lines itself, counts them, reports the lines inih would
 * reject or mangle, and hands inih only lines it parses faithfully:
 *   - [section] lines are handled here and inih gets a blank line;
 *   - a key = value line that fits is handed over without its indentation;
 *   - a longer one is split here, and inih gets the stand-in "x=" while the
 *     handler finds the real key and value in the context.
 * Every line yields exactly one line for inih, so inih's count matches ours.
 */
#include "config/internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define BOM "\xEF\xBB\xBF"

static char *lskip(char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return s;
}

static void rstrip(char *s)
{
    size_t n = strlen(s);

    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
}

/*
 * The first of chars in s, or the start of an inline comment, or the end.
 * This is inih's own rule (find_chars_or_comment): ';' starts a comment only
 * after whitespace. Using the same rule keeps our split of a long line and
 * our verdict on a bad line identical to what inih does with short ones.
 */
static char *find_sep(char *s, const char *chars)
{
    int was_space = 0;

    while (*s && (!chars || !strchr(chars, *s)) && !(was_space && *s == ';')) {
        was_space = isspace((unsigned char)*s);
        s++;
    }
    return s;
}

static int next_byte(struct config_load_ctx *ctx)
{
    if (ctx->in)
        return getc(ctx->in);
    if (*ctx->text == '\0')
        return EOF;
    return (unsigned char)*ctx->text++;
}

/*
 * Reads one line into ctx->line, keeping at most CONFIG_VALUE_MAX + 1 bytes
 * (one more than accepted, so a longer line is seen as such) and counting all
 * of them. Returns the length without the newline and a final CR, or -1 at
 * the end of the input. *nul_at is the 1-based position of the first NUL
 * byte, 0 when there is none.
 */
static long read_line(struct config_load_ctx *ctx, size_t *nul_at)
{
    size_t n = 0;
    int ch, last = EOF;

    *nul_at = 0;
    while ((ch = next_byte(ctx)) != EOF && ch != '\n') {
        if (ch == '\0' && *nul_at == 0)
            *nul_at = n + 1;
        if (n <= CONFIG_VALUE_MAX)
            ctx->line[n] = (char)ch;
        n++;
        last = ch;
    }
    if (ch == EOF && ctx->in && ferror(ctx->in) && !ctx->read_errno)
        ctx->read_errno = errno ? errno : EIO;
    if (ch == EOF && n == 0)
        return -1;
    if (last == '\r')
        n--;
    ctx->line_len = n <= CONFIG_VALUE_MAX ? n : CONFIG_VALUE_MAX + 1;
    ctx->line[ctx->line_len] = '\0';
    return (long)n;
}

/* Copies the key of a key = value line into buf (sanitized), or returns NULL
 * when s is not such a line. Used only to say where a bad line was. */
static const char *key_of(char *s, char *buf)
{
    char *sep = find_sep(s, "=:");
    size_t n;

    if (*s == '[' || *s == ';' || *s == '#' || (*sep != '=' && *sep != ':'))
        return NULL;
    n = (size_t)(sep - s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    return n ? config__show_n(s, n, buf) : NULL;
}

/* "[section] key" or "[section]" or "key" or NULL, for a message. */
static const char *where(struct config_load_ctx *ctx, const char *key, char *buf, size_t len)
{
    if (key && ctx->label[0])
        snprintf(buf, len, "%s %s", ctx->label, key);
    else if (key)
        snprintf(buf, len, "%s", key);
    else if (ctx->label[0])
        snprintf(buf, len, "%s", ctx->label);
    else
        return NULL;
    return buf;
}

static void report_too_long(struct config_load_ctx *ctx, long n)
{
    char key[CONFIG_SHOW_MAX], at[CONFIG_WHERE_MAX];
    const char *k = key_of(lskip(ctx->line), key);

    config__error(ctx, ctx->lineno, where(ctx, k, at, sizeof(at)),
                  "line is %ld bytes, longer than the %d accepted", n, CONFIG_VALUE_MAX);
}

static void report_nul(struct config_load_ctx *ctx, size_t at_byte)
{
    char key[CONFIG_SHOW_MAX], at[CONFIG_WHERE_MAX];
    const char *k = key_of(lskip(ctx->line), key);

    config__error(ctx, ctx->lineno, where(ctx, k, at, sizeof(at)),
                  "line holds a NUL byte at byte %zu (expected text)", at_byte);
}

static void report_not_a_setting(struct config_load_ctx *ctx, char *s)
{
    char shown[CONFIG_SHOW_MAX], at[CONFIG_WHERE_MAX];
    int is_indented = s > ctx->line;

    config__show(s, shown);
    if (is_indented && ctx->last_key[0]) {
        /* inih would have appended it to the previous value (multi-line
         * values); no brink value spans lines, so that would hide a typo. */
        config__error(
            ctx, ctx->lineno, where(ctx, ctx->last_key, at, sizeof(at)),
            "continuation lines are not supported, a value must fit on its line (expected \"key = value\", got \"%s\")",
            shown);
        return;
    }
    config__error(
        ctx, ctx->lineno, where(ctx, NULL, at, sizeof(at)),
        "not a setting (expected \"key = value\", a [section] line or a ; comment, got \"%s\")",
        shown);
}

static void read_section_line(struct config_load_ctx *ctx, char *s)
{
    char shown[CONFIG_SHOW_MAX];
    char *end = find_sep(s + 1, "]");
    char *after;

    ctx->last_key[0] = '\0';
    if (*end != ']') {
        config__error(ctx, ctx->lineno, NULL,
                      "section line has no closing ] (expected \"[name]\", got \"%s\")",
                      config__show(s, shown));
        config__begin_section(ctx, NULL);
        return;
    }
    *end = '\0';
    after = lskip(end + 1);
    if (*after != '\0' && *after != ';' && *after != '#') {
        char name[CONFIG_SHOW_MAX], at[CONFIG_WHERE_MAX];

        /* inih ignores such text; it is more likely a key that lost its
         * line break, so say so, but keep the section to avoid a cascade. */
        snprintf(at, sizeof(at), "[%s]", config__show(s + 1, name));
        config__error(
            ctx, ctx->lineno, at,
            "text after the section name (expected a comment or nothing after ], got \"%s\")",
            config__show(after, shown));
    }
    config__begin_section(ctx, s + 1);
}

/*
 * Hands inih the key = value line s through str (num bytes), or, when it
 * does not fit, the stand-in "x=" with the real key and value left in ctx.
 */
static void hand_key_line(struct config_load_ctx *ctx, char *s, char *sep, char *str, int num)
{
    size_t n = strlen(s), key_len = (size_t)(sep - s);
    char *value;

    while (key_len > 0 && isspace((unsigned char)s[key_len - 1]))
        key_len--;
    config__show_n(s, key_len, ctx->last_key);
    if (n + 2 <= (size_t)num) {
        memcpy(str, s, n);
        memcpy(str + n, "\n", 2);
        return;
    }
    /* The same steps as inih: cut the key at the separator, the value at an
     * inline comment that starts right after it, then trim both. */
    *sep = '\0';
    rstrip(s);
    value = sep + 1;
    *find_sep(value, NULL) = '\0';
    value = lskip(value);
    rstrip(value);
    ctx->long_name = s;
    ctx->long_value = value;
    snprintf(str, (size_t)num, "x=\n");
}

char *config__read_line(char *str, int num, void *stream)
{
    struct config_load_ctx *ctx = stream;
    size_t nul_at;
    long n = read_line(ctx, &nul_at);
    char *s, *sep;

    ctx->long_name = NULL;
    ctx->long_value = NULL;
    if (n < 0 || num < 4)
        return NULL;
    ctx->lineno++;
    snprintf(str, (size_t)num, "\n");
    if (n > CONFIG_VALUE_MAX) {
        report_too_long(ctx, n);
        return str;
    }
    if (nul_at) {
        report_nul(ctx, nul_at);
        return str;
    }
    /* A byte order mark is not indentation: drop it before anything looks. */
    if (ctx->lineno == 1 && strncmp(ctx->line, BOM, 3) == 0) {
        memmove(ctx->line, ctx->line + 3, ctx->line_len - 2);
        ctx->line_len -= 3;
    }
    s = lskip(ctx->line);
    if (*s == '\0' || *s == ';' || *s == '#')
        return str;
    if (*s == '[') {
        read_section_line(ctx, s);
        return str;
    }
    sep = find_sep(s, "=:");
    if (*sep != '=' && *sep != ':') {
        report_not_a_setting(ctx, s);
        return str;
    }
    hand_key_line(ctx, s, sep, str, num);
    return str;
}
