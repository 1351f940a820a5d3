/*
 * From what a source brought back to one series' value: the parser its
 * type names, with the selector compiled once (a regex, a Prometheus
 * selector) and checked when the probes start, not at the first sample.
 * A command without key or regex prints the number alone.
 */
#include "probes/sampler.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

/* A command's whole output as one number, blanks around it allowed. */
#define WHOLE_OUTPUT "^[[:space:]]*([^[:space:]]+)[[:space:]]*$"

enum how { HOW_JSON, HOW_KEY, HOW_REGEX, HOW_PROM };

struct extractor {
    enum how how;
    const char *arg; /* the JSON pointer or the key; borrowed from the config */
    struct probe_regex *re;
    struct probe_prom *prom;
};

static int compile_text(const struct config_probe *cfg, struct extractor *ex, char *why,
                        size_t why_len)
{
    if (cfg->key.value) {
        ex->how = HOW_KEY;
        ex->arg = cfg->key.value;
        return probe_text_key_check(ex->arg, why, why_len);
    }
    ex->how = HOW_REGEX;
    return probe_regex_compile(cfg->regex.value ? cfg->regex.value : WHOLE_OUTPUT, &ex->re, why,
                               why_len);
}

int probes__extractor_new(const struct config_probe *cfg, uint32_t index, char *why, size_t why_len,
                          struct extractor **out)
{
    struct extractor *ex = xcalloc(1, sizeof(*ex));
    int rc;

    switch (cfg->type) {
    case CONFIG_PROBE_TYPE_JSON:
        ex->how = HOW_JSON;
        ex->arg = cfg->pointers[index].value;
        rc = probe_json_pointer_check(ex->arg, why, why_len);
        break;
    case CONFIG_PROBE_TYPE_PROMETHEUS:
        ex->how = HOW_PROM;
        rc = probe_prom_compile(cfg->metric.value, &ex->prom, why, why_len);
        break;
    default: /* text and command */ rc = compile_text(cfg, ex, why, why_len); break;
    }
    if (rc) {
        probes__extractor_free(ex);
        return rc;
    }
    *out = ex;
    return 0;
}

void probes__extractor_free(struct extractor *ex)
{
    if (!ex)
        return;
    probe_regex_free(ex->re);
    probe_prom_free(ex->prom);
    free(ex);
}

void probes__page_open(struct page *pg, const struct config_probe *cfg, const char *text,
                       size_t len)
{
    memset(pg, 0, sizeof(*pg));
    pg->text = text;
    pg->len = len;
    if (cfg->type == CONFIG_PROBE_TYPE_JSON)
        pg->doc_rc = probe_json_open(text, len, &pg->doc, pg->doc_why, sizeof(pg->doc_why));
}

void probes__page_close(struct page *pg)
{
    probe_json_close(pg->doc);
    pg->doc = NULL;
}

int probes__extractor_read(const struct extractor *ex, const struct page *pg, double *out,
                           char *why, size_t why_len)
{
    size_t n_series;

    switch (ex->how) {
    case HOW_JSON:
        if (pg->doc_rc) {
            snprintf(why, why_len, "%s", pg->doc_why);
            return pg->doc_rc;
        }
        return probe_json_get(pg->doc, ex->arg, out, why, why_len);
    case HOW_KEY: return probe_parse_text_key(pg->text, pg->len, ex->arg, out, why, why_len);
    case HOW_REGEX: return probe_regex_match(ex->re, pg->text, pg->len, out, why, why_len);
    case HOW_PROM:
        return probe_prom_eval(ex->prom, pg->text, pg->len, out, &n_series, why, why_len);
    }
    return -EINVAL;
}
