/*
 * stats: the figures brink target shows about itself. GET /stats is JSON
 * in the style of Riak's /stats (node_get_fsm_siblings_100 and _mean are
 * the largest and mean sibling counts seen by reads over the last 60 s),
 * GET /metrics the same figures as Prometheus text, and GET /_control the
 * ground truth: what the target did, for tests to compare with what a
 * client saw.
 */
#include "target/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/clock.h"
#include "core/xalloc.h"

void target__sibwin_init(struct sibwin *w)
{
    memset(w, 0, sizeof(*w));
    pthread_mutex_init(&w->lock, NULL);
}

void target__sibwin_destroy(struct sibwin *w)
{
    pthread_mutex_destroy(&w->lock);
}

void target__sibwin_record(struct sibwin *w, uint64_t now_s, uint64_t siblings)
{
    size_t i = now_s % SIBWIN_SECONDS;

    pthread_mutex_lock(&w->lock);
    if (w->sec[i] != now_s) {
        w->sec[i] = now_s;
        w->count[i] = w->sum[i] = w->max[i] = 0;
    }
    w->count[i]++;
    w->sum[i] += siblings;
    if (siblings > w->max[i])
        w->max[i] = siblings;
    pthread_mutex_unlock(&w->lock);
}

void target__sibwin_read(struct sibwin *w, uint64_t now_s, uint64_t *max, double *mean)
{
    uint64_t count = 0, sum = 0;

    *max = 0;
    pthread_mutex_lock(&w->lock);
    for (size_t i = 0; i < SIBWIN_SECONDS; i++) {
        if (w->count[i] == 0 || w->sec[i] + SIBWIN_SECONDS <= now_s || w->sec[i] > now_s)
            continue;
        count += w->count[i];
        sum += w->sum[i];
        if (w->max[i] > *max)
            *max = w->max[i];
    }
    pthread_mutex_unlock(&w->lock);
    *mean = count ? (double)sum / (double)count : 0.0;
}

/* One figure of /stats and /metrics. */
struct figure {
    const char *name; /* the /stats key; /metrics adds the brink_target_ prefix */
    const char *help;
    int is_counter;
    double value;
};

#define N_FIGURES 21

static size_t collect(struct target *t, struct figure *f)
{
    struct target_stats *st = &t->stats;
    struct kv_usage u;
    struct settings s;
    uint64_t sib_max;
    double sib_mean;
    size_t n = 0;

#define FIG(nm, hp, ctr, v) f[n++] = (struct figure){nm, hp, ctr, (double)(v)}
    target__sibwin_read(&t->sibwin, clock_now_ns() / 1000000000u, &sib_max, &sib_mean);
    kv_get_usage(t->kv, &u);
    target__settings_get(t, &s);
    FIG("node_get_fsm_siblings_100", "Largest sibling count seen by a read in the last 60 s.", 0,
        sib_max);
    FIG("node_get_fsm_siblings_mean", "Mean sibling count seen by reads in the last 60 s.", 0,
        sib_mean);
    FIG("node_gets_total", "Reads of the key-value store.", 1, atomic_load(&st->node_gets));
    FIG("node_puts_total", "Writes to the key-value store (multipart parts and manifests).", 1,
        atomic_load(&st->node_puts));
    FIG("active_connections", "Open connections.", 0, atomic_load(&st->active_connections));
    FIG("connections_accepted_total", "Connections accepted.", 1,
        atomic_load(&st->connections_accepted));
    FIG("requests_total", "Requests received.", 1, atomic_load(&st->requests_total));
    FIG("responses_2xx_total", "Responses with a 2xx status.", 1,
        atomic_load(&st->responses_by_class[2]));
    FIG("responses_4xx_total", "Responses with a 4xx status.", 1,
        atomic_load(&st->responses_by_class[4]));
    FIG("responses_5xx_total", "Responses with a 5xx status.", 1,
        atomic_load(&st->responses_by_class[5]));
    FIG("responses_503_total", "Responses 503 because the queue was full.", 1,
        atomic_load(&st->responses_503));
    FIG("resets_sent_total", "Connections closed with a reset (RST).", 1,
        atomic_load(&st->resets_sent));
    FIG("closed_early_total", "Responses cut short by closing the connection.", 1,
        atomic_load(&st->closed_early));
    FIG("stalled_total", "Responses stalled after their headers.", 1, atomic_load(&st->stalled));
    FIG("client_aborts_total",
        "Requests whose client closed the connection before the whole reply was sent.", 1,
        atomic_load(&st->client_aborts));
    FIG("queue_depth", "Requests waiting for a simulated worker.", 0,
        target__capacity_queue(t->cap, s.workers));
    FIG("bytes_sent_total", "Body and raw bytes handed to sockets.", 1,
        atomic_load(&st->bytes_sent));
    FIG("kv_bytes", "Bytes the key-value store holds, overhead included.", 0, u.bytes);
    FIG("kv_max_bytes", "Cap of the key-value store.", 0, s.kv_max_bytes);
    FIG("kv_keys", "Keys in the key-value store.", 0, u.keys);
    FIG("kv_siblings", "Siblings in the key-value store.", 0, u.siblings);
#undef FIG
    return n;
}

static json_t *number(double v)
{
    return v == (double)(long long)v ? json_integer((json_int_t)v) : json_real(v);
}

char *target__stats_json(struct target *t, int pretty)
{
    struct figure f[N_FIGURES];
    size_t n = collect(t, f);
    json_t *doc = json_object();
    struct settings s;
    char *text;

    for (size_t i = 0; i < n; i++)
        json_object_set_new(doc, f[i].name, number(f[i].value));
    target__settings_get(t, &s);
    if (s.hostile_stats)
        json_object_set_new(doc, faults_hostile, json_integer(1));
    text = json_dumps(doc, pretty ? JSON_INDENT(2) : JSON_COMPACT);
    json_decref(doc);
    return text;
}

/* Appends to a growing buffer. */
struct buf {
    char *p;
    size_t len, cap;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len)
            break;
        b->cap = b->cap * 2 + (size_t)(n > 0 ? n : 0);
        b->p = xrealloc(b->p, b->cap);
    }
    b->len += (size_t)n;
}

char *target__stats_metrics(struct target *t, size_t *len)
{
    struct figure f[N_FIGURES];
    size_t n = collect(t, f);
    struct buf b = {xmalloc(4096), 0, 4096};
    struct settings s;

    b.p[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        put(&b, "# HELP brink_target_%s %s\n# TYPE brink_target_%s %s\nbrink_target_%s %.17g\n",
            f[i].name, f[i].help, f[i].name, f[i].is_counter ? "counter" : "gauge", f[i].name,
            f[i].value);
    }
    put(&b, "# HELP brink_target_requests_by_endpoint_total Requests received, by endpoint.\n"
            "# TYPE brink_target_requests_by_endpoint_total counter\n");
    for (int e = 0; e < EP_COUNT; e++)
        put(&b, "brink_target_requests_by_endpoint_total{endpoint=\"%s\"} %llu\n",
            settings_endpoint_name(e),
            (unsigned long long)atomic_load(&t->stats.requests_by_ep[e]));
    target__settings_get(t, &s);
    if (s.hostile_stats) {
        /* Label values may hold any UTF-8 but backslash, quote and newline. */
        put(&b, "# HELP brink_target_hostile_info A label with terminal escape sequences.\n"
                "# TYPE brink_target_hostile_info gauge\nbrink_target_hostile_info{name=\"");
        for (const char *p = faults_hostile; *p; p++) {
            if (*p == '\\' || *p == '"')
                put(&b, "\\%c", *p);
            else if (*p == '\n')
                put(&b, "\\n");
            else
                put(&b, "%c", *p);
        }
        put(&b, "\"} 1\n");
    }
    *len = b.len;
    return b.p;
}

char *target__stats_ground_truth(struct target *t)
{
    struct target_stats *st = &t->stats;
    json_t *doc = json_object(), *eps = json_object(), *faults = json_object();
    char *text;

#define SET(obj, key, v) json_object_set_new(obj, key, json_integer((json_int_t)atomic_load(&(v))))
    for (int e = 0; e < EP_COUNT; e++)
        SET(eps, settings_endpoint_name(e), st->requests_by_ep[e]);
    for (int f = 1; f < FAULT_COUNT; f++)
        SET(faults, settings_fault_name(f), st->faults[f]);
    SET(doc, "connections_accepted", st->connections_accepted);
    SET(doc, "active_connections", st->active_connections);
    SET(doc, "requests_total", st->requests_total);
    SET(doc, "resets_sent", st->resets_sent);
    SET(doc, "closed_early", st->closed_early);
    SET(doc, "stalled", st->stalled);
    SET(doc, "dripped", st->dripped);
    SET(doc, "malformed_sent", st->malformed_sent);
    SET(doc, "huge_headers_sent", st->huge_headers_sent);
    SET(doc, "hostile_sent", st->hostile_sent);
    SET(doc, "responses_503", st->responses_503);
    SET(doc, "kv_full", st->kv_full);
    SET(doc, "bytes_sent", st->bytes_sent);
    SET(doc, "client_aborts", st->client_aborts);
    SET(doc, "closed_after_reply", st->closed_after_reply);
    SET(doc, "requests_after_close", st->requests_after_close);
#undef SET
    json_object_set_new(doc, "requests_by_endpoint", eps);
    json_object_set_new(doc, "faults_drawn", faults);
    json_object_set_new(doc, "echo", target__echo_log_json(&t->echo_log));
    text = json_dumps(doc, JSON_INDENT(2));
    json_decref(doc);
    return text;
}
