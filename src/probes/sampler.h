/*
 * The sampler's internals (runtime.c, fetch_curl.c, fetch_cmd.c,
 * extract.c): a source is one [probe NAME] section (one fetch or one
 * command per interval); a series is one value read from what the source
 * brought back (one per JSON pointer, else one), and one row of the board.
 * Everything here runs on the probe thread, except the body of an HTTP
 * fetch, which runs in libuv's thread pool and touches only its own
 * struct fetch. The parsers' own helpers are in internal.h.
 */
#ifndef BRINK_PROBES_SAMPLER_H
#define BRINK_PROBES_SAMPLER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "config/config.h"
#include "core/tick.h"
#include "probes/parse.h"

#define PROBE_BODY_MAX PROBE_DOC_MAX /* bytes of an HTTP answer: what the parsers take */
#define PROBE_OUTPUT_MAX (64u << 10) /* bytes of a command's stdout */
#define PROBE_WHY_MAX TICK_TEXT_MAX

struct probes;
struct source;
struct extractor;

/* What a fetch or a command brought back: the text, or why there is none. */
struct result {
    int rc;     /* 0, or negative: why says it */
    char *text; /* owned; NUL-terminated; NULL when rc != 0 */
    size_t len;
    char why[PROBE_WHY_MAX];
};

/* The TLS settings of every HTTP probe (tls.c). */
struct probe_tls {
    int is_insecure;                 /* check neither certificate nor name */
    const char *ca_file;             /* borrowed; trust it alone; NULL: libcurl's store */
    const char *client_cert;         /* borrowed; NULL: none */
    const char *client_key;          /* borrowed; NULL: in client_cert */
    enum config_tls_version tls_min; /* the oldest accepted */
};

/*
 * The TLS settings of the probes of a run with [target] t: insecure,
 * ca_file (else ssl_cert_file, the value of SSL_CERT_FILE or NULL, when
 * not empty), client_cert, client_key and tls_min. server_name is the
 * requests' alone: a probe may go to another host. out borrows from t and
 * ssl_cert_file.
 */
void probes__tls_of(const struct config_target *t, const char *ssl_cert_file,
                    struct probe_tls *out);

/* An HTTP fetch, run in the thread pool (fetch_curl.c). */
struct fetch {
    uv_work_t work;
    const struct config_probe *cfg;
    const struct probe_tls *tls;   /* the probes' (struct probes) */
    const atomic_int *is_stopping; /* aborts a transfer in progress */
    struct result res;
};

/* A command run (fetch_cmd.c). */
struct command_run {
    uv_process_t process;
    uv_pipe_t out;
    uv_pipe_t err;
    uv_timer_t deadline;
    struct source *src;
    char *text;
    size_t len;
    char err_text[PROBE_WHY_MAX];
    size_t err_len;
    int64_t exit_status;
    int term_signal;
    int is_timed_out;
    int is_spawn_failed;
    int open_handles; /* finished (or freed) when it drops to 0 */
};

struct series {
    uint32_t board_index;
    struct extractor *ex;    /* owned */
    struct tick_probe shown; /* what the board has */
    int has_raw;             /* a previous raw value (counters) */
    double raw;
    uint64_t raw_ns;
    uint64_t ok_ns; /* the last good sample; 0 before */
};

struct source {
    struct probes *ps;
    const struct config_probe *cfg;
    uv_timer_t timer;
    int is_busy;
    uint64_t busy_since_ns;
    struct fetch fetch;
    struct command_run *cmd; /* while a command runs */
    uint32_t first_series;
    uint32_t n_series;
};

struct probes {
    uv_loop_t loop;
    struct probe_tls tls; /* borrows from the config and ssl_cert_file */
    char *ssl_cert_file;  /* owned; SSL_CERT_FILE at start, or NULL */
    uv_async_t stop;
    uv_thread_t thread;
    atomic_int is_stopping;
    struct board *board;
    uint64_t start_ns;
    uint32_t n_sources;
    struct source *sources;
    uint32_t n_series;
    struct series *series;
    int open_handles;
};

/* runtime.c: a source brought back res (its text is freed here). */
void probes__source_done(struct source *src, struct result *res);

/* fetch_curl.c: queues the fetch of src on the loop's thread pool; 0 or a
 * libuv error. */
int probes__fetch_http_start(struct source *src);

/* fetch_cmd.c: starts src's command. 0, or a negative errno (why filled). */
int probes__fetch_cmd_start(struct source *src, char *why, size_t why_len);
/* Kills the process group of a running command (on stop). */
void probes__fetch_cmd_kill(struct source *src);

/* extract.c: how series `index` of a probe reads its value from a page. */
int probes__extractor_new(const struct config_probe *cfg, uint32_t index, char *why, size_t why_len,
                          struct extractor **out);
void probes__extractor_free(struct extractor *ex);

/* What a source brought back, parsed once for all its series: a JSON
 * document is read once however many pointers look into it. */
struct page {
    const char *text; /* borrowed */
    size_t len;
    struct probe_json *doc; /* JSON sources: the parsed document, or NULL */
    int doc_rc;             /* why it did not parse (0 when it did) */
    char doc_why[PROBE_WHY_MAX];
};

void probes__page_open(struct page *pg, const struct config_probe *cfg, const char *text,
                       size_t len);
void probes__page_close(struct page *pg);
int probes__extractor_read(const struct extractor *ex, const struct page *pg, double *out,
                           char *why, size_t why_len);

#endif
