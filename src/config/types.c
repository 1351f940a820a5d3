/*
 * The value types of config keys: how each is parsed (numbers through
 * core/units.h, strings checked and copied) and how each is written back by
 * config_write. A key in the table of keys.c names one of these.
 */
#include "config/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/msg.h"
#include "core/suggest.h"
#include "core/redact.h"
#include "core/status_set.h"
#include "core/units.h"
#include "core/xalloc.h"

#define RANDOM_PREFIX "random:"
#define RANDOM_BODY_MAX (1ULL << 30)
#define FORMAT_MAX 32

static void *field_of(const struct config_key *k, void *base)
{
    return (char *)base + k->offset;
}

static const void *cfield_of(const struct config_key *k, const void *base)
{
    return (const char *)base + k->offset;
}

void config__set_str(struct config_str *s, const struct config_value *v)
{
    free(s->raw);
    free(s->value);
    s->raw = xstrdup(v->raw);
    s->value = xstrdup(v->value);
    s->line = v->line;
}

static int parse_duration(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                          const struct config_value *v, char *why, size_t why_len)
{
    char lo[FORMAT_MAX], hi[FORMAT_MAX], shown[CONFIG_SHOW_MAX];
    uint64_t us;

    (void)ctx;
    if (units_parse_duration(v->value, &us, why, why_len) < 0) {
        config__tidy_why(why, why_len);
        return -EINVAL;
    }
    if (us < k->min || us > k->max) {
        config__format_duration(k->min, lo, sizeof(lo));
        config__format_duration(k->max, hi, sizeof(hi));
        snprintf(why, why_len, "expected a duration from %s to %s, got \"%s\"", lo, hi,
                 config__show(v->value, shown));
        return -EINVAL;
    }
    *(uint64_t *)field_of(k, base) = us;
    return 0;
}

static void write_duration(const struct config_key *k, const void *base, FILE *out)
{
    char buf[FORMAT_MAX];

    config__format_duration(*(const uint64_t *)cfield_of(k, base), buf, sizeof(buf));
    fprintf(out, "%s = %s\n", k->name, buf);
}

static int parse_size(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                      const struct config_value *v, char *why, size_t why_len)
{
    char lo[FORMAT_MAX], hi[FORMAT_MAX], shown[CONFIG_SHOW_MAX];
    uint64_t bytes;

    (void)ctx;
    if (units_parse_size(v->value, &bytes, why, why_len) < 0) {
        config__tidy_why(why, why_len);
        return -EINVAL;
    }
    if (bytes < k->min || bytes > k->max) {
        config__format_size(k->min, lo, sizeof(lo));
        config__format_size(k->max, hi, sizeof(hi));
        snprintf(why, why_len, "expected a size from %s to %s, got \"%s\"", lo, hi,
                 config__show(v->value, shown));
        return -EINVAL;
    }
    *(uint64_t *)field_of(k, base) = bytes;
    return 0;
}

static void write_size(const struct config_key *k, const void *base, FILE *out)
{
    char buf[FORMAT_MAX];

    config__format_size(*(const uint64_t *)cfield_of(k, base), buf, sizeof(buf));
    fprintf(out, "%s = %s\n", k->name, buf);
}

static int parse_count(const struct config_key *k, const struct config_value *v, uint64_t *n,
                       char *why, size_t why_len)
{
    if (units_parse_count(v->value, k->min, k->max, n, why, why_len) < 0) {
        config__tidy_why(why, why_len);
        return -EINVAL;
    }
    return 0;
}

static int parse_count32(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                         const struct config_value *v, char *why, size_t why_len)
{
    uint64_t n;

    (void)ctx;
    if (parse_count(k, v, &n, why, why_len) < 0)
        return -EINVAL;
    /* The table keeps every 32-bit count's max below UINT32_MAX. */
    *(uint32_t *)field_of(k, base) = (uint32_t)n;
    return 0;
}

static void write_count32(const struct config_key *k, const void *base, FILE *out)
{
    fprintf(out, "%s = %" PRIu32 "\n", k->name, *(const uint32_t *)cfield_of(k, base));
}

static int parse_count64(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                         const struct config_value *v, char *why, size_t why_len)
{
    (void)ctx;
    return parse_count(k, v, field_of(k, base), why, why_len);
}

static void write_count64(const struct config_key *k, const void *base, FILE *out)
{
    fprintf(out, "%s = %" PRIu64 "\n", k->name, *(const uint64_t *)cfield_of(k, base));
}

static int parse_bool(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                      const struct config_value *v, char *why, size_t why_len)
{
    (void)ctx;
    if (units_parse_bool(v->value, field_of(k, base), why, why_len) < 0) {
        config__tidy_why(why, why_len);
        return -EINVAL;
    }
    return 0;
}

static void write_bool(const struct config_key *k, const void *base, FILE *out)
{
    fprintf(out, "%s = %s\n", k->name, *(const int *)cfield_of(k, base) ? "yes" : "no");
}

static int parse_url(const struct config_key *k, void *base, const struct config_value *v,
                     int may_be_path, char *why, size_t why_len)
{
    if (config__check_url(v->value, may_be_path, why, why_len) < 0)
        return -EINVAL;
    config__set_str(field_of(k, base), v);
    return 0;
}

static int parse_target_url(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                            const struct config_value *v, char *why, size_t why_len)
{
    (void)ctx;
    return parse_url(k, base, v, 0, why, why_len);
}

static int parse_request_url(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                             const struct config_value *v, char *why, size_t why_len)
{
    (void)ctx;
    return parse_url(k, base, v, 1, why, why_len);
}

void config__write_url(const struct config_key *k, const void *base, FILE *out)
{
    const struct config_str *s = cfield_of(k, base);
    char *buf;

    if (!s->raw) {
        /* Only [target] url may be unset in a loaded config; a command
         * probe has no url, and nothing is written for it. */
        if (k->section == SECTION_TARGET)
            fprintf(
                out,
                "; %s is not set: each [request NAME] has its own, or the [scenario] script speaks no HTTP\n",
                k->name);
        return;
    }
    /* Redaction only shortens or adds a few bytes per secret. */
    buf = xmalloc(2 * CONFIG_VALUE_MAX);
    redact_url(s->raw, buf, 2 * CONFIG_VALUE_MAX);
    fprintf(out, "%s = %s\n", k->name, buf);
    free(buf);
}

static int parse_header(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                        const struct config_value *v, char *why, size_t why_len)
{
    uint32_t *n = (uint32_t *)((char *)base + k->count_offset);
    struct config_str *headers = field_of(k, base);
    const char *colon = strchr(v->value, ':');
    char shown[CONFIG_SHOW_MAX];

    (void)ctx;
    if (!colon || colon == v->value) {
        snprintf(why, why_len, "expected \"Name: value\", got \"%s\"",
                 config__show(v->value, shown));
        return -EINVAL;
    }
    for (const char *p = v->value; p < colon; p++) {
        if (!config__is_tchar((unsigned char)*p)) {
            snprintf(
                why, why_len,
                "bad header name (expected letters, digits and !#$%%&'*+-.^_`|~ before the colon, got \"%s\")",
                config__show_n(v->value, (size_t)(colon - v->value), shown));
            return -EINVAL;
        }
    }
    if (*n == CONFIG_MAX_HEADERS) {
        snprintf(why, why_len, "too many header lines (expected at most %d in one section)",
                 CONFIG_MAX_HEADERS);
        return -EINVAL;
    }
    config__set_str(&headers[(*n)++], v);
    return 0;
}

static void write_headers(const struct config_key *k, const void *base, FILE *out)
{
    uint32_t n = *(const uint32_t *)((const char *)base + k->count_offset);
    const struct config_str *headers = cfield_of(k, base);
    char *buf = xmalloc(2 * CONFIG_VALUE_MAX);

    for (uint32_t i = 0; i < n; i++) {
        redact_header_line(headers[i].raw, buf, 2 * CONFIG_VALUE_MAX);
        fprintf(out, "%s = %s\n", k->name, buf);
    }
    free(buf);
}

static int parse_method(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                        const struct config_value *v, char *why, size_t why_len)
{
    char shown[CONFIG_SHOW_MAX];
    const char *p = v->value;

    (void)ctx;
    while (config__is_tchar((unsigned char)*p))
        p++;
    if (p == v->value || *p != '\0') {
        snprintf(
            why, why_len,
            "expected an HTTP method such as GET or PROPFIND (letters, digits and !#$%%&'*+-.^_`|~), got \"%s\"",
            config__show(v->value, shown));
        return -EINVAL;
    }
    config__set_str(field_of(k, base), v);
    return 0;
}

/* Writes a string key as written; for a default it is the default. */
void config__write_raw(const struct config_key *k, const void *base, FILE *out)
{
    const struct config_str *s = cfield_of(k, base);

    if (s->raw)
        fprintf(out, "%s = %s\n", k->name, s->raw);
    else if (k->def)
        fprintf(out, "%s = %s\n", k->name, k->def);
}

static void not_regular(const char *at, const char *file, char *why, size_t why_len)
{
    char shown[CONFIG_SHOW_MAX];

    snprintf(why, why_len, "%s%s is not a regular file (expected %sFILE naming a file)", at,
             config__show(file, shown), at);
}

int config__resolve_file(struct config_load_ctx *ctx, const char *at, const char *file,
                         char **path_out, char *why, size_t why_len)
{
    char shown[CONFIG_SHOW_MAX];
    size_t len = strlen(ctx->dir) + strlen(file) + 2;
    char *path = xmalloc(len);
    struct stat st;
    int fd, rc = 0;

    if (file[0] == '/')
        snprintf(path, len, "%s", file);
    else
        snprintf(path, len, "%s/%s", ctx->dir, file);
    /* Only regular files are opened: opening a device can have effects
     * (a tape rewinds, a watchdog arms), and a FIFO would block. */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        not_regular(at, file, why, why_len);
        rc = -EINVAL;
        goto out_free_path;
    }
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        struct msg_errno_text reason = msg_errno(errno);

        snprintf(why, why_len, "cannot open %s%s: %s", at, config__show(file, shown), reason.text);
        rc = -EINVAL;
        goto out_free_path;
    }
    /* The file may have been replaced since stat; check what was opened. */
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        not_regular(at, file, why, why_len);
        rc = -EINVAL;
        goto out_close_fd;
    }
    free(*path_out);
    *path_out = path;
    path = NULL;
out_close_fd:
    close(fd);
out_free_path:
    free(path);
    return rc;
}

static int parse_body(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                      const struct config_value *v, char *why, size_t why_len)
{
    struct config_request *r = base;
    const char *s = v->value;
    char hi[FORMAT_MAX], shown[CONFIG_SHOW_MAX];

    if (s[0] == '@') {
        if (s[1] == '\0') {
            snprintf(why, why_len, "expected a file name after @, got \"@\"");
            return -EINVAL;
        }
        if (config__resolve_file(ctx, "@", s + 1, &r->body_path, why, why_len) < 0)
            return -EINVAL;
        r->body_kind = CONFIG_BODY_FILE;
    } else if (strncmp(s, RANDOM_PREFIX, strlen(RANDOM_PREFIX)) == 0) {
        s += strlen(RANDOM_PREFIX);
        if (units_parse_size(s, &r->body_random_bytes, why, why_len) < 0) {
            config__tidy_why(why, why_len);
            return -EINVAL;
        }
        if (r->body_random_bytes > RANDOM_BODY_MAX) {
            config__format_size(RANDOM_BODY_MAX, hi, sizeof(hi));
            snprintf(why, why_len, "expected random:SIZE of at most %s, got \"%s\"", hi,
                     config__show(v->value, shown));
            return -EINVAL;
        }
        r->body_kind = CONFIG_BODY_RANDOM;
    } else {
        r->body_kind = CONFIG_BODY_TEXT;
    }
    config__set_str(field_of(k, base), v);
    return 0;
}

static int parse_dir(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                     const struct config_value *v, char *why, size_t why_len)
{
    (void)ctx;
    if (v->value[0] == '\0') {
        snprintf(why, why_len, "expected a directory, got \"\"");
        return -EINVAL;
    }
    config__set_str(field_of(k, base), v);
    return 0;
}

static const char *const transport_names[] = {"auto", "curl", "h1", NULL};
static const char *const mode_names[] = {"closed", "rate", NULL};
static const char *const probe_type_names[] = {"json", "text", "prometheus", "command", NULL};
static const char *const probe_kind_names[] = {"gauge", "counter", NULL};
static const char *const probe_on_names[] = {"coordinator", "agents", NULL};
static const char *const growth_names[] = {"add", "double", NULL};
static const char *const action_names[] = {"stop", "hold", "back", NULL};
static const char *const http_version_names[] = {"1.1", "2", "h2c", NULL};
static const char *const tls_version_names[] = {"1.0", "1.1", "1.2", "1.3", NULL};
static const char *const ip_names[] = {"any", "4", "6", NULL};

/* Each in the order of its enum: config_transport, config_load_mode (where
 * "open" reads as "rate"), config_probe_type, config_probe_kind,
 * config_probe_on, config_growth, config_ramp_action, config_http_version,
 * config_tls_version and config_ip. */
const struct config_words config__transport_words = {transport_names, "auto, curl or h1", NULL, 0};
const struct config_words config__mode_words = {mode_names, "closed or rate (open)", "open",
                                                CONFIG_MODE_RATE};
const struct config_words config__probe_type_words = {probe_type_names,
                                                      "json, text, prometheus or command", NULL, 0};
const struct config_words config__probe_kind_words = {probe_kind_names, "gauge or counter", NULL,
                                                      0};
const struct config_words config__probe_on_words = {probe_on_names, "coordinator or agents", NULL,
                                                    0};
const struct config_words config__growth_words = {growth_names, "add or double", NULL, 0};
const struct config_words config__action_words = {action_names, "stop, hold or back", NULL, 0};
const struct config_words config__http_version_words = {http_version_names, "1.1, 2 or h2c", NULL,
                                                        0};
const struct config_words config__tls_version_words = {tls_version_names, "1.0, 1.1, 1.2 or 1.3",
                                                       NULL, 0};
const struct config_words config__ip_words = {ip_names, "any, 4 or 6", NULL, 0};

int config__parse_word(const char *const *names, const char *what, const struct config_value *v,
                       int *out, char *why, size_t why_len)
{
    char shown[CONFIG_SHOW_MAX];
    const char *best;
    size_t used;

    for (int i = 0; names[i]; i++) {
        if (strcmp(v->value, names[i]) == 0) {
            *out = i;
            return 0;
        }
    }
    snprintf(why, why_len, "expected %s, got \"%s\"", what, config__show(v->value, shown));
    best = suggest_closest(v->value, names);
    used = strlen(why);
    if (best)
        snprintf(why + used, why_len - used, " (did you mean %s?)", best);
    return -EINVAL;
}

int config__parse_enum(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                       const struct config_value *v, char *why, size_t why_len)
{
    const struct config_words *w = k->words;
    int i = 0;

    (void)ctx;
    if (w->alias && strcmp(v->value, w->alias) == 0)
        i = w->alias_of;
    else if (config__parse_word(w->names, w->expected, v, &i, why, why_len) < 0)
        return -EINVAL;
    /* Every enum of a word key counts from 0 in the order of its names. */
    *(int *)field_of(k, base) = i;
    return 0;
}

void config__write_enum(const struct config_key *k, const void *base, FILE *out)
{
    fprintf(out, "%s = %s\n", k->name, k->words->names[*(const int *)cfield_of(k, base)]);
}

/* Requests per second, "250", "2.5" or "250/s". The key's min is 0 when 0
 * is accepted (as "unset") and 1 when the rate must be above 0; its max is
 * the largest rate. */
static int parse_rate(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                      const struct config_value *v, char *why, size_t why_len)
{
    char shown[CONFIG_SHOW_MAX];
    double r;

    (void)ctx;
    if (units_parse_rate(v->value, &r, NULL, 0) != 0 || r > (double)k->max ||
        (k->min > 0 && r == 0)) {
        snprintf(why, why_len, "expected %s rate up to %" PRIu64 "/s, such as 100/s, got \"%s\"",
                 k->min > 0 ? "a positive" : "a", k->max, config__show(v->value, shown));
        return -EINVAL;
    }
    *(double *)field_of(k, base) = r;
    return 0;
}

static void write_rate(const struct config_key *k, const void *base, FILE *out)
{
    fprintf(out, "%s = %.15g/s\n", k->name, *(const double *)cfield_of(k, base));
}

/* ---- expect: status codes ---- */

#define STATUS_ITEM_MAX 32

/* Exactly three digits making 100 to 599, at s[0..n), blanks around them
 * ignored. */
static int parse_status_code(const char *s, size_t n, unsigned *out)
{
    unsigned code = 0;

    while (n > 0 && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n != 3)
        return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -EINVAL;
        code = code * 10 + (unsigned)(s[i] - '0');
    }
    if (code < STATUS_SET_LOW || code > STATUS_SET_HIGH)
        return -EINVAL;
    *out = code;
    return 0;
}

/* A class written 2xx (or 2XX): its hundred codes. */
static int parse_status_class(const char *item, unsigned *lo, unsigned *hi)
{
    if (strlen(item) != 3 || item[0] < '1' || item[0] > '5' || strchr("xX", item[1]) == NULL ||
        strchr("xX", item[2]) == NULL)
        return -EINVAL;
    *lo = (unsigned)(item[0] - '0') * 100;
    *hi = *lo + 99;
    return 0;
}

/* One item of an expect list: 404, 200-299 or 2xx, as the codes lo to hi. */
static int parse_status_item(const char *item, unsigned *lo, unsigned *hi, char *why,
                             size_t why_len)
{
    const char *dash = strchr(item, '-');
    char shown[CONFIG_SHOW_MAX];

    if (parse_status_class(item, lo, hi) == 0)
        return 0;
    if (!dash && parse_status_code(item, strlen(item), lo) == 0) {
        *hi = *lo;
        return 0;
    }
    if (dash && parse_status_code(item, (size_t)(dash - item), lo) == 0 &&
        parse_status_code(dash + 1, strlen(dash + 1), hi) == 0) {
        if (*lo <= *hi)
            return 0;
        snprintf(why, why_len, "expected a range from low to high such as 200-299, got \"%s\"",
                 config__show(item, shown));
        return -EINVAL;
    }
    snprintf(
        why, why_len,
        "expected a status code 100-599, a range such as 200-299 or a class such as 2xx, got \"%s\"",
        config__show(item, shown));
    return -EINVAL;
}

/* expect: items separated by commas, their codes put together. The set is
 * replaced only when the whole list parses. */
static int parse_status_set(struct config_load_ctx *ctx, const struct config_key *k, void *base,
                            const struct config_value *v, char *why, size_t why_len)
{
    struct status_set set = {{0}};
    const char *s = v->value;
    char item[STATUS_ITEM_MAX], shown[CONFIG_SHOW_MAX];
    unsigned lo, hi;
    int rc, n = 0;

    (void)ctx;
    while ((rc = config__next_item(&s, item, sizeof(item))) == 0 && item[0]) {
        if (parse_status_item(item, &lo, &hi, why, why_len) < 0)
            return -EINVAL;
        status_set_add(&set, lo, hi);
        n++;
    }
    if (rc != -ENOENT || n == 0) {
        snprintf(why, why_len,
                 "expected status codes separated by commas, such as 200-299, 404, got \"%s\"",
                 config__show(v->value, shown));
        return -EINVAL;
    }
    *(struct status_set *)field_of(k, base) = set;
    return 0;
}

static void write_status_set(const struct config_key *k, const void *base, FILE *out)
{
    char buf[STATUS_SET_TEXT_MAX];

    status_set_format(cfield_of(k, base), buf, sizeof(buf));
    fprintf(out, "%s = %s\n", k->name, buf);
}

const struct config_type config__duration = {parse_duration, write_duration, 0};
const struct config_type config__size = {parse_size, write_size, 0};
const struct config_type config__count32 = {parse_count32, write_count32, 0};
const struct config_type config__count64 = {parse_count64, write_count64, 0};
const struct config_type config__bool = {parse_bool, write_bool, 0};
const struct config_type config__target_url = {parse_target_url, config__write_url, 1};
const struct config_type config__request_url = {parse_request_url, config__write_url, 1};
const struct config_type config__header = {parse_header, write_headers, 1};
const struct config_type config__method = {parse_method, config__write_raw, 1};
const struct config_type config__body = {parse_body, config__write_raw, 1};
const struct config_type config__dir = {parse_dir, config__write_raw, 1};
const struct config_type config__word = {config__parse_enum, config__write_enum, 0};
const struct config_type config__rate = {parse_rate, write_rate, 0};
const struct config_type config__status_set = {parse_status_set, write_status_set, 0};
