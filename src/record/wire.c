/*
 * The agent protocol's lines (wire.h, docs/agents.md).
 */
#include "record/wire.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base64.h"
#include "core/msg.h"
#include "core/tick.h"
#include "core/xalloc.h"
#include "record/internal.h"
#include "record/record.h"

static const char *const type_names[WIRE__COUNT] = {
    [WIRE_HELLO] = "hello", [WIRE_CONFIG] = "config", [WIRE_READY] = "ready",
    [WIRE_START] = "start", [WIRE_TICK] = "tick",     [WIRE_COMMAND] = "command",
    [WIRE_PING] = "ping",   [WIRE_PONG] = "pong",     [WIRE_ERROR] = "error",
};

const char *wire_type_name(enum wire_type t)
{
    return (unsigned)t < WIRE__COUNT ? type_names[t] : "?";
}

static json_t *str_or_empty(const char *s)
{
    return json_string(s ? s : "");
}

static int put_config(json_t *o, const struct wire_msg *m)
{
    json_t *files = json_array(), *ov = json_array();
    int bad = !files || !ov;

    bad |= json_object_set_new(o, "name", str_or_empty(m->name));
    bad |= json_object_set_new(o, "text", str_or_empty(m->text));
    bad |= json_object_set_new(o, "cwd", str_or_empty(m->cwd));
    for (uint32_t i = 0; i < m->n_files && !bad; i++) {
        json_t *f = json_object();
        char *b64 = base64_encode_new(m->files[i].data, m->files[i].len);

        bad |= !f;
        bad |= json_object_set_new(f, "path", str_or_empty(m->files[i].path));
        bad |= json_object_set_new(f, "data", json_string(b64));
        bad |= json_array_append_new(files, f);
        free(b64);
    }
    for (uint32_t i = 0; i < m->n_overrides && !bad; i++) {
        const struct wire_override *w = &m->overrides[i];

        bad |=
            json_array_append_new(ov, json_pack("[ssss]", w->flag, w->section, w->key, w->value));
    }
    bad |= json_object_set_new(o, "files", files);
    bad |= json_object_set_new(o, "overrides", ov);
    bad |= json_object_set_new(o, "seed", record__json_count(m->seed));
    return bad;
}

char *wire_encode(const struct wire_msg *m, size_t *len)
{
    json_t *o;
    char *text, *line;
    int bad = 0;

    if (m->type == WIRE_TICK) {
        o = record__tick_to_json(m->tick);
        if (!o)
            return NULL;
    } else {
        o = json_object();
        if (!o)
            xalloc_die("wire");
        bad |= json_object_set_new(o, "type", json_string(wire_type_name(m->type)));
    }
    switch (m->type) {
    case WIRE_HELLO:
        bad |= json_object_set_new(o, "protocol", json_integer(m->protocol));
        bad |= json_object_set_new(o, "brink", json_string(m->brink));
        break;
    case WIRE_CONFIG: bad |= put_config(o, m); break;
    case WIRE_START: bad |= json_object_set_new(o, "at_ns", record__json_count(m->at_ns)); break;
    case WIRE_COMMAND:
        bad |= json_object_set_new(o, "kind", json_string(cmd_kind_name(m->cmd.kind)));
        bad |= json_object_set_new(o, "n", json_integer(m->cmd.n));
        if (m->cmd.kind == CMD_SET_RATE)
            bad |= json_object_set_new(o, "rate", json_real(m->cmd.rate_per_s));
        if (m->cmd.note[0])
            bad |= json_object_set_new(o, "note", json_string(m->cmd.note));
        break;
    case WIRE_PONG:
        /* the ping's time, echoed, and the agent's */
        bad |= json_object_set_new(o, "peer_ns", record__json_count(m->peer_ns));
        bad |= json_object_set_new(o, "t_ns", record__json_count(m->t_ns));
        break;
    case WIRE_PING: bad |= json_object_set_new(o, "t_ns", record__json_count(m->t_ns)); break;
    case WIRE_ERROR: bad |= json_object_set_new(o, "text", str_or_empty(m->text)); break;
    case WIRE_READY:
    case WIRE_TICK:
    case WIRE__COUNT: break;
    }
    if (bad) {
        json_decref(o);
        xalloc_die("wire");
    }
    text = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(o);
    if (!text)
        xalloc_die("wire");
    *len = strlen(text) + 1;
    if (m->type == WIRE_TICK && *len > RECORD_LINE_MAX) {
        free(text);
        return NULL;
    }
    line = xmalloc(*len + 1);
    memcpy(line, text, *len - 1);
    line[*len - 1] = '\n';
    line[*len] = '\0';
    free(text);
    return line;
}

static int fail(char *why, size_t why_len, const char *type, const char *field, const char *what)
{
    msg_set(why, why_len, "%s: %s: %s", type, field, what);
    return -EINVAL;
}

static int get_u64(json_t *o, const char *key, uint64_t *out)
{
    json_t *v = json_object_get(o, key);

    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return -EINVAL;
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static char *dup_string(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s ? xstrdup(s) : NULL;
}

static int get_files(json_t *a, struct wire_msg *m, char *why, size_t why_len)
{
    size_t i;
    json_t *v;

    if (!json_is_array(a) || json_array_size(a) > WIRE_MAX_FILES)
        return fail(why, why_len, "config", "files", "expected an array of at most 64 files");
    m->files = xcalloc(json_array_size(a) + 1, sizeof(*m->files));
    json_array_foreach(a, i, v)
    {
        struct wire_file *f = &m->files[i];
        const char *data = json_string_value(json_object_get(v, "data"));
        const char *path = json_string_value(json_object_get(v, "path"));
        size_t n = data ? strlen(data) : 0;
        long got;

        if (!path || path[0] != '/' || !data)
            return fail(why, why_len, "config", "files", "expected {path (absolute), data}");
        f->path = xstrdup(path);
        f->data = xmalloc(n / 4 * 3 + 3);
        m->n_files = (uint32_t)i + 1;
        got = base64_decode(data, n, f->data, 0);
        if (got < 0)
            return fail(why, why_len, "config", "files", "data is not base64");
        f->len = (size_t)got;
    }
    return 0;
}

static int get_overrides(json_t *a, struct wire_msg *m, char *why, size_t why_len)
{
    size_t i;
    json_t *v;

    if (!json_is_array(a) || json_array_size(a) > WIRE_MAX_OVERRIDES)
        return fail(why, why_len, "config", "overrides", "expected an array of at most 128");
    m->overrides = xcalloc(json_array_size(a) + 1, sizeof(*m->overrides));
    json_array_foreach(a, i, v)
    {
        const char *s[4];

        for (size_t k = 0; k < 4; k++) {
            s[k] = json_string_value(json_array_get(v, k));
            if (!s[k])
                return fail(why, why_len, "config", "overrides",
                            "expected [flag, section, key, value] strings");
        }
        m->overrides[i] =
            (struct wire_override){xstrdup(s[0]), xstrdup(s[1]), xstrdup(s[2]), xstrdup(s[3])};
        m->n_overrides = (uint32_t)i + 1;
    }
    return 0;
}

static int get_config(json_t *o, struct wire_msg *m, char *why, size_t why_len)
{
    m->name = dup_string(o, "name");
    m->text = dup_string(o, "text");
    m->cwd = dup_string(o, "cwd");
    if (!m->name || !m->text || !m->cwd)
        return fail(why, why_len, "config", "name, text, cwd", "expected strings");
    if (get_u64(o, "seed", &m->seed) != 0)
        return fail(why, why_len, "config", "seed", "expected a non-negative integer");
    if (get_files(json_object_get(o, "files"), m, why, why_len) != 0)
        return -EINVAL;
    return get_overrides(json_object_get(o, "overrides"), m, why, why_len);
}

static int get_command(json_t *o, struct wire_msg *m, char *why, size_t why_len)
{
    const char *kind = json_string_value(json_object_get(o, "kind"));
    const char *note = json_string_value(json_object_get(o, "note"));
    json_t *n = json_object_get(o, "n"), *rate = json_object_get(o, "rate");
    int k;

    for (k = 0; k < CMD__COUNT; k++) {
        if (kind && strcmp(kind, cmd_kind_name((enum cmd_kind)k)) == 0)
            break;
    }
    if (k == CMD__COUNT)
        return fail(why, why_len, "command", "kind", "unknown command");
    if (!json_is_integer(n))
        return fail(why, why_len, "command", "n", "expected an integer");
    m->cmd.kind = (enum cmd_kind)k;
    m->cmd.n = json_integer_value(n);
    if (k == CMD_SET_RATE) {
        m->cmd.rate_per_s = json_number_value(rate);
        if (!json_is_number(rate) || !(m->cmd.rate_per_s > 0) ||
            m->cmd.rate_per_s > COMMAND_RATE_MAX)
            return fail(why, why_len, "command", "rate", "expected a positive rate");
    }
    if (note)
        snprintf(m->cmd.note, sizeof(m->cmd.note), "%s", note);
    return 0;
}

int wire_decode(const char *line, size_t len, struct wire_msg *m, char *why, size_t why_len)
{
    json_error_t jerr;
    json_t *o;
    const char *type;
    int t, rc = 0;

    memset(m, 0, sizeof(*m));
    o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!json_is_object(o)) {
        json_decref(o);
        msg_set(why, why_len, "not a JSON object (%s)", o ? "another value" : jerr.text);
        return -EINVAL;
    }
    type = json_string_value(json_object_get(o, "type"));
    for (t = 0; t < WIRE__COUNT; t++) {
        if (type && strcmp(type, type_names[t]) == 0)
            break;
    }
    if (t == WIRE__COUNT) {
        json_decref(o);
        msg_set(why, why_len,
                "unknown message type (expected hello, config, ready, start, tick, "
                "command, ping, pong or error)");
        return -EINVAL;
    }
    m->type = (enum wire_type)t;
    switch (m->type) {
    case WIRE_HELLO: {
        uint64_t p = 0;
        const char *b = json_string_value(json_object_get(o, "brink"));

        if (get_u64(o, "protocol", &p) != 0 || p > 1000000)
            rc = fail(why, why_len, "hello", "protocol", "expected a version number");
        m->protocol = (unsigned)p;
        snprintf(m->brink, sizeof(m->brink), "%s", b ? b : "");
        break;
    }
    case WIRE_CONFIG: rc = get_config(o, m, why, why_len); break;
    case WIRE_START:
        if (get_u64(o, "at_ns", &m->at_ns) != 0)
            rc = fail(why, why_len, "start", "at_ns", "expected a time in ns");
        break;
    case WIRE_TICK: rc = record__tick_from_json(o, &m->tick, why, why_len); break;
    case WIRE_COMMAND: rc = get_command(o, m, why, why_len); break;
    case WIRE_PONG:
    case WIRE_PING:
        if (m->type == WIRE_PONG && get_u64(o, "peer_ns", &m->peer_ns) != 0)
            rc = fail(why, why_len, "pong", "peer_ns", "expected a time in ns");
        else if (get_u64(o, "t_ns", &m->t_ns) != 0)
            rc = fail(why, why_len, wire_type_name(m->type), "t_ns", "expected a time in ns");
        break;
    case WIRE_ERROR:
        m->text = dup_string(o, "text");
        if (!m->text)
            rc = fail(why, why_len, "error", "text", "expected a string");
        break;
    case WIRE_READY:
    case WIRE__COUNT: break;
    }
    json_decref(o);
    if (rc != 0)
        wire_msg_free(m);
    return rc;
}

void wire_msg_free(struct wire_msg *m)
{
    for (uint32_t i = 0; i < m->n_files; i++) {
        free(m->files[i].path);
        free(m->files[i].data);
    }
    free(m->files);
    for (uint32_t i = 0; i < m->n_overrides; i++) {
        free(m->overrides[i].flag);
        free(m->overrides[i].section);
        free(m->overrides[i].key);
        free(m->overrides[i].value);
    }
    free(m->overrides);
    free(m->name);
    free(m->text);
    free(m->cwd);
    tick_free(m->tick);
    memset(m, 0, sizeof(*m));
}

int wire_clock_add(struct wire_clock *c, uint64_t sent_ns, uint64_t peer_ns, uint64_t back_ns)
{
    uint64_t rtt;

    if (back_ns < sent_ns)
        return -EINVAL;
    rtt = back_ns - sent_ns;
    c->samples++;
    if (c->has_sample && rtt >= c->best_rtt_ns)
        return 0;
    c->has_sample = 1;
    c->best_rtt_ns = rtt;
    /* peer - (sent + back) / 2, without overflowing the sum. */
    c->offset_ns = (int64_t)(peer_ns - sent_ns) - (int64_t)(rtt / 2);
    return 0;
}

uint64_t wire_clock_to_peer(const struct wire_clock *c, uint64_t t_ns)
{
    return (uint64_t)((int64_t)t_ns + c->offset_ns);
}
