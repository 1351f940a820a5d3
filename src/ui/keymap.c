/* The console's keys: one table per mode, read by the dispatcher and the
 * help. */
#include "ui/internal.h"

#include <curses.h>

#define CTRL(c) ((c)&0x1f)

static const struct keymap_entry live[] = {
    {'+', ACT_STEP_UP, "+", "one step more users (open model: rate_step more per second)"},
    {'-', ACT_STEP_DOWN, "-", "one step fewer (surplus users finish first; open: less rate)"},
    {']', ACT_DOUBLE, "]", "double the concurrency (open model: the rate)"},
    {'[', ACT_HALVE, "[", "halve the concurrency (open model: the rate)"},
    {'=', ACT_ASK_CONCURRENCY, "=", "type an exact concurrency (open: rate), then Enter"},
    {'o', ACT_SWITCH_MODEL, "o", "switch between the closed and the open (rate) model"},
    {'l', ACT_LATENCY_TOGGLE, "l", "latency: successes, service time (open model), failures"},
    {'w', ACT_PHASES, "w", "where the time goes: dns, connect, tls, first byte, or back"},
    {'p', ACT_PAUSE_TOGGLE, "p", "pause (in-flight requests finish) or resume"},
    {'d', ACT_ASK_DROP, "d", "drop N connections mid-transfer"},
    {'m', ACT_ASK_MARK, "m", "mark this moment with a note"},
    {'r', ACT_RAMP, "r", "start, resume or stop the [ramp] plan"},
    {'n', ACT_RAMP_NEXT, "n", "end the plan's step now and go on"},
    {'t', ACT_STEPS, "t", "the step table instead of the events, or back"},
    {'?', ACT_HELP, "?", "this help (any key closes it)"},
    {'q', ACT_QUIT, "q", "quit: stop the load, print the report"},
    {CTRL('l'), ACT_REDRAW, "^L", "redraw the screen"},
};

static const struct keymap_entry replay[] = {
    {' ', ACT_PLAY_PAUSE, "space", "play or pause"},
    {KEY_LEFT, ACT_SEEK_BACK, "<-", "10 s back"},
    {KEY_RIGHT, ACT_SEEK_FORWARD, "->", "10 s forward"},
    {'<', ACT_SLOWER, "<", "half as fast (down to x0.5)"},
    {'>', ACT_FASTER, ">", "twice as fast (up to x16)"},
    {'n', ACT_NEXT_EVENT, "n", "to the next event"},
    {'N', ACT_PREVIOUS_EVENT, "N", "to the previous event"},
    {'t', ACT_STEPS, "t", "the step table instead of the events, or back"},
    {'l', ACT_LATENCY_TOGGLE, "l", "latency: successes, service time (open model), failures"},
    {'w', ACT_PHASES, "w", "where the time goes: dns, connect, tls, first byte, or back"},
    {'?', ACT_HELP, "?", "this help (any key closes it)"},
    {'q', ACT_QUIT, "q", "quit and print the session's report"},
    {CTRL('l'), ACT_REDRAW, "^L", "redraw the screen"},
};

const struct keymap keymap_live = {live, sizeof(live) / sizeof(live[0])};
const struct keymap keymap_replay = {replay, sizeof(replay) / sizeof(replay[0])};

enum action ui__keymap_action(const struct keymap *map, int key)
{
    for (size_t i = 0; i < map->len; i++) {
        if (map->entries[i].key == key)
            return map->entries[i].action;
    }
    return ACT_NONE;
}
