/*
 * What inih and the line reader hand over, turned into fields of struct
 * config: [section] lines (checked against the known sections, with a
 * did-you-mean) and key = value lines (looked up in the table of keys,
 * expanded, checked and parsed). Errors are reported and counted; reading
 * goes on, so that one pass finds them all.
 */
#include "config/internal.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/msg.h"
#include "core/suggest.h"
#include "core/xalloc.h"

static const struct section_def {
    const char *name;
    enum config_section_kind kind;
    int has_name; /* [request NAME], [probe NAME] */
} sections[] = {
    {"target", SECTION_TARGET, 0},         {"load", SECTION_LOAD, 0},
    {"request", SECTION_REQUEST, 1},       {"record", SECTION_RECORD, 0},
    {"probe", SECTION_PROBE, 1},           {"ramp", SECTION_RAMP, 0},
    {"thresholds", SECTION_THRESHOLDS, 0}, {"scenario", SECTION_SCENARIO, 0},
    {"agents", SECTION_AGENTS, 0},
};

#define N_SECTIONS (sizeof(sections) / sizeof(sections[0]))
/* The struct of a section, where its header line and key lines are kept. */
struct section_slot {
    void *base;
    uint32_t *line;
    uint32_t *key_line;
};

/* named is the new entry of a named section: a struct config_request or a
 * struct config_probe; NULL for the others. */
static struct section_slot slot_of(struct config *c, enum config_section_kind kind, void *named)
{
    struct config_request *r = named;
    struct config_probe *p = named;

    switch (kind) {
    case SECTION_TARGET:
        return (struct section_slot){&c->target, &c->target.line, c->target.key_line};
    case SECTION_LOAD: return (struct section_slot){&c->load, &c->load.line, c->load.key_line};
    case SECTION_RECORD:
        return (struct section_slot){&c->record, &c->record.line, c->record.key_line};
    case SECTION_RAMP: return (struct section_slot){&c->ramp, &c->ramp.line, c->ramp.key_line};
    case SECTION_THRESHOLDS:
        return (struct section_slot){&c->thresholds, &c->thresholds.line, c->thresholds.key_line};
    case SECTION_SCENARIO:
        return (struct section_slot){&c->scenario, &c->scenario.line, c->scenario.key_line};
    case SECTION_AGENTS:
        return (struct section_slot){&c->agents, &c->agents.line, c->agents.key_line};
    case SECTION_REQUEST: return (struct section_slot){r, &r->line, r->key_line};
    case SECTION_PROBE: return (struct section_slot){p, &p->line, p->key_line};
    case SECTION_NONE: break;
    }
    assert(!"no struct for this section");
    return (struct section_slot){NULL, NULL, NULL};
}

/* Stops reading keys until the next good section line. */
static void skip_section(struct config_load_ctx *ctx)
{
    ctx->kind = SECTION_NONE;
    ctx->base = NULL;
    ctx->key_line = NULL;
    ctx->label[0] = '\0';
    ctx->is_skipping = 1;
}

static void report_unknown_section(struct config_load_ctx *ctx, const char *word, const char *rest)
{
    const char *names[N_SECTIONS + 1];
    const struct section_def *best = NULL;
    char shown[CONFIG_SHOW_MAX];

    for (size_t i = 0; i < N_SECTIONS; i++)
        names[i] = sections[i].name;
    names[N_SECTIONS] = NULL;
    for (size_t i = 0; i < N_SECTIONS; i++) {
        if (sections[i].name == suggest_closest(word, names))
            best = &sections[i];
    }
    if (best && best->has_name && rest[0])
        config__error(ctx, ctx->lineno, ctx->label, "unknown section (did you mean [%s %s]?)",
                      best->name, config__show(rest, shown));
    else if (best)
        config__error(ctx, ctx->lineno, ctx->label, "unknown section (did you mean [%s]?)",
                      best->name);
    else
        config__error(
            ctx, ctx->lineno, ctx->label,
            "unknown section (expected [target], [load], [request NAME], [probe NAME], [ramp] or [record])");
}

/* Also the NAME of [probe NAME]. */
static int is_request_name(const char *s)
{
    size_t n = strlen(s);

    if (n == 0 || n > CONFIG_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];

        if (!(ch >= 'a' && ch <= 'z') && !(ch >= 'A' && ch <= 'Z') && !(ch >= '0' && ch <= '9') &&
            !strchr("_.-", ch))
            return 0;
    }
    return 1;
}

/* Reports a NAME that is not a plain word; returns whether it is one. */
static int check_name(struct config_load_ctx *ctx, const char *name)
{
    char shown[CONFIG_SHOW_MAX];

    if (is_request_name(name))
        return 1;
    config__error(ctx, ctx->lineno, ctx->label,
                  "bad NAME (expected 1 to 63 letters, digits, _ . or -, got \"%s\")",
                  config__show(name, shown));
    return 0;
}

/* Reports a NAME used by an earlier section of the same kind, first_line
 * being that section's line (0: none); returns whether the name is new. */
static int check_new_name(struct config_load_ctx *ctx, uint32_t first_line)
{
    if (!first_line)
        return 1;
    config__error(ctx, ctx->lineno, ctx->label, "section repeated (first at line %lu)",
                  (unsigned long)first_line);
    return 0;
}

/* Starts [request NAME]: a new entry of c->requests, or NULL (reported). */
static struct config_request *begin_request(struct config_load_ctx *ctx, const char *name)
{
    struct config *c = ctx->c;
    struct config_request *r;
    uint32_t first_line = 0;

    if (!check_name(ctx, name))
        return NULL;
    for (uint32_t i = 0; i < c->n_requests; i++) {
        if (strcmp(c->requests[i].name, name) == 0)
            first_line = c->requests[i].line;
    }
    if (!check_new_name(ctx, first_line))
        return NULL;
    if (c->n_requests == CONFIG_MAX_REQUESTS) {
        config__error(ctx, ctx->lineno, ctx->label,
                      "too many [request NAME] sections (expected at most %d)",
                      CONFIG_MAX_REQUESTS);
        return NULL;
    }
    r = &c->requests[c->n_requests++];
    r->name = xstrdup(name);
    config__apply_defaults(SECTION_REQUEST, r);
    return r;
}

/* Starts [probe NAME]: a new entry of c->probes, or NULL (reported). */
static struct config_probe *begin_probe(struct config_load_ctx *ctx, const char *name)
{
    struct config *c = ctx->c;
    struct config_probe *p;
    uint32_t first_line = 0;

    if (!check_name(ctx, name))
        return NULL;
    for (uint32_t i = 0; i < c->n_probes; i++) {
        if (strcmp(c->probes[i].name, name) == 0)
            first_line = c->probes[i].line;
    }
    if (!check_new_name(ctx, first_line))
        return NULL;
    if (c->n_probes == CONFIG_MAX_PROBES) {
        config__error(ctx, ctx->lineno, ctx->label,
                      "too many [probe NAME] sections (expected at most %d)", CONFIG_MAX_PROBES);
        return NULL;
    }
    p = &c->probes[c->n_probes++];
    p->name = xstrdup(name);
    config__apply_defaults(SECTION_PROBE, p);
    return p;
}

/* Starts the entry of a named section; NULL when it was reported. */
static void *begin_named(struct config_load_ctx *ctx, enum config_section_kind kind,
                         const char *name)
{
    if (kind == SECTION_PROBE)
        return begin_probe(ctx, name);
    return begin_request(ctx, name);
}

/* Splits "word rest" in place; both trimmed. */
static void split_section_name(char *name, char **word, char **rest)
{
    char *end;

    while (*name == ' ' || *name == '\t')
        name++;
    end = name + strlen(name);
    while (end > name && (end[-1] == ' ' || end[-1] == '\t'))
        *--end = '\0';
    *word = name;
    *rest = name + strcspn(name, " \t");
    if (**rest) {
        *(*rest)++ = '\0';
        *rest += strspn(*rest, " \t");
    }
}

void config__begin_section(struct config_load_ctx *ctx, char *name)
{
    const struct section_def *def = NULL;
    void *named = NULL;
    struct section_slot slot;
    char word_shown[CONFIG_SHOW_MAX], rest_shown[CONFIG_SHOW_MAX];
    char *word, *rest;

    skip_section(ctx);
    if (!name)
        return;
    split_section_name(name, &word, &rest);
    config__show(word, word_shown);
    config__show(rest, rest_shown);
    snprintf(ctx->label, sizeof(ctx->label), rest[0] ? "[%s %s]" : "[%s]", word_shown, rest_shown);
    for (size_t i = 0; i < N_SECTIONS; i++) {
        if (strcmp(word, sections[i].name) == 0)
            def = &sections[i];
    }
    if (!def) {
        report_unknown_section(ctx, word, rest);
        return;
    }
    if (def->has_name && !rest[0]) {
        config__error(ctx, ctx->lineno, ctx->label, "missing NAME (expected [%s NAME])", def->name);
        return;
    }
    if (!def->has_name && rest[0]) {
        config__error(ctx, ctx->lineno, ctx->label,
                      "[%s] takes no NAME (expected [%s], got \"%s\")", def->name, def->name,
                      rest_shown);
        return;
    }
    if (def->has_name && !(named = begin_named(ctx, def->kind, rest)))
        return;
    slot = slot_of(ctx->c, def->kind, named);
    if (*slot.line) {
        config__error(ctx, ctx->lineno, ctx->label, "section repeated (first at line %lu)",
                      (unsigned long)*slot.line);
        return;
    }
    *slot.line = ctx->lineno;
    ctx->kind = def->kind;
    ctx->base = slot.base;
    ctx->key_line = slot.key_line;
    ctx->is_skipping = 0;
}

static const struct config_key *find_key(enum config_section_kind kind, const char *name)
{
    for (size_t i = 0; i < config__n_keys; i++) {
        if (config__keys[i].section == kind && strcmp(config__keys[i].name, name) == 0)
            return &config__keys[i];
    }
    return NULL;
}

static void report_unknown_key(struct config_load_ctx *ctx, const char *where, const char *name)
{
    const char *names[CONFIG_SECTION_KEYS_MAX + 1];
    char list[CONFIG_SECTION_KEYS_MAX * 16] = "";
    size_t n = 0;
    const char *best;

    for (size_t i = 0; i < config__n_keys && n < CONFIG_SECTION_KEYS_MAX; i++) {
        if (config__keys[i].section == ctx->kind)
            names[n++] = config__keys[i].name;
    }
    names[n] = NULL;
    best = suggest_closest(name, names);
    if (best) {
        config__error(ctx, ctx->lineno, where, "unknown key (did you mean %s?)", best);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        size_t used = strlen(list);

        snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "", names[i]);
    }
    config__error(ctx, ctx->lineno, where, "unknown key (expected one of %s)", list);
}

static void report_outside_section(struct config_load_ctx *ctx, const char *name, const char *shown)
{
    for (size_t i = 0; i < config__n_keys; i++) {
        for (size_t j = 0; j < N_SECTIONS; j++) {
            if (strcmp(config__keys[i].name, name) == 0 &&
                config__keys[i].section == sections[j].kind) {
                config__error(
                    ctx, ctx->lineno, shown,
                    "key outside any section (expected a [section] line above it, such as [%s%s])",
                    sections[j].name, sections[j].has_name ? " NAME" : "");
                return;
            }
        }
    }
    config__error(ctx, ctx->lineno, shown,
                  "key outside any section (expected a [section] line above it)");
}

/* The first byte that may not be in a value: ASCII controls but tab, DEL.
 * Checked after expansion, so a variable cannot smuggle a newline into a
 * header either. */
static const char *find_control(const char *s)
{
    for (; *s; s++) {
        if (((unsigned char)*s < ' ' && *s != '\t') || *s == 0x7F)
            return s;
    }
    return NULL;
}

static void set_key(struct config_load_ctx *ctx, const char *name, const char *raw)
{
    char where[CONFIG_WHERE_MAX], shown[CONFIG_SHOW_MAX], why[CONFIG_WHY_MAX], *value = NULL;
    const struct config_key *k;
    struct config_value v;

    if (ctx->is_skipping)
        return;
    if (name[0] == '\0') {
        config__error(ctx, ctx->lineno, ctx->label[0] ? ctx->label : NULL,
                      "missing key (expected \"key = value\", got \"= %s\")",
                      config__show(raw, shown));
        return;
    }
    config__show(name, shown);
    if (ctx->kind == SECTION_NONE) {
        report_outside_section(ctx, name, shown);
        return;
    }
    snprintf(where, sizeof(where), "%s %s", ctx->label, shown);
    if (!(k = find_key(ctx->kind, name))) {
        report_unknown_key(ctx, where, name);
        return;
    }
    if (ctx->key_line[k->index] && !k->is_repeatable) {
        config__error(ctx, ctx->lineno, where, "set twice (first at line %lu)",
                      (unsigned long)ctx->key_line[k->index]);
        return;
    }
    if (!ctx->key_line[k->index])
        ctx->key_line[k->index] = ctx->lineno;
    if (config__expand(ctx, raw, &value, why, sizeof(why)) < 0) {
        config__error(ctx, ctx->lineno, where, "%s", why);
        return;
    }
    if (find_control(value)) {
        config__error(ctx, ctx->lineno, where,
                      "control character in the value (expected text, got \"%s\")",
                      config__show(value, shown));
        goto out_free_value;
    }
    v = (struct config_value){raw, value, ctx->lineno};
    if (k->type->parse(ctx, k, ctx->base, &v, why, sizeof(why)) < 0)
        config__error(ctx, ctx->lineno, where, "%s", why);
out_free_value:
    free(value);
}

/* The [request NAME] a command-line request key goes to: the file's only
 * one, or one named "default" (the name the engine gives the request of a
 * file without any) made for it; NULL, reported, when the file has
 * several, since one value cannot say which. */
static struct config_request *override_request(struct config_load_ctx *ctx,
                                               const struct config_override *o)
{
    struct config *c = ctx->c;
    struct config_request *r;

    if (c->n_requests > 1) {
        msg_print(ctx->err,
                  "brink: %s: the experiment has %" PRIu32
                  " [request NAME] sections and %s stands for one (expected %s in each section)",
                  o->flag, c->n_requests, o->flag, o->key);
        ctx->n_errors++;
        return NULL;
    }
    if (c->n_requests == 1)
        return &c->requests[0];
    r = &c->requests[c->n_requests++];
    r->name = xstrdup("default");
    r->line = 0; /* not in the file: messages give no line */
    config__apply_defaults(SECTION_REQUEST, r);
    return r;
}

/* The value of a key of type config__rate in its section's struct. */
static double rate_of(const void *base, const struct config_key *k)
{
    double r;

    memcpy(&r, (const char *)base + k->offset, sizeof(r));
    return r;
}

void config__apply_override(struct config_load_ctx *ctx, const struct config_override *o)
{
    static char working_dir[] = ".";
    char why[CONFIG_WHY_MAX], shown[CONFIG_SHOW_MAX], *file_dir = ctx->dir;
    const struct config_key *k = NULL;
    struct config_value v = {o->value, o->value, 0};
    struct section_slot slot = {NULL, NULL, NULL};
    int rc;

    for (size_t i = 0; i < N_SECTIONS; i++) {
        if (strcmp(o->section, sections[i].name) == 0)
            k = find_key(sections[i].kind, o->key);
    }
    /* The table of flags is brink's own, so a miss is a bug, not bad input. */
    assert(k && "override names no key");
    if (find_control(o->value)) {
        msg_print(ctx->err, "brink: %s: control character in the value (expected text, got \"%s\")",
                  o->flag, config__show(o->value, shown));
        ctx->n_errors++;
        return;
    }
    if (k->section == SECTION_REQUEST) {
        struct config_request *r = override_request(ctx, o);

        if (!r)
            return;
        slot = slot_of(ctx->c, SECTION_REQUEST, r);
    } else {
        slot = slot_of(ctx->c, k->section, NULL);
    }
    /* A file named on the command line is the shell's: relative to the
     * working directory, not to the experiment file. A repeatable key
     * (header) adds a line after the file's. */
    /* Set even when bad, as a file's key is: checks that need the whole
     * file then know it was given (and reported). */
    if (!slot.key_line[k->index] || !k->is_repeatable)
        slot.key_line[k->index] = CONFIG_LINE_COMMAND_LINE;
    ctx->dir = working_dir;
    rc = k->type->parse(ctx, k, slot.base, &v, why, sizeof(why));
    ctx->dir = file_dir;
    if (rc < 0) {
        msg_print(ctx->err, "brink: %s: %s", o->flag, why);
        ctx->n_errors++;
        return;
    }
    /* A file may say rate = 0 (unset); a rate asked for on the command
     * line is one to keep, so 0 is no rate at all. */
    if (k->type == &config__rate && rate_of(slot.base, k) <= 0) {
        msg_print(ctx->err, "brink: %s: expected a rate above 0, such as 100/s, got \"%s\"",
                  o->flag, config__show(o->value, shown));
        ctx->n_errors++;
    }
}

/* inih's handler. The section inih passes is ignored: inih cuts names at 49
 * bytes, and the reader has already told us which section this is. */
int config__on_key(void *user, const char *section, const char *name, const char *value)
{
    struct config_load_ctx *ctx = user;

    (void)section;
    if (ctx->long_name)
        set_key(ctx, ctx->long_name, ctx->long_value);
    else
        set_key(ctx, name, value);
    /* Errors are counted in ctx; a 0 here would only make inih remember
     * the line number, which we already have. */
    return 1;
}

int config_key_at(size_t i, struct config_key_info *out)
{
    const struct config_key *k;

    if (i >= config__n_keys)
        return -ENOENT;
    k = &config__keys[i];
    *out = (struct config_key_info){NULL, k->name, k->def, k->is_repeatable};
    for (size_t j = 0; j < N_SECTIONS; j++) {
        if (sections[j].kind == k->section)
            out->section = sections[j].name;
    }
    return 0;
}
