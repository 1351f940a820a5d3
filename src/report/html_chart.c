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
    char a[REPORT_NUM_MAX], b[REPORT_NUM_MAX], l[REPORT_NUM_MAX];

    coord(py(c, v), a);
    label_y(c, v, l);
    fprintf(c->out, "<line class=\"grid\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%s\" y2=\"%s\"/>", LEFT,
            W - RIGHT, a, a);
    fprintf(c->out, "<text class=\"ylab\" x=\"%.0f\" y=\"%s\">%s</text>\n", LEFT - 6,
            coord(py(c, v) + 4, b), l);
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

static void axis_x(struct html_chart *c)
{
    double span = c->x_hi - c->x_lo, step = c->x_is_time ? time_step(span) : nice_step(span);
    char a[REPORT_NUM_MAX], l[REPORT_NUM_MAX];

    if (span <= 0)
        return;
    for (double v = ceil(c->x_lo / step) * step; v <= c->x_hi + step * 1e-6; v += step) {
        if (c->x_is_time && v == 0)
            snprintf(l, sizeof(l), "0");
        else if (c->x_is_time)
            units_format_duration(report__round_u64(v * 1e6), l, sizeof(l));
        else
            report__fmt_g(v, 6, l);
        coord(px(c, v), a);
        fprintf(c->out,
                "<line class=\"tick\" x1=\"%s\" x2=\"%s\" y1=\"%.0f\" y2=\"%.0f\"/>"
                "<text class=\"xlab\" x=\"%s\" y=\"%.0f\">%s</text>\n",
                a, a, H - BOTTOM, H - BOTTOM + 4, a, H - 10, l);
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
    double label_y = TOP + 8 + 11 * (double)(c->n_vlines++ % 3); /* staggered: close ones overlap */

    coord(px(c, x), a);
    fprintf(c->out, "<g class=\"ev %s\" data-x=\"%s\"><title>", cls, report__fmt_g(x, 9, b));
    html__text(c->out, raw_title, TICK_TEXT_MAX, TICK_TEXT_MAX);
    fprintf(c->out,
            "</title><line x1=\"%s\" x2=\"%s\" y1=\"%.0f\" y2=\"%.0f\"/>"
            "<text x=\"%s\" y=\"%.0f\">%s</text></g>\n",
            a, a, TOP, H - BOTTOM, a, label_y, label);
}

void html__chart_hline(struct html_chart *c, double y, const char *cls, const char *label)
{
    char a[REPORT_NUM_MAX], b[REPORT_NUM_MAX], v[REPORT_NUM_MAX];

    coord(py(c, y), a);
    fprintf(c->out,
            "<g class=\"%s\" data-v=\"%s\"><line x1=\"%.0f\" x2=\"%.0f\" y1=\"%s\" y2=\"%s\"/>"
            "<text x=\"%.0f\" y=\"%s\">%s</text></g>\n",
            cls, report__fmt_g(y, 9, v), LEFT, W - RIGHT, a, a, W - RIGHT - 4,
            coord(py(c, y) - 4, b), label);
}

void html__chart_ring(struct html_chart *c, double x, double y, const char *cls, const char *label)
{
    char a[REPORT_NUM_MAX], b[REPORT_NUM_MAX], d[REPORT_NUM_MAX], e[REPORT_NUM_MAX];

    coord(px(c, x), a);
    coord(py(c, y), b);
    fprintf(c->out,
            "<g class=\"%s\" data-x=\"%s\"><circle r=\"9\" cx=\"%s\" cy=\"%s\"/>"
            "<text x=\"%s\" y=\"%s\">%s</text></g>\n",
            cls, report__fmt_g(x, 9, e), a, b, a,
            coord(py(c, y) + 22 > H - BOTTOM ? py(c, y) - 14 : py(c, y) + 22, d), label);
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
