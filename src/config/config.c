#include "config/config.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/internal.h"
#include "core/msg.h"
#include "core/regfile.h"
#include "core/xalloc.h"

/* Sets the keys of one section that have a plain (not allocated) default. */
void config__apply_defaults(enum config_section_kind kind, void *base)
{
    char why[CONFIG_WHY_MAX];

    for (size_t i = 0; i < config__n_keys; i++) {
        const struct config_key *k = &config__keys[i];
        struct config_value v = {k->def, k->def, 0};
        int rc;

        if (k->section != kind || !k->def || k->type->owns_memory)
            continue;
        rc = k->type->parse(NULL, k, base, &v, why, sizeof(why));
        assert(rc == 0 && "a default in keys.c does not parse");
        (void)rc;
    }
}

void config_init(struct config *c)
{
    memset(c, 0, sizeof(*c));
    config__apply_defaults(SECTION_TARGET, &c->target);
    config__apply_defaults(SECTION_LOAD, &c->load);
    config__apply_defaults(SECTION_RECORD, &c->record);
    config__apply_defaults(SECTION_RAMP, &c->ramp);
    config__apply_defaults(SECTION_THRESHOLDS, &c->thresholds);
    config__apply_defaults(SECTION_SCENARIO, &c->scenario);
    config__apply_defaults(SECTION_AGENTS, &c->agents);
}

static void free_str(struct config_str *s)
{
    free(s->raw);
    free(s->value);
}

static void free_headers(struct config_str *headers, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free_str(&headers[i]);
}

void config_free(struct config *c)
{
    free(c->path);
    free_str(&c->target.url);
    free_headers(c->target.headers, c->target.n_headers);
    free_str(&c->target.ca_file);
    free_str(&c->target.client_cert);
    free_str(&c->target.client_key);
    free_str(&c->target.server_name);
    free_headers(c->target.connect_to, c->target.n_connect_to);
    free_str(&c->target.unix_socket);
    free_str(&c->target.proxy);
    free_str(&c->scenario.script);
    free_str(&c->target.aws_sigv4);
    for (uint32_t i = 0; i < c->n_requests; i++) {
        struct config_request *r = &c->requests[i];

        free(r->name);
        free_str(&r->method);
        free_str(&r->url);
        free_headers(r->headers, r->n_headers);
        free_str(&r->body);
        free(r->body_path);
        free_str(&r->aws_sigv4);
    }
    for (uint32_t i = 0; i < c->n_probes; i++) {
        struct config_probe *p = &c->probes[i];

        free(p->name);
        free_str(&p->url);
        free_headers(p->headers, p->n_headers);
        free_headers(p->pointers, p->n_pointers);
        free_str(&p->key);
        free_str(&p->regex);
        free_str(&p->metric);
        free_str(&p->command);
    }
    free_str(&c->record.dir);
    free_str(&c->agents.ssh);
    free_str(&c->agents.brink);
    for (uint32_t i = 0; i < c->agents.n_files; i++)
        free(c->agents.files[i]);
    config_init(c);
}

/* The struct of a section; index picks the [request NAME] or [probe NAME]. */
static void *base_of(struct config *c, enum config_section_kind kind, uint32_t index)
{
    switch (kind) {
    case SECTION_TARGET: return &c->target;
    case SECTION_LOAD: return &c->load;
    case SECTION_RECORD: return &c->record;
    case SECTION_RAMP: return &c->ramp;
    case SECTION_THRESHOLDS: return &c->thresholds;
    case SECTION_SCENARIO: return &c->scenario;
    case SECTION_AGENTS: return &c->agents;
    case SECTION_REQUEST: return &c->requests[index];
    case SECTION_PROBE: return &c->probes[index];
    case SECTION_NONE: break;
    }
    assert(!"no struct for this section");
    return NULL;
}

/* Fills in string defaults ("GET", "sessions"), which config_init leaves
 * unset so that an unloaded config owns no memory. */
static void apply_string_defaults(struct config *c)
{
    for (size_t i = 0; i < config__n_keys; i++) {
        const struct config_key *k = &config__keys[i];
        uint32_t n = k->section == SECTION_REQUEST ? c->n_requests
                     : k->section == SECTION_PROBE ? c->n_probes
                                                   : 1;

        if (!k->def || !k->type->owns_memory || k->is_repeatable)
            continue;
        for (uint32_t j = 0; j < n; j++) {
            char *base = base_of(c, k->section, j);
            struct config_str *s = (struct config_str *)(base + k->offset);

            if (!s->raw) {
                s->raw = xstrdup(k->def);
                s->value = xstrdup(k->def);
            }
        }
    }
}

static void copy_str(struct config_str *to, const struct config_str *from)
{
    to->raw = xstrdup(from->raw);
    to->value = xstrdup(from->value);
    to->line = 0;
}

/* Turns the path of url into a URL: [target] url, without a final /,
 * followed by the path, as Locust and most HTTP clients' base URLs do. */
/* The length of "scheme://host:port" at the start of a URL. */
static size_t origin_len(const char *url)
{
    const char *authority = strstr(url, "://");

    if (!authority)
        return strlen(url);
    authority += 3;
    return (size_t)(authority - url) + strcspn(authority, "/?#");
}

void config__join_url(struct config_load_ctx *ctx, struct config_str *url, const char *where,
                      int to_origin)
{
    const struct config_str *base = &ctx->c->target.url;
    char shown[CONFIG_SHOW_MAX];
    size_t base_len, len;
    char *joined;

    config__show(url->value, shown);
    if (!base->value) {
        /* A [target] url that was given but is bad has been reported. */
        if (!ctx->c->target.key_line[CONFIG_TARGET_URL])
            config__error(
                ctx, url->line, where,
                "a path needs a [target] url to join it to (expected an http:// or https:// URL, got \"%s\")",
                shown);
        return;
    }
    if (!to_origin && strpbrk(base->value, "?#")) {
        config__error(ctx, url->line, where,
                      "a path cannot be joined to a [target] url with a ? or # (got \"%s\")",
                      shown);
        return;
    }
    base_len = to_origin ? origin_len(base->value) : strlen(base->value);
    if (base_len > 0 && base->value[base_len - 1] == '/')
        base_len--;
    len = base_len + strlen(url->value);
    if (len > CONFIG_VALUE_MAX) {
        config__error(ctx, url->line, where,
                      "URL joined to [target] url is %zu bytes, longer than the %d accepted", len,
                      CONFIG_VALUE_MAX);
        return;
    }
    joined = xmalloc(len + 1);
    memcpy(joined, base->value, base_len);
    strcpy(joined + base_len, url->value);
    free(url->value);
    url->value = joined;
}

/* The checks that need the whole file: which url each request goes to. */
static void resolve_requests(struct config_load_ctx *ctx)
{
    struct config *c = ctx->c;
    int has_target = c->target.key_line[CONFIG_TARGET_URL] != 0;
    uint32_t n_with_url = 0;
    char where[CONFIG_WHERE_MAX], name[CONFIG_SHOW_MAX];

    for (uint32_t i = 0; i < c->n_requests; i++)
        n_with_url += c->requests[i].key_line[CONFIG_REQUEST_URL] != 0;
    if (c->scenario.script.value && c->n_requests) {
        config__error(ctx, c->scenario.key_line[CONFIG_SCENARIO_SCRIPT], "[scenario] script",
                      "a script makes its own requests: remove the [request NAME] sections");
        return;
    }
    /* A script may speak no HTTP at all (brink.tcp, brink.ws). */
    if (!has_target && n_with_url == 0 && !c->scenario.script.value) {
        config__error(ctx, 0, "[target] url",
                      "no target: set [target] url or a url in each [request NAME]");
        return;
    }
    for (uint32_t i = 0; i < c->n_requests; i++) {
        struct config_request *r = &c->requests[i];

        if (!r->key_line[CONFIG_REQUEST_TIMEOUT])
            r->timeout_us = c->target.timeout_us;
        if (!r->key_line[CONFIG_REQUEST_EXPECT])
            r->expect = c->target.expect;
        if (!r->key_line[CONFIG_REQUEST_AWS_SIGV4] && c->target.aws_sigv4.raw)
            copy_str(&r->aws_sigv4, &c->target.aws_sigv4);
        if (r->key_line[CONFIG_REQUEST_URL]) {
            if (r->url.value && r->url.value[0] == '/') {
                snprintf(where, sizeof(where), "[request %s] url", config__show(r->name, name));
                config__join_url(ctx, &r->url, where, 0);
            }
        } else if (c->target.url.raw) {
            copy_str(&r->url, &c->target.url);
        } else if (!has_target) {
            snprintf(where, sizeof(where), "[request %s] url", config__show(r->name, name));
            config__error(ctx, r->line, where,
                          "no url (expected a url here, or a [target] url for every request)");
        }
    }
}

/* The line a [target] key was set on, for messages (0 from the command line). */
static uint32_t target_line(const struct config_target *t, enum config_target_key key)
{
    uint32_t line = t->key_line[key];

    return line == CONFIG_LINE_COMMAND_LINE ? 0 : line;
}

/* The [target] keys that only make sense together, and the transport they
 * need: proxies are libcurl's alone. */
static void check_target(struct config_load_ctx *ctx)
{
    const struct config *c = ctx->c;
    const struct config_target *t = &c->target;
    char shown[CONFIG_SHOW_MAX];

    if (t->client_key.raw && !t->client_cert.raw)
        config__error(ctx, target_line(t, CONFIG_TARGET_CLIENT_KEY), "[target] client_key",
                      "a client key needs its certificate (expected client_cert = FILE too)");
    if (t->streams > 1 && t->http_version == CONFIG_HTTP_1_1)
        config__error(
            ctx, target_line(t, CONFIG_TARGET_STREAMS), "[target] streams",
            "streams = %" PRIu32
            " needs HTTP/2, which multiplexes (expected http_version = 2 or h2c, or streams = 1)",
            t->streams);
    if (t->unix_socket.raw && (t->proxy.raw || t->n_connect_to))
        config__error(ctx, target_line(t, CONFIG_TARGET_UNIX_SOCKET), "[target] unix_socket",
                      "a unix socket is where every connection goes (expected no %s with it)",
                      t->proxy.raw ? "proxy" : "connect_to");
    if (t->http_version == CONFIG_HTTP_2) {
        /* Without [request NAME] sections, [target] url is the one request. */
        for (uint32_t i = 0; i <= c->n_requests; i++) {
            const char *url = i < c->n_requests ? c->requests[i].url.value : t->url.value;

            if (url && strncasecmp(url, "http://", 7) == 0) {
                config__error(
                    ctx, target_line(t, CONFIG_TARGET_HTTP_VERSION), "[target] http_version",
                    "http_version = 2 is negotiated in TLS, but \"%s\" is http:// (expected https:// URLs, or http_version = h2c for HTTP/2 without TLS)",
                    config__show(url, shown));
                break;
            }
        }
    }
    if (t->transport != CONFIG_TRANSPORT_H1)
        return;
    if (t->proxy.raw)
        config__error(ctx, target_line(t, CONFIG_TARGET_TRANSPORT), "[target] transport",
                      "h1 does not go through proxies (expected transport = curl or auto with "
                      "proxy =)");
}

/* Whether scope (an aws_sigv4 value, NULL when unset) signs. */
static int signs(const struct config_str *scope)
{
    return scope->value && strcmp(scope->value, "off") != 0;
}

/* The headers aws_sigv4 writes itself: a second one would contradict it. */
static const char *const sigv4_headers[] = {"Authorization", "X-Amz-Date", "X-Amz-Content-SHA256",
                                            "X-Amz-Security-Token"};

static void check_sigv4_headers(struct config_load_ctx *ctx, const struct config_str *headers,
                                uint32_t n, const char *where)
{
    for (uint32_t i = 0; i < n; i++) {
        for (size_t j = 0; j < sizeof(sigv4_headers) / sizeof(sigv4_headers[0]); j++) {
            size_t len = strlen(sigv4_headers[j]);
            const char *h = headers[i].value;

            if (h && strncasecmp(h, sigv4_headers[j], len) == 0 && h[len] == ':')
                config__error(ctx, headers[i].line, where,
                              "%s is written by aws_sigv4 (expected no %s header in a signed "
                              "request)",
                              sigv4_headers[j], sigv4_headers[j]);
        }
    }
}

/* Signed requests need the environment's credentials, and no header of
 * their own where the signature goes. The credentials are only checked
 * here: the engine reads them again, so they never enter struct config or
 * a recording. */
static void check_sigv4(struct config_load_ctx *ctx)
{
    static const char *const vars[] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"};
    const struct config *c = ctx->c;
    char where[CONFIG_WHERE_MAX], first[CONFIG_WHERE_MAX] = "", name[CONFIG_SHOW_MAX];
    uint32_t first_line = 0;

    if (c->n_requests == 0 && signs(&c->target.aws_sigv4)) {
        snprintf(first, sizeof(first), "[target] aws_sigv4");
        first_line = c->target.aws_sigv4.line;
        check_sigv4_headers(ctx, c->target.headers, c->target.n_headers, "[target] header");
    }
    for (uint32_t i = 0; i < c->n_requests; i++) {
        const struct config_request *r = &c->requests[i];

        if (!signs(&r->aws_sigv4))
            continue;
        config__show(r->name, name);
        if (!first[0] && r->key_line[CONFIG_REQUEST_AWS_SIGV4]) {
            snprintf(first, sizeof(first), "[request %s] aws_sigv4", name);
            first_line = r->aws_sigv4.line;
        } else if (!first[0]) {
            snprintf(first, sizeof(first), "[target] aws_sigv4");
            first_line = c->target.aws_sigv4.line;
        }
        snprintf(where, sizeof(where), "[request %s] header", name);
        check_sigv4_headers(ctx, c->target.headers, c->target.n_headers, where);
        check_sigv4_headers(ctx, r->headers, r->n_headers, where);
    }
    if (!first[0])
        return;
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = ctx->getenv(vars[i], ctx->getenv_arg);

        if (!v || !v[0])
            config__error(ctx, first_line == CONFIG_LINE_COMMAND_LINE ? 0 : first_line, first,
                          "%s is not set (expected the credentials in the environment: "
                          "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and, for temporary ones, "
                          "AWS_SESSION_TOKEN)",
                          vars[i]);
    }
}

/* The directory @FILE bodies are looked up in: that of the config file. */
/* The [load] keys that only make sense together. */
static void check_load(struct config_load_ctx *ctx)
{
    const struct config_load *l = &ctx->c->load;
    uint32_t line = l->key_line[CONFIG_LOAD_MODE], rate_line = l->key_line[CONFIG_LOAD_RATE];

    /* A rate of 0 from the command line was reported with its option. */
    if (l->mode == CONFIG_MODE_RATE && l->rate_per_s <= 0 && rate_line == 0)
        config__error(ctx, line == CONFIG_LINE_COMMAND_LINE ? 0 : line, "[load] rate",
                      "mode = rate needs a rate (expected a rate such as rate = 100/s, got none)");
    else if (l->mode == CONFIG_MODE_RATE && l->rate_per_s <= 0 &&
             rate_line != CONFIG_LINE_COMMAND_LINE)
        config__error(ctx, rate_line, "[load] rate",
                      "mode = rate needs a rate above 0 (expected a rate such as rate = 100/s)");
    line = l->key_line[CONFIG_LOAD_THINK_TIME];
    if (l->mode == CONFIG_MODE_RATE && l->think_time_us > 0)
        config__notice(
            ctx, line == CONFIG_LINE_COMMAND_LINE ? 0 : line, "[load] think_time",
            "not applied under mode = rate, whose requests start on their schedule (only the closed model's users think)");
}

static const char *process_getenv(const char *name, void *arg)
{
    (void)arg;
    return getenv(name);
}

/* Reads from in, or from text when in is NULL. */
static int load(struct config *c, const char *name, FILE *in, const char *text,
                const struct config_opts *opts, FILE *err)
{
    struct config_load_ctx ctx = {.c = c, .err = err, .in = in, .text = text};
    int rc;

    config__show(name, ctx.file);
    ctx.dir = regfile_dir(name);
    ctx.getenv = opts && opts->getenv ? opts->getenv : process_getenv;
    ctx.getenv_arg = opts ? opts->getenv_arg : NULL;
    ctx.line = xmalloc(CONFIG_VALUE_MAX + 2);
    c->path = xstrdup(name);
    rc = ini_parse_stream(config__read_line, &ctx, config__on_key, &ctx);
    if (rc != 0) {
        /* The reader hands inih only lines it accepts, so this is a bug in
         * the reader; say so rather than start with a half-read file. */
        config__error(&ctx, rc > 0 ? (uint32_t)rc : 0, NULL,
                      "inih rejected this line although brink's reader accepted it");
    }
    if (ctx.read_errno) {
        rc = -ctx.read_errno;
        config__error(&ctx, 0, NULL, "cannot read: %s", msg_errno(-rc).text);
    } else {
        for (size_t i = 0; opts && i < opts->n_overrides; i++)
            config__apply_override(&ctx, &opts->overrides[i]);
        resolve_requests(&ctx);
        config__resolve_probes(&ctx);
        config__resolve_ramp(&ctx);
        config__resolve_thresholds(&ctx);
        config__resolve_agents(&ctx);
        check_load(&ctx);
        check_target(&ctx);
        check_sigv4(&ctx);
        apply_string_defaults(c);
        rc = ctx.n_errors ? -EINVAL : 0;
    }
    config__errors_end(&ctx);
    free(ctx.line);
    free(ctx.dir);
    if (rc < 0)
        config_free(c);
    return rc;
}

int config_load_string(struct config *c, const char *name, const char *text,
                       const struct config_opts *opts, FILE *err)
{
    return load(c, name, NULL, text, opts, err);
}

int config_load_file(struct config *c, const char *path, const struct config_opts *opts, FILE *err)
{
    char shown[CONFIG_SHOW_MAX], why[256];
    FILE *in;
    int rc;

    /* A FIFO would block and /dev/zero never end: regular files only. */
    rc = regfile_open(path, CONFIG_FILE_MAX_BYTES, &in, why, sizeof(why));
    if (rc != 0) {
        msg_print(err, "brink: %s: %s", config__show(path, shown), why);
        return rc;
    }
    rc = load(c, path, in, NULL, opts, err);
    fclose(in);
    return rc;
}
