/*
 * html_chart: inline SVG line charts for the HTML report. Each curve is one
 * path (broken where a value is missing) whose data-v attribute lists its
 * values, one per point, so a test or a script reads exactly what is drawn.
 * Coordinates have one decimal in a 960 x 260 view box; numbers never depend
 * on LC_NUMERIC.
 */
#include "report/html_internal.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/sanitize.h"
#include "core/units.h"
#include "report/internal.h"

#define W 960.0
#define H 260.0
#define LEFT 74.0
#define RIGHT 16.0
#define TOP 12.0
#define BOTTOM 28.0
#define TEXT_CUT_MAX 4096
/* Labels are monospace (html_style.c), so a label's width is its length
 * times one advance: 0.6 em in the usual monospace fonts (DejaVu, Liberation,
 * Courier), taken a little wider; its height from the baseline up and
 * down, a little taller than the fonts' ascent (0.93 em) and descent. */
#define CHAR_EM 0.66
#define ASCENT_EM 1.0
#define DESCENT_EM 0.3
#define AXIS_PX 11.0 /* the axes' labels, as in html_style.c */
#define MARK_PX 10.0 /* the markers' */
#define ROW_PX 14.0  /* the rows of the markers' labels at the top */
#define MARK_ROWS 4

void html__text(FILE *out, const char *raw, size_t raw_cap, size_t cut)
{
    char buf[TEXT_CUT_MAX + 1];

    if (cut > TEXT_CUT_MAX)
        cut = TEXT_CUT_MAX;
    sanitize_display(raw, strnlen(raw, raw_cap), buf, cut + 1, 0);
    for (const char *p = buf; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*p, out);
        }
    }
}

/* A step of 1, 2 or 5 times a power of ten near span / 5. */
static double nice_step(double span)
{
    double raw = span / 5.0, mag = pow(10.0, floor(log10(raw))), r = raw / mag;

    return mag * (r <= 1.0 ? 1.0 : r <= 2.0 ? 2.0 : r <= 5.0 ? 5.0 : 10.0);
}

/* A step of the time axis (s): at most 10 labels. */
static double time_step(double span)
{
    static const double steps[] = {0.1, 0.2, 0.5, 1,   2,    5,    10,   15,    30,    60,
                                   120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400};

    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        if (span / steps[i] <= 10.0)
            return steps[i];
    }
    return ceil(span / 10.0 / 86400.0) * 86400.0;
}

void html__chart_fit(struct html_chart *c, const struct html_series *s, size_t n, double extra)
{
    double lo = INFINITY, hi = isnan(extra) ? 0.0 : extra;

    if (c->y_is_log && !isnan(extra) && extra > 0)
        lo = extra;
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < s[k].n; i++) {
            if (!s[k].has[i] || !isfinite(s[k].y[i]))
                continue;
            if (s[k].y[i] > hi)
                hi = s[k].y[i];
            if (s[k].y[i] > 0 && s[k].y[i] < lo)
                lo = s[k].y[i];
        }
    }
    if (c->y_is_log) {
        c->y_lo = isfinite(lo) ? pow(10.0, floor(log10(lo))) : 100.0;
        c->y_hi = hi > 0 ? pow(10.0, ceil(log10(hi))) : 10000.0;
        if (c->y_hi <= c->y_lo)
            c->y_hi = c->y_lo * 10.0;
        return;
    }
    c->y_lo = 0.0;
    c->y_hi = hi > 0 ? ceil(hi / nice_step(hi) - 1e-9) * nice_step(hi) : 1.0;
}

static double px(const struct html_chart *c, double x)
{
    double span = c->x_hi > c->x_lo ? c->x_hi - c->x_lo : 1.0;
    double f = (x - c->x_lo) / span;

    return LEFT + (f < 0 ? 0 : f > 1 ? 1 : f) * (W - LEFT - RIGHT);
}

static double py(const struct html_chart *c, double y)
{
    double f;

    if (c->y_is_log)
        f = y > 0 ? (log10(y) - log10(c->y_lo)) / (log10(c->y_hi) - log10(c->y_lo)) : 0.0;
    else
        f = (y - c->y_lo) / (c->y_hi - c->y_lo);
    return TOP + (1.0 - (f < 0 ? 0 : f > 1 ? 1 : f)) * (H - TOP - BOTTOM);
}

/* A coordinate with one decimal. */
static const char *coord(double v, char *buf)
{
    return report__fmt_fixed(v < 0 ? 0 : v, 1, buf);
}

enum anchor { A_START, A_MIDDLE, A_END };

static const char *const anchor_name[] = {"start", "middle", "end"};

/* The box of text s of size px at (x, y): x its start, middle or end, y
 * its baseline. An escaped character (&lt;) counts as one. */
static struct html_box text_box(double x, double y, const char *s, double size, enum anchor a)
{
    size_t n = 0;
    double w;

    for (const char *p = s; *p; p++) {
        if (*p == '&' && strchr(p, ';'))
            p = strchr(p, ';');
        n += ((unsigned char)*p & 0xC0) != 0x80; /* UTF-8: its lead bytes */
    }
    w = (double)n * CHAR_EM * size;
    x -= a == A_START ? 0 : a == A_MIDDLE ? w / 2 : w;
    return (struct html_box){x, y - ASCENT_EM * size, x + w, y + DESCENT_EM * size};
}

/* Places b when it lies in the view box and meets no label placed before
 * (nor touches one: a pixel apart); returns whether it did. */
static int place(struct html_chart *c, struct html_box b)
{
    if (b.x0 < 0 || b.y0 < 0 || b.x1 > W || b.y1 > H || c->n_boxes == HTML_LABELS_MAX)
        return 0;
    for (size_t i = 0; i < c->n_boxes; i++) {
        const struct html_box *o = &c->boxes[i];

        if (b.x0 < o->x1 + 1 && o->x0 < b.x1 + 1 && b.y0 < o->y1 + 1 && o->y0 < b.y1 + 1)
            return 0;
    }
    c->boxes[c->n_boxes++] = b;
    return 1;
}

/* Writes <text> of s (safe: ASCII or escaped) at the first of the n
 * positions (x[i], y[i], anchor a[i]) where it can be placed, with class
 * cls (NULL: none); writes nothing when it fits nowhere. Returns whether it
 * wrote. */
static int put_label(struct html_chart *c, const char *cls, const char *s, double size, size_t n,
                     const double *x, const double *y, const enum anchor *a)
{
    char bx[REPORT_NUM_MAX], by[REPORT_NUM_MAX];

    for (size_t i = 0; i < n; i++) {
        if (!place(c, text_box(x[i], y[i], s, size, a[i])))
            continue;
        fputs("<text", c->out);
        if (cls)
            fprintf(c->out, " class=\"%s\"", cls);
        if (a[i] != A_START)
            fprintf(c->out, " text-anchor=\"%s\"", anchor_name[a[i]]);
        fprintf(c->out, " x=\"%s\" y=\"%s\">%s</text>", report__fmt_fixed(x[i], 1, bx),
                report__fmt_fixed(y[i], 1, by), s);
        return 1;
    }
    return 0;
}

static void label_y(const struct html_chart *c, double v, char *buf)
{
    if (v == 0)
        snprintf(buf, REPORT_NUM_MAX, "0");
    else if (c->y_is_duration)
        units_format_duration(report__round_u64(v), buf, REPORT_NUM_MAX);
    else if (v >= 1000 && v == floor(v))
        report__fmt_grouped(report__round_u64(v), buf);
    else
        report__fmt_g(v, 4, buf);
}

static void grid_line_y(struct html_chart *c, double v)
{
    char a[REPORT_NUM_MAX], l[REPORT_NUM_MAX];
    double x = LEFT - 6, y = py(c, v) + 4;
    enum anchor end = A_END;

    coord(py(c, v), a);
    label_y(c, v, l);
    fprintf(c->out, "<line class=\"grid\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%s\" y2=\"%s\"/>", LEFT,
            W - RIGHT, a, a);
    put_label(c, "ylab", l, AXIS_PX, 1, &x, &y, &end);
    fputc('\n', c->out);
}

static void axis_y(struct html_chart *c)
{
    if (c->y_is_log) {
        for (double v = c->y_lo; v <= c->y_hi * 1.0001; v *= 10.0)
            grid_line_y(c, v);
        return;
    }
    for (double step = nice_step(c->y_hi), v = 0; v <= c->y_hi * 1.0001; v += step)
        grid_line_y(c, v);
}

/* A tick of the x axis at v, labelled l when it fits. */
static void tick_x(struct html_chart *c, double v, const char *l)
{
    char a[REPORT_NUM_MAX];
    double x = px(c, v), lx[3] = {x, x, x}, ly[3] = {H - 8, H - 8, H - 8};
    enum anchor an[3] = {A_MIDDLE, A_END, A_START}; /* centred, else inside at an edge */

    coord(x, a);
    fprintf(c->out, "<line class=\"tick\" x1=\"%s\" x2=\"%s\" y1=\"%.0f\" y2=\"%.0f\"/>", a, a,
            H - BOTTOM, H - BOTTOM + 4);
    put_label(c, "xlab", l, AXIS_PX, 3, lx, ly, an);
    fputc('\n', c->out);
}

/* Percentiles: 0%, 90%, 99%, 99.9%... at each whole x, then 50%. */
static void axis_pctl(struct html_chart *c)
{
    static const char nines[] = "99.99999999";
    char l[REPORT_NUM_MAX];

    for (int k = 0; k <= (int)(c->x_hi + 1e-9) && k < 10; k++) {
        /* k nines: 90% is one, 99.9% three; no %f, whatever LC_NUMERIC says */
        if (k == 0)
            snprintf(l, sizeof(l), "0%%");
        else if (k == 1)
            snprintf(l, sizeof(l), "90%%");
        else
            snprintf(l, sizeof(l), "%.*s%%", k == 2 ? 2 : k + 1, nines);
        tick_x(c, k, l);
    }
    tick_x(c, log10(2.0), "50%");
}

static void axis_x(struct html_chart *c)
{
    double span = c->x_hi - c->x_lo, step = c->x_is_time ? time_step(span) : nice_step(span);
    char l[REPORT_NUM_MAX];

    if (span <= 0)
        return;
    if (c->x_is_pctl) {
        axis_pctl(c);
        return;
    }
    for (double v = ceil(c->x_lo / step) * step; v <= c->x_hi + step * 1e-6; v += step) {
        if (c->x_is_time && v == 0)
            snprintf(l, sizeof(l), "0");
        else if (c->x_is_time)
            units_format_duration(report__round_u64(v * 1e6), l, sizeof(l));
        else
            report__fmt_g(v, 6, l);
        tick_x(c, v, l);
    }
}

void html__chart_open(struct html_chart *c, const char *raw_caption)
{
    fprintf(c->out, "<figure class=\"chart\" id=\"%s\" data-points=\"%zu\" data-y-scale=\"%s\">\n",
            c->id, c->n_points, c->y_is_log ? "log" : "linear");
    fprintf(c->out, "<figcaption>%s", c->title);
    if (raw_caption) {
        fputs(" ", c->out);
        html__text(c->out, raw_caption, TICK_TEXT_MAX, 120);
    }
    fprintf(c->out, " <span class=\"unit\">(%s%s)</span></figcaption>\n", c->y_unit,
            c->y_is_log ? ", log scale" : "");
    fprintf(c->out, "<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n", W, H);
    axis_y(c);
    axis_x(c);
    fprintf(c->out,
            "<line class=\"axis\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\"/>"
            "<line class=\"axis\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\"/>\n",
            LEFT, W - RIGHT, H - BOTTOM, H - BOTTOM, LEFT, LEFT, TOP, H - BOTTOM);
}

static void write_value(FILE *out, double v, enum html_value_fmt fmt)
{
    char buf[REPORT_NUM_MAX];

    if (fmt == HTML_V_FIXED3)
        fputs(report__fmt_fixed(v, 3, buf), out);
    else if (fmt == HTML_V_INT)
        fputs(report__fmt_fixed(v, 0, buf), out);
    else
        fputs(report__fmt_g(v, 9, buf), out);
}

static void series_open(struct html_chart *c, const struct html_series *s, const char *tag)
{
    fprintf(c->out, "<%s class=\"s c%d%s\" data-series=\"%s\"", tag, s->colour,
            s->is_dashed ? " dash" : "", s->name);
    if (s->label) {
        fputs(" data-label=\"", c->out);
        html__text(c->out, s->label, TICK_TEXT_MAX, 38);
        fputs("\"", c->out);
    }
}

static void series_dots(struct html_chart *c, const struct html_series *s)
{
    char a[REPORT_NUM_MAX], b[REPORT_NUM_MAX];

    for (size_t i = 0; i < s->n; i++) {
        if (!s->has[i])
            continue;
        fprintf(c->out,
                "<circle class=\"p c%d\" r=\"4\" cx=\"%s\" cy=\"%s\" data-series=\"%s\" data-x=\"",
                s->colour, coord(px(c, s->x[i]), a), coord(py(c, s->y[i]), b), s->name);
        write_value(c->out, s->x[i], HTML_V_G9);
        fputs("\" data-v=\"", c->out);
        write_value(c->out, s->y[i], s->fmt);
        fputs("\"/>\n", c->out);
    }
}

void html__chart_series(struct html_chart *c, const struct html_series *s)
{
    char a[REPORT_NUM_MAX], b[REPORT_NUM_MAX];
    int is_down = 0;
    size_t run = 0;

    series_open(c, s, "path");
    fputs(" data-v=\"", c->out);
    for (size_t i = 0; i < s->n; i++) {
        if (i)
            fputc(',', c->out);
        if (s->has[i])
            write_value(c->out, s->y[i], s->fmt);
    }
    if (s->has_xs) {
        fputs("\" data-xs=\"", c->out);
        for (size_t i = 0; i < s->n; i++) {
            if (i)
                fputc(',', c->out);
            write_value(c->out, s->x[i], HTML_V_G9);
        }
    }
    fputs("\" d=\"", c->out);
    for (size_t i = 0; i < s->n; i++) {
        if (!s->has[i] || !isfinite(s->y[i])) {
            if (is_down && run == 1)
                fputs("m-1 0h2", c->out); /* a lone point shows as a dash */
            is_down = 0;
            continue;
        }
        fprintf(c->out, "%s%s %s", is_down ? "L" : "M", coord(px(c, s->x[i]), a),
                coord(py(c, s->y[i]), b));
        run = is_down ? run + 1 : 1;
        is_down = 1;
    }
    if (is_down && run == 1)
        fputs("m-1 0h2", c->out);
    fputs("\"/>\n", c->out);
    if (s->is_dots)
        series_dots(c, s);
}

void html__chart_vline(struct html_chart *c, double x, const char *cls, const char *label,
                       const char *raw_title)
{
    char a[REPORT_NUM_MAX], b[REPORT_NUM_MAX];
    double lx[2 * MARK_ROWS], ly[2 * MARK_ROWS];
    enum anchor an[2 * MARK_ROWS];

    /* A row at the top, right of the line, or left of it near the right
     * edge; close markers take the next rows down. */
    for (int i = 0; i < MARK_ROWS; i++) {
        lx[i] = px(c, x) + 2;
        lx[MARK_ROWS + i] = px(c, x) - 2;
        ly[i] = ly[MARK_ROWS + i] = TOP + MARK_PX * ASCENT_EM + ROW_PX * i;
        an[i] = A_START;
        an[MARK_ROWS + i] = A_END;
    }
    coord(px(c, x), a);
    fprintf(c->out, "<g class=\"ev %s\" data-x=\"%s\"><title>", cls, report__fmt_g(x, 9, b));
    html__text(c->out, raw_title, TICK_TEXT_MAX, TICK_TEXT_MAX);
    fprintf(c->out, "</title><line x1=\"%s\" x2=\"%s\" y1=\"%.0f\" y2=\"%.0f\"/>", a, a, TOP,
            H - BOTTOM);
    put_label(c, NULL, label, MARK_PX, 2 * MARK_ROWS, lx, ly, an);
    fputs("</g>\n", c->out);
}

void html__chart_hline(struct html_chart *c, double y, const char *cls, const char *label)
{
    char a[REPORT_NUM_MAX], v[REPORT_NUM_MAX];
    double lx[2] = {W - RIGHT - 4, W - RIGHT - 4}, ly[2] = {py(c, y) - 4, py(c, y) + 13};
    enum anchor an[2] = {A_END, A_END};

    coord(py(c, y), a);
    fprintf(c->out,
            "<g class=\"%s\" data-v=\"%s\"><line x1=\"%.0f\" x2=\"%.0f\" y1=\"%s\" y2=\"%s\"/>",
            cls, report__fmt_g(y, 9, v), LEFT, W - RIGHT, a, a);
    put_label(c, NULL, label, AXIS_PX, 2, lx, ly, an); /* above the line, else below */
    fputs("</g>\n", c->out);
}

void html__chart_ring(struct html_chart *c, double x, double y, const char *cls, const char *label)
{
    char a[REPORT_NUM_MAX], b[REPORT_NUM_MAX], e[REPORT_NUM_MAX];
    double cx = px(c, x), cy = py(c, y);
    /* Below the ring, above it, right of it, left of it. */
    double lx[4] = {cx, cx, cx + 13, cx - 13}, ly[4] = {cy + 22, cy - 14, cy + 4, cy + 4};
    enum anchor an[4] = {A_MIDDLE, A_MIDDLE, A_START, A_END};

    coord(cx, a);
    coord(cy, b);
    fprintf(c->out, "<g class=\"%s\" data-x=\"%s\"><circle r=\"9\" cx=\"%s\" cy=\"%s\"/>", cls,
            report__fmt_g(x, 9, e), a, b);
    put_label(c, NULL, label, AXIS_PX, 4, lx, ly, an);
    fputs("</g>\n", c->out);
}

void html__chart_dot(struct html_chart *c, double x, double y, int colour, const char *attrs,
                     const char *raw_label)
{
    char a[REPORT_NUM_MAX], b[REPORT_NUM_MAX];

    fprintf(c->out, "<circle class=\"p c%d\" r=\"4\" cx=\"%s\" cy=\"%s\" %s", colour,
            coord(px(c, x), a), coord(py(c, y), b), attrs);
    if (raw_label) {
        fputs(" data-label=\"", c->out);
        html__text(c->out, raw_label, TICK_TEXT_MAX, 38);
        fputs("\"", c->out);
    }
    fputs("/>\n", c->out);
}

void html__chart_close(struct html_chart *c, const struct html_series *s, size_t n)
{
    fputs("</svg>\n<p class=\"legend\">", c->out);
    for (size_t i = 0; i < n; i++) {
        fprintf(c->out, "<span class=\"key c%d%s\"></span>", s[i].colour,
                s[i].is_dashed ? " dash" : "");
        if (s[i].label) {
            html__text(c->out, s[i].label, TICK_TEXT_MAX, 38);
            fputs(" ", c->out);
        }
        fprintf(c->out, "%s ", s[i].name);
    }
    fputs("</p>\n</figure>\n", c->out);
}
