/*
 * Text probes by regex: POSIX extended regexes with one capture group, run
 * line by line. regexec wants NUL-terminated text, so each line is copied
 * into a buffer of PROBE_LINE_MAX bytes; that also bounds the work per line.
 */
#include "probes/parse.h"

#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "core/msg.h"
#include "core/xalloc.h"
#include "probes/internal.h"

struct probe_regex {
    regex_t re; /* compiled with REG_EXTENDED, one group */
};

int probe_regex_compile(const char *regex, struct probe_regex **out, char *why, size_t why_len)
{
    struct probe_regex *r;
    char err[128];
    size_t len = strlen(regex);
    int rc;

    if (len == 0 || len > PROBE_PATTERN_MAX) {
        msg_set(why, why_len, "bad regex: it is %zu bytes, expected 1 to %d", len,
                PROBE_PATTERN_MAX);
        return -EINVAL;
    }
    if (probes__regex_unsafe(regex)) {
        msg_set(why, why_len, "bad regex \"%s\": %s", regex, probes__regex_unsafe(regex));
        return -EINVAL;
    }
    r = xmalloc(sizeof(*r));
    rc = regcomp(&r->re, regex, REG_EXTENDED);
    if (rc != 0) {
        regerror(rc, &r->re, err, sizeof(err));
        msg_set(why, why_len, "bad regex \"%s\": %s", regex, err);
        free(r);
        return -EINVAL;
    }
    if (r->re.re_nsub != 1) {
        msg_set(why, why_len, "bad regex \"%s\": it needs exactly one capture group, it has %zu",
                regex, r->re.re_nsub);
        probe_regex_free(r);
        return -EINVAL;
    }
    *out = r;
    return 0;
}

void probe_regex_free(struct probe_regex *re)
{
    if (!re)
        return;
    regfree(&re->re);
    free(re);
}

/* Reads the group of a matching line. */
static int read_group(const char *line, const regmatch_t *group, size_t lineno, double *out,
                      char *why, size_t why_len)
{
    char quote[PROBE_QUOTE_BUF];
    size_t n;
    int rc;

    if (group->rm_so < 0) {
        msg_set(why, why_len, "line %zu: the capture group took no part in the match", lineno);
        return -EDOM;
    }
    n = (size_t)(group->rm_eo - group->rm_so);
    rc = probes__num_parse(line + group->rm_so, n, 0, out);
    if (rc == 0)
        return 0;
    msg_set(why, why_len, "line %zu: \"%s\" is %s", lineno,
            probes__quote(line + group->rm_so, n, quote),
            rc == -ERANGE ? "out of range" : "not a number");
    return rc == -ERANGE ? -ERANGE : -EDOM;
}

int probe_regex_match(const struct probe_regex *re, const char *text, size_t len, double *out,
                      char *why, size_t why_len)
{
    char buf[PROBE_LINE_MAX + 1];
    regmatch_t match[2];
    struct probe_lines it;
    const char *line;
    size_t n, n_long = 0;
    int rc = probes__doc_check(len, why, why_len);

    if (rc != 0)
        return rc;
    probes__lines_init(&it, text, len);
    while (probes__lines_next(&it, &line, &n)) {
        if (n > PROBE_LINE_MAX) {
            n_long++;
            continue;
        }
        memcpy(buf, line, n);
        buf[n] = '\0';
        if (regexec(&re->re, buf, 2, match, 0) == 0)
            return read_group(buf, &match[1], it.lineno, out, why, why_len);
    }
    if (n_long > 0)
        msg_set(why, why_len, "no line matches (%zu line%s over %d bytes skipped)", n_long,
                n_long == 1 ? "" : "s", PROBE_LINE_MAX);
    else
        msg_set(why, why_len, "no line matches");
    return -ENOENT;
}

int probe_parse_text_regex(const char *text, size_t len, const char *regex, double *out, char *why,
                           size_t why_len)
{
    struct probe_regex *re;
    int rc = probe_regex_compile(regex, &re, why, why_len);

    if (rc == 0) {
        rc = probe_regex_match(re, text, len, out, why, why_len);
        probe_regex_free(re);
    }
    return rc;
}
