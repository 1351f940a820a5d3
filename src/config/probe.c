/*
 * [probe NAME] sections: the value types of their keys (type, url, pointer,
 * key, regex, metric, command, kind, alert) and the checks that need the
 * whole section, such as which keys a json probe needs and a command probe
 * refuses. The probes module compiles pointers, regexes and selectors at
 * start; here only what can be checked without it is, so that a file with
 * a typo fails at once and says where.
 */
#include "config/internal.h"

#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "core/ascii.h"

#define TYPE_BIT(t) (1u << (t))
#define JSON TYPE_BIT(CONFIG_PROBE_TYPE_JSON)
#define TEXT TYPE_BIT(CONFIG_PROBE_TYPE_TEXT)
#define PROMETHEUS TYPE_BIT(CONFIG_PROBE_TYPE_PROMETHEUS)
#define COMMAND TYPE_BIT(CONFIG_PROBE_TYPE_COMMAND)
#define HTTP (JSON | TEXT | PROMETHEUS)

/* The N of alert = > N, in bytes, and the largest exponent it may have:
 * past it every double under- or overflows. */
#define ALERT_NUMBER_MAX 40
#define EXP10_MAX 100000
#define DOUBLE_TEXT_MAX 48

static void *field_of(const struct config_key *k, void *base)
{
    return (char *)base + k->offset;
}

static const void *cfield_of(const struct config_key *k, const void *base)
{
    return (const char *)base + k->offset;
}

/* A word key that also notes the type parsed, for the section's checks. */
static int parse_type(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                      const struct config_value *v, char *why, size_t why_len)
{
    if (config__parse_enum(ctx, k, base, v, why, why_len) < 0)
        return -EINVAL;
    if (ctx)
        ctx->is_probe_typed[(struct config_probe *)base - ctx->c->probes] = 1;
    return 0;
}

/* Like a request url, but fetched as written: placeholders would reach the
 * server as braces. */
static int parse_probe_url(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                           const struct config_value *v, char *why, size_t why_len)
{
    char shown[CONFIG_SHOW_MAX];

    (void)ctx;
    if (config__check_url(v->value, 1, why, why_len) < 0)
        return -EINVAL;
    if (strpbrk(v->value, "{}")) {
        snprintf(
            why, why_len,
            "expected a URL without placeholders such as {seq} (a probe fetches its url as written), got \"%s\"",
            config__show(v->value, shown));
        return -EINVAL;
    }
    config__set_str(field_of(k, base), v);
    return 0;
}

/* RFC 6901: empty, or "/" tokens in which ~ is always ~0 or ~1. The probes
 * module checks the rest when it starts. */
static int check_pointer(const char *s, char *why, size_t why_len)
{
    char shown[CONFIG_SHOW_MAX];

    if (s[0] != '\0' && s[0] != '/') {
        snprintf(
            why, why_len,
            "expected a JSON Pointer such as /node_gets or /disk/0/used (starting with /, or empty for the whole page), got \"%s\"",
            config__show(s, shown));
        return -EINVAL;
    }
    for (const char *p = strchr(s, '~'); p; p = strchr(p + 1, '~')) {
        if (p[1] != '0' && p[1] != '1') {
            snprintf(why, why_len,
                     "bad ~ in the JSON Pointer (expected ~0 for ~ or ~1 for /, got \"%s\")",
                     config__show(s, shown));
            return -EINVAL;
        }
    }
    return 0;
}

static int parse_pointer(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                         const struct config_value *v, char *why, size_t why_len)
{
    uint32_t *n = (uint32_t *)((char *)base + k->count_offset);
    struct config_str *pointers = field_of(k, base);

    (void)ctx;
    if (check_pointer(v->value, why, why_len) < 0)
        return -EINVAL;
    if (*n == CONFIG_MAX_POINTERS) {
        snprintf(why, why_len, "too many pointer lines (expected at most %d in one probe)",
                 CONFIG_MAX_POINTERS);
        return -EINVAL;
    }
    config__set_str(&pointers[(*n)++], v);
    return 0;
}

static void write_pointers(const struct config_key *k, const void *base, FILE *out)
{
    uint32_t n = *(const uint32_t *)((const char *)base + k->count_offset);
    const struct config_str *pointers = cfield_of(k, base);

    for (uint32_t i = 0; i < n; i++) {
        /* "pointer =" reads back as the empty pointer, with no blank at
         * the end of the line. */
        if (pointers[i].raw[0])
            fprintf(out, "%s = %s\n", k->name, pointers[i].raw);
        else
            fprintf(out, "%s =\n", k->name);
    }
}

/* key, regex, metric and command: text the probes module reads at start. */
static int parse_text(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                      const struct config_value *v, char *why, size_t why_len)
{
    (void)ctx;
    if (v->value[0] == '\0') {
        snprintf(why, why_len, "expected a %s, got \"\"", k->name);
        return -EINVAL;
    }
    config__set_str(field_of(k, base), v);
    return 0;
}

/* Skips the digits at *p; returns how many there were. */
static size_t skip_digits(const char **p)
{
    const char *start = *p;

    while (ascii_is_digit(**p))
        (*p)++;
    return (size_t)(*p - start);
}

/*
 * Reads a decimal number such as -2, 0.5 or 1e6 in any locale: the syntax is
 * checked here and strtod only ever sees digits, a sign and an exponent,
 * which every locale reads alike ("12.5" is handed over as "125e-1").
 */
int config__parse_number(const char *s, double *out)
{
    char buf[ALERT_NUMBER_MAX + 16];
    const char *p = s + (*s == '-' || *s == '+');
    size_t n = 0, int_digits, frac_digits = 0;
    long exp10 = 0;
    char *end;

    if (strlen(s) > ALERT_NUMBER_MAX)
        return -ERANGE;
    if (*s == '-')
        buf[n++] = '-';
    int_digits = skip_digits(&p);
    memcpy(buf + n, p - int_digits, int_digits);
    n += int_digits;
    if (*p == '.') {
        p++;
        frac_digits = skip_digits(&p);
        memcpy(buf + n, p - frac_digits, frac_digits);
        n += frac_digits;
    }
    if (int_digits + frac_digits == 0)
        return -EINVAL;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (!ascii_is_digit(p[*p == '-' || *p == '+']))
            return -EINVAL;
        errno = 0;
        exp10 = strtol(p, &end, 10);
        if (errno == ERANGE || exp10 > EXP10_MAX || exp10 < -EXP10_MAX)
            return -ERANGE;
        p = end;
    }
    if (*p != '\0')
        return -EINVAL;
    snprintf(buf + n, sizeof(buf) - n, "e%ld", exp10 - (long)frac_digits);
    errno = 0;
    *out = strtod(buf, NULL);
    return errno == ERANGE ? -ERANGE : 0;
}

static int parse_alert(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                       const struct config_value *v, char *why, size_t why_len)
{
    struct config_probe *p = base;
    const char *s = v->value;
    char shown[CONFIG_SHOW_MAX];
    double n;

    (void)ctx;
    (void)k;
    if (strcmp(s, "none") == 0 || strcmp(s, "changes") == 0) {
        p->alert_op = s[0] == 'n' ? CONFIG_ALERT_NONE : CONFIG_ALERT_CHANGES;
        p->alert_value = 0;
        return 0;
    }
    if ((s[0] != '>' && s[0] != '<') ||
        config__parse_number(s + 1 + strspn(s + 1, " \t"), &n) < 0) {
        snprintf(
            why, why_len,
            "expected > N, < N, changes or none, with N a number such as 100 or -0.5, got \"%s\"",
            config__show(s, shown));
        return -EINVAL;
    }
    p->alert_op = s[0] == '>' ? CONFIG_ALERT_ABOVE : CONFIG_ALERT_BELOW;
    p->alert_value = n;
    return 0;
}

/* Formats v with digits after the point (is_plain, %f) or significant
 * digits (%g), with '.' for the point whatever LC_NUMERIC says; returns
 * whether the text fits and reads back as v. */
static int format_exactly(double v, int is_plain, int digits, char *buf, size_t len)
{
    const char *point = localeconv()->decimal_point;
    int n =
        is_plain ? snprintf(buf, len, "%.*f", digits, v) : snprintf(buf, len, "%.*g", digits, v);
    char *at;
    double back;

    if (n < 0 || (size_t)n >= len)
        return 0;
    at = point[0] && strcmp(point, ".") != 0 ? strstr(buf, point) : NULL;
    if (at) {
        *at = '.';
        memmove(at + 1, at + strlen(point), strlen(at + strlen(point)) + 1);
    }
    return config__parse_number(buf, &back) == 0 && back == v;
}

/* Writes v in the fewest digits that read back to it: as a plain decimal
 * (100, -0.25) when one fits in len, else with an exponent (1e-20). */
void config__format_number(double v, char *buf, size_t len)
{
    for (int digits = 0; digits <= 17; digits++) {
        if (format_exactly(v, 1, digits, buf, len))
            return;
    }
    for (int digits = 1; digits <= 17; digits++) {
        if (format_exactly(v, 0, digits, buf, len))
            return;
    }
}

static void write_alert(const struct config_key *k, const void *base, FILE *out)
{
    const struct config_probe *p = base;
    char buf[DOUBLE_TEXT_MAX];

    switch (p->alert_op) {
    case CONFIG_ALERT_NONE: fprintf(out, "%s = none\n", k->name); return;
    case CONFIG_ALERT_CHANGES: fprintf(out, "%s = changes\n", k->name); return;
    case CONFIG_ALERT_ABOVE:
    case CONFIG_ALERT_BELOW:
        config__format_number(p->alert_value, buf, sizeof(buf));
        fprintf(out, "%s = %c %s\n", k->name, p->alert_op == CONFIG_ALERT_ABOVE ? '>' : '<', buf);
        return;
    }
}

const struct config_type config__probe_type = {parse_type, config__write_enum, 0};
const struct config_type config__probe_url = {parse_probe_url, config__write_url, 1};
const struct config_type config__pointer = {parse_pointer, write_pointers, 1};
const struct config_type config__probe_text = {parse_text, config__write_raw, 1};
const struct config_type config__alert = {parse_alert, write_alert, 0};

/* The keys that only some types read, and how to say so. */
static const struct {
    enum config_probe_key key;
    const char *name;
    unsigned types; /* TYPE_BITs of the types that read it */
    const char *rule;
} readers[] = {
    {CONFIG_PROBE_URL, "url", HTTP, "only json, text and prometheus probes fetch a url"},
    {CONFIG_PROBE_HEADER, "header", HTTP, "only json, text and prometheus probes send headers"},
    {CONFIG_PROBE_POINTER, "pointer", JSON, "only a json probe reads pointers"},
    {CONFIG_PROBE_KEY, "key", TEXT | COMMAND, "only text and command probes read a key"},
    {CONFIG_PROBE_REGEX, "regex", TEXT | COMMAND, "only text and command probes read a regex"},
    {CONFIG_PROBE_METRIC, "metric", PROMETHEUS, "only a prometheus probe reads a metric"},
    {CONFIG_PROBE_COMMAND, "command", COMMAND, "only a command probe runs a command"},
};

/* The keys each type needs, with an example to copy. */
static const struct {
    enum config_probe_type type;
    enum config_probe_key key;
    const char *example;
} needs[] = {
    {CONFIG_PROBE_TYPE_JSON, CONFIG_PROBE_URL, "a url (e.g. url = /stats)"},
    {CONFIG_PROBE_TYPE_JSON, CONFIG_PROBE_POINTER,
     "a pointer (e.g. pointer = /node_get_fsm_siblings_100)"},
    {CONFIG_PROBE_TYPE_TEXT, CONFIG_PROBE_URL, "a url (e.g. url = /nginx_status)"},
    {CONFIG_PROBE_TYPE_PROMETHEUS, CONFIG_PROBE_URL, "a url (e.g. url = /metrics)"},
    {CONFIG_PROBE_TYPE_PROMETHEUS, CONFIG_PROBE_METRIC,
     "a metric (e.g. metric = brink_target_queue_depth)"},
    {CONFIG_PROBE_TYPE_COMMAND, CONFIG_PROBE_COMMAND,
     "a command (e.g. command = ss -tan state time-wait | wc -l)"},
};

static void check_keys(struct config_load_ctx *ctx, const struct config_probe *p, const char *label)
{
    const char *type = config__probe_type_words.names[p->type];
    char where[CONFIG_WHERE_MAX];

    for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++) {
        if (needs[i].type == p->type && !p->key_line[needs[i].key])
            config__error(ctx, p->line, label, "type %s needs %s", type, needs[i].example);
    }
    if (p->type == CONFIG_PROBE_TYPE_TEXT && !p->key_line[CONFIG_PROBE_KEY] &&
        !p->key_line[CONFIG_PROBE_REGEX])
        config__error(
            ctx, p->line, label,
            "type text needs a key or a regex (e.g. key = Active connections, or regex = ^Active connections: ([0-9]+))");
    for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
        uint32_t line = p->key_line[readers[i].key];

        if (!line || (readers[i].types & TYPE_BIT(p->type)))
            continue;
        snprintf(where, sizeof(where), "%s %s", label, readers[i].name);
        config__error(ctx, line, where, "%s (this one is type %s)", readers[i].rule, type);
    }
}

/* key and regex are two ways to find the number; one probe uses one. */
static void check_key_or_regex(struct config_load_ctx *ctx, const struct config_probe *p,
                               const char *label)
{
    uint32_t key_line = p->key_line[CONFIG_PROBE_KEY], regex_line = p->key_line[CONFIG_PROBE_REGEX];
    char where[CONFIG_WHERE_MAX];

    if (!key_line || !regex_line || !(TYPE_BIT(p->type) & (TEXT | COMMAND)))
        return;
    if (key_line < regex_line) {
        snprintf(where, sizeof(where), "%s regex", label);
        config__error(ctx, regex_line, where,
                      "a probe reads a key or a regex, not both (key is set at line %lu)",
                      (unsigned long)key_line);
    } else {
        snprintf(where, sizeof(where), "%s key", label);
        config__error(ctx, key_line, where,
                      "a probe reads a key or a regex, not both (regex is set at line %lu)",
                      (unsigned long)regex_line);
    }
}

uint32_t config_probe_series(const struct config_probe *p)
{
    return p->type == CONFIG_PROBE_TYPE_JSON && p->n_pointers > 1 ? p->n_pointers : 1;
}

void config__resolve_probes(struct config_load_ctx *ctx)
{
    struct config *c = ctx->c;
    char label[CONFIG_LABEL_MAX], where[CONFIG_WHERE_MAX], name[CONFIG_SHOW_MAX];

    for (uint32_t i = 0; i < c->n_probes; i++) {
        struct config_probe *p = &c->probes[i];

        snprintf(label, sizeof(label), "[probe %s]", config__show(p->name, name));
        if (!p->key_line[CONFIG_PROBE_TYPE]) {
            config__error(ctx, p->line, label,
                          "no type (expected type = json, text, prometheus or command)");
            continue;
        }
        /* A bad type has been reported; what it needs is unknown. */
        if (!ctx->is_probe_typed[i])
            continue;
        check_keys(ctx, p, label);
        check_key_or_regex(ctx, p, label);
        if (p->url.value && p->url.value[0] == '/' && (TYPE_BIT(p->type) & HTTP)) {
            snprintf(where, sizeof(where), "%s url", label);
            config__join_url(ctx, &p->url, where, 1);
        }
    }
}
