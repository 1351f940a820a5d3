#include "core/sanitize.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The longest piece one input unit can become: "\U0010ffff". */
#define PIECE_MAX 10
#define CUT_MARK "..."
#define CUT_MARK_LEN 3

/*
 * Lead bytes of well-formed UTF-8 (Unicode 15, table 3-7): how many bytes the
 * sequence has and the range its second byte must fall in. The narrowed second
 * byte ranges are what reject overlong forms (E0, F0), surrogates (ED) and code
 * points above U+10FFFF (F4). Lead bytes not listed (80..C1, F5..FF) are never
 * valid.
 */
static const struct {
    unsigned char lead_lo, lead_hi;
    unsigned char len;
    unsigned char second_lo, second_hi;
} utf8_leads[] = {
    {0xC2, 0xDF, 2, 0x80, 0xBF}, /* U+0080..U+07FF; C0, C1 would be overlong */
    {0xE0, 0xE0, 3, 0xA0, 0xBF}, /* U+0800..U+0FFF, not overlong */
    {0xE1, 0xEC, 3, 0x80, 0xBF}, /* U+1000..U+CFFF */
    {0xED, 0xED, 3, 0x80, 0x9F}, /* U+D000..U+D7FF, not the surrogates */
    {0xEE, 0xEF, 3, 0x80, 0xBF}, /* U+E000..U+FFFF */
    {0xF0, 0xF0, 4, 0x90, 0xBF}, /* U+10000..U+3FFFF, not overlong */
    {0xF1, 0xF3, 4, 0x80, 0xBF}, /* U+40000..U+FFFFF */
    {0xF4, 0xF4, 4, 0x80, 0x8F}, /* U+100000..U+10FFFF, no further */
};

/*
 * Code points that are valid UTF-8 but still unsafe to show: C1 controls
 * (8-bit CSI, OSC and friends on some terminals), bidi controls that reorder
 * what the reader sees, zero-width characters that hide text, and line and
 * paragraph separators that break the one-line promise.
 */
static const struct {
    uint32_t lo, hi;
} hidden_ranges[] = {
    {0x0080, 0x009F},   /* C1 controls */
    {0x00AD, 0x00AD},   /* soft hyphen, invisible unless a line breaks there */
    {0x061C, 0x061C},   /* arabic letter mark */
    {0x200B, 0x200D},   /* zero width space, non-joiner, joiner */
    {0x200E, 0x200F},   /* left-to-right and right-to-left marks */
    {0x2028, 0x2029},   /* line and paragraph separators */
    {0x202A, 0x202E},   /* bidi embeddings and overrides */
    {0x2060, 0x2064},   /* word joiner, invisible operators */
    {0x2066, 0x2069},   /* bidi isolates */
    {0x206A, 0x206F},   /* deprecated invisible format controls */
    {0xFEFF, 0xFEFF},   /* zero width no-break space (BOM) */
    {0xFFF9, 0xFFFB},   /* interlinear annotation controls */
    {0xE0000, 0xE007F}, /* tag characters, used to hide text in plain sight */
};

/* ASCII characters with a short escape; the other controls get \xNN. */
static const char *const named_escapes[128] = {
    ['\t'] = "\\t", ['\n'] = "\\n", ['\r'] = "\\r", [0x1B] = "\\e", ['\\'] = "\\\\",
};

/* Length of the well-formed UTF-8 sequence at p (at most n bytes) and its code
 * point, or 0 when p[0] does not start one. */
static size_t utf8_decode(const unsigned char *p, size_t n, uint32_t *cp)
{
    size_t len = 0;
    unsigned char second_lo = 0, second_hi = 0;

    if (p[0] < 0x80) {
        *cp = p[0];
        return 1;
    }
    for (size_t i = 0; i < sizeof(utf8_leads) / sizeof(utf8_leads[0]); i++) {
        if (p[0] >= utf8_leads[i].lead_lo && p[0] <= utf8_leads[i].lead_hi) {
            len = utf8_leads[i].len;
            second_lo = utf8_leads[i].second_lo;
            second_hi = utf8_leads[i].second_hi;
            break;
        }
    }
    if (len == 0 || n < len || p[1] < second_lo || p[1] > second_hi)
        return 0;
    /* The lead byte keeps 7 - len payload bits. */
    *cp = p[0] & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        *cp = (*cp << 6) | (p[i] & 0x3Fu);
    }
    return len;
}

static int is_hidden(uint32_t cp)
{
    for (size_t i = 0; i < sizeof(hidden_ranges) / sizeof(hidden_ranges[0]); i++) {
        if (cp >= hidden_ranges[i].lo && cp <= hidden_ranges[i].hi)
            return 1;
    }
    return 0;
}

static size_t escape_code_point(uint32_t cp, char *piece)
{
    if (cp > 0xFFFF)
        return (size_t)snprintf(piece, PIECE_MAX + 1, "\\U%08lx", (unsigned long)cp);
    return (size_t)snprintf(piece, PIECE_MAX + 1, "\\u%04lx", (unsigned long)cp);
}

/*
 * Renders the unit at p (one code point, or one bad byte) into piece, which
 * has room for PIECE_MAX + 1 bytes. Returns the piece length and sets
 * *consumed to the input bytes it stands for.
 */
static size_t render_unit(const unsigned char *p, size_t n, int ascii_only, int keeps_backslash,
                          char *piece, size_t *consumed)
{
    uint32_t cp;
    size_t len = utf8_decode(p, n, &cp);

    if (len == 0) {
        /* Resume at the next byte: a continuation byte never starts a valid
         * sequence, so this escapes every byte of a bad run and skips no good
         * character that follows it. */
        *consumed = 1;
        return (size_t)snprintf(piece, PIECE_MAX + 1, "\\x%02x", p[0]);
    }
    *consumed = len;
    if (cp < 0x80) {
        if (named_escapes[cp] != NULL && !(cp == '\\' && keeps_backslash)) {
            strcpy(piece, named_escapes[cp]);
            return strlen(piece);
        }
        if (cp < 0x20 || cp == 0x7F)
            return (size_t)snprintf(piece, PIECE_MAX + 1, "\\x%02x", (unsigned)cp);
        piece[0] = (char)cp;
        return 1;
    }
    if (ascii_only || is_hidden(cp))
        return escape_code_point(cp, piece);
    memcpy(piece, p, len);
    return len;
}

static size_t sanitize(const char *in, size_t len, char *out, size_t cap, int ascii_only,
                       int keeps_backslash)
{
    const unsigned char *p = (const unsigned char *)in;
    size_t budget, used = 0, mark = 0, i = 0;

    if (cap == 0)
        return 0;
    if (in == NULL)
        len = 0;
    budget = cap - 1;
    while (i < len) {
        char piece[PIECE_MAX + 1];
        size_t consumed;
        size_t n = render_unit(p + i, len - i, ascii_only, keeps_backslash, piece, &consumed);

        if (used + n > budget) {
            /* Back up to the last whole piece after which the cut mark fits;
             * below cap 4 the mark itself is all that is left, shortened. */
            size_t dots = budget - mark < CUT_MARK_LEN ? budget - mark : CUT_MARK_LEN;

            memcpy(out + mark, CUT_MARK, dots);
            used = mark + dots;
            break;
        }
        memcpy(out + used, piece, n);
        used += n;
        i += consumed;
        if (used + CUT_MARK_LEN <= budget)
            mark = used;
    }
    out[used] = '\0';
    return used;
}

size_t sanitize_display(const char *in, size_t len, char *out, size_t cap, int ascii_only)
{
    return sanitize(in, len, out, cap, ascii_only, 0);
}

size_t sanitize_line(const char *in, size_t len, char *out, size_t cap)
{
    return sanitize(in, len, out, cap, 0, 1);
}
