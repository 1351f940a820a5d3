/*
 * The engine's lifetime and its control state: start and join the workers,
 * turn commands from the channel into what the workers should do, and say
 * what was applied (clamped values included) in the event log.
 */
#include "engine/engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <uv.h>

#include "config/config.h"
#include "core/chan.h"
#include "core/xalloc.h"
#include "engine/internal.h"
#include "engine/workload.h"

/* File descriptors kept back for everything that is not a connection: stdio,
 * the recorder, libuv's own, the resolver's pipes. */
#define FD_RESERVE 64

/* Every transport, in the order transport = auto tries them. */
static const struct transport_ops *const transports[] = {&transport_h1, &transport_curl};
#define N_TRANSPORTS (sizeof(transports) / sizeof(transports[0]))

int engine_global_init(char *err, size_t err_len)
{
    for (size_t i = 0; i < N_TRANSPORTS; i++) {
        int rc = transports[i]->global_init ? transports[i]->global_init(err, err_len) : 0;

        if (rc != 0) {
            while (i-- > 0) {
                if (transports[i]->global_cleanup)
                    transports[i]->global_cleanup();
            }
            return rc;
        }
    }
    return 0;
}

void engine_global_cleanup(void)
{
    for (size_t i = N_TRANSPORTS; i-- > 0;) {
        if (transports[i]->global_cleanup)
            transports[i]->global_cleanup();
    }
}

void engine_versions(struct engine_versions *v)
{
    v->curl = transport_curl.version();
    v->uv = uv_version_string();
    v->openssl = transport_h1.version();
}

/*
 * The transport that carries the run: [target] transport's, or for auto
 * the first that accepts it (h1 serves one origin over HTTP/1.1 and
 * HTTP/2; everything else is libcurl's), and what its workers share.
 */
static int choose_transport(struct engine *e, char *err, size_t err_len)
{
    enum config_transport want = e->config->target.transport;
    const struct transport_ops *tp = want == CONFIG_TRANSPORT_CURL ? &transport_curl : NULL;
    char why[320];

    for (size_t i = 0; !tp && i < N_TRANSPORTS; i++) {
        const struct transport_ops *t = transports[i];
        int rc = t->accepts ? t->accepts(e->config, e->workload, why, sizeof(why)) : 0;

        if (rc == 0)
            tp = t;
        else if (want == CONFIG_TRANSPORT_H1 && t == &transport_h1) {
            snprintf(err, err_len,
                     "brink: [target] transport: h1 cannot serve this run: %s (use transport = "
                     "curl or auto)",
                     why);
            return rc;
        }
    }
    e->tp = tp;
    e->tp_setup = tp->setup ? tp->setup(e->config, e->workload) : NULL;
    return 0;
}

/* Raises the soft fd limit to the hard one; returns the limit now in force. */
static uint32_t raise_fd_limit(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1024;
    if (rl.rlim_cur < rl.rlim_max) {
        rlim_t want = rl.rlim_max;

        rl.rlim_cur = want;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            getrlimit(RLIMIT_NOFILE, &rl);
    }
    return rl.rlim_cur > UINT32_MAX ? UINT32_MAX : (uint32_t)rl.rlim_cur;
}

void engine__wake_all(struct engine *e)
{
    for (uint32_t i = 0; i < e->n_workers; i++)
        uv_async_send(&e->workers[i]->wake);
}

/* The channel's wake: from the console's thread, safe per libuv's docs. */
static void on_command(void *arg)
{
    struct engine *e = arg;

    uv_async_send(&e->workers[0]->wake);
}

static uint64_t now_ns(const struct engine *e)
{
    return uv_hrtime() - e->start_ns;
}

/* Clamps a requested concurrency and says why when it had to. */
static uint32_t clamp_concurrency(const struct engine *e, int64_t want, char *why, size_t len)
{
    why[0] = '\0';
    if (want < 1) {
        snprintf(why, len, " (asked %lld; at least 1, pause to stop sending)", (long long)want);
        return 1;
    }
    if ((uint64_t)want > e->max_concurrency) {
        snprintf(why, len, " (asked %lld; the fd limit %u allows %u)", (long long)want,
                 e->fds_limit, e->max_concurrency);
        return e->max_concurrency;
    }
    return (uint32_t)want;
}

/* Clamps a requested rate and says why when it had to. */
static double clamp_rate(double want, char *why, size_t len)
{
    why[0] = '\0';
    if (!(want >= ENGINE_RATE_MIN_PER_S)) {
        snprintf(why, len, " (asked %.6g/s; at least %g/s, pause to stop sending)", want,
                 ENGINE_RATE_MIN_PER_S);
        return ENGINE_RATE_MIN_PER_S;
    }
    if (want > ENGINE_RATE_MAX_PER_S) {
        snprintf(why, len, " (asked %.6g/s; at most %g/s)", want, ENGINE_RATE_MAX_PER_S);
        return ENGINE_RATE_MAX_PER_S;
    }
    return want;
}

/* A rate command, or a concurrency key under the open model (lock held). */
static void apply_rate(struct engine *e, const struct command *cmd, char *text, size_t len)
{
    struct control *c = &e->control;
    double before = c->rate_per_s, want = before;
    char why[96];

    switch (cmd->kind) {
    case CMD_SET_RATE: want = cmd->rate_per_s; break;
    case CMD_SET_CONCURRENCY: want = (double)cmd->n; break;
    case CMD_STEP: want = before + (double)cmd->n * e->config->load.rate_step_per_s; break;
    case CMD_DOUBLE: want = before * 2; break;
    case CMD_HALVE: want = before / 2; break;
    default: break;
    }
    c->rate_per_s = clamp_rate(want, why, sizeof(why));
    snprintf(text, len, "%s: rate %.6g/s -> %.6g/s%s%s", cmd_kind_name(cmd->kind), before,
             c->rate_per_s, why, c->model == LOAD_OPEN ? "" : " (used when the model is open)");
}

/* Switches the load model (lock held). An open model without a rate yet
 * starts at the rate the closed one was getting, so the switch does not
 * change the load by itself. */
static void apply_model(struct engine *e, const struct command *cmd, char *text, size_t len)
{
    struct control *c = &e->control;
    enum load_model before = c->model;
    enum load_model want = cmd->n == CMD_MODEL_SWITCH
                               ? (before == LOAD_OPEN ? LOAD_CLOSED : LOAD_OPEN)
                           : cmd->n == LOAD_OPEN ? LOAD_OPEN
                                                 : LOAD_CLOSED;
    char why[96];

    c->model = want;
    if (want == LOAD_OPEN && c->rate_per_s <= 0) {
        double last = engine__merger_last_rate(e->merger);

        c->rate_per_s =
            clamp_rate(last > 0 ? last : e->config->load.rate_step_per_s, why, sizeof(why));
    }
    if (want == LOAD_OPEN)
        snprintf(text, len, "set_model: %s -> open at %.6g/s, at most %u in flight%s",
                 load_model_name(before), c->rate_per_s, c->max_in_flight,
                 e->think_ms ? " (think_time not applied)" : "");
    else
        snprintf(text, len, "set_model: %s -> closed at concurrency %u", load_model_name(before),
                 c->concurrency);
}

/* Applies one command to the control state (lock held); text says what. */
static void apply(struct engine *e, const struct command *cmd, char *text, size_t len)
{
    struct control *c = &e->control;
    uint32_t before = c->concurrency;
    int64_t want = before;
    char why[96] = "";

    if (c->model == LOAD_OPEN && (cmd->kind == CMD_SET_CONCURRENCY || cmd->kind == CMD_STEP ||
                                  cmd->kind == CMD_DOUBLE || cmd->kind == CMD_HALVE)) {
        apply_rate(e, cmd, text, len);
        return;
    }
    switch (cmd->kind) {
    case CMD_SET_RATE: apply_rate(e, cmd, text, len); return;
    case CMD_SET_MODEL: apply_model(e, cmd, text, len); return;
    case CMD_SET_CONCURRENCY: want = cmd->n; break;
    case CMD_STEP: want = (int64_t)before + cmd->n * (int64_t)e->config->load.step; break;
    case CMD_DOUBLE: want = (int64_t)before * 2; break;
    case CMD_HALVE: want = before > 1 ? before / 2 : 1; break;
    case CMD_PAUSE:
        c->is_paused = 1;
        snprintf(text, len, "pause: no new requests, %u in flight finish", before);
        return;
    case CMD_RESUME:
        c->is_paused = 0;
        if (c->model == LOAD_OPEN)
            snprintf(text, len, "resume at %.6g/s", c->rate_per_s);
        else
            snprintf(text, len, "resume at concurrency %u", before);
        return;
    case CMD_DROP: {
        /* More than the users there can be would only wrap the counters. */
        uint32_t n = cmd->n < 0                    ? 0
                     : cmd->n > e->max_concurrency ? e->max_concurrency
                                                   : (uint32_t)cmd->n;

        for (uint32_t i = 0; i < e->n_workers; i++)
            e->drop_pending[i] += (uint32_t)engine__share(n, e->n_workers, i);
        snprintf(text, len, "drop %u connections in flight", n);
        return;
    }
    case CMD_MARK: snprintf(text, len, "%s", cmd->note); return;
    case CMD_STOP:
        if (c->is_stopping) {
            c->is_aborting = 1;
            snprintf(text, len, "stop again: abort the requests in flight");
        } else {
            c->is_stopping = 1;
            snprintf(text, len, "stop: drain the requests in flight (up to %d ms)",
                     ENGINE_DRAIN_MS);
        }
        return;
    case CMD_RAMP:
    case CMD_RAMP_NEXT:
        /* engine__plan_command took them. */
        return;
    case CMD_REPLAY_PAUSE:
    case CMD_REPLAY_SEEK:
    case CMD_REPLAY_SPEED:
    case CMD_REPLAY_EVENT:
        snprintf(text, len, "%s: only a replay moves in time; ignored", cmd_kind_name(cmd->kind));
        return;
    case CMD__COUNT: break;
    }
    c->concurrency = clamp_concurrency(e, want, why, sizeof(why));
    snprintf(text, len, "%s: concurrency %u -> %u%s", cmd_kind_name(cmd->kind), before,
             c->concurrency, why);
}

static enum run_state state_of(const struct control *c)
{
    if (c->is_stopping)
        return RUN_STOPPING;
    return c->is_paused ? RUN_PAUSED : RUN_RUNNING;
}

/* Tells the merger what ticks should show of the control state (lock held). */
static void publish_control(struct engine *e)
{
    const struct control *c = &e->control;

    engine__merger_set_state(e->merger, state_of(c), c->concurrency);
    if (c->is_stopping) {
        engine__merger_set_stop(e->merger, now_ns(e));
        engine__scene_stop(e);
    }
    engine__merger_set_load(e->merger, c->model, c->rate_per_s, c->max_in_flight);
}

/* Applies cmd and logs what it did; the caller wakes the workers. */
static void apply_one(struct engine *e, const struct command *cmd)
{
    char text[TICK_TEXT_MAX];

    pthread_mutex_lock(&e->lock);
    apply(e, cmd, text, sizeof(text));
    publish_control(e);
    pthread_mutex_unlock(&e->lock);
    engine__merger_event(e->merger, cmd->kind == CMD_MARK ? EV_MARK : EV_COMMAND, now_ns(e), text);
}

void engine__set_level(struct engine *e, double level, const char *who)
{
    char text[2 * TICK_TEXT_MAX], applied[TICK_TEXT_MAX]; /* the event cuts text */
    struct command cmd = {.kind = CMD_SET_CONCURRENCY, .n = (int64_t)level};
    const char *what;
    uint32_t before;
    double before_rate;
    int was_paused, has_moved;

    pthread_mutex_lock(&e->lock);
    if (e->control.model == LOAD_OPEN)
        cmd = (struct command){.kind = CMD_SET_RATE, .rate_per_s = level};
    before = e->control.concurrency;
    before_rate = e->control.rate_per_s;
    /* A level asked for is a level to run at: a paused run resumes. */
    was_paused = e->control.is_paused;
    e->control.is_paused = 0;
    apply(e, &cmd, applied, sizeof(applied));
    has_moved = e->control.concurrency != before || e->control.rate_per_s != before_rate;
    publish_control(e);
    pthread_mutex_unlock(&e->lock);
    /* The plan said its step already; a level that did not move needs no line. */
    if (!was_paused && !has_moved)
        return;
    /* who, not the command's name ("set_concurrency: "), says who asked. */
    what = strstr(applied, ": ") ? strstr(applied, ": ") + 2 : applied;
    snprintf(text, sizeof(text), "%s: %s%s", who, what, was_paused ? " (resumed)" : "");
    engine__merger_event(e->merger, EV_COMMAND, now_ns(e), text);
}

void engine__drain_commands(struct engine *e)
{
    struct command cmd;
    int n = 0;

    n += engine__plan_apply_todo(e);
    while (chan_recv(e->chan, &cmd)) {
        if (engine__plan_command(e, &cmd)) {
            n++;
            continue;
        }
        apply_one(e, &cmd);
        n++;
    }
    if (n)
        engine__wake_all(e);
}

void engine__request_stop(struct engine *e, const char *why, int abort_now)
{
    char text[TICK_TEXT_MAX];
    int changed = 0;

    pthread_mutex_lock(&e->lock);
    if (abort_now && !e->control.is_aborting) {
        e->control.is_stopping = 1;
        e->control.is_aborting = 1;
        changed = 1;
    } else if (!e->control.is_stopping) {
        e->control.is_stopping = 1;
        changed = 1;
    }
    publish_control(e);
    pthread_mutex_unlock(&e->lock);
    if (!changed)
        return;
    snprintf(text, sizeof(text), "%s: %s", why,
             abort_now ? "aborting the requests in flight" : "draining the requests in flight");
    engine__merger_event(e->merger, EV_NOTICE, now_ns(e), text);
    engine__wake_all(e);
}

static void stop_started(struct engine *e)
{
    pthread_mutex_lock(&e->lock);
    e->control.is_stopping = 1;
    e->control.is_aborting = 1;
    pthread_mutex_unlock(&e->lock);
    for (uint32_t i = 0; i < e->n_workers; i++) {
        if (e->workers[i] && e->workers[i]->is_started)
            uv_async_send(&e->workers[i]->wake);
    }
    for (uint32_t i = 0; i < e->n_workers; i++) {
        if (e->workers[i] && e->workers[i]->is_started)
            engine__worker_join(e->workers[i]);
    }
}

int engine__build(const struct engine_params *p, char *err, size_t err_len, struct engine **out)
{
    const struct config *c = p->config;
    struct engine *e = xcalloc(1, sizeof(*e));
    int rc;

    e->config = c;
    e->chan = p->chan;
    e->seed = p->seed ? p->seed : (uint64_t)time(NULL) ^ uv_hrtime();
    e->tick_ns = c->load.tick_us * 1000;
    e->request_limit = c->load.requests;
    /* libuv's timers count whole milliseconds; the knee's Little's law
     * takes this figure too, so it reasons with the pause users take. */
    e->think_ms = (c->load.think_time_us + 999) / 1000;
    e->fds_limit = raise_fd_limit();
    e->max_concurrency = e->fds_limit > 2 * FD_RESERVE ? e->fds_limit - FD_RESERVE : FD_RESERVE;
    if (c->load.concurrency > e->max_concurrency) {
        snprintf(
            err, err_len,
            "brink: [load] concurrency: %u connections need %u file descriptors, but the limit (RLIMIT_NOFILE) is %u (raise it with ulimit -n, or lower the concurrency to %u)",
            c->load.concurrency, c->load.concurrency + FD_RESERVE, e->fds_limit,
            e->max_concurrency);
        free(e);
        return -EMFILE;
    }
    rc = workload_new(c, e->seed, err, err_len, &e->workload);
    if (rc == 0) {
        rc = engine__scene_init(e, err, err_len);
        /* The script's own failure, apart from the run's settings. */
        if (rc == -EINVAL)
            rc = -ENOEXEC;
    }
    if (rc == 0)
        rc = choose_transport(e, err, err_len);
    if (rc != 0) {
        engine__scene_free(e);
        workload_free(e->workload);
        free(e);
        return rc;
    }
    e->kind_seq = xcalloc(workload_n_kinds(e->workload), sizeof(*e->kind_seq));
    for (size_t i = 0; i < workload_n_kinds(e->workload); i++)
        atomic_init(&e->kind_seq[i], 0);
    pthread_mutex_init(&e->lock, NULL);
    e->control.concurrency = c->load.concurrency;
    e->control.model = c->load.mode == CONFIG_MODE_RATE ? LOAD_OPEN : LOAD_CLOSED;
    e->control.rate_per_s = c->load.rate_per_s;
    /* Every request in flight holds a connection: the cap fits the fds. */
    e->control.max_in_flight =
        c->load.max_in_flight < e->max_concurrency ? c->load.max_in_flight : e->max_concurrency;
    e->n_workers = c->load.threads;
    e->drop_pending = xcalloc(e->n_workers, sizeof(*e->drop_pending));
    e->workers = xcalloc(e->n_workers, sizeof(*e->workers));
    e->merger = engine__merger_new(e->n_workers, e->workload, e->scene_kinds, e->chan, e->tick_ns);
    engine__merger_set_fds_limit(e->merger, e->fds_limit);
    engine__merger_set_transport(e->merger, e->tp->name);
    engine__merger_set_bound(e->merger, c->load.duration_us, c->load.requests);
    publish_control(e); /* no worker runs yet: no lock needed */
    if (e->control.model == LOAD_OPEN && e->think_ms)
        engine__merger_event(
            e->merger, EV_NOTICE, 0,
            "think_time not applied: the open model starts requests on its schedule");
    if (e->control.max_in_flight < c->load.max_in_flight) {
        char text[TICK_TEXT_MAX];

        snprintf(text, sizeof(text), "max_in_flight %u lowered to %u: the fd limit is %u",
                 c->load.max_in_flight, e->control.max_in_flight, e->fds_limit);
        engine__merger_event(e->merger, EV_NOTICE, 0, text);
    }
    /* uv_hrtime and clock_now_ns read the same monotonic clock. */
    e->start_ns = p->start_ns ? p->start_ns : uv_hrtime();
    engine__merger_set_board(e->merger, p->board);
    engine__plan_init(e, p->start_ramp, p->no_plan);
    for (uint32_t i = 0; i < e->n_workers; i++) {
        rc = engine__worker_new(e, i, err, err_len, &e->workers[i]);
        if (rc != 0) {
            engine_free(e);
            return rc;
        }
    }
    *out = e;
    return 0;
}

int engine_start(const struct engine_params *p, char *err, size_t err_len, struct engine **out)
{
    struct engine *e;
    int rc = engine__build(p, err, err_len, &e);

    if (rc != 0)
        return rc;
    chan_set_wake(e->chan, on_command, e);
    for (uint32_t i = 0; i < e->n_workers; i++) {
        rc = engine__worker_start(e->workers[i], err, err_len);
        if (rc != 0)
            goto out_stop_workers;
    }
    *out = e;
    return 0;

out_stop_workers:
    chan_set_wake(e->chan, NULL, NULL);
    stop_started(e);
    engine_free(e);
    return rc;
}

void engine_join(struct engine *e)
{
    for (uint32_t i = 0; i < e->n_workers; i++)
        engine__worker_join(e->workers[i]);
    /* Commands sent from now on have nobody to wake. */
    chan_set_wake(e->chan, NULL, NULL);
}

void engine_free(struct engine *e)
{
    if (!e)
        return;
    for (uint32_t i = 0; i < e->n_workers; i++)
        engine__worker_free(e->workers[i]);
    free(e->workers);
    free(e->drop_pending);
    engine__plan_free(e);
    engine__merger_free(e->merger);
    if (e->tp && e->tp->teardown)
        e->tp->teardown(e->tp_setup);
    engine__scene_free(e);
    free(e->kind_seq);
    workload_free(e->workload);
    pthread_mutex_destroy(&e->lock);
    free(e);
}
