#include "target/settings.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/msg.h"

/* Names and values from the document are shown in messages escaped into
 * printable ASCII and cut to this many bytes: a message is one line that
 * goes to a terminal and into a 400 body. */
#define SHOWN_MAX 64

static const char *const endpoint_names[EP_COUNT] = {
    [EP_BYTES] = "bytes",     [EP_DELAY] = "delay",       [EP_STATUS] = "status",
    [EP_ECHO] = "echo",       [EP_FILES] = "files",       [EP_KV] = "kv",
    [EP_MP] = "mp",           [EP_STATS] = "stats",       [EP_METRICS] = "metrics",
    [EP_CONTROL] = "control", [EP_REDIRECT] = "redirect", [EP_OTHER] = "other",
};

static const char *const fault_names[FAULT_COUNT] = {
    [FAULT_NONE] = "none",
    [FAULT_RESET] = "reset",
    [FAULT_CLOSE_MID_BODY] = "close_mid_body",
    [FAULT_STALL] = "stall",
    [FAULT_DRIP] = "drip",
    [FAULT_MALFORMED_STATUS] = "malformed_status",
    [FAULT_HUGE_HEADER] = "huge_header",
    [FAULT_HOSTILE_HEADER] = "hostile_header",
};

const char *settings_endpoint_name(enum endpoint e)
{
    return (unsigned)e < EP_COUNT ? endpoint_names[e] : NULL;
}

const char *settings_fault_name(enum fault f)
{
    return (unsigned)f < FAULT_COUNT ? fault_names[f] : NULL;
}

int settings_fault_by_name(const char *name)
{
    for (int i = 0; i < FAULT_COUNT; i++)
        if (strcmp(name, fault_names[i]) == 0)
            return i;
    return -1;
}

void settings_default(struct settings *s)
{
    memset(s, 0, sizeof(*s));
    s->threads = 2;
    s->seed = 1;
    s->workers = 64;
    s->queue_max = 1024;
    s->stall_ms = 30000;
    s->drip_interval_ms = 100;
    s->drip_bytes = 10;
    s->huge_header_bytes = 256 * 1024;
    s->kv_max_bytes = 64ull << 20;
    s->kv_max_object_bytes = 8u << 20;
    s->kv_write_us = 10000;
    s->kv_read_us_per_kib = 20;
    s->mp_backpressure_ms = 50;
    s->force_fault = FAULT_NONE;
}

/* A plain numeric key: where it lives in struct settings and its range. */
enum field_kind { F_UNSIGNED, F_U32, F_U64, F_MS_AS_US, F_DOUBLE, F_BOOL };

struct field {
    const char *section; /* NULL at top level */
    const char *key;
    enum field_kind kind;
    size_t offset;
    double min, max;
    int start_only;
};

#define FIELD(sec, k, kind, member, lo, hi, so)                                                    \
    {                                                                                              \
        sec, k, kind, offsetof(struct settings, member), lo, hi, so                                \
    }

static const struct field fields[] = {
    FIELD(NULL, "threads", F_UNSIGNED, threads, 1, 64, 1),
    FIELD(NULL, "workers", F_UNSIGNED, workers, 1, 100000, 0),
    FIELD(NULL, "queue_max", F_UNSIGNED, queue_max, 0, 1000000, 0),
    FIELD(NULL, "max_connections", F_UNSIGNED, max_connections, 0, 1000000, 0),
    FIELD(NULL, "stall_ms", F_U32, stall_ms, 0, 600000, 0),
    FIELD(NULL, "drip_interval_ms", F_U32, drip_interval_ms, 1, 60000, 0),
    FIELD(NULL, "drip_bytes", F_U32, drip_bytes, 1, 1 << 20, 0),
    FIELD(NULL, "huge_header_bytes", F_U32, huge_header_bytes, 1024, 16 << 20, 0),
    FIELD(NULL, "hostile_stats", F_BOOL, hostile_stats, 0, 1, 0),
    FIELD(NULL, "close_after_reply", F_BOOL, close_after_reply, 0, 1, 0),
    FIELD("kv", "max_bytes", F_U64, kv_max_bytes, 0, 64.0 * (1ull << 30), 0),
    FIELD("kv", "max_object_bytes", F_U64, kv_max_object_bytes, 0, 1ull << 30, 0),
    FIELD("kv", "write_ms", F_MS_AS_US, kv_write_us, 0, 60000, 0),
    FIELD("kv", "read_us_per_kib", F_U32, kv_read_us_per_kib, 0, 1000000, 0),
    FIELD("multipart", "backpressure_siblings", F_U32, mp_backpressure_siblings, 0, 1000000, 0),
    FIELD("multipart", "backpressure_ms", F_U32, mp_backpressure_ms, 1, 60000, 0),
    FIELD("pause", "every_ms", F_U32, pause_every_ms, 0, 3600000, 0),
    FIELD("pause", "for_ms", F_U32, pause_for_ms, 0, 3600000, 0),
    FIELD("contention", "sigma", F_DOUBLE, contention_sigma, 0, 1, 0),
    FIELD("contention", "kappa", F_DOUBLE, contention_kappa, 0, 1, 0),
};

#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

/* The JSON text of v for a message, escaped and cut short. */
static const char *shown(const json_t *v, char *buf, size_t cap)
{
    char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

    /* jansson leaves DEL and every non-ASCII code point (C1, bidi) raw. */
    msg_show(text ? text : "?", buf, cap);
    free(text);
    return buf;
}

/* A key or a name from the document, escaped and cut short. */
static const char *named(const char *name, char *buf, size_t cap)
{
    msg_show(name, buf, cap);
    return buf;
}

static int number(const json_t *v, const char *where, double lo, double hi, int integral,
                  double *out, char *err, size_t err_len)
{
    char buf[SHOWN_MAX];
    double x;

    if (!json_is_number(v)) {
        msg_set(err, err_len, "%s: expected a number %g..%g, got %s", where, lo, hi,
                shown(v, buf, sizeof(buf)));
        return -EINVAL;
    }
    x = json_number_value(v);
    if (!(x >= lo && x <= hi) || (integral && x != floor(x))) {
        msg_set(err, err_len, "%s: expected %s %g..%g, got %s", where,
                integral ? "an integer" : "a number", lo, hi, shown(v, buf, sizeof(buf)));
        return -EINVAL;
    }
    *out = x;
    return 0;
}

static int set_field(struct settings *s, const struct field *f, const json_t *v, int at_start,
                     char *err, size_t err_len)
{
    char where[64];
    char *p = (char *)s + f->offset;
    double x;

    snprintf(where, sizeof(where), "%s%s%s", f->section ? f->section : "", f->section ? "." : "",
             f->key);
    if (f->start_only && !at_start) {
        msg_set(err, err_len, "%s: can only be set at start (in --config)", where);
        return -EINVAL;
    }
    if (f->kind == F_BOOL) {
        if (!json_is_boolean(v)) {
            msg_set(err, err_len, "%s: expected true or false", where);
            return -EINVAL;
        }
        *(int *)p = json_is_true(v);
        return 0;
    }
    if (number(v, where, f->min, f->max, f->kind != F_MS_AS_US && f->kind != F_DOUBLE, &x, err,
               err_len))
        return -EINVAL;
    switch (f->kind) {
    case F_UNSIGNED: *(unsigned *)p = (unsigned)x; break;
    case F_U32: *(uint32_t *)p = (uint32_t)x; break;
    case F_U64: *(uint64_t *)p = (uint64_t)x; break;
    case F_MS_AS_US: *(uint32_t *)p = (uint32_t)llround(x * 1000.0); break;
    case F_DOUBLE: memcpy(p, &x, sizeof(x)); break;
    case F_BOOL: break;
    }
    return 0;
}

static const struct field *find_field(const char *section, const char *key)
{
    for (size_t i = 0; i < N_FIELDS; i++) {
        const struct field *f = &fields[i];
        if (((!f->section && !section) ||
             (f->section && section && !strcmp(f->section, section))) &&
            strcmp(f->key, key) == 0)
            return f;
    }
    return NULL;
}

static int apply_section(struct settings *s, const char *section, const json_t *obj, int at_start,
                         char *err, size_t err_len)
{
    char buf[SHOWN_MAX];
    const char *key;
    json_t *v;

    if (!json_is_object(obj)) {
        msg_set(err, err_len, "%s: expected an object", section);
        return -EINVAL;
    }
    json_object_foreach((json_t *)obj, key, v)
    {
        const struct field *f = find_field(section, key);
        if (!f) {
            msg_set(err, err_len, "%s.%s: unknown key", section, named(key, buf, sizeof(buf)));
            return -EINVAL;
        }
        if (set_field(s, f, v, at_start, err, err_len))
            return -EINVAL;
    }
    return 0;
}

static int apply_service(struct settings *s, const json_t *obj, char *err, size_t err_len)
{
    const char *key;
    json_t *v;

    if (!json_is_object(obj)) {
        msg_set(err, err_len, "service_ms: expected an object of endpoint: milliseconds");
        return -EINVAL;
    }
    json_object_foreach((json_t *)obj, key, v)
    {
        char where[96], buf[SHOWN_MAX];
        double x;
        int e;

        for (e = 0; e < EP_COUNT && strcmp(key, endpoint_names[e]) != 0; e++)
            ;
        if (e == EP_COUNT) {
            msg_set(
                err, err_len,
                "service_ms.%s: unknown endpoint (expected bytes, delay, status, echo, files, kv, mp, stats, metrics, control or other)",
                named(key, buf, sizeof(buf)));
            return -EINVAL;
        }
        snprintf(where, sizeof(where), "service_ms.%s", key);
        if (number(v, where, 0, 60000, 0, &x, err, err_len))
            return -EINVAL;
        s->service_us[e] = (uint32_t)llround(x * 1000.0);
    }
    return 0;
}

static int apply_faults(struct settings *s, const json_t *obj, char *err, size_t err_len)
{
    const char *key;
    json_t *v;
    double sum = 0;

    if (!json_is_object(obj)) {
        msg_set(err, err_len, "faults: expected an object of fault: probability");
        return -EINVAL;
    }
    json_object_foreach((json_t *)obj, key, v)
    {
        char where[96], buf[SHOWN_MAX];
        int f = settings_fault_by_name(key);

        if (f <= FAULT_NONE) {
            msg_set(
                err, err_len,
                "faults.%s: unknown fault (expected reset, close_mid_body, stall, drip, malformed_status, huge_header or hostile_header)",
                named(key, buf, sizeof(buf)));
            return -EINVAL;
        }
        snprintf(where, sizeof(where), "faults.%s", key);
        if (number(v, where, 0, 1, 0, &s->fault_p[f], err, err_len))
            return -EINVAL;
    }
    for (int f = 1; f < FAULT_COUNT; f++)
        sum += s->fault_p[f];
    if (sum > 1.0 + 1e-9) {
        msg_set(err, err_len, "faults: the probabilities add up to %g, more than 1", sum);
        return -EINVAL;
    }
    return 0;
}

static int apply_force(struct settings *s, const json_t *obj, char *err, size_t err_len)
{
    const json_t *name = json_object_get(obj, "fault");
    const json_t *count = json_object_get(obj, "count");
    char buf[SHOWN_MAX];
    double n = 1;
    int f;

    if (!json_is_object(obj) || !json_is_string(name) || json_object_size(obj) > 2 ||
        (json_object_size(obj) == 2 && !count)) {
        msg_set(err, err_len, "force: expected {\"fault\": NAME, \"count\": N}");
        return -EINVAL;
    }
    f = settings_fault_by_name(json_string_value(name));
    if (f < 0) {
        msg_set(err, err_len, "force.fault: unknown fault \"%s\"",
                named(json_string_value(name), buf, sizeof(buf)));
        return -EINVAL;
    }
    if (count && number(count, "force.count", 0, 1000000, 1, &n, err, err_len))
        return -EINVAL;
    s->force_fault = (enum fault)f;
    s->force_count = f == FAULT_NONE ? 0 : (uint32_t)n;
    s->force_set = 1;
    return 0;
}

static int apply_key(struct settings *s, const char *key, const json_t *v, int at_start, char *err,
                     size_t err_len)
{
    const struct field *f;
    char buf[SHOWN_MAX];
    double x;

    if (!strcmp(key, "kv") || !strcmp(key, "multipart") || !strcmp(key, "contention"))
        return apply_section(s, key, v, at_start, err, err_len);
    if (!strcmp(key, "pause")) {
        if (apply_section(s, key, v, at_start, err, err_len))
            return -EINVAL;
        if (s->pause_every_ms && s->pause_for_ms >= s->pause_every_ms) {
            msg_set(err, err_len,
                    "pause: for_ms (%u) must be below every_ms (%u), or the server never runs",
                    s->pause_for_ms, s->pause_every_ms);
            return -EINVAL;
        }
        return 0;
    }
    if (!strcmp(key, "service_ms"))
        return apply_service(s, v, err, err_len);
    if (!strcmp(key, "faults"))
        return apply_faults(s, v, err, err_len);
    if (!strcmp(key, "force"))
        return apply_force(s, v, err, err_len);
    if (!strcmp(key, "seed")) {
        if (number(v, "seed", 0, (double)SETTINGS_SEED_MAX, 1, &x, err, err_len))
            return -EINVAL;
        s->seed = (uint64_t)x;
        s->seed_set = 1;
        return 0;
    }
    if (!strcmp(key, "files_dir")) {
        if (!at_start) {
            msg_set(err, err_len, "files_dir: can only be set at start (in --config)");
            return -EINVAL;
        }
        if (!json_is_string(v) || json_string_length(v) >= SETTINGS_FILES_DIR_MAX ||
            strlen(json_string_value(v)) != json_string_length(v)) {
            msg_set(err, err_len, "files_dir: expected a directory path shorter than %d bytes",
                    SETTINGS_FILES_DIR_MAX);
            return -EINVAL;
        }
        snprintf(s->files_dir, sizeof(s->files_dir), "%s", json_string_value(v));
        return 0;
    }
    f = find_field(NULL, key);
    if (!f) {
        msg_set(err, err_len, "%s: unknown key", named(key, buf, sizeof(buf)));
        return -EINVAL;
    }
    return set_field(s, f, v, at_start, err, err_len);
}

/* Nesting depth of the document, outside strings; stops counting past cap. */
static int depth_of(const char *text, size_t len, int cap)
{
    int depth = 0, max = 0, in_string = 0;

    for (size_t i = 0; i < len && max <= cap; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '{' || c == '[') {
            if (++depth > max)
                max = depth;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return max;
}

int settings_apply_json(struct settings *s, const char *text, size_t len, int at_start, char *err,
                        size_t err_len)
{
    struct settings next = *s;
    char buf[JSON_ERROR_TEXT_LENGTH];
    json_error_t jerr;
    const char *key;
    json_t *doc, *v;
    int rc = 0;

    if (len > SETTINGS_MAX_DOC_BYTES) {
        snprintf(err, err_len, "document of %zu bytes is larger than the %d-byte limit", len,
                 SETTINGS_MAX_DOC_BYTES);
        return -E2BIG;
    }
    if (depth_of(text, len, SETTINGS_MAX_DEPTH) > SETTINGS_MAX_DEPTH) {
        msg_set(err, err_len, "document nests deeper than %d levels", SETTINGS_MAX_DEPTH);
        return -EINVAL;
    }
    doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc) {
        /* jansson quotes the bad token, raw bytes and all. */
        msg_set(err, err_len, "line %d column %d: %s", jerr.line, jerr.column,
                named(jerr.text, buf, sizeof(buf)));
        return -EINVAL;
    }
    if (!json_is_object(doc)) {
        json_decref(doc);
        msg_set(err, err_len, "expected a JSON object at the top level");
        return -EINVAL;
    }
    next.force_count = 0;
    next.force_fault = FAULT_NONE;
    next.seed_set = 0;
    next.force_set = 0;
    json_object_foreach(doc, key, v)
    {
        rc = apply_key(&next, key, v, at_start, err, err_len);
        if (rc)
            break;
    }
    json_decref(doc);
    if (rc == 0)
        *s = next;
    return rc;
}

static json_t *ms(uint32_t us)
{
    return us % 1000 ? json_real(us / 1000.0) : json_integer(us / 1000);
}

char *settings_to_json(const struct settings *s)
{
    json_t *doc = json_object(), *svc = json_object(), *faults = json_object();
    char *text;

    for (int e = 0; e < EP_COUNT; e++)
        json_object_set_new(svc, endpoint_names[e], ms(s->service_us[e]));
    for (int f = 1; f < FAULT_COUNT; f++)
        json_object_set_new(faults, fault_names[f], json_real(s->fault_p[f]));
    json_object_set_new(doc, "threads", json_integer(s->threads));
    json_object_set_new(doc, "files_dir", json_string(s->files_dir));
    json_object_set_new(doc, "seed", json_integer((json_int_t)s->seed));
    json_object_set_new(doc, "workers", json_integer(s->workers));
    json_object_set_new(doc, "queue_max", json_integer(s->queue_max));
    json_object_set_new(doc, "max_connections", json_integer(s->max_connections));
    json_object_set_new(doc, "service_ms", svc);
    json_object_set_new(doc, "faults", faults);
    json_object_set_new(doc, "stall_ms", json_integer(s->stall_ms));
    json_object_set_new(doc, "drip_interval_ms", json_integer(s->drip_interval_ms));
    json_object_set_new(doc, "drip_bytes", json_integer(s->drip_bytes));
    json_object_set_new(doc, "huge_header_bytes", json_integer(s->huge_header_bytes));
    json_object_set_new(doc, "hostile_stats", json_boolean(s->hostile_stats));
    json_object_set_new(doc, "close_after_reply", json_boolean(s->close_after_reply));
    json_object_set_new(doc, "kv",
                        json_pack("{s:I, s:I, s:o, s:i}", "max_bytes", (json_int_t)s->kv_max_bytes,
                                  "max_object_bytes", (json_int_t)s->kv_max_object_bytes,
                                  "write_ms", ms(s->kv_write_us), "read_us_per_kib",
                                  (int)s->kv_read_us_per_kib));
    json_object_set_new(doc, "pause",
                        json_pack("{s:i, s:i}", "every_ms", (int)s->pause_every_ms, "for_ms",
                                  (int)s->pause_for_ms));
    json_object_set_new(
        doc, "contention",
        json_pack("{s:f, s:f}", "sigma", s->contention_sigma, "kappa", s->contention_kappa));
    json_object_set_new(doc, "multipart",
                        json_pack("{s:i, s:i}", "backpressure_siblings",
                                  (int)s->mp_backpressure_siblings, "backpressure_ms",
                                  (int)s->mp_backpressure_ms));
    text = json_dumps(doc, JSON_INDENT(2));
    json_decref(doc);
    return text;
}

uint64_t settings_pause_release_ns(const struct settings *s, uint64_t now_ns, uint64_t answer_ns)
{
    uint64_t every, len, k;

    if (!s->pause_every_ms || !s->pause_for_ms || s->pause_for_ms >= s->pause_every_ms)
        return answer_ns;
    every = (uint64_t)s->pause_every_ms * 1000000u;
    len = (uint64_t)s->pause_for_ms * 1000000u;
    /* Pause k spans [(k + 1) * every - len, (k + 1) * every); the first that
     * has not ended at now, then every later one the answer reaches into. */
    for (k = now_ns / every; (k + 1) * every - len <= answer_ns; k++) {
        if ((k + 1) * every > answer_ns)
            answer_ns = (k + 1) * every;
    }
    return answer_ns;
}
