/*
 * Reasons, quotes and lines for the probe parsers.
 */
#include "probes/internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/parse.h"
#include "core/msg.h"

const char *probes__quote(const char *s, size_t len, char *out)
{
    const char *nul = memchr(s, '\0', len);
    size_t n = nul ? (size_t)(nul - s) : len;
    int is_cut = nul != NULL;

    if (n > PROBE_QUOTE_MAX) {
        n = PROBE_QUOTE_MAX;
        /* Back up over continuation bytes so no character is split. */
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
        is_cut = 1;
    }
    memcpy(out, s, n);
    if (is_cut) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
    return out;
}

int probes__doc_check(size_t len, char *why, size_t why_len)
{
    if (len <= PROBE_DOC_MAX)
        return 0;
    msg_set(why, why_len, "page is %zu bytes, over the limit of %u", len, (unsigned)PROBE_DOC_MAX);
    return -EFBIG;
}

void probes__lines_init(struct probe_lines *it, const char *text, size_t len)
{
    it->at = text;
    it->end = text + len;
    it->lineno = 0;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        it->at += 3;
}

int probes__lines_next(struct probe_lines *it, const char **line, size_t *n)
{
    const char *p = it->at;

    if (p >= it->end)
        return 0;
    while (p < it->end && *p != '\n' && *p != '\0')
        p++;
    *line = it->at;
    *n = (size_t)(p - it->at);
    if (*n > 0 && (*line)[*n - 1] == '\r')
        (*n)--;
    it->at = p < it->end ? p + 1 : p;
    it->lineno++;
    return 1;
}

static int is_repetition(char c)
{
    return c == '*' || c == '+' || c == '?' || c == '{';
}

const char *probes__regex_unsafe(const char *s)
{
    int in_bracket = 0;

    if (probes__has_backref(s))
        return "back-references (\\1 to \\9) are not supported";
    for (const char *p = s; *p; p++) {
        if (p[0] == '\\' && p[1] != '\0') {
            p++;
        } else if (in_bracket) {
            in_bracket = p[0] != ']';
        } else if (p[0] == '[') {
            in_bracket = 1;
            p += p[1] == '^';
            p += p[1] == ']'; /* a ] first in a bracket is a member */
        } else if (p[0] == '{' && strtoul(p + 1, NULL, 10) > PROBE_REPEAT_MAX) {
            return "a repetition count above 100 is not supported";
        } else if ((is_repetition(p[0]) || p[0] == '}') && is_repetition(p[1])) {
            /* glibc copies the operand once per stacked repetition: "y++++"
             * takes gigabytes to compile. */
            return "a repetition right after another (such as ++ or *{2}) is not supported";
        }
    }
    return NULL;
}

int probes__has_backref(const char *s)
{
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] != '\0') {
            if (s[1] >= '1' && s[1] <= '9')
                return 1;
            s++;
        }
    }
    return 0;
}
