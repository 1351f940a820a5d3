/*
 * config: an experiment's INI file (read with inih) into one validated
 * struct config in which every key has a default. Every error of a file is
 * reported in one pass, one line each, as
 *   brink: FILE:LINE: [section] key: what is wrong (expected ..., got ...)
 * Never touches curses, libuv or libcurl. Call from one thread at a time.
 * docs/config.md lists every key with its default and meaning.
 */
#ifndef BRINK_CONFIG_CONFIG_H
#define BRINK_CONFIG_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#include "core/status_set.h"

#define CONFIG_MAX_REQUESTS 64           /* [request NAME] sections; TICK_MAX_KINDS too */
#define CONFIG_MAX_HEADERS 32            /* header lines per section */
#define CONFIG_MAX_PROBES 16             /* [probe NAME] sections */
#define CONFIG_MAX_POINTERS 8            /* pointer lines of one json probe */
#define CONFIG_VALUE_MAX 8192            /* bytes in one line, so in one value; also after ${ENV} */
#define CONFIG_NAME_MAX 63               /* bytes in the NAME of [request NAME] */
#define CONFIG_FILE_MAX_BYTES (4u << 20) /* an experiment file; larger ones are refused */
#define CONFIG_ERRORS_SHOWN 20           /* error lines printed per load; the rest are counted */

/* A string value both as written (with ${ENV} references, safe to record or
 * show) and expanded (for use; may hold secrets). Both NULL when unset. */
struct config_str {
    char *raw;
    char *value;
    uint32_t line; /* line of the file it was set on; 0 for a default */
};

/* Keys of each section, in file order; they index the section's key_line[]. */
enum config_target_key {
    CONFIG_TARGET_URL,
    CONFIG_TARGET_TIMEOUT,
    CONFIG_TARGET_CONNECT_TIMEOUT,
    CONFIG_TARGET_KEEPALIVE,
    CONFIG_TARGET_MAX_BODY,
    CONFIG_TARGET_TRANSPORT,
    CONFIG_TARGET_HEADER,
    CONFIG_TARGET_EXPECT,
    CONFIG_TARGET_HTTP_VERSION,
    CONFIG_TARGET_STREAMS,
    CONFIG_TARGET_INSECURE,
    CONFIG_TARGET_CA_FILE,
    CONFIG_TARGET_CLIENT_CERT,
    CONFIG_TARGET_CLIENT_KEY,
    CONFIG_TARGET_SERVER_NAME,
    CONFIG_TARGET_TLS_MIN,
    CONFIG_TARGET_TLS_RESUME,
    CONFIG_TARGET_CONNECT_TO,
    CONFIG_TARGET_UNIX_SOCKET,
    CONFIG_TARGET_PROXY,
    CONFIG_TARGET_IP,
    CONFIG_TARGET_AWS_SIGV4,
    CONFIG_TARGET_COOKIES,
    CONFIG_TARGET_FOLLOW_REDIRECTS,
    CONFIG_TARGET_RETRY,
    CONFIG_TARGET_RETRY_NON_IDEMPOTENT,
    CONFIG_TARGET_KEYS
};

enum config_load_key {
    CONFIG_LOAD_CONCURRENCY,
    CONFIG_LOAD_THREADS,
    CONFIG_LOAD_DURATION,
    CONFIG_LOAD_REQUESTS,
    CONFIG_LOAD_TICK,
    CONFIG_LOAD_THINK_TIME,
    CONFIG_LOAD_BUSY_POLL,
    CONFIG_LOAD_STEP,
    CONFIG_LOAD_MODE,
    CONFIG_LOAD_RATE,
    CONFIG_LOAD_MAX_IN_FLIGHT,
    CONFIG_LOAD_RATE_STEP,
    CONFIG_LOAD_KEYS
};

enum config_request_key {
    CONFIG_REQUEST_WEIGHT,
    CONFIG_REQUEST_METHOD,
    CONFIG_REQUEST_URL,
    CONFIG_REQUEST_HEADER,
    CONFIG_REQUEST_BODY,
    CONFIG_REQUEST_TIMEOUT,
    CONFIG_REQUEST_EXPECT,
    CONFIG_REQUEST_AWS_SIGV4,
    CONFIG_REQUEST_KEYS
};

enum config_record_key { CONFIG_RECORD_ENABLED, CONFIG_RECORD_DIR, CONFIG_RECORD_KEYS };

enum config_ramp_key {
    CONFIG_RAMP_STEPS,
    CONFIG_RAMP_START,
    CONFIG_RAMP_STEP,
    CONFIG_RAMP_MAX,
    CONFIG_RAMP_GROWTH,
    CONFIG_RAMP_HOLD,
    CONFIG_RAMP_REQUESTS_PER_USER,
    CONFIG_RAMP_WARMUP,
    CONFIG_RAMP_STOP_WHEN,
    CONFIG_RAMP_ACTION,
    CONFIG_RAMP_KEYS
};

enum config_thresholds_key { CONFIG_THRESHOLDS_FAIL_ON, CONFIG_THRESHOLDS_KEYS };

enum config_scenario_key {
    CONFIG_SCENARIO_SCRIPT,
    CONFIG_SCENARIO_BUDGET,
    CONFIG_SCENARIO_MEMORY,
    CONFIG_SCENARIO_KEYS
};
enum config_agents_key {
    CONFIG_AGENTS_HOSTS,
    CONFIG_AGENTS_SSH,
    CONFIG_AGENTS_BRINK,
    CONFIG_AGENTS_WEIGHTS,
    CONFIG_AGENTS_FILES,
    CONFIG_AGENTS_KEYS
};

enum config_probe_key {
    CONFIG_PROBE_TYPE,
    CONFIG_PROBE_URL,
    CONFIG_PROBE_HEADER,
    CONFIG_PROBE_POINTER,
    CONFIG_PROBE_KEY,
    CONFIG_PROBE_REGEX,
    CONFIG_PROBE_METRIC,
    CONFIG_PROBE_COMMAND,
    CONFIG_PROBE_INTERVAL,
    CONFIG_PROBE_TIMEOUT,
    CONFIG_PROBE_KIND,
    CONFIG_PROBE_ALERT,
    CONFIG_PROBE_ON,
    CONFIG_PROBE_KEYS
};

/* Which engine transport carries the load ([target] transport). */
enum config_transport {
    CONFIG_TRANSPORT_AUTO, /* h1 when it can serve every request kind, else curl */
    CONFIG_TRANSPORT_CURL, /* libcurl: TLS, HTTP/2, proxies, any URL */
    CONFIG_TRANSPORT_H1,   /* brink's own HTTP/1.1 client: http:// and https:// */
};

/* The HTTP version spoken ([target] http_version). */
enum config_http_version {
    CONFIG_HTTP_1_1, /* HTTP/1.1, on either transport */
    CONFIG_HTTP_2,   /* HTTP/2 over TLS, negotiated by ALPN (curl); 1.1 if refused */
    CONFIG_HTTP_H2C, /* HTTP/2 from the first byte, without TLS (curl) */
};

/* The oldest TLS version accepted ([target] tls_min). */
enum config_tls_version {
    CONFIG_TLS_1_0,
    CONFIG_TLS_1_1,
    CONFIG_TLS_1_2,
    CONFIG_TLS_1_3,
};

/* Which addresses of a name are used ([target] ip). */
enum config_ip {
    CONFIG_IP_ANY, /* every address, in the resolver's order */
    CONFIG_IP_4,
    CONFIG_IP_6,
};

#define CONFIG_MAX_CONNECT_TO 8 /* connect_to lines */
#define CONFIG_HOST_MAX 255     /* bytes of a host name or address literal */

/* One connect_to line, "HOST:PORT:ADDR:PORT" as curl's --connect-to: a
 * connection to HOST:PORT goes to ADDR:PORT instead, while the requests
 * (Host header, TLS server name) still name HOST. An empty HOST or PORT
 * matches any (port 0 here); an empty ADDR or PORT keeps the request's. */
struct config_route {
    char host[CONFIG_HOST_MAX + 1];    /* without brackets; "" for any */
    uint16_t port;                     /* 0 for any */
    char to_host[CONFIG_HOST_MAX + 1]; /* without brackets; "" keeps the host */
    uint16_t to_port;                  /* 0 keeps the port */
};

/* What body = says; the engine builds the body from it. */
enum config_body_kind {
    CONFIG_BODY_NONE,   /* no body key: no body */
    CONFIG_BODY_TEXT,   /* body.value is the body itself */
    CONFIG_BODY_FILE,   /* @FILE: the contents of body_path */
    CONFIG_BODY_RANDOM, /* random:SIZE: body_random_bytes random bytes, made once */
};

struct config_request {
    char *name;                                    /* the NAME of [request NAME] */
    uint32_t line;                                 /* line of its [request NAME] */
    uint32_t key_line[CONFIG_REQUEST_KEYS];        /* where each key was set, 0: default */
    uint32_t weight;                               /* share of the mix, default 1 */
    struct config_str method;                      /* a token as written, default GET */
    struct config_str url;                         /* template; default [target] url */
    uint32_t n_headers;                            /* sent after [target]'s headers */
    struct config_str headers[CONFIG_MAX_HEADERS]; /* "Name: value" lines */
    struct config_str body;                        /* text, @file or random:SIZE */
    enum config_body_kind body_kind;
    char *body_path;             /* CONFIG_BODY_FILE: resolved against the config's dir */
    uint64_t body_random_bytes;  /* CONFIG_BODY_RANDOM */
    uint64_t timeout_us;         /* default [target] timeout */
    struct status_set expect;    /* statuses that are ok, default [target] expect */
    struct config_str aws_sigv4; /* "REGION/SERVICE" or "off"; default [target] aws_sigv4 */
};

/*
 * Without any [request NAME], the workload is GET [target] url. A request's
 * url value is always absolute: a path (url = /x/{seq}) is joined to [target]
 * url by plain concatenation, while raw keeps the path as written.
 */
struct config_target {
    uint32_t line;                         /* line of [target], 0 when absent */
    uint32_t key_line[CONFIG_TARGET_KEYS]; /* where each key was set, 0: default */
    struct config_str url;                 /* absolute http(s) URL template, or unset */
    uint64_t timeout_us;                   /* whole request, default 30 s */
    uint64_t connect_timeout_us;           /* default 5 s */
    int keepalive;                         /* reuse connections, default yes */
    uint64_t max_body_bytes;               /* longer bodies are cut, default 64 MiB */
    enum config_transport transport;       /* default auto */
    uint32_t n_headers;
    struct config_str headers[CONFIG_MAX_HEADERS]; /* sent with every request */
    struct status_set expect;                      /* statuses that are ok, default 100-399 */
    enum config_http_version http_version;         /* default 1.1 */
    uint32_t streams;                /* requests in flight per HTTP/2 connection, default 1 */
    int insecure;                    /* skip certificate and name checks, default no */
    struct config_str ca_file;       /* value: the path resolved against the file's dir */
    struct config_str client_cert;   /* PEM; value resolved as ca_file */
    struct config_str client_key;    /* PEM; unset: in client_cert */
    struct config_str server_name;   /* SNI and the name checked; unset: the URL's host */
    enum config_tls_version tls_min; /* default 1.2 */
    int tls_resume;                  /* resume TLS sessions on new connections, default yes */
    uint32_t n_connect_to;           /* connect_to lines */
    struct config_str connect_to[CONFIG_MAX_CONNECT_TO]; /* "HOST:PORT:ADDR:PORT" */
    struct config_str unix_socket; /* connect to this socket; value resolved as ca_file */
    struct config_str proxy;       /* a proxy URL (curl only), unset: none */
    enum config_ip ip;             /* default any */
    /* "REGION/SERVICE": every request is signed with AWS Signature V4 with
     * the credentials of the environment (never stored here); unset or
     * "off": none. */
    struct config_str aws_sigv4;
    int cookies;               /* a cookie jar per virtual user, default no */
    uint32_t follow_redirects; /* redirects followed per request, default 0: none */
    /* Send again a request the server never took up: its kept-alive
     * connection had been closed before the request reached it, or an
     * HTTP/2 stream it refused (docs/config.md); default yes. */
    int retry;
    int retry_non_idempotent; /* those of POST, PATCH and other methods too, default no */
};

/* How load is made ([load] mode). */
enum config_load_mode {
    CONFIG_MODE_CLOSED, /* concurrency virtual users, each waits for its reply */
    CONFIG_MODE_RATE,   /* rate arrivals per second whatever the replies do */
};

struct config_load {
    uint32_t line;
    uint32_t key_line[CONFIG_LOAD_KEYS];
    uint32_t concurrency;       /* virtual users at start, default 10 */
    uint32_t threads;           /* engine workers, default 1 */
    uint64_t duration_us;       /* 0: until stopped */
    uint64_t requests;          /* 0: no limit */
    uint64_t tick_us;           /* statistics interval, default 1 s */
    uint64_t think_time_us;     /* pause of a user between requests, default 0 */
    uint64_t busy_poll_us;      /* looking at the sockets without sleeping after a reply, 0: off */
    uint32_t step;              /* concurrency added or removed by one step, default 1 */
    enum config_load_mode mode; /* default closed */
    double rate_per_s;          /* mode = rate: arrivals per second; 0 when unset */
    uint32_t max_in_flight;     /* mode = rate: requests in flight at most, default 1000 */
    double rate_step_per_s;     /* rate added or removed by one step, default 10/s */
};

/* What a probe reads ([probe NAME] type). */
enum config_probe_type {
    CONFIG_PROBE_TYPE_JSON,       /* url, one or more pointer (RFC 6901) */
    CONFIG_PROBE_TYPE_TEXT,       /* url, key or regex */
    CONFIG_PROBE_TYPE_PROMETHEUS, /* url, metric (a selector: name{label="v"}) */
    CONFIG_PROBE_TYPE_COMMAND,    /* command (sh -c), key or regex or the number alone */
};

enum config_probe_kind {
    CONFIG_PROBE_GAUGE,   /* shown as read */
    CONFIG_PROBE_COUNTER, /* shown as a rate per second; resets detected */
};

/* Where a probe runs in a run with agents ([probe] on). */
enum config_probe_on {
    CONFIG_PROBE_ON_COORDINATOR, /* once, where brink run runs */
    CONFIG_PROBE_ON_AGENTS,      /* on every agent: one series per agent, "NAME@AGENT" */
};

enum config_alert_op {
    CONFIG_ALERT_NONE,
    CONFIG_ALERT_ABOVE,   /* alert = > N */
    CONFIG_ALERT_BELOW,   /* alert = < N */
    CONFIG_ALERT_CHANGES, /* alert = changes */
};

struct config_probe {
    char *name;                           /* the NAME of [probe NAME] */
    uint32_t line;                        /* line of its [probe NAME] */
    uint32_t key_line[CONFIG_PROBE_KEYS]; /* where each key was set, 0: default */
    enum config_probe_type type;          /* required */
    struct config_str url;                /* absolute; a path is joined to [target] url */
    uint32_t n_headers;
    struct config_str headers[CONFIG_MAX_HEADERS]; /* "Name: value" lines */
    uint32_t n_pointers;
    struct config_str pointers[CONFIG_MAX_POINTERS]; /* json */
    struct config_str key;                           /* text, command: unset or a key */
    struct config_str regex;                         /* text, command: unset or one capture group */
    struct config_str metric;                        /* prometheus */
    struct config_str command;                       /* command: run with /bin/sh -c */
    uint64_t interval_us;                            /* default 1 s, 100 ms to 1 h */
    uint64_t timeout_us;                             /* default 5 s, at most 1 h */
    enum config_probe_kind kind;                     /* default gauge */
    enum config_alert_op alert_op;                   /* default none */
    double alert_value;                              /* the N of > N and < N */
    enum config_probe_on on;                         /* default coordinator */
};

/* The series a probe gives: one per pointer of a json probe with several,
 * else one. Pure. */
uint32_t config_probe_series(const struct config_probe *p);

struct config_record {
    uint32_t line;
    uint32_t key_line[CONFIG_RECORD_KEYS];
    int enabled;           /* default yes */
    struct config_str dir; /* session files go here; not set (key_line 0): the
                            * per-user state folder, whatever the value */
};

#define CONFIG_MAX_RAMP_STEPS 256 /* steps of a [ramp] plan */
#define CONFIG_MAX_RULES 16       /* conditions of stop_when */

/* How start/step/max make the steps of a plan ([ramp] growth). */
enum config_growth {
    CONFIG_GROWTH_ADD,    /* start, start + step, start + 2 step, ... */
    CONFIG_GROWTH_DOUBLE, /* start, 2 start, 4 start, ... */
};

/* What a plan does when a step fails a stop condition ([ramp] action). */
enum config_ramp_action {
    CONFIG_ACTION_STOP, /* end the run */
    CONFIG_ACTION_HOLD, /* stay at the failing step's level, stop stepping */
    CONFIG_ACTION_BACK, /* return to the last step that passed and stay there */
};

/* What a stop condition measures over a step. */
enum config_rule_metric {
    CONFIG_RULE_ERROR_RATE, /* failed / completed, a fraction */
    CONFIG_RULE_P50,        /* latency percentiles, µs */
    CONFIG_RULE_P90,
    CONFIG_RULE_P99,
    CONFIG_RULE_P999,
    CONFIG_RULE_THROUGHPUT_DROP, /* 1 - req/s over the best earlier step's, a fraction */
    CONFIG_RULE_RATE_SHORTFALL,  /* open model: 1 - req/s over the step's rate, a fraction */
    CONFIG_RULE_PROBE,           /* a probe's largest (>) or smallest (<) value */
};

/* One condition of stop_when: metric op value; it trips when it holds. */
struct config_rule {
    enum config_rule_metric metric;
    int is_below;                    /* < instead of > */
    double value;                    /* fraction, µs, or the probe's unit */
    char probe[CONFIG_NAME_MAX + 1]; /* CONFIG_RULE_PROBE: the NAME of [probe NAME] */
};

/* A list of conditions ([ramp] stop_when, [thresholds] fail_on); a
 * verdict fails when any holds. Both default to CONFIG_DEFAULT_RULES;
 * "none" leaves the list empty, so that everything passes. */
struct config_rules {
    uint32_t n_rules;
    struct config_rule rules[CONFIG_MAX_RULES];
};

#define CONFIG_DEFAULT_RULES "error_rate > 1%"

/* [thresholds]: what the whole run must meet; brink run exits with
 * status 3 (docs/config.md) when a condition holds. */
struct config_thresholds {
    uint32_t line;
    uint32_t key_line[CONFIG_THRESHOLDS_KEYS];
    struct config_rules fail_on; /* default CONFIG_DEFAULT_RULES */
};

/* [ramp]: a staircase of load levels, each held for a time or an amount of
 * work, judged against stop_when when its hold ends. */
struct config_ramp {
    uint32_t line;
    uint32_t key_line[CONFIG_RAMP_KEYS];
    uint32_t n_steps;                    /* 0: no plan */
    double steps[CONFIG_MAX_RAMP_STEPS]; /* levels (whole users); from steps or start/max */
    uint32_t start, step, max;           /* the other way to write the steps */
    enum config_growth growth;           /* default add */
    uint64_t hold_us;                    /* per step, default 10 s; 0 when requests_per_user */
    uint32_t requests_per_user;          /* per step, 0: hold by time */
    uint64_t warmup_us;                  /* at the start of each step, out of its figures */
    struct config_rules stop_when;       /* a step fails when one holds */
    enum config_ramp_action action;      /* default stop */
};

#define CONFIG_MAX_AGENTS 16      /* hosts of [agents] */
#define CONFIG_MAX_AGENT_FILES 32 /* [agents] files */
#define CONFIG_AGENT_HOST_MAX                                                                      \
    63 /* bytes of one [agents] host (with user@): a tick's agent name                             \
        */

/* [agents]: the load comes from brink agents started over ssh
 * (docs/agents.md). n_hosts 0: the run makes its own load. */
struct config_agents {
    uint32_t line;
    uint32_t key_line[CONFIG_AGENTS_KEYS];
    uint32_t n_hosts;
    char hosts[CONFIG_MAX_AGENTS][CONFIG_AGENT_HOST_MAX + 1];
    struct config_str ssh;   /* the command before HOST; default "ssh -o BatchMode=yes" */
    struct config_str brink; /* the remote brink; default "brink" */
    uint32_t n_weights;      /* 0: equal shares; else one per host */
    double weights[CONFIG_MAX_AGENTS];
    uint32_t n_files;                    /* more files the agents get: what a script loads itself */
    char *files[CONFIG_MAX_AGENT_FILES]; /* resolved against the file's dir */
};

/* Splits a hosts list ("a, b,c") into c->hosts; -EINVAL with why when a
 * name is empty, too long, repeated or not [A-Za-z0-9_.:@[]-], or there are
 * more than CONFIG_MAX_AGENTS. */
int config_agents_set_hosts(struct config_agents *a, const char *list, char *why, size_t why_len);

/* [scenario]: the requests come from a Lua script (docs/scenarios.md). */
struct config_scenario {
    uint32_t line;
    uint32_t key_line[CONFIG_SCENARIO_KEYS];
    struct config_str script; /* value: the path resolved against the file's dir; unset: none */
    uint64_t budget_us;       /* longest a resume of the script runs without yielding */
    uint64_t memory_bytes;    /* most memory one of its Lua states holds */
};

struct config {
    char *path; /* the file it was read from, or the name given */
    struct config_target target;
    struct config_load load;
    uint32_t n_requests;
    struct config_request requests[CONFIG_MAX_REQUESTS];
    uint32_t n_probes;
    struct config_probe probes[CONFIG_MAX_PROBES];
    struct config_record record;
    struct config_ramp ramp;
    struct config_thresholds thresholds;
    struct config_scenario scenario;
    struct config_agents agents;
};

/* Splits a connect_to line into r; -EINVAL, with why, when it is not
 * "HOST:PORT:ADDR:PORT" (IPv6 literals in brackets, ports 1 to 65535). */
int config_route_parse(const char *text, struct config_route *r, char *why, size_t why_len);

/* Looks up an environment variable; the tests inject their own. */
typedef const char *config_getenv_fn(const char *name, void *arg);

/* A value given on the command line (--url, --concurrency...): it is parsed
 * like the same key in a file and wins over it; a repeatable key (header)
 * adds a line after the file's. Its key_line is CONFIG_LINE_COMMAND_LINE.
 * A "request" key goes to the file's only [request NAME], or to a
 * [request default] made for it; with several it is an error. */
struct config_override {
    const char *flag;    /* as the user typed it, for messages: "--concurrency" */
    const char *section; /* a section's name: "target", "load", "request"... */
    const char *key;     /* a key of that section */
    const char *value;   /* taken as is: the shell has expanded it already */
};

#define CONFIG_LINE_COMMAND_LINE UINT32_MAX

struct config_opts {
    config_getenv_fn *getenv; /* NULL: the process environment */
    void *getenv_arg;
    const struct config_override *overrides; /* applied after the file, in order */
    size_t n_overrides;
};

/* Sets every key of c to its default. c owns nothing yet: string defaults
 * ("GET", "sessions") are filled in by a successful load. */
void config_init(struct config *c);

/*
 * Reads path into c (initialised with config_init). Every problem is written
 * to err as one line starting "brink: "; returns 0, -EINVAL when the file had
 * errors, or a negative errno when the file could not be read. On failure c
 * is left as config_init left it. opts may be NULL. ${NAME} references in
 * values are expanded through opts->getenv; @FILE bodies are looked up
 * relative to the directory of path.
 */
int config_load_file(struct config *c, const char *path, const struct config_opts *opts, FILE *err);
/* The same for text in memory; name stands in for the file name in messages
 * and its directory for @FILE bodies. */
int config_load_string(struct config *c, const char *name, const char *text,
                       const struct config_opts *opts, FILE *err);

/* Parses text in the grammar of [thresholds] fail_on ("none", or
 * conditions separated by commas) into out, for a value that comes from
 * elsewhere than a file (a recorded session, --fail-on of brink report).
 * Probe names are not checked. Returns 0, or -EINVAL with why set. */
int config_parse_rules(const char *text, struct config_rules *out, char *why, size_t why_len);

/* Writes the effective configuration as INI to out: every key with its value,
 * strings as written (${ENV} references, not their values), secret header
 * values and URL credentials redacted. Returns 0 or -EIO. */
int config_write(const struct config *c, FILE *out);

/* config_write for a person (brink check): every line cleaned as msg.h
 * cleans what reaches a terminal, so a value's control characters, C1 and
 * bidi code points and invalid UTF-8 show as escapes, as on the console.
 * Returns 0 or -EIO. */
int config_show(const struct config *c, FILE *out);

/* One key an experiment file may hold, for brink-config(5) and the shell
 * completions (config_key_at). Static strings. */
struct config_key_info {
    const char *section; /* "target", "request" (for [request NAME])... */
    const char *name;    /* "url" */
    const char *def;     /* the default as a file would write it; NULL: none */
    int is_repeatable;   /* may be set more than once (header) */
};

/* The i-th key of every section, in the order of the key table;
 * returns 0, or -ENOENT past the last. Any thread. */
int config_key_at(size_t i, struct config_key_info *out);

/* Frees what c owns and leaves it as config_init did. */
void config_free(struct config *c);

#endif
