/*
 * tables: the option table of every brink command, with its usage and
 * --help text (see opts.h). The commands parse with these tables and
 * nothing else, so what --help lists is what they accept, and a test that
 * walks cli_commands walks every option of every command. Pure data.
 */
#ifndef BRINK_CLI_TABLES_H
#define BRINK_CLI_TABLES_H

#include "cli/opts.h"

/* brink itself, before the command. */
enum cli_top_id { CLI_TOP_VERSION = 1 };

/* brink run, and brink demo, which takes the load options. */
enum cli_run_id {
    CLI_RUN_CONFIG = 1,
    CLI_RUN_URL,
    CLI_RUN_CONCURRENCY,
    CLI_RUN_DURATION,
    CLI_RUN_REQUESTS,
    CLI_RUN_THREADS,
    CLI_RUN_TICK,
    CLI_RUN_TIMEOUT,
    CLI_RUN_RATE,
    CLI_RUN_MAX_IN_FLIGHT,
    CLI_RUN_SEED,
    CLI_RUN_RAMP,
    CLI_RUN_FAIL_ON,
    CLI_RUN_HEADLESS,
    CLI_RUN_RECORD,
    CLI_RUN_NO_RECORD,
    CLI_RUN_METRICS_LISTEN,
    CLI_RUN_METRICS_LINGER,
    CLI_DEMO_TLS, /* brink demo only */
    CLI_RUN_METHOD,
    CLI_RUN_HEADER,
    CLI_RUN_BODY,
    CLI_RUN_BODY_FILE,
    CLI_RUN_CONTENT_TYPE,
    CLI_RUN_INSECURE,
    CLI_RUN_AGENTS,
    CLI_RUN_NO_RETRY,
    CLI_RUN_FORMAT,
    CLI_RUN_OUTPUT,
};

enum cli_replay_id { CLI_REPLAY_HEADLESS = 1 };
enum cli_report_id {
    CLI_REPORT_FORMAT = 1,
    CLI_REPORT_FAIL_ON,
    CLI_REPORT_MERGE,
    CLI_REPORT_OUTPUT,
    CLI_REPORT_AGENT
};
enum cli_compare_id { CLI_COMPARE_LABEL = 1, CLI_COMPARE_FORMAT, CLI_COMPARE_OUTPUT };
enum cli_target_id {
    CLI_TARGET_LISTEN = 1,
    CLI_TARGET_CONFIG,
    CLI_TARGET_SEED,
    CLI_TARGET_TLS,
    CLI_TARGET_CERT,
    CLI_TARGET_KEY,
    CLI_TARGET_CERT_OUT,
    CLI_TARGET_H2C,
};

/* The values of each --format, in the order of the command's own enum
 * (cmd/run_output.h, cmd/report_cmd.c): one list for the parsers and completions. */
extern const char *const cli_run_formats[];
extern const char *const cli_report_formats[];
extern const char *const cli_compare_formats[];

extern const struct opts_table cli_top;
extern const struct opts_table cli_run;
extern const struct opts_table cli_demo;
extern const struct opts_table cli_replay;
extern const struct opts_table cli_report;
extern const struct opts_table cli_compare;
extern const struct opts_table cli_check;
extern const struct opts_table cli_target;
extern const struct opts_table cli_sessions;
extern const struct opts_table cli_agent;

/* Every command's table, in the order brink --help lists them; NULL after
 * the last. */
extern const struct opts_table *const cli_commands[];

#endif
