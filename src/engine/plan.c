/*
 * The engine's side of the ramp plan: the ramp state machine (src/ramp)
 * sees every merged tick before it is published and says what to do next;
 * worker 0 does it. The ramp runs under its own lock, inside the merger's
 * (the merger calls plan_observe while it builds a tick), and never takes
 * the engine's lock there: what it asks is queued in e->ramp_todo and
 * applied by worker 0, which takes the engine's lock as commands do.
 */
#include <string.h>

#include "config/config.h"
#include "engine/internal.h"
#include "ramp/ramp.h"

static uint64_t now_ms(const struct engine *e)
{
    return (uv_hrtime() - e->start_ns) / 1000000;
}

/* Moves the load to the plan's level and logs the ramp's events; stops the
 * run when the plan says so. engine.lock and ramp_lock not held. */
static void apply_out(struct engine *e, const struct ramp_out *out)
{
    for (uint32_t i = 0; i < out->n_events; i++)
        engine__merger_event(e->merger, out->events[i].kind, out->events[i].at_ms * 1000000,
                             out->events[i].text);
    if (out->set_level)
        engine__set_level(e, out->level, "ramp");
    if (out->stop)
        engine__request_stop(e, out->stop_why, 0);
}

/* The merger's observer: runs under the merger's lock. */
static void observe(void *arg, struct tick *t)
{
    struct engine *e = arg;
    struct ramp_out out;

    pthread_mutex_lock(&e->ramp_lock);
    ramp_on_tick(e->ramp, t, &out);
    if (out.set_level) {
        e->ramp_todo.set_level = 1;
        e->ramp_todo.level = out.level;
    }
    if (out.stop) {
        e->ramp_todo.stop = 1;
        memcpy(e->ramp_todo.stop_why, out.stop_why, sizeof(out.stop_why));
    }
    if ((out.set_level || out.stop) && !e->ramp_is_detached)
        uv_async_send(&e->workers[0]->wake);
    pthread_mutex_unlock(&e->ramp_lock);
}

void engine__plan_init(struct engine *e, int start, int none)
{
    struct ramp_out out;

    pthread_mutex_init(&e->ramp_lock, NULL);
    if (none)
        return;
    e->ramp = ramp_new(&e->config->ramp, e->think_ms * 1000,
                       e->config->load.mode == CONFIG_MODE_RATE ? LOAD_OPEN : LOAD_CLOSED);
    engine__merger_set_observer(e->merger, observe, e);
    if (!start)
        return;
    memset(&out, 0, sizeof(out));
    ramp_start(e->ramp, 0, &out);
    apply_out(e, &out);
}

void engine__plan_free(struct engine *e)
{
    /* Without a plan the lock holds nothing to release. */
    if (!e->ramp)
        return;
    ramp_free(e->ramp);
    pthread_mutex_destroy(&e->ramp_lock);
}

void engine__plan_detach(struct engine *e)
{
    pthread_mutex_lock(&e->ramp_lock);
    e->ramp_is_detached = 1;
    pthread_mutex_unlock(&e->ramp_lock);
}

int engine__plan_apply_todo(struct engine *e)
{
    struct ramp_out out;

    pthread_mutex_lock(&e->ramp_lock);
    out = e->ramp_todo;
    memset(&e->ramp_todo, 0, sizeof(e->ramp_todo));
    pthread_mutex_unlock(&e->ramp_lock);
    apply_out(e, &out);
    return out.set_level || out.stop;
}

int engine__plan_command(struct engine *e, const struct command *cmd)
{
    const char *what = ramp_manual_change(cmd->kind);
    struct ramp_out out;

    if (!what && cmd->kind != CMD_RAMP && cmd->kind != CMD_RAMP_NEXT)
        return 0;
    if (!e->ramp) /* the coordinator's plan: nothing to pause, nothing to start */
        return what == NULL;
    memset(&out, 0, sizeof(out));
    pthread_mutex_lock(&e->ramp_lock);
    if (cmd->kind == CMD_RAMP)
        ramp_toggle(e->ramp, now_ms(e), &out);
    else if (cmd->kind == CMD_RAMP_NEXT)
        ramp_next(e->ramp, now_ms(e), &out);
    else
        ramp_manual(e->ramp, now_ms(e), what, &out);
    pthread_mutex_unlock(&e->ramp_lock);
    apply_out(e, &out);
    return what == NULL;
}
