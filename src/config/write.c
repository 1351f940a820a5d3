/*
 * config_write: the effective configuration back as INI. Strings are written
 * as they were in the file, so ${NAME} references stay references and the
 * output is safe to record; numbers in the largest unit that is exact, so
 * that reading the output back gives the same values.
 */
#include "config/config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "config/internal.h"
#include "core/msg.h"

static const struct {
    const char *unit;
    uint64_t scale;
} duration_units[] = {
    {"h", 3600000000ULL}, {"m", 60000000ULL}, {"s", 1000000ULL}, {"ms", 1000ULL}, {"us", 1ULL},
};

/* Binary units first: 64MiB reads better than 67108864. */
static const struct {
    const char *unit;
    uint64_t scale;
} size_units[] = {
    {"TiB", 1ULL << 40},      {"GiB", 1ULL << 30},   {"MiB", 1ULL << 20}, {"KiB", 1ULL << 10},
    {"TB", 1000000000000ULL}, {"GB", 1000000000ULL}, {"MB", 1000000ULL},  {"kB", 1000ULL},
};

void config__format_duration(uint64_t us, char *buf, size_t len)
{
    if (us == 0) {
        snprintf(buf, len, "0");
        return;
    }
    for (size_t i = 0; i < sizeof(duration_units) / sizeof(duration_units[0]); i++) {
        if (us % duration_units[i].scale == 0) {
            snprintf(buf, len, "%" PRIu64 "%s", us / duration_units[i].scale,
                     duration_units[i].unit);
            return;
        }
    }
}

void config__format_size(uint64_t bytes, char *buf, size_t len)
{
    for (size_t i = 0; bytes && i < sizeof(size_units) / sizeof(size_units[0]); i++) {
        if (bytes % size_units[i].scale == 0) {
            snprintf(buf, len, "%" PRIu64 "%s", bytes / size_units[i].scale, size_units[i].unit);
            return;
        }
    }
    snprintf(buf, len, "%" PRIu64, bytes);
}

static void write_section(enum config_section_kind kind, const void *base, FILE *out)
{
    for (size_t i = 0; i < config__n_keys; i++) {
        if (config__keys[i].section == kind)
            config__keys[i].type->write(&config__keys[i], base, out);
    }
}

/* [record] without dir when it was not set: the run then records into the
 * per-user state folder, which "dir = sessions" (the key's old default)
 * would move to ./sessions if the output were run again. */
static void write_record(const struct config_record *r, FILE *out)
{
    for (size_t i = 0; i < config__n_keys; i++) {
        const struct config_key *k = &config__keys[i];

        if (k->section != SECTION_RECORD ||
            (k->index == CONFIG_RECORD_DIR && !r->key_line[CONFIG_RECORD_DIR]))
            continue;
        k->type->write(k, r, out);
    }
}

int config_write(const struct config *c, FILE *out)
{
    fprintf(out, "; effective configuration: every key with its value, secrets redacted\n");
    fprintf(out, "[target]\n");
    write_section(SECTION_TARGET, &c->target, out);
    fprintf(out, "\n[load]\n");
    write_section(SECTION_LOAD, &c->load, out);
    for (uint32_t i = 0; i < c->n_requests; i++) {
        /* Request names were checked to be plain [A-Za-z0-9_.-]. */
        fprintf(out, "\n[request %s]\n", c->requests[i].name);
        write_section(SECTION_REQUEST, &c->requests[i], out);
    }
    for (uint32_t i = 0; i < c->n_probes; i++) {
        /* Probe names are checked like request names. */
        fprintf(out, "\n[probe %s]\n", c->probes[i].name);
        write_section(SECTION_PROBE, &c->probes[i], out);
    }
    if (c->ramp.n_steps) {
        fprintf(out, "\n[ramp]\n");
        write_section(SECTION_RAMP, &c->ramp, out);
    }
    fprintf(out, "\n[thresholds]\n");
    write_section(SECTION_THRESHOLDS, &c->thresholds, out);
    if (c->scenario.script.value) {
        fprintf(out, "\n[scenario]\n");
        write_section(SECTION_SCENARIO, &c->scenario, out);
    }
    if (c->agents.n_hosts) {
        fprintf(out, "\n[agents]\n");
        write_section(SECTION_AGENTS, &c->agents, out);
    }
    fprintf(out, "\n[record]\n");
    write_record(&c->record, out);
    if (fflush(out) != 0 || ferror(out))
        return -EIO;
    return 0;
}

int config_show(const struct config *c, FILE *out)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    int rc;

    if (!mem)
        return -EIO;
    rc = config_write(c, mem);
    if (fclose(mem) != 0 && rc == 0)
        rc = -EIO;
    if (rc == 0)
        rc = msg_print_text(out, text, len);
    if (rc == 0 && fflush(out) != 0)
        rc = -EIO;
    free(text);
    return rc;
}
