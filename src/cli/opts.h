/*
 * opts: the one option parser of every brink command, and the usage and
 * --help text drawn from the same table, so an option is declared once:
 * its long and short names, whether it takes a value, whether it may be
 * repeated or contradicts another, and its help. Every option that takes
 * a value accepts --name=V, --name V, -s V and -sV. Pure (no I/O but the
 * stream it is given to print on); any thread.
 */
#ifndef BRINK_CLI_OPTS_H
#define BRINK_CLI_OPTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/msg.h"

enum opts_arg {
    OPTS_FLAG,     /* --name alone; --name=V is an error */
    OPTS_VALUE,    /* --name=V, --name V, -s V, -sV */
    OPTS_OPTIONAL, /* --name alone, --name=V, or --name V when V does not start with '-'
                      nor holds "://" (a URL is the command's, not the value) */
};

#define OPTS_ID_MAX 63 /* option ids are 1..OPTS_ID_MAX within a table */
#define OPTS_OPERAND 0 /* the id of an argument that is not an option */
#define OPTS_HELP (-1) /* the id of -h and --help, which every table has */

struct opts_option {
    const char *name;       /* "--url"; NULL ends an array of options */
    char short_name;        /* 'u' for -u, or 0 */
    enum opts_arg arg;      /* whether it takes a value */
    const char *value_name; /* "URL" in the usage and help; NULL for a flag */
    int id;                 /* 1..OPTS_ID_MAX, unique in its table */
    int excludes;           /* the id of an option it contradicts, or 0 */
    int is_repeatable;      /* may be given more than once (--label) */
    const char *help;       /* its help: lines separated by '\n', no final newline */
    /* The values it takes, NULL-ended, for the completions and the
     * command's own check (opts_choice); NULL: any value. */
    const char *const *choices;
};

/* The index of v in choices (NULL-ended), or -1 when it is none of them. */
int opts_choice(const char *const *choices, const char *v);

#define OPTS_GROUPS_MAX 4

struct opts_table {
    const char *name;     /* "run"; NULL for brink itself */
    const char *synopsis; /* after "brink run ": "(--url URL | --config FILE) [OPTIONS]" */
    const char *summary;  /* one line, for brink --help and the top of NAME --help */
    const char *text;     /* --help text before the options ("" for none), lines end in '\n' */
    const char *after;    /* --help text after the options, or NULL */
    const char *status;   /* --help text on the exit statuses, or NULL */
    /* Arrays of options, each ended by a NULL name; NULL after the last.
     * Two commands can share an array (run and demo take the same load
     * options) and keep the ids it holds. */
    const struct opts_option *groups[OPTS_GROUPS_MAX + 1];
};

/* Walks argv with a table; one per command line. */
struct opts_parser {
    const struct opts_table *t;
    int argc;
    char **argv;
    int i;           /* the next argument */
    int is_operands; /* after "--": every argument is an operand */
    uint64_t seen;   /* bit id: options given so far */
};

/* What opts_next found. */
struct opts_item {
    int id;                        /* the option's id, OPTS_HELP or OPTS_OPERAND */
    const struct opts_option *opt; /* the option; NULL for an operand and for help */
    const char *value;             /* its value, the operand, or NULL (a flag) */
};

/* Room for the err text of opts_next and the message of opts_fail: an
 * argument quoted whole (MSG_SHOWN_MAX) and the words around it. */
#define OPTS_ERR_MAX (MSG_SHOWN_MAX + 256)

/* Starts a walk over argv[1..argc-1] (argv[0] is the command's name). */
void opts_start(struct opts_parser *p, const struct opts_table *t, int argc, char **argv);

/*
 * The next option or operand. Returns 1 with *it filled, 0 at the end, or
 * -EINVAL with err set to what is wrong, the argument quoted and escaped
 * ("unknown option \"--frob\"", "--url needs a value (URL)", "--headless
 * takes no value, got \"--headless=1\"", "--seed given twice",
 * "--no-record contradicts --record"); the walk can go on after an error.
 */
int opts_next(struct opts_parser *p, struct opts_item *it, char *err, size_t err_len);

/* The option of t with this id, or NULL. */
const struct opts_option *opts_find(const struct opts_table *t, int id);

/* "brink run (--url URL | --config FILE) [OPTIONS]" into buf. */
void opts_usage(const struct opts_table *t, char *buf, size_t cap);

/* The option lines of the help, "options:" first, -h included. */
void opts_print_options(const struct opts_table *t, FILE *out);

/* The whole --help of a command: usage, summary, text, options, after,
 * status. */
void opts_print_help(const struct opts_table *t, FILE *out);

/*
 * The command line argv[0..argc) (argv[0] the command's name, "run") as a
 * shell would take it back, after "brink ": each argument quoted in '...'
 * when it holds anything but [A-Za-z0-9_@%+=:,./-], with its secrets
 * redacted (core/redact.h): a header line's secret value ("-H
 * 'Authorization: ...'", -HNAME:V, --header=NAME:V), a URL's password and
 * secret query keys, key=value pairs with a secret key. Written into out
 * (cap bytes, NUL-terminated, cut when short).
 */
void opts_command_line(int argc, char **argv, char *out, size_t cap);

/*
 * Prints "brink: NAME: WHAT (usage: USAGE)" on err, WHAT formatted from fmt
 * (arguments the user typed must be quoted with msg_show first). Returns
 * BRINK_EXIT_USAGE, for `return opts_fail(...)`.
 */
#if defined(__GNUC__)
#define OPTS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define OPTS_PRINTF(f, a)
#endif
int opts_fail(const struct opts_table *t, FILE *err, const char *fmt, ...) OPTS_PRINTF(3, 4);

#endif
