/*
 * Text probes by key: "key: value" pairs (Riak's text stats, Apache's
 * server-status?auto, nginx's stub_status), several pairs on one line, and
 * nginx's two-line table of names over numbers.
 */
#include "probes/parse.h"

#include <errno.h>
#include <string.h>

#include "probes/internal.h"
#include "core/msg.h"

int probe_text_key_check(const char *key, char *why, size_t why_len)
{
    size_t len = strlen(key);

    if (len == 0) {
        msg_set(why, why_len, "bad key: it is empty");
        return -EINVAL;
    }
    if (len > PROBE_PATTERN_MAX) {
        msg_set(why, why_len, "bad key: it is %zu bytes, over the limit of %d", len,
                PROBE_PATTERN_MAX);
        return -EINVAL;
    }
    if (strpbrk(key, "\r\n")) {
        msg_set(why, why_len, "bad key \"%s\": it holds a line break", key);
        return -EINVAL;
    }
    if (probes__is_blank(key[0]) || probes__is_blank(key[len - 1])) {
        msg_set(why, why_len, "bad key \"%s\": it starts or ends with a blank", key);
        return -EINVAL;
    }
    return 0;
}

static size_t skip_blanks(const char *line, size_t n, size_t i)
{
    while (i < n && probes__is_blank(line[i]))
        i++;
    return i;
}

static size_t word_end(const char *line, size_t n, size_t i)
{
    while (i < n && !probes__is_blank(line[i]))
        i++;
    return i;
}

/* Whether the word at line[i] (up to a blank) is a number; sets *end after
 * it when it is. At most PROBE_NUM_TEXT_MAX + 1 bytes are looked at, so a
 * line of many ':' costs linear time, not quadratic. */
static int is_number_at(const char *line, size_t n, size_t i, size_t *end)
{
    size_t limit = n - i > PROBE_NUM_TEXT_MAX + 1 ? i + PROBE_NUM_TEXT_MAX + 1 : n;
    size_t j = word_end(line, limit, i);
    double v;

    if (j == i || (j == limit && limit < n) || probes__num_parse(line + i, j - i, 0, &v) != 0)
        return 0;
    *end = j;
    return 1;
}

/* Whether a pair for key starts at line[at]; sets the value's span if so. */
static int pair_at(const char *line, size_t n, size_t at, const char *key, size_t klen,
                   const char **val, size_t *val_len)
{
    size_t i = at + klen, j;

    if (n - at < klen || memcmp(line + at, key, klen) != 0)
        return 0;
    j = skip_blanks(line, n, i);
    if (j < n && (line[j] == ':' || line[j] == '='))
        j = skip_blanks(line, n, j + 1);
    else if (j == i || j == n)
        return 0;
    *val = line + j;
    *val_len = word_end(line, n, j) - j;
    return 1;
}

/* Finds a pair for key on the line: at its start, or after a "NAME: NUMBER"
 * or "NAME=NUMBER" pair. */
static int find_pair(const char *line, size_t n, const char *key, size_t klen, const char **val,
                     size_t *val_len)
{
    size_t at = skip_blanks(line, n, 0), end;

    if (pair_at(line, n, at, key, klen, val, val_len))
        return 1;
    for (size_t i = at; i < n; i++) {
        if (line[i] != ':' && line[i] != '=')
            continue;
        if (!is_number_at(line, n, skip_blanks(line, n, i + 1), &end) || end == n)
            continue;
        if (pair_at(line, n, skip_blanks(line, n, end), key, klen, val, val_len))
            return 1;
    }
    return 0;
}

/* Counts the words of a line that are numbers and those that are not. */
static void count_words(const char *line, size_t n, size_t *numbers, size_t *others)
{
    size_t i = skip_blanks(line, n, 0), end;

    *numbers = *others = 0;
    while (i < n) {
        if (is_number_at(line, n, i, &end)) {
            (*numbers)++;
        } else {
            (*others)++;
            end = word_end(line, n, i);
        }
        i = skip_blanks(line, n, end);
    }
}

/* Returns the index of the first word equal to key, or -1. */
static long word_index(const char *line, size_t n, const char *key, size_t klen, size_t *count)
{
    size_t i = skip_blanks(line, n, 0), end;
    long found = -1;

    for (*count = 0; i < n; (*count)++, i = skip_blanks(line, n, end)) {
        end = word_end(line, n, i);
        if (found < 0 && end - i == klen && memcmp(line + i, key, klen) == 0)
            found = (long)*count;
    }
    return found;
}

/* Sets the span of word k of the line. */
static void nth_word(const char *line, size_t n, size_t k, const char **w, size_t *w_len)
{
    size_t i = skip_blanks(line, n, 0);

    while (k-- > 0)
        i = skip_blanks(line, n, word_end(line, n, i));
    *w = line + i;
    *w_len = word_end(line, n, i) - i;
}

/* Looks key up in a table: names on the header line, numbers below them,
 * paired from the right. */
static int table_value(const char *head, size_t head_len, const char *line, size_t n,
                       const char *key, size_t klen, const char **val, size_t *val_len)
{
    size_t n_names, n_numbers, others;
    long k = word_index(head, head_len, key, klen, &n_names);

    count_words(line, n, &n_numbers, &others);
    if (k < 0 || others > 0 || n_numbers == 0 || n_numbers > n_names ||
        (size_t)k < n_names - n_numbers)
        return 0;
    nth_word(line, n, (size_t)k - (n_names - n_numbers), val, val_len);
    return 1;
}

static int is_header(const char *line, size_t n)
{
    size_t numbers, others;

    count_words(line, n, &numbers, &others);
    return numbers == 0 && others > 0;
}

/* Reads the value found for key on line lineno. */
static int read_value(const char *key, const char *val, size_t val_len, size_t lineno, double *out,
                      char *why, size_t why_len)
{
    char quote[PROBE_QUOTE_BUF];
    int rc = probes__num_parse(val, val_len, 0, out);

    if (rc == 0)
        return 0;
    msg_set(why, why_len, "%s: \"%s\" is %s (line %zu)", key, probes__quote(val, val_len, quote),
            rc == -ERANGE ? "out of range" : "not a number", lineno);
    return rc == -ERANGE ? -ERANGE : -EDOM;
}

int probe_parse_text_key(const char *text, size_t len, const char *key, double *out, char *why,
                         size_t why_len)
{
    const char *line, *val, *head = NULL;
    size_t n, klen = strlen(key), head_len = 0, val_len;
    struct probe_lines it;
    int rc = probe_text_key_check(key, why, why_len);

    if (rc == 0)
        rc = probes__doc_check(len, why, why_len);
    if (rc != 0)
        return rc;
    probes__lines_init(&it, text, len);
    while (probes__lines_next(&it, &line, &n)) {
        if (find_pair(line, n, key, klen, &val, &val_len) ||
            (head && table_value(head, head_len, line, n, key, klen, &val, &val_len)))
            return read_value(key, val, val_len, it.lineno, out, why, why_len);
        head = is_header(line, n) ? line : NULL;
        head_len = n;
    }
    msg_set(why, why_len, "%s: no such key", key);
    return -ENOENT;
}
