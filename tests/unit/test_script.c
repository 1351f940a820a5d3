/* The coroutine driver of scenario scripts (src/script/script.h): what an
 * iteration asks the engine for, how replies, sleeps and errors resume or
 * end it, and what a script that cannot load says. */
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

#include "script/script.h"

struct fixture {
    char path[64];
    struct script_setup *su;
    struct script *sc;
    struct script_user *u;
};

static void write_script(struct fixture *f, const char *text)
{
    int fd;

    snprintf(f->path, sizeof(f->path), "/tmp/brink-test-script-XXXXXX");
    fd = mkstemp(f->path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* Loads text as a script named "t.lua" with one worker state and user 0. */
static void open_script(struct fixture *f, const char *text)
{
    char err[SCRIPT_WHY_MAX];

    write_script(f, text);
    assert_int_equal(script_setup(f->path, "t.lua", 7, err, sizeof(err), &f->su), 0);
    assert_int_equal(script_open(f->su, 0, err, sizeof(err), &f->sc), 0);
    f->u = script_user_new(f->sc, 0);
}

static void close_script(struct fixture *f)
{
    script_user_free(f->u);
    script_close(f->sc);
    script_setup_free(f->su);
    unlink(f->path);
}

static const char rmw[] =
    "function iteration(user)\n"
    "  local r = brink.request{url = '/kv/a', name = 'read', expect = {200, 404}, timeout = 2}\n"
    "  user.seen = (user.seen or 0) + 1\n"
    "  brink.request{method = 'PUT', url = '/kv/a', name = 'write', body = r.body .. '!',\n"
    "                headers = {['X-Brink-Version'] = r.headers['x-brink-version']},\n"
    "                skip_body = true}\n"
    "  brink.request{url = '/count/' .. user.seen .. '/' .. user.iteration .. '/' .. user.id}\n"
    "end\n";

static void a_request_yields_and_its_reply_resumes(void **state)
{
    struct fixture f = {0};
    const struct script_request *q;
    static const char head[] = "Content-Type: text/plain\nX-Brink-Version: 41\n";
    struct script_reply r = {.status = 200,
                             .headers = head,
                             .headers_len = sizeof(head) - 1,
                             .body = "v",
                             .body_len = 1};

    (void)state;
    open_script(&f, rmw);
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_REQUEST);
    assert_true(script_user_is_busy(f.u));
    q = script_user_request(f.u);
    assert_string_equal(q->method, "GET");
    assert_string_equal(q->url, "/kv/a");
    assert_string_equal(q->name, "read");
    assert_int_equal(q->timeout_us, 2000000);
    assert_true(q->has_expect);
    assert_true(status_set_has(&q->expect, 404));
    assert_false(status_set_has(&q->expect, 204));
    assert_null(q->body);

    assert_int_equal(script_user_reply(f.u, &r), SCRIPT_STEP_REQUEST);
    q = script_user_request(f.u);
    assert_string_equal(q->method, "PUT");
    assert_string_equal(q->name, "write");
    assert_int_equal(q->n_headers, 1);
    assert_string_equal(q->headers[0], "X-Brink-Version: 41");
    assert_int_equal(q->body_len, 2);
    assert_memory_equal(q->body, "v!", 2);
    assert_true(q->skip_body);
    assert_false(q->has_expect);

    r = (struct script_reply){.status = 204};
    assert_int_equal(script_user_reply(f.u, &r), SCRIPT_STEP_REQUEST);
    /* No name: the method names the kind. State lives across iterations. */
    assert_string_equal(script_user_request(f.u)->name, "GET");
    assert_string_equal(script_user_request(f.u)->url, "/count/1/1/1");
    assert_int_equal(script_user_reply(f.u, &r), SCRIPT_STEP_END);
    assert_false(script_user_is_busy(f.u));

    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_REQUEST);
    r = (struct script_reply){.status = 404};
    assert_int_equal(script_user_reply(f.u, &r), SCRIPT_STEP_REQUEST);
    assert_int_equal(script_user_request(f.u)->n_headers, 0);
    assert_int_equal(script_user_reply(f.u, &r), SCRIPT_STEP_REQUEST);
    assert_string_equal(script_user_request(f.u)->url, "/count/2/2/1");
    close_script(&f);
}

static void a_sleep_yields_its_duration(void **state)
{
    struct fixture f = {0};

    (void)state;
    open_script(&f, "function iteration(user)\n"
                    "  brink.sleep(0.25)\n"
                    "  brink.sleep(0)\n"
                    "  brink.request{url = '/after'}\n"
                    "end\n");
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_SLEEP);
    assert_int_equal(script_user_sleep_us(f.u), 250000);
    assert_int_equal(script_user_resume(f.u), SCRIPT_STEP_SLEEP);
    assert_int_equal(script_user_sleep_us(f.u), 0);
    assert_int_equal(script_user_resume(f.u), SCRIPT_STEP_REQUEST);
    assert_string_equal(script_user_request(f.u)->url, "/after");
    close_script(&f);
}

static void a_lua_error_ends_the_iteration_with_its_line(void **state)
{
    struct fixture f = {0};
    struct script_reply r = {.status = 0, .error = "timeout"};

    (void)state;
    open_script(&f, "function iteration(user)\n"
                    "  local r = brink.request{url = '/x'}\n"
                    "  if r.error == 'timeout' then\n"
                    "    local t = nil\n"
                    "    return t.field\n"
                    "  end\n"
                    "end\n");
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_REQUEST);
    assert_int_equal(script_user_reply(f.u, &r), SCRIPT_STEP_ERROR);
    assert_non_null(strstr(script_user_error(f.u), "t.lua:5: attempt to index"));
    assert_false(script_user_is_busy(f.u));
    /* The next iteration runs in a new coroutine. */
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_REQUEST);
    r = (struct script_reply){.status = 200};
    assert_int_equal(script_user_reply(f.u, &r), SCRIPT_STEP_END);
    close_script(&f);
}

static void a_bad_request_is_an_error_at_the_scripts_line(void **state)
{
    struct fixture f = {0};

    (void)state;
    open_script(&f, "function iteration(user)\n"
                    "  if user.iteration == 1 then\n"
                    "    brink.request{url = '/x', expect = {42}}\n"
                    "  end\n"
                    "  brink.request{url = '/y'}\n"
                    "end\n");
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_ERROR);
    assert_non_null(strstr(script_user_error(f.u), "t.lua:3: brink.request: expect"));
    /* The engine refuses one it cannot send: an error at the same line. */
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_REQUEST);
    assert_int_equal(script_user_refuse(f.u, "no route"), SCRIPT_STEP_ERROR);
    assert_string_equal(script_user_error(f.u), "t.lua:5: no route");
    close_script(&f);
}

static void cancel_drops_the_iteration(void **state)
{
    struct fixture f = {0};

    (void)state;
    open_script(&f, "function iteration(user)\n"
                    "  brink.request{url = '/' .. user.iteration}\n"
                    "end\n");
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_REQUEST);
    script_user_cancel(f.u);
    assert_false(script_user_is_busy(f.u));
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_REQUEST);
    assert_string_equal(script_user_request(f.u)->url, "/2");
    close_script(&f);
}

static void scripts_that_cannot_run_are_refused_at_load(void **state)
{
    struct fixture f = {0};
    char err[SCRIPT_WHY_MAX];

    (void)state;
    write_script(&f, "function iteration(user)\n  local x = = 1\nend\n");
    assert_int_equal(script_setup(f.path, "t.lua", 1, err, sizeof(err), &f.su), -EINVAL);
    assert_non_null(strstr(err, "brink: t.lua:2:"));
    assert_int_equal(script_check(f.path, "t.lua", err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "brink: t.lua:2:"));
    unlink(f.path);

    write_script(&f, "function setup() error('no data') end\nfunction iteration() end\n");
    assert_int_equal(script_setup(f.path, "t.lua", 1, err, sizeof(err), &f.su), -EINVAL);
    assert_non_null(strstr(err, "brink: t.lua: setup: t.lua:1: no data"));
    unlink(f.path);

    write_script(&f, "local x = 1\n");
    assert_int_equal(script_setup(f.path, "t.lua", 1, err, sizeof(err), &f.su), -EINVAL);
    assert_non_null(strstr(err, "no function iteration(user)"));
    unlink(f.path);
}

static void count_marks(void *arg, const char *name, enum script_mark kind, double value,
                        uint64_t passed, uint64_t calls)
{
    int *n = arg;

    if (kind == SCRIPT_MARK_CHECK && strcmp(name, "ok") == 0) {
        assert_true(value == 1);
        assert_int_equal(passed, 2);
        assert_int_equal(calls, 3);
        (*n)++;
    } else if (kind == SCRIPT_MARK_COUNTER && strcmp(name, "bytes") == 0) {
        assert_true(value == 30);
        assert_int_equal(calls, 2);
        (*n)++;
    }
}

static void checks_and_counters_are_taken_once_an_interval(void **state)
{
    struct fixture f = {0};
    int n = 0;

    (void)state;
    open_script(&f, "function iteration(user)\n"
                    "  brink.check(true, 'ok') brink.check(false, 'ok') brink.check(1, 'ok')\n"
                    "  brink.counter('bytes', 10) brink.counter('bytes', 20)\n"
                    "end\n");
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_END);
    script_take_marks(f.sc, count_marks, &n);
    assert_int_equal(n, 2);
    close_script(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_request_yields_and_its_reply_resumes),
        cmocka_unit_test(a_sleep_yields_its_duration),
        cmocka_unit_test(a_lua_error_ends_the_iteration_with_its_line),
        cmocka_unit_test(a_bad_request_is_an_error_at_the_scripts_line),
        cmocka_unit_test(cancel_drops_the_iteration),
        cmocka_unit_test(scripts_that_cannot_run_are_refused_at_load),
        cmocka_unit_test(checks_and_counters_are_taken_once_an_interval),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
