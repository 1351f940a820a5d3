/*
 * verdicts: the end of a run or a report, judged. The whole run against
 * [thresholds] fail_on (or --fail-on), and the ramp plan's steps as the
 * plan judged them. Main thread only.
 */
#ifndef PROG_VERDICTS_H
#define PROG_VERDICTS_H

#include <stdio.h>

#include "config/config.h"
#include "core/steps.h"

/*
 * Judges st (finished) against rules and reads its plan steps' verdicts.
 * Prints to out, after the report, "thresholds: ..." with each failed
 * condition and its measured value; and for each failure one line on
 * stderr, "brink: CMD: threshold failed: error_rate 5.02% > 1.00% (...)"
 * or "brink: CMD: ramp step 5/6 (c=32) failed: ...". Returns the number of
 * failures: the caller exits with BRINK_EXIT_VERDICT when it is not 0.
 */
unsigned verdicts_report(const char *cmd, const struct config_rules *rules, const struct steps *st,
                         FILE *out);

#endif
