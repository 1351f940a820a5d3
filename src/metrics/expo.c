#include "metrics/expo.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/hist.h"
#include "core/redact.h"
#include "core/sanitize.h"

const uint64_t expo_bounds_us[EXPO_BOUNDS] = {
    100,    250,    500,    1000,    2500,    5000,    10000,    25000,    50000,
    100000, 250000, 500000, 1000000, 2500000, 5000000, 10000000, 30000000, 60000000,
};

/* The same bounds in seconds, as the le label writes them. */
static const char *const bound_text[EXPO_BOUNDS] = {
    "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05",
    "0.1",    "0.25",    "0.5",    "1",     "2.5",    "5",     "10",   "30",    "60",
};

/* Adds h to l. A bucket of h (within 1/2048 of its values) goes to the
 * first bound at or above its lowest value. */
static void add_latency(struct expo_latency *l, const struct hist *h)
{
    size_t cursor = 0, b = 0;
    uint64_t low, width, n;

    while (hist_next_bucket(h, &cursor, &low, &width, &n)) {
        while (b < EXPO_BOUNDS && low > expo_bounds_us[b])
            b++;
        if (b < EXPO_BOUNDS)
            l->n[b] += n;
    }
    l->count += hist_count(h);
    l->sum_s += hist_mean(h) * (double)hist_count(h) / 1e6;
}

static void add_kind(struct expo_kind *e, const struct tick *t, const struct tick_kind *k,
                     struct hist *scratch)
{
    e->started += k->started;
    e->completed += k->completed;
    e->ok += k->ok;
    e->bytes_in += k->bytes_in;
    e->bytes_out += k->bytes_out;
    for (int c = 0; c < ERR__COUNT; c++)
        e->errors[c] += k->errors[c];
    if (k->hist_len > 0 && tick_get_hist(t, k, scratch) == 0)
        add_latency(&e->latency, scratch);
}

static void add_kinds(struct expo_state *s, const struct tick *t, struct hist *scratch)
{
    uint32_t n = t->n_kinds;

    if (n == 0) {
        int row = tick_name_row(s->kinds, sizeof(s->kinds[0]), &s->n_kinds, TICK_MAX_KINDS,
                                t->total.name);

        if (row >= 0)
            add_kind(&s->kinds[row], t, &t->total, scratch);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        int row = tick_name_row(s->kinds, sizeof(s->kinds[0]), &s->n_kinds, TICK_MAX_KINDS,
                                t->kinds[i].name);

        if (row >= 0)
            add_kind(&s->kinds[row], t, &t->kinds[i], scratch);
    }
}

static void add_probes(struct expo_state *s, const struct tick *t)
{
    for (uint32_t i = 0; i < t->n_probes; i++) {
        const struct tick_probe *p = &t->probes[i];
        int row =
            tick_name_row(s->probes, sizeof(s->probes[0]), &s->n_probes, TICK_MAX_PROBES, p->name);

        if (row < 0)
            continue;
        s->probes[row].has_value = p->has_value;
        s->probes[row].value = p->value;
        s->probes[row].alerting = p->alerting;
        s->probes[row].is_ok = p->state == PROBE_OK;
    }
}

void expo_add_tick(struct expo_state *s, const struct tick *t, struct hist *scratch)
{
    s->ticks++;
    s->is_open_model = t->model == LOAD_OPEN;
    s->target_concurrency = t->target_concurrency;
    s->actual_concurrency = t->actual_concurrency;
    s->target_rate_per_s = t->target_rate_per_s;
    s->in_flight = t->in_flight;
    s->connections = t->connections;
    s->connections_opened += t->connections_opened;
    for (int c = 0; c < RESEND__COUNT; c++)
        s->resent[c] += t->resent[c];
    add_kinds(s, t, scratch);
    if (t->failed.hist_len > 0 && tick_get_hist(t, &t->failed, scratch) == 0)
        add_latency(&s->failed, scratch);
    for (uint32_t i = 0; i < t->n_status; i++)
        tick_status_add(s->status, &s->n_status, &s->status_other, t->status[i].code,
                        t->status[i].count);
    s->status_other += t->status_other;
    add_probes(s, t);
}

const char *expo_label_value(const char *raw, size_t raw_cap, char *buf)
{
    char shown[EXPO_SHOWN_MAX];
    size_t o = 0;

    sanitize_display(raw, strnlen(raw, raw_cap), shown, sizeof(shown), 0);
    /* sanitize_display leaves no line feed and no invalid UTF-8; \ and "
     * remain to escape. Every byte at most doubles: buf always holds it. */
    for (const char *p = shown; *p; p++) {
        if (*p == '\\' || *p == '"')
            buf[o++] = '\\';
        buf[o++] = *p;
    }
    buf[o] = '\0';
    return buf;
}

void expo_set_run(struct expo_state *s, const char *id)
{
    char clean[EXPO_SHOWN_MAX];

    /* A session's name holds a time, a host and a pid; one given with
     * --record could hold anything, as could a host name. */
    redact_text(id, clean, sizeof(clean));
    expo_label_value(clean, sizeof(clean), s->run);
}

/* A sample value: C-locale %.17g, with the format's names for the
 * non-finite values. */
static void put_double(FILE *out, double v)
{
    if (isnan(v))
        fputs("NaN", out);
    else if (isinf(v))
        fputs(v > 0 ? "+Inf" : "-Inf", out);
    else
        fprintf(out, "%.17g", v);
}

static void family(FILE *out, const char *name, const char *type, const char *help)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label set without braces: run="ID" and a kind and its class. */
#define LABEL_MAX (2 * EXPO_LABEL_MAX + 64)

/* The label set of a sample of s: its run label (when set), then extra
 * ("" or labels without braces), into buf. Returns buf. */
static const char *label_set(const struct expo_state *s, const char *extra, char *buf, size_t cap)
{
    if (!s->run[0])
        snprintf(buf, cap, "%s", extra);
    else
        snprintf(buf, cap, "run=\"%s\"%s%s", s->run, extra[0] ? "," : "", extra);
    return buf;
}

/* The start of a sample line: its name and its labels, braced when there
 * are any. */
static void sample(FILE *out, const char *name, const char *suffix, const char *labels)
{
    fprintf(out, "%s%s%s%s%s ", name, suffix, labels[0] ? "{" : "", labels, labels[0] ? "}" : "");
}

static void put_u64(FILE *out, const char *name, const char *labels, uint64_t v)
{
    sample(out, name, "", labels);
    fprintf(out, "%" PRIu64 "\n", v);
}

/* The label set of kind k: run="ID",kind="NAME". */
static const char *kind_label(const struct expo_state *s, const struct expo_kind *k, char *buf,
                              size_t cap)
{
    char v[EXPO_LABEL_MAX], kind[EXPO_LABEL_MAX + 8];

    snprintf(kind, sizeof(kind), "kind=\"%s\"", expo_label_value(k->name, sizeof(k->name), v));
    return label_set(s, kind, buf, cap);
}

/* One counter family with a sample per kind, read at offset off of struct
 * expo_kind. */
static void kind_counter(FILE *out, const struct expo_state *s, const char *name, const char *help,
                         size_t off)
{
    char labels[LABEL_MAX];

    family(out, name, "counter", help);
    for (uint32_t i = 0; i < s->n_kinds; i++) {
        uint64_t v;

        memcpy(&v, (const char *)&s->kinds[i] + off, sizeof(v));
        put_u64(out, name, kind_label(s, &s->kinds[i], labels, sizeof(labels)), v);
    }
}

/* The samples of one histogram: cumulative buckets, +Inf, _sum, _count.
 * labels is "" or a label set without braces. */
static void histogram(FILE *out, const char *name, const char *labels, const struct expo_latency *l)
{
    const char *sep = labels[0] ? "," : "";
    uint64_t cum = 0;

    for (int b = 0; b < EXPO_BOUNDS; b++) {
        cum += l->n[b];
        fprintf(out, "%s_bucket{%s%sle=\"%s\"} %" PRIu64 "\n", name, labels, sep, bound_text[b],
                cum);
    }
    fprintf(out, "%s_bucket{%s%sle=\"+Inf\"} %" PRIu64 "\n", name, labels, sep, l->count);
    sample(out, name, "_sum", labels);
    put_double(out, l->sum_s);
    fputc('\n', out);
    sample(out, name, "_count", labels);
    fprintf(out, "%" PRIu64 "\n", l->count);
}

static void gauge(FILE *out, const struct expo_state *s, const char *name, const char *help,
                  double v)
{
    char labels[LABEL_MAX];

    family(out, name, "gauge", help);
    sample(out, name, "", label_set(s, "", labels, sizeof(labels)));
    put_double(out, v);
    fputc('\n', out);
}

static void render_errors(const struct expo_state *s, FILE *out)
{
    char labels[LABEL_MAX];

    family(out, "brink_request_errors_total", "counter",
           "Failed requests, by request kind and error class.");
    for (uint32_t i = 0; i < s->n_kinds; i++) {
        kind_label(s, &s->kinds[i], labels, sizeof(labels));
        for (int c = 0; c < ERR__COUNT; c++)
            fprintf(out, "brink_request_errors_total{%s,class=\"%s\"} %" PRIu64 "\n", labels,
                    errclass_name((enum errclass)c), s->kinds[i].errors[c]);
    }
}

static void render_requests(const struct expo_state *s, FILE *out)
{
    char labels[LABEL_MAX], extra[64];

    kind_counter(out, s, "brink_requests_started_total", "Requests started, by request kind.",
                 offsetof(struct expo_kind, started));
    kind_counter(out, s, "brink_requests_total",
                 "Requests completed with any outcome, by request kind.",
                 offsetof(struct expo_kind, completed));
    kind_counter(out, s, "brink_requests_ok_total",
                 "Requests completed without an error class, by request kind.",
                 offsetof(struct expo_kind, ok));
    kind_counter(out, s, "brink_response_bytes_total",
                 "Response bytes received (headers and body), by request kind.",
                 offsetof(struct expo_kind, bytes_in));
    kind_counter(out, s, "brink_request_bytes_total", "Request bytes sent, by request kind.",
                 offsetof(struct expo_kind, bytes_out));
    render_errors(s, out);
    family(out, "brink_requests_resent_total", "counter",
           "Requests sent again, by cause (each counted once in brink_requests_total).");
    for (int c = 0; c < RESEND__COUNT; c++) {
        snprintf(extra, sizeof(extra), "cause=\"%s\"", resend_cause_name((enum resend_cause)c));
        put_u64(out, "brink_requests_resent_total", label_set(s, extra, labels, sizeof(labels)),
                s->resent[c]);
    }
    family(out, "brink_responses_total", "counter",
           "HTTP responses, by status code (\"other\" past the codes kept).");
    for (uint32_t i = 0; i < s->n_status; i++) {
        snprintf(extra, sizeof(extra), "code=\"%u\"", s->status[i].code);
        put_u64(out, "brink_responses_total", label_set(s, extra, labels, sizeof(labels)),
                s->status[i].count);
    }
    put_u64(out, "brink_responses_total", label_set(s, "code=\"other\"", labels, sizeof(labels)),
            s->status_other);
}

static void render_latency(const struct expo_state *s, FILE *out)
{
    char labels[LABEL_MAX];

    family(out, "brink_request_duration_seconds", "histogram",
           "Latency of successful requests, by request kind (open model: from the intended "
           "start).");
    for (uint32_t i = 0; i < s->n_kinds; i++)
        histogram(out, "brink_request_duration_seconds",
                  kind_label(s, &s->kinds[i], labels, sizeof(labels)), &s->kinds[i].latency);
    family(out, "brink_failed_request_duration_seconds", "histogram",
           "Latency of failed requests, all kinds together.");
    histogram(out, "brink_failed_request_duration_seconds",
              label_set(s, "", labels, sizeof(labels)), &s->failed);
}

/* The label set of probe p: run="ID",probe="NAME". */
static const char *probe_label(const struct expo_state *s, const struct expo_probe *p, char *buf,
                               size_t cap)
{
    char v[EXPO_LABEL_MAX], probe[EXPO_LABEL_MAX + 16];

    snprintf(probe, sizeof(probe), "probe=\"%s\"", expo_label_value(p->name, sizeof(p->name), v));
    return label_set(s, probe, buf, cap);
}

static void render_probes(const struct expo_state *s, FILE *out)
{
    char labels[LABEL_MAX];

    family(out, "brink_probe_value", "gauge",
           "The latest value of each server counter brink samples (a counter as its rate per "
           "second).");
    for (uint32_t i = 0; i < s->n_probes; i++) {
        const struct expo_probe *p = &s->probes[i];

        if (!p->has_value)
            continue;
        sample(out, "brink_probe_value", "", probe_label(s, p, labels, sizeof(labels)));
        put_double(out, p->value);
        fputc('\n', out);
    }
    family(out, "brink_probe_ok", "gauge",
           "1 when the probe's last sample succeeded and is fresh.");
    for (uint32_t i = 0; i < s->n_probes; i++)
        put_u64(out, "brink_probe_ok", probe_label(s, &s->probes[i], labels, sizeof(labels)),
                s->probes[i].is_ok ? 1 : 0);
    family(out, "brink_probe_alerting", "gauge", "1 while the probe's alert condition holds.");
    for (uint32_t i = 0; i < s->n_probes; i++)
        put_u64(out, "brink_probe_alerting", probe_label(s, &s->probes[i], labels, sizeof(labels)),
                s->probes[i].alerting ? 1 : 0);
}

int expo_render(const struct expo_state *s, FILE *out)
{
    char labels[LABEL_MAX];

    label_set(s, "", labels, sizeof(labels));
    family(out, "brink_ticks_total", "counter", "Reporting intervals (ticks) of the run so far.");
    put_u64(out, "brink_ticks_total", labels, s->ticks);
    render_requests(s, out);
    render_latency(s, out);
    gauge(out, s, "brink_in_flight", "Requests in flight at the end of the last tick.",
          s->in_flight);
    gauge(out, s, "brink_target_concurrency",
          "Virtual users the operator or the plan asked for (closed model).",
          s->target_concurrency);
    gauge(out, s, "brink_virtual_users", "Virtual users active at the end of the last tick.",
          s->actual_concurrency);
    gauge(out, s, "brink_target_rate", "Requests per second asked for (open model; 0 when closed).",
          s->is_open_model ? s->target_rate_per_s : 0.0);
    gauge(out, s, "brink_open_model", "1 under the open model (a fixed arrival rate), 0 closed.",
          s->is_open_model);
    gauge(out, s, "brink_connections", "Connections open at the end of the last tick.",
          s->connections);
    family(out, "brink_connections_opened_total", "counter", "Connections begun.");
    put_u64(out, "brink_connections_opened_total", labels, s->connections_opened);
    render_probes(s, out);
    return ferror(out) ? -EIO : 0;
}
