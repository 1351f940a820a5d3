#include "cmd/verdicts.h"

#include <errno.h>
#include <string.h>

#include "core/msg.h"
#include "ramp/verdict.h"

#define SHOWN_MAX (2 * TICK_TEXT_MAX)

_Static_assert(VERDICT_MAX_FAILS <= REPORT_VERDICTS_MAX, "a report holds every failed condition");
#define FAIL_ON_MAX 1024

/* The value of [thresholds] fail_on in INI text, copied into buf; 0, or
 * -ENOENT when the text has none. */
static int recorded_fail_on(const char *text, char *buf, size_t cap)
{
    int in_section = 0;

    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);

        if (line[0] == '[')
            in_section = len >= 12 && strncmp(line, "[thresholds]", 12) == 0;
        else if (in_section && len > 10 && strncmp(line, "fail_on = ", 10) == 0 && len - 10 < cap) {
            memcpy(buf, line + 10, len - 10);
            buf[len - 10] = '\0';
            return 0;
        }
        line = end ? end + 1 : NULL;
    }
    return -ENOENT;
}

int verdicts_rules(const char *cmd, const char *config_text, const char *fail_on,
                   struct config_rules *out)
{
    char text[FAIL_ON_MAX], why[256], shown[2 * FAIL_ON_MAX];

    if (fail_on) {
        if (config_parse_rules(fail_on, out, why, sizeof(why)) == 0)
            return 0;
        msg_show(fail_on, shown, sizeof(shown));
        msg_print(stderr, "brink: %s: --fail-on: \"%s\": %s", cmd, shown, why);
        return -EINVAL;
    }
    if (recorded_fail_on(config_text ? config_text : "", text, sizeof(text)) == 0 &&
        config_parse_rules(text, out, why, sizeof(why)) == 0)
        return 0;
    return config_parse_rules(CONFIG_DEFAULT_RULES, out, why, sizeof(why));
}

void verdicts_judge(const struct config_rules *rules, const struct steps *st,
                    struct report_verdicts *v)
{
    struct verdict_fail fails[VERDICT_MAX_FAILS];

    memset(v, 0, sizeof(*v));
    v->n_rules = rules->n_rules;
    v->n_failed = verdict_run(rules, st, fails);
    for (uint32_t i = 0; i < v->n_failed; i++)
        memcpy(v->why[i], fails[i].why, sizeof(v->why[i]));
    for (size_t i = 0; i < steps_count(st); i++)
        v->steps_failed += steps_row(st, i)->verdict == VERDICT_FAIL;
}

/* The ramp steps that failed: one line each on stderr. */
static void print_steps(const char *cmd, const struct steps *st)
{
    char shown[SHOWN_MAX];

    for (size_t i = 0; i < steps_count(st); i++) {
        const struct step_row *r = steps_row(st, i);

        if (r->verdict != VERDICT_FAIL)
            continue;
        msg_show_n(r->why, strnlen(r->why, sizeof(r->why)), shown, sizeof(shown));
        msg_print(stderr, "brink: %s: ramp step %u/%u (%s%.0f%s) failed: %s", cmd, r->plan_step,
                  r->plan_n_steps, r->model == LOAD_OPEN ? "" : "c=", r->level,
                  r->model == LOAD_OPEN ? "/s" : "", shown);
    }
}

unsigned verdicts_print(const char *cmd, const struct report_verdicts *v, const struct steps *st,
                        FILE *out)
{
    char shown[SHOWN_MAX];

    if (v->n_rules == 0)
        fputs("\nthresholds: none\n", out);
    else if (v->n_failed == 0)
        fprintf(out, "\nthresholds: all %u held\n", v->n_rules);
    else
        fprintf(out, "\nthresholds: %u of %u failed\n", v->n_failed, v->n_rules);
    for (uint32_t i = 0; i < v->n_failed; i++) {
        msg_show_n(v->why[i], strnlen(v->why[i], sizeof(v->why[i])), shown, sizeof(shown));
        fprintf(out, "  FAIL %s\n", shown);
        msg_print(stderr, "brink: %s: threshold failed: %s", cmd, shown);
    }
    fflush(out);
    print_steps(cmd, st);
    return v->n_failed + v->steps_failed;
}
