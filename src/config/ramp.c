/*
 * [ramp]: the value types of its keys (steps, growth, stop_when, action,
 * and the keys that are used or not depending on the others) and the checks
 * that need the whole file: steps are written one way, a step holds for a
 * time or for an amount of work, and every probe a condition names exists.
 */
#include "config/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

#define NUMBER_TEXT_MAX 48
#define RULE_TEXT_MAX 128

static void *field_of(const struct config_key *k, void *base)
{
    return (char *)base + k->offset;
}

static const void *cfield_of(const struct config_key *k, const void *base)
{
    return (const char *)base + k->offset;
}

/* ---- steps ---- */

static int parse_steps(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                       const struct config_value *v, char *why, size_t why_len)
{
    struct config_ramp *r = base;
    const char *s = v->value;
    char item[NUMBER_TEXT_MAX], shown[CONFIG_SHOW_MAX];
    uint32_t n = 0;
    uint64_t level;
    int rc;

    (void)ctx;
    while ((rc = config__next_item(&s, item, sizeof(item))) == 0) {
        if (n == CONFIG_MAX_RAMP_STEPS) {
            snprintf(why, why_len, "expected at most %d steps", CONFIG_MAX_RAMP_STEPS);
            return -EINVAL;
        }
        /* Rates may say so: 100/s (a level is users or requests/s by [load] mode). */
        if (strlen(item) > 2 && strcmp(item + strlen(item) - 2, "/s") == 0)
            item[strlen(item) - 2] = '\0';
        if (units_parse_count(item, k->min, k->max, &level, why, why_len) < 0) {
            config__tidy_why(why, why_len);
            return -EINVAL;
        }
        r->steps[n++] = (double)level;
    }
    if (rc == -E2BIG || n == 0 || s[strspn(s, " \t")] != '\0') {
        snprintf(
            why, why_len,
            "expected levels separated by commas, such as 1, 8, 16, 32 (users) or 100/s, 200/s (rates), got \"%s\"",
            config__show(v->value, shown));
        return -EINVAL;
    }
    r->n_steps = n;
    return 0;
}

static void write_steps(const struct config_key *k, const void *base, FILE *out)
{
    const struct config_ramp *r = base;

    fprintf(out, "%s = ", k->name);
    for (uint32_t i = 0; i < r->n_steps; i++)
        fprintf(out, "%s%.0f", i ? ", " : "", r->steps[i]);
    fputc('\n', out);
}

/* ---- keys written as comments when the plan does not use them ---- */

static int is_set(const struct config_key *k, const void *base)
{
    return ((const struct config_ramp *)base)->key_line[k->index] != 0;
}

/* The steps line holds what start, step, max and growth made. */
static void write_maker(const struct config_key *k, const void *base, FILE *out)
{
    const struct config_ramp *r = base;
    const void *field = cfield_of(k, base);

    if (!is_set(k, base))
        fprintf(out, "; %s: not used, the steps are listed\n", k->name);
    else if (k->index == CONFIG_RAMP_GROWTH)
        fprintf(out, "; %s = %s (made the steps above)\n", k->name,
                config__growth_words.names[r->growth]);
    else
        fprintf(out, "; %s = %" PRIu32 " (made the steps above)\n", k->name,
                *(const uint32_t *)field);
}

static void write_requests_per_user(const struct config_key *k, const void *base, FILE *out)
{
    const struct config_ramp *r = base;

    if (r->requests_per_user)
        fprintf(out, "%s = %" PRIu32 "\n", k->name, r->requests_per_user);
    else
        fprintf(out, "; %s: not set, steps hold for a time\n", k->name);
}

static void write_hold(const struct config_key *k, const void *base, FILE *out)
{
    const struct config_ramp *r = base;
    char buf[NUMBER_TEXT_MAX];

    if (r->requests_per_user) {
        fprintf(out, "; %s: not used, steps hold for requests_per_user\n", k->name);
        return;
    }
    config__format_duration(r->hold_us, buf, sizeof(buf));
    fprintf(out, "%s = %s\n", k->name, buf);
}

/* ---- stop_when ---- */

static const struct {
    const char *name;
    enum config_rule_metric metric;
    const char *unit; /* how its value is written: "%", "duration", "" */
} metrics[] = {
    {"error_rate", CONFIG_RULE_ERROR_RATE, "%"},
    {"p50", CONFIG_RULE_P50, "duration"},
    {"p90", CONFIG_RULE_P90, "duration"},
    {"p99", CONFIG_RULE_P99, "duration"},
    {"p99.9", CONFIG_RULE_P999, "duration"},
    {"throughput_drop", CONFIG_RULE_THROUGHPUT_DROP, "%"},
    {"rate_shortfall", CONFIG_RULE_RATE_SHORTFALL, "%"},
};

#define N_METRICS (sizeof(metrics) / sizeof(metrics[0]))
#define PROBE_PREFIX "probe."

/* Parses the value of a rule with metric m from text. */
static int parse_rule_value(struct config_rule *rule, const char *unit, const char *text, char *why,
                            size_t why_len)
{
    uint64_t us;

    if (strcmp(unit, "%") == 0)
        return units_parse_percent(text, &rule->value, why, why_len);
    if (strcmp(unit, "duration") == 0) {
        if (units_parse_duration(text, &us, why, why_len) < 0)
            return -EINVAL;
        rule->value = (double)us;
        return 0;
    }
    if (config__parse_number(text, &rule->value) < 0) {
        snprintf(why, why_len, "expected a number such as 100 or 0.5");
        return -EINVAL;
    }
    return 0;
}

/* One condition: "metric > value" or "probe.NAME < value". */
static int parse_rule(const char *item, struct config_rule *rule, char *why, size_t why_len)
{
    const char *op = strpbrk(item, "<>");
    const char *unit = NULL;
    char name[CONFIG_NAME_MAX + sizeof(PROBE_PREFIX) + 1];
    size_t n;

    if (!op) {
        snprintf(why, why_len, "no > or <");
        return -EINVAL;
    }
    n = (size_t)(op - item);
    while (n > 0 && (item[n - 1] == ' ' || item[n - 1] == '\t'))
        n--;
    if (n == 0 || n >= sizeof(name)) {
        snprintf(why, why_len, "no metric before %c", *op);
        return -EINVAL;
    }
    memcpy(name, item, n);
    name[n] = '\0';
    memset(rule, 0, sizeof(*rule));
    rule->is_below = *op == '<';
    if (strncmp(name, PROBE_PREFIX, strlen(PROBE_PREFIX)) == 0) {
        const char *probe = name + strlen(PROBE_PREFIX);

        if (*probe == '\0' || strlen(probe) > CONFIG_NAME_MAX) {
            snprintf(why, why_len, "expected probe.NAME with the NAME of a [probe NAME]");
            return -EINVAL;
        }
        rule->metric = CONFIG_RULE_PROBE;
        memcpy(rule->probe, probe, strlen(probe) + 1); /* fits: checked above */
        unit = "";
    }
    for (size_t i = 0; !unit && i < N_METRICS; i++) {
        if (strcmp(name, metrics[i].name) == 0) {
            rule->metric = metrics[i].metric;
            unit = metrics[i].unit;
        }
    }
    if (!unit) {
        snprintf(
            why, why_len,
            "unknown metric (expected error_rate, p50, p90, p99, p99.9, throughput_drop, rate_shortfall or probe.NAME)");
        return -EINVAL;
    }
    if (rule->is_below && rule->metric != CONFIG_RULE_PROBE) {
        snprintf(why, why_len, "%s only trips above a limit (expected >)", name);
        return -EINVAL;
    }
    return parse_rule_value(rule, unit, op + 1 + strspn(op + 1, " \t"), why, why_len);
}

/* "none", or conditions separated by commas. */
static int parse_rules(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                       const struct config_value *v, char *why, size_t why_len)
{
    struct config_rules *r = field_of(k, base);
    const char *s = v->value;
    char item[RULE_TEXT_MAX], shown[CONFIG_SHOW_MAX], inner[CONFIG_WHY_MAX / 2];
    uint32_t n = 0;
    int rc;

    (void)ctx;
    if (strcmp(v->value, "none") == 0) {
        r->n_rules = 0;
        return 0;
    }
    while ((rc = config__next_item(&s, item, sizeof(item))) == 0) {
        if (n == CONFIG_MAX_RULES) {
            snprintf(why, why_len, "expected at most %d conditions", CONFIG_MAX_RULES);
            return -EINVAL;
        }
        if (parse_rule(item, &r->rules[n], inner, sizeof(inner)) < 0) {
            config__tidy_why(inner, sizeof(inner));
            snprintf(why, why_len, "condition \"%s\": %s", config__show(item, shown), inner);
            return -EINVAL;
        }
        n++;
    }
    if (rc == -E2BIG || n == 0) {
        snprintf(
            why, why_len,
            "expected none or conditions separated by commas, such as error_rate > 1%%, p99 > 2s, got \"%s\"",
            config__show(v->value, shown));
        return -EINVAL;
    }
    r->n_rules = n;
    return 0;
}

/* Writes one condition as it reads back. */
static void write_rule(const struct config_rule *rule, FILE *out)
{
    char buf[NUMBER_TEXT_MAX];
    const char *name = rule->probe;

    for (size_t i = 0; i < N_METRICS; i++) {
        if (metrics[i].metric != rule->metric)
            continue;
        name = metrics[i].name;
        if (strcmp(metrics[i].unit, "%") == 0) {
            config__format_number(rule->value * 100.0, buf, sizeof(buf));
            fprintf(out, "%s > %s%%", name, buf);
        } else {
            config__format_duration((uint64_t)rule->value, buf, sizeof(buf));
            fprintf(out, "%s > %s", name, buf);
        }
        return;
    }
    config__format_number(rule->value, buf, sizeof(buf));
    fprintf(out, "%s%s %c %s", PROBE_PREFIX, name, rule->is_below ? '<' : '>', buf);
}

static void write_rules(const struct config_key *k, const void *base, FILE *out)
{
    const struct config_rules *r = cfield_of(k, base);

    if (r->n_rules == 0) {
        fprintf(out, "%s = none\n", k->name);
        return;
    }
    fprintf(out, "%s = ", k->name);
    for (uint32_t i = 0; i < r->n_rules; i++) {
        if (i)
            fputs(", ", out);
        write_rule(&r->rules[i], out);
    }
    fputc('\n', out);
}

const struct config_type config__ramp_steps = {parse_steps, write_steps, 0};
/* Parsed as any count or duration (types.c), written as the plan uses them. */
static int parse_count(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                       const struct config_value *v, char *why, size_t why_len)
{
    return config__count32.parse(ctx, k, base, v, why, why_len);
}

static int parse_hold(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                      const struct config_value *v, char *why, size_t why_len)
{
    return config__duration.parse(ctx, k, base, v, why, why_len);
}

const struct config_type config__ramp_count = {parse_count, write_maker, 0};
const struct config_type config__ramp_work = {parse_count, write_requests_per_user, 0};
const struct config_type config__ramp_hold = {parse_hold, write_hold, 0};
const struct config_type config__growth = {config__parse_enum, write_maker, 0};
const struct config_type config__rules = {parse_rules, write_rules, 0};

int config_parse_rules(const char *text, struct config_rules *out, char *why, size_t why_len)
{
    static const struct config_key key = {.name = "fail_on", .type = &config__rules};
    struct config_value v = {text, text, 0};
    struct config_rules parsed = {0};

    if (parse_rules(NULL, &key, &parsed, &v, why, why_len) != 0) {
        config__tidy_why(why, why_len);
        return -EINVAL;
    }
    *out = parsed;
    return 0;
}

/* ---- the whole section ---- */

/* Fills in the steps that start, step, max and growth make. */
static void make_steps(struct config_load_ctx *ctx, struct config_ramp *r)
{
    uint64_t level = r->start;

    r->n_steps = 0;
    while (level <= r->max) {
        if (r->n_steps == CONFIG_MAX_RAMP_STEPS) {
            config__error(ctx, r->line, "[ramp]",
                          "start, step and max make more than %d steps (raise step or lower max)",
                          CONFIG_MAX_RAMP_STEPS);
            r->n_steps = 0;
            return;
        }
        r->steps[r->n_steps++] = (double)level;
        level = r->growth == CONFIG_GROWTH_DOUBLE ? level * 2 : level + r->step;
    }
    /* The top step is max itself, even when the growth steps past it. */
    if (r->n_steps == 0 || r->steps[r->n_steps - 1] < r->max) {
        if (r->n_steps == CONFIG_MAX_RAMP_STEPS)
            r->n_steps--;
        r->steps[r->n_steps++] = r->max;
    }
}

/* Each probe.NAME of rules (key at line, named where) names a probe. */
static void check_probes(struct config_load_ctx *ctx, const struct config_rules *r, uint32_t line,
                         const char *where)
{
    char shown[CONFIG_SHOW_MAX];

    for (uint32_t i = 0; i < r->n_rules; i++) {
        const struct config_rule *rule = &r->rules[i];
        uint32_t j = 0;

        if (rule->metric != CONFIG_RULE_PROBE)
            continue;
        while (j < ctx->c->n_probes && strcmp(ctx->c->probes[j].name, rule->probe) != 0)
            j++;
        if (j == ctx->c->n_probes)
            config__error(ctx, line, where, "probe.%s names no [probe %s] section",
                          config__show(rule->probe, shown), shown);
    }
}

void config__resolve_ramp(struct config_load_ctx *ctx)
{
    struct config_ramp *r = &ctx->c->ramp;
    static const enum config_ramp_key makers[] = {CONFIG_RAMP_START, CONFIG_RAMP_STEP,
                                                  CONFIG_RAMP_MAX, CONFIG_RAMP_GROWTH};
    uint32_t maker_line = 0;

    if (!r->line && !r->key_line[CONFIG_RAMP_STEPS])
        return;
    for (size_t i = 0; i < sizeof(makers) / sizeof(makers[0]); i++) {
        if (r->key_line[makers[i]] && !maker_line)
            maker_line = r->key_line[makers[i]];
    }
    /* Steps from the command line (--ramp=1,8,16) win over the file's. */
    if (r->key_line[CONFIG_RAMP_STEPS] == CONFIG_LINE_COMMAND_LINE)
        maker_line = 0;
    if (r->key_line[CONFIG_RAMP_STEPS] && maker_line) {
        config__error(ctx, maker_line, "[ramp]",
                      "steps are given at line %lu; use steps or start/step/max, not both",
                      (unsigned long)r->key_line[CONFIG_RAMP_STEPS]);
    } else if (!r->key_line[CONFIG_RAMP_STEPS] && !r->key_line[CONFIG_RAMP_MAX]) {
        config__error(ctx, r->line, "[ramp]",
                      "no steps (expected steps = 1, 8, 16, 32 or start, step and max)");
    } else if (!r->key_line[CONFIG_RAMP_STEPS]) {
        if (r->start > r->max)
            config__error(ctx, r->key_line[CONFIG_RAMP_MAX], "[ramp] max",
                          "max %" PRIu32 " is below start %" PRIu32, r->max, r->start);
        else
            make_steps(ctx, r);
    }
    if (r->key_line[CONFIG_RAMP_HOLD] && r->key_line[CONFIG_RAMP_REQUESTS_PER_USER])
        config__error(ctx, r->key_line[CONFIG_RAMP_REQUESTS_PER_USER], "[ramp] requests_per_user",
                      "hold is set at line %lu; a step holds for a time or for work, not both",
                      (unsigned long)r->key_line[CONFIG_RAMP_HOLD]);
    check_probes(ctx, &r->stop_when, r->key_line[CONFIG_RAMP_STOP_WHEN], "[ramp] stop_when");
}

void config__resolve_thresholds(struct config_load_ctx *ctx)
{
    const struct config_thresholds *t = &ctx->c->thresholds;
    uint32_t line = t->key_line[CONFIG_THRESHOLDS_FAIL_ON];

    for (uint32_t i = 0; i < t->fail_on.n_rules; i++) {
        if (t->fail_on.rules[i].metric == CONFIG_RULE_THROUGHPUT_DROP)
            config__error(
                ctx, line, "[thresholds] fail_on",
                "throughput_drop compares the steps of a [ramp] plan, not a whole run (expected error_rate, p50, p90, p99, p99.9, rate_shortfall or probe.NAME)");
    }
    check_probes(ctx, &t->fail_on, line, "[thresholds] fail_on");
}
