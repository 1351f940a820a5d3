/*
 * html_run: a session file read into what the HTML page draws: one point per
 * tick (or per group of ticks past HTML_POINTS_MAX), the events worth a
 * marker, the probes' alert thresholds from the recorded configuration, and
 * the knee the ramp plan detected.
 */
#include "report/html.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "core/xalloc.h"
#include "record/record.h"
#include "report/internal.h"

/* The group being merged into one point, and its scratch histograms. */
struct html_grouper {
    struct html_run *run;
    uint64_t n_ticks;  /* announced */
    uint64_t seen;     /* added */
    size_t cap_points; /* points allocated */
    struct html_point open;
    uint64_t open_ticks;
    struct hist *ok, *failed, *scratch;
    int has_level;
    enum load_model model;
    double level;
};

/* A probe's index in run's names, appended while there is room; -1 when the
 * table is full. */
static int probe_index(struct html_run *run, const char *name)
{
    return tick_name_row(run->probe_names, sizeof(run->probe_names[0]), &run->n_probes,
                         TICK_MAX_PROBES, name);
}

static void add_event(struct html_run *run, uint64_t at_ms, int kind, const char *text)
{
    struct html_event *e;

    if (run->n_events == HTML_EVENTS_MAX) {
        run->events_not_kept++;
        return;
    }
    e = &run->events[run->n_events++];
    e->at_ms = at_ms;
    e->kind = kind;
    tick_copy_text(e->text, sizeof(e->text), text);
}

/* The events of t worth a marker, and a change of its target level. */
static void take_events(struct html_grouper *g, const struct tick *t)
{
    static const char knee[] = "knee: c=";

    if (t->state == RUN_RUNNING || t->state == RUN_STARTING) {
        double level = t->model == LOAD_OPEN ? t->target_rate_per_s : t->target_concurrency;

        if (!g->has_level || g->model != t->model || g->level != level) {
            char text[REPORT_NUM_MAX];

            report__fmt_level(t->model == LOAD_OPEN, level, text);
            add_event(g->run, t->start_us / 1000, HTML_EV_LEVEL, text);
        }
        g->has_level = 1;
        g->model = t->model;
        g->level = level;
    }
    for (uint32_t i = 0; i < t->n_events; i++) {
        const struct tick_event *e = &t->events[i];

        if (e->kind == EV_DETECTION && !g->run->has_knee &&
            strncmp(e->text, knee, sizeof(knee) - 1) == 0) {
            g->run->has_knee = 1;
            g->run->knee_level = strtod(e->text + sizeof(knee) - 1, NULL);
        }
        if (e->kind == EV_MARK || e->kind == EV_DETECTION || e->kind == EV_ALERT ||
            e->kind == EV_FIRST_ERROR)
            add_event(g->run, e->at_ms, (int)e->kind, e->text);
    }
}

/* Figures of a latency: p50, p90, p99 and max. */
static void lat_from_tick(const struct tick_latency *l, uint64_t out[4])
{
    out[0] = l->pct_us[0];
    out[1] = l->pct_us[1];
    out[2] = l->pct_us[2];
    out[3] = l->max_us;
}

static void lat_from_hist(const struct hist *h, uint64_t out[4])
{
    if (hist_count(h) == 0) {
        memset(out, 0, 4 * sizeof(out[0]));
        return;
    }
    out[0] = hist_percentile(h, 50.0);
    out[1] = hist_percentile(h, 90.0);
    out[2] = hist_percentile(h, 99.0);
    out[3] = hist_max(h);
}

/* Closes the open group into a point. */
static void close_group(struct html_grouper *g)
{
    struct html_run *run = g->run;

    if (g->open_ticks == 0)
        return;
    if (run->ticks_per_point > 1) {
        lat_from_hist(g->ok, g->open.ok_us);
        lat_from_hist(g->failed, g->open.failed_us);
        hist_reset(g->ok);
        hist_reset(g->failed);
    }
    if (run->n_points < g->cap_points)
        run->points[run->n_points++] = g->open;
    memset(&g->open, 0, sizeof(g->open));
    g->open_ticks = 0;
}

/* Merges the histogram of k in t into dst; its timed count goes to *timed. */
static void merge_hist(struct html_grouper *g, const struct tick *t, const struct tick_kind *k,
                       struct hist *dst, uint64_t *timed)
{
    if (tick_get_hist(t, k, g->scratch) == 0) {
        hist_merge(dst, g->scratch);
        *timed += hist_count(g->scratch);
    }
}

void html_run_add_tick(struct html_run *r, const struct tick *t)
{
    struct html_grouper *g = r->g;
    struct html_point *p = &g->open;

    if (g->seen++ >= g->n_ticks)
        return;
    take_events(g, t);
    if (g->open_ticks == 0)
        p->start_us = t->start_us;
    p->duration_us += t->duration_us;
    p->completed += t->total.completed;
    p->failed += t->total.completed > t->total.ok ? t->total.completed - t->total.ok : 0;
    errclass_add(p->errors, t->total.errors);
    p->target_concurrency = t->target_concurrency;
    p->target_rate_per_s = t->target_rate_per_s;
    if (g->run->ticks_per_point == 1) {
        lat_from_tick(&t->total.window, p->ok_us);
        lat_from_tick(&t->failed.window, p->failed_us);
        p->ok_timed = t->total.window.count;
        p->failed_timed = t->failed.window.count;
    } else {
        merge_hist(g, t, &t->total, g->ok, &p->ok_timed);
        merge_hist(g, t, &t->failed, g->failed, &p->failed_timed);
    }
    for (uint32_t i = 0; i < t->n_probes; i++) {
        int j = probe_index(g->run, t->probes[i].name);

        if (j >= 0 && t->probes[i].has_value) {
            p->probe[j] = t->probes[i].value;
            p->has_probe |= 1u << j;
        }
    }
    if (++g->open_ticks == g->run->ticks_per_point)
        close_group(g);
}

/* The alert of each probe from the recorded configuration's [probe NAME]
 * sections: "alert = > N" or "< N". A json probe with several pointers
 * names its series NAME/pointer, which share NAME's alert. */
static void read_alerts(struct html_run *run)
{
    char section[TICK_NAME_MAX] = "";

    for (const char *line = run->config_text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);

        if (len > 8 && strncmp(line, "[probe ", 7) == 0 && line[len - 1] == ']') {
            snprintf(section, sizeof(section), "%.*s", (int)(len - 8), line + 7);
        } else if (line[0] == '[') {
            section[0] = '\0';
        } else if (section[0] && len > 10 && strncmp(line, "alert = ", 8) == 0 &&
                   (line[8] == '>' || line[8] == '<')) {
            size_t n = strlen(section);

            for (uint32_t i = 0; i < run->n_probes; i++) {
                const char *name = run->probe_names[i];

                if (strcmp(name, section) == 0 ||
                    (strncmp(name, section, n) == 0 && name[n] == '/')) {
                    run->alerts[i].op = line[8];
                    run->alerts[i].value = strtod(line + 9, NULL);
                }
            }
        }
        line = end ? end + 1 : NULL;
    }
}

struct html_run *html_run_new(const char *path, const struct record_header *h, size_t n_files,
                              uint64_t n_ticks)
{
    struct html_run *run = xcalloc(1, sizeof(*run));
    struct html_grouper *g = xcalloc(1, sizeof(*g));

    snprintf(run->path, sizeof(run->path), "%s", path);
    snprintf(run->brink, sizeof(run->brink), "%s", h->brink);
    snprintf(run->host, sizeof(run->host), "%s", h->host);
    run->start_wall_ms = h->start_wall_ms;
    run->config_text = xstrdup(h->config_text ? h->config_text : "");
    run->n_files = n_files;
    run->ticks_per_point =
        n_ticks > HTML_POINTS_MAX ? (n_ticks + HTML_POINTS_MAX - 1) / HTML_POINTS_MAX : 1;
    g->run = run;
    g->n_ticks = n_ticks;
    g->cap_points = (size_t)((n_ticks + run->ticks_per_point - 1) / run->ticks_per_point);
    run->points = xcalloc(g->cap_points ? g->cap_points : 1, sizeof(*run->points));
    if (run->ticks_per_point > 1) {
        g->ok = hist_new();
        g->failed = hist_new();
        g->scratch = hist_new();
    }
    run->g = g;
    return run;
}

void html_run_finish(struct html_run *r, const struct record_trailer *tr)
{
    close_group(r->g);
    if (tr) {
        r->has_trailer = 1;
        r->is_complete = tr->is_complete;
        tick_copy_text(r->end_reason, sizeof(r->end_reason), tr->reason);
    }
    read_alerts(r);
}

static void grouper_free(struct html_grouper *g)
{
    if (!g)
        return;
    hist_free(g->ok);
    hist_free(g->failed);
    hist_free(g->scratch);
    free(g);
}

void html_run_free(struct html_run *r)
{
    if (!r)
        return;
    grouper_free(r->g);
    free(r->config_text);
    free(r->points);
    free(r);
}
