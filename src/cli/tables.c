#include "cli/tables.h"

#include <stddef.h>

/* Every command's --help ends with the statuses (src/core/exitcode.h). */
static const char status_text[] =
    "exit status: 0 success, 1 runtime failure, 2 usage or config error,\n"
    "3 a threshold or a ramp step failed (brink run, brink report)\n";

const char *const cli_run_formats[] = {"text", "json", "csv", NULL};
const char *const cli_report_formats[] = {"text",       "json",       "csv",  "csv-steps",
                                          "hdr",        "hdr-failed", "hlog", "html",
                                          "csv-checks", "csv-lost",   NULL};
const char *const cli_compare_formats[] = {"text", "html", NULL};

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
     .help = "[target] url; or the URL alone, after the options"},
    {0},
};

/* The one request of the one-line form (brink run -m POST -d x URL); in
 * a file, the keys of its only [request NAME] or of [target]. */
static const struct opts_option run_request_options[] = {
    {.name = "--method",
     .short_name = 'm',
     .arg = OPTS_VALUE,
     .value_name = "METHOD",
     .id = CLI_RUN_METHOD,
     .help = "[request] method (default GET)"},
    {.name = "--header",
     .short_name = 'H',
     .arg = OPTS_VALUE,
     .value_name = "'NAME: VALUE'",
     .id = CLI_RUN_HEADER,
     .is_repeatable = 1,
     .help = "[target] header, one more line each time"},
    {.name = "--body",
     .short_name = 'd',
     .arg = OPTS_VALUE,
     .value_name = "TEXT",
     .id = CLI_RUN_BODY,
     .help = "[request] body: TEXT, @FILE or random:SIZE"},
    {.name = "--body-file",
     .short_name = 'D',
     .arg = OPTS_VALUE,
     .value_name = "FILE",
     .id = CLI_RUN_BODY_FILE,
     .excludes = CLI_RUN_BODY,
     .help = "[request] body = @FILE, the file's bytes;\n"
             "contradicts --body"},
    {.name = "--content-type",
     .short_name = 'T',
     .arg = OPTS_VALUE,
     .value_name = "TYPE",
     .id = CLI_RUN_CONTENT_TYPE,
     .help = "[target] header = Content-Type: TYPE"},
    {.name = "--insecure",
     .short_name = 'k',
     .id = CLI_RUN_INSECURE,
     .help = "[target] insecure = yes: no certificate check"},
    {.name = "--no-retry",
     .id = CLI_RUN_NO_RETRY,
     .help = "[target] retry = no: a request whose kept-alive\n"
             "connection the server had closed is not sent again"},
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
     .help = "[load] duration, e.g. 30s (default: until stopped;\n"
             "without a console 10s unless requests are set; 0: until\n"
             "stopped)"},
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
             "steps ([ramp] steps), e.g. --ramp=1,8,16; a URL\n"
             "after --ramp is the target, not its value"},
    {.name = "--fail-on",
     .arg = OPTS_VALUE,
     .value_name = "'EXPR, ...'",
     .id = CLI_RUN_FAIL_ON,
     .help = "[thresholds] fail_on: conditions on the whole run,\n"
             "e.g. 'error_rate > 1%, p99 > 200ms'; any that holds\n"
             "makes the run exit 3 (default error_rate > 1%;\n"
             "none: never)"},
    {.name = "--headless", .id = CLI_RUN_HEADLESS, .help = "no console, even in a terminal"},
    {.name = "--format",
     .arg = OPTS_VALUE,
     .value_name = "FORMAT",
     .id = CLI_RUN_FORMAT,
     .help = "the final report: text (default), json or csv, as\n"
             "brink report --format writes them",
     .choices = cli_run_formats},
    {.name = "--output",
     .short_name = 'o',
     .arg = OPTS_VALUE,
     .value_name = "FILE",
     .id = CLI_RUN_OUTPUT,
     .help = "write the final report to FILE (created or replaced)\n"
             "instead of stdout"},
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
    {.name = "--metrics-listen",
     .arg = OPTS_VALUE,
     .value_name = "ADDR:PORT",
     .id = CLI_RUN_METRICS_LISTEN,
     .help = "serve the run's figures for Prometheus at\n"
             "http://ADDR:PORT/metrics while it runs, e.g.\n"
             "127.0.0.1:9464 (default: not served); each series\n"
             "labelled run=\"SESSION\", its session file's name"},
    {.name = "--metrics-linger",
     .arg = OPTS_VALUE,
     .value_name = "D",
     .id = CLI_RUN_METRICS_LINGER,
     .help = "after the last tick, keep serving until a scrape has\n"
             "read the final figures, at most D (default 0s)"},
    {0},
};

/* brink run only: the load comes from agents on other machines. */
static const struct opts_option run_agent_options[] = {
    {.name = "--agents",
     .arg = OPTS_VALUE,
     .value_name = "HOST[,HOST...]",
     .id = CLI_RUN_AGENTS,
     .help = "[agents] hosts: start brink agent on each host over\n"
             "ssh, split the load between them and merge their ticks\n"
             "(docs/agents.md)"},
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
    .synopsis = "[OPTIONS] (URL | --url URL | --config FILE)",
    .summary = "load a server and report throughput, latency and errors",
    .text = "Runs virtual users (closed model: each sends, waits for the reply, sends\n"
            "again) against the target. In a terminal it opens the console: live\n"
            "throughput, latency, errors and events, and keys that change the load\n"
            "while it runs (? lists them). Otherwise (--headless, stdout or stdin not a\n"
            "terminal, TERM unset or dumb) one progress line per tick goes to stderr.\n"
            "A run with an end (-z, -n) shows how far it is, and the time left, in the\n"
            "console's header and at the end of each progress line (12s/1m00s 20%\n"
            "left 48s). Either way the final report goes to stdout, or -o FILE, as\n"
            "text, JSON or CSV (--format; docs/report.md): with json or csv stdout\n"
            "holds nothing else.\n"
            "q, Ctrl-C or SIGTERM stops the load, waits up to 5 s for requests in\n"
            "flight and still prints the report; a second one aborts them. SIGHUP (a\n"
            "dropped SSH session) stops the load at once. Every run is recorded into a\n"
            "new file of $XDG_STATE_HOME/brink/sessions (else\n"
            "~/.local/state/brink/sessions; [record] dir when set) for brink replay\n"
            "and brink report.\n"
            "Each option overrides the same key of FILE; an option given twice, or\n"
            "with one it contradicts, is a usage error. The request options (-m, -d,\n"
            "-D) set the keys of FILE's only [request NAME], or of one they make.\n"
            "Without a console nobody can press q: a run with no [load] duration and\n"
            "no [load] requests (nor --ramp) then stops after 10 s and says so;\n"
            "--duration 0 runs until stopped.\n"
            "  brink run -c 50 -n 2000 -m POST -H 'X-A: 1' -d @body.json URL\n",
    .after = console_keys,
    .status = status_text,
    .groups = {run_target_options, run_request_options, run_load_options, run_agent_options},
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
            "report follows, as brink run prints it. FILE must be a regular file;\n"
            "last is the newest session (brink sessions).\n",
    .status = status_text,
    .groups = {replay_options},
};

static const struct opts_option report_options[] = {
    {.name = "--format",
     .arg = OPTS_VALUE,
     .value_name = "FORMAT",
     .id = CLI_REPORT_FORMAT,
     .help = "text (default), json, csv, csv-steps, csv-checks,\n"
             "csv-lost, hdr, hdr-failed, hlog or html",
     .choices = cli_report_formats},
    {.name = "--output",
     .short_name = 'o',
     .arg = OPTS_VALUE,
     .value_name = "FILE",
     .id = CLI_REPORT_OUTPUT,
     .help = "write to FILE (created or replaced) instead of stdout"},
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
    {.name = "--agent",
     .arg = OPTS_VALUE,
     .value_name = "NAME",
     .id = CLI_REPORT_AGENT,
     .excludes = CLI_REPORT_MERGE,
     .help = "the figures of one agent of a run with agents (its\n"
             "host as [agents] hosts names it) instead of the merge"},
    {0},
};

const struct opts_table cli_report = {
    .name = "report",
    .synopsis = "FILE [--format FORMAT] [-o OUT] [--fail-on EXPR] | --merge FILE...",
    .summary = "print a recorded session's report and step table",
    .text = "Reads the session file FILE and prints, by --format:\n"
            "  text (default)  the report a run prints at its end, then the step table:\n"
            "                  one row per concurrency (or rate) the run held, with its\n"
            "                  duration, requests, req/s, MB/s, p50, p99, max, errors by\n"
            "                  class and each probe's max and last value\n"
            "  json            the same figures as one JSON document\n"
            "  csv             one row per tick, for spreadsheets\n"
            "  csv-steps       the step table, one row per step and per request kind\n"
            "  csv-checks      a scenario's checks and counters, per step and run\n"
            "  csv-lost        a run with agents: each lost agent, what it may have\n"
            "                  done after its last tick\n"
            "  hdr             the latency distribution of the successes in\n"
            "                  HdrHistogram's text format\n"
            "  hdr-failed      the same for the failed requests\n"
            "  html            one self-contained page (inline SVG, no script): charts\n"
            "                  over time and against load, the latency distribution,\n"
            "                  the tables, the settings and the verdict; for a\n"
            "                  browser or a printer\n"
            "  hlog            HdrHistogram's interval log, one histogram per tick\n"
            "                  (successes; failures tagged \"failed\"), for its tools\n"
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
            "stderr names the line. FILE must be a regular file; last is the newest\n"
            "session (brink sessions).\n",
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
    {.name = "--format",
     .arg = OPTS_VALUE,
     .value_name = "FORMAT",
     .id = CLI_COMPARE_FORMAT,
     .help = "text (default) or html (the curves overlaid, the\n"
             "change against the first session)",
     .choices = cli_compare_formats},
    {.name = "--output",
     .short_name = 'o',
     .arg = OPTS_VALUE,
     .value_name = "FILE",
     .id = CLI_COMPARE_OUTPUT,
     .help = "write to FILE (created or replaced) instead of stdout"},
    {0},
};

const struct opts_table cli_compare = {
    .name = "compare",
    .synopsis = "A B [C ...] [--label NAME ...] [--format FORMAT] [-o FILE]",
    .summary = "the step tables of several sessions side by side",
    .text = "Reads two or more session files (up to 16) and prints their step tables\n"
            "side by side: one row per concurrency (or rate) level any of them held,\n"
            "one column group per session (req/s, p50, p99, errors), blank where a\n"
            "session did not run that level. Each --label names a session in order;\n"
            "more labels than sessions is a usage error. last is the newest session\n"
            "(brink sessions). Under the table, each session's capacity (the\n"
            "Universal Scalability Law fitted to its steps) and which scales better.\n"
            "--format html writes one page instead: each session's\n"
            "change against the first, the step tables side by side, and their\n"
            "curves and latency distributions overlaid (docs/report.md).\n",
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
    {.name = "--h2c",
     .arg = OPTS_VALUE,
     .value_name = "ADDR:PORT",
     .id = CLI_TARGET_H2C,
     .help = "also serve HTTP/2 cleartext (prior knowledge) there\n"
             "(port 0: a free one); its URL is the next line"},
    {0},
};

const struct opts_table cli_target = {
    .name = "target",
    .synopsis = "[--listen ADDR:PORT] [--config FILE] [--seed N] [--tls ...] [--h2c ADDR:PORT]",
    .summary = "run the built-in fault-injecting HTTP server (for demos and tests)",
    .text = "Serves /bytes/N, /delay/MS, /status/CODE, /echo, /files/, a key-value store\n"
            "with siblings (/kv/KEY, /mp/UPLOAD/PART), /stats, /metrics and /_control on\n"
            "ADDR:PORT and prints its URL as the first line. FILE is a JSON document\n"
            "with the schema of the body of POST /_control (capacity, faults, kv,\n"
            "files_dir); N seeds the fault RNG. Runs until SIGINT or SIGTERM.\n"
            "With --tls, --cert-out or --cert it serves HTTPS (HTTP/1.1 only) and the\n"
            "URL is https://; the second line then says where the certificate is.\n"
            "With --h2c it also serves the same endpoints, faults and counters over\n"
            "HTTP/2 cleartext on ADDR:PORT, and the next line is \"h2c: URL\".\n",
    .status = status_text,
    .groups = {target_options},
};

const struct opts_table cli_sessions = {
    .name = "sessions",
    .synopsis = "[DIR ...]",
    .summary = "list the recorded sessions, the newest last",
    .text =
        "Lists the session files (*.jsonl) of each DIR, by default the state\n"
        "directory ($XDG_STATE_HOME/brink/sessions, else\n"
        "~/.local/state/brink/sessions), where a run records unless [record] dir\n"
        "is set, and sessions/ of the working directory. One line each, oldest first: when it started (UTC),\n"
        "the target, how long it ran, the requests completed, the verdict against\n"
        "its [thresholds] (pass, fail, or cut when the file has no end) and the\n"
        "file. Wherever a command takes a session file (replay, report, compare),\n"
        "last names the newest of these (./last for a file of that name).\n",
    .status = status_text,
    .groups = {no_options},
};

const struct opts_table cli_agent = {
    .name = "agent",
    .synopsis = "",
    .summary = "make load for a coordinator (brink run --agents) over stdin and stdout",
    .text = "Speaks the agent protocol (docs/agents.md) on its standard input and\n"
            "output: hello with the protocol version, the experiment (its text and the\n"
            "files it names) in, ready, start, then ticks with their histograms out and\n"
            "the console's commands in. A coordinator starts it over ssh; it is not\n"
            "meant to be run by hand. It stops the load and exits when its input\n"
            "closes or the coordinator has been silent for 5 s.\n",
    .status = status_text,
    .groups = {no_options},
};

const struct opts_table *const cli_commands[] = {
    &cli_run,   &cli_demo,   &cli_replay,   &cli_report, &cli_compare,
    &cli_check, &cli_target, &cli_sessions, &cli_agent,  NULL,
};
