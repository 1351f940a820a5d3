#include "ramp/verdict.h"

#include <stdio.h>
#include <string.h>

#include "core/units.h"

static uint64_t row_pct(const struct step_row *row, enum config_rule_metric m)
{
    switch (m) {
    case CONFIG_RULE_P50: return row->p50_us;
    case CONFIG_RULE_P90: return row->p90_us;
    case CONFIG_RULE_P99: return row->p99_us;
    default: return row->p999_us;
    }
}

const char *verdict_rule_name(const struct config_rule *rule)
{
    static const char *const names[] = {
        [CONFIG_RULE_ERROR_RATE] = "error_rate",
        [CONFIG_RULE_P50] = "p50",
        [CONFIG_RULE_P90] = "p90",
        [CONFIG_RULE_P99] = "p99",
        [CONFIG_RULE_P999] = "p99.9",
        [CONFIG_RULE_THROUGHPUT_DROP] = "throughput_drop",
        [CONFIG_RULE_RATE_SHORTFALL] = "rate_shortfall",
    };

    return rule->metric == CONFIG_RULE_PROBE ? rule->probe : names[rule->metric];
}

int verdict_rule_trips(const struct config_rule *rule, const struct step_row *f,
                       const struct steps *st, enum load_model model, double best_rate, char *why,
                       size_t len)
{
    char a[UNITS_FMT_MAX], b[UNITS_FMT_MAX];
    double v, rate;

    switch (rule->metric) {
    case CONFIG_RULE_ERROR_RATE:
        v = f->completed ? (double)steps_row_failed(f) / (double)f->completed : 0;
        if (v <= rule->value)
            return 0;
        snprintf(why, len, "error_rate %.2f%% > %.2f%% (%llu of %llu failed)", v * 100,
                 rule->value * 100, (unsigned long long)steps_row_failed(f),
                 (unsigned long long)f->completed);
        return 1;
    case CONFIG_RULE_P50:
    case CONFIG_RULE_P90:
    case CONFIG_RULE_P99:
    case CONFIG_RULE_P999:
        v = (double)row_pct(f, rule->metric);
        if (v <= rule->value)
            return 0;
        snprintf(why, len, "%s %s > %s", verdict_rule_name(rule),
                 units_format_duration((uint64_t)v, a, sizeof(a)),
                 units_format_duration((uint64_t)rule->value, b, sizeof(b)));
        return 1;
    case CONFIG_RULE_THROUGHPUT_DROP:
        if (best_rate <= 0)
            return 0;
        v = 1.0 - steps_row_ok_rate(f) / best_rate;
        if (v <= rule->value)
            return 0;
        snprintf(why, len, "throughput_drop %.1f%% > %.1f%% (ok %.0f req/s, best %.0f)", v * 100,
                 rule->value * 100, steps_row_ok_rate(f), best_rate);
        return 1;
    case CONFIG_RULE_RATE_SHORTFALL:
        /* Only a rate asked for can fall short; users take what they get. */
        if (model != LOAD_OPEN || f->level <= 0)
            return 0;
        /* What started, not what completed: the schedule is about starts. */
        rate = tick_per_s(f->started, f->duration_us);
        v = 1.0 - rate / f->level;
        if (v <= rule->value)
            return 0;
        snprintf(why, len, "rate_shortfall %.1f%% > %.1f%% (%.0f of %.0f requests/s started)",
                 v * 100, rule->value * 100, rate, f->level);
        return 1;
    case CONFIG_RULE_PROBE:
        for (uint32_t i = 0; i < steps_n_probes(st); i++) {
            /* A probe on agents is one series per agent: any of them trips. */
            if (!tick_series_is(steps_probe_name(st, i), rule->probe) || !f->probes[i].has_value)
                continue;
            v = rule->is_below ? f->probes[i].min : f->probes[i].max;
            if (rule->is_below ? v >= rule->value : v <= rule->value)
                continue;
            snprintf(why, len, "probe %s %g %c %g", steps_probe_name(st, i), v,
                     rule->is_below ? '<' : '>', rule->value);
            return 1;
        }
        return 0;
    }
    return 0;
}

uint32_t verdict_run(const struct config_rules *rules, const struct steps *st,
                     struct verdict_fail *fails)
{
    struct step_row run;
    uint32_t n = 0;

    if (steps_run(st, &run) != 0)
        memset(&run, 0, sizeof(run));
    for (uint32_t i = 0; i < rules->n_rules && n < VERDICT_MAX_FAILS; i++) {
        if (verdict_rule_trips(&rules->rules[i], &run, st, run.model, 0, fails[n].why,
                               sizeof(fails[n].why)))
            n++;
    }
    return n;
}
