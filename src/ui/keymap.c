/* The console's keys: one table, read by the dispatcher and the help. */
#include "ui/internal.h"

#define CTRL(c) ((c) & 0x1f)

const struct keymap_entry keymap[] = {
    {'+', ACT_STEP_UP, "+", "one step more virtual users"},
    {'-', ACT_STEP_DOWN, "-", "one step fewer (surplus users finish first)"},
    {']', ACT_DOUBLE, "]", "double the concurrency"},
    {'[', ACT_HALVE, "[", "halve the concurrency"},
    {'=', ACT_ASK_CONCURRENCY, "=", "type an exact concurrency, then Enter"},
    {'p', ACT_PAUSE_TOGGLE, "p", "pause (in-flight requests finish) or resume"},
    {'d', ACT_ASK_DROP, "d", "drop N connections mid-transfer"},
    {'m', ACT_ASK_MARK, "m", "mark this moment with a note"},
    {'?', ACT_HELP, "?", "this help (any key closes it)"},
    {'q', ACT_QUIT, "q", "quit: stop the load, print the report"},
    {CTRL('l'), ACT_REDRAW, "^L", "redraw the screen"},
};

const size_t keymap_len = sizeof(keymap) / sizeof(keymap[0]);

enum action keymap_action(int key)
{
    for (size_t i = 0; i < keymap_len; i++) {
        if (keymap[i].key == key)
            return keymap[i].action;
    }
    return ACT_NONE;
}
