/*
 * The whole screen: the layout's panels, the compact line below the
 * minimum size, and the help overlay.
 */
#include "ui/internal.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"

void ui__view_compact(const struct view *v, struct rect r)
{
    const struct model *m = v->m;
    const struct theme *th = v->th;
    const struct ui__model_point *p;
    char ok[16], bad[16], p99[UNITS_FMT_MAX];
    uint64_t failed;
    int used;

    if (r.h < 1 || r.w < 1)
        return;
    if (!m->last) {
        ui__draw_text(th, r.y, r.x, r.w, th->attr[ROLE_DIM], "brink: waiting for the first tick");
        return;
    }
    p = ui__model_point(m, 0);
    failed = errclass_sum(m->last->total.errors);
    units_format_duration(m->last->total.window.pct_us[2], p99, sizeof(p99));
    used = ui__draw_fmt(
        th, r.y, r.x, r.w, th->attr[ROLE_VALUE], "ok %s/s failed %s/s p99 %s err %.1f%% c %u %s",
        ui__fmt_rate(p->ok_per_s, ok, sizeof(ok)), ui__fmt_rate(p->err_per_s, bad, sizeof(bad)),
        m->last->total.window.count ? p99 : "-",
        m->last->total.completed ? 100.0 * (double)failed / (double)m->last->total.completed : 0.0,
        m->last->actual_concurrency, run_state_name(m->last->state));
    ui__draw_fmt(th, r.y, r.x + used, r.w - used, th->attr[ROLE_DIM], "  (%dx%d for the console)",
                 LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
}

/* The Ctrl-C line of the live console's help. */
static const char help_ctrl_c[] = "Ctrl-C stops too; a second one aborts what is in flight";

/* The help's box: a frame, a blank column inside it on each side, the
 * key in KEY_W columns, a blank, the help text. */
#define KEY_W 6
#define TEXT_X (2 + KEY_W + 1) /* from the box's left edge */

/* The width the help needs: its longest line, in the box's frame and
 * margins. At 80 columns (the console's minimum) every line fits whole. */
static int help_width(const struct keymap *map)
{
    int w = 2 + (int)sizeof(help_ctrl_c) - 1 + 2;

    for (size_t i = 0; i < map->len; i++) {
        int need = TEXT_X + (int)strlen(map->entries[i].help) + 2;

        if (need > w)
            w = need;
    }
    return w;
}

/* The frame's corners and sides, in the terminal's glyphs. */
static const char *frame_glyph(const struct theme *th, int which)
{
    static const char *const utf8[] = {"\u250c", "\u2510", "\u2514", "\u2518", "\u2502"};
    static const char *const ascii[] = {"+", "+", "+", "+", "|"};

    return th->is_utf8 ? utf8[which] : ascii[which];
}

enum { FRAME_TL, FRAME_TR, FRAME_BL, FRAME_BR, FRAME_SIDE };

/*
 * The help overlay: an opaque framed box. Every cell of the box is painted
 * (blanks first, then the frame and the text), so nothing of the panels
 * under it shows inside, and the frame keeps what is around it apart.
 */
void ui__view_help(const struct view *v, int cols, int rows)
{
    const struct theme *th = v->th;
    const struct keymap *map = v->keys ? v->keys : &keymap_live;
    int width = help_width(map), tail = v->is_replay ? 0 : 2;
    int dim = th->attr[ROLE_DIM];
    struct rect box;
    int y, bottom;

    box.w = cols < width ? cols : width;
    box.h = (int)map->len + 2 + tail;
    box.h = rows < box.h ? rows : box.h;
    box.y = (rows - box.h) / 2;
    box.x = (cols - box.w) / 2;
    if (box.w < 4 || box.h < 3)
        return;
    bottom = box.y + box.h - 1;
    ui__draw_clear(box);
    ui__draw_text(th, box.y, box.x, 1, dim, frame_glyph(th, FRAME_TL));
    ui__draw_repeat(box.y, box.x + 1, box.w - 2, dim, th->glyph[GL_HLINE]);
    ui__draw_text(th, box.y, box.x + box.w - 1, 1, dim, frame_glyph(th, FRAME_TR));
    ui__draw_text(th, bottom, box.x, 1, dim, frame_glyph(th, FRAME_BL));
    ui__draw_repeat(bottom, box.x + 1, box.w - 2, dim, th->glyph[GL_HLINE]);
    ui__draw_text(th, bottom, box.x + box.w - 1, 1, dim, frame_glyph(th, FRAME_BR));
    for (y = box.y + 1; y < bottom; y++) {
        ui__draw_text(th, y, box.x, 1, dim, frame_glyph(th, FRAME_SIDE));
        ui__draw_text(th, y, box.x + box.w - 1, 1, dim, frame_glyph(th, FRAME_SIDE));
    }
    ui__draw_text(th, box.y, box.x + 1, box.w - 2, th->attr[ROLE_TITLE], " Keys ");
    if (box.w >= 26)
        ui__draw_text(th, box.y, box.x + box.w - 17, 16, dim, " any key closes ");
    y = box.y + 1;
    for (size_t i = 0; i < map->len && y < bottom; i++, y++) {
        ui__draw_text(th, y, box.x + 2, KEY_W, th->attr[ROLE_KEY], map->entries[i].keys);
        ui__draw_words(th, y, box.x + TEXT_X, box.w - TEXT_X - 2, th->attr[ROLE_NORMAL],
                       map->entries[i].help);
    }
    if (tail && y + 1 < bottom)
        ui__draw_words(th, y + 1, box.x + 2, box.w - 4, dim, help_ctrl_c);
}

void ui__view_screen(const struct view *v, int cols, int rows)
{
    static void (*const draw[PANEL__COUNT])(const struct view *, struct rect) = {
        [PANEL_HEADER] = ui__view_header,     [PANEL_THROUGHPUT] = ui__view_throughput,
        [PANEL_LATENCY] = ui__view_latency,   [PANEL_ERRORS] = ui__view_errors,
        [PANEL_COUNTERS] = ui__view_counters, [PANEL_KINDS] = ui__view_kinds,
        [PANEL_EVENTS] = ui__view_events,     [PANEL_KEYS] = ui__view_keys,
        [PANEL_COMPACT] = ui__view_compact,   [PANEL_AGENTS] = ui__view_agents,
    };
    struct layout l;

    erase();
    ui__layout_compute(cols, rows, v->m->last ? v->m->last->n_kinds : 0,
                       v->m->last ? v->m->last->n_agents : 0, &l);
    for (int p = 0; p < PANEL__COUNT; p++) {
        if (l.r[p].h <= 0 || l.r[p].w <= 0)
            continue;
        if (p == PANEL_EVENTS && v->show_steps)
            ui__view_steps(v, l.r[p]);
        else
            draw[p](v, l.r[p]);
    }
    if (v->show_help && !l.is_compact)
        ui__view_help(v, cols, rows);
}
