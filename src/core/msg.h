/*
 * msg: the one way text reaches a person. Builds the "why" texts of
 * messages, gives errno's text on any thread, and cleans every line before
 * stdout, stderr or the screen see it: secrets redacted (redact.h), then
 * control, C1, bidi and invalid bytes escaped (sanitize.h). Messages have one
 * form: "brink: where: what[: why]", one line. No global state; any thread.
 */
#ifndef BRINK_CORE_MSG_H
#define BRINK_CORE_MSG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#define MSG_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/* Room for the text of one errno value. */
#define MSG_ERRNO_MAX 64

/*
 * Writes fmt into buf (cap bytes, always NUL-terminated when cap > 0, cut
 * when it does not fit): the one builder of the "why" texts that fallible
 * functions hand back with their error code. cap 0 (buf may then be NULL)
 * writes nothing. The text is not cleaned: quote user text through msg_show,
 * and print through msg_print.
 */
void msg_set(char *buf, size_t cap, const char *fmt, ...) MSG_PRINTF(3, 4);
void msg_vset(char *buf, size_t cap, const char *fmt, va_list ap) MSG_PRINTF(3, 0);

/* Room for one piece of user text quoted in a message (an argument, a
 * value, a path), so that a long URL shows whole: on a terminal the line
 * wraps, in a pipe or a log nothing of it is lost. */
#define MSG_SHOWN_MAX 512

/* The text of an errno value, either sign (EIO or -EIO). */
struct msg_errno_text {
    char text[MSG_ERRNO_MAX];
};

/*
 * strerror for any thread (plain strerror may share one buffer between
 * threads): "Input/output error"; "error N" for a value the C library does
 * not know. The text lives in the returned value, which lasts until the end
 * of the full expression that calls it, so it may stand as a printf
 * argument: `fprintf(f, "...: %s\n", msg_errno(e).text)`.
 */
struct msg_errno_text msg_errno(int e);

/*
 * A piece of user text (a value, a path, an argument) for a message: s with
 * its secrets redacted (redact_text), then rendered by sanitize_display as
 * printable ASCII into out (cap bytes, cap >= 8), cut with "..." when it does
 * not fit. Redacting comes first, so a cut never shows part of a secret.
 * Text beyond MSG_LINE_MAX bytes is left out. Returns out.
 */
const char *msg_show(const char *s, char *out, size_t cap);
/* The same for s[0..n), which stops at a NUL. */
const char *msg_show_n(const char *s, size_t n, char *out, size_t cap);

/*
 * Cleans one line of output: in with its secrets redacted (redact_text) and
 * every unsafe code point escaped (sanitize_line; a backslash is kept, so
 * pieces shown with msg_show pass unchanged). Writes into out (cap bytes)
 * and returns the length written. Lines longer than the cap are cut with
 * "...".
 */
size_t msg_clean(const char *in, char *out, size_t cap);

/*
 * Formats fmt, cleans it with msg_clean and writes it to out followed by a
 * newline: the one way a message reaches stdout or stderr. Lines are cut at
 * MSG_LINE_MAX bytes.
 */
#define MSG_LINE_MAX 4096
void msg_print(FILE *out, const char *fmt, ...) MSG_PRINTF(2, 3);
void msg_vprint(FILE *out, const char *fmt, va_list ap) MSG_PRINTF(2, 0);

/*
 * Writes text[0..len), lines ended by '\n', to out with every line cleaned
 * as msg_clean cleans it, however long: for output of many lines such as
 * the effective configuration. Returns 0, or -EIO when writing failed.
 */
int msg_print_text(FILE *out, const char *text, size_t len);

#endif
