#include "cli/opts.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "core/exitcode.h"
#include "core/msg.h"
#include "core/redact.h"
#include "core/suggest.h"

#define SHOWN_MAX MSG_SHOWN_MAX /* bytes of an argument quoted in a message */
#define HELP_COLUMN 26          /* where the help of an option starts */

static const struct opts_option help_option = {.name = "--help",
                                               .short_name = 'h',
                                               .arg = OPTS_FLAG,
                                               .id = OPTS_HELP,
                                               .is_repeatable = 1,
                                               .help = "print this help and exit"};

void opts_start(struct opts_parser *p, const struct opts_table *t, int argc, char **argv)
{
    memset(p, 0, sizeof(*p));
    p->t = t;
    p->argc = argc;
    p->argv = argv;
    p->i = 1;
}

/* Calls fn on every option of t, -h last; stops when fn returns non-zero. */
static const struct opts_option *find_if(const struct opts_table *t,
                                         int (*fn)(const struct opts_option *, const void *),
                                         const void *arg)
{
    for (size_t g = 0; g < OPTS_GROUPS_MAX && t->groups[g]; g++) {
        for (const struct opts_option *o = t->groups[g]; o->name; o++) {
            if (fn(o, arg))
                return o;
        }
    }
    return fn(&help_option, arg) ? &help_option : NULL;
}

static int has_id(const struct opts_option *o, const void *arg)
{
    return o->id == *(const int *)arg;
}

/* arg is "NAME" or "NAME=..." with the leading "--" of both. */
static int has_long_name(const struct opts_option *o, const void *arg)
{
    const char *a = arg;
    size_t n = strlen(o->name);

    return strncmp(a, o->name, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

static int has_short_name(const struct opts_option *o, const void *arg)
{
    return o->short_name && o->short_name == *(const char *)arg;
}

const struct opts_option *opts_find(const struct opts_table *t, int id)
{
    return find_if(t, has_id, &id);
}

/* Writes what is wrong into err: a, then arg quoted and escaped (when not
 * NULL), then b. Returns -EINVAL. */
static int fail(char *err, size_t err_len, const char *a, const char *arg, const char *b)
{
    char shown[SHOWN_MAX];

    if (arg)
        snprintf(err, err_len, "%s\"%s\"%s", a, msg_show(arg, shown, sizeof(shown)), b);
    else
        snprintf(err, err_len, "%s%s", a, b);
    return -EINVAL;
}

/* Whether arg names an option of t ("--url", "--url=V", "-u", "-uV"). */
static int is_option_of(const struct opts_table *t, const char *arg)
{
    if (arg[1] == '-')
        return find_if(t, has_long_name, arg) != NULL;
    return find_if(t, has_short_name, arg + 1) != NULL;
}

/* Given twice, or contradicting one given before: the error, else 0. */
static int check_seen(struct opts_parser *p, const struct opts_option *o, char *err, size_t err_len)
{
    uint64_t bit;

    if (o->id <= 0)
        return 0;
    bit = 1ull << o->id;
    if ((p->seen & bit) && !o->is_repeatable)
        return fail(err, err_len, o->name, NULL, " given twice");
    for (size_t g = 0; g < OPTS_GROUPS_MAX && p->t->groups[g]; g++) {
        for (const struct opts_option *x = p->t->groups[g]; x->name; x++) {
            int is_against = x->excludes == o->id || o->excludes == x->id;

            if (is_against && x->id != o->id && (p->seen & (1ull << x->id))) {
                snprintf(err, err_len, "%s contradicts %s", o->name, x->name);
                return -EINVAL;
            }
        }
    }
    p->seen |= bit;
    return 0;
}

/* The value of o, given as "--name" + rest ("=V" or "") or "-s" + rest
 * ("V" or ""); may take the next argument. */
static int take_value(struct opts_parser *p, const struct opts_option *o, const char *arg,
                      const char *rest, int is_long, struct opts_item *it, char *err,
                      size_t err_len)
{
    const char *next = p->i < p->argc ? p->argv[p->i] : NULL;

    it->value = NULL;
    if (o->arg == OPTS_FLAG) {
        if (*rest) {
            char shown[SHOWN_MAX];

            snprintf(err, err_len, "%s takes no value, got \"%s\"", o->name,
                     msg_show(arg, shown, sizeof(shown)));
            return -EINVAL;
        }
        return 0;
    }
    if (is_long && *rest == '=') {
        it->value = rest + 1;
        return 0;
    }
    if (!is_long && *rest) {
        it->value = rest;
        return 0;
    }
    if (o->arg == OPTS_OPTIONAL) {
        /* A following argument is the value unless it reads as an option
         * or a URL: "--ramp http://..." leaves the URL to the command. */
        if (next && next[0] != '-' && !strstr(next, "://")) {
            it->value = next;
            p->i++;
        }
        return 0;
    }
    if (!next) {
        char shown[SHOWN_MAX];

        snprintf(err, err_len, "%s needs a value (%s)", msg_show(arg, shown, sizeof(shown)),
                 o->value_name ? o->value_name : "VALUE");
        return -EINVAL;
    }
    /* "-c -n 200": the value was forgotten, and -n is not it. */
    if (next[0] == '-' && next[1] && is_option_of(p->t, next)) {
        char shown[SHOWN_MAX], shown_next[SHOWN_MAX];

        snprintf(err, err_len, "%s needs a value (%s), got the option \"%s\"",
                 msg_show(arg, shown, sizeof(shown)), o->value_name ? o->value_name : "VALUE",
                 msg_show(next, shown_next, sizeof(shown_next)));
        return -EINVAL;
    }
    it->value = next;
    p->i++;
    return 0;
}

static int offer_long_name(const struct opts_option *o, const void *arg)
{
    suggest_offer((struct suggest *)arg, o->name);
    return 0;
}

/* "unknown option \"--urll\" (did you mean --url?)": the long option of t
 * closest to arg, the part before any '=' compared. */
static int fail_unknown(const struct opts_table *t, const char *arg, char *err, size_t err_len)
{
    struct suggest s;
    char b[64];

    suggest_start(&s, arg, strcspn(arg, "="));
    if (arg[1] == '-')
        find_if(t, offer_long_name, &s);
    if (!s.best)
        return fail(err, err_len, "unknown option ", arg, "");
    snprintf(b, sizeof(b), " (did you mean %s?)", s.best);
    return fail(err, err_len, "unknown option ", arg, b);
}

int opts_next(struct opts_parser *p, struct opts_item *it, char *err, size_t err_len)
{
    const struct opts_option *o;
    const char *arg;
    int is_long, rc;

    memset(it, 0, sizeof(*it));
    if (p->i < p->argc && !p->is_operands && strcmp(p->argv[p->i], "--") == 0) {
        p->is_operands = 1;
        p->i++;
    }
    if (p->i >= p->argc)
        return 0;
    arg = p->argv[p->i++];
    /* "-" alone is an operand (a name some commands may give a meaning). */
    if (p->is_operands || arg[0] != '-' || arg[1] == '\0') {
        it->id = OPTS_OPERAND;
        it->value = arg;
        return 1;
    }
    is_long = arg[1] == '-';
    o = is_long ? find_if(p->t, has_long_name, arg) : find_if(p->t, has_short_name, arg + 1);
    if (!o)
        return fail_unknown(p->t, arg, err, err_len);
    rc =
        take_value(p, o, arg, is_long ? arg + strlen(o->name) : arg + 2, is_long, it, err, err_len);
    if (rc == 0)
        rc = check_seen(p, o, err, err_len);
    if (rc != 0)
        return rc;
    it->id = o->id;
    it->opt = o == &help_option ? NULL : o;
    return 1;
}

void opts_usage(const struct opts_table *t, char *buf, size_t cap)
{
    snprintf(buf, cap, "brink%s%s%s%s", t->name ? " " : "", t->name ? t->name : "",
             t->synopsis && *t->synopsis ? " " : "", t->synopsis ? t->synopsis : "");
}

/* "  -u, --url URL" or "      --ramp[=N,...]" */
static int print_names(const struct opts_option *o, FILE *out)
{
    int n;

    if (o->short_name)
        n = fprintf(out, "  -%c, %s", o->short_name, o->name);
    else
        n = fprintf(out, "      %s", o->name);
    if (o->arg == OPTS_VALUE)
        n += fprintf(out, " %s", o->value_name ? o->value_name : "VALUE");
    else if (o->arg == OPTS_OPTIONAL)
        n += fprintf(out, "[=%s]", o->value_name ? o->value_name : "VALUE");
    return n;
}

static void print_option(const struct opts_option *o, FILE *out)
{
    const char *h = o->help ? o->help : "";
    int n = print_names(o, out);

    if (n >= HELP_COLUMN - 1) {
        fputc('\n', out);
        n = 0;
    }
    for (;;) {
        const char *nl = strchr(h, '\n');
        int len = nl ? (int)(nl - h) : (int)strlen(h);

        fprintf(out, "%*s%.*s\n", HELP_COLUMN - n, "", len, h);
        if (!nl)
            break;
        h = nl + 1;
        n = 0;
    }
}

void opts_print_options(const struct opts_table *t, FILE *out)
{
    fprintf(out, "options:\n");
    for (size_t g = 0; g < OPTS_GROUPS_MAX && t->groups[g]; g++) {
        for (const struct opts_option *o = t->groups[g]; o->name; o++)
            print_option(o, out);
    }
    print_option(&help_option, out);
}

void opts_print_help(const struct opts_table *t, FILE *out)
{
    char usage[256];

    opts_usage(t, usage, sizeof(usage));
    fprintf(out, "usage: %s\n\n%s\n%s\n", usage, t->summary, t->text ? t->text : "");
    opts_print_options(t, out);
    if (t->after)
        fprintf(out, "\n%s", t->after);
    if (t->status)
        fprintf(out, "\n%s", t->status);
}

int opts_fail(const struct opts_table *t, FILE *err, const char *fmt, ...)
{
    char what[OPTS_ERR_MAX], usage[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    opts_usage(t, usage, sizeof(usage));
    msg_print(err, "brink: %s%s%s (usage: %s)", t->name ? t->name : "", t->name ? ": " : "", what,
              usage);
    return BRINK_EXIT_USAGE;
}

/* Whether s starts with a header line's name and its colon ("X-Key: v"),
 * not a URL's scheme or a host and port. */
static int is_header_line(const char *s)
{
    size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_");

    return n > 0 && s[n] == ':' && s[n + 1] != '/';
}

/* arg with its secrets redacted into out: the value of an option
 * (--name=V, -sV) or the argument itself, when it is a header line, by
 * the header rule; then every URL and key=value pair in it. */
static void redact_arg(const char *arg, char *out, size_t cap)
{
    char line[2048];
    const char *value = arg;
    size_t n;

    if (arg[0] == '-' && arg[1] == '-' && strchr(arg, '='))
        value = strchr(arg, '=') + 1;
    else if (arg[0] == '-' && arg[1] && arg[1] != '-')
        value = arg + 2;
    if (!is_header_line(value))
        value = is_header_line(arg) ? arg : NULL;
    if (value) {
        n = (size_t)(value - arg);
        snprintf(line, sizeof(line), "%.*s", (int)n, arg);
        if (n < sizeof(line))
            redact_header_line(value, line + n, sizeof(line) - n);
        arg = line;
    }
    redact_text(arg, out, cap);
}

void opts_command_line(int argc, char **argv, char *out, size_t cap)
{
    static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                                "_@%+=:,./-";
    size_t used = 0;

    if (cap == 0)
        return;
    used = (size_t)snprintf(out, cap, "brink");
    for (int i = 0; i < argc && used + 1 < cap; i++) {
        char shown[2048];

        redact_arg(argv[i], shown, sizeof(shown));
        out[used++] = ' ';
        if (shown[0] && strspn(shown, plain) == strlen(shown)) {
            used += (size_t)snprintf(out + used, cap - used, "%s", shown);
            continue;
        }
        /* '...' keeps everything but ', written '\'' (close, escaped, open). */
        out[used++] = '\'';
        for (const char *p = shown; *p && used + 5 < cap; p++) {
            if (*p == '\'') {
                memcpy(out + used, "'\\''", 4);
                used += 4;
            } else {
                out[used++] = *p;
            }
        }
        if (used + 1 < cap)
            out[used++] = '\'';
        out[used < cap ? used : cap - 1] = '\0';
    }
    out[used < cap ? used : cap - 1] = '\0';
}

int opts_choice(const char *const *choices, const char *v)
{
    for (int i = 0; choices[i]; i++) {
        if (strcmp(choices[i], v) == 0)
            return i;
    }
    return -1;
}
