/*
 * The control state (control.c): what the operator's commands, the ramp
 * plan and the run's own end ask of the workers, under engine.lock. It
 * sits below everything that changes it (plan.c, worker.c) and calls none
 * of them: a change is published to the merger and the workers are woken
 * to re-read it.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <uv.h>

#include "config/config.h"
#include "engine/internal.h"
#include "script/script.h"

void engine__wake_all(struct engine *e)
{
    for (uint32_t i = 0; i < e->n_workers; i++)
        uv_async_send(&e->workers[i]->wake);
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

void engine__control_publish(struct engine *e)
{
    const struct control *c = &e->control;

    engine__merger_set_state(e->merger, state_of(c), c->concurrency);
    if (c->is_stopping) {
        engine__merger_set_stop(e->merger, now_ns(e));
        /* A script still running stops within 10 ms, even on a worker
         * whose loop it holds. */
        if (e->script)
            script_setup_stop(e->script);
    }
    engine__merger_set_load(e->merger, c->model, c->rate_per_s, c->max_in_flight);
}

void engine__control_apply(struct engine *e, const struct command *cmd)
{
    char text[TICK_TEXT_MAX];

    pthread_mutex_lock(&e->lock);
    apply(e, cmd, text, sizeof(text));
    engine__control_publish(e);
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
    engine__control_publish(e);
    pthread_mutex_unlock(&e->lock);
    /* The plan said its step already; a level that did not move needs no line. */
    if (!was_paused && !has_moved)
        return;
    /* who, not the command's name ("set_concurrency: "), says who asked. */
    what = strstr(applied, ": ") ? strstr(applied, ": ") + 2 : applied;
    snprintf(text, sizeof(text), "%s: %s%s", who, what, was_paused ? " (resumed)" : "");
    engine__merger_event(e->merger, EV_COMMAND, now_ns(e), text);
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
    engine__control_publish(e);
    pthread_mutex_unlock(&e->lock);
    if (!changed)
        return;
    snprintf(text, sizeof(text), "%s: %s", why,
             abort_now ? "aborting the requests in flight" : "draining the requests in flight");
    engine__merger_event(e->merger, EV_NOTICE, now_ns(e), text);
    engine__wake_all(e);
}
