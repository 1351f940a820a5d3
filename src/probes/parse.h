/*
 * probes/parse: the pure parsers behind the probes. They turn a fetched page
 * (JSON, text, Prometheus exposition) into one number, and do no I/O. Any
 * thread; no globals; a handle is used by one thread at a time.
 *
 * Shared rules:
 *   - Fallible functions return 0 or a negative errno:
 *       -EINVAL  the request is malformed (pointer, key, regex, selector):
 *                the compile and check functions catch these at config time;
 *       -EFBIG   the page is longer than PROBE_DOC_MAX bytes;
 *       -EBADMSG the page is not a JSON document, or is nested too deeply;
 *       -ENOENT  no key, element, line or series matches;
 *       -EDOM    what matched is not a number ("undefined", null, an object);
 *       -ERANGE  what matched is a number too big for a double ("1e999").
 *   - On failure they write one line into why (always NUL-terminated and cut
 *     to why_len; why may be NULL when why_len is 0) and leave *out alone; on
 *     success they leave why alone. A reason starts with where it failed
 *     (the pointer, the key, "line 12") and may quote page text: at most
 *     PROBE_QUOTE_MAX bytes of it, raw (the display sanitizer runs later),
 *     never a NUL. A page may hold NULs: the text parsers read one as a line
 *     end, and JSON forbids them outside strings.
 *   - Numbers are read the same way everywhere, whatever the locale: an
 *     optional sign, digits with an optional '.' (".5" and "5." are fine) and
 *     an optional exponent ("1e3", "2.5E-4"). No hex, no blanks around, no
 *     "inf" or "nan" except in Prometheus pages. A value beyond the range of
 *     a double is -ERANGE; one below it reads as 0.
 */
#ifndef BRINK_PROBES_PARSE_H
#define BRINK_PROBES_PARSE_H

#include <stddef.h>

/* The largest page any parser takes, in bytes. */
#define PROBE_DOC_MAX (4u * 1024 * 1024)
/* The deepest nesting of JSON arrays and objects taken; the document itself
 * is level 1 when it is an array or object. */
#define PROBE_JSON_DEPTH_MAX 64
/* The longest line a regex probe looks at; longer lines are skipped. */
#define PROBE_LINE_MAX 4096
/* The most bytes of page text quoted in a reason (a cut ends with "..."). */
#define PROBE_QUOTE_MAX 60
/* The longest pointer, key, regex or selector taken, in bytes. */
#define PROBE_PATTERN_MAX 1024

/* --- JSON documents and RFC 6901 JSON Pointers --- */

/*
 * A parsed JSON document, so that several pointers can be read from one
 * fetch without parsing it again.
 */
struct probe_json;

/*
 * Checks the syntax of an RFC 6901 JSON Pointer: "" (the whole document) or
 * one or more "/token", where "~0" stands for '~' and "~1" for '/' and no
 * other '~' may appear. At most PROBE_PATTERN_MAX bytes. Returns 0 or
 * -EINVAL with why, e.g. bad JSON pointer "a/b": it must be empty or start
 * with "/". For the config loader.
 */
int probe_json_pointer_check(const char *pointer, char *why, size_t why_len);

/*
 * Parses text[0..len) as one JSON value of any type (a bare number is a
 * document too). A leading UTF-8 byte order mark is skipped. Numbers are read
 * as doubles (integers past 2^53 lose precision; ones past the double range
 * fail the whole document), "\u0000" is allowed in strings, and of duplicate
 * keys the last wins. Returns 0 with *out set to a new handle the caller
 * closes with probe_json_close, -EFBIG when len > PROBE_DOC_MAX, or -EBADMSG
 * when the text is not JSON or nests deeper than PROBE_JSON_DEPTH_MAX (the
 * depth is checked before jansson runs, so hostile nesting costs one pass).
 */
int probe_json_open(const char *text, size_t len, struct probe_json **out, char *why,
                    size_t why_len);

/*
 * Reads the value at pointer in doc as a number: a JSON number, true (1) or
 * false (0), or a string that holds a number ("12.5"). An array index is "0"
 * or digits without a leading zero, and "-" (past the end) never exists.
 * Returns 0 with *out set, -EINVAL for a bad pointer, -ENOENT when the
 * pointer leads nowhere (why: /a/b: no such key), -EDOM when the value is
 * not a number (why: /node_get_fsm_time_mean: "undefined" is not a number),
 * -ERANGE for a string number out of range. doc is only read.
 */
int probe_json_get(const struct probe_json *doc, const char *pointer, double *out, char *why,
                   size_t why_len);

/* Frees doc; NULL is a no-op. */
void probe_json_close(struct probe_json *doc);

/* probe_json_open, probe_json_get and probe_json_close in one call. */
int probe_parse_json(const char *text, size_t len, const char *pointer, double *out, char *why,
                     size_t why_len);

/* --- Text pages: "key: value" lines, and regexes --- */

/*
 * Checks a key for probe_parse_text_key: 1 to PROBE_PATTERN_MAX bytes, no
 * line break, no blank at either end. Returns 0 or -EINVAL with why.
 */
int probe_text_key_check(const char *key, char *why, size_t why_len);

/*
 * Finds key in a text page and reads its value. Lines end at "\n", "\r\n"
 * or a NUL. Key matching is exact and case-sensitive. The first of these
 * that names the key decides (the page's later lines are not read):
 *   - a pair "KEY: VALUE", "KEY : VALUE", "KEY=VALUE" or "KEY VALUE" that
 *     starts a line (after blanks), where VALUE is the next blank-separated
 *     word and anything after it is ignored (Riak's "node_gets : 12",
 *     Apache's "Total Accesses: 123", nginx's "Active connections: 2");
 *   - a pair that follows a "NAME: NUMBER" or "NAME=NUMBER" pair on the same
 *     line, so nginx's "Reading: 0 Writing: 1 Waiting: 1" gives Writing = 1;
 *   - a word of a table: a line of words with no number among them followed
 *     by a line of numbers only, paired from the right, so nginx's
 *     "server accepts handled requests" over " 3 3 5" gives accepts = 3,
 *     handled = 3, requests = 5 (and "server" has no value).
 * Returns 0 with *out set, -EINVAL for a bad key, -EFBIG for a page over
 * PROBE_DOC_MAX, -ENOENT (why: Writing: no such key), -EDOM (why:
 * node_get_fsm_time_mean: "undefined" is not a number (line 4)) or -ERANGE.
 */
int probe_parse_text_key(const char *text, size_t len, const char *key, double *out, char *why,
                         size_t why_len);

/* A compiled regex probe. */
struct probe_regex;

/*
 * Compiles a POSIX extended regex (regcomp with REG_EXTENDED) with exactly
 * one capture group, whose match must read as a number. POSIX has no
 * non-capturing group, so other parentheses are not allowed; back-references
 * (\1 ... \9) are refused too, as they can make matching exponential.
 * Returns 0 with *out set to a handle freed by probe_regex_free, or -EINVAL
 * with why (bad regex "(": ..., or the number of groups found).
 */
int probe_regex_compile(const char *regex, struct probe_regex **out, char *why, size_t why_len);

/*
 * Runs re on each line of text[0..len) (lines as for probe_parse_text_key;
 * so "^" and "$" anchor at line ends) and reads the group of the first line
 * that matches. Lines longer than PROBE_LINE_MAX are skipped. Returns 0 with
 * *out set, -EFBIG, -ENOENT (why says how many long lines were skipped, if
 * any), -EDOM (why: line 7: "abc" is not a number) or -ERANGE.
 */
int probe_regex_match(const struct probe_regex *re, const char *text, size_t len, double *out,
                      char *why, size_t why_len);

/* Frees re; NULL is a no-op. */
void probe_regex_free(struct probe_regex *re);

/* probe_regex_compile, probe_regex_match and probe_regex_free in one call. */
int probe_parse_text_regex(const char *text, size_t len, const char *regex, double *out, char *why,
                           size_t why_len);

/* --- Prometheus text exposition format --- */

/* A compiled Prometheus series selector. */
struct probe_prom;

/* The most label matchers a selector may hold. */
#define PROBE_PROM_MATCHERS_MAX 16

/*
 * Compiles a selector: a metric name, optionally followed by label matchers
 * in braces, as in PromQL: up, http_requests_total{code="200",method!="GET"}.
 * Operators: = and != compare whole values, =~ and !~ match a POSIX extended
 * regex against the whole value (anchored at both ends, no back-references).
 * A missing label has the value "", so {code!="500"} also matches series
 * without a code label. The label __name__ stands for the metric name. Values
 * are double-quoted with the escapes \\, \", \n and \t. Blanks may appear
 * between tokens, and a trailing comma is fine. At most PROBE_PATTERN_MAX
 * bytes and PROBE_PROM_MATCHERS_MAX matchers. Returns 0 with *out set to a
 * handle freed by probe_prom_free, or -EINVAL with why, e.g.
 *   bad selector "up{job=x}": expected a quoted value at column 8
 */
int probe_prom_compile(const char *selector, struct probe_prom **out, char *why, size_t why_len);

/*
 * Sums the values of every sample line of text[0..len) that p matches, and
 * sets *n_series (if not NULL) to how many lines that was. The page is read
 * as the Prometheus text format (version 0.0.4; OpenMetrics reads too):
 *   - lines end at "\n", "\r\n" or a NUL; blank lines and lines starting
 *     with '#' (HELP, TYPE, EOF, other comments) are skipped;
 *   - a sample is NAME[{LABEL="VALUE",...}] VALUE [TIMESTAMP] [# exemplar],
 *     with blanks (spaces, tabs) between tokens; label values may hold the
 *     escapes \\, \" and \n (any other backslash pair stays as it is);
 *   - a value is a number as above, or NaN, Inf, +Inf, -Inf (also
 *     "Infinity", any case); a timestamp is a number;
 *   - histogram and summary series (_bucket with le, _sum, _count, quantile)
 *     are ordinary series: select them by name and labels;
 *   - every matching line counts, duplicates too.
 * The sum follows IEEE arithmetic: a NaN sample, or +Inf plus -Inf, makes it
 * NaN, and +Inf stays +Inf; the caller shows what it gets.
 * A line that does not parse is skipped and counted; it fails nothing.
 * Returns 0 with *out set, -EFBIG, or -ENOENT when no line matches, with
 * why: no series matches up{job="api"} (2 malformed lines, the first is
 * line 7). p is only read.
 */
int probe_prom_eval(const struct probe_prom *p, const char *text, size_t len, double *out,
                    size_t *n_series, char *why, size_t why_len);

/* Frees p; NULL is a no-op. */
void probe_prom_free(struct probe_prom *p);

#endif
