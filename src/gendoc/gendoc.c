/*
 * brink-gendoc: writes brink's man pages and shell completions at build
 * time from the sources brink itself uses, so that they cannot drift:
 *   brink-gendoc man1              brink(1), from the option tables (src/cli/tables.c)
 *   brink-gendoc man5 CONFIG.md    brink-config(5), docs/config.md turned into roff;
 *                                  fails when a key of the config table has no row there
 *   brink-gendoc bash | zsh        the completions, from the option tables
 * Output on stdout. A build tool: not installed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts.h"
#include "cli/tables.h"
#include "config/config.h"

#define LINE_MAX_BYTES 8192
#define MAX_KEYS 256

/* --- roff ------------------------------------------------------------- */

/* Writes text escaped for roff: backslashes, hyphens as \-, and markdown's
 * inline marks (`code` and **bold** in bold, [text](link) as text). */
static void roff_inline(FILE *out, const char *s, size_t n)
{
    int is_bold = 0, is_code = 0;

    for (size_t i = 0; i < n; i++) {
        char c = s[i];

        if (c == '`') {
            is_code = !is_code;
            fputs(is_code || is_bold ? "\\fB" : "\\fR", out);
        } else if (!is_code && c == '*' && i + 1 < n && s[i + 1] == '*') {
            is_bold = !is_bold;
            fputs(is_bold ? "\\fB" : "\\fR", out);
            i++;
        } else if (!is_code && c == '[' && memchr(s + i, ']', n - i)) {
            const char *close = memchr(s + i, ']', n - i);
            size_t j = (size_t)(close - s);

            if (j + 1 < n && s[j + 1] == '(' && memchr(s + j, ')', n - j)) {
                roff_inline(out, s + i + 1, j - i - 1);
                i = (size_t)((const char *)memchr(s + j, ')', n - j) - s);
            } else {
                fputc('[', out);
            }
        } else if (c == '\\') {
            fputs("\\e", out);
        } else if (c == '-') {
            fputs("\\-", out);
        } else {
            fputc(c, out);
        }
    }
    if (is_code || is_bold)
        fputs("\\fR", out);
}

/* A line of text: roff_inline, guarded when it starts like a request. */
static void roff_line(FILE *out, const char *s)
{
    if (s[0] == '.' || s[0] == '\'')
        fputs("\\&", out);
    roff_inline(out, s, strlen(s));
    fputc('\n', out);
}

/* A help text (lines ending in '\n'): paragraphs of lines, and lines
 * indented by two blanks (tables, examples) as they are. */
static void roff_help(FILE *out, const char *text)
{
    int is_nf = 0;

    while (text && *text) {
        const char *end = strchr(text, '\n');
        size_t n = end ? (size_t)(end - text) : strlen(text);
        char line[LINE_MAX_BYTES];
        int is_indented = n > 2 && text[0] == ' ' && text[1] == ' ';

        snprintf(line, sizeof(line), "%.*s", (int)n, text);
        if (is_indented != is_nf) {
            fputs(is_indented ? ".PP\n.nf\n" : ".fi\n.PP\n", out);
            is_nf = is_indented;
        }
        roff_line(out, line);
        text += n + (end ? 1 : 0);
    }
    if (is_nf)
        fputs(".fi\n", out);
}

static void roff_option(FILE *out, const struct opts_option *o)
{
    fputs(".TP\n", out);
    if (o->short_name)
        fprintf(out, "\\fB\\-%c\\fR, ", o->short_name);
    fputs("\\fB", out);
    roff_inline(out, o->name, strlen(o->name));
    fputs("\\fR", out);
    if (o->arg != OPTS_FLAG) {
        fputs(o->arg == OPTS_OPTIONAL ? "[=\\fI" : " \\fI", out);
        roff_inline(out, o->value_name, strlen(o->value_name));
        fputs(o->arg == OPTS_OPTIONAL ? "\\fR]" : "\\fR", out);
    }
    fputc('\n', out);
    for (const char *h = o->help; *h;) {
        const char *end = strchr(h, '\n');
        size_t n = end ? (size_t)(end - h) : strlen(h);

        roff_inline(out, h, n);
        fputc('\n', out);
        h += n + (end ? 1 : 0);
    }
}

static void man1_command(FILE *out, const struct opts_table *t)
{
    char usage[256];

    opts_usage(t, usage, sizeof(usage));
    fputs(".SS \"", out);
    roff_inline(out, usage, strlen(usage));
    fputs("\"\n", out);
    roff_help(out, t->summary);
    fputs("\n", out);
    roff_help(out, t->text);
    fputs(".PP\nOptions:\n", out);
    for (size_t g = 0; t->groups[g]; g++) {
        for (const struct opts_option *o = t->groups[g]; o->name; o++)
            roff_option(out, o);
    }
    fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nprint the help of the command and exit\n", out);
    if (t->after) {
        fputs(".PP\n", out);
        roff_help(out, t->after);
    }
}

static int man1(FILE *out)
{
    char usage[256];

    fprintf(out, ".TH BRINK 1 \"\" \"brink %s\" \"User Commands\"\n", BRINK_VERSION);
    fputs(".SH NAME\nbrink \\- terminal stress\\-test console for servers\n.SH SYNOPSIS\n", out);
    opts_usage(&cli_top, usage, sizeof(usage));
    roff_line(out, usage);
    for (size_t i = 0; cli_commands[i]; i++) {
        opts_usage(cli_commands[i], usage, sizeof(usage));
        fputs(".br\n", out);
        roff_line(out, usage);
    }
    fputs(".SH DESCRIPTION\n", out);
    roff_help(out, cli_top.summary);
    fputs("\n.PP\nThe one\\-line form:\n.PP\n.nf\n"
          "brink run \\-c 50 \\-n 2000 \\-m POST \\-H 'X\\-A: 1' \\-d @body.json URL\n.fi\n",
          out);
    fputs(".SH OPTIONS\n", out);
    for (const struct opts_option *o = cli_top.groups[0]; o->name; o++)
        roff_option(out, o);
    fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nprint the list of commands and exit\n", out);
    fputs(".SH COMMANDS\n", out);
    for (size_t i = 0; cli_commands[i]; i++)
        man1_command(out, cli_commands[i]);
    fputs(".SH EXIT STATUS\n", out);
    roff_help(out, cli_top.status);
    fputs(".SH ENVIRONMENT\n"
          ".TP\n\\fBXDG_STATE_HOME\\fR, \\fBHOME\\fR\n"
          "where a run records unless [record] dir is set:\n"
          "$XDG_STATE_HOME/brink/sessions, else ~/.local/state/brink/sessions\n"
          ".TP\n\\fBTERM\\fR, \\fBNO_COLOR\\fR\n"
          "the console needs a TERM that can address the cursor; NO_COLOR (set to\n"
          "anything) shows it without colours\n"
          ".SH FILES\n"
          ".TP\n\\fI~/.local/state/brink/sessions/\\fR\n"
          "session files of the runs ($XDG_STATE_HOME/brink/sessions when set)\n"
          ".SH SEE ALSO\n\\fBbrink\\-config\\fR(5)\n",
          out);
    return ferror(out) ? -EIO : 0;
}

/* --- brink-config(5) from docs/config.md ---------------------------- */

/* The cells of a table row "| a | b |" (pipes inside `code` are kept),
 * trimmed, into cells; returns how many. */
static size_t split_row(char *line, char **cells, size_t max)
{
    size_t n = 0;
    int is_code = 0;
    char *start = line + 1;

    for (char *p = line + 1; *p && n < max; p++) {
        if (*p == '`')
            is_code = !is_code;
        if (*p != '|' || is_code)
            continue;
        *p = '\0';
        while (*start == ' ')
            start++;
        for (char *e = p - 1; e >= start && *e == ' '; e--)
            *e = '\0';
        cells[n++] = start;
        start = p + 1;
    }
    return n;
}

struct md {
    FILE *out;
    char section[64];           /* of the current "## `[NAME ...]`" heading */
    int is_key_table;           /* the table's first column is "key" */
    int is_table;               /* inside a table (after its header) */
    int is_code;                /* inside a fenced block */
    int is_para;                /* a paragraph is open */
    const char *seen[MAX_KEYS]; /* "section key" documented */
    char seen_buf[MAX_KEYS][96];
    size_t n_seen;
};

static void md_heading(struct md *m, const char *line)
{
    int level = 0;
    const char *text, *open;

    while (line[level] == '#')
        level++;
    text = line + level + 1;
    m->is_para = 0;
    if (level == 1)
        return; /* the title: NAME says it */
    m->section[0] = '\0';
    open = strstr(text, "`[");
    if (level == 2 && open == text)
        sscanf(open + 2, "%63[a-z]", m->section);
    fputs(level == 2 ? ".SH \"" : ".SS \"", m->out);
    roff_inline(m->out, text, strlen(text));
    fputs("\"\n", m->out);
}

static void md_row(struct md *m, char *line)
{
    char *cells[8];
    size_t n = split_row(line, cells, 8);

    if (n == 0 || strncmp(cells[0], "---", 3) == 0)
        return;
    if (!m->is_table) {
        /* The header row: a table of keys, or any other. */
        m->is_table = 1;
        m->is_key_table = strcmp(cells[0], "key") == 0;
        return;
    }
    fputs(".TP\n", m->out);
    roff_line(m->out, cells[0]);
    if (m->is_key_table && n >= 3) {
        /* "`start`, `step`, `max`": a row may document several keys. */
        for (const char *k = strchr(cells[0], '`'); k && m->section[0] && m->n_seen < MAX_KEYS;) {
            const char *close = strchr(k + 1, '`');

            if (!close)
                break;
            snprintf(m->seen_buf[m->n_seen], sizeof(m->seen_buf[0]), "%s %.*s", m->section,
                     (int)(close - k - 1), k + 1);
            m->seen[m->n_seen] = m->seen_buf[m->n_seen];
            m->n_seen++;
            k = strchr(close + 1, '`');
        }
        fputs("Default: ", m->out);
        roff_line(m->out, cells[1]);
        fputs(".br\n", m->out);
        roff_line(m->out, cells[2]);
        if (n >= 4 && strcmp(cells[3], "") != 0) {
            fputs(".br\nExample: ", m->out);
            roff_line(m->out, cells[3]);
        }
        return;
    }
    for (size_t i = 1; i < n; i++)
        roff_line(m->out, cells[i]);
}

static void md_line(struct md *m, char *line)
{
    size_t indent = strspn(line, " ");
    const char *s = line + indent;

    if (strncmp(s, "```", 3) == 0) {
        m->is_code = !m->is_code;
        fputs(m->is_code ? ".PP\n.RS 4\n.nf\n" : ".fi\n.RE\n", m->out);
        m->is_para = 0;
        return;
    }
    if (m->is_code) {
        fputs("\\&", m->out);
        roff_inline(m->out, line, strlen(line)); /* no inline marks in code: none used */
        fputc('\n', m->out);
        return;
    }
    if (*s != '|')
        m->is_table = 0;
    if (*s == '\0') {
        m->is_para = 0;
        return;
    }
    if (*s == '#') {
        md_heading(m, s);
        return;
    }
    if (*s == '|') {
        md_row(m, line);
        return;
    }
    if ((s[0] == '-' || s[0] == '*') && s[1] == ' ') {
        fprintf(m->out, ".IP \\(bu %zu\n", 2 + indent);
        roff_line(m->out, s + 2);
        m->is_para = 1;
        return;
    }
    if (s[0] >= '0' && s[0] <= '9' && strncmp(s + strspn(s, "0123456789"), ". ", 2) == 0) {
        size_t digits = strspn(s, "0123456789");

        fprintf(m->out, ".IP %.*s. %zu\n", (int)digits, s, 4 + indent);
        roff_line(m->out, s + digits + 2);
        m->is_para = 1;
        return;
    }
    if (!m->is_para)
        fputs(indent ? "" : ".PP\n", m->out);
    m->is_para = 1;
    roff_line(m->out, s);
}

static int is_documented(const struct md *m, const struct config_key_info *k)
{
    char want[96];

    snprintf(want, sizeof(want), "%s %s", k->section, k->name);
    for (size_t i = 0; i < m->n_seen; i++) {
        if (strcmp(m->seen[i], want) == 0)
            return 1;
    }
    return 0;
}

static int man5(const char *md_path, FILE *out)
{
    struct md m = {.out = out};
    char line[LINE_MAX_BYTES];
    struct config_key_info k;
    FILE *in = fopen(md_path, "r");
    int missing = 0;

    if (!in) {
        fprintf(stderr, "brink-gendoc: %s: %s\n", md_path, strerror(errno));
        return -errno;
    }
    fprintf(out, ".TH BRINK\\-CONFIG 5 \"\" \"brink %s\" \"File Formats\"\n", BRINK_VERSION);
    fputs(".SH NAME\nbrink\\-config \\- brink's experiment files\n"
          ".SH SYNOPSIS\n\\fBbrink run \\-\\-config\\fR \\fIFILE\\fR\n.br\n"
          "\\fBbrink check\\fR \\fIFILE\\fR\n.SH DESCRIPTION\n",
          out);
    while (fgets(line, sizeof(line), in)) {
        line[strcspn(line, "\n")] = '\0';
        md_line(&m, line);
    }
    fclose(in);
    fputs(".SH SEE ALSO\n\\fBbrink\\fR(1)\n", out);
    for (size_t i = 0; config_key_at(i, &k) == 0; i++) {
        if (!is_documented(&m, &k)) {
            fprintf(stderr, "brink-gendoc: %s: [%s] %s has no row in its section's table\n",
                    md_path, k.section, k.name);
            missing++;
        }
    }
    return missing || ferror(out) ? -EINVAL : 0;
}

/* --- completions ----------------------------------------------------- */

static int is_file_value(const struct opts_option *o)
{
    return o->value_name && strcmp(o->value_name, "FILE") == 0;
}

/* Whether a command's operands are session files ("last" or *.jsonl). */
static int takes_sessions(const struct opts_table *t)
{
    return t == &cli_replay || t == &cli_report || t == &cli_compare;
}

static void bash_words(FILE *out, const struct opts_table *t)
{
    for (size_t g = 0; t->groups[g]; g++) {
        for (const struct opts_option *o = t->groups[g]; o->name; o++) {
            if (o->short_name)
                fprintf(out, "-%c ", o->short_name);
            fprintf(out, "%s ", o->name);
        }
    }
    fputs("-h --help", out);
}

/* The options of t that take a value, as a case pattern ("-f|--config"),
 * those whose value is a FILE when is_file is set, else the others. */
static void bash_pattern(FILE *out, const struct opts_table *t, int is_file, const char *except)
{
    int n = 0;

    for (size_t g = 0; t->groups[g]; g++) {
        for (const struct opts_option *o = t->groups[g]; o->name; o++) {
            if (o->arg != OPTS_VALUE || o->choices || is_file_value(o) != is_file ||
                (except && strcmp(o->name, except) == 0))
                continue;
            if (o->short_name)
                fprintf(out, "%s-%c", n++ ? "|" : "", o->short_name);
            fprintf(out, "%s%s", n++ ? "|" : "", o->name);
        }
    }
    if (n == 0)
        fputs("__brink_none__", out); /* a pattern no previous word matches */
}

/* A case branch for each option of t with a list of values. */
static void bash_choices(FILE *out, const struct opts_table *t)
{
    for (size_t g = 0; t->groups[g]; g++) {
        for (const struct opts_option *o = t->groups[g]; o->name; o++) {
            if (!o->choices)
                continue;
            fputs("        ", out);
            if (o->short_name)
                fprintf(out, "-%c|", o->short_name);
            fprintf(out, "%s)\n            COMPREPLY=($(compgen -W \"", o->name);
            for (size_t i = 0; o->choices[i]; i++)
                fprintf(out, "%s%s", i ? " " : "", o->choices[i]);
            fputs("\" -- \"$cur\"))\n            return ;;\n", out);
        }
    }
}

static int bash(FILE *out)
{
    fputs("# bash completion for brink, generated from its option tables.\n"
          "_brink() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    local cmd=${COMP_WORDS[1]}\n"
          "    COMPREPLY=()\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        COMPREPLY=($(compgen -W \"",
          out);
    for (size_t i = 0; cli_commands[i]; i++)
        fprintf(out, "%s ", cli_commands[i]->name);
    fputs("help -h --help -V --version\" -- \"$cur\"))\n"
          "        return\n"
          "    fi\n"
          "    case $cmd in\n",
          out);
    for (size_t i = 0; cli_commands[i]; i++) {
        const struct opts_table *t = cli_commands[i];
        fprintf(out, "    %s)\n        case $prev in\n", t->name);
        bash_choices(out, t);
        if (t == &cli_run || t == &cli_target) {
            fputs("        -f|--config)\n", out);
            fprintf(
                out,
                "            compopt -o filenames 2>/dev/null\n"
                "            COMPREPLY=($(compgen -f -X '!*.%s' -- \"$cur\") $(compgen -d -- \"$cur\"))\n"
                "            return ;;\n",
                t == &cli_target ? "json" : "ini");
        }
        fputs("        ", out);
        bash_pattern(out, t, 1, "--config");
        fputs(")\n            compopt -o filenames 2>/dev/null\n"
              "            COMPREPLY=($(compgen -f -- \"$cur\"))\n            return ;;\n        ",
              out);
        bash_pattern(out, t, 0, NULL);
        fputs(")\n            return ;;\n        esac\n", out);
        fputs("        if [[ $cur == -* ]]; then\n            COMPREPLY=($(compgen -W \"", out);
        bash_words(out, t);
        fputs("\" -- \"$cur\"))\n            return\n        fi\n", out);
        if (takes_sessions(t))
            fputs(
                "        compopt -o filenames 2>/dev/null\n"
                "        COMPREPLY=($(compgen -W last -- \"$cur\") $(compgen -f -X '!*.jsonl' -- \"$cur\") $(compgen -d -- \"$cur\"))\n",
                out);
        else if (t == &cli_check)
            fputs(
                "        compopt -o filenames 2>/dev/null\n"
                "        COMPREPLY=($(compgen -f -X '!*.ini' -- \"$cur\") $(compgen -d -- \"$cur\"))\n",
                out);
        else if (t == &cli_sessions)
            fputs("        COMPREPLY=($(compgen -d -- \"$cur\"))\n", out);
        fputs("        ;;\n", out);
    }
    fputs("    esac\n}\ncomplete -F _brink brink\n", out);
    return ferror(out) ? -EIO : 0;
}

/* Text inside a quoted _arguments spec: a description in [...] (is_message
 * 0) may hold no brackets, a message after ':' no colon; no quote or
 * newline either. */
static void zsh_text(FILE *out, const char *s, int is_message)
{
    for (; *s; s++) {
        if (*s == '\n')
            fputc(' ', out);
        else if (*s == ']' || *s == '[')
            fputc(*s == ']' ? ')' : '(', out);
        else if (*s == ':' && is_message)
            fputs("\\:", out);
        else if (*s == '\'')
            fputs("'\\''", out);
        else
            fputc(*s, out);
    }
}

static void zsh_option(FILE *out, const struct opts_table *t, const struct opts_option *o)
{
    const char *arg = o->arg == OPTS_VALUE ? (o->short_name ? "+" : "=") : "";

    fputs("        ", out);
    if (o->is_repeatable)
        fputs("'*'", out); /* quoted, or zsh would glob it with what follows */
    else if (o->short_name)
        fprintf(out, "'(-%c %s)'", o->short_name, o->name);
    if (o->short_name)
        fprintf(out, "{-%c%s,%s%s}'[", o->short_name, arg, o->name,
                o->arg == OPTS_VALUE ? "=" : "");
    else
        fprintf(out, "'%s%s[", o->name, o->arg == OPTS_VALUE ? "=" : "");
    zsh_text(out, o->help, 0);
    fputc(']', out);
    if (o->arg == OPTS_VALUE) {
        fputc(':', out);
        zsh_text(out, o->value_name, 1);
        if (o->id == CLI_RUN_CONFIG && t == &cli_run)
            fputs(":_files -g \"*.ini\"", out);
        else if (is_file_value(o))
            fputs(":_files", out);
        else if (o->choices) {
            fputs(":(", out);
            for (size_t i = 0; o->choices[i]; i++)
                fprintf(out, "%s%s", i ? " " : "", o->choices[i]);
            fputc(')', out);
        } else
            fputs(": ", out);
    }
    fputs("' \\\n", out);
}

static int zsh(FILE *out)
{
    fputs(
        "#compdef brink\n# zsh completion for brink, generated from its option tables.\n\n"
        "_brink_sessions() {\n"
        "    _alternative 'last:newest session:(last)' 'files:session file:_files -g \"*.jsonl\"'\n"
        "}\n\n_brink() {\n    local -a commands\n    commands=(\n",
        out);
    for (size_t i = 0; cli_commands[i]; i++) {
        fprintf(out, "        '%s:", cli_commands[i]->name);
        zsh_text(out, cli_commands[i]->summary, 0);
        fputs("'\n", out);
    }
    fputs("    )\n"
          "    if (( CURRENT == 2 )); then\n"
          "        _describe -t commands 'brink command' commands\n"
          "        return\n"
          "    fi\n"
          "    local cmd=$words[2]\n"
          "    shift words\n"
          "    (( CURRENT-- ))\n"
          "    case $cmd in\n",
          out);
    for (size_t i = 0; cli_commands[i]; i++) {
        const struct opts_table *t = cli_commands[i];

        fprintf(out, "    %s)\n        _arguments -s \\\n", t->name);
        for (size_t g = 0; t->groups[g]; g++) {
            for (const struct opts_option *o = t->groups[g]; o->name; o++)
                zsh_option(out, t, o);
        }
        fputs("        '(- *)'{-h,--help}'[print the help and exit]' \\\n", out);
        if (takes_sessions(t))
            fputs("        '*:session file:_brink_sessions'\n", out);
        else if (t == &cli_check)
            fputs("        ':experiment file:_files -g \"*.ini\"'\n", out);
        else if (t == &cli_run)
            fputs("        ':URL:_urls'\n", out);
        else if (t == &cli_sessions)
            fputs("        '*:folder:_files -/'\n", out);
        else
            fputs("        \n", out);
        fputs("        ;;\n", out);
    }
    fputs("    esac\n}\n\n_brink \"$@\"\n", out);
    return ferror(out) ? -EIO : 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    int rc;

    if (strcmp(what, "man1") == 0)
        rc = man1(stdout);
    else if (strcmp(what, "man5") == 0 && argc > 2)
        rc = man5(argv[2], stdout);
    else if (strcmp(what, "bash") == 0)
        rc = bash(stdout);
    else if (strcmp(what, "zsh") == 0)
        rc = zsh(stdout);
    else {
        fprintf(stderr, "usage: brink-gendoc man1 | man5 CONFIG.md | bash | zsh\n");
        return 2;
    }
    if (fflush(stdout) != 0)
        rc = -EIO;
    return rc == 0 ? 0 : 1;
}
