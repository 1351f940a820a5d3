/*
 * Shared inside src/config only: the load context that the line reader, the
 * inih handler and the key parsers pass around, the table of keys, and the
 * message helpers. One load runs on one thread; nothing here is global.
 */
#ifndef BRINK_CONFIG_INTERNAL_H
#define BRINK_CONFIG_INTERNAL_H

#include "config/config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/msg.h"

/* Longest piece of user text quoted in a message, after sanitizing. */
#define CONFIG_SHOW_MAX MSG_SHOWN_MAX
#define CONFIG_SECTION_KEYS_MAX 32 /* keys of one section, as listed in messages */
/* "[request NAME]" and "[request NAME] key" as shown in messages. */
#define CONFIG_LABEL_MAX (2 * CONFIG_SHOW_MAX + 16)
#define CONFIG_WHERE_MAX (CONFIG_LABEL_MAX + CONFIG_SHOW_MAX + 2)
/* Room for one "why" text, the part of a message after "[section] key: ". */
#define CONFIG_WHY_MAX 1024

enum config_section_kind {
    SECTION_NONE, /* before the first [section] */
    SECTION_TARGET,
    SECTION_LOAD,
    SECTION_REQUEST,
    SECTION_RECORD,
    SECTION_PROBE,
    SECTION_RAMP,
    SECTION_THRESHOLDS,
    SECTION_SCENARIO,
    SECTION_AGENTS,
};

struct config_key;
struct config_load_ctx;

/* One value as a key's parser sees it. */
struct config_value {
    const char *raw;   /* as written, ${ENV} references kept */
    const char *value; /* expanded */
    uint32_t line;
};

/*
 * Parses v into the field of section struct base that k names. Returns 0, or
 * -EINVAL with why (why_len bytes) set to the text that follows
 * "FILE:LINE: [section] key: ", user text in it already sanitized. ctx is
 * NULL when config_init applies a default.
 */
typedef int config_parse_fn(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                            const struct config_value *v, char *why, size_t why_len);
/* Writes the "key = value" line of k in base to out: one per header, a
 * comment for a key that is unset. */
typedef void config_write_fn(const struct config_key *k, const void *base, FILE *out);

struct config_type {
    config_parse_fn *parse;
    config_write_fn *write;
    int owns_memory; /* strings: default applied after a load, freed by config_free */
};

/* The words of a key whose value is one of a list (an enum): names[i] is
 * the enum's value i. */
struct config_words {
    const char *const *names; /* NULL-terminated, in the enum's order */
    const char *expected;     /* for messages: "auto, curl or h1" */
    const char *alias;        /* one more word, read as names[alias_of]; or NULL */
    int alias_of;
};

struct config_key {
    const char *name;
    enum config_section_kind section;
    unsigned index; /* into the section's key_line[] */
    const struct config_type *type;
    size_t offset;       /* of the value in the section's struct */
    size_t count_offset; /* repeatable keys: of the uint32_t count */
    const char *def;     /* the default as written in a file; NULL: none */
    uint64_t min, max;   /* accepted range of numbers */
    int is_repeatable;
    const struct config_words *words; /* keys of type config__word */
};

extern const struct config_key config__keys[];
extern const size_t config__n_keys;

/* Value types, defined in types.c. */
extern const struct config_type config__duration, config__size, config__count32, config__count64,
    config__bool, config__target_url, config__request_url, config__header, config__method,
    config__body, config__dir, config__word, config__rate, config__status_set;
/* Value types of [probe NAME] keys, defined in probe.c. */
extern const struct config_type config__probe_type, config__probe_url, config__pointer,
    config__probe_text, config__alert;

/* Value types of [ramp] keys, defined in ramp.c. */
extern const struct config_type config__ramp_steps, config__ramp_count, config__ramp_work,
    config__ramp_hold, config__growth, config__rules;

/* Value types of [agents] keys, defined in agents.c. */
extern const struct config_type config__agent_hosts, config__agent_command, config__agent_weights,
    config__agent_files;
/* The checks of [agents] that need the whole file (weights per host). */
void config__resolve_agents(struct config_load_ctx *ctx);

/* Value types of [target]'s connection keys, defined in network.c. */
extern const struct config_type config__file, config__host_name, config__route, config__socket_path,
    config__proxy_url, config__sigv4_scope;

/* The words of the enum keys, defined in types.c. */
extern const struct config_words config__transport_words, config__mode_words,
    config__probe_type_words, config__probe_kind_words, config__probe_on_words,
    config__growth_words, config__action_words, config__http_version_words,
    config__tls_version_words, config__ip_words;
/* The parser of config__word: k->words names the value, stored as an int. */
int config__parse_enum(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                       const struct config_value *v, char *why, size_t why_len);
/* Its writer: "key = word". */
void config__write_enum(const struct config_key *k, const void *base, FILE *out);

struct config_load_ctx {
    struct config *c;
    FILE *err;
    char file[CONFIG_SHOW_MAX]; /* the file name as shown in messages */
    char *dir;                  /* where @FILE bodies are looked up */
    config_getenv_fn *getenv;
    void *getenv_arg;
    unsigned n_errors;

    /* Input: a FILE or text in memory. */
    FILE *in;
    int read_errno; /* why reading in failed, 0 when it did not */
    const char *text;
    uint32_t lineno; /* of the line last handed to inih */
    char *line;      /* that line, NUL-terminated, at most CONFIG_VALUE_MAX bytes */
    size_t line_len;
    char *long_name;  /* set when a line was too long for inih: the real key */
    char *long_value; /* and value, which the handler uses instead of inih's */

    /* The section being read. */
    enum config_section_kind kind;
    void *base;                     /* its struct */
    uint32_t *key_line;             /* its key_line[] */
    int is_skipping;                /* after a bad section line, until the next good one */
    char label[CONFIG_LABEL_MAX];   /* "[request get]", sanitized */
    char last_key[CONFIG_SHOW_MAX]; /* for messages about continuation lines */
    /* Which probes have a type that parsed: the checks of the whole
     * section need it, and a bad type has been reported already. */
    unsigned char is_probe_typed[CONFIG_MAX_PROBES];
};

/* ini_reader.c: the fgets-style reader given to ini_parse_stream. */
char *config__read_line(char *str, int num, void *stream);

/* config.c: sets the keys of a section that have a plain (not allocated)
 * default. */
void config__apply_defaults(enum config_section_kind kind, void *base);

/* handler.c: a [section] line from the reader (its text between the
 * brackets, changed in place; NULL for a bad line whose keys are to be
 * skipped), and the handler given to inih for key = value lines. */
void config__begin_section(struct config_load_ctx *ctx, char *name);
int config__on_key(void *user, const char *section, const char *name, const char *value);
/* Applies one command-line value; errors read "brink: FLAG: why". */
void config__apply_override(struct config_load_ctx *ctx, const struct config_override *o);

/* messages.c */
#if defined(__GNUC__)
#define CONFIG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CONFIG_PRINTF(f, a)
#endif
/* Writes "brink: FILE:LINE: WHERE: MESSAGE" (no ":LINE" when line is 0, no
 * "WHERE: " when where is NULL) to ctx->err and counts the error; past
 * CONFIG_ERRORS_SHOWN errors it only counts. */
void config__error(struct config_load_ctx *ctx, uint32_t line, const char *where, const char *fmt,
                   ...) CONFIG_PRINTF(4, 5);
/* At the end of a load: "brink: FILE: ... N more errors" for those counted
 * but not printed, else nothing. */
void config__errors_end(struct config_load_ctx *ctx);
/* The same line for something the file may do but probably did not mean;
 * not an error: the file still loads. */
void config__notice(struct config_load_ctx *ctx, uint32_t line, const char *where, const char *fmt,
                    ...) CONFIG_PRINTF(4, 5);
/* Writes a sanitized copy of s, cut to CONFIG_SHOW_MAX bytes, into buf. */
const char *config__show(const char *s, char *buf);
/* Same for the first n bytes of s. */
const char *config__show_n(const char *s, size_t n, char *buf);
/* Makes sure a units.h why text about value is one printable line. */
void config__tidy_why(char *why, size_t why_len);

/* types.c: helpers that the probe types share. */
/* Finds v's value in names (NULL-terminated): 0 and its index in *out, or
 * -EINVAL with why "expected WHAT, got "value"" and a did-you-mean when a
 * name is close. */
int config__parse_word(const char *const *names, const char *what, const struct config_value *v,
                       int *out, char *why, size_t why_len);
/* Replaces *s with copies of v's raw and expanded text. */
void config__set_str(struct config_str *s, const struct config_value *v);
/* Writes a URL as written, credentials and secret query values redacted;
 * an unset [target] url as a comment. */
void config__write_url(const struct config_key *k, const void *base, FILE *out);
/* Writes a string key as written; for an unset one its default, if any. */
void config__write_raw(const struct config_key *k, const void *base, FILE *out);
/* Resolves file against the directory of the file being loaded and checks
 * that it is a regular file that can be opened now; *path_out (freed
 * first) takes the resolved path. at prefixes the name in messages ("@"
 * for bodies, "" for other files). */
int config__resolve_file(struct config_load_ctx *ctx, const char *at, const char *file,
                         char **path_out, char *why, size_t why_len);

/* config.c: turns the path in url (a value starting with /) into a URL by
 * joining it to [target] url, or with to_origin only to its scheme, host
 * and port (a probe's /stats is the server's, not the load URL's); where
 * names the key in messages. */
void config__join_url(struct config_load_ctx *ctx, struct config_str *url, const char *where,
                      int to_origin);

/* probe.c: the checks of each [probe NAME] that need the whole file: the
 * keys its type needs and refuses, and its url joined to [target] url. */
void config__resolve_probes(struct config_load_ctx *ctx);

/* ramp.c: the checks of [ramp] that need the whole file: steps written
 * one way, not two; hold or requests_per_user; probes named by stop_when
 * exist. Fills in the steps of start/step/max. */
void config__resolve_ramp(struct config_load_ctx *ctx);
/* Checks [thresholds] fail_on against the whole file (its probes). */
void config__resolve_thresholds(struct config_load_ctx *ctx);

/* probe.c: numbers in any locale (see parse_number there), and written back
 * in the fewest digits that read back to the same double. */
int config__parse_number(const char *s, double *out);
void config__format_number(double v, char *buf, size_t len);

/* values.c */
/* Expands ${NAME} and $$ in raw into a new string (*out). Returns 0 or
 * -EINVAL with why set. */
int config__expand(struct config_load_ctx *ctx, const char *raw, char **out, char *why,
                   size_t why_len);
/* Checks an absolute http:// or https:// URL template without blanks, or,
 * when may_be_path is set, a path starting with / instead. Placeholders:
 * {seq} {vu} {uuid} {rand:A..B}, braces balanced. Returns 0 or -EINVAL with
 * why set. */
int config__check_url(const char *url, int may_be_path, char *why, size_t why_len);
/* True for the characters of an HTTP token (RFC 9110 tchar). */
int config__is_tchar(unsigned char ch);
/* Copies the next comma-separated item of *s (trimmed) into buf and moves
 * *s past it; returns 0, or -ENOENT at the end and -E2BIG for an item
 * longer than len - 1. Lists such as steps and expect read with it. */
int config__next_item(const char **s, char *buf, size_t len);

/* write.c: durations and sizes in the largest unit that is exact, so that
 * they read back to the same value. */
void config__format_duration(uint64_t us, char *buf, size_t len);
void config__format_size(uint64_t bytes, char *buf, size_t len);

#endif
