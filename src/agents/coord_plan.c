/*
 * The [ramp] plan of a run with agents (coord_internal.h): the coordinator
 * is its only judge. It feeds every merged tick to one ramp (src/ramp), so
 * the steps' timing, their verdicts on stop_when, the knee and the
 * breaking point are judged on the figures of the whole run, and it tells
 * every agent its share of each new level in the same round of commands.
 * The agents run without a plan of their own (engine_params.no_plan).
 */
#include "agents/coord_internal.h"

#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "ramp/ramp.h"

static uint64_t now_ms(const struct coord *c)
{
    uint64_t now = clock_now_ns();

    return now > c->start_ns ? (now - c->start_ns) / 1000000 : 0;
}

/* The level as the command that sets it, in the run's current model. A
 * level the plan asks for is a level to run at: paused agents resume
 * first, as a local engine does. */
static void send_level(struct coord *c, double level)
{
    struct command cmd = {.kind = CMD_SET_CONCURRENCY, .n = (int64_t)level};

    if (c->is_paused) {
        struct command resume = {.kind = CMD_RESUME};

        agents__send_split(c, &resume);
    }
    if (c->is_open_model)
        cmd = (struct command){.kind = CMD_SET_RATE, .rate_per_s = level};
    agents__send_split(c, &cmd);
}

/* Does what the plan asked: its events into t (NULL: the next merged
 * tick), the new level to every agent, or the stop. */
static void apply_out(struct coord *c, const struct ramp_out *out, struct tick *t)
{
    char text[TICK_TEXT_MAX + 64];

    for (uint32_t i = 0; i < out->n_events; i++)
        agents__add_event_at(c, t, out->events[i].kind, out->events[i].at_ms, out->events[i].text);
    if (out->set_level)
        send_level(c, out->level);
    if (out->stop && !c->has_plan_stopped) {
        struct command stop = {.kind = CMD_STOP};

        c->has_plan_stopped = 1;
        snprintf(text, sizeof(text), "%s: draining the requests in flight", out->stop_why);
        agents__add_event_at(c, t, EV_NOTICE, t ? tick_end_ms(t) : now_ms(c), text);
        agents__send_split(c, &stop);
    }
}

void agents__plan_init(struct coord *c)
{
    const struct config *cfg = c->p->config;
    uint64_t think_us = (cfg->load.think_time_us + 999) / 1000 * 1000; /* as the engine has it */
    struct ramp_out out;

    c->is_open_model = cfg->load.mode == CONFIG_MODE_RATE;
    c->ramp = ramp_new(&cfg->ramp, think_us, c->is_open_model ? LOAD_OPEN : LOAD_CLOSED);
    if (!c->p->start_ramp)
        return;
    memset(&out, 0, sizeof(out));
    ramp_start(c->ramp, 0, &out);
    /* The first step's level is each agent's starting share (agents__add_share),
     * so the load does not start at [load]'s level first. */
    c->has_first_level = out.set_level;
    c->first_level = out.level;
    out.set_level = 0;
    apply_out(c, &out, NULL);
}

void agents__plan_free(struct coord *c)
{
    ramp_free(c->ramp);
    c->ramp = NULL;
}

void agents__plan_tick(struct coord *c, struct tick *t)
{
    struct ramp_out out;

    ramp_on_tick(c->ramp, t, &out);
    apply_out(c, &out, t);
}

int agents__plan_command(struct coord *c, const struct command *cmd)
{
    const char *what = ramp_manual_change(cmd->kind);
    struct ramp_out out;

    memset(&out, 0, sizeof(out));
    if (cmd->kind == CMD_RAMP)
        ramp_toggle(c->ramp, now_ms(c), &out);
    else if (cmd->kind == CMD_RAMP_NEXT)
        ramp_next(c->ramp, now_ms(c), &out);
    else if (what)
        ramp_manual(c->ramp, now_ms(c), what, &out);
    else
        return 0;
    apply_out(c, &out, NULL);
    return what == NULL;
}
