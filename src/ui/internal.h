/*
 * ui internals shared by the console's files. The model (model.c), the
 * layout (layout.c) and the keymap (keymap.c) are pure and tested without a
 * terminal; the views draw the model into the rectangles the layout gives
 * them, on stdscr, and clip themselves. Main thread only.
 */
#ifndef BRINK_UI_INTERNAL_H
#define BRINK_UI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/errclass.h"
#include "core/tick.h"

/* ---- model.c: what the console knows, built from ticks only ---- */

#define MODEL_HISTORY 600       /* ticks kept for the charts (10 min at 1 s) */
#define MODEL_EVENTS 128        /* event log lines kept */
#define MODEL_PROBE_HISTORY 120 /* samples kept per probe for its chart */

enum model_mark {
    MARK_CONCURRENCY = 1, /* the target concurrency or rate changed */
    MARK_EVENT = 2,       /* a mark, an alert or a detection */
    MARK_ERROR = 4,       /* the first error of a class */
};

struct ui__model_point {
    double req_per_s; /* completed, whatever the outcome */
    double ok_per_s;  /* of those, successes */
    double bytes_per_s;
    double err_per_s; /* of those, failures */
    uint64_t p99_us;  /* of the tick; 0 when it timed nothing */
    uint32_t target_concurrency;
    unsigned marks; /* enum model_mark bits */
};

struct ui__model_event {
    uint64_t at_ms;
    enum event_kind kind;
    char text[TICK_TEXT_MAX];
};

struct model_probe {
    char name[TICK_NAME_MAX];
    enum probe_state state;
    int has_value;
    double value;
    int has_change; /* a previous value exists: change is value - previous */
    double change;
    int alerting;
    char error[TICK_TEXT_MAX];
    double history[MODEL_PROBE_HISTORY];
    unsigned n_history;
    unsigned head; /* next slot to write in history */
};

struct model {
    struct tick *last;   /* the latest tick without its histograms; NULL before one */
    struct steps *steps; /* the step table so far (core/steps.h) */
    uint64_t ticks;      /* ticks seen */
    struct ui__model_point points[MODEL_HISTORY];
    unsigned n_points;
    unsigned head; /* next slot to write in points */
    uint64_t completed, ok, bytes_in;
    uint64_t errors[ERR__COUNT];
    char latest_error[ERR__COUNT][TICK_TEXT_MAX]; /* latest first-of-tick message */
    uint64_t resent[RESEND__COUNT];               /* requests sent again, by cause */
    uint32_t n_status;
    struct tick_status status[TICK_MAX_STATUS];
    uint64_t status_other;
    double peak_req_per_s;
    struct ui__model_event events[MODEL_EVENTS];
    unsigned n_events;
    unsigned events_head;
    uint64_t events_lost; /* events the ticks could not carry */
    uint32_t n_probes;
    struct model_probe probes[TICK_MAX_PROBES];
};

/* A model with no tick; free with ui__model_free (NULL is a no-op). */
struct model *ui__model_new(void);
void ui__model_free(struct model *m);
/* Adds t (borrowed). Memory stays the same whatever the run's length. */
void ui__model_add_tick(struct model *m, const struct tick *t);
/* The i-th point back from the newest (0 is the newest); i < n_points. */
const struct ui__model_point *ui__model_point(const struct model *m, unsigned i);
/*
 * Charts show the whole history: with more ticks than columns, each column
 * holds k ticks (k from 1, 2, 5, 10, 15, 20, 30: the smallest that fits),
 * aligned on the tick's sequence so columns do not shift as ticks arrive.
 * ui__model_columns returns how many columns of w are in use (column 0 is the
 * newest, possibly partial) and k in *per_column; ui__model_column combines
 * column c: mean rates, the worst p99, every mark, the newest target.
 */
unsigned ui__model_columns(const struct model *m, unsigned w, unsigned *per_column);
void ui__model_column(const struct model *m, unsigned k, unsigned c, struct ui__model_point *out);
/* The i-th event back from the newest; i < n_events. */
const struct ui__model_event *ui__model_event(const struct model *m, unsigned i);
/* The i-th sample back from the newest of probe p; i < p->n_history. */
double ui__model_probe_sample(const struct model_probe *p, unsigned i);

/* ---- layout.c: pure, from the terminal size to rectangles ---- */

#define LAYOUT_MIN_COLS 80
#define LAYOUT_MIN_ROWS 24

struct rect {
    int y, x, h, w; /* h or w 0: not shown */
};

enum panel {
    PANEL_HEADER,
    PANEL_THROUGHPUT,
    PANEL_LATENCY,
    PANEL_ERRORS,
    PANEL_COUNTERS,
    PANEL_KINDS,  /* per request kind, when there are several and room */
    PANEL_AGENTS, /* one row per agent, in a run with agents */
    PANEL_EVENTS,
    PANEL_KEYS,
    PANEL_COMPACT, /* the one line shown below the minimum size */
    PANEL__COUNT
};

struct layout {
    int is_compact;
    struct rect r[PANEL__COUNT];
};

/* Lays out a cols x rows screen (any size, 0 included); n_kinds is the
 * number of request kinds (a kinds panel needs 2 or more), n_agents that
 * of agents (0: no agents panel). Below
 * LAYOUT_MIN_COLS x LAYOUT_MIN_ROWS only PANEL_COMPACT is set (row 0, full
 * width, when there is a row). Panels never overlap or leave the screen. */
void ui__layout_compute(int cols, int rows, uint32_t n_kinds, uint32_t n_agents,
                        struct layout *out);

/* ---- keymap.c: keys to actions, as a table ---- */

enum action {
    ACT_NONE,
    ACT_STEP_UP,
    ACT_STEP_DOWN,
    ACT_DOUBLE,
    ACT_HALVE,
    ACT_ASK_CONCURRENCY, /* prompt for an exact number */
    ACT_PAUSE_TOGGLE,
    ACT_ASK_DROP, /* prompt for how many transfers to abort */
    ACT_ASK_MARK, /* prompt for a note */
    ACT_HELP,
    ACT_QUIT,
    ACT_REDRAW,
    ACT_RAMP,           /* start, resume or stop the ramp plan */
    ACT_RAMP_NEXT,      /* end the plan's current step */
    ACT_STEPS,          /* the step table instead of the event log, or back */
    ACT_SWITCH_MODEL,   /* closed <-> open */
    ACT_LATENCY_TOGGLE, /* corrected or service latency (open model) */
    ACT_PHASES,         /* the latency panel shows where the time goes, or back */
    /* replay */
    ACT_PLAY_PAUSE,
    ACT_SEEK_BACK,
    ACT_SEEK_FORWARD,
    ACT_SLOWER,
    ACT_FASTER,
    ACT_NEXT_EVENT,
    ACT_PREVIOUS_EVENT,
};

struct keymap_entry {
    int key;
    enum action action;
    const char *keys; /* as the help shows them */
    const char *help; /* one line */
};

struct keymap {
    const struct keymap_entry *entries;
    size_t len;
};

extern const struct keymap keymap_live;   /* a run: the load's keys */
extern const struct keymap keymap_replay; /* a replay: moving in time */

/* The action bound to key (a curses key code or a character) in map,
 * ACT_NONE when none is. */
enum action ui__keymap_action(const struct keymap *map, int key);

/* ---- theme.c: semantic roles and glyphs ---- */

enum role {
    ROLE_NORMAL,
    ROLE_TITLE,
    ROLE_LABEL,
    ROLE_VALUE,
    ROLE_DIM,
    ROLE_GOOD,
    ROLE_WARN,
    ROLE_BAD,
    ROLE_CHART,
    ROLE_CHART_ERR,
    ROLE_MARK,
    ROLE_RUN,   /* the bar of a whole-run figure */
    ROLE_STATE, /* the run state badge */
    ROLE_KEY,   /* a key in the key line */
    ROLE__COUNT
};

enum glyph {
    GL_HLINE,     /* panel rules */
    GL_BAR_FULL,  /* a full cell of a horizontal bar */
    GL_BAR_EMPTY, /* the rest of its track */
    GL_RUN_TICK,  /* where the whole-run figure sits on a bar */
    GL_MARK_CONC, /* a concurrency change under the chart */
    GL_MARK_EVENT,
    GL_MARK_ERROR,
    GL_ALERT,
    GL_STALE,
    GL_FAILING,
    GL_ELLIPSIS,
    GL__COUNT
};

struct theme {
    int is_utf8;
    int has_colour;
    int attr[ROLE__COUNT];        /* curses attributes (an attr_t fits an int here) */
    const char *glyph[GL__COUNT]; /* one display column each */
    const char *const *levels;    /* 9 strings, empty to full, one column each */
};

/* Fills t for the terminal curses has open: colour pairs are set up only
 * when has_colour is asked and curses reports colours. */
void ui__theme_init(struct theme *t, int is_utf8, int want_colour);

/* ---- draw.c: clipped drawing on stdscr ---- */

/* Room for one line of text on its way to the screen (sanitized). */
#define DRAW_LINE_MAX 1024

/* Draws s (UTF-8, already sanitized or our own) at y, x with attr, at most w
 * display columns; a cut string ends with the theme's ellipsis. Returns the
 * columns used. */
int ui__draw_text(const struct theme *th, int y, int x, int w, int attr, const char *s);
/* The display columns of s. */
int ui__text_width(const char *s);
/* As ui__draw_text, but a string that does not fit is cut after its last
 * whole word (then the ellipsis); only a first word wider than w is cut
 * inside. For sentences and messages. */
int ui__draw_words(const struct theme *th, int y, int x, int w, int attr, const char *s);
/* Draws the first of the n choices (longest first) that fits w whole; the
 * last one is cut as ui__draw_words cuts when none fits. For labels with a
 * shorter form chosen for narrow widths. */
int ui__draw_first_fit(const struct theme *th, int y, int x, int w, int attr,
                       const char *const *choices, int n);
/* printf-style into a bounded buffer, then ui__draw_text. */
int ui__draw_fmt(const struct theme *th, int y, int x, int w, int attr, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Sanitizes an outside string for this terminal (ASCII escapes when it is
 * not UTF-8) and draws it, cut as ui__draw_words cuts. */
int ui__draw_outside(const struct theme *th, int y, int x, int w, int attr, const char *s);
/* A panel title: "title ─────" across w columns, with extra right-aligned
 * when it fits whole (left out otherwise). */
void ui__draw_title(const struct theme *th, struct rect r, const char *title, const char *extra);
/* Fills the cells of r with blanks. */
void ui__draw_clear(struct rect r);
/* A column chart in c: values[i] is column i from the right edge (i < n),
 * drawn in eighths of a row against top, with roles[i] as its role. */
void ui__draw_chart(const struct theme *th, struct rect c, const double *values, const int *roles,
                    unsigned n, double top);
/* Draws one column glyph n times from (y, x). */
void ui__draw_repeat(int y, int x, int n, int attr, const char *glyph);
/* The log scale of the latency bars: decades from *lo to *hi (powers of
 * ten, *hi / *lo at least 100) around the n durations us[] that are not 0
 * (100 us to 10 ms when all are). */
void ui__log_scale(const uint64_t *us, int n, double *lo, double *hi);
/* A bar of w cells from (y, x) on the log scale lo..hi: filled up to
 * fill_us (empty when 0), with the whole run's figure *run_us marked on it
 * (no mark when run_us is NULL). */
void ui__draw_log_bar(const struct theme *th, int y, int x, int w, double lo, double hi,
                      uint64_t fill_us, const uint64_t *run_us);

/* ---- the views: each draws one panel inside r, from the model ---- */

/* What the latency panel shows: the successes by default. */
enum latency_shown {
    LATENCY_SUCCESSES, /* requests that succeeded (open model: from the intended start) */
    LATENCY_SERVICE,   /* open model: the successes' service time, from the actual start */
    LATENCY_FAILED,    /* failed requests, timed apart */
};

/* The next view l gives: successes, (open model: service,) failures. */
enum latency_shown ui__latency_next(enum latency_shown now, int is_open);

struct view {
    const struct model *m;
    const struct theme *th;
    const char *target;
    const char *recording;
    const char *recording_problem; /* "" or NULL while the recording is fine */
    const char *pending;           /* a command sent and not yet seen applied, or NULL */
    const char *status;            /* a message for the key line, or NULL */
    const char *prompt;            /* an open prompt's label, or NULL */
    const char *input;             /* what was typed into it */
    int show_help;
    int show_steps;             /* the step table takes the event log's place */
    enum latency_shown latency; /* what the latency panel shows (l cycles) */
    int show_phases;            /* the latency panel shows the phases instead (w) */
    const struct keymap *keys;
    /* A replay: the session's length, the speed and whether it plays. */
    int is_replay;
    uint64_t replay_total_ms;
    double replay_speed;
    int is_replay_paused;
};

void ui__view_header(const struct view *v, struct rect r);
void ui__view_throughput(const struct view *v, struct rect r);
void ui__view_latency(const struct view *v, struct rect r);
/* The latency panel's other face: a row per phase (enum tick_phase) with
 * its count, p50, p90, p99 and max this tick and a bar of its p99 marked
 * with the run's, then the connections. */
void ui__view_phases(const struct view *v, struct rect r);
void ui__view_errors(const struct view *v, struct rect r);
void ui__view_counters(const struct view *v, struct rect r);
void ui__view_kinds(const struct view *v, struct rect r);
void ui__view_agents(const struct view *v, struct rect r);
void ui__view_events(const struct view *v, struct rect r);
void ui__view_steps(const struct view *v, struct rect r);
void ui__view_keys(const struct view *v, struct rect r);
void ui__view_compact(const struct view *v, struct rect r);
void ui__view_help(const struct view *v, int cols, int rows);

/* Draws the whole screen (cols x rows) for v: the layout, every panel, the
 * help overlay when asked. Does not refresh. */
void ui__view_screen(const struct view *v, int cols, int rows);

/* Formats a rate per second as "3120", "12.3k", "4.56M". */
char *ui__fmt_rate(double per_s, char *buf, size_t len);
/* Formats ms since the start as HH:MM:SS. */
char *ui__fmt_clock(uint64_t ms, char *buf, size_t len);
/* Formats a probe value: integers plainly, others with 3 significant digits. */
char *ui__fmt_value(double v, char *buf, size_t len);

#endif
