/* The text command language `brink run` reads on its standard input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/command.h"
#include "core/tick.h"

static struct command parse_ok(const char *line)
{
    struct command cmd;
    char why[160] = "";

    assert_int_equal(command_parse(line, &cmd, why, sizeof(why)), 1);
    assert_string_equal(why, "");
    return cmd;
}

static void parse_fails(const char *line, const char *want)
{
    struct command cmd;
    char why[160];

    assert_int_equal(command_parse(line, &cmd, why, sizeof(why)), -EINVAL);
    assert_string_equal(why, want);
}

static void words_and_their_aliases_give_the_same_command(void **state)
{
    (void)state;
    assert_int_equal(parse_ok("concurrency 40").kind, CMD_SET_CONCURRENCY);
    assert_int_equal(parse_ok("concurrency 40").n, 40);
    assert_int_equal(parse_ok("= 7").n, 7);
    assert_int_equal(parse_ok("=7").n, 7);
    assert_int_equal(parse_ok("double").kind, CMD_DOUBLE);
    assert_int_equal(parse_ok("]").kind, CMD_DOUBLE);
    assert_int_equal(parse_ok("halve").kind, CMD_HALVE);
    assert_int_equal(parse_ok("[").kind, CMD_HALVE);
    assert_int_equal(parse_ok("pause").kind, CMD_PAUSE);
    assert_int_equal(parse_ok("p").kind, CMD_PAUSE);
    assert_int_equal(parse_ok("resume").kind, CMD_RESUME);
    assert_int_equal(parse_ok("  r  ").kind, CMD_RESUME);
    assert_int_equal(parse_ok("drop 5").n, 5);
    assert_int_equal(parse_ok("d 5").kind, CMD_DROP);
    assert_int_equal(parse_ok("stop").kind, CMD_STOP);
    assert_int_equal(parse_ok("q").kind, CMD_STOP);
}

static void steps_go_both_ways(void **state)
{
    (void)state;
    assert_int_equal(parse_ok("+").n, 1);
    assert_int_equal(parse_ok("-").n, -1);
    assert_int_equal(parse_ok("step").n, 1);
    assert_int_equal(parse_ok("step -3").n, -3);
    assert_int_equal(parse_ok("step +2").n, 2);
}

static void mark_keeps_its_note(void **state)
{
    (void)state;
    assert_string_equal(parse_ok("mark first 503 here").note, "first 503 here");
    assert_string_equal(parse_ok("m\tbranch A").note, "branch A");
}

static void blank_and_comment_lines_hold_no_command(void **state)
{
    struct command cmd;
    char why[64];

    (void)state;
    assert_int_equal(command_parse("", &cmd, why, sizeof(why)), 0);
    assert_int_equal(command_parse("   \t", &cmd, why, sizeof(why)), 0);
    assert_int_equal(command_parse("# ramp to 40 next", &cmd, why, sizeof(why)), 0);
}

static void bad_lines_say_what_was_expected(void **state)
{
    (void)state;
    parse_fails(
        "faster",
        "expected concurrency N, step [N], +, -, double, halve, pause, resume, drop N, mark TEXT, rate N, model [open|closed], ramp, next or stop, got \"faster\"");
    parse_fails("drop", "expected a whole number after the command, such as drop 5, got \"drop\"");
    parse_fails("drop -2",
                "expected a whole number after the command, such as drop 5, got \"drop -2\"");
    parse_fails(
        "concurrency ten",
        "expected a whole number after the command, such as drop 5, got \"concurrency ten\"");
    parse_fails("pause now", "expected nothing after the command, got \"pause now\"");
    parse_fails("mark", "expected a note after mark, got \"mark\"");
    parse_fails("++", "expected nothing after the command, got \"++\"");
    parse_fails(
        "stop\x1b[2J",
        "expected concurrency N, step [N], +, -, double, halve, pause, resume, drop N, mark TEXT, rate N, model [open|closed], ramp, next or stop, got \"stop\\e[2J\"");
}

static void rates_take_an_optional_per_second(void **state)
{
    struct command cmd;

    (void)state;
    cmd = parse_ok("rate 250");
    assert_int_equal(cmd.kind, CMD_SET_RATE);
    assert_true(cmd.rate_per_s == 250.0);
    cmd = parse_ok("  rate 2.5/s  ");
    assert_true(cmd.rate_per_s == 2.5);
    parse_fails("rate",
                "expected a positive rate after the command, such as rate 250/s, got \"rate\"");
    parse_fails("rate 0",
                "expected a positive rate after the command, such as rate 250/s, got \"rate 0\"");
    parse_fails("rate -5",
                "expected a positive rate after the command, such as rate 250/s, got \"rate -5\"");
    parse_fails(
        "rate 5/min",
        "expected a positive rate after the command, such as rate 250/s, got \"rate 5/min\"");
    parse_fails("rate nan",
                "expected a positive rate after the command, such as rate 250/s, got \"rate nan\"");
}

static void model_names_one_or_switches(void **state)
{
    (void)state;
    assert_int_equal(parse_ok("model open").n, LOAD_OPEN);
    assert_int_equal(parse_ok("model rate").n, LOAD_OPEN);
    assert_int_equal(parse_ok("model closed ").n, LOAD_CLOSED);
    assert_int_equal(parse_ok("model").kind, CMD_SET_MODEL);
    assert_int_equal(parse_ok("model").n, CMD_MODEL_SWITCH);
    assert_int_equal(parse_ok("o").n, CMD_MODEL_SWITCH);
    parse_fails("model fast", "expected open or closed after model, got \"model fast\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(words_and_their_aliases_give_the_same_command),
        cmocka_unit_test(steps_go_both_ways),
        cmocka_unit_test(mark_keeps_its_note),
        cmocka_unit_test(blank_and_comment_lines_hold_no_command),
        cmocka_unit_test(bad_lines_say_what_was_expected),
        cmocka_unit_test(rates_take_an_optional_per_second),
        cmocka_unit_test(model_names_one_or_switches),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
