/*
 * sanitize: the one display sanitizer. Every string that came from outside
 * (headers, status reasons, counter names, probe output, library error text,
 * anything read from a recording) passes through it before it reaches the
 * terminal or a report. Pure function, any thread.
 */
#ifndef BRINK_CORE_SANITIZE_H
#define BRINK_CORE_SANITIZE_H

#include <stddef.h>

/*
 * Writes a printable rendering of in[0..len) into out (cap bytes, cap >= 8),
 * always NUL-terminated, and returns its length (< cap); in may hold NULs.
 * The input is decoded as UTF-8 first, then each code point is kept or
 * replaced by a visible escape:
 *   backslash                          -> \\  (so escapes are unambiguous)
 *   ESC, \n, \r, \t                    -> \e \n \r \t
 *   other C0 (U+0000..U+001F), DEL     -> \xNN (lower-case hex, as below)
 *   C1 (U+0080..U+009F)                -> \u0085 style
 *   bidi controls (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069),
 *   invisible ones (U+00AD, U+200B..U+200D, U+2060..U+2064,
 *   U+206A..U+206F, U+FEFF, U+FFF9..U+FFFB, tags U+E0000..U+E007F),
 *   line/para separators (U+2028, U+2029) -> \u202e style (\U000e0041
 *   above U+FFFF)
 *   invalid, overlong or surrogate UTF-8 -> \xNN for each bad byte
 * When ascii_only is set, every other non-ASCII code point becomes \u00e9
 * style too (\U0001f600 above U+FFFF), for terminals whose locale is not
 * UTF-8; the output is then printable ASCII.
 * The output holds no byte below 0x20, no 0x7F, no C1 or bidi code point and
 * only valid UTF-8. When it does not fit, it is cut at a code point (never
 * inside an escape) and ends with "..." (ASCII) so the cut is visible.
 * Every escape decodes back to the bytes it stands for, so the rendering is
 * lossless when it is not cut. A smaller cap is safe: cap 0 writes nothing and
 * returns 0; below 4 a cut output is only as many dots as fit.
 */
size_t sanitize_display(const char *in, size_t len, char *out, size_t cap, int ascii_only);

/*
 * As sanitize_display with ascii_only 0, except that a backslash is kept as
 * it is: for a whole line about to be printed, parts of which may have been
 * rendered by sanitize_display already. Such parts pass unchanged (the
 * function is idempotent), and no unsafe byte passes at all. Not lossless.
 */
size_t sanitize_line(const char *in, size_t len, char *out, size_t cap);

#endif
