/*
 * The console's loop: take ticks into the model, turn keys into commands,
 * draw when something changed. Handlers change state and set `dirty`; only
 * draw() draws. The loop waits on the terminal for at most TICK_POLL_MS, so a
 * key is on screen at once and a tick within that time.
 */
#include "ui/ui.h"

#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/chan.h"
#include "core/clock.h"
#include "core/command.h"
#include "core/stopper.h"
#include "core/xalloc.h"
#include "ui/internal.h"
#include "ui/term.h"

#define TICK_POLL_MS 50
#define STATUS_MS 4000  /* how long a status message stays */
#define PENDING_TICKS 2 /* a sent command's mark goes after this many ticks */
#define INPUT_MAX CMD_NOTE_MAX
#define SPIN_LIMIT 20 /* readable-but-empty wake-ups in a row: the tty is gone */

enum prompt_kind { PROMPT_NONE, PROMPT_CONCURRENCY, PROMPT_RATE, PROMPT_DROP, PROMPT_MARK };

static const struct {
    const char *label;
    const char *verb; /* the command language word it completes */
} prompts[] = {
    [PROMPT_CONCURRENCY] = {"concurrency", "concurrency"},
    [PROMPT_RATE] = {"rate per second", "rate"},
    [PROMPT_DROP] = {"drop how many connections", "drop"},
    [PROMPT_MARK] = {"mark note", "mark"},
};

struct ui {
    struct model *m;
    struct theme th;
    const struct ui_params *p;
    int is_dirty;
    int is_hung_up;
    int show_help;
    int show_steps;
    enum latency_shown latency; /* what the latency panel shows */
    int show_phases;            /* or where the time goes instead */
    unsigned quits;             /* q presses, counted like stop signals */
    enum prompt_kind prompt;
    char input[INPUT_MAX];
    size_t input_len;
    char status[TICK_TEXT_MAX];
    uint64_t status_until_ns;
    char pending[48];
    unsigned pending_ticks;
    unsigned spins;
    const struct keymap *keys;
    unsigned speed_index; /* a replay's speed: speeds[speed_index] */
    int is_replay_paused;
};

/* A replay's speeds; each step of < and > moves one along. */
static const double speeds[] = {0.5, 1, 2, 4, 8, 16};
#define N_SPEEDS (sizeof(speeds) / sizeof(speeds[0]))
#define SPEED_NORMAL 1 /* speeds[1] is x1 */
#define SEEK_MS 10000

int ui_open(struct ui **out, char *why, size_t why_len)
{
    struct ui *ui = xcalloc(1, sizeof(*ui));
    int rc = term_open(&ui->th, why, why_len);

    if (rc) {
        free(ui);
        return rc;
    }
    ui->m = ui__model_new();
    *out = ui;
    return 0;
}

void ui_close(struct ui *ui)
{
    if (!ui)
        return;
    term_close();
    ui__model_free(ui->m);
    free(ui);
}

static void set_status(struct ui *ui, const char *text)
{
    tick_copy_text(ui->status, sizeof(ui->status), text);
    ui->status_until_ns = clock_now_ns() + STATUS_MS * 1000000ULL;
    ui->is_dirty = 1;
}

/* Sends cmd; returns 0, or -EAGAIN (said on the key line) when the ring is
 * full and nothing was sent. */
static int send(struct ui *ui, const struct command *cmd, const char *label)
{
    char text[TICK_TEXT_MAX];

    if (chan_send(ui->p->chan, cmd) != 0) {
        set_status(ui, "too many commands queued; the engine is behind, try again");
        return -EAGAIN;
    }
    if (!ui->p->replay) {
        /* A load change shows as pending until the engine applies it. */
        snprintf(ui->pending, sizeof(ui->pending), "%s sent", label);
        ui->pending_ticks = 0;
    }
    snprintf(text, sizeof(text), "sent: %s", label);
    set_status(ui, text);
    return 0;
}

static int send_simple(struct ui *ui, enum cmd_kind kind, int64_t n, const char *label)
{
    struct command cmd = {.kind = kind, .n = n};

    return send(ui, &cmd, label);
}

static void open_prompt(struct ui *ui, enum prompt_kind k)
{
    ui->prompt = k;
    ui->input_len = 0;
    ui->input[0] = '\0';
    ui->is_dirty = 1;
}

/* Enter on a prompt: the typed text completes a line of the command
 * language, which checks it as it checks piped commands. */
static void submit_prompt(struct ui *ui)
{
    char line[INPUT_MAX + 32], why[TICK_TEXT_MAX], label[64];
    struct command cmd;
    enum prompt_kind k = ui->prompt;

    ui->prompt = PROMPT_NONE;
    ui->is_dirty = 1;
    snprintf(line, sizeof(line), "%s %s", prompts[k].verb, ui->input);
    if (command_parse(line, &cmd, why, sizeof(why)) <= 0) {
        set_status(ui, ui->input_len ? why : "nothing typed; nothing sent");
        return;
    }
    if (k == PROMPT_MARK)
        snprintf(label, sizeof(label), "mark");
    else if (k == PROMPT_RATE)
        snprintf(label, sizeof(label), "rate %.6g/s", cmd.rate_per_s);
    else
        snprintf(label, sizeof(label), "%s %lld", prompts[k].verb, (long long)cmd.n);
    send(ui, &cmd, label);
}

static void prompt_key(struct ui *ui, int key)
{
    ui->is_dirty = 1;
    if (key == 27) {
        ui->prompt = PROMPT_NONE;
    } else if (key == '\r' || key == '\n' || key == KEY_ENTER) {
        submit_prompt(ui);
    } else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
        /* Back over a whole UTF-8 character, continuation bytes first. */
        while (ui->input_len > 0 && (ui->input[ui->input_len - 1] & 0xc0) == 0x80)
            ui->input_len--;
        if (ui->input_len > 0)
            ui->input_len--;
        ui->input[ui->input_len] = '\0';
    } else if (key >= 32 && key < 256 && key != 127 && ui->input_len + 1 < sizeof(ui->input)) {
        ui->input[ui->input_len++] = (char)key;
        ui->input[ui->input_len] = '\0';
    }
}

static void quit(struct ui *ui)
{
    ui->quits++;
    if (ui->p->replay)
        set_status(ui, "ending the replay");
    else if (ui->quits == 1)
        set_status(ui, "stopping: requests in flight finish first (q again aborts them)");
    else
        set_status(ui, "aborting the requests in flight");
}

/* The replay's speed and pause mirror the player's; they change only once
 * the command that changes the player was sent. */
static void replay_speed(struct ui *ui, int step)
{
    unsigned to = ui->speed_index;
    char text[32];

    if ((step < 0 && to == 0) || (step > 0 && to + 1 == N_SPEEDS)) {
        set_status(ui, step < 0 ? "already at the slowest, x0.5" : "already at the fastest, x16");
        return;
    }
    to = step < 0 ? to - 1 : to + 1;
    snprintf(text, sizeof(text), "speed x%g", speeds[to]);
    if (send_simple(ui, CMD_REPLAY_SPEED, step, text) == 0)
        ui->speed_index = to;
}

static void replay_pause(struct ui *ui)
{
    int to = !ui->is_replay_paused;

    if (send_simple(ui, CMD_REPLAY_PAUSE, 0, to ? "pause" : "play") == 0)
        ui->is_replay_paused = to;
}

/* The keys of a replay; 0 when a is not one of them. */
static int act_replay(struct ui *ui, enum action a)
{
    switch (a) {
    case ACT_PLAY_PAUSE: replay_pause(ui); return 1;
    case ACT_SEEK_BACK: send_simple(ui, CMD_REPLAY_SEEK, -SEEK_MS, "10 s back"); return 1;
    case ACT_SEEK_FORWARD: send_simple(ui, CMD_REPLAY_SEEK, SEEK_MS, "10 s forward"); return 1;
    case ACT_SLOWER: replay_speed(ui, -1); return 1;
    case ACT_FASTER: replay_speed(ui, 1); return 1;
    case ACT_NEXT_EVENT: send_simple(ui, CMD_REPLAY_EVENT, 1, "next event"); return 1;
    case ACT_PREVIOUS_EVENT: send_simple(ui, CMD_REPLAY_EVENT, -1, "previous event"); return 1;
    default: return 0;
    }
}

static void act(struct ui *ui, enum action a, int key)
{
    const struct tick *t = ui->m->last;
    char text[64];

    if (act_replay(ui, a))
        return;
    switch (a) {
    case ACT_LATENCY_TOGGLE:
        ui->latency = ui__latency_next(ui->latency, t && t->model == LOAD_OPEN);
        set_status(ui, ui->latency == LATENCY_SERVICE  ? "latency: service time of successes"
                       : ui->latency == LATENCY_FAILED ? "latency: failed requests"
                                                       : "latency: successes");
        break;
    case ACT_PHASES:
        ui->show_phases = !ui->show_phases;
        set_status(ui, ui->show_phases ? "where the time goes: dns, connect, tls, first byte"
                                       : "latency");
        break;
    case ACT_STEP_UP: send_simple(ui, CMD_STEP, 1, "step up"); break;
    case ACT_STEP_DOWN: send_simple(ui, CMD_STEP, -1, "step down"); break;
    case ACT_DOUBLE: send_simple(ui, CMD_DOUBLE, 0, "x2"); break;
    case ACT_HALVE: send_simple(ui, CMD_HALVE, 0, "/2"); break;
    case ACT_PAUSE_TOGGLE:
        if (t && t->state == RUN_PAUSED)
            send_simple(ui, CMD_RESUME, 0, "resume");
        else
            send_simple(ui, CMD_PAUSE, 0, "pause");
        break;
    case ACT_ASK_CONCURRENCY:
        /* Under the open model = asks for the rate, as + and - step it. */
        open_prompt(ui, t && t->model == LOAD_OPEN ? PROMPT_RATE : PROMPT_CONCURRENCY);
        break;
    case ACT_SWITCH_MODEL: send_simple(ui, CMD_SET_MODEL, CMD_MODEL_SWITCH, "switch model"); break;
    case ACT_ASK_DROP: open_prompt(ui, PROMPT_DROP); break;
    case ACT_ASK_MARK: open_prompt(ui, PROMPT_MARK); break;
    case ACT_RAMP: send_simple(ui, CMD_RAMP, 0, "ramp"); break;
    case ACT_RAMP_NEXT: send_simple(ui, CMD_RAMP_NEXT, 0, "next step"); break;
    case ACT_STEPS:
        ui->show_steps = !ui->show_steps;
        ui->is_dirty = 1;
        break;
    case ACT_HELP:
        ui->show_help = 1;
        ui->is_dirty = 1;
        break;
    case ACT_QUIT: quit(ui); break;
    case ACT_REDRAW:
        clearok(curscr, TRUE);
        ui->is_dirty = 1;
        break;
    default:
        if (key >= 32 && key < 127)
            snprintf(text, sizeof(text), "no action on '%c' (? lists the keys)", key);
        else
            snprintf(text, sizeof(text), "no action on key %d (? lists the keys)", key);
        set_status(ui, text);
        break;
    }
}

static void on_key(struct ui *ui, int key)
{
    if (key == KEY_RESIZE) {
        ui->is_dirty = 1;
        return;
    }
    if (ui->show_help) {
        ui->show_help = 0;
        ui->is_dirty = 1;
        return;
    }
    if (ui->prompt != PROMPT_NONE) {
        prompt_key(ui, key);
        return;
    }
    act(ui, ui__keymap_action(ui->keys, key), key);
}

static void on_tick(struct ui *ui, const struct tick *t)
{
    if (t->is_restart) {
        /* A replay jumped: the charts and totals start again there. */
        ui__model_free(ui->m);
        ui->m = ui__model_new();
    }
    ui__model_add_tick(ui->m, t);
    if (ui->p->on_tick)
        ui->p->on_tick(ui->p->on_tick_arg, t);
    if (ui->pending[0]) {
        int applied = 0;

        for (uint32_t i = 0; i < t->n_events && i < TICK_MAX_EVENTS; i++)
            applied |= t->events[i].kind == EV_COMMAND;
        if (applied || ++ui->pending_ticks >= PENDING_TICKS)
            ui->pending[0] = '\0';
    }
    ui->is_dirty = 1;
}

static void draw(struct ui *ui)
{
    struct view v = {
        .m = ui->m,
        .th = &ui->th,
        .target = ui->p->target,
        .recording = ui->p->recording,
        .recording_problem = ui->p->recording_problem,
        .pending = ui->pending[0] ? ui->pending : NULL,
        .status = ui->status[0] ? ui->status : NULL,
        .prompt = ui->prompt != PROMPT_NONE ? prompts[ui->prompt].label : NULL,
        .input = ui->input,
        .show_help = ui->show_help,
        .show_steps = ui->show_steps,
        .latency = ui->latency,
        .show_phases = ui->show_phases,
        .keys = ui->keys,
        .is_replay = ui->p->replay != NULL,
        .replay_total_ms = ui->p->replay ? ui->p->replay->total_ms : 0,
        .replay_speed = speeds[ui->speed_index],
        .is_replay_paused = ui->is_replay_paused,
    };

    ui__view_screen(&v, COLS, LINES);
    refresh();
    ui->is_dirty = 0;
}

/*
 * Waits up to TICK_POLL_MS for the terminal and reads every key it has. A
 * hang-up, an error, or a terminal that keeps waking us with nothing to
 * read (EOF: the other side is gone while SIGHUP was ignored) is a hang-up:
 * never spin on a dead terminal.
 */
static void read_keys(struct ui *ui)
{
    struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
    int n = poll(&pfd, 1, TICK_POLL_MS), keys = 0, key;

    if (n < 0)
        n = 0; /* EINTR: a signal, such as a resize; getch reports it */
    if (n > 0 && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))) {
        ui->is_hung_up = 1;
        return;
    }
    errno = 0;
    while ((key = getch()) != ERR) {
        on_key(ui, key);
        keys++;
    }
    if (errno == EIO) {
        ui->is_hung_up = 1;
        return;
    }
    ui->spins = n > 0 && !keys ? ui->spins + 1 : 0;
    if (ui->spins >= SPIN_LIMIT)
        ui->is_hung_up = 1;
}

static void take_ticks(struct ui *ui, int wait_ms)
{
    struct tick *t =
        wait_ms ? chan_take_wait(ui->p->chan, (unsigned)wait_ms) : chan_take(ui->p->chan);

    for (; t; t = chan_take(ui->p->chan)) {
        on_tick(ui, t);
        tick_free(t);
    }
}

int ui_run(struct ui *ui, const struct ui_params *p)
{
    struct stopper st;

    ui->p = p;
    ui->is_dirty = 1;
    ui->keys = p->replay ? &keymap_replay : &keymap_live;
    ui->speed_index = SPEED_NORMAL;
    stopper_init(&st, p->stop_grace_ms);
    while (!chan_is_done(p->chan)) {
        unsigned stops;

        /* Once the terminal is gone, wait on the channel instead. */
        take_ticks(ui, ui->is_hung_up ? TICK_POLL_MS : 0);
        if (*p->hangup)
            ui->is_hung_up = 1;
        stops = (unsigned)*p->stop_signals + ui->quits + (ui->is_hung_up ? 2 : 0);
        if (stopper_update(&st, p->chan, stops, clock_now_ns()) != 0)
            return UI_END_STUCK;
        if (ui->is_hung_up)
            continue;
        if (ui->status[0] && clock_now_ns() > ui->status_until_ns) {
            ui->status[0] = '\0';
            ui->is_dirty = 1;
        }
        if (ui->is_dirty)
            draw(ui);
        read_keys(ui);
    }
    if (!ui->is_hung_up) {
        /* The last tick (DONE) stays on screen until the report. */
        draw(ui);
    }
    return ui->is_hung_up ? UI_END_HANGUP : UI_END_DONE;
}
