/*
 * Fuzz target for sanitize_display. Every input is rendered at several caps in
 * both modes, and each output is checked by code that shares nothing with
 * sanitize.c: its own UTF-8 decoder, its own list of forbidden code points and
 * an unescaper that must give the input back. Any violation aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sanitize.h"

/* Longer inputs are cut: the rules are local, so length adds nothing but time. */
#define INPUT_MAX 4096
/* One input byte becomes at most 4 output bytes ("\xNN"; "\U0010ffff" for 4). */
#define EXPANSION_MAX 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const size_t caps[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 41, 64, 256};

static void check(int ok, const char *what, size_t cap, int ascii_only)
{
    if (!ok) {
        fprintf(stderr, "fuzz_sanitize: %s (cap %zu, ascii_only %d)\n", what, cap, ascii_only);
        abort();
    }
}

/* Strict UTF-8 by arithmetic: length from the lead byte's high bits, then the
 * code point must need that length, avoid surrogates and stay <= U+10FFFF.
 * Returns the length, or 0 when s[0..n) does not start a valid character. */
static size_t decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    static const uint32_t min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
    size_t len;

    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if ((s[0] & 0xE0) == 0xC0)
        len = 2;
    else if ((s[0] & 0xF0) == 0xE0)
        len = 3;
    else if ((s[0] & 0xF8) == 0xF0)
        len = 4;
    else
        return 0;
    if (n < len)
        return 0;
    *cp = s[0] & (0xFFu >> (len + 1));
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        *cp = (*cp << 6) | (s[i] & 0x3F);
    }
    if (*cp < min_for_len[len] || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF))
        return 0;
    return len;
}

static int is_forbidden(uint32_t cp)
{
    static const uint32_t forbidden[] = {
        0x00AD, 0x061C, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202B,
        0x202C, 0x202D, 0x202E, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0x2066, 0x2067, 0x2068,
        0x2069, 0x206A, 0x206B, 0x206C, 0x206D, 0x206E, 0x206F, 0xFEFF, 0xFFF9, 0xFFFA, 0xFFFB};

    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F))
        return 1;
    if (cp >= 0xE0000 && cp <= 0xE007F) /* tag characters */
        return 1;
    for (size_t i = 0; i < sizeof(forbidden) / sizeof(forbidden[0]); i++) {
        if (cp == forbidden[i])
            return 1;
    }
    return 0;
}

/* Every character of out[0..n) is valid, allowed, and ASCII when asked. */
static void check_characters(const char *out, size_t n, size_t cap, int ascii_only)
{
    const unsigned char *s = (const unsigned char *)out;

    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = decode(s + i, n - i, &cp);

        check(len != 0, "output is not valid UTF-8", cap, ascii_only);
        check(!is_forbidden(cp), "output holds a control, C1, bidi or zero-width code point", cap,
              ascii_only);
        check(!ascii_only || cp < 0x80, "ascii_only output is not ASCII", cap, ascii_only);
        i += len;
    }
}

static int hex_digits(const char *s, size_t n, uint32_t *v)
{
    *v = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

        if (d < 0)
            return -1;
        *v = *v * 16 + (uint32_t)d;
    }
    return 0;
}

static size_t encode(uint32_t cp, unsigned char *o)
{
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/*
 * Length of the piece (one escape or one character) at out[i], and the bytes
 * it stands for in raw (at most 4); 0 when the escape is malformed.
 */
static size_t unescape_piece(const char *out, size_t n, size_t i, unsigned char *raw,
                             size_t *raw_len)
{
    static const char simple_from[] = "\\enrt";
    static const char simple_to[] = "\\\x1b\n\r\t";
    uint32_t v;
    const char *p;

    if (out[i] != '\\') {
        size_t len = decode((const unsigned char *)out + i, n - i, &v);

        memcpy(raw, out + i, len);
        *raw_len = len;
        return len;
    }
    if (i + 1 >= n)
        return 0;
    p = strchr(simple_from, out[i + 1]);
    if (p != NULL && *p != '\0') {
        raw[0] = (unsigned char)simple_to[p - simple_from];
        *raw_len = 1;
        return 2;
    }
    if (out[i + 1] == 'x' && i + 4 <= n && hex_digits(out + i + 2, 2, &v) == 0) {
        raw[0] = (unsigned char)v;
        *raw_len = 1;
        return 4;
    }
    if (out[i + 1] == 'u' && i + 6 <= n && hex_digits(out + i + 2, 4, &v) == 0) {
        *raw_len = encode(v, raw);
        return 6;
    }
    if (out[i + 1] == 'U' && i + 10 <= n && hex_digits(out + i + 2, 8, &v) == 0 && v <= 0x10FFFF) {
        *raw_len = encode(v, raw);
        return 10;
    }
    return 0;
}

/*
 * The uncut output must decode back to exactly the input; a cut output must be
 * a whole-piece prefix of the uncut one plus "...", cut no earlier than it had
 * to be.
 */
static void check_against_full(const char *out, size_t n, const char *full, size_t full_n,
                               size_t cap, int ascii_only)
{
    size_t budget = cap - 1, keep, i = 0;

    if (full_n <= budget) {
        check(n == full_n && memcmp(out, full, n) == 0, "output that fits differs from uncut", cap,
              ascii_only);
        return;
    }
    if (budget < 3) {
        check(n == budget && memcmp(out, "...", n) == 0, "tiny cap gives more than dots", cap,
              ascii_only);
        return;
    }
    check(n >= 3 && memcmp(out + n - 3, "...", 3) == 0, "cut output does not end in ...", cap,
          ascii_only);
    keep = n - 3;
    check(memcmp(out, full, keep) == 0, "cut output is not a prefix of the uncut one", cap,
          ascii_only);
    while (i < keep) {
        unsigned char raw[4];
        size_t raw_len, step = unescape_piece(full, full_n, i, raw, &raw_len);

        check(step != 0, "malformed escape", cap, ascii_only);
        i += step;
    }
    check(i == keep, "cut inside an escape or a character", cap, ascii_only);
    if (keep < full_n) {
        unsigned char raw[4];
        size_t raw_len, next = unescape_piece(full, full_n, keep, raw, &raw_len);

        check(keep + next + 3 > budget, "cut earlier than needed", cap, ascii_only);
    }
}

/* An escape is used only where sanitize.h asks for one, in its one form. */
static void check_escape_is_needed(const char *esc, const unsigned char *raw, size_t raw_len,
                                   const char *in, size_t at, size_t len, int ascii_only)
{
    uint32_t cp = 0;
    size_t n;

    if (esc[0] != '\\' || strchr("\\enrt", esc[1]) != NULL)
        return;
    if (esc[1] == 'x') {
        /* A byte: a C0 control or DEL without a short name, or a byte that
         * does not start a valid character where it stands in the input. */
        if (raw[0] < 0x80) {
            int named = raw[0] != 0 && strchr("\x1b\n\r\t", raw[0]) != NULL;

            check((raw[0] < 0x20 || raw[0] == 0x7F) && !named,
                  "needless or non-canonical \\x escape", 0, ascii_only);
        } else {
            check(decode((const unsigned char *)in + at, len - at, &cp) == 0,
                  "\\x escape of a byte that starts a valid character", 0, ascii_only);
        }
        return;
    }
    n = decode(raw, raw_len, &cp);
    check(n == raw_len && cp >= 0x80, "\\u escape of an invalid or ASCII code point", 0,
          ascii_only);
    check((esc[1] == 'U') == (cp > 0xFFFF), "\\u and \\U used for the wrong range", 0, ascii_only);
    check(ascii_only || is_forbidden(cp), "needless \\u escape", 0, ascii_only);
}

/* The uncut output decodes back to exactly the input, piece by piece. */
static void check_round_trip(const char *in, size_t len, const char *full, size_t full_n,
                             int ascii_only)
{
    size_t i = 0, at = 0;

    while (i < full_n) {
        unsigned char raw[4];
        size_t raw_len, step = unescape_piece(full, full_n, i, raw, &raw_len);

        check(step != 0, "malformed escape in uncut output", 0, ascii_only);
        check(at + raw_len <= len && memcmp(in + at, raw, raw_len) == 0,
              "uncut output does not decode back to the input", 0, ascii_only);
        check_escape_is_needed(full + i, raw, raw_len, in, at, len, ascii_only);
        at += raw_len;
        i += step;
    }
    check(at == len, "uncut output lost part of the input", 0, ascii_only);
}

static void run_mode(const char *in, size_t len, int ascii_only)
{
    size_t full_cap = len * EXPANSION_MAX + 1;
    char *full = malloc(full_cap);
    size_t full_n;

    if (full == NULL)
        abort();
    full_n = sanitize_display(in, len, full, full_cap, ascii_only);
    check(full_n < full_cap && full[full_n] == '\0' && strlen(full) == full_n,
          "uncut output length or terminator wrong", full_cap, ascii_only);
    check_characters(full, full_n, full_cap, ascii_only);
    check_round_trip(in, len, full, full_n, ascii_only);
    for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
        /* Exactly cap bytes, so AddressSanitizer catches a write past them. */
        char *out = malloc(caps[c]);
        size_t n;

        if (out == NULL)
            abort();
        n = sanitize_display(in, len, out, caps[c], ascii_only);
        check(n < caps[c] && out[n] == '\0' && strlen(out) == n, "length or terminator wrong",
              caps[c], ascii_only);
        check_characters(out, n, caps[c], ascii_only);
        check_against_full(out, n, full, full_n, caps[c], ascii_only);
        free(out);
    }
    free(full);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t len = size < INPUT_MAX ? size : INPUT_MAX;
    /* A copy of exactly len bytes, so a read past the input is caught too. */
    char *in = malloc(len ? len : 1);

    if (in == NULL)
        abort();
    memcpy(in, data, len);
    run_mode(in, len, 0);
    run_mode(in, len, 1);
    free(in);
    return 0;
}
