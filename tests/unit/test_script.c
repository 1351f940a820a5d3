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

/* Limits no test script reaches, unless it means to. */
static const struct script_limits loose = {.budget_us = 3600000000ull, .memory_bytes = 1ull << 30};

struct fixture {
    struct script_limits limits; /* zero: loose */
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
    if (!f->limits.budget_us)
        f->limits = loose;
    assert_int_equal(script_setup(f->path, "t.lua", 7, &f->limits, err, sizeof(err), &f->su), 0);
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

/* brink.tcp: sends queue until a receive, which yields one exchange of
 * its connection with its framing; the reply's data resumes the script;
 * the connection stays the user's across iterations. */
static void an_exchange_yields_what_send_queued_and_its_reply_resumes(void **state)
{
    struct fixture f = {0};
    const struct script_request *q;
    const struct script_exchange *x;
    struct script_reply r = {.body = "+OK\r\n", .body_len = 5};

    (void)state;
    open_script(&f, "function iteration(user)\n"
                    "  user.c = user.c or brink.tcp{host = '127.0.0.1', port = 6379}\n"
                    "  user.c:send('PING')\n"
                    "  user.c:send('\\r\\n')\n"
                    "  local r = user.c:receive{upto = '\\r\\n', name = 'PING', timeout = 2}\n"
                    "  brink.check(r.data == '+OK\\r\\n' and r.error == nil, 'ok')\n"
                    "  local g = user.c:receive{bytes = 3}\n"
                    "  brink.check(g.data == '' and g.error == 'reset', 'failed')\n"
                    "end\n");
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_REQUEST);
    q = script_user_request(f.u);
    x = q->exchange;
    assert_non_null(x);
    assert_string_equal(q->name, "PING");
    assert_int_equal(q->timeout_us, 2000000);
    assert_int_equal(x->conn, 0);
    assert_string_equal(x->spec->host, "127.0.0.1");
    assert_int_equal(x->spec->port, 6379);
    assert_false(x->spec->is_tls);
    assert_int_equal(x->frame, SCRIPT_FRAME_UPTO);
    assert_int_equal(x->upto_len, 2);
    assert_memory_equal(x->out, "PING\r\n", 6);
    assert_int_equal(x->out_len, 6);
    assert_int_equal(x->max, SCRIPT_REPLY_MAX);
    assert_int_equal(script_user_reply(f.u, &r), SCRIPT_STEP_REQUEST);
    /* What was sent went with the exchange: the next one sends nothing. */
    x = script_user_request(f.u)->exchange;
    assert_int_equal(x->frame, SCRIPT_FRAME_BYTES);
    assert_int_equal(x->bytes, 3);
    assert_int_equal(x->out_len, 0);
    assert_string_equal(script_user_request(f.u)->name, "tcp");
    r = (struct script_reply){.error = "reset"};
    assert_int_equal(script_user_reply(f.u, &r), SCRIPT_STEP_END);
    /* The same connection in the next iteration. */
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_REQUEST);
    assert_int_equal(script_user_request(f.u)->exchange->conn, 0);
    assert_int_equal(script_user_take_closes(f.u), 0);
    close_script(&f);
}

/* A complete function and a pattern frame the reply in the script. */
static void framing_by_the_script_says_where_the_reply_ends(void **state)
{
    struct fixture f = {0};
    char why[SCRIPT_WHY_MAX];
    struct script_reply r = {.body = "x", .body_len = 1};

    (void)state;
    open_script(&f, "function iteration(user)\n"
                    "  local c = brink.tcp{host = 'localhost', port = 1}\n"
                    "  c:receive{complete = function(b)\n"
                    "    local n = tonumber(b:match('^(%d+):'))\n"
                    "    if n and #b >= #tostring(n) + 1 + n then return #tostring(n) + 1 + n end\n"
                    "  end}\n"
                    "  c:receive{pattern = 'END\\r\\n'}\n"
                    "  c:receive{complete = function(b) return 99 end}\n"
                    "  c:receive{complete = function(b) error('boom') end}\n"
                    "end\n");
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_REQUEST);
    assert_int_equal(script_user_request(f.u)->exchange->frame, SCRIPT_FRAME_FUNCTION);
    assert_int_equal(script_user_frame(f.u, "5:ab", 4, why, sizeof(why)), 0);
    assert_int_equal(script_user_frame(f.u, "5:abcdefg", 9, why, sizeof(why)), 7);
    assert_int_equal(script_user_reply(f.u, &r), SCRIPT_STEP_REQUEST);
    /* A pattern matches from the first byte, or not at all. */
    assert_int_equal(script_user_frame(f.u, "VALUE\r\nEND\r\nmore", 16, why, sizeof(why)), 0);
    assert_int_equal(script_user_frame(f.u, "END\r\nmore", 9, why, sizeof(why)), 5);
    assert_int_equal(script_user_reply(f.u, &r), SCRIPT_STEP_REQUEST);
    assert_int_equal(script_user_frame(f.u, "abc", 3, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "expected nil or a length from 1 to 3"));
    assert_int_equal(script_user_reply(f.u, &r), SCRIPT_STEP_REQUEST);
    assert_int_equal(script_user_frame(f.u, "abc", 3, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "t.lua:9: boom"));
    assert_int_equal(script_user_reply(f.u, &r), SCRIPT_STEP_END);
    close_script(&f);
}

/* Bad arguments are errors at the script's line, naming what is expected. */
static void bad_connections_and_receives_are_errors_at_the_line(void **state)
{
    static const struct {
        const char *code;
        const char *want;
    } cases[] = {
        {"brink.tcp{host = '127.0.0.1', port = 0}", "t.lua:2: brink.tcp: port must be a whole"},
        {"brink.tcp{port = 1}", "t.lua:2: brink.tcp: host must be a string"},
        {"brink.tcp{host = 'a b', port = 1}", "host: character 2 is none a host name has"},
        {"brink.tcp{host = 'bob:pw@h', port = 1}", "host: character 7 is none"},
        {"brink.ws{url = 'ws://bob:hunter2@h/'}",
         "brink.ws: url \"ws://bob:<redacted len=7>@h/\": no user or password"},
        {"brink.tcp{host = 'h', port = 1}:receive{}", "t.lua:2: c:receive: say how the reply ends"},
        {"brink.tcp{host = 'h', port = 1}:receive{upto = 'x', bytes = 1}", "(got 2)"},
        {"brink.tcp{host = 'h', port = 1}:receive{bytes = 10, max = 5}", "raise max"},
        {"brink.tcp{host = 'h', port = 1}:ping()", "brink.tcp has no ping"},
        {"brink.ws{url = 'http://h/'}", "brink.ws: url must be ws://"},
        {"brink.ws{url = 'ws://h:99999/'}", "the port must be from 1 to 65535"},
        {"brink.ws{url = 'ws://h/'}:receive{upto = 'x'}", "a brink.ws receive takes one message"},
        {"brink.ws{url = 'ws://h/'}:send('x', 'json')", "the type must be \"text\" or \"binary\""},
        {"for i = 1, 17 do user[i] = brink.tcp{host = 'h', port = 1} end",
         "a user holds at most 16 connections"},
    };
    char text[512];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fixture f = {0};

        snprintf(text, sizeof(text), "function iteration(user)\n  %s\nend\n", cases[i].code);
        open_script(&f, text);
        assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_ERROR);
        if (!strstr(script_user_error(f.u), cases[i].want))
            fail_msg("%s: got \"%s\", expected \"%s\"", cases[i].code, script_user_error(f.u),
                     cases[i].want);
        close_script(&f);
    }
}

/* close() and the collector close a connection before the next step;
 * brink.ws frames each message masked, its upgrade target kept. */
static void closes_are_told_and_websocket_messages_are_framed(void **state)
{
    struct fixture f = {0};
    const struct script_exchange *x;
    struct script_reply r = {.body = "hi", .body_len = 2, .type = "text"};

    (void)state;
    open_script(&f, "function iteration(user)\n"
                    "  local a = brink.tcp{host = 'h', port = 1}\n"
                    "  local b = brink.tcp{host = 'h', port = 2}\n"
                    "  a:close()\n"
                    "  local w = brink.ws{url = 'ws://[::1]:8080/echo?x=1', headers = {A = 'b'}}\n"
                    "  w:send('hi')\n"
                    "  local m = w:receive{name = 'echo'}\n"
                    "  brink.check(m.type == 'text' and m.data == 'hi', 'echo')\n"
                    "end\n");
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_REQUEST);
    assert_int_equal(script_user_take_closes(f.u), 1u << 0);
    assert_int_equal(script_user_take_closes(f.u), 0);
    x = script_user_request(f.u)->exchange;
    /* a's index was free again: the engine closes its socket first. */
    assert_int_equal(x->conn, 0);
    assert_true(x->spec->is_ws);
    assert_string_equal(x->spec->host, "::1");
    assert_int_equal(x->spec->port, 8080);
    assert_string_equal(x->spec->path, "/echo?x=1");
    assert_int_equal(x->spec->n_headers, 1);
    assert_string_equal(x->spec->headers[0], "A: b");
    assert_int_equal(x->frame, SCRIPT_FRAME_MESSAGE);
    /* A text frame, FIN, masked: 2 bytes of head, 4 of mask, 2 of data. */
    assert_int_equal(x->out_len, 8);
    assert_int_equal(x->out[0], 0x81);
    assert_int_equal(x->out[1], 0x80 | 2);
    assert_int_equal(x->out[6] ^ x->out[2], 'h');
    assert_int_equal(x->out[7] ^ x->out[3], 'i');
    assert_int_equal(script_user_reply(f.u, &r), SCRIPT_STEP_END);
    /* a and b are garbage once collected: their connections close. */
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_REQUEST);
    script_user_cancel(f.u);
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
    assert_int_equal(script_setup(f.path, "t.lua", 1, &loose, err, sizeof(err), &f.su), -EINVAL);
    assert_non_null(strstr(err, "brink: t.lua:2:"));
    assert_int_equal(script_check(f.path, "t.lua", err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "brink: t.lua:2:"));
    unlink(f.path);

    write_script(&f, "function setup() error('no data') end\nfunction iteration() end\n");
    assert_int_equal(script_setup(f.path, "t.lua", 1, &loose, err, sizeof(err), &f.su), -EINVAL);
    assert_non_null(strstr(err, "brink: t.lua: setup: t.lua:1: no data"));
    unlink(f.path);

    write_script(&f, "local x = 1\n");
    assert_int_equal(script_setup(f.path, "t.lua", 1, &loose, err, sizeof(err), &f.su), -EINVAL);
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

/* Runs one iteration of text (user 0) under limits; the step and the
 * error it ended with go to *step and why; then a second iteration,
 * which the script makes short (user.iteration > 1), must end well: the
 * run goes on after a script the guard stopped. */
static void run_bomb(const struct script_limits *limits, const char *text, enum script_step *step,
                     char *why, size_t why_len)
{
    struct fixture f = {.limits = *limits};

    open_script(&f, text);
    *step = script_user_begin(f.u);
    snprintf(why, why_len, "%s", *step == SCRIPT_STEP_ERROR ? script_user_error(f.u) : "");
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_END);
    close_script(&f);
}

static void assert_bomb(const struct script_limits *limits, const char *body, const char *want)
{
    char text[1024], why[SCRIPT_WHY_MAX];
    enum script_step step;

    snprintf(text, sizeof(text),
             "function iteration(user)\n"
             "  if user.iteration > 1 then return end\n"
             "%s\n"
             "end\n",
             body);
    run_bomb(limits, text, &step, why, sizeof(why));
    assert_int_equal(step, SCRIPT_STEP_ERROR);
    /* "t.lua:LINE: ...", or "t.lua: ..." for an allocation refused outright. */
    assert_int_equal(strncmp(why, "t.lua:", 6), 0);
    if (!strstr(why, want))
        fail_msg("\"%s\" does not hold \"%s\"", why, want);
}

static const struct script_limits tight = {.budget_us = 100000, .memory_bytes = 1u << 30};
/* A budget no memory bomb reaches first, even on a slow machine. */
static const struct script_limits capped = {.budget_us = 3600000000ull, .memory_bytes = 16u << 20};

static void a_script_that_never_yields_is_stopped_at_its_budget(void **state)
{
    (void)state;
    assert_bomb(&tight, "  while true do end",
                "t.lua:3: ran for more than 100ms without yielding ([scenario] budget)");
    /* A pcall of the script cannot hold it: the error comes again. */
    assert_bomb(&tight, "  while true do pcall(function() while true do end end) end",
                "ran for more than 100ms without yielding");
    assert_bomb(&tight, "  local s = ('x'):rep(64)\n  while true do s = s:upper():lower() end",
                "t.lua:4: ran for more than 100ms");
}

static void memory_past_the_cap_fails_the_iteration(void **state)
{
    (void)state;
    assert_bomb(&capped, "  local t = {}\n  while true do t[#t + 1] = {#t} end",
                "over the memory cap of 16 MiB ([scenario] memory)");
    assert_bomb(&capped, "  local s = 'x'\n  while true do s = s .. s end",
                "t.lua: over the memory cap of 16 MiB ([scenario] memory)");
    assert_bomb(&capped, "  local s = ('x'):rep(1024)\n  while true do s = s:gsub('.', '%0%0') end",
                "over the memory cap of 16 MiB");
    assert_bomb(&capped, "  local ok = pcall(string.rep, 'x', 1e9)\n  while true do end",
                "over the memory cap of 16 MiB");
}

static void nesting_is_an_error_not_a_crash(void **state)
{
    (void)state;
    assert_bomb(&tight, "  local function f() coroutine.wrap(f)() end\n  f()",
                "t.lua:3: coroutines resumed inside each other more than 100 deep");
    assert_bomb(&tight,
                "  local function f()\n"
                "    local ok, e = coroutine.resume(coroutine.create(f))\n"
                "    if not ok then error(e, 0) end\n"
                "  end\n"
                "  f()",
                "coroutines resumed inside each other more than 100 deep");
    assert_bomb(&tight, "  local function f() return (('ab'):gsub('.', f)) end\n  f()",
                "t.lua:3: callbacks nested too deep (C stack over 512 KiB)");
}

static void coroutines_of_the_script_still_work(void **state)
{
    struct fixture f = {0};

    (void)state;
    open_script(
        &f,
        "function iteration(user)\n"
        "  local gen = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end)\n"
        "  local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) return b * 2 end)\n"
        "  local _, x = coroutine.resume(co, 1)\n"
        "  local _, y = coroutine.resume(co, 5)\n"
        "  local ok, e = pcall(coroutine.wrap(function() error('inner', 0) end))\n"
        "  brink.request{url = '/' .. gen() .. gen() .. gen() .. x .. y .. tostring(ok) .. e}\n"
        "end\n");
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_REQUEST);
    assert_string_equal(script_user_request(f.u)->url, "/123210falseinner");
    close_script(&f);
}

static void setup_and_the_main_chunk_have_the_budget_too(void **state)
{
    struct fixture f = {0};
    char err[SCRIPT_WHY_MAX];

    (void)state;
    write_script(&f, "function setup()\n  while true do end\nend\nfunction iteration() end\n");
    assert_int_equal(script_setup(f.path, "t.lua", 1, &tight, err, sizeof(err), &f.su), -EINVAL);
    assert_non_null(strstr(err, "brink: t.lua: setup: t.lua:2: ran for more than 100ms"));
    unlink(f.path);

    write_script(&f, "local t = {}\nwhile true do t[#t + 1] = 'x' .. #t end\n");
    assert_int_equal(script_setup(f.path, "t.lua", 1, &capped, err, sizeof(err), &f.su), -EINVAL);
    assert_non_null(strstr(err, "brink: t.lua: over the memory cap of 16 MiB"));
    unlink(f.path);
}

static void a_stop_ends_a_running_script_but_not_a_short_one(void **state)
{
    struct fixture f = {0};

    (void)state;
    open_script(&f, "function iteration(user)\n"
                    "  if user.iteration == 2 then while true do end end\n"
                    "  local t = {} for i = 1, 1000 do t[i] = i end\n"
                    "end\n");
    script_setup_stop(f.su);
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_END);
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_ERROR);
    assert_string_equal(script_user_error(f.u), "t.lua:2: stopped: the run is ending");
    close_script(&f);

    /* The run's duration ended (its deadline passed). */
    memset(&f, 0, sizeof(f));
    open_script(&f, "function iteration(user)\n  while true do end\nend\n");
    script_setup_set_deadline(f.su, 1);
    assert_int_equal(script_user_begin(f.u), SCRIPT_STEP_ERROR);
    assert_string_equal(script_user_error(f.u), "t.lua:2: stopped: the run is ending");
    close_script(&f);
}

/* Last: script_interrupt_all is never taken back in a process. */
static void a_stop_signal_ends_a_spinning_setup(void **state)
{
    struct fixture f = {0};
    char err[SCRIPT_WHY_MAX];

    (void)state;
    write_script(&f, "function setup()\n  while true do end\nend\nfunction iteration() end\n");
    script_interrupt_all();
    assert_int_equal(script_setup(f.path, "t.lua", 1, &loose, err, sizeof(err), &f.su), -EINTR);
    assert_non_null(strstr(err, "brink: t.lua: setup: t.lua:2: stopped: the run is ending"));
    unlink(f.path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_request_yields_and_its_reply_resumes),
        cmocka_unit_test(a_sleep_yields_its_duration),
        cmocka_unit_test(a_lua_error_ends_the_iteration_with_its_line),
        cmocka_unit_test(a_bad_request_is_an_error_at_the_scripts_line),
        cmocka_unit_test(an_exchange_yields_what_send_queued_and_its_reply_resumes),
        cmocka_unit_test(framing_by_the_script_says_where_the_reply_ends),
        cmocka_unit_test(bad_connections_and_receives_are_errors_at_the_line),
        cmocka_unit_test(closes_are_told_and_websocket_messages_are_framed),
        cmocka_unit_test(cancel_drops_the_iteration),
        cmocka_unit_test(scripts_that_cannot_run_are_refused_at_load),
        cmocka_unit_test(checks_and_counters_are_taken_once_an_interval),
        cmocka_unit_test(a_script_that_never_yields_is_stopped_at_its_budget),
        cmocka_unit_test(memory_past_the_cap_fails_the_iteration),
        cmocka_unit_test(nesting_is_an_error_not_a_crash),
        cmocka_unit_test(coroutines_of_the_script_still_work),
        cmocka_unit_test(setup_and_the_main_chunk_have_the_budget_too),
        cmocka_unit_test(a_stop_ends_a_running_script_but_not_a_short_one),
        cmocka_unit_test(a_stop_signal_ends_a_spinning_setup),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
