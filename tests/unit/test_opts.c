/* opts and the commands' tables: every option of every command, in every
 * form, parses to the same thing; the help lists exactly what parses. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/opts.h"
#include "cli/tables.h"

/* Parses args (NULL-terminated, without the command's name) with t; the
 * items in out, the status of the first error (or 0) returned, its text in
 * err. */
#define ITEMS_MAX 8
static int parse(const struct opts_table *t, const char *const *args, struct opts_item *out, int *n,
                 char *err, size_t err_len)
{
    char *argv[16] = {"cmd"};
    struct opts_parser p;
    struct opts_item it;
    int argc = 1, rc;

    for (; args[argc - 1]; argc++)
        argv[argc] = (char *)args[argc - 1];
    *n = 0;
    err[0] = '\0';
    opts_start(&p, t, argc, argv);
    while ((rc = opts_next(&p, &it, err, err_len)) > 0) {
        assert_true(*n < ITEMS_MAX);
        out[(*n)++] = it;
    }
    return rc;
}

/* Calls fn on each option of each command table and of brink's own. */
static void each_option(void (*fn)(const struct opts_table *, const struct opts_option *))
{
    const struct opts_table *tables[16];
    size_t n = 0;

    tables[n++] = &cli_top;
    for (size_t i = 0; cli_commands[i]; i++)
        tables[n++] = cli_commands[i];
    for (size_t i = 0; i < n; i++) {
        for (size_t g = 0; tables[i]->groups[g]; g++) {
            for (const struct opts_option *o = tables[i]->groups[g]; o->name; o++)
                fn(tables[i], o);
        }
    }
}

/* The forms a value can be given in, for an option: long=, long, -sV, -s V. */
static void check_value_forms(const struct opts_table *t, const struct opts_option *o)
{
    char eq[64], shortv[8], shortn[4], err[256];
    const char *forms[4][3] = {
        {eq, NULL}, {o->name, "v1", NULL}, {shortv, NULL}, {shortn, "v1", NULL}};
    struct opts_item it[ITEMS_MAX];
    int n, n_forms = o->short_name ? 4 : 2;

    snprintf(eq, sizeof(eq), "%s=v1", o->name);
    snprintf(shortv, sizeof(shortv), "-%cv1", o->short_name);
    snprintf(shortn, sizeof(shortn), "-%c", o->short_name);
    for (int f = 0; f < n_forms; f++) {
        if (parse(t, forms[f], it, &n, err, sizeof(err)) != 0)
            fail_msg("%s %s (form %d): %s", t->name ? t->name : "brink", o->name, f, err);
        assert_int_equal(n, 1);
        assert_int_equal(it[0].id, o->id);
        assert_ptr_equal(it[0].opt, o);
        assert_string_equal(it[0].value, "v1");
    }
    /* Without its value it is an error, never an option with none. */
    if (o->arg == OPTS_VALUE) {
        const char *alone[] = {o->name, NULL};

        assert_int_equal(parse(t, alone, it, &n, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "needs a value"));
    }
}

static void check_flag_forms(const struct opts_table *t, const struct opts_option *o)
{
    char eq[64], shortn[4], err[256];
    const char *alone[] = {o->name, NULL}, *with[] = {eq, NULL}, *s[] = {shortn, NULL};
    struct opts_item it[ITEMS_MAX];
    int n;

    snprintf(eq, sizeof(eq), "%s=v1", o->name);
    snprintf(shortn, sizeof(shortn), "-%c", o->short_name);
    assert_int_equal(parse(t, alone, it, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 1);
    assert_int_equal(it[0].id, o->id);
    assert_null(it[0].value);
    if (o->short_name) {
        assert_int_equal(parse(t, s, it, &n, err, sizeof(err)), 0);
        assert_int_equal(it[0].id, o->id);
    }
    if (o->arg == OPTS_FLAG) {
        assert_int_equal(parse(t, with, it, &n, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "takes no value"));
    }
}

static void check_option(const struct opts_table *t, const struct opts_option *o)
{
    if (o->arg != OPTS_FLAG)
        check_value_forms(t, o);
    if (o->arg != OPTS_VALUE)
        check_flag_forms(t, o);
}

static void every_option_of_every_command_parses_in_every_form(void **state)
{
    (void)state;
    each_option(check_option);
}

/* Ids are unique in a table and fit the parser's set of seen options;
 * names are unique and long names start with "--". */
static void check_unique(const struct opts_table *t, const struct opts_option *o)
{
    assert_true(o->id >= 1 && o->id <= OPTS_ID_MAX);
    assert_ptr_equal(opts_find(t, o->id), o);
    assert_true(strncmp(o->name, "--", 2) == 0 && o->name[2] != '-');
    assert_non_null(o->help);
    assert_true(o->short_name != 'h');
    for (size_t g = 0; t->groups[g]; g++) {
        for (const struct opts_option *x = t->groups[g]; x->name; x++) {
            if (x == o)
                continue;
            assert_string_not_equal(x->name, o->name);
            assert_false(o->short_name && x->short_name == o->short_name);
        }
    }
}

static void every_table_has_unique_ids_and_names(void **state)
{
    (void)state;
    each_option(check_unique);
}

/* The help of a table holds every option's long name: what parses is
 * listed. */
static const struct opts_table *help_table;
static char *help_text;

static void check_listed(const struct opts_table *t, const struct opts_option *o)
{
    if (t == help_table)
        assert_non_null(strstr(help_text, o->name));
}

static void every_option_is_in_its_command_help(void **state)
{
    (void)state;
    for (size_t i = 0; cli_commands[i]; i++) {
        size_t len;
        FILE *f = open_memstream(&help_text, &len);

        help_table = cli_commands[i];
        opts_print_help(help_table, f);
        fclose(f);
        assert_non_null(strstr(help_text, "  -h, --help"));
        assert_non_null(strstr(help_text, "exit status: 0 success"));
        each_option(check_listed);
        free(help_text);
    }
}

static void help_is_recognised_in_every_table(void **state)
{
    const char *args[] = {"--help", NULL}, *s[] = {"-h", NULL};
    struct opts_item it[ITEMS_MAX];
    char err[256];
    int n;

    (void)state;
    for (size_t i = 0; cli_commands[i]; i++) {
        assert_int_equal(parse(cli_commands[i], args, it, &n, err, sizeof(err)), 0);
        assert_int_equal(it[0].id, OPTS_HELP);
        assert_int_equal(parse(cli_commands[i], s, it, &n, err, sizeof(err)), 0);
        assert_int_equal(it[0].id, OPTS_HELP);
    }
}

static void operands_come_in_order_and_after_dashes_everything_is_one(void **state)
{
    const char *args[] = {"a", "--label", "x", "-", "--", "--label", NULL};
    struct opts_item it[ITEMS_MAX];
    char err[256];
    int n;

    (void)state;
    assert_int_equal(parse(&cli_compare, args, it, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 4);
    assert_int_equal(it[0].id, OPTS_OPERAND);
    assert_string_equal(it[0].value, "a");
    assert_int_equal(it[1].id, CLI_COMPARE_LABEL);
    assert_string_equal(it[2].value, "-");
    assert_int_equal(it[3].id, OPTS_OPERAND);
    assert_string_equal(it[3].value, "--label");
}

static void unknown_option_is_named_escaped(void **state)
{
    const char *args[] = {"--fr\033ob=1", NULL};
    struct opts_item it[ITEMS_MAX];
    char err[256];
    int n;

    (void)state;
    assert_int_equal(parse(&cli_run, args, it, &n, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "unknown option \"--fr\\eob=1\"");
}

static void a_longer_name_is_not_taken_for_its_prefix(void **state)
{
    const char *args[] = {"--recordx=f", NULL}, *r[] = {"--ramp=1,2", "--no-record", NULL};
    struct opts_item it[ITEMS_MAX];
    char err[256];
    int n;

    (void)state;
    assert_int_equal(parse(&cli_run, args, it, &n, err, sizeof(err)), -EINVAL);
    assert_int_equal(parse(&cli_run, r, it, &n, err, sizeof(err)), 0);
    assert_int_equal(it[0].id, CLI_RUN_RAMP);
    assert_string_equal(it[0].value, "1,2");
    assert_int_equal(it[1].id, CLI_RUN_NO_RECORD);
}

static void optional_value_is_not_taken_from_a_following_option(void **state)
{
    const char *args[] = {"--ramp", "--headless", NULL};
    struct opts_item it[ITEMS_MAX];
    char err[256];
    int n;

    (void)state;
    assert_int_equal(parse(&cli_run, args, it, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 2);
    assert_null(it[0].value);
    assert_int_equal(it[1].id, CLI_RUN_HEADLESS);
}

static void a_value_is_not_taken_from_a_following_option(void **state)
{
    const char *forgotten[] = {"-c", "-n", "200", NULL};
    const char *negative[] = {"--seed", "-5", NULL};
    struct opts_item it[ITEMS_MAX];
    char err[256];
    int n;

    (void)state;
    assert_int_equal(parse(&cli_run, forgotten, it, &n, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "-c needs a value (N), got the option \"-n\"");
    /* What is no option of the command is a value, wrong or not. */
    assert_int_equal(parse(&cli_run, negative, it, &n, err, sizeof(err)), 0);
    assert_string_equal(it[0].value, "-5");
}

static void record_and_no_record_contradict_in_either_order(void **state)
{
    const char *a[] = {"--record", "f", "--no-record", NULL};
    const char *b[] = {"--no-record", "--record=f", NULL};
    struct opts_item it[ITEMS_MAX];
    char err[256];
    int n;

    (void)state;
    assert_int_equal(parse(&cli_run, a, it, &n, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--no-record contradicts --record");
    assert_int_equal(parse(&cli_run, b, it, &n, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--record contradicts --no-record");
}

static void an_option_given_twice_is_refused_unless_repeatable(void **state)
{
    const char *a[] = {"-c", "2", "--concurrency=3", NULL};
    const char *b[] = {"A", "-l", "x", "--label", "y", "B", NULL};
    struct opts_item it[ITEMS_MAX];
    char err[256];
    int n;

    (void)state;
    assert_int_equal(parse(&cli_run, a, it, &n, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--concurrency given twice");
    assert_int_equal(parse(&cli_compare, b, it, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 4);
}

static void fail_prints_one_line_with_the_usage(void **state)
{
    char *out;
    size_t len;
    FILE *f = open_memstream(&out, &len);

    (void)state;
    assert_int_equal(opts_fail(&cli_check, f, "missing FILE"), 2);
    fclose(f);
    assert_string_equal(out, "brink: check: missing FILE (usage: brink check FILE)\n");
    free(out);
}

/* The command line of a report: quoted where a shell needs it, secrets
 * redacted wherever the header or URL stands. */
static void command_line_is_quoted_and_redacted(void **state)
{
    char *argv[] = {"run",
                    "-c",
                    "2",
                    "-H",
                    "Authorization: Bearer abc",
                    "-HX-Api-Key: k1",
                    "--header=Cookie: s=1",
                    "-H",
                    "X-Trace: it's",
                    "--url=http://u:pw@127.0.0.1:1/a?token=t9",
                    "http://127.0.0.1:1/b"};
    char out[1024];

    (void)state;
    opts_command_line(11, argv, out, sizeof(out));
    assert_string_equal(
        out, "brink run -c 2 -H 'Authorization: <redacted len=10>' '-HX-Api-Key: <redacted len=2>' "
             "'--header=Cookie: <redacted len=3>' -H 'X-Trace: it'\\''s' "
             "'--url=http://u:<redacted len=2>@127.0.0.1:1/a?token=<redacted len=2>' "
             "http://127.0.0.1:1/b");
    /* Cut short, it stays a string. */
    opts_command_line(11, argv, out, 20);
    assert_int_equal(strlen(out), 19);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_option_of_every_command_parses_in_every_form),
        cmocka_unit_test(every_table_has_unique_ids_and_names),
        cmocka_unit_test(every_option_is_in_its_command_help),
        cmocka_unit_test(a_value_is_not_taken_from_a_following_option),
        cmocka_unit_test(help_is_recognised_in_every_table),
        cmocka_unit_test(operands_come_in_order_and_after_dashes_everything_is_one),
        cmocka_unit_test(unknown_option_is_named_escaped),
        cmocka_unit_test(a_longer_name_is_not_taken_for_its_prefix),
        cmocka_unit_test(optional_value_is_not_taken_from_a_following_option),
        cmocka_unit_test(record_and_no_record_contradict_in_either_order),
        cmocka_unit_test(an_option_given_twice_is_refused_unless_repeatable),
        cmocka_unit_test(fail_prints_one_line_with_the_usage),
        cmocka_unit_test(command_line_is_quoted_and_redacted),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
