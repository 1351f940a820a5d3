#include "core/command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/msg.h"
#include "core/tick.h"
#include "core/units.h"

static const char *names[CMD__COUNT] = {
    [CMD_SET_CONCURRENCY] = "set_concurrency",
    [CMD_STEP] = "step",
    [CMD_DOUBLE] = "double",
    [CMD_HALVE] = "halve",
    [CMD_PAUSE] = "pause",
    [CMD_RESUME] = "resume",
    [CMD_DROP] = "drop",
    [CMD_MARK] = "mark",
    [CMD_STOP] = "stop",
    [CMD_RAMP] = "ramp",
    [CMD_RAMP_NEXT] = "ramp_next",
    [CMD_SET_RATE] = "set_rate",
    [CMD_SET_MODEL] = "set_model",
    [CMD_REPLAY_PAUSE] = "replay_pause",
    [CMD_REPLAY_SEEK] = "replay_seek",
    [CMD_REPLAY_SPEED] = "replay_speed",
    [CMD_REPLAY_EVENT] = "replay_event",
};

const char *cmd_kind_name(enum cmd_kind k)
{
    return (unsigned)k < CMD__COUNT ? names[k] : "?";
}

/* Words of the command language; arg says what follows the word. */
enum cmd_arg { ARG_NONE, ARG_COUNT, ARG_OPTIONAL_STEPS, ARG_TEXT, ARG_RATE, ARG_MODEL };

static const struct {
    const char *word;
    const char *alias;
    enum cmd_kind kind;
    enum cmd_arg arg;
} words[] = {
    {"concurrency", "=", CMD_SET_CONCURRENCY, ARG_COUNT},
    {"step", NULL, CMD_STEP, ARG_OPTIONAL_STEPS},
    {"double", "]", CMD_DOUBLE, ARG_NONE},
    {"halve", "[", CMD_HALVE, ARG_NONE},
    {"pause", "p", CMD_PAUSE, ARG_NONE},
    {"resume", "r", CMD_RESUME, ARG_NONE},
    {"drop", "d", CMD_DROP, ARG_COUNT},
    {"mark", "m", CMD_MARK, ARG_TEXT},
    {"stop", "q", CMD_STOP, ARG_NONE},
    {"ramp", NULL, CMD_RAMP, ARG_NONE},
    {"next", NULL, CMD_RAMP_NEXT, ARG_NONE},
    {"rate", NULL, CMD_SET_RATE, ARG_RATE},
    {"model", "o", CMD_SET_MODEL, ARG_MODEL},
};

#define N_WORDS (sizeof(words) / sizeof(words[0]))
#define COMMAND_WORDS                                                                              \
    "concurrency N, step [N], +, -, double, halve, pause, resume, drop N, mark TEXT, rate N, "     \
    "model [open|closed], ramp, next or stop"

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* A whole number, optionally signed, filling the rest of s (blanks aside). */
static int parse_int(const char *s, int is_signed, int64_t *out)
{
    char *end;
    long long v;

    s = skip_blanks(s);
    if (*s == '\0' || (!is_signed && (*s == '-' || *s == '+')))
        return -EINVAL;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || end == s || *skip_blanks(end) != '\0')
        return -EINVAL;
    *out = v;
    return 0;
}

/* A positive rate, "250", "2.5" or "250/s", filling the rest of s. */
static int parse_rate(const char *s, double *out)
{
    double v;

    if (units_parse_rate(s, &v, NULL, 0) != 0 || !(v > 0) || v > COMMAND_RATE_MAX)
        return -EINVAL;
    *out = v;
    return 0;
}

/* True when s is word, blanks aside. */
static int is_word(const char *s, const char *word)
{
    size_t n = strlen(word);

    return strncmp(s, word, n) == 0 && *skip_blanks(s + n) == '\0';
}

/* "open" (or "rate"), "closed", or nothing for the other model. */
static int parse_model(const char *s, int64_t *out)
{
    s = skip_blanks(s);
    if (*s == '\0')
        *out = CMD_MODEL_SWITCH;
    else if (is_word(s, "open") || is_word(s, "rate"))
        *out = LOAD_OPEN;
    else if (is_word(s, "closed"))
        *out = LOAD_CLOSED;
    else
        return -EINVAL;
    return 0;
}

static int bad(const char *line, char *why, size_t why_len, const char *expected)
{
    char shown[64];

    msg_show(line, shown, sizeof(shown));
    snprintf(why, why_len, "expected %s, got \"%s\"", expected, shown);
    return -EINVAL;
}

static int parse_arg(const char *line, const char *rest, enum cmd_arg arg, struct command *out,
                     char *why, size_t why_len)
{
    switch (arg) {
    case ARG_NONE:
        if (*skip_blanks(rest) != '\0')
            return bad(line, why, why_len, "nothing after the command");
        return 1;
    case ARG_COUNT:
        if (parse_int(rest, 0, &out->n) != 0)
            return bad(line, why, why_len, "a whole number after the command, such as drop 5");
        return 1;
    case ARG_OPTIONAL_STEPS:
        out->n = 1;
        if (*skip_blanks(rest) != '\0' && parse_int(rest, 1, &out->n) != 0)
            return bad(line, why, why_len, "a whole number of steps, such as step -2");
        return 1;
    case ARG_RATE:
        if (parse_rate(rest, &out->rate_per_s) != 0)
            return bad(line, why, why_len, "a positive rate after the command, such as rate 250/s");
        return 1;
    case ARG_MODEL:
        if (parse_model(rest, &out->n) != 0)
            return bad(line, why, why_len, "open or closed after model");
        return 1;
    case ARG_TEXT:
        rest = skip_blanks(rest);
        if (*rest == '\0')
            return bad(line, why, why_len, "a note after mark");
        tick_copy_text(out->note, sizeof(out->note), rest);
        return 1;
    }
    return bad(line, why, why_len, COMMAND_WORDS);
}

int command_parse(const char *line, struct command *out, char *why, size_t why_len)
{
    const char *s = skip_blanks(line);
    size_t n;

    memset(out, 0, sizeof(*out));
    if (*s == '\0' || *s == '#')
        return 0;
    /* The first word; a symbol ("=", "+", "]") is a word of its own, so
     * "=40" reads like "= 40". */
    n = strchr("=+-[]", *s) ? 1 : strcspn(s, " \t");
    if (n == 1 && (*s == '+' || *s == '-')) {
        out->kind = CMD_STEP;
        out->n = *s == '+' ? 1 : -1;
        return parse_arg(line, s + 1, ARG_NONE, out, why, why_len);
    }
    for (size_t i = 0; i < N_WORDS; i++) {
        const char *alias = words[i].alias;

        if ((strlen(words[i].word) == n && strncmp(s, words[i].word, n) == 0) ||
            (alias && strlen(alias) == n && strncmp(s, alias, n) == 0)) {
            out->kind = words[i].kind;
            return parse_arg(line, s + n, words[i].arg, out, why, why_len);
        }
    }
    return bad(line, why, why_len, COMMAND_WORDS);
}
