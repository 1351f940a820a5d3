/*
 * What every agent is sent (coord_internal.h): the experiment with the
 * files it names, and its share of the load by the weights.
 */
#include "agents/coord_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/config.h"
#include "core/clock.h"
#include "core/exitcode.h"
#include "core/linebuf.h"
#include "core/msg.h"
#include "core/regfile.h"
#include "core/sanitize.h"
#include "core/xalloc.h"
#include "record/wire.h"

/* ------------------------------------------------------------ the split */

void coord_split(uint64_t total, const double *weights, size_t n, uint64_t *shares)
{
    double sum = 0, rem[CONFIG_MAX_AGENTS];
    uint64_t given = 0;

    for (size_t i = 0; i < n; i++)
        sum += weights ? weights[i] : 1.0;
    for (size_t i = 0; i < n; i++) {
        double exact = (double)total * (weights ? weights[i] : 1.0) / sum;

        shares[i] = (uint64_t)floor(exact);
        rem[i] = exact - (double)shares[i];
        given += shares[i];
    }
    /* The units left over go to the largest remainders, the first on ties. */
    while (given < total) {
        size_t best = 0;

        for (size_t i = 1; i < n; i++) {
            if (rem[i] > rem[best])
                best = i;
        }
        shares[best]++;
        rem[best] = -1;
        given++;
    }
}

const double *agents__weights_of(const struct coord *c, double *w)
{
    for (uint32_t i = 0; i < c->n; i++)
        w[i] = c->agents[i].weight;
    return w;
}

/* ---------------------------------------------------------- the experiment */

static char *read_text(const char *path, size_t *len)
{
    char why[256];
    FILE *f;
    char *buf = NULL;
    size_t cap = 0;

    *len = 0;
    if (regfile_open(path, CONFIG_FILE_MAX_BYTES, &f, why, sizeof(why)) != 0)
        return NULL;
    for (;;) {
        size_t n;

        if (cap - *len < 65536) {
            cap = *len + 65536 + 1;
            buf = xrealloc(buf, cap);
        }
        n = fread(buf + *len, 1, cap - *len - 1, f);
        *len += n;
        if (n == 0)
            break;
    }
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

/* A file the experiment names, shipped at its absolute path. */
static int add_file(struct wire_msg *m, const char *path, char *err, size_t err_len)
{
    char real[PATH_MAX], shown[256];
    struct wire_file *f;

    if (!path)
        return 0;
    if (!realpath(path, real)) {
        msg_set(err, err_len, "brink: run: %s: %s", msg_show(path, shown, sizeof(shown)),
                msg_errno(errno).text);
        return -errno;
    }
    for (uint32_t i = 0; i < m->n_files; i++) {
        if (strcmp(m->files[i].path, real) == 0)
            return 0;
    }
    if (m->n_files == WIRE_MAX_FILES) {
        msg_set(err, err_len, "brink: run: the experiment names more than %d files to ship",
                WIRE_MAX_FILES);
        return -E2BIG;
    }
    f = &m->files[m->n_files];
    f->data = (unsigned char *)read_text(real, &f->len);
    if (!f->data) {
        msg_set(err, err_len, "brink: run: %s: cannot read it to ship it to the agents",
                msg_show(path, shown, sizeof(shown)));
        return -EIO;
    }
    f->path = xstrdup(real);
    m->n_files++;
    return 0;
}

static void add_override(struct wire_msg *m, const char *section, const char *key,
                         const char *value)
{
    m->overrides[m->n_overrides++] =
        (struct wire_override){xstrdup("[agents]"), xstrdup(section), xstrdup(key), xstrdup(value)};
}

/* What every agent gets: the file, its files, the command line. */
int agents__build_config(const struct coord *c, struct wire_msg *m, char *err, size_t err_len)
{
    const struct config *cfg = c->p->config;
    char real[PATH_MAX], shown[256];
    size_t len;

    memset(m, 0, sizeof(*m));
    m->type = WIRE_CONFIG;
    m->files = xcalloc(WIRE_MAX_FILES, sizeof(*m->files));
    m->overrides = xcalloc(WIRE_MAX_OVERRIDES, sizeof(*m->overrides));
    if (c->p->config_path) {
        if (!realpath(c->p->config_path, real) || !(m->text = read_text(real, &len))) {
            msg_set(err, err_len, "brink: run: %s: cannot read it to ship it to the agents",
                    msg_show(c->p->config_path, shown, sizeof(shown)));
            return BRINK_EXIT_USAGE;
        }
        m->name = xstrdup(real);
    } else {
        m->name = xstrdup("command line");
        m->text = xstrdup("");
    }
    m->cwd = xstrdup(getcwd(real, sizeof(real)) ? real : "/");
    for (uint32_t i = 0; i < cfg->n_requests; i++) {
        if (cfg->requests[i].body_kind == CONFIG_BODY_FILE &&
            add_file(m, cfg->requests[i].body_path, err, err_len) != 0)
            return BRINK_EXIT_USAGE;
    }
    if (add_file(m, cfg->scenario.script.value, err, err_len) != 0 ||
        add_file(m, cfg->target.ca_file.value, err, err_len) != 0 ||
        add_file(m, cfg->target.client_cert.value, err, err_len) != 0 ||
        add_file(m, cfg->target.client_key.value, err, err_len) != 0)
        return BRINK_EXIT_USAGE;
    for (uint32_t i = 0; i < cfg->agents.n_files; i++) {
        if (add_file(m, cfg->agents.files[i], err, err_len) != 0)
            return BRINK_EXIT_USAGE;
    }
    if (c->p->n_overrides + 16 > WIRE_MAX_OVERRIDES) {
        msg_set(err, err_len, "brink: run: too many options to ship to the agents");
        return BRINK_EXIT_USAGE;
    }
    for (size_t i = 0; i < c->p->n_overrides; i++) {
        const struct config_override *o = &c->p->overrides[i];

        m->overrides[m->n_overrides++] = (struct wire_override){
            xstrdup(o->flag), xstrdup(o->section), xstrdup(o->key), xstrdup(o->value)};
    }
    m->seed = c->p->seed;
    return 0;
}

/* Agent i's share: concurrency, rate, requests and in-flight cap in
 * proportion to its weight (with --ramp, of the plan's first level, which
 * the coordinator sets); the run's duration as the coordinator settled it.
 * The plan itself stays with the coordinator (coord_plan.c). The overrides
 * added are removed by drop_share. */
int agents__add_share(const struct coord *c, uint32_t i, struct wire_msg *m, char *err,
                      size_t err_len)
{
    const struct config *cfg = c->p->config;
    const struct config_load *l = &cfg->load;
    double w[CONFIG_MAX_AGENTS], sum = 0, f;
    uint64_t shares[CONFIG_MAX_AGENTS];
    char v[64], shown[128];
    uint64_t users = l->concurrency;
    double rate = l->rate_per_s;

    agents__weights_of(c, w);
    for (uint32_t k = 0; k < c->n; k++)
        sum += w[k];
    f = w[i] / sum;
    if (c->has_first_level && l->mode == CONFIG_MODE_RATE)
        rate = c->first_level;
    else if (c->has_first_level)
        users = (uint64_t)c->first_level;
    coord_split(users, w, c->n, shares);
    /* A plan's level leaves each agent one user at least, as its steps do. */
    if (shares[i] == 0 && l->mode == CONFIG_MODE_CLOSED && !c->has_first_level) {
        msg_set(err, err_len,
                "brink: run: agent %s: concurrency %u leaves it no user (expected at least "
                "one user per agent)",
                msg_show(c->agents[i].name, shown, sizeof(shown)), l->concurrency);
        return BRINK_EXIT_USAGE;
    }
    snprintf(v, sizeof(v), "%llu", (unsigned long long)(shares[i] ? shares[i] : 1));
    add_override(m, "load", "concurrency", v);
    if (rate > 0) {
        snprintf(v, sizeof(v), "%.17g/s", rate * f);
        add_override(m, "load", "rate", v);
    }
    if (l->requests) {
        coord_split(l->requests, w, c->n, shares);
        snprintf(v, sizeof(v), "%llu", (unsigned long long)(shares[i] ? shares[i] : 1));
        add_override(m, "load", "requests", v);
    }
    coord_split(l->max_in_flight, w, c->n, shares);
    snprintf(v, sizeof(v), "%llu", (unsigned long long)(shares[i] ? shares[i] : 1));
    add_override(m, "load", "max_in_flight", v);
    snprintf(v, sizeof(v), "%lluus", (unsigned long long)l->duration_us);
    add_override(m, "load", "duration", l->duration_us ? v : "0");
    return 0;
}

void agents__drop_share(struct wire_msg *m, uint32_t n_base)
{
    while (m->n_overrides > n_base) {
        struct wire_override *o = &m->overrides[--m->n_overrides];

        free(o->flag);
        free(o->section);
        free(o->key);
        free(o->value);
    }
}
