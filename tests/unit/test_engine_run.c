/*
 * The engine's runtime in process, in the libuv style: one worker of a
 * real engine (each transport in turn) runs its loop on the test's thread
 * against the scripted server (script_server.h) on the same loop. The
 * run's ticks come back through the engine's channel, and every handle is
 * closed before the loop is (engine__worker_free checks uv_loop_close).
 * test_transports runs the transports alone, against a fake engine.
 *
 * The table of broken replies is the one of issue 22: both transports
 * must put each in the same class, with a message that names the problem.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config/config.h"
#include "core/chan.h"
#include "core/errclass.h"
#include "core/tick.h"
#include "engine/engine.h"
#include "engine/internal.h"
#include "outcome_fixture.h"
#include "script_server.h"

#define ERR_MAX 512
#define OK SCRIPT_SERVER_OK

static int is_worker_done(void *arg)
{
    const struct worker *w = arg;

    return w->is_done;
}

static void stop_worker(void *arg)
{
    struct worker *w = arg;

    engine__request_stop(w->e, "test watchdog", 1);
}

/* ---- A run ------------------------------------------------------------ */

/* What a run's ticks said. */
/* Runs n requests of sc->users users over transport against the script sc. */
static void run(const struct server_script *sc, const char *transport, uint32_t n,
                struct outcome *out)
{
    struct config c;
    struct chan *ch = chan_new(256, 16);
    struct engine_params p = {.config = &c, .chan = ch, .seed = 1};
    struct script_server srv = {.is_over = is_worker_done, .on_watchdog = stop_worker};
    struct engine *e = NULL;
    char text[512], err[ERR_MAX] = "";
    uint16_t port;
    int fd = script_server_listen(&port);
    struct worker *w;

    snprintf(text, sizeof(text),
             "[target]\nurl = http://127.0.0.1:%u/\ntransport = %s\ntimeout = %ums\n"
             "[load]\nconcurrency = %u\nrequests = %u\n",
             port, transport, sc->timeout_ms ? sc->timeout_ms : 5000, sc->users ? sc->users : 1, n);
    config_init(&c);
    assert_int_equal(config_load_string(&c, "t.ini", text, NULL, stderr), 0);
    assert_int_equal(engine__build(&p, err, sizeof(err), &e), 0);
    w = e->workers[0];
    srv.arg = w;
    script_server_start(&srv, &w->view.loop, fd, sc);

    engine__worker_run(w);
    script_server_free(&srv);

    outcome_collect(ch, out);
    out->crossed = srv.n_crossed;
    assert_false(srv.watchdog_fired);
    engine_free(e);
    chan_free(ch);
    config_free(&c);
}

static const char *const transports[] = {"curl", "h1"};

/* Whether o, from n requests of sc, is what sc wants; says why not. */
static int is_as_wanted(const struct server_script *sc, const char *transport, uint32_t n,
                        const struct outcome *o)
{
    uint64_t errors = 0;
    const char *first = sc->want == OK ? "" : o->first_error[sc->want];

    for (int k = 0; k < ERR__COUNT; k++)
        errors += o->errors[k];
    if (o->completed == n && (sc->want == OK ? o->ok == n : o->errors[sc->want] == n) &&
        (!sc->needle || contains_any_case(first, sc->needle)) &&
        !contains_any_case(first, "out of memory"))
        return 1;
    print_error("%s on %s: %llu completed, %llu ok, %llu failed; want %s for all %u%s%s\n",
                sc->name, transport, (unsigned long long)o->completed, (unsigned long long)o->ok,
                (unsigned long long)errors, sc->want == OK ? "ok" : errclass_name(sc->want), n,
                sc->needle ? ", with a message naming " : "", sc->needle ? sc->needle : "");
    for (int k = 0; k < ERR__COUNT; k++) {
        if (o->errors[k])
            print_error("  %s %llu: %s\n", errclass_name(k), (unsigned long long)o->errors[k],
                        o->first_error[k]);
    }
    return 0;
}

/* Runs n requests of sc on both transports; returns how many runs were not
 * as sc wants (each said on stderr). */
static int check_script(struct server_script *sc, uint32_t n)
{
    struct outcome o;
    int failed = 0;

    script_server_make(sc);
    for (size_t i = 0; i < sizeof(transports) / sizeof(transports[0]); i++) {
        run(sc, transports[i], n, &o);
        assert_string_equal(o.transport, transports[i]);
        failed += !is_as_wanted(sc, transports[i], n, &o);
    }
    return failed;
}

/* ---- Broken replies (issue 22, A to C; script_server.c) --------------- */

static void each_broken_reply_is_the_same_class_on_both_transports(void **state)
{
    int failed = 0;

    (void)state;
    for (size_t i = 0; i < script_server_n_broken; i++) {
        struct server_script *sc = &script_server_broken[i];

        failed += check_script(sc, sc->users ? 200 : 3);
        script_server_unmake(sc);
    }
    assert_int_equal(failed, 0);
}

/* ---- The runtime against misbehaving servers -------------------------- */

static void a_reset_instead_of_a_reply_is_reset(void **state)
{
    struct server_script sc = {"reset", NULL, 0, NULL, 0, RESET, ERR_RESET, "reset", 0, 0};

    (void)state;
    assert_int_equal(check_script(&sc, 3), 0);
}

static void a_server_that_never_answers_is_a_timeout(void **state)
{
    struct server_script sc = {"stall", NULL, 0, NULL, 0, STALL, ERR_TIMEOUT, "time", 0, 300};

    (void)state;
    assert_int_equal(check_script(&sc, 2), 0);
}

static void a_close_in_the_middle_of_the_body_is_closed_early(void **state)
{
    struct server_script sc = {"partial body",
                               HEAD200 "Content-Length: 100\r\n\r\nabc",
                               0,
                               NULL,
                               0,
                               CLOSE,
                               ERR_CLOSED_EARLY,
                               NULL,
                               0,
                               0};

    (void)state;
    assert_int_equal(check_script(&sc, 3), 0);
}

static void a_keep_alive_connection_closed_between_requests_is_no_error(void **state)
{
    struct server_script sc = {"closed between requests",
                               HEAD200 "Content-Length: 2\r\n\r\nok",
                               0,
                               NULL,
                               0,
                               CLOSE,
                               OK,
                               NULL,
                               0,
                               0};

    (void)state;
    assert_int_equal(check_script(&sc, 5), 0);
}

static void a_chunked_body_split_at_every_byte_is_whole(void **state)
{
    struct server_script sc = {"chunked, one byte at a time",
                               HEAD200 "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n10\r\n"
                                       "0123456789abcdef\r\n0\r\n\r\n",
                               0,
                               NULL,
                               1,
                               KEEP,
                               OK,
                               NULL,
                               0,
                               0};

    (void)state;
    assert_int_equal(check_script(&sc, 3), 0);
}

static void interim_replies_before_the_reply_are_skipped(void **state)
{
    struct server_script sc = {"1xx",
                               "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\n"
                               "Link: </s.css>\r\n\r\n" HEAD200 "Content-Length: 2\r\n\r\nok",
                               0,
                               NULL,
                               0,
                               KEEP,
                               OK,
                               NULL,
                               0,
                               0};

    (void)state;
    assert_int_equal(check_script(&sc, 3), 0);
}

/*
 * Each kept-alive connection ends when its next request comes: with a FIN
 * (or a FIN then a reset, as a close that crosses the request does), the
 * request goes again, once, counted as closed_idle, and none fails; with a
 * reset alone (no FIN before it), the request is a reset error and never
 * goes again (issue 29). The server's count of requests it ended a
 * connection at is the ground truth of both.
 */
static void a_crossed_close_is_sent_again_a_reset_is_not(void **state)
{
    struct server_script sc = {"reset on next",
                               HEAD200 "Content-Length: 2\r\n\r\nok",
                               0,
                               NULL,
                               0,
                               RESET_ON_NEXT,
                               ERR_RESET,
                               NULL,
                               4,
                               0};
    static const enum after closes[] = {CLOSE_ON_NEXT, SHUT_RESET_ON_NEXT};
    struct outcome o;

    (void)state;
    sc.len = strlen(sc.reply);
    for (size_t i = 0; i < sizeof(transports) / sizeof(transports[0]); i++) {
        sc.after = RESET_ON_NEXT;
        run(&sc, transports[i], 200, &o);
        assert_true(o.crossed > 0);
        assert_int_equal(o.completed, 200);
        assert_int_equal(o.errors[ERR_RESET], o.crossed);
        assert_int_equal(o.ok + o.errors[ERR_RESET], 200);
        assert_int_equal(o.resent[RESEND_CLOSED_IDLE] + o.resent[RESEND_REFUSED_STREAM], 0);
        for (size_t k = 0; k < sizeof(closes) / sizeof(closes[0]); k++) {
            sc.after = closes[k];
            run(&sc, transports[i], 200, &o);
            assert_true(o.crossed > 0);
            assert_int_equal(o.ok, 200);
            assert_int_equal(o.resent[RESEND_CLOSED_IDLE], o.crossed);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_broken_reply_is_the_same_class_on_both_transports),
        cmocka_unit_test(a_reset_instead_of_a_reply_is_reset),
        cmocka_unit_test(a_server_that_never_answers_is_a_timeout),
        cmocka_unit_test(a_close_in_the_middle_of_the_body_is_closed_early),
        cmocka_unit_test(a_keep_alive_connection_closed_between_requests_is_no_error),
        cmocka_unit_test(a_crossed_close_is_sent_again_a_reset_is_not),
        cmocka_unit_test(a_chunked_body_split_at_every_byte_is_whole),
        cmocka_unit_test(interim_replies_before_the_reply_are_skipped),
    };
    char err[ERR_MAX];
    int rc;

    if (engine_global_init(err, sizeof(err)) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    engine_global_cleanup();
    return rc;
}
