/*
 * Helpers shared by the probe parsers (parse_*.c) and nothing else: number
 * reading, reasons, quoting page text, and splitting a page into lines.
 * Pure functions, any thread.
 */
#ifndef BRINK_PROBES_INTERNAL_H
#define BRINK_PROBES_INTERNAL_H

#include <stddef.h>

#include "probes/parse.h"

/* Flag for probes__num_parse: also take NaN and [+-]Inf[inity], any case. */
#define PROBE_NUM_SPECIAL 1
/* The longest number text read, in bytes; longer is -ERANGE. */
#define PROBE_NUM_TEXT_MAX 128

/*
 * Reads s[0..len) as a whole number in the syntax of parse.h, whatever the
 * locale. Returns 0 with *out set, -EINVAL when it is not a number, or
 * -ERANGE when it overflows a double or is longer than PROBE_NUM_TEXT_MAX.
 */
int probes__num_parse(const char *s, size_t len, int flags, double *out);

/* Room for a quote made by probes__quote, its NUL included. */
#define PROBE_QUOTE_BUF (PROBE_QUOTE_MAX + 4)

/*
 * Copies at most PROBE_QUOTE_MAX bytes of s[0..len) into out (at least
 * PROBE_QUOTE_BUF bytes) and NUL-terminates it. The copy stops before a NUL
 * and is cut at a UTF-8 character boundary; a cut copy ends with "...".
 * Returns out, for use as a printf argument.
 */
const char *probes__quote(const char *s, size_t len, char *out);

/* Writes the reason for a page over PROBE_DOC_MAX and returns -EFBIG, or
 * returns 0 for a page that fits. */
int probes__doc_check(size_t len, char *why, size_t why_len);

/* Splits a page into lines; a leading UTF-8 byte order mark is skipped. */
struct probe_lines {
    const char *at;  /* start of the next line */
    const char *end; /* end of the page */
    size_t lineno;   /* number of the line returned last, from 1 */
};

void probes__lines_init(struct probe_lines *it, const char *text, size_t len);

/*
 * Sets *line and *n to the next line, without its "\n", "\r\n" or NUL end,
 * and returns 1, or returns 0 at the end of the page.
 */
int probes__lines_next(struct probe_lines *it, const char **line, size_t *n);

/* Returns whether regex s holds a back-reference, \1 to \9 (refused: they
 * can make matching exponential). */
int probes__has_backref(const char *s);

#define PROBE_REPEAT_MAX 100 /* the largest {n,m} bound a pattern may use */
/* Why regex s cannot be compiled safely, or NULL when it can: a
 * back-reference, a repetition count above PROBE_REPEAT_MAX, or a
 * repetition stacked on another, which glibc's regcomp compiles in memory
 * exponential in their number. */
const char *probes__regex_unsafe(const char *s);

/* Returns whether c is a blank (space or tab). */
static inline int probes__is_blank(char c)
{
    return c == ' ' || c == '\t';
}

#endif
