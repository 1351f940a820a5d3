#include "cli/tables.h"

#include <stddef.h>

/* Every command's --help ends with the statuses (src/core/exitcode.h). */
static const char status_text[] =
    "exit status: 0 success, 1 runtime failure, 2 usage or config error,\n"
    "3 a threshold or a ramp step failed (brink run, brink report)\n";

static const struct opts_option top_options[] = {
    {.name = "--version",
     .short_name = 'V',
     .id = CLI_TOP_VERSION,
     .help = "print the version and exit"},
    {0},
};

const struct opts_table cli_top = {
    .name = NULL,
    .synopsis = "[--help] [--version] COMMAND [ARGS]",
    .summary = "brink is a terminal stress-test console for servers: it loads a server,\n"
               "shows throughput, latency, errors and the server's own counters live,\n"
               "and records every session for replay, reports and comparisons.",
    .after = "Run 'brink COMMAND --help' for the options of a command.\n",
    .status = status_text,
    .groups = {top_options},
};

/* What brink run loads: a file, or a URL alone. brink demo has its own. */
static const struct opts_option run_target_options[] = {
    {.name = "--config",
     .short_name = 'f',
     .arg = OPTS_VALUE,
     .value_name = "FILE",
     .id = CLI_RUN_CONFIG,
     .help = "experiment file (see docs/config.md)"},
    {.name = "--url",
     .short_name = 'u',
     .arg = OPTS_VALUE,
     .value_name = "URL",
     .id = CLI_RUN_URL,
     .help = "[target] url"},
    {0},
};

/* The load options of brink run and brink demo; each overrides the same
 * key of the experiment. */
static const struct opts_option run_load_options[] = {
    {.name = "--concurrency",
     .short_name = 'c',
     .arg = OPTS_VALUE,
     .value_name = "N",
     .id = CLI_RUN_CONCURRENCY,
     .help = "[load] concurrency, virtual users (default 10)"},
    {.name = "--duration",
     .short_name = 'z',
     .arg = OPTS_VALUE,
     .value_name = "D",
     .id = CLI_RUN_DURATION,
     .help = "[load] duration, e.g. 30s (default: until stopped)"},
    {.name = "--requests",
     .short_name = 'n',
     .arg = OPTS_VALUE,
     .value_name = "N",
     .id = CLI_RUN_REQUESTS,
     .help = "[load] requests, stop after N (default: no limit)"},
    {.name = "--threads",
     .short_name = 't',
     .arg = OPTS_VALUE,
     .value_name = "N",
     .id = CLI_RUN_THREADS,
     .help = "[load] threads, engine workers (default 1)"},
    {.name = "--tick",
     .arg = OPTS_VALUE,
     .value_name = "D",
     .id = CLI_RUN_TICK,
     .help = "[load] tick, the reporting interval (default 1s)"},
    {.name = "--timeout",
     .arg = OPTS_VALUE,
     .value_name = "D",
     .id = CLI_RUN_TIMEOUT,
     .help = "[target] timeout per request (default 30s)"},
    {.name = "--rate",
     .short_name = 'q',
     .arg = OPTS_VALUE,
     .value_name = "R",
     .id = CLI_RUN_RATE,
     .help = "[load] rate with mode = rate: R requests/s on a fixed\n"
             "schedule, latency from each intended start"},
    {.name = "--max-in-flight",
     .arg = OPTS_VALUE,
     .value_name = "N",
     .id = CLI_RUN_MAX_IN_FLIGHT,
     .help = "[load] max_in_flight under the open model (default 1000)"},
    {.name = "--seed",
     .arg = OPTS_VALUE,
     .value_name = "N",
     .id = CLI_RUN_SEED,
     .help = "seed for {rand}, {uuid} and the request mix"},
    {.name = "--ramp",
     .arg = OPTS_OPTIONAL,
     .value_name = "N,N,...",
     .id = CLI_RUN_RAMP,
     .help = "start the [ramp] plan at once; with a value, these\n"
             "steps ([ramp] steps), e.g. --ramp=1,8,16"},
    {.name = "--fail-on",
     .arg = OPTS_VALUE,
     .value_name = "'EXPR, ...'",
     .id = CLI_RUN_FAIL_ON,
     .help = "[thresholds] fail_on: conditions on the whole run,\n"
             "e.g. 'error_rate > 1%, p99 > 200ms'; any that holds\n"
             "makes the run exit 3 (default error_rate > 1%;\n"
             "none: never)"},
    {.name = "--headless", .id = CLI_RUN_HEADLESS, .help = "no console, even in a terminal"},
    {.name = "--record",
     .arg = OPTS_VALUE,
     .value_name = "FILE",
     .id = CLI_RUN_RECORD,
     .help = "record the session into FILE (never overwritten)"},
    {.name = "--no-record",
     .id = CLI_RUN_NO_RECORD,
     .excludes = CLI_RUN_RECORD,
     .help = "no session file ([record] enabled = no does the same);\n"
             "contradicts --record"},
    {0},
};

static const char console_keys[] =
    "Console keys: + and - step, ] and [ double and halve, = an exact\n"
    "concurrency, p pause/resume, d drop N connections, m mark, o closed/open\n"
    "model, l corrected/service latency, r start/stop the ramp plan, n its next\n"
    "step, t the step table, ? help, q quit.\n"
    "Headless, the same commands can be typed or piped on stdin, one a line:\n"
    "  concurrency N (or = N), step [N], + and -, double (]), halve ([),\n"
    "  pause (p), resume (r), drop N (d N), mark TEXT (m TEXT), stop (q),\n"
    "  rate N[/s], model [open|closed] (o), ramp, next\n";

const struct opts_table cli_run = {
    .name = "run",
    .synopsis = "(--url URL | --config FILE) [OPTIONS]",
    .summary = "load a server and report throughput, latency and errors",
    .text = "Runs virtual users (closed model: each sends, waits for the reply, sends\n"
            "again) against the target. In a terminal it opens the console: live\n"
            "throughput, latency, errors and events, and keys that change the load\n"
            "while it runs (? lists them). Otherwise (--headless, stdout or stdin not a\n"
            "terminal, TERM unset or dumb) one progress line per tick goes to stderr.\n"
            "Either way the final report goes to stdout (format: docs/report.md).\n"
            "q, Ctrl-C or SIGTERM stops the load, waits up to 5 s for requests in\n"
            "flight and still prints the report; a second one aborts them. SIGHUP (a\n"
            "dropped SSH session) stops the load at once. Every run is recorded into a\n"
            "new file of sessions/ ([record] dir) for brink replay and brink report.\n"
            "Each option overrides the same key of FILE; an option given twice, or\n"
            "with one it contradicts, is a usage error.\n",
    .after = console_keys,
    .status = status_text,
    .groups = {run_target_options, run_load_options},
};

static const struct opts_option demo_options[] = {
    {.name = "--tls",
     .id = CLI_DEMO_TLS,
     .help = "over HTTPS: the target serves a certificate made at start,\n"
             "which brink trusts alone ([target] ca_file, a private\n"
             "temporary file removed when the demo ends)"},
    {0},
};

const struct opts_table cli_demo = {
    .name = "demo",
    .synopsis = "[OPTIONS]",
    .summary = "the console against the built-in target, which breaks as load grows",
    .text = "Starts the built-in target (brink target) inside this process on a free\n"
            "port of 127.0.0.1 and opens the console on it, loading a write-heavy mix\n"
            "of PUT and GET on eight keys with 2 virtual users. The target breaks in\n"
            "known ways: concurrent writes to a key pile up siblings, four workers\n"
            "with a queue of 12 answer 503 once about 16 requests wait, and\n"
            "connections beyond 48 are reset. Press ] a few times and watch the\n"
            "latency, the 503s and the resets arrive; q stops and prints the report.\n"
            "Or press r (or start with --ramp): a plan doubles the users every 6 s\n"
            "from 2 to 64, names the step where the 503s start, and goes back one.\n"
            "Without a console nobody can press q, so it stops after 10 s unless\n"
            "--duration says otherwise. With --tls the same demo runs over HTTPS,\n"
            "probes included, with the certificate checked. The other options are\n"
            "those of brink run.\n",
    .after = console_keys,
    .status = status_text,
    .groups = {demo_options, run_load_options},
};

static const struct opts_option replay_options[] = {
    {.name = "--headless",
     .id = CLI_REPLAY_HEADLESS,
     .help = "no console: print the ticks as progress lines"},
    {0},
};

const struct opts_table cli_replay = {
    .name = "replay",
    .synopsis = "FILE [--headless]",
    .summary = "play a recorded session again in the console",
    .text = "Plays the session file FILE (recorded by brink run or brink demo) in the\n"
            "console at the pace it was recorded: space pauses and plays, the left and\n"
            "right arrows move 10 s, < and > halve and double the speed (x0.5 to x16),\n"
            "n and N jump to the next and previous tick with events, q ends. A cut or\n"
            "damaged file plays up to the damage and says which line. Replay never\n"
            "opens a connection and never runs a probe. Without a terminal (or with\n"
            "--headless) it prints the ticks as progress lines. Then the session's\n"
            "report follows, as brink run prints it. FILE must be a regular file.\n",
    .status = status_text,
    .groups = {replay_options},
};

static const struct opts_option report_options[] = {
    {.name = "--format",
     .arg = OPTS_VALUE,
     .value_name = "FORMAT",
     .id = CLI_REPORT_FORMAT,
     .help = "text (default), json, csv, csv-steps, hdr or hdr-failed"},
    {.name = "--fail-on",
     .arg = OPTS_VALUE,
     .value_name = "'EXPR, ...'",
     .id = CLI_REPORT_FAIL_ON,
     .help = "judge the run by these conditions instead of the\n"
             "[thresholds] fail_on it was recorded with"},
    {.name = "--merge",
     .arg = OPTS_FLAG,
     .id = CLI_REPORT_MERGE,
     .help = "read every FILE (sessions recorded apart, at the same\n"
             "time) as one run: their ticks merged second by second"},
    {0},
};

const struct opts_table cli_report = {
    .name = "report",
    .synopsis = "FILE [--format FORMAT] [--fail-on EXPR] | --merge FILE...",
    .summary = "print a recorded session's report and step table",
    .text = "Reads the session file FILE and prints, by --format:\n"
            "  text (default)  the report a run prints at its end, then the step table:\n"
            "                  one row per concurrency (or rate) the run held, with its\n"
            "                  duration, requests, req/s, MB/s, p50, p99, max, errors by\n"
            "                  class and each probe's max and last value\n"
            "  json            the same figures as one JSON document\n"
            "  csv             one row per tick, for spreadsheets\n"
            "  csv-steps       the step table, one row per step and per request kind\n"
            "  hdr             the latency distribution of the successes in\n"
            "                  HdrHistogram's text format\n"
            "  hdr-failed      the same for the failed requests\n"
            "Latency figures are those of the successes; failed requests are timed\n"
            "apart (\"latency of failed requests\" in text, failed_latency_us in JSON,\n"
            "failed_p50_us... in CSV).\n"
            "The run is judged against the [thresholds] fail_on it was recorded with\n"
            "(default error_rate > 1%), or --fail-on 'EXPR, ...' instead; text and\n"
            "json name each failed condition with its value, and any failed\n"
            "condition or ramp step makes the exit status 3.\n"
            "With --merge, the sessions of several load machines run at the same time\n"
            "(up to 16) are one run: tick N is the merge of every file's tick N\n"
            "(counts added, histograms merged, so a p99 is the p99 of all their\n"
            "requests), judged by the first file's thresholds. They must share the\n"
            "tick length and the load model; a file that ends early leaves the\n"
            "later ticks to the others, and stderr says from which tick.\n"
            "Layouts: docs/report.md. A cut or damaged file is read up to the damage;\n"
            "stderr names the line. FILE must be a regular file.\n",
    .status = status_text,
    .groups = {report_options},
};

static const struct opts_option compare_options[] = {
    {.name = "--label",
     .short_name = 'l',
     .arg = OPTS_VALUE,
     .value_name = "NAME",
     .id = CLI_COMPARE_LABEL,
     .is_repeatable = 1,
     .help = "the name of the next session, in order (at most one\n"
             "per session; default: its file name)"},
    {0},
};

const struct opts_table cli_compare = {
    .name = "compare",
    .synopsis = "A B [C ...] [--label NAME ...]",
    .summary = "the step tables of several sessions side by side",
    .text = "Reads two or more session files (up to 16) and prints their step tables\n"
            "side by side: one row per concurrency (or rate) level any of them held,\n"
            "one column group per session (req/s, p50, p99, errors), blank where a\n"
            "session did not run that level. Each --label names a session in order;\n"
            "more labels than sessions is a usage error.\n",
    .status = status_text,
    .groups = {compare_options},
};

static const struct opts_option no_options[] = {{0}};

const struct opts_table cli_check = {
    .name = "check",
    .synopsis = "FILE",
    .summary = "validate an experiment file and print the configuration brink reads from it",
    .text = "Reads FILE (INI, see config/ and docs/config.md), reports every error in it\n"
            "as FILE:LINE: [section] key: what is wrong (the first 20, then how many\n"
            "more), and what brink run would refuse at its start (a command probe in a\n"
            "file others can write), and exits 2 if there is any. Otherwise prints the\n"
            "effective configuration, every key with its value or default, ${ENV}\n"
            "references as written and secrets redacted, and exits 0. FILE must be a\n"
            "regular file of at most 4 MiB.\n",
    .status = status_text,
    .groups = {no_options},
};

static const struct opts_option target_options[] = {
    {.name = "--listen",
     .short_name = 'l',
     .arg = OPTS_VALUE,
     .value_name = "ADDR:PORT",
     .id = CLI_TARGET_LISTEN,
     .help = "where to listen (default 127.0.0.1:0, a free port;\n"
             "[::1]:PORT for IPv6)"},
    {.name = "--config",
     .short_name = 'f',
     .arg = OPTS_VALUE,
     .value_name = "FILE",
     .id = CLI_TARGET_CONFIG,
     .help = "settings document (docs/target.md)"},
    {.name = "--seed",
     .arg = OPTS_VALUE,
     .value_name = "N",
     .id = CLI_TARGET_SEED,
     .help = "seed of the fault RNG, 0..2^53"},
    {.name = "--tls",
     .id = CLI_TARGET_TLS,
     .help = "serve HTTPS with a self-signed certificate made at\n"
             "start (EC P-256, for localhost, 127.0.0.1 and ::1,\n"
             "valid 7 days)"},
    {.name = "--cert-out",
     .arg = OPTS_VALUE,
     .value_name = "FILE",
     .id = CLI_TARGET_CERT_OUT,
     .excludes = CLI_TARGET_CERT,
     .help = "write that certificate to FILE (PEM), for clients to\n"
             "trust (ca_file = FILE, curl --cacert FILE);\n"
             "implies --tls"},
    {.name = "--cert",
     .arg = OPTS_VALUE,
     .value_name = "FILE",
     .id = CLI_TARGET_CERT,
     .help = "serve HTTPS with this PEM certificate (chain) instead;\n"
             "needs --key"},
    {.name = "--key",
     .arg = OPTS_VALUE,
     .value_name = "FILE",
     .id = CLI_TARGET_KEY,
     .help = "the unencrypted PEM private key of --cert"},
    {0},
};

const struct opts_table cli_target = {
    .name = "target",
    .synopsis = "[--listen ADDR:PORT] [--config FILE] [--seed N] [--tls ...]",
    .summary = "run the built-in fault-injecting HTTP server (for demos and tests)",
    .text = "Serves /bytes/N, /delay/MS, /status/CODE, /echo, /files/, a key-value store\n"
            "with siblings (/kv/KEY, /mp/UPLOAD/PART), /stats, /metrics and /_control on\n"
            "ADDR:PORT and prints its URL as the first line. FILE is a JSON document\n"
            "with the schema of the body of POST /_control (capacity, faults, kv,\n"
            "files_dir); N seeds the fault RNG. Runs until SIGINT or SIGTERM.\n"
            "With --tls, --cert-out or --cert it serves HTTPS (HTTP/1.1 only) and the\n"
            "URL is https://; the second line then says where the certificate is.\n",
    .status = status_text,
    .groups = {target_options},
};

const struct opts_table *const cli_commands[] = {
    &cli_run, &cli_demo, &cli_replay, &cli_report, &cli_compare, &cli_check, &cli_target, NULL,
};
