/* The agent protocol (record/wire.h): every message reads back as written,
 * a tick with its histogram, bad lines are refused with a reason, and the
 * clock offset comes from the shortest round trip. Also core/linebuf.h,
 * which splits the pipes' bytes into those lines. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/hist.h"
#include "core/linebuf.h"
#include "core/tick.h"
#include "record/wire.h"

/* Encodes m, checks the one newline at the end, decodes into back. */
static void round_trip(const struct wire_msg *m, struct wire_msg *back)
{
    size_t len;
    char *line = wire_encode(m, &len);
    char why[256] = "";

    assert_non_null(line);
    assert_int_equal(strlen(line), len);
    assert_int_equal(line[len - 1], '\n');
    assert_null(memchr(line, '\n', len - 1));
    assert_int_equal(wire_decode(line, len - 1, back, why, sizeof(why)), 0);
    assert_int_equal(back->type, m->type);
    free(line);
}

static void hello_ping_pong_start_and_error_read_back(void **state)
{
    struct wire_msg hello = {.type = WIRE_HELLO, .protocol = WIRE_PROTOCOL}, back;
    struct wire_msg pong = {.type = WIRE_PONG, .t_ns = 123456789012345ull, .peer_ns = 42};
    struct wire_msg start = {.type = WIRE_START, .at_ns = 987654321ull};
    struct wire_msg err = {.type = WIRE_ERROR, .text = "no \x1b[31m such \"file\""};
    struct wire_msg ready = {.type = WIRE_READY};

    (void)state;
    strcpy(hello.brink, "1.2.3");
    round_trip(&hello, &back);
    assert_int_equal(back.protocol, WIRE_PROTOCOL);
    assert_string_equal(back.brink, "1.2.3");
    wire_msg_free(&back);
    round_trip(&pong, &back);
    assert_int_equal(back.t_ns, 123456789012345ull);
    assert_int_equal(back.peer_ns, 42);
    wire_msg_free(&back);
    round_trip(&start, &back);
    assert_int_equal(back.at_ns, 987654321ull);
    wire_msg_free(&back);
    round_trip(&err, &back);
    assert_string_equal(back.text, err.text);
    wire_msg_free(&back);
    round_trip(&ready, &back);
    wire_msg_free(&back);
}

static void commands_read_back_with_their_amounts(void **state)
{
    struct wire_msg m = {.type = WIRE_COMMAND}, back;

    (void)state;
    for (int k = 0; k < CMD__COUNT; k++) {
        m.cmd = (struct command){.kind = (enum cmd_kind)k, .n = -3, .rate_per_s = 250.5};
        strcpy(m.cmd.note, "after the deploy");
        round_trip(&m, &back);
        assert_int_equal(back.cmd.kind, k);
        assert_int_equal(back.cmd.n, -3);
        if (k == CMD_SET_RATE)
            assert_true(back.cmd.rate_per_s == 250.5);
        assert_string_equal(back.cmd.note, "after the deploy");
        wire_msg_free(&back);
    }
}

static void a_config_carries_its_files_and_overrides(void **state)
{
    unsigned char body[300];
    struct wire_file files[1] = {{.path = "/home/u/exp/body.bin", .data = body, .len = 300}};
    struct wire_override ov[2] = {{"--concurrency", "load", "concurrency", "7"},
                                  {"[agents]", "load", "rate", "33.5/s"}};
    struct wire_msg m = {.type = WIRE_CONFIG,
                         .name = "/home/u/exp/e.ini",
                         .text = "[target]\nurl = http://x/\n",
                         .cwd = "/home/u",
                         .n_files = 1,
                         .files = files,
                         .n_overrides = 2,
                         .overrides = ov,
                         .seed = 99},
                    back;

    (void)state;
    for (size_t i = 0; i < sizeof(body); i++)
        body[i] = (unsigned char)(i * 7);
    round_trip(&m, &back);
    assert_string_equal(back.name, m.name);
    assert_string_equal(back.text, m.text);
    assert_string_equal(back.cwd, m.cwd);
    assert_int_equal(back.n_files, 1);
    assert_string_equal(back.files[0].path, files[0].path);
    assert_int_equal(back.files[0].len, 300);
    assert_memory_equal(back.files[0].data, body, 300);
    assert_int_equal(back.n_overrides, 2);
    assert_string_equal(back.overrides[1].value, "33.5/s");
    assert_string_equal(back.overrides[0].flag, "--concurrency");
    assert_int_equal(back.seed, 99);
    wire_msg_free(&back);
}

static void a_tick_carries_its_histogram(void **state)
{
    struct tick *t = tick_new(64 * 1024);
    struct hist *h = hist_new(), *got = hist_new();
    struct wire_msg m = {.type = WIRE_TICK, .tick = t}, back;

    (void)state;
    t->seq = 5;
    t->duration_us = 1000000;
    t->state = RUN_RUNNING;
    for (uint64_t v = 100; v < 100000; v += 37)
        hist_record(h, v);
    t->total.completed = t->total.ok = hist_count(h);
    tick_latency_from_hist(&t->total.window, h);
    assert_int_equal(tick_put_hist(t, &t->total, h), 0);
    round_trip(&m, &back);
    assert_int_equal(back.tick->seq, 5);
    assert_int_equal(back.tick->total.completed, hist_count(h));
    assert_int_equal(tick_get_hist(back.tick, &back.tick->total, got), 0);
    assert_int_equal(hist_count(got), hist_count(h));
    assert_int_equal(hist_min(got), hist_min(h));
    assert_int_equal(hist_max(got), hist_max(h));
    /* Stored at 1 %: p99 within it. */
    assert_true(hist_percentile(got, 99.0) >= hist_percentile(h, 99.0) * 0.99);
    assert_true(hist_percentile(got, 99.0) <= hist_percentile(h, 99.0) * 1.01);
    wire_msg_free(&back);
    hist_free(h);
    hist_free(got);
    tick_free(t);
}

/* Protocol 2: an agent's probes on agents come in its ticks, by their plain
 * names (the coordinator names them for the agent); the config has no ramp
 * flag any more (the plan is the coordinator's), and one that has it still
 * reads. */
static void protocol_2_ticks_carry_probes_and_configs_no_plan(void **state)
{
    struct tick *t = tick_new(1024);
    struct wire_msg m = {.type = WIRE_TICK, .tick = t}, back;
    struct wire_msg cfg = {.type = WIRE_CONFIG, .name = "command line", .text = "", .cwd = "/"};
    static const char old[] = "{\"type\":\"config\",\"name\":\"command line\",\"text\":\"\","
                              "\"cwd\":\"/\",\"files\":[],\"overrides\":[],\"seed\":1,"
                              "\"ramp\":true}";
    char why[256] = "", *line;
    size_t len;

    (void)state;
    assert_int_equal(WIRE_PROTOCOL, 2);
    t->duration_us = 1000000;
    t->state = RUN_RUNNING;
    tick_copy_text(t->probes[0].name, TICK_NAME_MAX, "sockets");
    t->probes[0].state = PROBE_OK;
    t->probes[0].has_value = 1;
    t->probes[0].value = 1234;
    t->probes[0].sampled_ms = 700;
    t->n_probes = 1;
    round_trip(&m, &back);
    assert_int_equal(back.tick->n_probes, 1);
    assert_string_equal(back.tick->probes[0].name, "sockets");
    assert_true(back.tick->probes[0].value == 1234);
    assert_int_equal(back.tick->probes[0].sampled_ms, 700);
    wire_msg_free(&back);
    tick_free(t);
    line = wire_encode(&cfg, &len);
    assert_null(strstr(line, "\"ramp\""));
    free(line);
    assert_int_equal(wire_decode(old, strlen(old), &back, why, sizeof(why)), 0);
    assert_int_equal(back.seed, 1);
    wire_msg_free(&back);
}

static void bad_lines_are_refused_with_a_reason(void **state)
{
    static const char *const bad[] = {
        "",
        "[1,2]",
        "{\"type\":\"hello\"}",
        "{\"type\":\"hello\",\"protocol\":-1}",
        "{\"type\":\"nope\"}",
        "{\"type\":\"command\",\"kind\":\"explode\",\"n\":1}",
        "{\"type\":\"command\",\"kind\":\"set_rate\",\"n\":0,\"rate\":-5}",
        "{\"type\":\"ping\"}",
        "{\"type\":\"config\",\"name\":\"a\",\"text\":\"\",\"cwd\":\"/\",\"seed\":1,"
        "\"files\":[{\"path\":\"relative\",\"data\":\"\"}],\"overrides\":[]}",
        "{\"type\":\"config\",\"name\":\"a\",\"text\":\"\",\"cwd\":\"/\",\"seed\":1,"
        "\"files\":[],\"overrides\":[[\"a\",\"b\"]]}",
        "{\"type\":\"tick\",\"seq\":\"x\"}",
        "{\"type\":\"hello\",\"protocol\":1,\"protocol\":2}",
    };
    struct wire_msg m;
    char why[256];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        why[0] = '\0';
        assert_int_equal(wire_decode(bad[i], strlen(bad[i]), &m, why, sizeof(why)), -EINVAL);
        assert_true(why[0] != '\0');
        assert_null(m.tick);
        assert_null(m.files);
    }
}

static void the_offset_comes_from_the_shortest_round_trip(void **state)
{
    struct wire_clock c = {0};

    (void)state;
    /* The agent's clock runs 5 s ahead. A slow round trip (40 ms, its
     * pong queued 30 ms on the way back) misleads by 15 ms; a quick one
     * (2 ms) is within 1 ms, and a slower one later does not replace it. */
    assert_int_equal(wire_clock_add(&c, 1000000000, 6005000000, 1040000000), 0);
    assert_true(c.offset_ns == 4985000000);
    assert_int_equal(wire_clock_add(&c, 2000000000, 7001000000, 2002000000), 0);
    assert_true(c.offset_ns == 5000000000);
    assert_int_equal(c.best_rtt_ns, 2000000);
    assert_int_equal(wire_clock_add(&c, 3000000000, 8000000000, 3100000000), 0);
    assert_true(c.offset_ns == 5000000000);
    assert_int_equal(c.samples, 3);
    assert_int_equal(wire_clock_to_peer(&c, 10000000000), 15000000000);
    /* An agent behind the coordinator: a negative offset. */
    c = (struct wire_clock){0};
    assert_int_equal(wire_clock_add(&c, 9000000000, 1000500000, 9001000000), 0);
    assert_true(c.offset_ns == -8000000000);
    assert_int_equal(wire_clock_to_peer(&c, 9500000000), 1500000000);
    assert_int_equal(wire_clock_add(&c, 10, 0, 5), -EINVAL);
}

static void linebuf_splits_lines_and_drops_long_ones(void **state)
{
    struct linebuf lb;
    int fds[2], too_long;
    size_t len;
    char *line, big[300];
    static const char text[] = "one\ntwo\nthr";

    (void)state;
    assert_int_equal(pipe(fds), 0);
    linebuf_init(&lb, 100);
    assert_int_equal(write(fds[1], text, strlen(text)), (ssize_t)strlen(text));
    assert_int_equal(linebuf_fill(&lb, fds[0]), (ssize_t)strlen(text));
    line = linebuf_next(&lb, &len, &too_long);
    assert_string_equal(line, "one");
    line = linebuf_next(&lb, &len, &too_long);
    assert_string_equal(line, "two");
    assert_null(linebuf_next(&lb, &len, &too_long));
    assert_int_equal(too_long, 0);
    memset(big, 'x', sizeof(big));
    big[0] = 'e';
    big[1] = '\n';
    big[sizeof(big) - 1] = '\n';
    assert_int_equal(write(fds[1], big, sizeof(big)), (ssize_t)sizeof(big));
    assert_true(linebuf_fill(&lb, fds[0]) > 0);
    line = linebuf_next(&lb, &len, &too_long);
    assert_string_equal(line, "thre");
    assert_null(linebuf_next(&lb, &len, &too_long));
    assert_int_equal(too_long, 1);
    assert_int_equal(write(fds[1], "four\n", 5), 5);
    close(fds[1]);
    assert_true(linebuf_fill(&lb, fds[0]) > 0);
    line = linebuf_next(&lb, &len, &too_long);
    assert_string_equal(line, "four");
    assert_int_equal(len, 4);
    assert_int_equal(linebuf_fill(&lb, fds[0]), 0);
    close(fds[0]);
    linebuf_free(&lb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hello_ping_pong_start_and_error_read_back),
        cmocka_unit_test(commands_read_back_with_their_amounts),
        cmocka_unit_test(a_config_carries_its_files_and_overrides),
        cmocka_unit_test(a_tick_carries_its_histogram),
        cmocka_unit_test(protocol_2_ticks_carry_probes_and_configs_no_plan),
        cmocka_unit_test(bad_lines_are_refused_with_a_reason),
        cmocka_unit_test(the_offset_comes_from_the_shortest_round_trip),
        cmocka_unit_test(linebuf_splits_lines_and_drops_long_ones),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
