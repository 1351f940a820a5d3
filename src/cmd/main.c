/*
 * brink: command-line parsing and dispatch. Wiring only: each command lives
 * in its module and its options in its table (src/cli/tables.c); this file
 * finds the command, answers --help from its table and calls it. Exit
 * statuses: src/core/exitcode.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/opts.h"
#include "cli/tables.h"
#include "agents/agent.h"
#include "config/config.h"
#include "core/msg.h"
#include "core/suggest.h"
#include "cmd/demo.h"
#include "probes/probes.h"
#include "cmd/replay.h"
#include "cmd/report_cmd.h"
#include "cmd/run.h"
#include "cmd/sessions.h"
#include "core/signals.h"
#include "script/script.h"
#include "target/target.h"
#include "cmd/version.h"

#include "core/exitcode.h"

/* Each command's code; its name, usage and options are in its table. */
struct cmd {
    const struct opts_table *table;
    int (*run)(int argc, char **argv);
    int takes_sessions; /* its operands are session files: "last" is the newest */
};

static int cmd_check(int argc, char **argv);

static const struct cmd commands[] = {
    {&cli_run, run_main, 0},       {&cli_demo, demo_main, 0},         {&cli_replay, replay_main, 1},
    {&cli_report, report_main, 1}, {&cli_compare, compare_main, 1},   {&cli_check, cmd_check, 0},
    {&cli_target, target_main, 0}, {&cli_sessions, sessions_main, 0}, {&cli_agent, agent_main, 0},
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_usage(FILE *out)
{
    char usage[128];

    opts_usage(&cli_top, usage, sizeof(usage));
    fprintf(out, "usage: %s\n\n%s\n\ncommands:\n", usage, cli_top.summary);
    for (size_t i = 0; cli_commands[i]; i++)
        fprintf(out, "  %-8s %s\n", cli_commands[i]->name, cli_commands[i]->summary);
    fprintf(out, "\n");
    opts_print_options(&cli_top, out);
    fprintf(out, "\n%s\n%s", cli_top.after, cli_top.status);
}

/* Whether argv asks for the help of table t: -h or --help as an option,
 * wherever it stands (not as the value of another option). */
static int asks_help(const struct opts_table *t, int argc, char **argv)
{
    struct opts_parser p;
    struct opts_item it;
    char err[OPTS_ERR_MAX];
    int rc;

    opts_start(&p, t, argc, argv);
    while ((rc = opts_next(&p, &it, err, sizeof(err))) != 0) {
        if (rc > 0 && it.id == OPTS_HELP)
            return 1;
    }
    return 0;
}

/* Where a run of c records when [record] dir is not set: an ini comment
 * after the configuration, so that the output still reads as a file. */
static void say_session_dir(const struct config *c)
{
    char dir[1024], why[512];

    if (!c->record.enabled || c->record.key_line[CONFIG_RECORD_DIR])
        return;
    if (sessions_state_dir(dir, sizeof(dir), 0, why, sizeof(why)) == 0)
        msg_print(stdout, "; [record] dir is not set: runs record into %s", dir);
    else
        msg_print(stdout, "; [record] dir is not set, and %s", why);
}

static int cmd_check(int argc, char **argv)
{
    struct opts_parser p;
    struct opts_item it;
    const char *path = NULL;
    struct config c;
    char buf[MSG_SHOWN_MAX], err[OPTS_ERR_MAX];
    int rc;

    opts_start(&p, &cli_check, argc, argv);
    while ((rc = opts_next(&p, &it, err, sizeof(err))) != 0) {
        if (rc < 0)
            return opts_fail(&cli_check, stderr, "%s", err);
        if (path)
            return opts_fail(&cli_check, stderr, "unexpected argument \"%s\"",
                             msg_show(it.value, buf, sizeof(buf)));
        path = it.value;
    }
    if (!path)
        return opts_fail(&cli_check, stderr, "missing FILE");
    config_init(&c);
    rc = config_load_file(&c, path, NULL, stderr);
    /* What brink run would refuse at its start, check refuses too. */
    if (rc == 0 && (rc = probes_check(&c, 1, err, sizeof(err))) != 0)
        msg_print(stderr, "%s", err);
    if (rc == 0 && c.scenario.script.value &&
        (rc = script_check(c.scenario.script.value, c.scenario.script.raw, err, sizeof(err))) != 0)
        msg_print(stderr, "%s", err);
    if (rc == 0 && config_show(&c, stdout) != 0) {
        msg_print(stderr, "brink: check: writing the configuration failed: %s",
                  msg_errno(EIO).text);
        config_free(&c);
        return BRINK_EXIT_RUNTIME;
    }
    if (rc == 0)
        say_session_dir(&c);
    config_free(&c);
    return rc == 0 ? BRINK_EXIT_OK : BRINK_EXIT_USAGE;
}

/* "brink: unknown command "rnu" (did you mean run? ...)": the command
 * closest to word, when one is close enough to be a slip. */
static int unknown_command(const char *word)
{
    char buf[MSG_SHOWN_MAX], hint[64] = "";
    struct suggest s;

    suggest_start(&s, word, strlen(word));
    for (size_t i = 0; i < N_COMMANDS; i++)
        suggest_offer(&s, commands[i].table->name);
    suggest_offer(&s, "help");
    if (s.best)
        snprintf(hint, sizeof(hint), "did you mean %s? ", s.best);
    msg_print(stderr, "brink: unknown command \"%s\" (%srun 'brink --help' for the list)",
              msg_show(word, buf, sizeof(buf)), hint);
    return BRINK_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    struct opts_parser p;
    struct opts_item it;
    char err[OPTS_ERR_MAX];
    int rc;

    /* A stop reaches a script that never yields (run, demo, agent). */
    signals_on_stop(script_interrupt_all);
    if (argc < 2) {
        print_usage(stderr);
        return BRINK_EXIT_USAGE;
    }
    if (strcmp(argv[1], "help") == 0) {
        print_usage(stdout);
        return BRINK_EXIT_OK;
    }
    for (size_t i = 0; i < N_COMMANDS; i++) {
        const struct opts_table *t = commands[i].table;

        if (strcmp(argv[1], t->name) != 0)
            continue;
        if (asks_help(t, argc - 1, argv + 1)) {
            opts_print_help(t, stdout);
            return BRINK_EXIT_OK;
        }
        if (commands[i].takes_sessions && (rc = sessions_resolve_last(t, argc - 1, argv + 1)) != 0)
            return rc;
        return commands[i].run(argc - 1, argv + 1);
    }
    /* Not a command: brink's own options (only the first argument). */
    opts_start(&p, &cli_top, 2, argv);
    rc = opts_next(&p, &it, err, sizeof(err));
    if (rc < 0)
        return opts_fail(&cli_top, stderr, "%s", err);
    if (it.id == OPTS_HELP) {
        print_usage(stdout);
        return BRINK_EXIT_OK;
    }
    if (it.id == CLI_TOP_VERSION) {
        return version_print(stdout) == 0 ? BRINK_EXIT_OK : BRINK_EXIT_RUNTIME;
    }
    return unknown_command(argv[1]);
}
