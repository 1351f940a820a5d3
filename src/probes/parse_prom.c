/*
 * Prometheus probes: a PromQL-like series selector, and the sum of the
 * sample lines of a text exposition page that it matches. Each line is
 * parsed in place into spans; a label value is unescaped (into scratch space
 * that lives for one evaluation) only when a matcher reads it.
 */
#include "probes/parse.h"

#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "core/msg.h"
#include "core/xalloc.h"
#include "probes/internal.h"

/* The most labels a sample line may carry; a line with more is malformed. */
#define LINE_LABELS_MAX 64

enum prom_op {
    PROM_EQ,  /* = */
    PROM_NE,  /* != */
    PROM_RE,  /* =~ */
    PROM_NRE, /* !~ */
};

struct matcher {
    char *label; /* owned; "__name__" is the metric name */
    char *value; /* owned, unescaped */
    size_t value_len;
    enum prom_op op;
    regex_t re; /* for PROM_RE and PROM_NRE: "^(value)$" */
};

struct probe_prom {
    char *source; /* owned: the selector as written, for reasons */
    char *name;   /* owned: the metric name */
    size_t name_len;
    struct matcher m[PROBE_PROM_MATCHERS_MAX];
    size_t n_matchers;
};

/* One label of a sample line, as spans into the line. */
struct label_span {
    const char *name;
    size_t name_len;
    const char *value; /* still escaped */
    size_t value_len;
};

struct sample {
    const char *name;
    size_t name_len;
    struct label_span labels[LINE_LABELS_MAX];
    size_t n_labels;
    double value;
};

static int is_name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_name_char(char c)
{
    return is_name_start(c) || (c >= '0' && c <= '9');
}

/* Length of the name at s (metric names may also hold ':'). */
static size_t name_len(const char *s, size_t n, int is_metric)
{
    size_t i = 0;

    if (n == 0 || !(is_name_start(s[0]) || (is_metric && s[0] == ':')))
        return 0;
    while (i < n && (is_name_char(s[i]) || (is_metric && s[i] == ':')))
        i++;
    return i;
}

static size_t skip_blanks(const char *s, size_t n, size_t i)
{
    while (i < n && probes__is_blank(s[i]))
        i++;
    return i;
}

/* --- Selector --- */

/* The state of compiling one selector. */
struct compiler {
    const char *s;
    size_t len, i;
    struct probe_prom *p;
    char *why;
    size_t why_len;
};

static int fail(struct compiler *c, const char *what)
{
    msg_set(c->why, c->why_len, "bad selector \"%s\": %s at column %zu", c->s, what, c->i + 1);
    return -EINVAL;
}

/* Reads a double-quoted value with \\, \", \n and \t into a new string. */
static int read_quoted(struct compiler *c, char **out, size_t *out_len)
{
    char *v = xmalloc(c->len - c->i);
    size_t n = 0;

    c->i++; /* the opening quote */
    while (c->i < c->len && c->s[c->i] != '"') {
        char ch = c->s[c->i++];

        if (ch == '\\') {
            ch = c->i < c->len ? c->s[c->i++] : '\0';
            if (ch == 'n' || ch == 't')
                ch = ch == 'n' ? '\n' : '\t';
            else if (ch != '\\' && ch != '"') {
                free(v);
                c->i--;
                return fail(c, "unknown escape (use \\\\, \\\", \\n or \\t)");
            }
        }
        v[n++] = ch;
    }
    if (c->i >= c->len) {
        free(v);
        return fail(c, "unterminated value");
    }
    c->i++;
    v[n] = '\0';
    *out = v;
    *out_len = n;
    return 0;
}

static int read_op(struct compiler *c, enum prom_op *op)
{
    static const struct {
        const char *text;
        enum prom_op op;
    } ops[] = {{"!=", PROM_NE}, {"!~", PROM_NRE}, {"=~", PROM_RE}, {"=", PROM_EQ}};

    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        size_t n = strlen(ops[k].text);

        if (c->len - c->i >= n && memcmp(c->s + c->i, ops[k].text, n) == 0) {
            c->i += n;
            *op = ops[k].op;
            return 0;
        }
    }
    return fail(c, "expected =, !=, =~ or !~");
}

/* Compiles the regex of matcher m, anchored at both ends as PromQL does. */
static int compile_regex(struct compiler *c, struct matcher *m)
{
    const char *unsafe = probes__regex_unsafe(m->value);
    char *anchored, err[128];
    int rc;

    if (unsafe)
        return fail(c, unsafe);
    anchored = xmalloc(m->value_len + 5);
    memcpy(anchored, "^(", 2);
    memcpy(anchored + 2, m->value, m->value_len);
    memcpy(anchored + 2 + m->value_len, ")$", 3);
    rc = regcomp(&m->re, anchored, REG_EXTENDED | REG_NOSUB);
    free(anchored);
    if (rc != 0) {
        regerror(rc, &m->re, err, sizeof(err));
        return fail(c, err);
    }
    return 0;
}

static void free_matcher(struct matcher *m)
{
    if (m->op == PROM_RE || m->op == PROM_NRE)
        regfree(&m->re);
    free(m->label);
    free(m->value);
}

/* Reads one matcher, LABEL OP "VALUE", into p->m[p->n_matchers]. */
static int read_matcher(struct compiler *c)
{
    struct matcher *m = &c->p->m[c->p->n_matchers];
    size_t n = name_len(c->s + c->i, c->len - c->i, 0);
    enum prom_op op;
    char *value;
    size_t value_len, value_at, end;

    if (n == 0)
        return fail(c, "expected a label name");
    if (c->p->n_matchers == PROBE_PROM_MATCHERS_MAX)
        return fail(c, "too many label matchers");
    m->label = xstrndup(c->s + c->i, n);
    c->i = skip_blanks(c->s, c->len, c->i + n);
    if (read_op(c, &op) != 0)
        goto out_free_label;
    c->i = skip_blanks(c->s, c->len, c->i);
    if (c->i >= c->len || c->s[c->i] != '"') {
        fail(c, "expected a quoted value");
        goto out_free_label;
    }
    value_at = c->i;
    if (read_quoted(c, &value, &value_len) != 0)
        goto out_free_label;
    m->value = value;
    m->value_len = value_len;
    m->op = op;
    /* A bad regex is reported at its opening quote. */
    end = c->i;
    c->i = value_at;
    if ((op == PROM_RE || op == PROM_NRE) && compile_regex(c, m) != 0) {
        free(m->value);
        goto out_free_label;
    }
    c->i = end;
    c->p->n_matchers++;
    return 0;

out_free_label:
    free(m->label);
    return -EINVAL;
}

/* Reads "{matcher, ...}" from c->i, which is at the '{'. */
static int read_matchers(struct compiler *c)
{
    c->i++;
    for (;;) {
        c->i = skip_blanks(c->s, c->len, c->i);
        if (c->i < c->len && c->s[c->i] == '}')
            break;
        if (read_matcher(c) != 0)
            return -EINVAL;
        c->i = skip_blanks(c->s, c->len, c->i);
        if (c->i < c->len && c->s[c->i] == ',')
            c->i++;
        else if (c->i >= c->len || c->s[c->i] != '}')
            return fail(c, "expected \",\" or \"}\"");
    }
    c->i = skip_blanks(c->s, c->len, c->i + 1);
    return c->i == c->len ? 0 : fail(c, "unexpected text after \"}\"");
}

int probe_prom_compile(const char *selector, struct probe_prom **out, char *why, size_t why_len)
{
    struct compiler c = {.s = selector, .len = strlen(selector), .why = why, .why_len = why_len};
    size_t n;
    int rc = 0;

    if (c.len > PROBE_PATTERN_MAX) {
        msg_set(why, why_len, "bad selector: it is %zu bytes, over the limit of %d", c.len,
                PROBE_PATTERN_MAX);
        return -EINVAL;
    }
    c.p = xcalloc(1, sizeof(*c.p));
    c.i = skip_blanks(selector, c.len, 0);
    n = name_len(selector + c.i, c.len - c.i, 1);
    if (n == 0) {
        rc = fail(&c, "expected a metric name");
        goto out;
    }
    c.p->source = xstrdup(selector);
    c.p->name = xstrndup(selector + c.i, n);
    c.p->name_len = n;
    c.i = skip_blanks(selector, c.len, c.i + n);
    if (c.i < c.len && selector[c.i] == '{')
        rc = read_matchers(&c);
    else if (c.i < c.len)
        rc = fail(&c, "expected \"{\" or the end");
out:
    if (rc != 0) {
        probe_prom_free(c.p);
        return rc;
    }
    *out = c.p;
    return 0;
}

void probe_prom_free(struct probe_prom *p)
{
    if (!p)
        return;
    for (size_t k = 0; k < p->n_matchers; k++)
        free_matcher(&p->m[k]);
    free(p->name);
    free(p->source);
    free(p);
}

/* --- Page --- */

/* Reads LABEL="VALUE" pairs from line[*i], which is just after the '{'. */
static int parse_labels(const char *line, size_t n, size_t *i, struct sample *s)
{
    for (;;) {
        struct label_span *l = &s->labels[s->n_labels];
        size_t k = skip_blanks(line, n, *i);

        if (k < n && line[k] == '}') {
            *i = k + 1;
            return 0;
        }
        if (s->n_labels == LINE_LABELS_MAX || (l->name_len = name_len(line + k, n - k, 0)) == 0)
            return -1;
        l->name = line + k;
        k = skip_blanks(line, n, k + l->name_len);
        if (k >= n || line[k] != '=')
            return -1;
        k = skip_blanks(line, n, k + 1);
        if (k >= n || line[k] != '"')
            return -1;
        l->value = line + ++k;
        while (k < n && line[k] != '"')
            k += line[k] == '\\' ? 2 : 1;
        if (k >= n)
            return -1;
        l->value_len = (size_t)(line + k - l->value);
        s->n_labels++;
        k = skip_blanks(line, n, k + 1);
        if (k < n && line[k] == ',')
            k++;
        else if (k >= n || line[k] != '}')
            return -1;
        *i = k;
    }
}

/* Parses a sample line; returns 0, 1 for a blank or comment line, -1 for a
 * malformed one. */
static int parse_sample(const char *line, size_t n, struct sample *s)
{
    size_t i = skip_blanks(line, n, 0), end;
    double ts;

    if (i == n || line[i] == '#')
        return 1;
    s->name = line + i;
    s->name_len = name_len(line + i, n - i, 1);
    s->n_labels = 0;
    if (s->name_len == 0)
        return -1;
    i = skip_blanks(line, n, i + s->name_len);
    if (i < n && line[i] == '{') {
        i++;
        if (parse_labels(line, n, &i, s) != 0)
            return -1;
        i = skip_blanks(line, n, i);
    } else if (i == (size_t)(s->name + s->name_len - line)) {
        return -1; /* no blank between the name and the value */
    }
    for (end = i; end < n && !probes__is_blank(line[end]);)
        end++;
    if (probes__num_parse(line + i, end - i, PROBE_NUM_SPECIAL, &s->value) != 0)
        return -1;
    i = skip_blanks(line, n, end);
    if (i < n && line[i] != '#') {
        for (end = i; end < n && !probes__is_blank(line[end]);)
            end++;
        if (probes__num_parse(line + i, end - i, 0, &ts) != 0)
            return -1;
        i = skip_blanks(line, n, end);
    }
    /* What remains may only be an OpenMetrics exemplar, "# {...} value". */
    return i == n || line[i] == '#' ? 0 : -1;
}

/* Scratch space for unescaped label values, grown as needed. */
struct scratch {
    char *buf;
    size_t cap;
};

/* Returns the value of l unescaped (\\, \" and \n; other pairs kept) and
 * NUL-terminated, in scratch when it holds a backslash. */
static const char *unescape(const struct label_span *l, struct scratch *sc, size_t *len)
{
    size_t n = 0;

    if (sc->cap < l->value_len + 1) {
        sc->cap = l->value_len + 1;
        sc->buf = xrealloc(sc->buf, sc->cap);
    }
    for (size_t i = 0; i < l->value_len; i++) {
        char c = l->value[i];

        if (c == '\\' && i + 1 < l->value_len) {
            char next = l->value[i + 1];

            if (next == 'n' || next == '\\' || next == '"') {
                c = next == 'n' ? '\n' : next;
                i++;
            }
        }
        sc->buf[n++] = c;
    }
    sc->buf[n] = '\0';
    *len = n;
    return sc->buf;
}

/* Finds the value of label in s; a missing label has the value "". */
static const char *label_value(const struct sample *s, const struct matcher *m, struct scratch *sc,
                               size_t *len)
{
    struct label_span name = {.value = s->name, .value_len = s->name_len};

    if (strcmp(m->label, "__name__") == 0)
        return unescape(&name, sc, len);
    for (size_t k = 0; k < s->n_labels; k++) {
        const struct label_span *l = &s->labels[k];

        if (l->name_len == strlen(m->label) && memcmp(l->name, m->label, l->name_len) == 0)
            return unescape(l, sc, len);
    }
    *len = 0;
    return "";
}

static int matches(const struct probe_prom *p, const struct sample *s, struct scratch *sc)
{
    if (s->name_len != p->name_len || memcmp(s->name, p->name, p->name_len) != 0)
        return 0;
    for (size_t k = 0; k < p->n_matchers; k++) {
        const struct matcher *m = &p->m[k];
        size_t len;
        const char *v = label_value(s, m, sc, &len);
        int is_equal;

        if (m->op == PROM_EQ || m->op == PROM_NE)
            is_equal = len == m->value_len && memcmp(v, m->value, len) == 0;
        else
            is_equal = regexec(&m->re, v, 0, NULL, 0) == 0;
        if (is_equal != (m->op == PROM_EQ || m->op == PROM_RE))
            return 0;
    }
    return 1;
}

int probe_prom_eval(const struct probe_prom *p, const char *text, size_t len, double *out,
                    size_t *n_series, char *why, size_t why_len)
{
    struct scratch sc = {NULL, 0};
    struct probe_lines it;
    struct sample s;
    const char *line;
    size_t n, n_matched = 0, n_bad = 0, first_bad = 0;
    double sum = 0.0;
    char quote[PROBE_QUOTE_BUF];
    int rc = probes__doc_check(len, why, why_len);

    if (rc != 0)
        return rc;
    probes__lines_init(&it, text, len);
    while (probes__lines_next(&it, &line, &n)) {
        rc = parse_sample(line, n, &s);
        if (rc < 0 && n_bad++ == 0)
            first_bad = it.lineno;
        if (rc == 0 && matches(p, &s, &sc)) {
            sum += s.value;
            n_matched++;
        }
    }
    free(sc.buf);
    if (n_series)
        *n_series = n_matched;
    if (n_matched > 0) {
        *out = sum;
        return 0;
    }
    probes__quote(p->source, strlen(p->source), quote);
    if (n_bad > 0)
        msg_set(why, why_len, "no series matches %s (%zu malformed line%s, the first is line %zu)",
                quote, n_bad, n_bad == 1 ? "" : "s", first_bad);
    else
        msg_set(why, why_len, "no series matches %s", quote);
    return -ENOENT;
}
