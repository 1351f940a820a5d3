/*
 * The coordinator of a run with agents (coordinator.h, docs/agents.md).
 */
#include "agents/coord_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/config.h"
#include "core/board.h"
#include "core/chan.h"
#include "core/clock.h"
#include "core/exitcode.h"
#include "core/linebuf.h"
#include "core/msg.h"
#include "core/regfile.h"
#include "core/sanitize.h"
#include "core/tick.h"
#include "core/tickmerge.h"
#include "core/xalloc.h"
#include "engine/engine.h"
#include "record/record.h"
#include "record/wire.h"
#include "core/signals.h"

/* ----------------------------------------------------------- handshake */

static void close_agent(struct agent *a)
{
    agents__close_fd(&a->fd_in);
    agents__close_fd(&a->fd_out);
    agents__close_fd(&a->fd_err);
}

static void ping(struct agent *a, uint64_t now)
{
    struct wire_msg m = {.type = WIRE_PING, .t_ns = now};

    a->ping_ns = now;
    agents__send_msg(a, &m);
}

/*
 * Handles one line of an agent before the start. Returns 0, or an exit
 * status with err set.
 */
static int take_early(struct coord *c, struct agent *a, const char *line, size_t len,
                      const struct wire_msg *cfg, char *err, size_t err_len)
{
    struct wire_msg m;
    char why[256], shown[128], brink[64];
    int rc = 0;

    msg_show(a->name, shown, sizeof(shown));
    if (wire_decode(line, len, &m, why, sizeof(why)) != 0) {
        msg_set(err, err_len, "brink: run: agent %s: not the agent protocol: %s", shown, why);
        return BRINK_EXIT_RUNTIME;
    }
    if (m.type == WIRE_HELLO && a->phase == PH_HELLO) {
        struct wire_msg hello = {.type = WIRE_HELLO, .protocol = WIRE_PROTOCOL};

        snprintf(a->brink, sizeof(a->brink), "%s", m.brink);
        if (m.protocol != WIRE_PROTOCOL) {
            msg_set(err, err_len,
                    "brink: run: agent %s: protocol version mismatch: this coordinator (brink "
                    "%s) speaks %u, the agent (brink %s) speaks %u",
                    shown, BRINK_VERSION, WIRE_PROTOCOL, msg_show(m.brink, brink, sizeof(brink)),
                    m.protocol);
            rc = BRINK_EXIT_USAGE;
        } else {
            struct wire_msg mine = *cfg;
            uint32_t base = mine.n_overrides;

            snprintf(hello.brink, sizeof(hello.brink), "%s", BRINK_VERSION);
            rc = agents__add_share(c, (uint32_t)(a - c->agents), &mine, err, err_len);
            if (rc == 0 && (agents__send_msg(a, &hello) != 0 || agents__send_msg(a, &mine) != 0)) {
                msg_set(err, err_len, "brink: run: agent %s: the link closed during the hello",
                        shown);
                rc = BRINK_EXIT_RUNTIME;
            }
            agents__drop_share(&mine, base);
            ping(a, clock_now_ns());
            a->phase = PH_READY;
        }
    } else if (m.type == WIRE_READY && a->phase == PH_READY) {
        a->phase = PH_RUNNING;
    } else if (m.type == WIRE_PONG) {
        wire_clock_add(&a->clock, m.t_ns, m.peer_ns, clock_now_ns());
    } else if (m.type == WIRE_ERROR) {
        char clean[WIRE_TEXT_MAX];

        sanitize_line(m.text, strlen(m.text), clean, sizeof(clean));
        msg_set(err, err_len, "brink: run: agent %s: %s", shown, clean);
        rc = strstr(m.text, "mismatch") || strstr(m.text, "refused") ? BRINK_EXIT_USAGE
                                                                     : BRINK_EXIT_RUNTIME;
    } else {
        msg_set(err, err_len, "brink: run: agent %s: unexpected %s before the start", shown,
                wire_type_name(m.type));
        rc = BRINK_EXIT_RUNTIME;
    }
    wire_msg_free(&m);
    return rc;
}

static int all_ready(const struct coord *c)
{
    for (uint32_t i = 0; i < c->n; i++) {
        if (c->agents[i].phase != PH_RUNNING || c->agents[i].clock.samples < PINGS_BEFORE_START)
            return 0;
    }
    return 1;
}

/* Until every agent is ready with its clock known, or one fails, or a stop
 * comes (-EINTR: the operator need not wait for a login that hangs). */
static int handshake(struct coord *c, const struct wire_msg *cfg, char *err, size_t err_len)
{
    uint64_t deadline = clock_now_ns() + COORD_READY_TIMEOUT_MS * 1000000ull;

    while (!all_ready(c)) {
        struct pollfd pf[CONFIG_MAX_AGENTS * 2];
        uint64_t now = clock_now_ns();
        int n = 0;

        if (signals_stops || signals_hangup) {
            msg_set(err, err_len, "brink: run: stopped while the agents were starting");
            return -EINTR;
        }
        if (now > deadline) {
            for (uint32_t i = 0; i < c->n; i++) {
                struct agent *a = &c->agents[i];
                char shown[128], s[STDERR_KEEP * 4 + 16];

                if (a->phase == PH_RUNNING && a->clock.samples >= PINGS_BEFORE_START)
                    continue;
                msg_set(err, err_len, "brink: run: agent %s: not ready within %d s (%s; %s)",
                        msg_show(a->name, shown, sizeof(shown)), COORD_READY_TIMEOUT_MS / 1000,
                        a->phase == PH_HELLO ? "no hello" : "no ready",
                        agents__said(a, s, sizeof(s)));
                break;
            }
            return BRINK_EXIT_RUNTIME;
        }
        for (uint32_t i = 0; i < c->n; i++) {
            struct agent *a = &c->agents[i];

            pf[n++] = (struct pollfd){.fd = a->fd_out, .events = POLLIN};
            pf[n++] = (struct pollfd){.fd = a->fd_err, .events = POLLIN};
            /* Quick round trips until the clock is known, then one every
             * PING_EVERY_MS: a ready agent waiting for a slower host to
             * log in must keep hearing from its coordinator, or it gives
             * up on it. */
            if (a->phase != PH_HELLO &&
                now - a->ping_ns >
                    (a->clock.samples < PINGS_BEFORE_START ? 50ull : PING_EVERY_MS) * 1000000ull)
                ping(a, now);
        }
        poll(pf, (nfds_t)n, 50);
        for (uint32_t i = 0; i < c->n; i++) {
            struct agent *a = &c->agents[i];
            char *line;
            size_t len;
            int too_long, rc;

            if (pf[2 * i + 1].revents)
                agents__read_stderr(a);
            if (!pf[2 * i].revents)
                continue;
            if (linebuf_fill(&a->out, a->fd_out) <= 0) {
                char shown[128], s[STDERR_KEEP * 4 + 16];
                int status;

                /* Its last words first. */
                for (int k = 0; k < 20 && a->fd_err >= 0; k++) {
                    struct pollfd e = {.fd = a->fd_err, .events = POLLIN};

                    if (poll(&e, 1, 50) <= 0)
                        break;
                    agents__read_stderr(a);
                }
                agents__reap(a, &status);
                msg_set(err, err_len, "brink: run: agent %s: exited before it was ready (%s)",
                        msg_show(a->name, shown, sizeof(shown)), agents__said(a, s, sizeof(s)));
                return BRINK_EXIT_RUNTIME;
            }
            while ((line = linebuf_next(&a->out, &len, &too_long)) != NULL) {
                rc = take_early(c, a, line, len, cfg, err, err_len);
                if (rc != 0)
                    return rc;
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------- the run */

void agents__add_event_at(struct coord *c, struct tick *t, enum event_kind kind, uint64_t at_ms,
                          const char *text)
{
    if (!t && !c->pending_events)
        c->pending_events = tick_new(0);
    tick_add_event(t ? t : c->pending_events, kind, at_ms, text);
}

static void add_event(struct coord *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_event(struct coord *c, const char *fmt, ...)
{
    char text[TICK_TEXT_MAX];
    va_list ap;
    uint64_t now = clock_now_ns();

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    agents__add_event_at(c, NULL, EV_NOTICE, now > c->start_ns ? (now - c->start_ns) / 1000000 : 0,
                         text);
}

static uint64_t run_us(const struct coord *c)
{
    uint64_t now = clock_now_ns();

    return now > c->start_ns ? (now - c->start_ns) / 1000 : 0;
}

/* Agent a is out of the run. is_closed: its link closed, so its load ended
 * with it (its standard input closed); on a link that hangs it may go on
 * until it notices (LOST_RUNS_ON_MS). Its share goes to the others at the
 * next turn of the loop (resplit): lose may be called while a split is
 * being sent. */
static void lose(struct coord *c, struct agent *a, const char *why, int is_closed)
{
    char s[STDERR_KEEP * 4 + 16];
    int status;

    if (a->phase == PH_LOST || a->phase == PH_DONE)
        return;
    a->phase = PH_LOST;
    a->lost_at_us = run_us(c);
    a->lost_until_us = a->lost_at_us + (is_closed ? 0 : LOST_RUNS_ON_MS * 1000ull);
    c->needs_resplit = 1;
    agents__reap(a, &status);
    if (a->pid > 0)
        kill(a->pid, SIGTERM);
    agents__close_fd(&a->fd_in);
    agents__close_fd(&a->fd_out);
    add_event(c, "agent %s lost: %s (%s); the run goes on with the others", a->name, why,
              agents__said(a, s, sizeof(s)));
}

/* Agent a sent what the coordinator refuses (a line not of the protocol, a
 * refused tick): lost, and why kept for coord_failed, which names it over
 * what its stderr said. */
static void refuse(struct coord *c, struct agent *a, const char *why)
{
    if (a->phase != PH_LOST && a->phase != PH_DONE)
        snprintf(a->lost_why, sizeof(a->lost_why), "%s", why);
    lose(c, a, why, 0);
}

/* An agent's tick: named, its events naming it, recorded, queued. */
static void take_tick(struct coord *c, struct agent *a, struct tick *t)
{
    if (a->phase != PH_RUNNING) {
        tick_free(t);
        return;
    }
    snprintf(t->agent, sizeof(t->agent), "%s", a->name);
    a->has_ticked = 1;
    for (uint32_t i = 0; i < t->n_events; i++) {
        char text[TICK_NAME_MAX + TICK_TEXT_MAX + 2];

        snprintf(text, sizeof(text), "%s: %s", a->name, t->events[i].text);
        tick_copy_text(t->events[i].text, sizeof(t->events[i].text), text);
    }
    if (c->p->on_agent_tick)
        c->p->on_agent_tick(c->p->on_agent_tick_arg, t);
    /* Its probes (on = agents) and a script's gauges stay its own in the
     * merge: NAME@AGENT (the config checked that every probe's fits). A
     * script's checks and counters keep their names, so the merge adds
     * up every agent's. */
    for (uint32_t i = 0; i < t->n_probes; i++) {
        char name[TICK_NAME_MAX];

        if (t->probes[i].mark == TICK_MARK_CHECK || t->probes[i].mark == TICK_MARK_COUNTER)
            continue;
        (void)tick_agent_series(t->probes[i].name, a->name, name);
        memcpy(t->probes[i].name, name, sizeof(name));
    }
    if (t->state == RUN_DONE)
        a->has_sent_done = 1;
    if (t->seq < c->next_seq + a->n_queued || a->n_queued == QUEUE_TICKS) {
        /* Not the tick expected next (a repeat), or too far ahead. */
        tick_free(t);
        return;
    }
    a->queue[a->n_queued++] = t;
}

static void take_line(struct coord *c, struct agent *a, const char *line, size_t len)
{
    struct wire_msg m;
    char why[256];

    if (wire_decode(line, len, &m, why, sizeof(why)) != 0) {
        char text[300];

        snprintf(text, sizeof(text), "a line not of the protocol (%s)", why);
        refuse(c, a, text);
        return;
    }
    if (m.type == WIRE_TICK && agents__check_tick(m.tick, why, sizeof(why)) != 0) {
        char text[320];

        snprintf(text, sizeof(text), "its tick %llu was refused: %s",
                 (unsigned long long)m.tick->seq, why);
        refuse(c, a, text);
    } else if (m.type == WIRE_TICK) {
        take_tick(c, a, m.tick);
        m.tick = NULL;
    } else if (m.type == WIRE_PONG) {
        wire_clock_add(&a->clock, m.t_ns, m.peer_ns, clock_now_ns());
    } else if (m.type == WIRE_ERROR) {
        snprintf(a->last_err, sizeof(a->last_err), "%s", m.text);
    }
    wire_msg_free(&m);
}

/* A command of the console: the ramp keys are the plan's, a mark stays
 * here, the rest goes to every running agent, split where it names an
 * amount. */
static void forward(struct coord *c, const struct command *in)
{
    struct command cmd = *in;
    const struct config_load *l = &c->p->config->load;

    if (cmd.kind == CMD_MARK) {
        add_event(c, "mark: %s", cmd.note);
        return;
    }
    if (cmd.kind >= CMD_REPLAY_PAUSE || agents__plan_command(c, &cmd))
        return;
    /* A step is a change of the whole run's level: one level, split. */
    if (cmd.kind == CMD_STEP && c->is_open_model) {
        cmd.kind = CMD_SET_RATE;
        cmd.rate_per_s =
            fmax(ENGINE_RATE_MIN_PER_S, c->want_rate + (double)cmd.n * l->rate_step_per_s);
    } else if (cmd.kind == CMD_STEP) {
        cmd.kind = CMD_SET_CONCURRENCY;
        cmd.n = (int64_t)fmax(1, c->want_users + (double)cmd.n * l->step);
    } else if (cmd.kind == CMD_SET_CONCURRENCY && c->is_open_model) {
        cmd.kind = CMD_SET_RATE;
        cmd.rate_per_s = (double)cmd.n;
    }
    agents__send_split(c, &cmd);
}

void agents__send_split(struct coord *c, const struct command *in)
{
    double w[CONFIG_MAX_AGENTS], sum = 0;
    uint64_t shares[CONFIG_MAX_AGENTS];
    struct command cmd = *in;

    if (cmd.kind == CMD_PAUSE || cmd.kind == CMD_RESUME)
        c->is_paused = cmd.kind == CMD_PAUSE;
    agents__note_level(c, &cmd);
    /* The agents still running share the level: a lost one's weight is 0. */
    agents__weights_of(c, w);
    for (uint32_t i = 0; i < c->n; i++) {
        if (c->agents[i].phase != PH_RUNNING)
            w[i] = 0;
        sum += w[i];
    }
    if (sum <= 0)
        return;
    if (cmd.kind == CMD_SET_CONCURRENCY || cmd.kind == CMD_DROP)
        coord_split(cmd.n > 0 ? (uint64_t)cmd.n : 0, w, c->n, shares);
    for (uint32_t i = 0; i < c->n; i++) {
        struct agent *a = &c->agents[i];
        struct wire_msg m = {.type = WIRE_COMMAND, .cmd = cmd};

        if (a->phase != PH_RUNNING)
            continue;
        if (cmd.kind == CMD_SET_CONCURRENCY)
            m.cmd.n = shares[i] ? (int64_t)shares[i] : 1;
        else if (cmd.kind == CMD_DROP)
            m.cmd.n = (int64_t)shares[i];
        else if (cmd.kind == CMD_SET_RATE)
            m.cmd.rate_per_s = fmax(ENGINE_RATE_MIN_PER_S, cmd.rate_per_s * w[i] / sum);
        if (cmd.kind == CMD_DROP && m.cmd.n == 0)
            continue;
        if (agents__send_msg(a, &m) != 0)
            lose(c, a, "its link refused a command", 0);
    }
}

static int is_live(const struct agent *a)
{
    return a->phase == PH_RUNNING;
}

/* When the merged tick next_seq can be made: every running agent has its
 * tick queued; an agent COORD_LOST_TICKS ticks late is lost first. */
static int merge_ready(struct coord *c, uint64_t now)
{
    uint64_t due = c->start_ns + (c->next_seq + 1 + COORD_LOST_TICKS) * c->tick_ns;
    int waiting = 0, any = 0;

    for (uint32_t i = 0; i < c->n; i++) {
        struct agent *a = &c->agents[i];

        if (!is_live(a))
            continue;
        if (a->n_queued > 0) {
            any = 1;
            continue;
        }
        if (now > due) {
            char why[96];

            snprintf(why, sizeof(why), "no tick %llu for %d ticks", (unsigned long long)c->next_seq,
                     COORD_LOST_TICKS + 1);
            lose(c, a, why, 0);
            continue;
        }
        waiting = 1;
    }
    return any && !waiting;
}

static void fill_row(const struct coord *c, const struct agent *a, const struct tick *t,
                     struct tick_agent *row)
{
    (void)c;
    snprintf(row->name, sizeof(row->name), "%s", a->name);
    row->is_lost = a->phase == PH_LOST;
    row->is_in = t != NULL || a->has_ended;
    if (t) {
        row->completed = t->total.completed;
        row->errors = t->total.completed - t->total.ok;
        row->loop_lag_us = t->health.loop_lag_us;
        row->in_flight = t->in_flight;
    }
    row->offset_us = a->clock.offset_ns / 1000;
    if (row->is_lost) {
        row->lost_at_us = a->lost_at_us;
        row->lost_until_us = a->lost_until_us;
    }
}

/* The coordinator's own events (a command, a step of the plan) join the
 * agents' in time order: a stable insertion sort of a tick's few events. */
static void sort_events(struct tick *t)
{
    for (uint32_t i = 1; i < t->n_events; i++) {
        struct tick_event e = t->events[i];
        uint32_t k = i;

        for (; k > 0 && t->events[k - 1].at_ms > e.at_ms; k--)
            t->events[k] = t->events[k - 1];
        t->events[k] = e;
    }
}

/* The coordinator's probes into merged tick t, then the agents' (NAME@AGENT)
 * that the merge put there. */
static void fill_probes(struct board *b, struct tick *t)
{
    struct tick_probe *theirs = xcalloc(TICK_MAX_PROBES, sizeof(*theirs));
    uint32_t n = t->n_probes;

    memcpy(theirs, t->probes, n * sizeof(*theirs));
    board_fill(b, t);
    for (uint32_t i = 0; i < n && t->n_probes < TICK_MAX_PROBES; i++)
        t->probes[t->n_probes++] = theirs[i];
    free(theirs);
}

static void merge_next(struct coord *c)
{
    const struct tick *src[CONFIG_MAX_AGENTS];
    struct tick *taken[CONFIG_MAX_AGENTS] = {0};
    struct tick *t;
    size_t n = 0;

    for (uint32_t i = 0; i < c->n; i++) {
        struct agent *a = &c->agents[i];

        /* A lost agent's ticks that came before it was lost still count. */
        if (a->n_queued == 0)
            continue;
        taken[i] = a->queue[0];
        memmove(a->queue, a->queue + 1, (a->n_queued - 1) * sizeof(a->queue[0]));
        a->n_queued--;
        src[n++] = taken[i];
    }
    t = tick_merge_next(c->merge, src, n);
    t->seq = c->next_seq++;
    for (uint32_t i = 0; i < c->n; i++) {
        struct agent *a = &c->agents[i];

        fill_row(c, a, taken[i], &t->agents[t->n_agents++]);
        if (taken[i] && taken[i]->state == RUN_DONE && a->phase != PH_LOST) {
            a->has_ended = 1;
            a->phase = PH_DONE;
        }
        if (taken[i]) {
            tick_free(a->last);
            a->last = taken[i];
        }
        if (taken[i] && t->duration_us > 0) {
            a->has_row = 1;
            a->row_end_us = t->start_us + t->duration_us;
            a->row_rate_per_s = tick_per_s(taken[i]->total.completed, t->duration_us);
            a->row_in_flight = taken[i]->in_flight;
        }
    }
    if (c->pending_events) {
        for (uint32_t e = 0; e < c->pending_events->n_events; e++)
            tick_add_event(t, c->pending_events->events[e].kind, c->pending_events->events[e].at_ms,
                           c->pending_events->events[e].text);
        tick_free(c->pending_events);
        c->pending_events = NULL;
    }
    for (uint32_t i = 0; i < c->n; i++) {
        struct agent *a = &c->agents[i];

        if (a->phase == PH_LOST && a->n_queued == 0 && !a->has_said_gap)
            agents__say_gap(c, a, t);
    }
    if (c->p->board)
        fill_probes(c->p->board, t);
    if ((t->model == LOAD_OPEN) != c->is_open_model) {
        /* A switch of model: the agents chose its level. */
        c->is_open_model = t->model == LOAD_OPEN;
        c->want_users = t->target_concurrency;
        c->want_rate = t->target_rate_per_s;
    }
    agents__plan_tick(c, t);
    sort_events(t);
    chan_publish(c->p->chan, t);
}

static int any_live(const struct coord *c)
{
    for (uint32_t i = 0; i < c->n; i++) {
        if (is_live(&c->agents[i]))
            return 1;
    }
    return 0;
}

static void on_wake(void *arg)
{
    struct coord *c = arg;
    char b = 1;
    ssize_t n = write(c->wake[1], &b, 1);

    (void)n; /* a full pipe already wakes the thread */
}

static void read_agent(struct coord *c, struct agent *a)
{
    char *line;
    size_t len;
    int too_long;

    if (linebuf_fill(&a->out, a->fd_out) <= 0) {
        for (int k = 0; k < 10 && a->fd_err >= 0; k++) {
            struct pollfd e = {.fd = a->fd_err, .events = POLLIN};

            if (poll(&e, 1, 20) <= 0)
                break;
            agents__read_stderr(a);
        }
        /* Ticks it sent before it went still count. */
        while ((line = linebuf_next(&a->out, &len, &too_long)) != NULL)
            take_line(c, a, line, len);
        if (a->has_sent_done) {
            /* It ended as planned: its last ticks wait for the merge. */
            close_agent(a);
            return;
        }
        lose(c, a, "its link closed", 1);
        return;
    }
    while ((line = linebuf_next(&a->out, &len, &too_long)) != NULL || too_long) {
        if (too_long) {
            char text[96];

            snprintf(text, sizeof(text), "a line longer than %u bytes (a tick is at most %u)",
                     (unsigned)(RECORD_LINE_MAX + LINE_SLACK), (unsigned)RECORD_LINE_MAX);
            refuse(c, a, text);
            return;
        }
        take_line(c, a, line, len);
    }
}

static void *run(void *arg)
{
    struct coord *c = arg;

    for (;;) {
        struct pollfd pf[CONFIG_MAX_AGENTS * 2 + 1];
        uint64_t now = clock_now_ns();
        struct command cmd;
        int n = 0;

        if (!any_live(c)) {
            /* What is queued of agents that ended is merged already. */
            break;
        }
        pf[n++] = (struct pollfd){.fd = c->wake[0], .events = POLLIN};
        for (uint32_t i = 0; i < c->n; i++) {
            pf[n++] = (struct pollfd){.fd = c->agents[i].fd_out, .events = POLLIN};
            pf[n++] = (struct pollfd){.fd = c->agents[i].fd_err, .events = POLLIN};
        }
        poll(pf, (nfds_t)n, 50);
        if (pf[0].revents) {
            char buf[64];
            ssize_t r = read(c->wake[0], buf, sizeof(buf));

            (void)r;
        }
        while (chan_recv(c->p->chan, &cmd))
            forward(c, &cmd);
        for (uint32_t i = 0; i < c->n; i++) {
            struct agent *a = &c->agents[i];

            if (pf[2 + 2 * i].revents)
                agents__read_stderr(a);
            if (pf[1 + 2 * i].revents && a->fd_out >= 0)
                read_agent(c, a);
        }
        if (c->needs_resplit)
            agents__resplit(c);
        now = clock_now_ns();
        if (now - c->last_ping_ns > PING_EVERY_MS * 1000000ull) {
            c->last_ping_ns = now;
            for (uint32_t i = 0; i < c->n; i++) {
                if (is_live(&c->agents[i]))
                    ping(&c->agents[i], now);
            }
        }
        while (merge_ready(c, now))
            merge_next(c);
        if (c->needs_resplit)
            agents__resplit(c);
    }
    for (uint32_t i = 0; i < c->n; i++) {
        if (c->agents[i].phase == PH_LOST && !c->agents[i].has_said_gap)
            agents__say_gap(c, &c->agents[i], NULL);
    }
    /* Events of the last moments (an agent lost at the end) in a last tick. */
    if (c->pending_events && c->next_seq > 0) {
        struct tick *t = tick_new(0);

        t->seq = c->next_seq;
        t->state = RUN_DONE;
        t->start_us = (c->next_seq) * (c->tick_ns / 1000);
        t->duration_us = 0;
        for (uint32_t i = 0; i < c->n; i++)
            fill_row(c, &c->agents[i], NULL, &t->agents[t->n_agents++]);
        for (uint32_t e = 0; e < c->pending_events->n_events; e++)
            tick_add_event(t, c->pending_events->events[e].kind, c->pending_events->events[e].at_ms,
                           c->pending_events->events[e].text);
        chan_publish(c->p->chan, t);
    }
    chan_close(c->p->chan);
    return NULL;
}

/* ------------------------------------------------------------ lifetime */

static void stop_agents(struct coord *c)
{
    uint64_t deadline;

    for (uint32_t i = 0; i < c->n; i++) {
        close_agent(&c->agents[i]);
        if (c->agents[i].pid > 0)
            kill(c->agents[i].pid, SIGTERM);
    }
    deadline = clock_now_ns() + KILL_GRACE_MS * 1000000ull;
    for (;;) {
        int left = 0;

        for (uint32_t i = 0; i < c->n; i++) {
            int status;

            agents__reap(&c->agents[i], &status);
            left += c->agents[i].pid > 0;
        }
        if (!left)
            return;
        if (clock_now_ns() > deadline)
            break;
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    for (uint32_t i = 0; i < c->n; i++) {
        if (c->agents[i].pid > 0) {
            kill(c->agents[i].pid, SIGKILL);
            waitpid(c->agents[i].pid, NULL, 0);
            c->agents[i].pid = 0;
        }
    }
}

int coord_start(const struct coord_params *p, char *err, size_t err_len, struct coord **out)
{
    struct coord *c = xcalloc(1, sizeof(*c));
    const struct config_agents *ag = &p->config->agents;
    struct wire_msg cfg;
    uint64_t began_ns = clock_now_ns();
    int rc = 0;

    *out = NULL;
    c->params = *p;
    c->p = &c->params;
    c->n = ag->n_hosts;
    c->tick_ns = p->config->load.tick_us * 1000;
    c->wake[0] = c->wake[1] = -1;
    for (uint32_t i = 0; i < c->n; i++) {
        struct agent *a = &c->agents[i];

        tick_copy_text(a->name, sizeof(a->name), ag->hosts[i]);
        a->weight = ag->n_weights ? ag->weights[i] : 1.0;
        a->fd_in = a->fd_out = a->fd_err = -1;
        linebuf_init(&a->out, RECORD_LINE_MAX + LINE_SLACK);
        linebuf_init(&a->err, 4096);
    }
    agents__plan_init(c);
    c->want_users =
        c->has_first_level && !c->is_open_model ? c->first_level : p->config->load.concurrency;
    c->want_rate =
        c->has_first_level && c->is_open_model ? c->first_level : p->config->load.rate_per_s;
    rc = agents__build_config(c, &cfg, err, err_len);
    for (uint32_t i = 0; i < c->n && rc == 0; i++)
        rc = agents__spawn_agent(p->config, &c->agents[i], err, err_len);
    if (rc == 0)
        rc = handshake(c, &cfg, err, err_len);
    wire_msg_free(&cfg);
    if (rc == 0) {
        /* Start together: the same instant on every agent's clock, which
         * round trips place within half the shortest one. */
        c->start_ns = clock_now_ns() + START_LEAD_MS * 1000000ull;
        for (uint32_t i = 0; i < c->n && rc == 0; i++) {
            struct agent *a = &c->agents[i];
            struct wire_msg start = {.type = WIRE_START,
                                     .at_ns = wire_clock_to_peer(&a->clock, c->start_ns)};
            char shown[128];

            if (a->clock.best_rtt_ns / 2 > c->tick_ns / 2) {
                msg_set(err, err_len,
                        "brink: run: agent %s: its clock is known within +/-%llu ms only, more "
                        "than half a tick (%llu ms): its ticks cannot be aligned",
                        msg_show(a->name, shown, sizeof(shown)),
                        (unsigned long long)(a->clock.best_rtt_ns / 2000000),
                        (unsigned long long)(c->tick_ns / 2000000));
                rc = BRINK_EXIT_RUNTIME;
            } else if (agents__send_msg(a, &start) != 0) {
                msg_set(err, err_len, "brink: run: agent %s: the link closed at the start",
                        msg_show(a->name, shown, sizeof(shown)));
                rc = BRINK_EXIT_RUNTIME;
            }
        }
    }
    /* The session file's start time is older by the logins: say by how much. */
    if (rc == 0)
        add_event(c, "%u agents started, %llu ms after brink spawned them (ssh logins, handshake)",
                  c->n, (unsigned long long)((c->start_ns - began_ns) / 1000000));
    if (rc == 0 && pipe(c->wake) != 0) {
        msg_set(err, err_len, "brink: run: pipe: %s", msg_errno(errno).text);
        rc = BRINK_EXIT_RUNTIME;
    }
    if (rc == 0) {
        fcntl(c->wake[0], F_SETFL, O_NONBLOCK);
        fcntl(c->wake[1], F_SETFL, O_NONBLOCK);
        c->merge = tick_merge_new();
        chan_set_wake(p->chan, on_wake, c);
        rc = pthread_create(&c->thread, NULL, run, c);
        if (rc != 0) {
            chan_set_wake(p->chan, NULL, NULL);
            msg_set(err, err_len, "brink: run: cannot start a thread: %s", msg_errno(rc).text);
            rc = BRINK_EXIT_RUNTIME;
        } else {
            c->has_thread = 1;
        }
    }
    if (rc != 0) {
        coord_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

int coord_failed(const struct coord *c, char *err, size_t err_len)
{
    const struct agent *first = NULL;
    char shown[128], s[STDERR_KEEP * 4 + 16], why[sizeof(first->lost_why) * 4];

    /* The agent that says most: a reason it was lost (a refused tick), its
     * stderr, or the first one. */
    for (uint32_t i = 0; i < c->n; i++) {
        const struct agent *a = &c->agents[i];

        if (a->has_ticked)
            return 0;
        if (!first || (!first->lost_why[0] && a->lost_why[0]) ||
            (!first->lost_why[0] && !first->last_err[0] && a->last_err[0]))
            first = a;
    }
    if (!first)
        return 0;
    msg_show(first->name, shown, sizeof(shown));
    if (first->lost_why[0]) {
        msg_set(err, err_len,
                "brink: run: no agent ran the load: agent %s was lost at the start: %s (%s)", shown,
                msg_show(first->lost_why, why, sizeof(why)), agents__said(first, s, sizeof(s)));
        return BRINK_EXIT_RUNTIME;
    }
    msg_set(err, err_len, "brink: run: no agent ran the load: agent %s ended at the start (%s)",
            shown, agents__said(first, s, sizeof(s)));
    return BRINK_EXIT_RUNTIME;
}

void coord_join(struct coord *c)
{
    if (c && c->has_thread) {
        pthread_join(c->thread, NULL);
        c->has_thread = 0;
        chan_set_wake(c->p->chan, NULL, NULL);
    }
}

void coord_free(struct coord *c)
{
    if (!c)
        return;
    /* A thread still running is left to its loop: the process ends. */
    stop_agents(c);
    for (uint32_t i = 0; i < c->n; i++) {
        struct agent *a = &c->agents[i];

        if (c->has_thread)
            continue;
        for (size_t k = 0; k < a->n_queued; k++)
            tick_free(a->queue[k]);
        tick_free(a->last);
        linebuf_free(&a->out);
        linebuf_free(&a->err);
    }
    if (c->has_thread)
        return;
    agents__close_fd(&c->wake[0]);
    agents__close_fd(&c->wake[1]);
    tick_free(c->pending_events);
    tick_merge_free(c->merge);
    agents__plan_free(c);
    free(c);
}
