/*
 * Each transport alone, against a fake engine: this file implements the
 * calls transport.h declares (and nothing else of the engine: the test
 * links the transports and the pieces they share, not brink_engine),
 * records what the transport tells it, and builds the views a transport
 * reads itself (struct transport_worker and struct transport_slot), never
 * the engine's struct worker or struct slot: a uv loop, the config and the
 * workload from config text, setup from the transport's own setup. The
 * scripted server (script_server.h) runs on the same loop and counts what
 * it read and wrote: the ground truth of the transport's byte counts.
 *
 * The contract checked (transport.h): a started transfer ends in exactly
 * one engine__slot_done, made from a loop callback, never from inside
 * start; an aborted one ends without it, its connection closed; every
 * connection opened is closed once the transport is closed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "config/config.h"
#include "core/container.h"
#include "core/errclass.h"
#include "core/msg.h"
#include "core/tick.h"
#include "core/xalloc.h"
#include "engine/classify.h"
#include "engine/transport.h"
#include "engine/workload.h"
#include "outcome_fixture.h"
#include "script/script.h"
#include "script_server.h"

#define ERR_MAX 512
#define OK SCRIPT_SERVER_OK
#define GOOD_REPLY HEAD200 "Content-Length: 2\r\n\r\nok"

/* What one run of a transport told the fake engine. */
struct record {
    uint64_t started; /* transfers started (transport_ops.start) */
    uint64_t done;    /* engine__slot_done calls */
    uint64_t ok;      /* of them, successes */
    uint64_t errors[ERR__COUNT];
    char first_words[ERR__COUNT][TICK_TEXT_MAX]; /* classify_message, as the engine makes it */
    uint64_t bytes_in, bytes_out;
    long status;                    /* of the last done */
    enum transfer_outcome outcome;  /* of the last done */
    uint64_t stray_done;            /* for a slot not in flight (aborted, or done twice) */
    uint64_t done_in_start;         /* made from inside start */
    uint64_t phases[PHASE__COUNT];  /* samples, by phase */
    uint64_t opened, closed;        /* engine__worker_conn_opened, _closed */
    uint64_t closed_before_opened;  /* a close with no connection open */
    uint64_t resent[RESEND__COUNT]; /* engine__slot_may_resend's yes */
    const char *http_version;       /* engine__worker_http_version's last; NULL: none */
};

/* A fake engine with one worker: the views the transport reads, what the
 * engine keeps of them, and the run's own handles. */
struct run {
    struct transport_worker w;
    struct transport_slot *slots;
    uint32_t n_slots;
    uint32_t in_flight;
    uint32_t conns_open;
    uint64_t start_ns; /* uv_hrtime at the run's start */
    const struct transport_ops *tp;
    struct config c;
    struct script_server srv;
    uv_prepare_t pass; /* each loop pass: the pace's and the closer's new pass */
    uv_prepare_t step; /* each loop pass: the case's own check (abort) */
    uv_timer_t end;    /* closes the transport, from a timer as the engine does */
    uint64_t n;        /* requests to send */
    int is_starting;   /* inside transport_ops.start */
    int is_ending;     /* end armed */
    int is_over;       /* the transport is closed: the server goes too */
    int is_aborted;    /* the abort case's abort happened */
    void (*on_step)(struct run *r);
    struct record rec;
    /* transport_stream: each request is a script's exchange, a request
     * head over the user's connection, its reply framed by its length
     * (a server that writes none: by a head's end, which never comes). */
    struct script_conn_spec spec;
    struct script_exchange x;
    struct scene_req *q; /* one a slot */
};

/* An exchange's request: what the scripted server reads as one request. */
#define EXCHANGE_HEAD "GET / HTTP/1.1\r\nHost: t\r\n\r\n"

static struct run *run_of(const struct transport_worker *w)
{
    return container_of(w, struct run, w);
}

/* ---- The fake engine: transport.h's calls ----------------------------- */

uint32_t engine__worker_in_flight(const struct transport_worker *w)
{
    return run_of(w)->in_flight;
}

int engine__worker_is_done(const struct transport_worker *w)
{
    return run_of(w)->is_ending;
}

uint32_t engine__worker_n_slots(const struct transport_worker *w)
{
    return run_of(w)->n_slots;
}

struct transport_slot *engine__worker_slot(struct transport_worker *w, uint32_t i)
{
    assert_true(i < run_of(w)->n_slots);
    return &run_of(w)->slots[i];
}

void engine__worker_http_version(struct transport_worker *w, const char *version)
{
    run_of(w)->rec.http_version = version;
}

void engine__worker_phase(struct transport_worker *w, enum tick_phase p, uint64_t us)
{
    (void)us;
    run_of(w)->rec.phases[p]++;
}

void engine__worker_conn_opened(struct transport_worker *w)
{
    run_of(w)->conns_open++;
    run_of(w)->rec.opened++;
}

void engine__worker_conn_closed(struct transport_worker *w)
{
    struct run *r = run_of(w);

    if (r->conns_open == 0)
        r->rec.closed_before_opened++;
    else
        r->conns_open--;
    r->rec.closed++;
}

uint64_t engine__worker_now_ns(const struct transport_worker *w)
{
    return uv_hrtime() - run_of(w)->start_ns;
}

void engine__worker_event(struct transport_worker *w, enum event_kind kind, uint64_t at_ns,
                          const char *text)
{
    (void)w;
    (void)kind;
    (void)at_ns;
    (void)text;
}

void engine__slot_arm(const struct transport_slot *s, uv_timer_t *t, uv_timer_cb cb,
                      uint64_t limit_us)
{
    uint64_t took_ns = engine__worker_now_ns(s->w) - s->rq.start_ns;
    uint64_t left_ns = limit_us * 1000 > took_ns ? limit_us * 1000 - took_ns : 0;

    uv_timer_start(t, cb, (left_ns + 999999) / 1000000, 0);
}

uint64_t engine__slot_timeout_us(const struct transport_slot *s)
{
    return workload_kind(s->w->workload, s->rq.kind)->timeout_us;
}

uint64_t engine__slot_connect_limit_us(const struct transport_slot *s)
{
    uint64_t connect_us = s->w->config->target.connect_timeout_us;
    uint64_t limit_us = engine__slot_timeout_us(s);

    return connect_us < limit_us ? connect_us : limit_us;
}

void engine__slot_queued_words(const struct transport_slot *s, char *buf, size_t cap)
{
    (void)s;
    snprintf(buf, cap, "queued behind a burst of new connections");
}

static void start(struct run *r, struct transport_slot *s);
static void end_soon(struct run *r);

void engine__slot_done(struct transport_slot *s, const struct transfer_result *done,
                       uint64_t bytes_in, uint64_t bytes_out, const char *words)
{
    struct run *r = run_of(s->w);
    struct record *rec = &r->rec;
    struct transfer_result judged = *done;
    int cls;

    if (r->is_starting)
        rec->done_in_start++;
    if (!s->is_in_flight) {
        rec->stray_done++;
        return;
    }
    s->is_in_flight = 0;
    r->in_flight--;
    rec->done++;
    rec->bytes_in += bytes_in;
    rec->bytes_out += bytes_out;
    rec->status = done->http_status;
    rec->outcome = done->outcome;
    /* Judged as the engine judges it: against the kind's expected statuses. */
    judged.expect = &workload_kind(s->w->workload, s->rq.kind)->expect;
    cls = classify_transfer(&judged);
    if (cls < 0) {
        rec->ok++;
    } else {
        if (!rec->errors[cls]++)
            classify_message(&judged, words, rec->first_words[cls], TICK_TEXT_MAX);
    }
    if (rec->started < r->n && !r->is_aborted)
        start(r, s);
    else if (r->in_flight == 0)
        end_soon(r);
}

const struct sigv4_out *engine__slot_sign(struct transport_slot *s, const char *url, size_t url_len,
                                          const char *host)
{
    /* No kind here has aws_sigv4: the transports never ask. */
    (void)s;
    (void)url;
    (void)url_len;
    (void)host;
    fail_msg("engine__slot_sign called for a kind without aws_sigv4");
    return NULL;
}

void engine__slot_cookie_set(struct transport_slot *s, const char *url, const char *v, size_t n)
{
    (void)s;
    (void)url;
    (void)v;
    (void)n;
}

size_t engine__slot_cookie_line(struct transport_slot *s, const char *url, char *buf, size_t cap)
{
    (void)s;
    (void)url;
    (void)buf;
    (void)cap;
    return 0;
}

void engine__slot_location(struct transport_slot *s, const char *url, const char *v, size_t n)
{
    (void)s;
    (void)url;
    (void)v;
    (void)n;
}

/* Bytes of "scheme://authority" at the start of url, 0 when it has none. */
static size_t origin_len(const char *url)
{
    const char *p = strstr(url, "://");

    return p ? (size_t)(p + 3 - url) + strcspn(p + 3, "/?#") : 0;
}

int engine__same_origin(const char *a, const char *b)
{
    size_t n = origin_len(a);

    return n > 0 && n == origin_len(b) && strncasecmp(a, b, n) == 0;
}

int engine__is_credential(const char *line)
{
    return strncasecmp(line, "Authorization:", 14) == 0 || strncasecmp(line, "Cookie:", 7) == 0;
}

const char *engine__slot_method(const struct transport_slot *s)
{
    return workload_kind(s->w->workload, s->rq.kind)->method;
}

int engine__slot_has_body(const struct transport_slot *s)
{
    return workload_kind(s->w->workload, s->rq.kind)->body != NULL;
}

int engine__slot_may_resend(struct transport_slot *s, enum resend_cause cause)
{
    /* The requests here are GETs, which may go again whenever retry is on. */
    if (!s->w->config->target.retry)
        return 0;
    run_of(s->w)->rec.resent[cause]++;
    return 1;
}

/* ---- The fake engine's worker ----------------------------------------- */

static void start(struct run *r, struct transport_slot *s)
{
    s->is_in_flight = 1;
    r->in_flight++;
    s->rq = (struct transport_request){
        .kind = 0, .seq = r->rec.started++, .vu = s->vu, .start_ns = engine__worker_now_ns(&r->w)};
    if (r->tp == &transport_stream) {
        struct scene_req *q = &r->q[s->index];

        q->exchange = &r->x;
        q->timeout_us = engine__slot_timeout_us(s);
        capture_begin(&q->cap, 1);
        s->rq.script = q;
    }
    r->is_starting = 1;
    r->tp->start(s, &s->rq);
    r->is_starting = 0;
}

static void on_pass(uv_prepare_t *p)
{
    struct run *r = container_of(p, struct run, pass);

    pace_new_pass(&r->w.pace);
    closer_new_pass(&r->w.closer);
}

static void on_step(uv_prepare_t *p)
{
    struct run *r = container_of(p, struct run, step);

    if (r->on_step && !r->is_ending)
        r->on_step(r);
}

/* Closes the transport and the run's handles; the loop then ends. */
static void on_end(uv_timer_t *t)
{
    struct run *r = container_of(t, struct run, end);

    r->tp->close(&r->w);
    uv_close((uv_handle_t *)&r->pass, NULL);
    uv_close((uv_handle_t *)&r->step, NULL);
    uv_close((uv_handle_t *)&r->end, NULL);
    closer_close_all(&r->w.closer);
    r->is_over = 1;
}

static void end_soon(struct run *r)
{
    if (r->is_ending)
        return;
    r->is_ending = 1;
    uv_timer_start(&r->end, on_end, 0, 0);
}

/* Aborts every transfer in flight, as the engine's stop does. */
static void abort_all(struct run *r)
{
    for (uint32_t i = 0; i < r->n_slots; i++) {
        struct transport_slot *s = &r->slots[i];

        if (!s->is_in_flight)
            continue;
        r->tp->abort(s);
        s->is_in_flight = 0;
        r->in_flight--;
    }
}

static int is_run_over(void *arg)
{
    return ((struct run *)arg)->is_over;
}

static void on_watchdog(void *arg)
{
    struct run *r = arg;

    abort_all(r);
    end_soon(r);
}

/* The config and workload of a run of n requests of sc on users users. */
static struct workload *load(struct config *c, const struct server_script *sc, uint16_t port,
                             const char *transport, uint32_t users, uint64_t n)
{
    struct workload *wl = NULL;
    char text[512], err[ERR_MAX] = "";

    snprintf(text, sizeof(text),
             "[target]\nurl = http://127.0.0.1:%u/\ntransport = %s\ntimeout = %ums\n"
             "[load]\nconcurrency = %u\nrequests = %llu\n",
             port, transport, sc->timeout_ms ? sc->timeout_ms : 5000, users, (unsigned long long)n);
    config_init(c);
    assert_int_equal(config_load_string(c, "t.ini", text, NULL, stderr), 0);
    if (workload_new(c, 1, err, sizeof(err), &wl) != 0)
        fail_msg("workload_new: %s", err);
    return wl;
}

/*
 * Runs n requests of sc on tp, sc->users at a time, against the scripted
 * server, until every one is done (or on_step ends it); r->rec and r->srv
 * then hold what the transport said and what the server saw.
 */
static void run(struct run *r, const struct transport_ops *tp, const struct server_script *sc,
                uint64_t n, void (*step)(struct run *r))
{
    uint32_t users = sc->users ? sc->users : 1;
    struct transport_worker *w = &r->w;
    struct workload *wl;
    char err[ERR_MAX] = "", why[320] = "";
    uint16_t port;
    int fd = script_server_listen(&port);

    memset(r, 0, sizeof(*r));
    r->tp = tp;
    r->n = n;
    r->on_step = step;
    wl = load(&r->c, sc, port, tp == &transport_stream ? "auto" : tp->name, users, n);
    /* The stream transport carries a script's exchanges, whatever the run. */
    if (tp != &transport_stream && tp->accepts && tp->accepts(&r->c, wl, why, sizeof(why)) != 0)
        fail_msg("%s refuses the run: %s", tp->name, why);
    r->spec = (struct script_conn_spec){.host = "127.0.0.1", .port = port};
    r->x = (struct script_exchange){.spec = &r->spec,
                                    .out = (const unsigned char *)EXCHANGE_HEAD,
                                    .out_len = sizeof(EXCHANGE_HEAD) - 1,
                                    .frame = sc->len ? SCRIPT_FRAME_BYTES : SCRIPT_FRAME_UPTO,
                                    .bytes = sc->len,
                                    .upto = "\r\n\r\n",
                                    .upto_len = 4,
                                    .max = SCRIPT_REPLY_MAX};
    r->q = xcalloc(users, sizeof(*r->q));

    w->config = &r->c;
    w->workload = wl;
    w->setup = tp->setup ? tp->setup(&r->c, wl) : NULL;
    r->start_ns = uv_hrtime();
    w->max_concurrency = users;
    w->rng = 1;
    assert_int_equal(uv_loop_init(&w->loop), 0);
    pace_init(&w->pace);
    closer_init(&w->loop, &w->closer);
    uv_prepare_init(&w->loop, &r->pass);
    uv_prepare_start(&r->pass, on_pass);
    uv_unref((uv_handle_t *)&r->pass);
    uv_prepare_init(&w->loop, &r->step);
    uv_prepare_start(&r->step, on_step);
    uv_timer_init(&w->loop, &r->end);
    if (tp->init(w, err, sizeof(err)) != 0)
        fail_msg("%s init: %s", tp->name, err);
    r->slots = xcalloc(users, sizeof(*r->slots));
    for (uint32_t i = 0; i < users; i++) {
        struct transport_slot *s = &r->slots[r->n_slots++];

        s->w = w;
        s->index = i;
        s->vu = i;
        tp->slot_init(s);
    }

    r->srv.is_over = is_run_over;
    r->srv.on_watchdog = on_watchdog;
    r->srv.arg = r;
    script_server_start(&r->srv, &w->loop, fd, sc);
    for (uint32_t i = 0; i < users && r->rec.started < n; i++)
        start(r, &r->slots[i]);
    uv_run(&w->loop, UV_RUN_DEFAULT);

    for (uint32_t i = 0; i < r->n_slots; i++) {
        tp->slot_free(&r->slots[i]);
        capture_free(&r->q[i].cap);
    }
    free(r->slots);
    free(r->q);
    tp->fini(w);
    /* Every handle, the transport's included, was closed. */
    assert_int_equal(uv_loop_close(&w->loop), 0);
    script_server_free(&r->srv);
    if (tp->teardown)
        tp->teardown(w->setup);
    workload_free(wl);
    config_free(&r->c);
    assert_false(r->srv.watchdog_fired);
}

static const struct transport_ops *const transports[] = {&transport_curl, &transport_h1,
                                                         &transport_stream};
#define N_TRANSPORTS (sizeof(transports) / sizeof(transports[0]))

/* What every run must show, whatever its replies: one done per transfer
 * started, from a loop callback, and every connection closed by the end. */
static void check_contract(const struct run *r)
{
    const struct record *rec = &r->rec;

    assert_int_equal(rec->done_in_start, 0);
    assert_int_equal(rec->stray_done, 0);
    assert_int_equal(rec->closed_before_opened, 0);
    assert_int_equal(rec->closed, rec->opened);
    assert_int_equal(r->conns_open, 0);
}

/* ---- A good reply ----------------------------------------------------- */

static void a_good_reply_is_one_done_with_its_bytes_and_phases(void **state)
{
    struct server_script sc = {"good", GOOD_REPLY, 0, NULL, 0, KEEP, OK, NULL, 0, 0};
    struct run r;

    (void)state;
    script_server_make(&sc);
    for (size_t i = 0; i < N_TRANSPORTS; i++) {
        run(&r, transports[i], &sc, 3, NULL);
        check_contract(&r);
        assert_int_equal(r.rec.started, 3);
        assert_int_equal(r.rec.done, 3);
        assert_int_equal(r.rec.ok, 3);
        /* An exchange has no status: its reply is bytes. */
        assert_int_equal(r.rec.status, transports[i] == &transport_stream ? 0 : 200);
        assert_int_equal(r.rec.outcome, TRANSFER_OK);
        /* The server's count is the ground truth. */
        assert_int_equal(r.srv.n_requests, 3);
        assert_int_equal(r.rec.bytes_in, r.srv.bytes_written);
        assert_int_equal(r.rec.bytes_in, 3 * sc.len);
        assert_int_equal(r.rec.bytes_out, r.srv.bytes_read);
        /* One kept-alive connection, connected once; a first byte for each. */
        assert_int_equal(r.srv.n_conns, 1);
        assert_int_equal(r.rec.opened, 1);
        assert_int_equal(r.rec.closed, 1);
        assert_int_equal(r.rec.phases[PHASE_CONNECT], 1);
        assert_int_equal(r.rec.phases[PHASE_TTFB], 3);
        assert_int_equal(r.rec.phases[PHASE_TLS], 0);
        /* The protocol of the replies, for the interval (through the
         * call, not the worker's interval): libcurl names each one, h1
         * names only h2. */
        if (transports[i] == &transport_curl)
            assert_string_equal(r.rec.http_version, "http/1.1");
        else
            assert_null(r.rec.http_version);
    }
}

/* ---- The issue-22 table ----------------------------------------------- */

/* Whether r, from n requests of sc, is what sc wants (as test_engine_run
 * wants it of the real engine); says why not. */
static int is_as_wanted(const struct server_script *sc, const struct run *r, uint64_t n)
{
    const struct record *rec = &r->rec;
    const char *first = sc->want == OK ? "" : rec->first_words[sc->want];

    if (rec->done == n && (sc->want == OK ? rec->ok == n : rec->errors[sc->want] == n) &&
        (!sc->needle || contains_any_case(first, sc->needle)) &&
        !contains_any_case(first, "out of memory"))
        return 1;
    print_error("%s on %s: %llu done, %llu ok; want %s for all %llu%s%s\n", sc->name, r->tp->name,
                (unsigned long long)rec->done, (unsigned long long)rec->ok,
                sc->want == OK ? "ok" : errclass_name(sc->want), (unsigned long long)n,
                sc->needle ? ", with words naming " : "", sc->needle ? sc->needle : "");
    for (int k = 0; k < ERR__COUNT; k++) {
        if (rec->errors[k])
            print_error("  %s %llu: %s\n", errclass_name(k), (unsigned long long)rec->errors[k],
                        rec->first_words[k]);
    }
    return 0;
}

static void each_broken_reply_is_the_class_the_engine_gives_it(void **state)
{
    struct run r;
    int failed = 0;

    (void)state;
    for (size_t i = 0; i < script_server_n_broken; i++) {
        struct server_script *sc = &script_server_broken[i];
        uint64_t n = sc->users ? 200 : 3;

        script_server_make(sc);
        for (size_t t = 0; t < N_TRANSPORTS; t++) {
            run(&r, transports[t], sc, n, NULL);
            check_contract(&r);
            assert_int_equal(r.rec.started, n);
            /* The classes are HTTP's: an exchange frames bytes, and only
             * the contract holds for it here (test_stream.sh has its
             * faults). */
            if (transports[t] != &transport_stream)
                failed += !is_as_wanted(sc, &r, n);
        }
        script_server_unmake(sc);
    }
    assert_int_equal(failed, 0);
}

/* ---- Abort and timeout ------------------------------------------------ */

/* Aborts the one transfer once the server has its request. */
static void abort_once_sent(struct run *r)
{
    if (!r->is_aborted && r->srv.n_requests == 1) {
        r->is_aborted = 1;
        abort_all(r);
        return;
    }
    /* Polled until the server saw the connection close (the watchdog
     * bounds it). */
    if (r->is_aborted && r->srv.n_peer_closed == 1)
        end_soon(r);
}

static void an_aborted_transfer_ends_without_done_and_closes_its_connection(void **state)
{
    struct server_script sc = {"stall", NULL, 0, NULL, 0, STALL, OK, NULL, 0, 0};
    struct run r;

    (void)state;
    for (size_t i = 0; i < N_TRANSPORTS; i++) {
        run(&r, transports[i], &sc, 1, abort_once_sent);
        assert_true(r.is_aborted);
        assert_int_equal(r.rec.started, 1);
        assert_int_equal(r.rec.done, 0);
        assert_int_equal(r.rec.stray_done, 0);
        assert_int_equal(r.srv.n_conns, 1);
        assert_int_equal(r.srv.n_peer_closed, 1);
        check_contract(&r);
        assert_int_equal(r.rec.opened, 1);
    }
}

static void a_server_that_never_answers_is_one_timeout(void **state)
{
    struct server_script sc = {"stall", NULL, 0, NULL, 0, STALL, ERR_TIMEOUT, "time", 0, 300};
    struct run r;

    (void)state;
    for (size_t i = 0; i < N_TRANSPORTS; i++) {
        run(&r, transports[i], &sc, 1, NULL);
        check_contract(&r);
        assert_int_equal(r.rec.done, 1);
        assert_int_equal(r.rec.outcome, TRANSFER_TIMEOUT);
        assert_int_equal(r.rec.errors[ERR_TIMEOUT], 1);
        assert_true(contains_any_case(r.rec.first_words[ERR_TIMEOUT], "time"));
    }
}

/* ---- Which runs a transport takes ------------------------------------- */

/* What tp->accepts says of the run of text: 0, or its error and why. */
static int accepts(const struct transport_ops *tp, const char *text, char *why, size_t why_len)
{
    struct config c;
    struct workload *wl = NULL;
    char err[ERR_MAX] = "";
    int rc;

    config_init(&c);
    assert_int_equal(config_load_string(&c, "t.ini", text, NULL, stderr), 0);
    if (workload_new(&c, 1, err, sizeof(err), &wl) != 0)
        fail_msg("workload_new: %s", err);
    why[0] = '\0';
    rc = tp->accepts(&c, wl, why, why_len);
    workload_free(wl);
    config_free(&c);
    return rc;
}

static void h1_refuses_two_origins_and_a_proxy_and_says_why(void **state)
{
    char why[320];

    (void)state;
    assert_int_equal(accepts(&transport_h1,
                             "[target]\nurl = http://127.0.0.1:1/\n"
                             "[request a]\nurl = http://127.0.0.1:1/a\n"
                             "[request b]\nurl = http://127.0.0.1:2/b\n",
                             why, sizeof(why)),
                     -EINVAL);
    assert_true(contains_any_case(why, "request kind b"));
    assert_true(contains_any_case(why, "host differs"));
    assert_int_equal(accepts(&transport_h1,
                             "[target]\nurl = http://127.0.0.1:1/\nproxy = http://127.0.0.1:2\n",
                             why, sizeof(why)),
                     -EINVAL);
    assert_true(contains_any_case(why, "proxy"));
    /* One origin, no proxy: h1's. */
    assert_int_equal(accepts(&transport_h1,
                             "[target]\nurl = http://127.0.0.1:1/\n"
                             "[request a]\nurl = http://127.0.0.1:1/a\n"
                             "[request b]\nurl = /b\n",
                             why, sizeof(why)),
                     0);
    /* libcurl carries any run. */
    assert_null(transport_curl.accepts);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_good_reply_is_one_done_with_its_bytes_and_phases),
        cmocka_unit_test(each_broken_reply_is_the_class_the_engine_gives_it),
        cmocka_unit_test(an_aborted_transfer_ends_without_done_and_closes_its_connection),
        cmocka_unit_test(a_server_that_never_answers_is_one_timeout),
        cmocka_unit_test(h1_refuses_two_origins_and_a_proxy_and_says_why),
    };
    char err[ERR_MAX];
    int rc;

    for (size_t i = 0; i < N_TRANSPORTS; i++) {
        if (transports[i]->global_init && transports[i]->global_init(err, sizeof(err)) != 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
    }
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    for (size_t i = 0; i < N_TRANSPORTS; i++) {
        if (transports[i]->global_cleanup)
            transports[i]->global_cleanup();
    }
    return rc;
}
