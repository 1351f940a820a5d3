/*
 * The console without a terminal: the layout over many sizes, the keymap,
 * the model, and whole screens drawn from synthetic ticks into curses'
 * memory (output to /dev/null) and read back cell by cell. Two of them are
 * golden files under tests/data/screens, so a reviewer sees the layout
 * without running it; BRINK_UPDATE_GOLDEN=1 rewrites them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <curses.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "core/tick.h"
#include "ui/internal.h"

#define SCREEN_MAX (200 * 80 * 4)

/* ---- layout ---- */

static int overlaps(struct rect a, struct rect b)
{
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

static void layout_panels_stay_inside_and_apart_at_every_size(void **state)
{
    (void)state;
    for (int cols = 0; cols <= 260; cols += 1) {
        for (int rows = 0; rows <= 90; rows += (cols % 7 == 0 ? 1 : 13)) {
            for (uint32_t kinds = 0; kinds <= 20; kinds += 10) {
                for (uint32_t agents = 0; agents <= 16; agents += 3) {
                    struct layout l;

                    ui__layout_compute(cols, rows, kinds, agents, &l);
                    for (int p = 0; p < PANEL__COUNT; p++) {
                        struct rect r = l.r[p];

                        if (!r.h || !r.w)
                            continue;
                        assert_true(r.x >= 0 && r.y >= 0 && r.h > 0 && r.w > 0);
                        assert_true(r.x + r.w <= cols && r.y + r.h <= rows);
                        for (int q = p + 1; q < PANEL__COUNT; q++) {
                            if (l.r[q].h && l.r[q].w)
                                assert_false(overlaps(r, l.r[q]));
                        }
                    }
                }
            }
        }
    }
}

static void layout_gives_three_agents_a_row_each_at_the_minimum_size(void **state)
{
    struct layout l;

    (void)state;
    ui__layout_compute(80, 24, 0, 3, &l);
    assert_int_equal(l.r[PANEL_AGENTS].h, 4);
    assert_int_equal(l.r[PANEL_AGENTS].w, 80);
    assert_true(l.r[PANEL_EVENTS].h >= 3);
    ui__layout_compute(80, 24, 0, 0, &l);
    assert_int_equal(l.r[PANEL_AGENTS].h, 0);
}

static void layout_below_the_minimum_is_one_compact_line(void **state)
{
    struct layout l;

    (void)state;
    ui__layout_compute(79, 60, 0, 0, &l);
    assert_true(l.is_compact);
    assert_int_equal(l.r[PANEL_COMPACT].h, 1);
    assert_int_equal(l.r[PANEL_COMPACT].w, 79);
    assert_int_equal(l.r[PANEL_HEADER].h, 0);
    ui__layout_compute(200, 23, 0, 0, &l);
    assert_true(l.is_compact);
    ui__layout_compute(1, 1, 0, 0, &l);
    assert_int_equal(l.r[PANEL_COMPACT].w, 1);
    ui__layout_compute(0, 0, 0, 0, &l);
    assert_int_equal(l.r[PANEL_COMPACT].h, 0);
}

static void layout_at_the_minimum_gives_every_panel_room(void **state)
{
    struct layout l;

    (void)state;
    ui__layout_compute(80, 24, 5, 0, &l);
    assert_false(l.is_compact);
    assert_int_equal(l.r[PANEL_HEADER].h, 2);
    /* Latency: title, legend, 5 bars and the moments. */
    assert_true(l.r[PANEL_THROUGHPUT].h >= 8 && l.r[PANEL_LATENCY].h >= 8);
    assert_true(l.r[PANEL_ERRORS].h >= 6 && l.r[PANEL_COUNTERS].h >= 6);
    assert_true(l.r[PANEL_EVENTS].h >= 7);
    assert_int_equal(l.r[PANEL_KINDS].h, 0); /* no room for kinds at 24 rows */
    assert_int_equal(l.r[PANEL_KEYS].y, 23);
}

static void layout_grows_the_charts_and_shows_kinds_when_taller(void **state)
{
    struct layout small, big;

    (void)state;
    ui__layout_compute(80, 24, 3, 0, &small);
    ui__layout_compute(132, 40, 3, 0, &big);
    assert_true(big.r[PANEL_THROUGHPUT].h > small.r[PANEL_THROUGHPUT].h);
    assert_true(big.r[PANEL_EVENTS].h >= small.r[PANEL_EVENTS].h);
    assert_int_equal(big.r[PANEL_KINDS].h, 5); /* title, heads, 3 kinds */
    assert_int_equal(big.r[PANEL_KINDS].w, 132);
    ui__layout_compute(132, 40, 1, 0, &big);
    assert_int_equal(big.r[PANEL_KINDS].h, 0); /* one kind is the total */
}

/* Every cell of a cols x rows screen is in exactly one panel, or in the
 * one column between the left and right panels. */
static void assert_tiles(int cols, int rows, const struct layout *l)
{
    for (int y = 0; y < rows; y++) {
        for (int x = 0; x < cols; x++) {
            int in = 0;

            for (int p = 0; p < PANEL__COUNT; p++) {
                struct rect r = l->r[p];

                in += r.h && r.w && x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;
            }
            if (x == l->r[PANEL_THROUGHPUT].w && y >= l->r[PANEL_THROUGHPUT].y &&
                y < l->r[PANEL_ERRORS].y + l->r[PANEL_ERRORS].h)
                assert_int_equal(in, 0); /* the gutter */
            else
                assert_int_equal(in, 1);
        }
    }
}

/* 80x24, the minimum, and 200x60: the panels cover the screen; the wider
 * and taller screen gives every panel more room. */
static void layout_at_80x24_and_200x60_covers_the_screen(void **state)
{
    struct layout small, big;

    (void)state;
    ui__layout_compute(80, 24, 0, 0, &small);
    assert_tiles(80, 24, &small);
    assert_int_equal(small.r[PANEL_LATENCY].h, 8);
    assert_int_equal(small.r[PANEL_LATENCY].w, 39);
    assert_int_equal(small.r[PANEL_THROUGHPUT].w, 40);
    ui__layout_compute(200, 60, 2, 0, &big);
    assert_tiles(200, 60, &big);
    for (int p = PANEL_THROUGHPUT; p <= PANEL_EVENTS; p++) {
        if (p == PANEL_KINDS || p == PANEL_AGENTS)
            continue;
        assert_true(big.r[p].w > small.r[p].w);
        assert_true(big.r[p].h >= small.r[p].h);
    }
    assert_true(big.r[PANEL_LATENCY].h > 2 * small.r[PANEL_LATENCY].h);
    assert_int_equal(big.r[PANEL_KINDS].h, 4); /* title, heads, 2 kinds */
}

/* ---- keymap ---- */

static void keymaps_bind_each_key_once_with_help(void **state)
{
    const struct keymap *maps[] = {&keymap_live, &keymap_replay};

    (void)state;
    assert_int_equal(ui__keymap_action(&keymap_live, '+'), ACT_STEP_UP);
    assert_int_equal(ui__keymap_action(&keymap_live, ']'), ACT_DOUBLE);
    assert_int_equal(ui__keymap_action(&keymap_live, '='), ACT_ASK_CONCURRENCY);
    assert_int_equal(ui__keymap_action(&keymap_live, 'q'), ACT_QUIT);
    assert_int_equal(ui__keymap_action(&keymap_live, 'x'), ACT_NONE);
    assert_int_equal(ui__keymap_action(&keymap_replay, ' '), ACT_PLAY_PAUSE);
    assert_int_equal(ui__keymap_action(&keymap_replay, '>'), ACT_FASTER);
    assert_int_equal(ui__keymap_action(&keymap_replay, ']'), ACT_NONE); /* no load to change */
    assert_int_equal(ui__keymap_action(&keymap_live, 'w'), ACT_PHASES);
    assert_int_equal(ui__keymap_action(&keymap_replay, 'w'), ACT_PHASES);
    for (size_t m = 0; m < 2; m++) {
        for (size_t i = 0; i < maps[m]->len; i++) {
            assert_true(maps[m]->entries[i].help[0] && maps[m]->entries[i].keys[0]);
            /* The ? overlay fits at 80 columns: key column, help, margins. */
            assert_true(9 + strlen(maps[m]->entries[i].help) + 2 <= LAYOUT_MIN_COLS);
            for (size_t j = i + 1; j < maps[m]->len; j++)
                assert_int_not_equal(maps[m]->entries[i].key, maps[m]->entries[j].key);
        }
    }
}

/* ---- synthetic ticks ---- */

static void latency(struct tick_latency *l, uint64_t n, uint64_t p50_us)
{
    l->count = n;
    l->min_us = p50_us / 4;
    l->pct_us[0] = p50_us;
    l->pct_us[1] = p50_us * 2;
    l->pct_us[2] = p50_us * 5;
    l->pct_us[3] = p50_us * 12;
    l->max_us = p50_us * 30;
    l->mean_us = (double)p50_us * 1.3;
    l->stddev_us = (double)p50_us * 0.9;
}

/* A run that doubles its users twice and starts failing at 40. */
static struct tick *synthetic_tick(uint64_t seq, uint32_t n_kinds, int with_probes)
{
    struct tick *t = tick_new(0);
    uint32_t c = seq < 30 ? 10 : seq < 60 ? 20 : 40;
    uint64_t done = c * 290 + (seq * 37) % 200;
    uint64_t p50 = c < 40 ? 900 + (seq * 13) % 120 : 4200 + (seq * 29) % 900;

    t->seq = seq;
    t->start_us = seq * 1000000;
    t->duration_us = 1000000;
    t->state = RUN_RUNNING;
    t->model = LOAD_CLOSED;
    snprintf(t->transport, sizeof(t->transport), "h1");
    t->target_concurrency = c;
    t->actual_concurrency = c;
    t->in_flight = c;
    t->connections_opened = seq % 30 == 0 ? c / 2 : 0;
    t->connections = c;
    /* Where the time goes: a lookup and connects when the users change,
     * a first byte for every request. */
    if (seq % 30 == 0) {
        latency(&t->phases[PHASE_DNS].window, 1, 40);
        latency(&t->phases[PHASE_CONNECT].window, c / 2, 90);
    }
    latency(&t->phases[PHASE_DNS].run, 1 + seq / 30, 40);
    latency(&t->phases[PHASE_CONNECT].run, c, 90);
    latency(&t->phases[PHASE_TTFB].window, done, p50 * 4 / 5);
    latency(&t->phases[PHASE_TTFB].run, (seq + 1) * done, c < 40 ? 760 : 1680);
    t->health.fds_used = c + 4;
    t->health.fds_limit = 20000;
    t->health.loop_lag_us = 310;
    t->total.started = done;
    t->total.completed = done;
    t->total.ok = done;
    t->total.bytes_in = done * 13400;
    latency(&t->total.window, done, p50);
    latency(&t->total.run, (seq + 1) * done, c < 40 ? 950 : 2100);
    tick_count_status(t, 200, done);
    if (c == 40) {
        t->total.errors[ERR_RESET] = 6;
        t->total.errors[ERR_HTTP_5XX] = 21;
        t->total.ok -= 27;
        tick_count_status(t, 503, 21);
        snprintf(t->first_error[ERR_RESET], TICK_TEXT_MAX, "Connection reset by peer");
        snprintf(t->first_error[ERR_HTTP_5XX], TICK_TEXT_MAX, "503 Service Unavailable");
    }
    for (uint32_t k = 0; k < n_kinds; k++) {
        struct tick_kind *kind = &t->kinds[k];

        snprintf(kind->name, sizeof(kind->name), "%s", k ? "put" : "get");
        kind->completed = done / n_kinds;
        kind->ok = kind->completed;
        latency(&kind->window, kind->completed, p50 * (k ? 3 : 1));
        latency(&kind->run, kind->completed * (seq + 1), p50 * (k ? 3 : 1));
    }
    t->n_kinds = n_kinds;
    if (seq == 30 || seq == 60)
        tick_add_event(t, EV_COMMAND, seq * 1000 + 120,
                       seq == 30 ? "double: concurrency 10 -> 20" : "double: concurrency 20 -> 40");
    if (seq == 45)
        tick_add_event(t, EV_MARK, seq * 1000 + 500, "branch feature-x, round 2");
    if (seq == 60) {
        tick_add_event(t, EV_FIRST_ERROR, seq * 1000 + 700, "reset: Connection reset by peer");
        tick_add_event(t, EV_FIRST_ERROR, seq * 1000 + 800, "http_5xx: 503 Service Unavailable");
    }
    if (with_probes) {
        t->n_probes = 3;
        snprintf(t->probes[0].name, TICK_NAME_MAX, "siblings_100");
        t->probes[0].state = PROBE_OK;
        t->probes[0].has_value = 1;
        t->probes[0].value = c < 40 ? 1 + (double)(seq % 3) : 3 + (double)(seq - 59) * 4;
        t->probes[0].alerting = t->probes[0].value > 100;
        snprintf(t->probes[1].name, TICK_NAME_MAX, "node_gets_rate");
        t->probes[1].state = PROBE_OK;
        t->probes[1].has_value = 1;
        t->probes[1].value = (double)done * 0.5;
        snprintf(t->probes[2].name, TICK_NAME_MAX, "queue_depth");
        t->probes[2].state = PROBE_FAILING;
        snprintf(t->probes[2].error, TICK_TEXT_MAX, "connection refused");
    }
    return t;
}

/* The model of n synthetic ticks, each changed by stamp first (NULL: none). */
static struct model *stamped_model(uint64_t n, uint32_t n_kinds, int with_probes,
                                   void (*stamp)(struct tick *))
{
    struct model *m = ui__model_new();

    for (uint64_t seq = 0; seq < n; seq++) {
        struct tick *t = synthetic_tick(seq, n_kinds, with_probes);

        if (stamp)
            stamp(t);
        ui__model_add_tick(m, t);
        tick_free(t);
    }
    return m;
}

static struct model *synthetic_model(uint64_t n, uint32_t n_kinds, int with_probes)
{
    return stamped_model(n, n_kinds, with_probes, NULL);
}

/* ---- model ---- */

static void model_memory_is_bounded_and_keeps_the_newest(void **state)
{
    struct model *m = synthetic_model(MODEL_HISTORY + 250, 0, 1);

    (void)state;
    assert_int_equal(m->n_points, MODEL_HISTORY);
    assert_int_equal(m->ticks, MODEL_HISTORY + 250);
    assert_int_equal(m->last->seq, MODEL_HISTORY + 249);
    assert_int_equal(m->probes[0].n_history, MODEL_PROBE_HISTORY);
    assert_int_equal(m->n_probes, 3);
    assert_true(m->n_events <= MODEL_EVENTS);
    ui__model_free(m);
}

static void model_marks_concurrency_changes_and_first_errors(void **state)
{
    struct model *m = synthetic_model(65, 0, 0);

    (void)state;
    /* Point i back from the newest is tick 64 - i. */
    assert_true(ui__model_point(m, 64 - 30)->marks & MARK_CONCURRENCY);
    assert_int_equal(ui__model_point(m, 64 - 30)->target_concurrency, 20);
    assert_false(ui__model_point(m, 64 - 31)->marks & MARK_CONCURRENCY);
    assert_true(ui__model_point(m, 64 - 45)->marks & MARK_EVENT);
    assert_true(ui__model_point(m, 64 - 60)->marks & MARK_ERROR);
    assert_int_equal(m->errors[ERR_RESET], 5 * 6);
    assert_string_equal(m->latest_error[ERR_HTTP_5XX], "503 Service Unavailable");
    assert_int_equal(ui__model_event(m, 0)->kind, EV_FIRST_ERROR);
    assert_int_equal(ui__model_event(m, 4)->kind, EV_COMMAND);
    assert_int_equal(m->n_events, 5);
    ui__model_free(m);
}

static void model_marks_detections_on_the_chart(void **state)
{
    struct model *m = ui__model_new();
    struct tick *t = synthetic_tick(0, 0, 0);

    (void)state;
    ui__model_add_tick(m, t);
    tick_free(t);
    t = synthetic_tick(1, 0, 0);
    tick_add_event(t, EV_DETECTION, 1500, "knee: c=8 adds no throughput over c=4");
    ui__model_add_tick(m, t);
    tick_free(t);
    assert_false(ui__model_point(m, 1)->marks & MARK_EVENT);
    assert_true(ui__model_point(m, 0)->marks & MARK_EVENT);
    assert_int_equal(ui__model_event(m, 0)->kind, EV_DETECTION);
    ui__model_free(m);
}

static void model_probe_change_is_against_the_previous_sample(void **state)
{
    struct model *m = synthetic_model(62, 0, 1);

    (void)state;
    /* siblings_100 at 60 and 61: 3 + 4 and 3 + 8. */
    assert_true(m->probes[0].has_change);
    assert_true(m->probes[0].value == 11.0);
    assert_true(m->probes[0].change == 4.0);
    assert_int_equal(m->probes[2].state, PROBE_FAILING);
    assert_false(m->probes[2].has_value);
    ui__model_free(m);
}

static void model_columns_cover_the_history_aligned_on_ticks(void **state)
{
    struct model *m = synthetic_model(95, 0, 0);
    struct ui__model_point col;
    unsigned k;

    (void)state;
    /* 95 ticks in 200 columns: one tick a column. */
    assert_int_equal(ui__model_columns(m, 200, &k), 95);
    assert_int_equal(k, 1);
    /* In 40: 5 a column (2 would need 48), aligned on seq: 90..94, 85..89, ... */
    assert_int_equal(ui__model_columns(m, 40, &k), 19);
    assert_int_equal(k, 5);
    ui__model_column(m, 5, 0, &col);
    assert_int_equal(col.target_concurrency, 40);
    ui__model_column(m, 5, 12, &col); /* ticks 30..34: the change to 20 */
    assert_true(col.marks & MARK_CONCURRENCY);
    assert_int_equal(col.target_concurrency, 20);
    ui__model_column(m, 5, 11, &col); /* ticks 35..39 */
    assert_false(col.marks & MARK_CONCURRENCY);
    /* Rates are means: ticks 35..39 complete 20 * 290 + (seq * 37) % 200. */
    assert_true(col.req_per_s > 5800 && col.req_per_s < 6000);
    assert_int_equal(ui__model_columns(m, 0, &k), 0);
    ui__model_free(m);
}

/* ---- screens ---- */

static SCREEN *open_screen(void)
{
    FILE *io = fopen("/dev/null", "r+");
    SCREEN *s;

    assert_non_null(io);
    s = newterm("xterm", io, io);
    assert_non_null(s);
    return s;
}

/* Draws v (its theme set here) at cols x rows and reads the screen back. */
static void render_view(struct view *v, int cols, int rows, int is_utf8, char *out, size_t cap)
{
    struct theme th;
    size_t len = 0;

    resize_term(rows, cols);
    ui__theme_init(&th, is_utf8, 0);
    v->th = &th;
    ui__view_screen(v, cols, rows);
    for (int y = 0; y < rows; y++) {
        size_t line_start = len, last = len;

        for (int x = 0; x < cols; x++) {
            cchar_t cc;
            wchar_t wch[CCHARW_MAX + 1];
            attr_t attrs;
            short pair;
            char mb[MB_LEN_MAX];
            mbstate_t st;
            size_t n;

            memset(&st, 0, sizeof(st));
            mvin_wch(y, x, &cc);
            getcchar(&cc, wch, &attrs, &pair, NULL);
            n = wcrtomb(mb, wch[0] ? wch[0] : L' ', &st);
            assert_true(n != (size_t)-1 && len + n + 2 < cap);
            memcpy(out + len, mb, n);
            len += n;
            if (wch[0] != L' ')
                last = len;
        }
        (void)line_start;
        len = last;
        out[len++] = '\n';
    }
    out[len] = '\0';
}

/* Draws the model at cols x rows and reads the screen back as text. */
static void render(const struct model *m, int cols, int rows, int is_utf8, int help, char *out,
                   size_t cap)
{
    struct view v = {
        .m = m,
        .target = "http://127.0.0.1:8098/kv/demo-{rand:1..20}",
        .show_help = help,
    };

    render_view(&v, cols, rows, is_utf8, out, cap);
}

static void compare_golden(const char *name, const char *screen)
{
    char path[512], *golden = calloc(1, SCREEN_MAX);
    FILE *f;
    size_t n;

    snprintf(path, sizeof(path), "%s/tests/data/screens/%s", BRINK_SOURCE_DIR, name);
    if (getenv("BRINK_UPDATE_GOLDEN")) {
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(screen, f);
        fclose(f);
    }
    f = fopen(path, "r");
    if (!f)
        fail_msg("%s is missing (BRINK_UPDATE_GOLDEN=1 writes it)", path);
    n = fread(golden, 1, SCREEN_MAX - 1, f);
    fclose(f);
    golden[n] = '\0';
    if (strcmp(golden, screen) != 0) {
        fprintf(stderr, "screen drawn:\n%s", screen);
        fail_msg("%s differs from the screen drawn (shown above)", path);
    }
    free(golden);
}

static int setup_screen(void **state)
{
    if (!setlocale(LC_CTYPE, "C.UTF-8"))
        return -1;
    *state = open_screen();
    return 0;
}

static int teardown_screen(void **state)
{
    endwin();
    delscreen(*state);
    return 0;
}

static void screen_80x24_matches_its_golden_file(void **state)
{
    struct model *m = synthetic_model(90, 0, 0);
    char *screen = malloc(SCREEN_MAX);

    (void)state;
    render(m, 80, 24, 1, 0, screen, SCREEN_MAX);
    compare_golden("console-80x24.txt", screen);
    free(screen);
    ui__model_free(m);
}

/* Ticks of the curl transport over HTTP/2. */
static void stamp_h2(struct tick *t)
{
    snprintf(t->transport, sizeof(t->transport), "curl");
    snprintf(t->http_version, sizeof(t->http_version), "h2");
}

static void the_header_names_the_negotiated_http_version(void **state)
{
    struct model *m = stamped_model(5, 0, 0, stamp_h2);
    char *screen = malloc(SCREEN_MAX);

    (void)state;
    render(m, 132, 40, 1, 0, screen, SCREEN_MAX);
    *strchr(screen, '\n') = '\0';
    assert_non_null(strstr(screen, "  closed via curl h2  "));
    free(screen);
    ui__model_free(m);
}

/* A run of -z 60s, and one of -n 100000 at 1000 requests a tick. */
static void stamp_duration(struct tick *t)
{
    t->bound.end_us = 60000000;
}

static void stamp_count(struct tick *t)
{
    t->bound.requests = 100000;
    t->bound.completed = (t->seq + 1) * 1000;
    t->total.completed = 1000;
}

/* The header's first row of m at cols (ASCII), in row. */
static void header_row(const struct model *m, int cols, char *row, size_t len)
{
    char *screen = malloc(SCREEN_MAX);

    render(m, cols, 40, 0, 0, screen, SCREEN_MAX);
    *strchr(screen, '\n') = '\0';
    snprintf(row, len, "%s", screen);
    free(screen);
}

/* Issue 31: the gauge sits before the state and the clock; at 80 columns
 * it gives up its bar and detail, then the load model, and the target
 * stays whole; with room it has them all. */
static void the_header_shows_the_runs_gauge_as_room_allows(void **state)
{
    struct model *m = stamped_model(12, 0, 0, stamp_duration);
    char row[1024];

    (void)state;
    header_row(m, 80, row, sizeof(row));
    assert_string_equal(row,
                        "brink http://127.0.0.1:8098/kv/demo-{rand:1..20}     left 48s  RUNNING  "
                        "00:00:12");
    header_row(m, 132, row, sizeof(row));
    assert_non_null(strstr(row, "/kv/demo-{rand:1..20}  closed via h1"));
    assert_non_null(strstr(row, "  ##........ 12s/1m00s 20% left 48s  RUNNING  00:00:12"));
    ui__model_free(m);
    m = stamped_model(12, 0, 0, stamp_count);
    header_row(m, 132, row, sizeof(row));
    assert_non_null(strstr(row, "  #......... 12.0k/100k req 12% left ~1m28s  RUNNING"));
    ui__model_free(m);
    /* No end, no gauge. */
    m = synthetic_model(12, 0, 0);
    header_row(m, 132, row, sizeof(row));
    assert_null(strstr(row, "left"));
    ui__model_free(m);
}

static void screen_132x40_matches_its_golden_file(void **state)
{
    struct model *m = synthetic_model(90, 2, 1);
    char *screen = malloc(SCREEN_MAX);

    (void)state;
    render(m, 132, 40, 1, 0, screen, SCREEN_MAX);
    compare_golden("console-132x40.txt", screen);
    free(screen);
    ui__model_free(m);
}

/* w: the latency panel shows where the time goes, phase by phase, with as
 * many figures as its width holds, and the connections. */
static void phase_view_shows_each_phase_and_the_connections(void **state)
{
    struct model *m = synthetic_model(90, 0, 0);
    char *screen = malloc(SCREEN_MAX);
    struct view v = {.m = m, .target = "http://127.0.0.1:8098/kv/demo", .show_phases = 1};

    (void)state;
    render_view(&v, 80, 24, 1, screen, SCREEN_MAX);
    compare_golden("console-80x24-phases.txt", screen);
    assert_non_null(strstr(screen, "Where the time goes (w: latency)"));
    assert_non_null(strstr(screen, "connections 40 open"));
    render_view(&v, 132, 40, 1, screen, SCREEN_MAX);
    compare_golden("console-132x40-phases.txt", screen);
    free(screen);
    ui__model_free(m);
}

/* The synthetic run as a ramp plan of three 30 s steps (10, 20, 40 users,
 * 5 s warm-ups); the third fails on its errors and the plan holds there. */
static void stamp_plan(struct tick *t)
{
    uint32_t step = (uint32_t)(t->seq / 30);
    uint64_t in_step = t->seq % 30;

    t->plan.step = step + 1;
    t->plan.n_steps = 3;
    t->plan.level = t->target_concurrency;
    t->plan.phase = in_step < 5 ? PLAN_WARMUP : PLAN_MEASURE;
    if (step == 2 && in_step > 10)
        t->plan.phase = PLAN_HOLDING;
    if (in_step == 29 && step < 2)
        t->plan.verdict = VERDICT_PASS;
    if (step == 2 && in_step == 10) {
        t->plan.verdict = VERDICT_FAIL;
        snprintf(t->plan.why, sizeof(t->plan.why), "error_rate 0.23%% > 0.10%% (27 of 11,620)");
    }
}

static void screen_with_a_ramp_plan_shows_its_steps(void **state)
{
    struct model *m = stamped_model(85, 0, 1, stamp_plan);
    char *screen = malloc(SCREEN_MAX);
    struct view v = {.m = m, .target = "http://127.0.0.1:8098/kv/demo", .show_steps = 1};

    (void)state;
    render_view(&v, 132, 40, 1, screen, SCREEN_MAX);
    compare_golden("console-132x40-steps.txt", screen);
    assert_non_null(strstr(screen, "ramp 3/3 holding"));
    assert_non_null(strstr(screen, "FAIL: error_rate 0.23% > 0.10%"));
    free(screen);
    ui__model_free(m);
}

/* The ramp plan, where step 2 sent 7 requests again (5 after an idle
 * close, 2 after a refused stream), in one measured tick. */
static void stamp_plan_resent(struct tick *t)
{
    stamp_plan(t);
    if (t->seq == 40) {
        t->resent[RESEND_CLOSED_IDLE] = 5;
        t->resent[RESEND_REFUSED_STREAM] = 2;
    }
}

/* t: a step that sent requests again shows how many in a column of its
 * own, there only then (the golden screen above has none). */
static void steps_view_counts_the_requests_sent_again(void **state)
{
    struct model *m = stamped_model(85, 0, 1, stamp_plan_resent);
    char *screen = malloc(SCREEN_MAX);
    struct view v = {.m = m, .target = "http://127.0.0.1:8098/kv/demo", .show_steps = 1};
    const char *head, *row;

    (void)state;
    render_view(&v, 132, 40, 1, screen, SCREEN_MAX);
    head = strstr(screen, "step   level        held");
    assert_non_null(head);
    assert_non_null(strstr(head, "   err  resent  verdict"));
    row = strstr(screen, "\n2/3 ");
    assert_non_null(row);
    assert_non_null(strstr(row, "%       7  pass"));
    row = strstr(screen, "\n1/3 ");
    assert_non_null(row);
    assert_non_null(strstr(row, "%       0  pass"));
    free(screen);
    ui__model_free(m);
}

/* A one-step plan that fails at tick 10; the run then drains and ends. */
static void stamp_failed_then_stopping(struct tick *t)
{
    t->plan.step = 1;
    t->plan.n_steps = 3;
    t->plan.level = t->target_concurrency;
    t->plan.phase = t->seq <= 10 ? PLAN_MEASURE : PLAN_OFF;
    if (t->seq == 10) {
        t->plan.verdict = VERDICT_FAIL;
        snprintf(t->plan.why, sizeof(t->plan.why), "p99 2.40s > 2.00s");
    }
    if (t->seq > 10)
        t->state = t->seq == 14 ? RUN_DONE : RUN_STOPPING;
}

static void steps_view_shows_a_verdict_while_its_row_is_open(void **state)
{
    struct model *m = stamped_model(15, 0, 0, stamp_failed_then_stopping);
    char *screen = malloc(SCREEN_MAX);
    struct view v = {.m = m, .target = "http://127.0.0.1:8098/", .show_steps = 1};

    (void)state;
    /* The draining ticks fold into the failed step's row, still open. */
    render_view(&v, 100, 30, 0, screen, SCREEN_MAX);
    assert_non_null(strstr(screen, "FAIL: p99 2.40s > 2.00s"));
    assert_null(strstr(screen, "running"));
    free(screen);
    ui__model_free(m);
}

/* The breaking point: from tick 80 the server answers most requests with a
 * fast 503, 41,788 of 42,500 a second, and 712 succeed. */
static void stamp_breaking(struct tick *t)
{
    if (t->seq < 80)
        return;
    t->total.completed = 42500;
    t->total.ok = 712;
    t->total.errors[ERR_RESET] = 0;
    t->total.errors[ERR_HTTP_5XX] = 42500 - 712;
    t->total.bytes_in = 42500 * 300;
}

static void at_the_breaking_point_the_successes_lead(void **state)
{
    struct model *m = stamped_model(90, 0, 0, stamp_breaking);
    char *screen = malloc(SCREEN_MAX);
    struct ui__model_point col;
    unsigned k;

    (void)state;
    /* The model keeps successes and failures apart, per tick and column. */
    assert_true(ui__model_point(m, 0)->ok_per_s == 712.0);
    assert_true(ui__model_point(m, 0)->err_per_s == 41788.0);
    assert_int_equal(ui__model_columns(m, 40, &k), 18);
    ui__model_column(m, k, 0, &col); /* ticks 85..89 */
    assert_true(col.ok_per_s == 712.0 && col.err_per_s == 41788.0);
    render(m, 80, 24, 1, 0, screen, SCREEN_MAX);
    compare_golden("console-80x24-breaking.txt", screen);
    assert_non_null(strstr(screen, "ok 712 req/s  !failed 41.8k/s"));
    assert_non_null(strstr(screen, "top 11.7k/s, failed 41.8k/s"));
    assert_null(strstr(screen, "42.5k"));
    render(m, 60, 20, 1, 0, screen, SCREEN_MAX);
    assert_non_null(strstr(screen, "ok 712/s failed 41.8k/s p99"));
    free(screen);
    ui__model_free(m);
}

/* The synthetic run under the open model at 500 requests/s: the server
 * stalls from tick 80, in-flight reaches its cap of 64 and the schedule
 * falls behind; corrected latency grows, service time does not. */
static void make_open(struct tick *t)
{
    int stalled = t->seq >= 80;
    uint64_t done = stalled ? 120 : 500;

    t->model = LOAD_OPEN;
    t->target_concurrency = 0;
    t->actual_concurrency = 0;
    memset(t->total.errors, 0, sizeof(t->total.errors));
    memset(t->first_error, 0, sizeof(t->first_error));
    t->n_status = 0;
    tick_count_status(t, 200, done);
    t->total.completed = t->total.ok = done;
    t->total.bytes_in = done * 13400;
    latency(&t->total.window, done, 900);
    latency(&t->total.run, (t->seq + 1) * done, 950);
    t->n_events = 0;
    if (t->seq == 0)
        tick_add_event(t, EV_COMMAND, 0, "set_model: closed -> open at 500/s");
    if (t->seq == 80)
        tick_add_event(t, EV_NOTICE, 80000, "schedule not kept: in flight at its cap of 64");
    t->target_rate_per_s = 500;
    t->max_in_flight = 64;
    t->in_flight = stalled ? 64 : 3;
    t->sched_called = 500;
    t->total.started = stalled ? 120 : 500;
    t->sched_capped = stalled ? 380 : 0;
    t->sched_backlog = stalled ? 380 * (t->seq - 79) : 0;
    t->sched_lag_us = stalled ? 760000 * (t->seq - 79) : 900;
    tick_copy_text(t->service.name, sizeof(t->service.name), "service");
    t->service.completed = t->total.completed;
    latency(&t->service.window, t->total.completed, 700);
    latency(&t->service.run, t->total.completed * (t->seq + 1), 700);
    if (stalled)
        latency(&t->total.window, done, 400000 * (t->seq - 79));
}

static void screen_open_model_shows_the_schedule_and_both_latencies(void **state)
{
    struct model *m = stamped_model(85, 0, 0, make_open);
    char *screen = malloc(SCREEN_MAX);
    struct view v = {.m = m, .target = "http://127.0.0.1:8098/kv/demo"};

    (void)state;
    render_view(&v, 132, 40, 1, screen, SCREEN_MAX);
    compare_golden("console-132x40-open.txt", screen);
    assert_non_null(strstr(screen, "rate 500/s got 120/s"));
    assert_non_null(strstr(screen, "in flight 64/64"));
    assert_non_null(strstr(screen, "SCHEDULE NOT KEPT: lag 3.80s, cap reached"));
    assert_non_null(strstr(screen, "Latency of successes, from intended start (l: service)"));
    v.latency = LATENCY_SERVICE;
    render_view(&v, 132, 40, 1, screen, SCREEN_MAX);
    assert_non_null(strstr(screen, "Latency of successes: service time (l: failures)"));
    v.latency = LATENCY_FAILED;
    render_view(&v, 132, 40, 1, screen, SCREEN_MAX);
    assert_non_null(strstr(screen, "Latency of failures, from intended start (l: successes)"));
    assert_int_equal(ui__latency_next(LATENCY_FAILED, 1), LATENCY_SUCCESSES);
    assert_int_equal(ui__latency_next(LATENCY_SUCCESSES, 0), LATENCY_FAILED);
    free(screen);
    ui__model_free(m);
}

static int is_printable_ascii(const char *s)
{
    for (; *s; s++) {
        if ((*s < 32 && *s != '\n') || (unsigned char)*s > 126)
            return 0;
    }
    return 1;
}

static void ascii_screens_hold_only_printable_ascii(void **state)
{
    struct model *m = synthetic_model(90, 2, 1);
    char *screen = malloc(SCREEN_MAX);

    (void)state;
    render(m, 132, 40, 0, 0, screen, SCREEN_MAX);
    assert_true(is_printable_ascii(screen));
    assert_non_null(strstr(screen, "Throughput ---"));
    render(m, 80, 24, 0, 1, screen, SCREEN_MAX);
    assert_true(is_printable_ascii(screen));
    assert_non_null(strstr(screen, "drop N connections"));
    free(screen);
    ui__model_free(m);
}

static void hostile_strings_are_drawn_escaped(void **state)
{
    static const char hostile[] = "evil\x1b]0;PWNED\x07\x1b[2J\r\xc2\x9b"
                                  "6n\xe2\x80\xae";
    struct model *m = synthetic_model(65, 2, 1);
    struct tick *t = synthetic_tick(65, 2, 1);
    char *screen = malloc(SCREEN_MAX);

    (void)state;
    snprintf(t->first_error[ERR_RESET], TICK_TEXT_MAX, "%s", hostile);
    snprintf(t->probes[0].name, TICK_NAME_MAX, "%s", hostile);
    snprintf(t->kinds[0].name, TICK_NAME_MAX, "%s", hostile);
    tick_add_event(t, EV_NOTICE, 65000, hostile);
    ui__model_add_tick(m, t);
    render(m, 132, 40, 1, 0, screen, SCREEN_MAX);
    for (const unsigned char *p = (const unsigned char *)screen; *p; p++)
        assert_false((*p < 32 && *p != '\n') || *p == 127);
    assert_null(strstr(screen, "\xc2\x9b"));     /* C1 CSI */
    assert_null(strstr(screen, "\xe2\x80\xae")); /* bidi override */
    assert_non_null(strstr(screen, "evil\\e]0;PWNED"));
    free(screen);
    tick_free(t);
    ui__model_free(m);
}

static void a_replay_shows_its_speed_position_and_keys(void **state)
{
    struct model *m = synthetic_model(90, 0, 0);
    char *screen = malloc(SCREEN_MAX);
    struct view v = {
        .m = m,
        .target = "sessions/x.jsonl",
        .keys = &keymap_replay,
        .is_replay = 1,
        .replay_total_ms = 180000,
        .replay_speed = 2,
    };

    (void)state;
    render_view(&v, 80, 24, 0, screen, SCREEN_MAX);
    assert_non_null(strstr(screen, " PLAY x2  00:01:30/00:03:00 "));
    /* Half the session played: half the bar filled. */
    assert_non_null(strstr(screen, "#################................."));
    v.is_replay_paused = 1;
    v.show_help = 1;
    render_view(&v, 80, 24, 0, screen, SCREEN_MAX);
    assert_non_null(strstr(screen, "twice as fast"));
    assert_null(strstr(screen, "double the concurrency"));
    free(screen);
    ui__model_free(m);
}

/* Line y of screen (rows end in '\n') as wide characters, one a column
 * (the console's glyphs are all one column wide), padded with blanks to
 * cols; empty when the screen has no such line. */
static void screen_line(const char *screen, int y, int cols, wchar_t *out)
{
    const char *p = screen;
    char line[4096];
    size_t n;

    for (int i = 0; i < y && p; i++) {
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    line[0] = '\0';
    if (p) {
        n = strcspn(p, "\n");
        assert_true(n < sizeof(line));
        memcpy(line, p, n);
        line[n] = '\0';
    }
    n = mbstowcs(out, line, (size_t)cols + 1);
    assert_true(n != (size_t)-1 && n <= (size_t)cols);
    for (; n < (size_t)cols; n++)
        out[n] = L' ';
    out[cols] = L'\0';
}

/*
 * Nothing below the header is cut inside a word: every word an ellipsis
 * ends (the letters before it back to a blank) is a whole word of the same
 * screen drawn where everything fits (`whole`), followed there by a blank
 * or a punctuation mark, not by more letters.
 */
static void assert_cut_at_words(const char *screen, int cols, int rows, const char *whole,
                                int whole_cols, int whole_rows)
{
    wchar_t line[512], wline[512];

    for (int y = 2; y < rows; y++) {
        screen_line(screen, y, cols, line);
        for (int x = 0; x < cols; x++) {
            wchar_t word[128];
            int start = x, len, found = 0;

            if (line[x] != L'\u2026' && line[x] != L'>')
                continue;
            if (line[x] == L'>' && (x == 0 || line[x - 1] == L' '))
                continue; /* ASCII: a ">" after a blank is no ellipsis */
            while (start > 0 && line[start - 1] != L' ' && line[start - 1] != L'\u2502')
                start--;
            len = x - start;
            if (len == 0)
                continue;
            assert_true(len < 128);
            wmemcpy(word, line + start, (size_t)len);
            word[len] = L'\0';
            for (int wy = 0; wy < whole_rows && !found; wy++) {
                screen_line(whole, wy, whole_cols, wline);
                for (wchar_t *at = wcsstr(wline, word); at && !found; at = wcsstr(at + 1, word))
                    found = (at == wline || at[-1] == L' ') && !iswalnum(at[len]);
            }
            if (!found)
                fail_msg("row %d: \"%ls\" is cut inside a word:\n%s", y, word, screen);
        }
    }
}

/* The labels at 80x24 and 200x60: every panel's title whole, followed by
 * its rule; the latency legend whole ("tick", the scale, "┃ run"); nothing
 * cut inside a word below the header. */
static void screens_at_80x24_and_200x60_show_their_labels_whole(void **state)
{
    static const int sizes[][2] = {{80, 24}, {200, 60}, {132, 40}};
    struct model *m = synthetic_model(90, 2, 1);
    char *screen = malloc(SCREEN_MAX), *whole = malloc(SCREEN_MAX);

    (void)state;
    render(m, 250, 60, 1, 0, whole, SCREEN_MAX);
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        int cols = sizes[i][0], rows = sizes[i][1];

        render(m, cols, rows, 1, 0, screen, SCREEN_MAX);
        assert_non_null(strstr(screen, "\nThroughput \u2500"));
        assert_non_null(strstr(screen, " Latency of successes (l: failures) \u2500"));
        assert_non_null(strstr(screen, "\nErrors \u2500"));
        assert_non_null(strstr(screen, " Server counters \u2500"));
        assert_non_null(strstr(screen, "\nEvents \u2500"));
        if (rows >= 34)
            assert_non_null(strstr(screen, "\nRequest kinds \u2500"));
        assert_non_null(strstr(screen, " tick "));
        assert_non_null(strstr(screen, " tick log 1.00ms..1.00s ") ||
                        strstr(screen, " tick on a log scale 1.00ms..1.00s"));
        assert_non_null(strstr(screen, "\u2503 run\n"));
        assert_non_null(strstr(screen, "min 1.25ms  mean 6.48ms  sd 4.48ms"));
        assert_cut_at_words(screen, cols, rows, whole, 250, 60);
    }
    ui__model_free(m);
    /* The open model's longer titles give way to shorter ones at 80. */
    m = stamped_model(85, 0, 0, make_open);
    for (int l = LATENCY_SUCCESSES; l <= LATENCY_FAILED; l++) {
        static const char *const titles[] = {
            [LATENCY_SUCCESSES] = " Latency, intended start (l: service) \u2500",
            [LATENCY_SERVICE] = " Latency, service time (l: failures) \u2500",
            [LATENCY_FAILED] = " Failures, intended start (l: ok) \u2500",
        };
        struct view v = {.m = m, .target = "http://127.0.0.1:8098/kv/demo", .latency = l};

        render_view(&v, 250, 60, 1, whole, SCREEN_MAX);
        render_view(&v, 80, 24, 1, screen, SCREEN_MAX);
        assert_non_null(strstr(screen, titles[l]));
        assert_non_null(strstr(screen, "\u2503 run\n"));
        assert_cut_at_words(screen, 80, 24, whole, 250, 60);
    }
    free(screen);
    free(whole);
    ui__model_free(m);
}

/* Two agents on the synthetic run's ticks, one 2.5 ms behind. */
static void stamp_agents(struct tick *t)
{
    t->n_agents = 2;
    for (uint32_t i = 0; i < 2; i++) {
        snprintf(t->agents[i].name, sizeof(t->agents[i].name), "load-%u.example", i + 1);
        t->agents[i].is_in = 1;
        t->agents[i].completed = 5000 + i;
        t->agents[i].errors = 12;
        t->agents[i].loop_lag_us = 1250;
        t->agents[i].offset_us = i ? -2500 : 800;
    }
}

/* The agents' rows at 80 columns leave the clock offset out rather than
 * cut it; at 132 it shows. */
static void agents_rows_show_whole_figures(void **state)
{
    struct model *m = stamped_model(20, 0, 0, stamp_agents);
    char *screen = malloc(SCREEN_MAX), *whole = malloc(SCREEN_MAX);

    (void)state;
    render(m, 250, 60, 1, 0, whole, SCREEN_MAX);
    render(m, 80, 24, 1, 0, screen, SCREEN_MAX);
    assert_non_null(strstr(screen, "\nAgents \u2500"));
    assert_non_null(strstr(screen, "  lag 1.25ms\n"));
    assert_cut_at_words(screen, 80, 24, whole, 250, 60);
    render(m, 132, 40, 1, 0, screen, SCREEN_MAX);
    assert_non_null(strstr(screen, "  lag 1.25ms  offset -2.50ms"));
    free(screen);
    free(whole);
    ui__model_free(m);
}

/*
 * The help overlay is an opaque framed box: inside the frame only the
 * help's own text and blanks, although panels are drawn under it; it fits
 * at 80x24 with every key's line whole, and at 200x60.
 */
static void help_overlay_is_opaque_and_fits(void **state)
{
    static const int sizes[][2] = {{80, 24}, {200, 60}};
    struct model *m = synthetic_model(90, 2, 1);
    char *under = malloc(SCREEN_MAX), *over = malloc(SCREEN_MAX);
    wchar_t uline[512], oline[512], want[512];

    (void)state;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        int cols = sizes[i][0], rows = sizes[i][1], top = -1, left = -1, right = -1, bottom = -1;
        int hidden = 0;

        render(m, cols, rows, 1, 0, under, SCREEN_MAX);
        render(m, cols, rows, 1, 1, over, SCREEN_MAX);
        for (int y = 0; y < rows && bottom < 0; y++) {
            screen_line(over, y, cols, oline);
            if (top < 0 && wcschr(oline, L'\u250c')) {
                top = y;
                left = (int)(wcschr(oline, L'\u250c') - oline);
                right = (int)(wcschr(oline, L'\u2510') - oline);
            } else if (top >= 0 && oline[left] == L'\u2514') {
                bottom = y;
                assert_true(oline[right] == L'\u2518');
            }
        }
        assert_true(top >= 0 && bottom > top && right > left);
        assert_int_equal(bottom - top - 1, (int)keymap_live.len + 2);
        for (int y = top + 1; y < bottom; y++) {
            int row = y - top - 1;
            char text[256] = "";

            screen_line(under, y, cols, uline);
            screen_line(over, y, cols, oline);
            if (row < (int)keymap_live.len)
                snprintf(text, sizeof(text), "%-6s %s", keymap_live.entries[row].keys,
                         keymap_live.entries[row].help);
            else if (row == (int)keymap_live.len + 1)
                snprintf(text, sizeof(text),
                         "Ctrl-C stops too; a second one aborts what is "
                         "in flight");
            /* The frame's sides, a blank, the text whole, blanks to the side. */
            swprintf(want, 512, L"\u2502 %-*s\u2502", right - left - 2, text);
            for (int x = left; x <= right; x++)
                hidden += uline[x] != L' ' && oline[x] == L' ';
            oline[right + 1] = L'\0';
            if (wcscmp(oline + left, want) != 0)
                fail_msg("%dx%d row %d inside the help: \"%ls\", not \"%ls\"", cols, rows, y,
                         oline + left, want);
        }
        assert_true(hidden > 100); /* the panels were there, under it */
    }
    free(under);
    free(over);
    ui__model_free(m);
}

static void tiny_screens_draw_inside_their_bounds(void **state)
{
    struct model *m = synthetic_model(70, 2, 1);
    char *screen = malloc(SCREEN_MAX);
    static const int sizes[][2] = {{1, 1},   {2, 1},   {10, 3},  {20, 5},
                                   {79, 23}, {80, 24}, {81, 25}, {200, 60}};

    (void)state;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        render(m, sizes[i][0], sizes[i][1], 1, 1, screen, SCREEN_MAX);
        assert_true(strlen(screen) > 0);
    }
    render(m, 40, 10, 1, 0, screen, SCREEN_MAX);
    assert_non_null(strstr(screen, "/s p99"));
    free(screen);
    ui__model_free(m);
}

int main(void)
{
    const struct CMUnitTest pure[] = {
        cmocka_unit_test(layout_panels_stay_inside_and_apart_at_every_size),
        cmocka_unit_test(layout_below_the_minimum_is_one_compact_line),
        cmocka_unit_test(layout_gives_three_agents_a_row_each_at_the_minimum_size),
        cmocka_unit_test(layout_at_the_minimum_gives_every_panel_room),
        cmocka_unit_test(layout_grows_the_charts_and_shows_kinds_when_taller),
        cmocka_unit_test(layout_at_80x24_and_200x60_covers_the_screen),
        cmocka_unit_test(keymaps_bind_each_key_once_with_help),
        cmocka_unit_test(model_memory_is_bounded_and_keeps_the_newest),
        cmocka_unit_test(model_marks_concurrency_changes_and_first_errors),
        cmocka_unit_test(model_marks_detections_on_the_chart),
        cmocka_unit_test(model_probe_change_is_against_the_previous_sample),
        cmocka_unit_test(model_columns_cover_the_history_aligned_on_ticks),
    };
    const struct CMUnitTest screens[] = {
        cmocka_unit_test(screen_80x24_matches_its_golden_file),
        cmocka_unit_test(screen_132x40_matches_its_golden_file),
        cmocka_unit_test(at_the_breaking_point_the_successes_lead),
        cmocka_unit_test(the_header_names_the_negotiated_http_version),
        cmocka_unit_test(the_header_shows_the_runs_gauge_as_room_allows),
        cmocka_unit_test(phase_view_shows_each_phase_and_the_connections),
        cmocka_unit_test(screen_with_a_ramp_plan_shows_its_steps),
        cmocka_unit_test(screen_open_model_shows_the_schedule_and_both_latencies),
        cmocka_unit_test(steps_view_shows_a_verdict_while_its_row_is_open),
        cmocka_unit_test(steps_view_counts_the_requests_sent_again),
        cmocka_unit_test(ascii_screens_hold_only_printable_ascii),
        cmocka_unit_test(hostile_strings_are_drawn_escaped),
        cmocka_unit_test(a_replay_shows_its_speed_position_and_keys),
        cmocka_unit_test(tiny_screens_draw_inside_their_bounds),
        cmocka_unit_test(screens_at_80x24_and_200x60_show_their_labels_whole),
        cmocka_unit_test(help_overlay_is_opaque_and_fits),
        cmocka_unit_test(agents_rows_show_whole_figures),
    };
    int failed = cmocka_run_group_tests_name("ui (pure)", pure, NULL, NULL);

    failed += cmocka_run_group_tests_name("ui (screens)", screens, setup_screen, teardown_screen);
    return failed;
}
