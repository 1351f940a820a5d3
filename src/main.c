/*
 * brink: command-line parsing and dispatch. Wiring only: each command lives
 * in its module; this file reads the arguments, calls it and maps the
 * result to the exit status (0 success, 1 runtime failure, 2 usage or
 * config error).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "core/msg.h"
#include "demo.h"
#include "replay.h"
#include "report_cmd.h"
#include "run.h"
#include "target/target.h"

#include "core/exitcode.h"

struct cmd {
    const char *name;
    const char *summary;
    const char *help; /* the text of 'brink NAME --help' after its usage line */
    const char *usage;
    int (*run)(int argc, char **argv);
};

static int cmd_check(int argc, char **argv);

static const struct cmd commands[] = {
    {
        .name = "run",
        .usage = "brink run (--url URL | --config FILE) [OPTIONS]",
        .summary = "load a server and report throughput, latency and errors",
        .help = "Runs virtual users (closed model: each sends, waits for the reply, sends\n"
                "again) against the target. In a terminal it opens the console: live\n"
                "throughput, latency, errors and events, and keys that change the load\n"
                "while it runs (? lists them). Otherwise (--headless, stdout or stdin not a\n"
                "terminal, TERM unset or dumb) one progress line per tick goes to stderr.\n"
                "Either way the final report goes to stdout (format: docs/report.md).\n"
                "q, Ctrl-C or SIGTERM stops the load, waits up to 5 s for requests in\n"
                "flight and still prints the report; a second one aborts them. SIGHUP (a\n"
                "dropped SSH session) stops the load at once. Every run is recorded into a\n"
                "new file of sessions/ ([record] dir) for brink replay and brink report.\n"
                "\n"
                "options (each overrides the same key of FILE):\n"
                "  --config FILE         experiment file (see docs/config.md)\n"
                "  --url URL             [target] url\n"
                "  --concurrency N       [load] concurrency, virtual users (default 10)\n"
                "  --duration D          [load] duration, e.g. 30s (default: until stopped)\n"
                "  --requests N          [load] requests, stop after N (default: no limit)\n"
                "  --threads N           [load] threads, engine workers (default 1)\n"
                "  --tick D              [load] tick, the reporting interval (default 1s)\n"
                "  --timeout D           [target] timeout per request (default 30s)\n"
                "  --rate R              [load] rate with mode = rate: R requests/s on a fixed\n"
                "                        schedule, latency from each intended start\n"
                "  --max-in-flight N     [load] max_in_flight under the open model (default 1000)\n"
                "  --seed N              seed for {rand}, {uuid} and the request mix\n"
                "  --ramp                start the file's [ramp] plan at once\n"
                "  --ramp=N,N,...        the same with these steps ([ramp] steps)\n"
                "  --fail-on 'EXPR, ...' [thresholds] fail_on: conditions on the whole run,\n"
                "                        e.g. 'error_rate > 1%, p99 > 200ms'; any that holds\n"
                "                        makes the run exit 3 (default error_rate > 1%;\n"
                "                        none: never)\n"
                "  --headless            no console, even in a terminal\n"
                "  --record FILE         record the session into FILE (never overwritten)\n"
                "  --no-record           no session file ([record] enabled = no does the same)\n"
                "\n"
                "Console keys: + and - step, ] and [ double and halve, = an exact\n"
                "concurrency, p pause/resume, d drop N connections, m mark, o closed/open\n"
                "model, l corrected/service latency, r start/stop the ramp plan, n its next\n"
                "step, t the step table, ? help, q quit.\n"
                "Headless, the same commands can be typed or piped on stdin, one a line:\n"
                "  concurrency N (or = N), step [N], + and -, double (]), halve ([),\n"
                "  pause (p), resume (r), drop N (d N), mark TEXT (m TEXT), stop (q),\n"
                "  rate N[/s], model [open|closed] (o), ramp, next\n",
        .run = run_main,
    },
    {
        .name = "demo",
        .usage = "brink demo [--headless] [--duration D] [--concurrency N] [--seed N]",
        .summary = "the console against the built-in target, which breaks as load grows",
        .help = "Starts the built-in target (brink target) inside this process on a free\n"
                "port of 127.0.0.1 and opens the console on it, loading a write-heavy mix\n"
                "of PUT and GET on eight keys with 2 virtual users. The target breaks in\n"
                "known ways: concurrent writes to a key pile up siblings, four workers\n"
                "with a queue of 12 answer 503 once about 16 requests wait, and\n"
                "connections beyond 48 are reset. Press ] a few times and watch the\n"
                "latency, the 503s and the resets arrive; q stops and prints the report.\n"
                "Or press r (or start with --ramp): a plan doubles the users every 6 s\n"
                "from 2 to 64, names the step where the 503s start, and goes back one.\n"
                "Takes the options of brink run except --url and --config.\n",
        .run = demo_main,
    },
    {
        .name = "replay",
        .usage = "brink replay FILE [--headless]",
        .summary = "play a recorded session again in the console",
        .help = "Plays the session file FILE (recorded by brink run or brink demo) in the\n"
                "console at the pace it was recorded: space pauses and plays, the left and\n"
                "right arrows move 10 s, < and > halve and double the speed (x0.5 to x16),\n"
                "n and N jump to the next and previous tick with events, q ends. A cut or\n"
                "damaged file plays up to the damage and says which line. Replay never\n"
                "opens a connection and never runs a probe. Without a terminal (or with\n"
                "--headless) it prints the ticks as progress lines. Then the session's\n"
                "report follows, as brink run prints it.\n",
        .run = replay_main,
    },
    {
        .name = "report",
        .usage = "brink report FILE [--format text|json|csv|csv-steps|hdr|hdr-failed] [--fail-on EXPR]",
        .summary = "print a recorded session's report and step table",
        .help = "Reads the session file FILE and prints, by --format:\n"
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
                "Layouts: docs/report.md. A cut or damaged file is read up to the damage;\n"
                "stderr names the line.\n",
        .run = report_main,
    },
    {
        .name = "compare",
        .usage = "brink compare A B [C ...] [--label NAME ...]",
        .summary = "the step tables of several sessions side by side",
        .help = "Reads two or more session files (up to 16) and prints their step tables\n"
                "side by side: one row per concurrency (or rate) level any of them held,\n"
                "one column group per session (req/s, p50, p99, errors), blank where a\n"
                "session did not run that level. Each --label names a session in order;\n"
                "by default a session is named by its file name.\n",
        .run = compare_main,
    },
    {
        .name = "check",
        .usage = "brink check FILE",
        .summary = "validate an experiment file and print the configuration brink reads from it",
        .help = "Reads FILE (INI, see config/ and docs/config.md), reports every error in it\n"
                "as FILE:LINE: [section] key: what is wrong, and exits 2 if there is any.\n"
                "Otherwise prints the effective configuration, every key with its value or\n"
                "default, ${ENV} references as written and secrets redacted, and exits 0.\n",
        .run = cmd_check,
    },
    {
        .name = "target",
        .usage = "brink target [--listen ADDR:PORT] [--config FILE] [--seed N]",
        .summary = "run the built-in fault-injecting HTTP server (for demos and tests)",
        .help = "Serves /bytes/N, /delay/MS, /status/CODE, /echo, /files/, a key-value store\n"
                "with siblings (/kv/KEY, /mp/UPLOAD/PART), /stats, /metrics and /_control on\n"
                "ADDR:PORT (default 127.0.0.1:0, a free port; [::1]:PORT for IPv6) and prints\n"
                "its URL as the first line. FILE is a JSON document with the schema of the\n"
                "body of POST /_control (capacity, faults, kv, files_dir); N seeds the fault\n"
                "RNG. Runs until SIGINT or SIGTERM.\n",
        .run = target_main,
    },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_usage(FILE *out)
{
    fprintf(out, "usage: brink [--help] [--version] COMMAND [ARGS]\n"
                 "\n"
                 "brink is a terminal stress-test console for servers: it loads a server,\n"
                 "shows throughput, latency, errors and the server's own counters live,\n"
                 "and records every session for replay, reports and comparisons.\n"
                 "\n"
                 "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n"
                 "Run 'brink COMMAND --help' for the options of a command.\n"
                 "exit status: 0 success, 1 runtime failure, 2 usage or config error,\n"
                 "3 a threshold or a ramp step failed (brink run)\n");
}

static void print_command_help(const struct cmd *c)
{
    printf("usage: %s\n\n%s\n%s", c->usage, c->summary, c->help);
    printf("\nexit status: 0 success, 1 runtime failure, 2 usage or config error,\n"
           "3 a threshold or a ramp step failed (brink run)\n");
}

static int is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

static int cmd_check(int argc, char **argv)
{
    struct config c;
    char buf[80];
    int rc;

    if (argc != 2) {
        if (argc < 2)
            msg_print(stderr, "brink: check: missing FILE (usage: brink check FILE)");
        else
            msg_print(stderr, "brink: check: unexpected argument \"%s\" (usage: brink check FILE)",
                      msg_show(argv[2], buf, sizeof(buf)));
        return BRINK_EXIT_USAGE;
    }
    if (argv[1][0] == '-') {
        msg_print(stderr, "brink: check: unknown option \"%s\" (usage: brink check FILE)",
                  msg_show(argv[1], buf, sizeof(buf)));
        return BRINK_EXIT_USAGE;
    }
    config_init(&c);
    rc = config_load_file(&c, argv[1], NULL, stderr);
    if (rc == 0 && config_show(&c, stdout) != 0) {
        msg_print(stderr, "brink: check: writing the configuration failed: %s",
                  msg_errno(EIO).text);
        config_free(&c);
        return BRINK_EXIT_RUNTIME;
    }
    config_free(&c);
    return rc == 0 ? BRINK_EXIT_OK : BRINK_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    char buf[80];

    if (argc < 2) {
        print_usage(stderr);
        return BRINK_EXIT_USAGE;
    }
    if (is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
        print_usage(stdout);
        return BRINK_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("brink %s\n", BRINK_VERSION);
        return BRINK_EXIT_OK;
    }
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (strcmp(argv[1], commands[i].name) != 0)
            continue;
        for (int j = 2; j < argc; j++) {
            if (is_help(argv[j])) {
                print_command_help(&commands[i]);
                return BRINK_EXIT_OK;
            }
        }
        return commands[i].run(argc - 1, argv + 1);
    }
    if (argv[1][0] == '-')
        msg_print(stderr, "brink: unknown option \"%s\" (expected --help or --version)",
                  msg_show(argv[1], buf, sizeof(buf)));
    else
        msg_print(stderr, "brink: unknown command \"%s\" (run 'brink --help' for the list)",
                  msg_show(argv[1], buf, sizeof(buf)));
    return BRINK_EXIT_USAGE;
}
