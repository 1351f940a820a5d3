/*
 * replay: `brink replay FILE`, a recorded session played again in the same
 * console. A thread acts as the engine: it reads the file and publishes its
 * ticks through the channel at the pace they were recorded (times a speed),
 * and takes the console's CMD_REPLAY_* commands: play/pause, seek, speed,
 * next/previous event, and CMD_STOP to end. A seek reads the file again up
 * to the target and publishes the ticks before it at once (the first marked
 * is_restart), so the charts show the minutes that led there. Replay never
 * opens a connection and never runs a probe. Headless, the ticks are printed
 * as progress lines as fast as they are read. Either way the session's
 * report follows.
 */
#include "cmd/replay.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/opts.h"
#include "cli/tables.h"
#include "core/chan.h"
#include "core/exitcode.h"
#include "core/clock.h"
#include "core/msg.h"
#include "core/steps.h"
#include "core/tick.h"
#include "core/xalloc.h"
#include "record/record.h"
#include "report/formats.h"
#include "report/summary.h"
#include "cmd/verdicts.h"
#include "core/signals.h"
#include "ui/ui.h"

#define WARM_TICKS 600 /* ticks published before a seek's target: the console's history */
#define REPLAY_QUEUE (WARM_TICKS + 64)
#define MAX_INDEX (10u * 1000 * 1000)
#define NOTICES_MAX 16

/* What the index pass learned: each tick's end and whether it has events. */
struct index {
    uint64_t n;
    uint64_t *end_ms;
    unsigned char *has_events;
    char notices[NOTICES_MAX][TICK_TEXT_MAX];
    unsigned n_notices;
};

struct player {
    const char *path;
    struct chan *ch;
    struct index ix;
    struct record_reader *r;
    uint64_t next;      /* index of the next tick to publish */
    struct tick *ahead; /* that tick, read, or NULL at the end */
    double speed;
    int is_paused;
    int is_done;
    uint64_t anchor_ns; /* wall clock when the session clock read anchor_ms */
    uint64_t anchor_ms;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int has_command;
};

static void on_notice(void *arg, uint64_t line, const char *msg)
{
    struct index *ix = arg;

    (void)line;
    if (ix->n_notices < NOTICES_MAX)
        tick_copy_text(ix->notices[ix->n_notices++], TICK_TEXT_MAX, msg);
}

static int open_reader(const char *path, struct index *ix, struct record_reader **out)
{
    char err[512];
    int rc = record_read_open(path, ix ? on_notice : NULL, ix, err, sizeof(err), out);

    if (rc) {
        /* "FILE: ..."; the path is the user's. */
        char shown[sizeof(err) * 2];

        msg_show(err, shown, sizeof(shown));
        msg_print(stderr, "brink: replay: %s", shown);
    }
    return rc;
}

/* Reads the whole file once: the index, and the session's report. */
static int build_index(const char *path, struct index *ix, struct summary *s, struct steps *st,
                       struct config_rules *rules)
{
    struct record_reader *r;
    struct tick *t;
    uint64_t cap = 0;
    int rc = open_reader(path, ix, &r);

    if (rc)
        return rc;
    (void)verdicts_rules("replay", record_read_header(r)->config_text, NULL, rules);
    while ((rc = record_read_next(r, &t)) > 0) {
        if (ix->n == MAX_INDEX) {
            tick_free(t);
            continue;
        }
        if (ix->n == cap) {
            cap = cap ? cap * 2 : 1024;
            ix->end_ms = xrealloc(ix->end_ms, cap * sizeof(*ix->end_ms));
            ix->has_events = xrealloc(ix->has_events, cap);
        }
        ix->end_ms[ix->n] = tick_end_ms(t);
        ix->has_events[ix->n] = t->n_events > 0;
        ix->n++;
        summary_add_tick(s, t);
        steps_add_tick(st, t);
        tick_free(t);
    }
    record_read_close(r);
    if (rc < 0)
        msg_print(stderr, "brink: replay: %s: read error: %s", path, msg_errno(-rc).text);
    return rc < 0 ? rc : 0;
}

static void print_notices(const struct index *ix)
{
    char shown[2 * TICK_TEXT_MAX];

    for (unsigned i = 0; i < ix->n_notices; i++) {
        msg_show(ix->notices[i], shown, sizeof(shown));
        msg_print(stderr, "brink: replay: %s", shown);
    }
}

/* ---- the player thread ---- */

static uint64_t session_now_ms(const struct player *p)
{
    if (p->is_paused)
        return p->anchor_ms;
    return p->anchor_ms + (uint64_t)((double)(clock_now_ns() - p->anchor_ns) / 1e6 * p->speed);
}

static void anchor(struct player *p, uint64_t at_ms)
{
    p->anchor_ms = at_ms;
    p->anchor_ns = clock_now_ns();
}

static void read_ahead(struct player *p)
{
    p->ahead = NULL;
    if (p->r && record_read_next(p->r, &p->ahead) <= 0)
        p->ahead = NULL;
}

/* Publishes the tick read ahead, with the file's notices on the last one. */
static void publish(struct player *p, int is_restart)
{
    struct tick *t = p->ahead;

    t->is_restart = is_restart;
    p->next++;
    read_ahead(p);
    if (!p->ahead) {
        for (unsigned i = 0; i < p->ix.n_notices; i++)
            tick_add_event(t, EV_NOTICE, tick_end_ms(t), p->ix.notices[i]);
    }
    chan_publish(p->ch, t);
}

/* Moves to tick k: reads the file again from its start, publishes the ticks
 * that lead to k at once, and waits at k. */
static void seek_to(struct player *p, uint64_t k)
{
    uint64_t from;

    /* At least one tick goes out, marked: the console must start again. */
    if (k == 0 && p->ix.n > 0)
        k = 1;
    from = k > WARM_TICKS ? k - WARM_TICKS : 0;

    record_read_close(p->r);
    p->r = NULL;
    if (open_reader(p->path, NULL, &p->r) != 0)
        return;
    p->next = 0;
    read_ahead(p);
    while (p->ahead && p->next < from) {
        tick_free(p->ahead);
        p->next++;
        read_ahead(p);
    }
    for (int first = 1; p->ahead && p->next < k; first = 0)
        publish(p, first);
    anchor(p, k ? p->ix.end_ms[k - 1] : 0);
}

/* The first tick that ends after ms. */
static uint64_t tick_at(const struct index *ix, uint64_t ms)
{
    uint64_t lo = 0, hi = ix->n;

    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;

        if (ix->end_ms[mid] <= ms)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static uint64_t event_tick(const struct index *ix, uint64_t from, int direction)
{
    if (direction > 0) {
        for (uint64_t i = from; i < ix->n; i++) {
            if (ix->has_events[i])
                return i;
        }
        return from;
    }
    /* Back: the event before the tick just shown. */
    for (uint64_t i = from >= 2 ? from - 2 : 0; i > 0; i--) {
        if (ix->has_events[i])
            return i;
    }
    return ix->n && ix->has_events[0] ? 0 : from;
}

static void apply(struct player *p, const struct command *cmd)
{
    uint64_t now = session_now_ms(p);

    switch (cmd->kind) {
    case CMD_REPLAY_PAUSE:
        anchor(p, now);
        p->is_paused = !p->is_paused;
        break;
    case CMD_REPLAY_SPEED:
        anchor(p, now);
        p->speed = cmd->n > 0 ? p->speed * 2 : p->speed / 2;
        p->speed = p->speed < 0.5 ? 0.5 : p->speed > 16 ? 16 : p->speed;
        break;
    case CMD_REPLAY_SEEK: {
        int64_t to = (int64_t)now + cmd->n;

        seek_to(p, tick_at(&p->ix, to < 0 ? 0 : (uint64_t)to));
        break;
    }
    case CMD_REPLAY_EVENT:
        seek_to(p, event_tick(&p->ix, p->next, (int)cmd->n));
        /* Show the tick with the event itself. */
        if (p->ahead)
            publish(p, 0);
        anchor(p, p->next ? p->ix.end_ms[p->next - 1] : 0);
        break;
    case CMD_STOP: p->is_done = 1; break;
    default: break; /* load commands mean nothing in a replay */
    }
}

static void on_wake(void *arg)
{
    struct player *p = arg;

    pthread_mutex_lock(&p->lock);
    p->has_command = 1;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
}

/* Sleeps until ms of wall time passed or a command came. */
static void wait_for(struct player *p, uint64_t ms)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)(ms / 1000);
    ts.tv_nsec += (long)(ms % 1000) * 1000000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&p->lock);
    if (!p->has_command)
        pthread_cond_timedwait(&p->wake, &p->lock, &ts);
    p->has_command = 0;
    pthread_mutex_unlock(&p->lock);
}

static void *play(void *arg)
{
    struct player *p = arg;
    struct command cmd;

    while (!p->is_done) {
        while (chan_recv(p->ch, &cmd))
            apply(p, &cmd);
        if (p->is_done)
            break;
        if (!p->is_paused && p->ahead && session_now_ms(p) >= tick_end_ms(p->ahead)) {
            publish(p, 0);
            continue;
        }
        /* At the end the last tick stays on screen until q. */
        wait_for(p, p->is_paused || !p->ahead ? 250 : 20);
    }
    tick_free(p->ahead);
    record_read_close(p->r);
    chan_close(p->ch);
    return NULL;
}

/* ---- front ends ---- */

static int console(const char *path, struct player *p, struct ui *ui)
{
    struct ui_replay rp = {.total_ms = p->ix.n ? p->ix.end_ms[p->ix.n - 1] : 0};
    struct ui_params up = {
        .chan = p->ch,
        .target = path,
        .recording = path,
        .replay = &rp,
        .stop_signals = &signals_stops,
        .hangup = &signals_hangup,
        .stop_grace_ms = 5000,
    };
    pthread_t th;
    sigset_t all, old;
    int end;

    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    chan_set_wake(p->ch, on_wake, p);
    if (open_reader(path, NULL, &p->r) != 0)
        return BRINK_EXIT_RUNTIME;
    read_ahead(p);
    anchor(p, 0);
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    if (pthread_create(&th, NULL, play, p) != 0) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        msg_print(stderr, "brink: replay: cannot start the player thread");
        return BRINK_EXIT_RUNTIME;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    end = ui_run(ui, &up);
    pthread_join(th, NULL);
    chan_set_wake(p->ch, NULL, NULL);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    return end == UI_END_STUCK ? BRINK_EXIT_RUNTIME : BRINK_EXIT_OK;
}

/* Headless: every tick as a progress line, as fast as the file reads. */
static int lines(const char *path)
{
    struct record_reader *r;
    struct tick *t;
    int rc = open_reader(path, NULL, &r);

    if (rc)
        return rc;
    while ((rc = record_read_next(r, &t)) > 0) {
        summary_print_tick(t, stderr);
        tick_free(t);
    }
    record_read_close(r);
    return rc;
}

/* FILE and --headless; returns 0 or the usage status (the error printed). */
static int parse_args(int argc, char **argv, const char **path, int *is_headless)
{
    struct opts_parser p;
    struct opts_item it;
    char err[OPTS_ERR_MAX], shown[MSG_SHOWN_MAX];
    int rc;

    opts_start(&p, &cli_replay, argc, argv);
    while ((rc = opts_next(&p, &it, err, sizeof(err))) != 0) {
        if (rc < 0)
            return opts_fail(&cli_replay, stderr, "%s", err);
        if (it.id == CLI_REPLAY_HEADLESS)
            *is_headless = 1;
        else if (*path)
            return opts_fail(&cli_replay, stderr, "unexpected argument \"%s\"",
                             msg_show(it.value, shown, sizeof(shown)));
        else
            *path = it.value;
    }
    if (!*path)
        return opts_fail(&cli_replay, stderr, "missing FILE");
    return 0;
}

int replay_main(int argc, char **argv)
{
    struct player p = {.speed = 1};
    struct summary *s;
    struct steps *st;
    struct config_rules rules;
    struct report_verdicts v;
    const char *path = NULL;
    int is_headless = 0, rc = 0;
    char why[256];
    struct ui *ui = NULL;

    rc = parse_args(argc, argv, &path, &is_headless);
    if (rc != 0)
        return rc;
    s = summary_new();
    st = steps_new();
    if (build_index(path, &p.ix, s, st, &rules) != 0) {
        summary_free(s);
        steps_free(st);
        return BRINK_EXIT_RUNTIME;
    }
    signals_install();
    p.path = path;
    if (!is_headless && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) &&
        ui_open(&ui, why, sizeof(why)) != 0)
        msg_print(stderr, "brink: replay: no console (%s); printing the ticks", why);
    if (ui) {
        p.ch = chan_new(REPLAY_QUEUE, CHAN_COMMANDS_DEFAULT);
        rc = console(path, &p, ui);
        ui_close(ui);
        chan_free(p.ch);
    } else {
        rc = lines(path) < 0 ? BRINK_EXIT_RUNTIME : BRINK_EXIT_OK;
    }
    print_notices(&p.ix);
    steps_finish(st);
    if (format_final(s, st, stdout) != 0)
        rc = BRINK_EXIT_RUNTIME;
    /* Judged as the run was; a replay only shows it (its status stays 0). */
    verdicts_judge(&rules, st, &v);
    verdicts_print("replay", &v, st, stdout);
    free(p.ix.end_ms);
    free(p.ix.has_events);
    summary_free(s);
    steps_free(st);
    return rc;
}
