/*
 * verdicts: the end of a run, a replay or a report, judged. The whole run
 * against [thresholds] fail_on (or --fail-on), and the ramp plan's steps as
 * the plan judged them. Main thread only.
 */
#ifndef BRINK_CMD_VERDICTS_H
#define BRINK_CMD_VERDICTS_H

#include <stdio.h>

#include "config/config.h"
#include "core/steps.h"
#include "report/formats.h"

/*
 * The conditions a recorded session was run with: [thresholds] fail_on of
 * config_text (the header's effective configuration), else the default
 * (sessions written before thresholds existed). fail_on, when not NULL
 * (--fail-on of brink report), wins; it is the user's and may be bad:
 * returns 0, or -EINVAL after a one-line message naming cmd.
 */
int verdicts_rules(const char *cmd, const char *config_text, const char *fail_on,
                   struct config_rules *out);

/* Judges st (finished) against rules into v (the failed conditions with
 * their measured values) and counts its plan steps that failed. */
void verdicts_judge(const struct config_rules *rules, const struct steps *st,
                    struct report_verdicts *v);

/*
 * Prints v after a text report: "thresholds: ..." with a "  FAIL ..." line
 * per failed condition; and for each failure one line on stderr,
 * "brink: CMD: threshold failed: error_rate 5.02% > 1.00% (...)" or
 * "brink: CMD: ramp step 5/6 (c=32) failed: ...". Returns the number of
 * failures: the caller exits with BRINK_EXIT_VERDICT when it is not 0.
 */
unsigned verdicts_print(const char *cmd, const struct report_verdicts *v, const struct steps *st,
                        FILE *out);

#endif
