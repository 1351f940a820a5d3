/*
 * Colour roles and glyphs. Views name roles, never colours. Without colour
 * (no colours, or NO_COLOR) the meaning is carried by bold, reverse and the
 * glyphs themselves (! for errors and alerts, ~ stale, x failing), as htop's
 * monochrome scheme does. Glyphs are UTF-8 only when the locale is.
 */
#include "ui/internal.h"

#include <curses.h>

static const char *const glyphs_utf8[GL__COUNT] = {
    [GL_HLINE] = "\u2500",    [GL_BAR_FULL] = "\u2588",  [GL_BAR_EMPTY] = "\u2591",
    [GL_RUN_TICK] = "\u2503", [GL_MARK_CONC] = "\u25b2", [GL_MARK_EVENT] = "\u25c6",
    [GL_MARK_ERROR] = "!",    [GL_ALERT] = "!",          [GL_STALE] = "~",
    [GL_FAILING] = "\u2717",  [GL_ELLIPSIS] = "\u2026",
};

static const char *const glyphs_ascii[GL__COUNT] = {
    [GL_HLINE] = "-",     [GL_BAR_FULL] = "#",   [GL_BAR_EMPTY] = ".",  [GL_RUN_TICK] = "|",
    [GL_MARK_CONC] = "^", [GL_MARK_EVENT] = "*", [GL_MARK_ERROR] = "!", [GL_ALERT] = "!",
    [GL_STALE] = "~",     [GL_FAILING] = "x",    [GL_ELLIPSIS] = ">",
};

static const char *const levels_utf8[9] = {
    " ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588",
};

static const char *const levels_ascii[9] = {" ", ".", ".", ".", ":", ":", ":", "#", "#"};

/* Colour pairs, numbered from 1; -1 is the terminal's own background. */
enum { PAIR_CYAN = 1, PAIR_GREEN, PAIR_YELLOW, PAIR_RED, PAIR_MAGENTA, PAIR_BLUE };

static void colour_roles(struct theme *t)
{
    use_default_colors();
    init_pair(PAIR_CYAN, COLOR_CYAN, -1);
    init_pair(PAIR_GREEN, COLOR_GREEN, -1);
    init_pair(PAIR_YELLOW, COLOR_YELLOW, -1);
    init_pair(PAIR_RED, COLOR_RED, -1);
    init_pair(PAIR_MAGENTA, COLOR_MAGENTA, -1);
    init_pair(PAIR_BLUE, COLOR_BLUE, -1);
    t->attr[ROLE_TITLE] = (int)(A_BOLD | COLOR_PAIR(PAIR_CYAN));
    t->attr[ROLE_GOOD] = (int)COLOR_PAIR(PAIR_GREEN);
    t->attr[ROLE_WARN] = (int)(A_BOLD | COLOR_PAIR(PAIR_YELLOW));
    t->attr[ROLE_BAD] = (int)(A_BOLD | COLOR_PAIR(PAIR_RED));
    t->attr[ROLE_CHART] = (int)COLOR_PAIR(PAIR_CYAN);
    t->attr[ROLE_CHART_ERR] = (int)(A_BOLD | COLOR_PAIR(PAIR_RED));
    t->attr[ROLE_MARK] = (int)(A_BOLD | COLOR_PAIR(PAIR_MAGENTA));
    t->attr[ROLE_RUN] = (int)(A_BOLD | COLOR_PAIR(PAIR_BLUE));
    t->attr[ROLE_KEY] = (int)(A_BOLD | COLOR_PAIR(PAIR_YELLOW));
}

static void mono_roles(struct theme *t)
{
    t->attr[ROLE_TITLE] = (int)A_BOLD;
    t->attr[ROLE_GOOD] = (int)A_NORMAL;
    t->attr[ROLE_WARN] = (int)A_BOLD;
    t->attr[ROLE_BAD] = (int)A_BOLD;
    t->attr[ROLE_CHART] = (int)A_NORMAL;
    t->attr[ROLE_CHART_ERR] = (int)A_BOLD;
    t->attr[ROLE_MARK] = (int)A_BOLD;
    t->attr[ROLE_RUN] = (int)A_BOLD;
    t->attr[ROLE_KEY] = (int)A_BOLD;
}

void ui__theme_init(struct theme *t, int is_utf8, int want_colour)
{
    t->is_utf8 = is_utf8;
    for (int g = 0; g < GL__COUNT; g++)
        t->glyph[g] = is_utf8 ? glyphs_utf8[g] : glyphs_ascii[g];
    t->levels = is_utf8 ? levels_utf8 : levels_ascii;
    t->attr[ROLE_NORMAL] = (int)A_NORMAL;
    t->attr[ROLE_LABEL] = (int)A_NORMAL;
    t->attr[ROLE_VALUE] = (int)A_BOLD;
    t->attr[ROLE_DIM] = (int)A_DIM;
    t->attr[ROLE_STATE] = (int)(A_BOLD | A_REVERSE);
    t->has_colour = want_colour && has_colors() && start_color() == OK;
    if (t->has_colour)
        colour_roles(t);
    else
        mono_roles(t);
}
