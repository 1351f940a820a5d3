/*
 * [agents]: the hosts a coordinator starts `brink agent` on, the ssh
 * command, the remote brink and the hosts' shares of the load
 * (docs/agents.md).
 */
#include "config/internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tick.h"
#include "core/xalloc.h"

static int is_host_char(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           strchr("_.:@[]-", ch) != NULL;
}

int config_agents_set_hosts(struct config_agents *a, const char *list, char *why, size_t why_len)
{
    char item[CONFIG_AGENT_HOST_MAX + 2], shown[CONFIG_SHOW_MAX];
    const char *s = list;
    uint32_t n = 0;
    int rc;

    while ((rc = config__next_item(&s, item, sizeof(item))) != -ENOENT) {
        if (rc == -E2BIG || strlen(item) > CONFIG_AGENT_HOST_MAX) {
            snprintf(why, why_len, "a host name longer than %d bytes", CONFIG_AGENT_HOST_MAX);
            return -EINVAL;
        }
        if (!item[0]) {
            snprintf(why, why_len, "an empty host name in \"%s\" (expected HOST[,HOST...])",
                     config__show(list, shown));
            return -EINVAL;
        }
        /* A host becomes one word of the ssh command: nothing an ssh
         * option or a shell could read otherwise. */
        for (const char *p = item; *p; p++) {
            if (!is_host_char((unsigned char)*p) || item[0] == '-') {
                snprintf(why, why_len,
                         "expected a host name ([user@]host of letters, digits and _.:[]-), got "
                         "\"%s\"",
                         config__show(item, shown));
                return -EINVAL;
            }
        }
        for (uint32_t i = 0; i < n; i++) {
            if (strcmp(a->hosts[i], item) == 0) {
                snprintf(why, why_len, "host \"%s\" is named twice (expected each host once)",
                         config__show(item, shown));
                return -EINVAL;
            }
        }
        if (n == CONFIG_MAX_AGENTS) {
            snprintf(why, why_len, "more than %d hosts", CONFIG_MAX_AGENTS);
            return -EINVAL;
        }
        memcpy(a->hosts[n++], item, strlen(item) + 1); /* checked: at most CONFIG_AGENT_HOST_MAX */
    }
    if (n == 0) {
        snprintf(why, why_len, "expected HOST[,HOST...], got \"%s\"", config__show(list, shown));
        return -EINVAL;
    }
    a->n_hosts = n;
    return 0;
}

static int parse_hosts(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                       const struct config_value *v, char *why, size_t why_len)
{
    (void)ctx;
    (void)k;
    return config_agents_set_hosts(base, v->value, why, why_len);
}

static void write_hosts(const struct config_key *k, const void *base, FILE *out)
{
    const struct config_agents *a = base;

    if (!a->n_hosts)
        return;
    fprintf(out, "%s = ", k->name);
    for (uint32_t i = 0; i < a->n_hosts; i++)
        fprintf(out, "%s%s", i ? ", " : "", a->hosts[i]);
    fprintf(out, "\n");
}

/* ssh and brink: a command line split into words at spaces (no shell). */
static int parse_command(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                         const struct config_value *v, char *why, size_t why_len)
{
    const char *p = v->value;

    (void)ctx;
    p += strspn(p, " \t");
    if (!*p) {
        snprintf(why, why_len, "expected a command, got \"\"");
        return -EINVAL;
    }
    config__set_str((struct config_str *)((char *)base + k->offset), v);
    return 0;
}

static int parse_weights(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                         const struct config_value *v, char *why, size_t why_len)
{
    struct config_agents *a = base;
    const char *s = v->value;
    char item[64], shown[CONFIG_SHOW_MAX];
    uint32_t n = 0;
    int rc;

    (void)ctx;
    (void)k;
    while ((rc = config__next_item(&s, item, sizeof(item))) != -ENOENT) {
        double w;

        if (rc != 0 || config__parse_number(item, &w) != 0 || !(w > 0) || !isfinite(w) || w > 1e6) {
            snprintf(why, why_len, "expected positive numbers such as 1, 2, 1.5, got \"%s\"",
                     config__show(rc == 0 ? item : v->value, shown));
            return -EINVAL;
        }
        if (n == CONFIG_MAX_AGENTS) {
            snprintf(why, why_len, "more than %d weights", CONFIG_MAX_AGENTS);
            return -EINVAL;
        }
        a->weights[n++] = w;
    }
    if (n == 0) {
        snprintf(why, why_len, "expected positive numbers such as 1, 2, 1.5, got \"\"");
        return -EINVAL;
    }
    a->n_weights = n;
    return 0;
}

static void write_weights(const struct config_key *k, const void *base, FILE *out)
{
    const struct config_agents *a = base;

    if (!a->n_weights)
        return;
    fprintf(out, "%s = ", k->name);
    for (uint32_t i = 0; i < a->n_weights; i++)
        fprintf(out, "%s%.17g", i ? ", " : "", a->weights[i]);
    fprintf(out, "\n");
}

/* files: more files shipped to every agent, each a regular file resolved
 * as the other file keys are (against the experiment file's folder). */
static int parse_files(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                       const struct config_value *v, char *why, size_t why_len)
{
    struct config_agents *a = base;
    const char *s = v->value;
    char item[PATH_MAX], shown[CONFIG_SHOW_MAX];
    uint32_t n = 0;
    int rc;

    (void)k;
    for (uint32_t i = 0; i < a->n_files; i++)
        free(a->files[i]);
    a->n_files = 0;
    while ((rc = config__next_item(&s, item, sizeof(item))) != -ENOENT) {
        char *path = NULL;

        if (rc != 0 || !item[0]) {
            snprintf(why, why_len, "expected FILE[,FILE...], got \"%s\"",
                     config__show(v->value, shown));
            return -EINVAL;
        }
        if (n == CONFIG_MAX_AGENT_FILES) {
            snprintf(why, why_len, "more than %d files", CONFIG_MAX_AGENT_FILES);
            return -EINVAL;
        }
        if (config__resolve_file(ctx, "", item, &path, why, why_len) < 0)
            return -EINVAL;
        a->files[n] = path;
        a->n_files = ++n;
    }
    if (n == 0) {
        snprintf(why, why_len, "expected FILE[,FILE...], got \"\"");
        return -EINVAL;
    }
    return 0;
}

static void write_files(const struct config_key *k, const void *base, FILE *out)
{
    const struct config_agents *a = base;

    if (!a->n_files)
        return;
    fprintf(out, "%s = ", k->name);
    for (uint32_t i = 0; i < a->n_files; i++)
        fprintf(out, "%s%s", i ? ", " : "", a->files[i]);
    fprintf(out, "\n");
}

const struct config_type config__agent_hosts = {parse_hosts, write_hosts, 0};
const struct config_type config__agent_command = {parse_command, config__write_raw, 1};
const struct config_type config__agent_weights = {parse_weights, write_weights, 0};
const struct config_type config__agent_files = {parse_files, write_files, 0};

/* Probes on agents: one series per agent each, all of them in a tick's
 * TICK_MAX_PROBES, each named SERIES@HOST within TICK_NAME_MAX. */
static void check_agent_probes(struct config_load_ctx *ctx)
{
    const struct config *c = ctx->c;
    const struct config_probe *last = NULL;
    uint32_t here = 0, each = 0;
    char where[CONFIG_WHERE_MAX], shown[CONFIG_SHOW_MAX];

    for (uint32_t i = 0; i < c->n_probes; i++) {
        const struct config_probe *p = &c->probes[i];

        if (p->on != CONFIG_PROBE_ON_AGENTS) {
            here += config_probe_series(p);
            continue;
        }
        each += config_probe_series(p);
        last = p;
        snprintf(where, sizeof(where), "[probe %s] on", config__show(p->name, shown));
        for (uint32_t h = 0; h < c->agents.n_hosts; h++) {
            /* The longest of its series: the name with its longest pointer. */
            size_t pointer = 0, need;

            for (uint32_t k = 0; config_probe_series(p) > 1 && k < p->n_pointers; k++) {
                if (strlen(p->pointers[k].value) > pointer)
                    pointer = strlen(p->pointers[k].value);
            }
            need = strlen(p->name) + pointer + 1 + strlen(c->agents.hosts[h]);
            if (need <= TICK_NAME_MAX - 1)
                continue;
            config__error(ctx, p->key_line[CONFIG_PROBE_ON], where,
                          "its series on agent %s would be named %s%s@%s (%zu bytes), more than "
                          "%d (expected a shorter probe name)",
                          c->agents.hosts[h], shown, pointer ? "/..." : "", c->agents.hosts[h],
                          need, TICK_NAME_MAX - 1);
            break;
        }
    }
    if (last && c->agents.n_hosts && here + each * c->agents.n_hosts > TICK_MAX_PROBES) {
        snprintf(where, sizeof(where), "[probe %s] on", config__show(last->name, shown));
        config__error(ctx, last->key_line[CONFIG_PROBE_ON], where,
                      "%u probe series on each of %u agents and %u here make %u, more than %d "
                      "(expected fewer probes on agents, or fewer agents)",
                      each, c->agents.n_hosts, here, here + each * c->agents.n_hosts,
                      TICK_MAX_PROBES);
    }
}

void config__resolve_agents(struct config_load_ctx *ctx)
{
    const struct config_agents *a = &ctx->c->agents;

    check_agent_probes(ctx);

    if (a->n_weights && a->n_weights != a->n_hosts)
        config__error(ctx, a->key_line[CONFIG_AGENTS_WEIGHTS], "[agents] weights",
                      "%u weights for %u hosts (expected one weight per host)", a->n_weights,
                      a->n_hosts);
    else if (a->line && !a->n_hosts && !a->key_line[CONFIG_AGENTS_HOSTS])
        config__error(ctx, a->line, "[agents]", "no hosts (expected hosts = HOST[,HOST...])");
}
