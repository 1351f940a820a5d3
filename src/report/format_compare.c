/*
 * compare as text: several step tables side by side, one row per level of
 * their union (levels.c, which merges a level held twice in one session).
 */
#include "report/formats.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tick.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "report/internal.h"
#include "core/steps.h"

#define LEVEL_W 12 /* the level column */
#define RATE_W 9   /* ok/s, failed/s */
#define LAT_W 8    /* p50, p99 */
#define ERR_W 8    /* errors */
#define GROUP_W (2 + RATE_W + 2 + RATE_W + 2 + LAT_W + 2 + LAT_W + 2 + ERR_W)

/* A line being built; every append is bounded by cap. */
struct line {
    char *buf;
    size_t cap;
    size_t used;
};

static void append(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append(struct line *l, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (l->used + 1 >= l->cap)
        return;
    va_start(ap, fmt);
    n = vsnprintf(l->buf + l->used, l->cap - l->used, fmt, ap);
    va_end(ap);
    if (n > 0)
        l->used += (size_t)n < l->cap - l->used ? (size_t)n : l->cap - l->used - 1;
}

static const char *lat(const struct step_row *r, uint64_t us, char *buf)
{
    return r->timed ? units_format_duration(us, buf, UNITS_FMT_MAX) : "-";
}

/* Appends one column group for r (NULL: blank). */
static void put_group(struct line *l, const struct step_row *r)
{
    char rate[REPORT_NUM_MAX], failed[REPORT_NUM_MAX], p50[UNITS_FMT_MAX], p99[UNITS_FMT_MAX];
    char err[REPORT_NUM_MAX];

    if (r == NULL) {
        append(l, "%*s", GROUP_W, "");
        return;
    }
    append(l, "  %*s  %*s  %*s  %*s  %*s", RATE_W,
           report__fmt_rate(tick_per_s(r->ok, r->duration_us), rate), RATE_W,
           report__fmt_rate(tick_per_s(steps_row_failed(r), r->duration_us), failed), LAT_W,
           lat(r, r->p50_us, p50), LAT_W, lat(r, r->p99_us, p99), ERR_W,
           report__fmt_grouped(steps_row_failed(r), err));
}

/* The index of kind name in st when it ran in r (not NULL), else -1. */
static int kind_at(const struct steps *st, const struct step_row *r, const char *name)
{
    for (uint32_t k = 0; r && k < steps_n_kinds(st); k++) {
        if (strcmp(steps_kind_name(st, k), name) == 0)
            return r->kinds[k].completed ? (int)k : -1;
    }
    return -1;
}

/* Appends the column group of kind name at r's level in st (blank when it
 * did not run there). */
static void put_kind_group(struct line *l, const struct steps *st, const struct step_row *r,
                           const char *name)
{
    char rate[REPORT_NUM_MAX], failed[REPORT_NUM_MAX], p50[UNITS_FMT_MAX], p99[UNITS_FMT_MAX];
    char err[REPORT_NUM_MAX];
    int k = kind_at(st, r, name);

    if (k < 0) {
        append(l, "%*s", GROUP_W, "");
        return;
    }
    append(l, "  %*s  %*s  %*s  %*s  %*s", RATE_W,
           report__fmt_rate(tick_per_s(r->kinds[k].ok, r->duration_us), rate), RATE_W,
           report__fmt_rate(
               tick_per_s(report__minus(r->kinds[k].completed, r->kinds[k].ok), r->duration_us),
               failed),
           LAT_W,
           r->kinds[k].timed ? units_format_duration(r->kinds[k].p50_us, p50, sizeof(p50)) : "-",
           LAT_W,
           r->kinds[k].timed ? units_format_duration(r->kinds[k].p99_us, p99, sizeof(p99)) : "-",
           ERR_W, report__fmt_grouped(r->kinds[k].completed - r->kinds[k].ok, err));
}

/* The request kinds shown under each level, matched by name across the
 * tables: every table's, in order of first sight, when some table ran
 * several (one kind is its level's line again). Returns how many. */
static uint32_t union_kinds(const struct steps *const *tables, size_t n,
                            const char *names[STEPS_MAX_KINDS])
{
    uint32_t n_names = 0;
    int has_several = 0;

    for (size_t i = 0; i < n; i++) {
        has_several |= steps_n_kinds(tables[i]) > 1;
        for (uint32_t k = 0; k < steps_n_kinds(tables[i]); k++) {
            const char *name = steps_kind_name(tables[i], k);
            uint32_t j = 0;

            while (j < n_names && strcmp(names[j], name) != 0)
                j++;
            if (j == n_names && n_names < STEPS_MAX_KINDS)
                names[n_names++] = name;
        }
    }
    return has_several ? n_names : 0;
}

/* Writes the line without its trailing blanks, and a newline; empties it. */
static void put_line(FILE *out, struct line *l)
{
    while (l->used > 0 && l->buf[l->used - 1] == ' ')
        l->used--;
    l->buf[l->used] = '\0';
    fprintf(out, "%s\n", l->buf);
    l->used = 0;
}

static void put_heads(FILE *out, struct line *l, const char *const *labels, size_t n)
{
    char name[GROUP_W - 1];

    append(l, "  %-*s", LEVEL_W, "");
    for (size_t i = 0; i < n; i++)
        append(l, "  %-*s", GROUP_W - 2,
               report__shown(labels[i], strlen(labels[i]) + 1, name, sizeof(name)));
    put_line(out, l);
    append(l, "  %-*s", LEVEL_W, "level");
    for (size_t i = 0; i < n; i++)
        append(l, "  %*s  %*s  %*s  %*s  %*s", RATE_W, "ok/s", RATE_W, "failed/s", LAT_W, "p50",
               LAT_W, "p99", ERR_W, "errors");
    put_line(out, l);
}

/* Under the table, each session that sent requests again: how many, by
 * cause, as its own report says. */
static void put_resent(FILE *out, const struct steps *const *tables, const char *const *labels,
                       size_t n)
{
    char name[REPORT_NAME_MAX], text[REPORT_RESENT_MAX];
    struct step_row run;

    for (size_t i = 0; i < n; i++) {
        if (steps_run(tables[i], &run) != 0 || tick_resent_sum(run.resent) == 0)
            continue;
        fprintf(out, "  %s: sent again %s\n",
                report__shown(labels[i], strlen(labels[i]) + 1, name, sizeof(name)),
                report__fmt_resent(run.resent, text));
    }
}

int format_compare(const struct steps *const *tables, const char *const *labels, size_t n,
                   FILE *out)
{
    size_t n_keys;
    struct report__level *keys = report__union_levels(tables, n, &n_keys);
    /* A group is GROUP_W wide unless a figure overflows its column. */
    struct line l = {.cap = 64 + REPORT_NAME_MAX + n * 128, .used = 0};
    char level[REPORT_NUM_MAX], name[LEVEL_W - 1];
    const char *kinds[STEPS_MAX_KINDS];
    uint32_t n_kinds = union_kinds(tables, n, kinds);
    struct step_row r;

    l.buf = xmalloc(l.cap);
    put_heads(out, &l, labels, n);
    for (size_t k = 0; k < n_keys; k++) {
        append(&l, "  %-*s", LEVEL_W,
               report__fmt_level(keys[k].model == LOAD_OPEN, keys[k].level, level));
        for (size_t i = 0; i < n; i++)
            put_group(&l, report__find_level(tables[i], &keys[k], &r) == 0 ? &r : NULL);
        put_line(out, &l);
        for (uint32_t j = 0; j < n_kinds; j++) {
            int ran = 0;

            for (size_t i = 0; i < n; i++)
                ran |= report__find_level(tables[i], &keys[k], &r) == 0 &&
                       kind_at(tables[i], &r, kinds[j]) >= 0;
            if (!ran)
                continue;
            append(&l, "    %-*s", LEVEL_W - 2,
                   report__shown(kinds[j], TICK_NAME_MAX, name, sizeof(name)));
            for (size_t i = 0; i < n; i++)
                put_kind_group(&l, tables[i],
                               report__find_level(tables[i], &keys[k], &r) == 0 ? &r : NULL,
                               kinds[j]);
            put_line(out, &l);
        }
    }
    put_resent(out, tables, labels, n);
    report__print_usl_compare(out, tables, labels, n);
    free(l.buf);
    free(keys);
    return report__finish(out);
}
