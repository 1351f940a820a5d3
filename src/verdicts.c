#include "verdicts.h"

#include <string.h>

#include "core/sanitize.h"
#include "ramp/verdict.h"
#include "report/formats.h"

#define SHOWN_MAX (2 * TICK_TEXT_MAX)

/* The ramp steps that failed: one line each on stderr. */
static unsigned report_steps(const char *cmd, const struct steps *st)
{
    char shown[SHOWN_MAX];
    unsigned n = 0;

    for (size_t i = 0; i < steps_count(st); i++) {
        const struct step_row *r = steps_row(st, i);

        if (r->verdict != VERDICT_FAIL)
            continue;
        sanitize_display(r->why, strnlen(r->why, sizeof(r->why)), shown, sizeof(shown), 1);
        fprintf(stderr, "brink: %s: ramp step %u/%u (%s%.0f%s) failed: %s\n", cmd, r->plan_step,
                r->plan_n_steps, r->model == LOAD_OPEN ? "" : "c=", r->level,
                r->model == LOAD_OPEN ? "/s" : "", shown);
        n++;
    }
    return n;
}

unsigned verdicts_report(const char *cmd, const struct config_rules *rules, const struct steps *st,
                         FILE *out)
{
    struct verdict_fail fails[VERDICT_MAX_FAILS];
    char shown[SHOWN_MAX];
    uint32_t n = verdict_run(rules, st, fails);

    if (rules->n_rules == 0)
        fputs("\nthresholds: none\n", out);
    else if (n == 0)
        fprintf(out, "\nthresholds: all %u held\n", rules->n_rules);
    else
        fprintf(out, "\nthresholds: %u of %u failed\n", n, rules->n_rules);
    for (uint32_t i = 0; i < n; i++) {
        sanitize_display(fails[i].why, strnlen(fails[i].why, sizeof(fails[i].why)), shown,
                         sizeof(shown), 1);
        fprintf(out, "  FAIL %s\n", shown);
        fprintf(stderr, "brink: %s: threshold failed: %s\n", cmd, shown);
    }
    fflush(out);
    return n + report_steps(cmd, st);
}
