/*
 * The layout: a pure function from the terminal's size to one rectangle per
 * panel. At the minimum size (80x24) every panel gets what it needs to
 * show its title, legend and labels whole; extra rows go half to the
 * charts, a quarter each to the error and counter panels and to the event
 * log; a kinds panel appears when a mix has several request kinds and
 * there are rows for it, and an agents panel (a title and a row per agent)
 * in a run with agents, taking its rows from the event log when there is
 * no other room.
 *
 *   header (2 rows)
 *   throughput | latency
 *   errors     | counters
 *   kinds (full width, optional)
 *   agents (full width, optional)
 *   events (full width)
 *   keys (1 row)
 */
#include "ui/internal.h"

#include <string.h>

#define HEADER_ROWS 2
/* Latency: title, legend, 5 bars, the moments (throughput: title, figures,
 * 5 chart rows, marks); the legend's row is the middle panels'. */
#define TOP_MIN 8
#define MIDDLE_MIN 6 /* title and 5 rows of errors or counters */
#define EVENTS_MIN 7 /* title and 6 events */
#define KINDS_MIN_SCREEN_ROWS 34
#define KINDS_MAX_ROWS 12
#define EVENTS_MIN_WITH_AGENTS 3 /* title and 2 events, beside the agents */

static struct rect rect(int y, int x, int h, int w)
{
    return (struct rect){.y = y, .x = x, .h = h, .w = w};
}

static void compact(int cols, int rows, struct layout *out)
{
    out->is_compact = 1;
    if (rows > 0 && cols > 0)
        out->r[PANEL_COMPACT] = rect(0, 0, 1, cols);
}

void ui__layout_compute(int cols, int rows, uint32_t n_kinds, uint32_t n_agents, struct layout *out)
{
    int body, kinds = 0, agents = 0, extra, top, middle, left, right, y;

    memset(out, 0, sizeof(*out));
    if (cols < LAYOUT_MIN_COLS || rows < LAYOUT_MIN_ROWS) {
        compact(cols, rows, out);
        return;
    }
    body = rows - HEADER_ROWS - 1;
    if (n_kinds >= 2 && rows >= KINDS_MIN_SCREEN_ROWS) {
        kinds = (int)n_kinds + 2;
        if (kinds > KINDS_MAX_ROWS)
            kinds = KINDS_MAX_ROWS;
    }
    extra = body - kinds - TOP_MIN - MIDDLE_MIN - EVENTS_MIN;
    if (extra < 0) { /* no room for the kinds panel after all */
        kinds = 0;
        extra = body - TOP_MIN - MIDDLE_MIN - EVENTS_MIN;
    }
    if (n_agents) {
        /* The agents' rows come first from the spare rows, then from the
         * event log down to EVENTS_MIN_WITH_AGENTS; what still does not fit
         * is cut (the panel says how many more). */
        agents = (int)n_agents + 1;
        if (agents > extra + EVENTS_MIN - EVENTS_MIN_WITH_AGENTS)
            agents = extra + EVENTS_MIN - EVENTS_MIN_WITH_AGENTS;
        extra -= agents;
    }
    top = TOP_MIN + (extra > 0 ? extra / 2 : 0);
    middle = MIDDLE_MIN + (extra > 0 ? extra / 4 : 0);
    left = cols / 2;
    right = cols - left - 1;

    out->r[PANEL_HEADER] = rect(0, 0, HEADER_ROWS, cols);
    y = HEADER_ROWS;
    out->r[PANEL_THROUGHPUT] = rect(y, 0, top, left);
    out->r[PANEL_LATENCY] = rect(y, left + 1, top, right);
    y += top;
    out->r[PANEL_ERRORS] = rect(y, 0, middle, left);
    out->r[PANEL_COUNTERS] = rect(y, left + 1, middle, right);
    y += middle;
    if (kinds) {
        out->r[PANEL_KINDS] = rect(y, 0, kinds, cols);
        y += kinds;
    }
    if (agents > 0) {
        out->r[PANEL_AGENTS] = rect(y, 0, agents, cols);
        y += agents;
    }
    out->r[PANEL_EVENTS] = rect(y, 0, rows - 1 - y, cols);
    out->r[PANEL_KEYS] = rect(rows - 1, 0, 1, cols);
}
