#include "cmd/run.h"

#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/opts.h"
#include "cli/tables.h"
#include "config/config.h"
#include "core/board.h"
#include "core/chan.h"
#include "core/clock.h"
#include "core/exitcode.h"
#include "core/msg.h"
#include "core/stopper.h"
#include "core/tick.h"
#include "agents/coordinator.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "engine/engine.h"
#include "metrics/metrics.h"
#include "probes/probes.h"
#include "cmd/recording.h"
#include "cmd/run_output.h"
#include "core/signals.h"
#include "core/steps.h"
#include "report/formats.h"
#include "report/summary.h"
#include "ui/ui.h"
#include "cmd/verdicts.h"

/* Every key option once, and -H up to [target]'s header lines. */
#define MAX_OVERRIDES (32 + CONFIG_MAX_HEADERS)
#define MAX_MADE_VALUES 2 /* values made from an option's: -D, -T */

/* Options that stand for a key of the experiment file. */
static const struct run_key {
    int id;
    const char *section;
    const char *key;
} keys[] = {
    {CLI_RUN_URL, "target", "url"},
    {CLI_RUN_CONCURRENCY, "load", "concurrency"},
    {CLI_RUN_DURATION, "load", "duration"},
    {CLI_RUN_REQUESTS, "load", "requests"},
    {CLI_RUN_THREADS, "load", "threads"},
    {CLI_RUN_TICK, "load", "tick"},
    {CLI_RUN_TIMEOUT, "target", "timeout"},
    {CLI_RUN_RATE, "load", "rate"},
    {CLI_RUN_MAX_IN_FLIGHT, "load", "max_in_flight"},
    {CLI_RUN_FAIL_ON, "thresholds", "fail_on"},
    {CLI_RUN_RAMP, "ramp", "steps"},
    {CLI_RUN_METHOD, "request", "method"},
    {CLI_RUN_HEADER, "target", "header"},
    {CLI_RUN_BODY, "request", "body"},
    {CLI_RUN_BODY_FILE, "request", "body"},     /* @FILE */
    {CLI_RUN_CONTENT_TYPE, "target", "header"}, /* Content-Type: TYPE */
    {CLI_RUN_INSECURE, "target", "insecure"},   /* yes */
    {CLI_RUN_NO_RETRY, "target", "retry"},      /* no */
    {CLI_RUN_AGENTS, "agents", "hosts"},
};

/* Without a console nobody can press q: a run that sets no end of its own
 * stops after this (docs/config.md, brink run --help). */
#define UNATTENDED_DURATION_US (10 * 1000000ull)

struct run_args {
    const struct run_preset *preset; /* NULL for brink run */
    const struct opts_table *table;  /* cli_run, or the preset's */
    const char *config_path;
    struct config_override overrides[MAX_OVERRIDES];
    size_t n_overrides;
    uint64_t seed;
    int is_headless;
    int has_duration;           /* --duration given */
    const char *record_path;    /* --record FILE */
    int is_record_off;          /* --no-record */
    int is_ramp;                /* --ramp: start the [ramp] plan at once */
    const char *metrics_addr;   /* --metrics-listen ADDR:PORT; NULL: not served */
    uint64_t metrics_linger_us; /* --metrics-linger */
    int has_metrics_linger;
    char *made[MAX_MADE_VALUES]; /* values built from an option's ("@FILE"), owned */
    size_t n_made;
    enum run_format format; /* --format */
    const char *output;     /* -o FILE; NULL: stdout */
    int argc;               /* the command line, for the reports */
    char **argv;
};

static void run_args_free(struct run_args *a)
{
    for (size_t i = 0; i < a->n_made; i++)
        free(a->made[i]);
}

/* The value of the key an option stands for, when it is not the option's
 * own: -D FILE is body = @FILE, -T TYPE a Content-Type header line, -k
 * insecure = yes. */
static const char *key_value(struct run_args *a, const struct opts_item *it)
{
    const char *prefix;
    size_t n;
    char *v;

    switch (it->id) {
    case CLI_RUN_INSECURE: return "yes";
    case CLI_RUN_NO_RETRY: return "no";
    case CLI_RUN_BODY_FILE: prefix = "@"; break;
    case CLI_RUN_CONTENT_TYPE: prefix = "Content-Type: "; break;
    default: return it->value;
    }
    assert(a->n_made < MAX_MADE_VALUES); /* each of these options is taken once */
    n = strlen(prefix) + strlen(it->value) + 1;
    v = xmalloc(n);
    snprintf(v, n, "%s%s", prefix, it->value);
    a->made[a->n_made++] = v;
    return v;
}

static int add_override(struct run_args *a, const char *flag, const char *section, const char *key,
                        const char *value)
{
    if (a->n_overrides == MAX_OVERRIDES)
        return opts_fail(a->table, stderr, "too many options at %s", flag);
    a->overrides[a->n_overrides++] = (struct config_override){flag, section, key, value};
    return 0;
}

/* An option that stands for a key of the file: an override of it. */
static int take_key(struct run_args *a, const struct opts_item *it)
{
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        int rc;

        if (keys[k].id != it->id)
            continue;
        rc = add_override(a, it->opt->name, keys[k].section, keys[k].key, key_value(a, it));
        /* A rate asked for on the command line is a rate to keep. */
        if (rc == 0 && it->id == CLI_RUN_RATE)
            rc = add_override(a, it->opt->name, "load", "mode", "rate");
        return rc;
    }
    return opts_fail(a->table, stderr, "%s is not handled", it->opt->name);
}

static int has_url(const struct run_args *a)
{
    for (size_t i = 0; i < a->n_overrides; i++) {
        if (strcmp(a->overrides[i].key, "url") == 0)
            return 1;
    }
    return 0;
}

/* A file named where a URL is expected ("brink run config/x.ini"): the
 * error says to give it with -f. Returns BRINK_EXIT_USAGE, or 0 when value
 * is not an existing file (or reads as a URL). */
static int file_for_url(const char *flag, const char *value)
{
    char shown[MSG_SHOWN_MAX];
    struct stat st;

    if (strstr(value, "://") || stat(value, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    msg_show(value, shown, sizeof(shown));
    msg_print(stderr, "brink: run: %s: \"%s\" is a file, not a URL: did you mean -f %s?", flag,
              shown, shown);
    return BRINK_EXIT_USAGE;
}

static int take_option(struct run_args *a, const struct opts_item *it)
{
    char shown[MSG_SHOWN_MAX];
    char *end;

    switch (it->id) {
    case OPTS_OPERAND:
        /* brink run [OPTIONS] URL: the URL alone stands for --url. */
        if (a->preset || has_url(a))
            return opts_fail(a->table, stderr, "unexpected argument \"%s\"%s",
                             msg_show(it->value, shown, sizeof(shown)),
                             a->preset ? "" : " (the URL is given already)");
        if (file_for_url("URL", it->value))
            return BRINK_EXIT_USAGE;
        return add_override(a, "URL", "target", "url", it->value);
    case CLI_RUN_HEADLESS: a->is_headless = 1; return 0;
    case CLI_DEMO_TLS: return 0; /* demo_main read it: the target is already up */
    case CLI_RUN_NO_RECORD: a->is_record_off = 1; return 0;
    case CLI_RUN_RECORD: a->record_path = it->value; return 0;
    case CLI_RUN_OUTPUT: a->output = it->value; return 0;
    case CLI_RUN_FORMAT:
        if (run_output_format(it->value, &a->format) != 0)
            return opts_fail(a->table, stderr, "--format: expected text, json or csv, got \"%s\"",
                             msg_show(it->value, shown, sizeof(shown)));
        return 0;
    case CLI_RUN_CONFIG: a->config_path = it->value; return 0;
    case CLI_RUN_METRICS_LISTEN: a->metrics_addr = it->value; return 0;
    case CLI_RUN_METRICS_LINGER: {
        char why[128];

        a->has_metrics_linger = 1;
        if (units_parse_duration(it->value, &a->metrics_linger_us, why, sizeof(why)) != 0)
            return opts_fail(a->table, stderr, "--metrics-linger: %s", why);
        return 0;
    }
    case CLI_RUN_SEED:
        errno = 0;
        a->seed = strtoull(it->value, &end, 10);
        if (errno || end == it->value || *end || it->value[0] == '-')
            return opts_fail(a->table, stderr,
                             "--seed: expected a non-negative integer, got \"%s\"",
                             msg_show(it->value, shown, sizeof(shown)));
        return 0;
    case CLI_RUN_RAMP:
        /* --ramp alone starts the file's plan; --ramp=1,8,16 gives its steps. */
        a->is_ramp = 1;
        return it->value ? take_key(a, it) : 0;
    case CLI_RUN_DURATION: a->has_duration = 1; return take_key(a, it);
    case CLI_RUN_URL:
        if (has_url(a))
            return opts_fail(a->table, stderr, "--url: the URL is given already");
        if (file_for_url("--url", it->value))
            return BRINK_EXIT_USAGE;
        return take_key(a, it);
    default: return take_key(a, it);
    }
}

static int parse_args(int argc, char **argv, struct run_args *a)
{
    struct opts_parser p;
    struct opts_item it;
    char err[OPTS_ERR_MAX];
    int rc;

    opts_start(&p, a->table, argc, argv);
    while ((rc = opts_next(&p, &it, err, sizeof(err))) != 0) {
        if (rc < 0)
            return opts_fail(a->table, stderr, "%s", err);
        rc = take_option(a, &it);
        if (rc != 0)
            return rc;
    }
    if (a->has_metrics_linger && !a->metrics_addr)
        return opts_fail(a->table, stderr, "--metrics-linger needs --metrics-listen");
    return 0;
}

static int load_config(const struct run_args *a, struct config *c)
{
    struct config_opts opts = {.overrides = a->overrides, .n_overrides = a->n_overrides};

    config_init(c);
    if (a->preset)
        return config_load_string(c, a->preset->name, a->preset->config, &opts, stderr);
    if (a->config_path)
        return config_load_file(c, a->config_path, &opts, stderr);
    return config_load_string(c, "command line", "", &opts, stderr);
}

/* How long after a stop command the engine may take to close the channel
 * before the run gives up on it: the drain, plus room for a loaded machine. */
#define STOP_GRACE_MS (ENGINE_DRAIN_MS + 5000)
/* A stop while the run is being set up (the files read, the session
 * opened, the engine and its scripts' setup, the agents' logins) ends it
 * within this long, whatever the set-up is stuck in. */
#define SETUP_GRACE_MS 1000
/* After STOP_GRACE_MS the front end gives up on the engine itself; the
 * signal thread ends the run this much later if the front end is stuck. */
#define LAST_RESORT_SLACK_MS 1000

/*
 * What the signal thread's last resort reaches (signals_arm): the session,
 * and whether the run has closed it. The lock hands the session to one
 * closer: the main thread at the run's end, or the last resort.
 */
static struct {
    pthread_mutex_t lock;
    struct recording *recording; /* NULL: none, or not yet open */
    int is_loading;              /* the front end follows the load */
    int is_closed;               /* the session is closed (or discarded) */
} ending = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void say(const char *line)
{
    size_t n = strlen(line);

    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, line, n);

        if (w <= 0)
            return;
        line += w;
        n -= (size_t)w;
    }
}

/* The run did not end within the grace of a stop (core/signals.h): on the signal
 * thread, while the main thread is stuck (a script, a lookup, a child).
 * Puts the terminal back, closes the session with its trailer, and exits.
 * Before the load started nothing was lost: the session is complete, with
 * no ticks. */
static void last_resort(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&ending.lock);
    if (ending.is_closed) {
        /* The run closed its session and is tearing down: let it. */
        pthread_mutex_unlock(&ending.lock);
        signals_disarm();
        return;
    }
    ui_restore_now();
    if (ending.is_loading) {
        char line[128];

        snprintf(line, sizeof(line),
                 "brink: run: the run did not end within %d ms of the stop; exiting\n",
                 STOP_GRACE_MS + LAST_RESORT_SLACK_MS);
        say(line);
        recording_close(ending.recording, 0, "the engine did not stop");
    } else {
        say("brink: run: stopped during set-up, before the load started\n");
        recording_close(ending.recording, 1, "stopped before the start");
    }
    _exit(BRINK_EXIT_RUNTIME);
}

/* Closes the session once, from the main thread: see ending. */
static int close_session(int is_complete, const char *reason)
{
    int rc = 0;

    pthread_mutex_lock(&ending.lock);
    if (!ending.is_closed)
        rc = recording_stop(ending.recording, is_complete, reason);
    ending.is_closed = 1;
    ending.recording = NULL;
    pthread_mutex_unlock(&ending.lock);
    return rc;
}

/* Commands typed (or piped) on standard input, one a line. */
struct input {
    int is_open;
    char buf[CMD_NOTE_MAX + 64];
    size_t len;
    unsigned lineno;
    int is_skipping; /* the current line was too long; drop it to its end */
};

static void send_line(struct chan *ch, struct input *in, const char *line)
{
    struct command cmd;
    char why[256];
    int rc = command_parse(line, &cmd, why, sizeof(why));

    if (rc < 0)
        msg_print(stderr, "brink: run: stdin:%u: %s", in->lineno, why);
    else if (rc > 0 && chan_send(ch, &cmd) != 0)
        msg_print(stderr, "brink: run: stdin:%u: too many commands at once, dropped", in->lineno);
}

/* Reads what standard input has (it is readable) and sends whole lines. */
static void read_input(struct chan *ch, struct input *in)
{
    char chunk[512];
    ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));

    if (n <= 0) {
        /* End of input (or /dev/null): the run goes on without commands. */
        if (n == 0 || (errno != EINTR && errno != EAGAIN))
            in->is_open = 0;
        return;
    }
    for (ssize_t i = 0; i < n; i++) {
        if (chunk[i] == '\n') {
            in->lineno++;
            in->buf[in->len] = '\0';
            if (in->is_skipping)
                msg_print(stderr, "brink: run: stdin:%u: line longer than %zu bytes, ignored",
                          in->lineno, sizeof(in->buf) - 1);
            else
                send_line(ch, in, in->buf);
            in->len = 0;
            in->is_skipping = 0;
        } else if (in->len + 1 < sizeof(in->buf)) {
            in->buf[in->len++] = chunk[i];
        } else {
            in->is_skipping = 1;
        }
    }
}

/* Waits up to timeout_ms for input or a tick; reads the input if any. */
static struct tick *wait_next(struct chan *ch, struct input *in, int timeout_ms)
{
    struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};

    if (!in->is_open)
        return chan_take_wait(ch, (unsigned)timeout_ms);
    /* Ticks are checked often enough (every 50 ms) for the progress lines
     * to keep up; commands are read as soon as they arrive. */
    if (poll(&p, 1, 50) > 0) {
        if (p.revents & (POLLIN | POLLHUP | POLLERR))
            read_input(ch, in);
        if (p.revents & POLLNVAL)
            in->is_open = 0;
    }
    return chan_take(ch);
}

/* Where each tick goes after the front end has it: the final report, the
 * session file and the metrics endpoint. */
struct sinks {
    struct summary *summary;
    struct run_output *output; /* the report in its format (CSV rows as they come) */
    struct steps *steps;       /* the step table, printed when the load changed */
    struct recording *recording;
    struct metrics *metrics; /* NULL without --metrics-listen */
    int has_told_problem;    /* headless: the recording's problem was printed */
};

static void take_tick(void *arg, const struct tick *t)
{
    struct sinks *k = arg;

    summary_add_tick(k->summary, t);
    steps_add_tick(k->steps, t);
    recording_push(k->recording, t);
    run_output_tick(k->output, t);
    if (k->metrics)
        metrics_add_tick(k->metrics, t);
}

/*
 * Reads ticks until the engine closes the channel; turns signals into stop
 * commands (a second one, or SIGHUP, aborts what is in flight) and passes on commands
 * from standard input. Returns 0, or -ETIMEDOUT when the engine did not end
 * within STOP_GRACE_MS of a stop: brink must never hang on the operator.
 */
static int follow(struct chan *ch, struct sinks *k)
{
    struct input in = {.is_open = 1};
    struct stopper st;

    stopper_init(&st, STOP_GRACE_MS);
    while (!chan_is_done(ch)) {
        struct tick *t = wait_next(ch, &in, 200);

        /* SIGHUP stops at once, as in the console: two stops, the second
         * aborting what is in flight instead of draining it. */
        unsigned stops = (unsigned)signals_stops + (signals_hangup ? 2 : 0);

        if (stopper_update(&st, ch, stops, clock_now_ns()) != 0) {
            tick_free(t);
            return -ETIMEDOUT;
        }
        if (!t)
            continue;
        take_tick(k, t);
        summary_print_tick(t, stderr);
        if (recording_problem(k->recording)[0] && !k->has_told_problem) {
            msg_print(stderr, "brink: run: %s; the run goes on", recording_problem(k->recording));
            k->has_told_problem = 1;
        }
        tick_free(t);
    }
    return 0;
}

/* What the console's header names as the target: the URL as written (with
 * ${ENV} references, not their values), secrets redacted. */
static void target_label(const struct config *c, char *out, size_t cap)
{
    char shown[512];

    run_kind_url(c, 0, shown, sizeof(shown));
    if (c->n_requests > 1)
        snprintf(out, cap, "%s (+%u more kinds)", shown, c->n_requests - 1);
    else
        snprintf(out, cap, "%s", shown);
}

/* The console when it can open, else headless; -ETIMEDOUT as follow. */
static int front_end(const struct run_args *a, const struct config *c, struct chan *ch,
                     struct sinks *k)
{
    struct ui_params p = {
        .chan = ch,
        .recording = recording_path(k->recording),
        .recording_problem = recording_problem(k->recording),
        .on_tick = take_tick,
        .on_tick_arg = k,
        .stop_signals = &signals_stops,
        .hangup = &signals_hangup,
        .stop_grace_ms = STOP_GRACE_MS,
    };
    struct ui *ui;
    char why[256], target[600];
    int end;

    /* The load runs: a stop drains it, and the front end gives up on an
     * engine that does not end within STOP_GRACE_MS. */
    pthread_mutex_lock(&ending.lock);
    ending.is_loading = 1;
    pthread_mutex_unlock(&ending.lock);
    signals_arm(STOP_GRACE_MS + LAST_RESORT_SLACK_MS, last_resort, NULL);
    if (a->is_headless || !isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return follow(ch, k);
    if (ui_open(&ui, why, sizeof(why)) != 0) {
        msg_print(stderr, "brink: run: no console (%s); running headless", why);
        return follow(ch, k);
    }
    target_label(c, target, sizeof(target));
    p.target = target;
    end = ui_run(ui, &p);
    ui_close(ui);
    return end == UI_END_STUCK ? -ETIMEDOUT : 0;
}

/* What runs beside the front end: the probes and the engine, which share
 * one clock origin and the board the probes write and the engine reads. */
struct run_threads {
    struct board *board;
    struct probes *probes;
    struct engine *engine; /* the load made here, or */
    struct coord *coord;   /* by agents ([agents] hosts) */
    char failure[512];     /* why the [scenario] script failed before the load */
};

/* The coordinator's hook: each agent's own tick into the session file. */
static void push_agent_tick(void *rec, const struct tick *t)
{
    recording_push_agent(rec, t);
}

/* Probes first, so a probe that cannot start leaves no load running. Returns
 * 0 or the exit status (the reason printed), or -EINTR when a stop came
 * while the agents were starting or a script was being set up (nothing
 * runs). */
static int start_threads(const struct run_args *a, const struct config *c, struct chan *ch,
                         struct recording *rec, struct run_threads *th)
{
    struct coord_params cp = {.config = c,
                              .config_path = a->config_path,
                              .overrides = a->overrides,
                              .n_overrides = a->n_overrides,
                              .seed = a->seed,
                              .start_ramp = a->is_ramp,
                              .chan = ch,
                              .board = th->board,
                              .on_agent_tick = rec ? push_agent_tick : NULL,
                              .on_agent_tick_arg = rec};
    /* With agents, the probes on = agents run there (brink agent). */
    struct probes_params pp = {.config = c,
                               .which = c->agents.n_hosts ? PROBES_COORDINATOR : PROBES_ALL,
                               .board = th->board,
                               .start_ns = clock_now_ns(),
                               .allow_commands = 1};
    struct engine_params ep = {.config = c,
                               .chan = ch,
                               .seed = a->seed,
                               .board = th->board,
                               .start_ns = pp.start_ns,
                               .start_ramp = a->is_ramp};
    char err[512] = "";
    sigset_t all, old;
    int rc;

    /* The new threads inherit this mask: signals reach this thread only. */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    rc = probes_start(&pp, err, sizeof(err), &th->probes);
    if (rc == 0 && c->agents.n_hosts) {
        rc = coord_start(&cp, err, sizeof(err), &th->coord);
        if (rc != 0) {
            probes_stop(th->probes);
            th->probes = NULL;
            pthread_sigmask(SIG_SETMASK, &old, NULL);
            if (rc != -EINTR)
                msg_print(stderr, "%s", err);
            return rc;
        }
    } else if (rc == 0) {
        rc = engine_start(&ep, err, sizeof(err), &th->engine);
        if (rc != 0) {
            probes_stop(th->probes);
            th->probes = NULL;
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    /* A stop interrupted the script's top level or setup(): as a stop
     * during the agents' start-up. */
    if (rc == 0 || rc == -EINTR)
        return rc;
    msg_print(stderr, "%s", err);
    /* The script failed there: run_load keeps the session to say so. */
    if (rc == -ENOEXEC) {
        snprintf(th->failure, sizeof(th->failure), "%s", err);
        return rc;
    }
    /* Limits and probe settings are the operator's to fix: usage errors. */
    return rc == -EMFILE || rc == -EPERM || rc == -EINVAL ? BRINK_EXIT_USAGE : BRINK_EXIT_RUNTIME;
}

/* --metrics-listen: the endpoint up before the load starts, so a bad
 * address starts nothing; its series are labelled with the session's name.
 * Returns 0 or the exit status (the reason printed). */
static int start_metrics(const struct run_args *a, struct sinks *k)
{
    char err[512], url[128], run_id[256];
    int rc;

    if (!a->metrics_addr)
        return 0;
    recording_run_id(k->recording, run_id, sizeof(run_id));
    rc = metrics_start(a->metrics_addr, run_id, url, sizeof(url), err, sizeof(err), &k->metrics);
    if (rc != 0) {
        msg_print(stderr, "%s", err);
        return rc == -EINVAL ? BRINK_EXIT_USAGE : BRINK_EXIT_RUNTIME;
    }
    msg_print(stderr, "brink: run: metrics at %s/metrics", url);
    return 0;
}

/* After the last tick: --metrics-linger waits for a scrape of the final
 * figures, so a Prometheus scraping every few seconds sees the run whole. */
static void stop_metrics(const struct run_args *a, struct metrics *m)
{
    char d[32];

    if (!m)
        return;
    if (a->metrics_linger_us > 0 &&
        metrics_linger(m, (a->metrics_linger_us + 999) / 1000) == -ETIMEDOUT)
        msg_print(stderr, "brink: run: --metrics-linger: no scrape of the final figures within %s",
                  units_format_duration(a->metrics_linger_us, d, sizeof(d)));
    metrics_stop(m);
}

static int has_console(const struct run_args *a);

static int run_load(const struct run_args *a, const struct config *c)
{
    struct chan *ch = chan_new(CHAN_TICKS_DEFAULT, CHAN_COMMANDS_DEFAULT);
    struct run_threads th = {.board = board_new()};
    struct sinks k = {.summary = summary_new(), .steps = steps_new()};
    struct run_facts *facts = xmalloc(sizeof(*facts));
    unsigned n_failed;
    char err[1400];
    int rc, is_stuck, failed;

    run_facts_init(facts, c, a->argc, a->argv);
    /* The report's file, then the session's: a path that cannot be written
     * starts nothing. */
    if (run_output_open(a->format, a->output, has_console(a), &facts->meta, &k.output) != 0) {
        rc = BRINK_EXIT_RUNTIME;
        goto out_free;
    }
    pthread_mutex_lock(&ending.lock);
    rc = recording_start(c, &facts->header, a->record_path, a->is_record_off, err, sizeof(err),
                         &k.recording);
    ending.recording = k.recording;
    pthread_mutex_unlock(&ending.lock);
    if (rc != 0) {
        msg_print(stderr, "%s", err);
        rc = BRINK_EXIT_USAGE;
        goto out_free;
    }
    rc = start_metrics(a, &k);
    if (rc == 0)
        rc = start_threads(a, c, ch, k.recording, &th);
    if (rc == -EINTR) {
        /* Stopped before the load started: nothing ran, nothing was lost. */
        msg_print(stderr, "brink: run: stopped during set-up, before the load started");
        close_session(1, "stopped before the start");
        metrics_stop(k.metrics);
        rc = BRINK_EXIT_RUNTIME;
        goto out_free;
    }
    if (rc == -ENOEXEC) {
        /* The script ran and failed before the load: its session says why
         * (brink report reads it), as a stop's does. */
        char reason[600];

        snprintf(reason, sizeof(reason), "script failed before the start: %s",
                 strncmp(th.failure, "brink: ", 7) == 0 ? th.failure + 7 : th.failure);
        close_session(1, reason);
        metrics_stop(k.metrics);
        rc = BRINK_EXIT_USAGE;
        goto out_free;
    }
    if (rc != 0) {
        pthread_mutex_lock(&ending.lock);
        recording_discard(k.recording);
        ending.recording = NULL;
        ending.is_closed = 1;
        pthread_mutex_unlock(&ending.lock);
        metrics_stop(k.metrics);
        goto out_free;
    }
    is_stuck = front_end(a, c, ch, &k) != 0;
    if (is_stuck) {
        /* The workers are stuck; report what ran and leave them behind. */
        msg_print(stderr, "brink: run: the engine did not stop within %d ms of the stop; exiting",
                  STOP_GRACE_MS);
        close_session(0, "the engine did not stop");
        run_output_close(k.output, k.summary, k.steps, NULL, &n_failed);
        run_facts_free(facts);
        free(facts);
        metrics_stop(k.metrics);
        coord_free(th.coord);
        return BRINK_EXIT_RUNTIME;
    }
    probes_stop(th.probes);
    if (th.coord)
        coord_join(th.coord);
    else
        engine_join(th.engine);
    failed = th.coord ? coord_failed(th.coord, err, sizeof(err)) : 0;
    if (chan_dropped(ch))
        msg_print(stderr, "brink: run: %llu ticks were dropped before they were shown",
                  (unsigned long long)chan_dropped(ch));
    rc = run_output_close(k.output, k.summary, k.steps, &c->thresholds.fail_on, &n_failed) == 0
             ? BRINK_EXIT_OK
             : BRINK_EXIT_RUNTIME;
    k.output = NULL;
    /* The demo is meant to break: it shows its verdicts but exits 0. */
    if (n_failed && rc == 0 && !a->preset)
        rc = BRINK_EXIT_VERDICT;
    if (close_session(!chan_dropped(ch), signals_stops ? "stopped" : "done") != 0)
        rc = BRINK_EXIT_RUNTIME;
    fflush(stdout);
    if (failed) {
        msg_print(stderr, "%s", err);
        rc = failed;
    }
    stop_metrics(a, k.metrics);
    engine_free(th.engine);
    coord_free(th.coord);
out_free:
    /* Set up failed: no report, and no half-made -o FILE left behind. */
    if (k.output)
        run_output_discard(k.output);
    run_facts_free(facts);
    free(facts);
    board_free(th.board);
    summary_free(k.summary);
    steps_free(k.steps);
    chan_free(ch);
    return rc;
}

/* Whether the run will have the console: not --headless, stdin and stdout
 * a terminal, TERM set and not dumb (front_end still falls back to
 * headless when the terminal cannot be opened). */
static int has_console(const struct run_args *a)
{
    const char *term = getenv("TERM");

    return !a->is_headless && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && term && *term &&
           strcmp(term, "dumb") != 0;
}

/* Without a console nobody can press q: a preset that says so stops by
 * itself unless --duration says otherwise. */
static int add_unattended_duration(struct run_args *a)
{
    const struct run_preset *pr = a->preset;
    int is_console = has_console(a);

    if (!pr || !pr->unattended_duration || a->has_duration || is_console)
        return 0;
    msg_print(stderr, "brink: %s: no console, so it stops after %s (--duration to change)",
              pr->name, pr->unattended_duration);
    return add_override(a, "--duration", "load", "duration", pr->unattended_duration);
}

/* brink run without a console and with no end of its own (no [load]
 * duration or requests set, no --ramp plan) stops after
 * UNATTENDED_DURATION_US, so that a CI job cannot hang on it; the session
 * records the duration it ran with. duration = 0 set anywhere keeps it
 * running until stopped. */
static void end_unattended(const struct run_args *a, struct config *c)
{
    struct config_load *l = &c->load;

    if (has_console(a) || a->is_ramp || l->key_line[CONFIG_LOAD_DURATION] ||
        l->key_line[CONFIG_LOAD_REQUESTS])
        return;
    l->duration_us = UNATTENDED_DURATION_US;
    l->key_line[CONFIG_LOAD_DURATION] = CONFIG_LINE_COMMAND_LINE;
    msg_print(stderr,
              "brink: run: no console and no end set, so it stops after %llus (--duration to "
              "change, --duration 0 runs until stopped)",
              UNATTENDED_DURATION_US / 1000000ull);
}

/* No URL and no file: says so, and names the option that took a URL as its
 * value ("-c http://..." when the -c value was forgotten). */
static void no_target(const struct run_args *a)
{
    char shown[256];

    for (size_t i = 0; i < a->n_overrides; i++) {
        if (strstr(a->overrides[i].value, "://")) {
            msg_print(stderr,
                      "brink: run: no target: %s took \"%s\" as its value (expected a value "
                      "of its own before the URL)",
                      a->overrides[i].flag, msg_show(a->overrides[i].value, shown, sizeof(shown)));
            return;
        }
    }
    msg_print(stderr, "brink: run: no target (expected a URL, --url URL or --config FILE)");
}

static int run_args_given(int argc, char **argv, struct run_args *a)
{
    const struct run_preset *preset = a->preset;
    struct config c;
    char err[256];
    int rc;

    rc = parse_args(argc, argv, a);
    if (rc == 0)
        rc = add_unattended_duration(a);
    if (rc != 0)
        return rc;
    if (!preset && !a->config_path && !has_url(a)) {
        no_target(a);
        return BRINK_EXIT_USAGE;
    }
    /* From here a stop ends the run whatever the set-up is doing. */
    signals_install();
    signals_arm(SETUP_GRACE_MS, last_resort, NULL);
    if (load_config(a, &c) != 0)
        return BRINK_EXIT_USAGE;
    if (!preset)
        end_unattended(a, &c);
    if (a->is_ramp && c.ramp.n_steps == 0) {
        msg_print(stderr,
                  "brink: --ramp: %s has no [ramp] steps (expected a [ramp] section with "
                  "steps = 1, 8, 16, 32, or --ramp=1,8,16,32)",
                  a->config_path ? "the config" : "the command line");
        config_free(&c);
        return BRINK_EXIT_USAGE;
    }
    if (engine_global_init(err, sizeof(err)) != 0) {
        msg_print(stderr, "%s", err);
        config_free(&c);
        return BRINK_EXIT_RUNTIME;
    }
    rc = run_load(a, &c);
    engine_global_cleanup();
    config_free(&c);
    return rc;
}

int run_preset_main(int argc, char **argv, const struct run_preset *preset)
{
    struct run_args a = {
        .preset = preset, .table = preset ? preset->options : &cli_run, .argc = argc, .argv = argv};
    int rc = run_args_given(argc, argv, &a);

    run_args_free(&a);
    return rc;
}

int run_main(int argc, char **argv)
{
    return run_preset_main(argc, argv, NULL);
}
