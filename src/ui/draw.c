/*
 * Clipped drawing on stdscr. Widths are display columns (wcwidth), not
 * bytes, so UTF-8 glyphs and outside strings in any script cut cleanly.
 * Nothing here ever draws outside the width it is given or the screen.
 */
#include "ui/internal.h"

#include <curses.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "core/sanitize.h"

/* Bytes of s that fit in w columns; *cols gets their width. */
static size_t fit(const char *s, int w, int *cols)
{
    mbstate_t st;
    size_t off = 0, len = strlen(s);
    int used = 0;

    memset(&st, 0, sizeof(st));
    while (off < len) {
        wchar_t wc;
        size_t n = mbrtowc(&wc, s + off, len - off, &st);
        int cw;

        if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
            /* Not valid here (our strings are sanitized): one column. */
            memset(&st, 0, sizeof(st));
            n = 1;
            cw = 1;
        } else {
            cw = wcwidth(wc);
            if (cw < 0)
                cw = 1;
        }
        if (used + cw > w)
            break;
        used += cw;
        off += n;
    }
    *cols = used;
    return off;
}

static int clip_width(int y, int x, int w)
{
    if (y < 0 || y >= LINES || x < 0 || x >= COLS || w <= 0)
        return 0;
    return w < COLS - x ? w : COLS - x;
}

int ui__draw_text(const struct theme *th, int y, int x, int w, int attr, const char *s)
{
    int cols, ell = 0;
    size_t n;

    w = clip_width(y, x, w);
    if (!w)
        return 0;
    n = fit(s, w, &cols);
    if (s[n] != '\0') {
        /* Cut: make room for the ellipsis so the cut is visible. */
        n = fit(s, w - 1, &cols);
        ell = 1;
    }
    attrset((attr_t)attr);
    mvaddnstr(y, x, s, (int)n);
    if (ell)
        mvaddstr(y, x + cols, th->glyph[GL_ELLIPSIS]);
    attrset(A_NORMAL);
    return cols + ell;
}

int ui__text_width(const char *s)
{
    int cols;

    fit(s, 1 << 20, &cols);
    return cols;
}

int ui__draw_words(const struct theme *th, int y, int x, int w, int attr, const char *s)
{
    char buf[DRAW_LINE_MAX];
    int cols;
    size_t n, cut;

    w = clip_width(y, x, w);
    if (!w)
        return 0;
    n = fit(s, w, &cols);
    if (s[n] == '\0')
        return ui__draw_text(th, y, x, w, attr, s);
    /* Back to the end of the last whole word that leaves room for the
     * ellipsis; a single word longer than the room is cut as it must. */
    n = fit(s, w - 1, &cols);
    cut = n;
    if (s[n] != ' ') {
        while (cut > 0 && s[cut - 1] != ' ')
            cut--;
    }
    while (cut > 0 && s[cut - 1] == ' ')
        cut--;
    if (cut == 0 || cut >= sizeof(buf))
        return ui__draw_text(th, y, x, w, attr, s);
    memcpy(buf, s, cut);
    buf[cut] = '\0';
    cols = ui__draw_text(th, y, x, w, attr, buf);
    ui__draw_text(th, y, x + cols, 1, attr, th->glyph[GL_ELLIPSIS]);
    return cols + 1;
}

int ui__draw_first_fit(const struct theme *th, int y, int x, int w, int attr,
                       const char *const *choices, int n)
{
    for (int i = 0; i < n - 1; i++) {
        if (ui__text_width(choices[i]) <= w)
            return ui__draw_text(th, y, x, w, attr, choices[i]);
    }
    return n > 0 ? ui__draw_words(th, y, x, w, attr, choices[n - 1]) : 0;
}

int ui__draw_fmt(const struct theme *th, int y, int x, int w, int attr, const char *fmt, ...)
{
    char buf[DRAW_LINE_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return ui__draw_text(th, y, x, w, attr, buf);
}

int ui__draw_outside(const struct theme *th, int y, int x, int w, int attr, const char *s)
{
    char buf[DRAW_LINE_MAX];

    sanitize_display(s, strlen(s), buf, sizeof(buf), !th->is_utf8);
    return ui__draw_words(th, y, x, w, attr, buf);
}

void ui__draw_repeat(int y, int x, int n, int attr, const char *glyph)
{
    n = clip_width(y, x, n);
    attrset((attr_t)attr);
    for (int i = 0; i < n; i++)
        mvaddstr(y, x + i, glyph);
    attrset(A_NORMAL);
}

void ui__log_scale(const uint64_t *us, int n, double *lo, double *hi)
{
    double min = 0, max = 0;

    for (int i = 0; i < n; i++) {
        if (us[i] && (!min || (double)us[i] < min))
            min = (double)us[i];
        if ((double)us[i] > max)
            max = (double)us[i];
    }
    if (!min)
        min = max = 100;
    *lo = pow(10, floor(log10(min)));
    *hi = pow(10, ceil(log10(max * 1.0001)));
    if (*hi / *lo < 100)
        *hi = *lo * 100;
}

/* The cell of us on a bar of w cells on the log scale lo..hi, 0 to w. */
static int log_position(uint64_t us, double lo, double hi, int w)
{
    double f;

    if (!us)
        return 0;
    f = (log10((double)us) - log10(lo)) / (log10(hi) - log10(lo));
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    return (int)(f * w + 0.5);
}

void ui__draw_log_bar(const struct theme *th, int y, int x, int w, double lo, double hi,
                      uint64_t fill_us, const uint64_t *run_us)
{
    int fill = log_position(fill_us, lo, hi, w);
    int mark;

    ui__draw_repeat(y, x, fill, th->attr[ROLE_CHART], th->glyph[GL_BAR_FULL]);
    ui__draw_repeat(y, x + fill, w - fill, th->attr[ROLE_DIM], th->glyph[GL_BAR_EMPTY]);
    if (run_us) {
        mark = log_position(*run_us, lo, hi, w);
        ui__draw_text(th, y, x + (mark >= w ? w - 1 : mark), 1, th->attr[ROLE_RUN],
                      th->glyph[GL_RUN_TICK]);
    }
}

void ui__draw_chart(const struct theme *th, struct rect c, const double *values, const int *roles,
                    unsigned n, double top)
{
    for (unsigned i = 0; i < n && (int)i < c.w; i++) {
        int x = c.x + c.w - 1 - (int)i;
        long eighths = top > 0 ? (long)(values[i] / top * c.h * 8 + 0.5) : 0;

        for (int row = 0; row < c.h; row++) {
            long fill = eighths - (long)row * 8;
            int level = fill >= 8 ? 8 : fill <= 0 ? 0 : (int)fill;

            if (level)
                ui__draw_text(th, c.y + c.h - 1 - row, x, 1, th->attr[roles[i]], th->levels[level]);
        }
    }
}

void ui__draw_clear(struct rect r)
{
    for (int i = 0; i < r.h; i++)
        ui__draw_repeat(r.y + i, r.x, r.w, A_NORMAL, " ");
}

void ui__draw_title(const struct theme *th, struct rect r, const char *title, const char *extra)
{
    int used, right = 0;

    if (r.h <= 0 || r.w <= 0)
        return;
    used = ui__draw_text(th, r.y, r.x, r.w, th->attr[ROLE_TITLE], title);
    if (used < r.w)
        ui__draw_repeat(r.y, r.x + used, 1, A_NORMAL, " ");
    used++;
    if (extra && *extra) {
        /* Whole or not at all: a caller with less to say at narrow widths
         * passes a shorter extra. */
        int cols = ui__text_width(extra);

        if (cols <= r.w - used - 2) {
            right = cols + 1;
            ui__draw_text(th, r.y, r.x + r.w - cols, cols, th->attr[ROLE_DIM], extra);
        }
    }
    ui__draw_repeat(r.y, r.x + used, r.w - used - right, th->attr[ROLE_DIM], th->glyph[GL_HLINE]);
}

char *ui__fmt_rate(double per_s, char *buf, size_t len)
{
    if (per_s < 0)
        per_s = 0;
    if (per_s < 10)
        snprintf(buf, len, "%.1f", per_s);
    else if (per_s < 10000)
        snprintf(buf, len, "%.0f", per_s);
    else if (per_s < 1e6)
        snprintf(buf, len, "%.1fk", per_s / 1e3);
    else
        snprintf(buf, len, "%.2fM", per_s / 1e6);
    return buf;
}

char *ui__fmt_value(double v, char *buf, size_t len)
{
    double a = v < 0 ? -v : v;

    if (v != v)
        snprintf(buf, len, "NaN");
    else if (a >= 1e15)
        snprintf(buf, len, "%.3g", v);
    else if (v == (double)(long long)v)
        snprintf(buf, len, "%lld", (long long)v);
    else if (a >= 100)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.3g", v);
    return buf;
}

char *ui__fmt_clock(uint64_t ms, char *buf, size_t len)
{
    uint64_t s = ms / 1000;

    snprintf(buf, len, "%02llu:%02llu:%02llu", (unsigned long long)(s / 3600),
             (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
    return buf;
}
