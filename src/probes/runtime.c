/*
 * The probe thread: one libuv loop, a timer per source, and what a sample
 * means: a counter's rate (with resets detected), alerts and state changes
 * as events, staleness while a fetch hangs. Results go to the board, which
 * the engine copies into its ticks.
 */
#include "probes/probes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/board.h"
#include "core/container.h"
#include "core/msg.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "probes/sampler.h"

/* Values in events: integers plainly, others with 6 significant digits. */
static const char *fmt_probe_value(double v, char buf[32])
{
    snprintf(buf, 32, "%.6g", v);
    return buf;
}

static uint64_t since_start_ms(const struct probes *ps, uint64_t now_ns)
{
    return now_ns > ps->start_ns ? (now_ns - ps->start_ns) / 1000000 : 0;
}

/* An event "NAME WHAT DETAIL", cut to what a tick holds by the board. */
static void event(struct probes *ps, enum event_kind kind, const char *name, const char *what,
                  const char *detail)
{
    char text[TICK_NAME_MAX + 32 + PROBE_WHY_MAX];

    snprintf(text, sizeof(text), "%s%s%s", name, what, detail);
    board_event(ps->board, kind, since_start_ms(ps, uv_hrtime()), text);
}

static int alert_holds(const struct config_probe *cfg, const struct series *s, double v,
                       double prev)
{
    switch (cfg->alert_op) {
    case CONFIG_ALERT_ABOVE: return v > cfg->alert_value;
    case CONFIG_ALERT_BELOW: return v < cfg->alert_value;
    case CONFIG_ALERT_CHANGES: return s->shown.has_value && v != prev;
    default: return 0;
    }
}

static void set_failing(struct source *src, struct series *s, const char *why)
{
    if (s->shown.state != PROBE_FAILING)
        event(src->ps, EV_PROBE, s->shown.name, " failing: ", why);
    s->shown.state = PROBE_FAILING;
    tick_copy_text(s->shown.error, sizeof(s->shown.error), why);
}

/* A counter's rate per second since its previous sample; 0 when there is
 * none yet (or it was reset), 1 when *rate is set. */
static int counter_rate(struct source *src, struct series *s, double v, uint64_t now_ns,
                        double *rate)
{
    int has_rate = s->has_raw && v >= s->raw && now_ns > s->raw_ns;
    char detail[96], a[32], b[32];

    if (s->has_raw && v < s->raw) {
        snprintf(detail, sizeof(detail), "counter reset (%s to %s)", fmt_probe_value(s->raw, a),
                 fmt_probe_value(v, b));
        event(src->ps, EV_PROBE, s->shown.name, ": ", detail);
    }
    if (has_rate)
        *rate = (v - s->raw) * 1e9 / (double)(now_ns - s->raw_ns);
    return has_rate;
}

static void set_value(struct source *src, struct series *s, double raw, uint64_t now_ns)
{
    const struct config_probe *cfg = src->cfg;
    double v = raw, prev = s->shown.value;
    int has_value = 1, alerting;
    char shown[32];

    if (cfg->kind == CONFIG_PROBE_COUNTER)
        has_value = counter_rate(src, s, raw, now_ns, &v);
    s->has_raw = 1;
    s->raw = raw;
    s->raw_ns = now_ns;
    s->ok_ns = now_ns;
    if (s->shown.state == PROBE_FAILING || s->shown.state == PROBE_STALE)
        event(src->ps, EV_PROBE, s->shown.name,
              " back: ", has_value ? fmt_probe_value(v, shown) : "sampling again");
    s->shown.state = has_value ? PROBE_OK : PROBE_PENDING;
    s->shown.error[0] = '\0';
    s->shown.sampled_ms = since_start_ms(src->ps, now_ns);
    if (!has_value)
        return;
    alerting = alert_holds(cfg, s, v, prev);
    if (alerting != s->shown.alerting) {
        char what[64], bound[32];

        if (cfg->alert_op == CONFIG_ALERT_CHANGES)
            snprintf(what, sizeof(what), alerting ? " changed: " : " steady again: ");
        else
            snprintf(what, sizeof(what), " %s (%s %s): ", alerting ? "alert" : "alert over",
                     cfg->alert_op == CONFIG_ALERT_ABOVE ? ">" : "<",
                     fmt_probe_value(cfg->alert_value, bound));
        event(src->ps, alerting ? EV_ALERT : EV_PROBE, s->shown.name, what,
              fmt_probe_value(v, shown));
    }
    s->shown.alerting = alerting;
    s->shown.has_value = 1;
    s->shown.value = v;
}

void probes__source_done(struct source *src, struct result *res)
{
    struct probes *ps = src->ps;
    /* The server read its counters after the fetch started, and a fetch
     * takes its own time: timing samples from their start keeps a
     * counter's rate from following the fetch's speed. */
    uint64_t now_ns = src->busy_since_ns;
    struct page pg;

    src->is_busy = 0;
    if (atomic_load(&ps->is_stopping)) {
        free(res->text);
        return;
    }
    if (res->rc == 0)
        probes__page_open(&pg, src->cfg, res->text, res->len);
    for (uint32_t i = 0; i < src->n_series; i++) {
        struct series *s = &ps->series[src->first_series + i];
        char why[PROBE_WHY_MAX];
        double v;

        if (res->rc != 0)
            set_failing(src, s, res->why);
        else if (probes__extractor_read(s->ex, &pg, &v, why, sizeof(why)) != 0)
            set_failing(src, s, why);
        else
            set_value(src, s, v, now_ns);
        board_set(ps->board, s->board_index, &s->shown);
    }
    if (res->rc == 0)
        probes__page_close(&pg);
    free(res->text);
    res->text = NULL;
}

/* A fetch still running past twice the interval: the figures are stale. */
static void check_stale(struct source *src, uint64_t now_ns)
{
    uint64_t limit_ns = 2 * src->cfg->interval_us * 1000;
    char why[PROBE_WHY_MAX], age[UNITS_FMT_MAX];

    if (now_ns - src->busy_since_ns < limit_ns)
        return;
    for (uint32_t i = 0; i < src->n_series; i++) {
        struct series *s = &src->ps->series[src->first_series + i];

        if (s->shown.state != PROBE_OK && s->shown.state != PROBE_PENDING)
            continue;
        units_format_duration((now_ns - (s->ok_ns ? s->ok_ns : src->busy_since_ns)) / 1000, age,
                              sizeof(age));
        snprintf(why, sizeof(why), "no sample for %s: the %s fetch is still running", age,
                 s->ok_ns ? "last" : "first");
        s->shown.state = PROBE_STALE;
        tick_copy_text(s->shown.error, sizeof(s->shown.error), why);
        event(src->ps, EV_PROBE, s->shown.name, " stale: ", why);
        board_set(src->ps->board, s->board_index, &s->shown);
    }
}

static void on_timer(uv_timer_t *t)
{
    struct source *src = container_of(t, struct source, timer);
    struct result res = {0};
    uint64_t now_ns = uv_hrtime();
    int rc;

    if (src->is_busy) {
        check_stale(src, now_ns);
        return;
    }
    src->is_busy = 1;
    src->busy_since_ns = now_ns;
    if (src->cfg->type == CONFIG_PROBE_TYPE_COMMAND)
        rc = probes__fetch_cmd_start(src, res.why, sizeof(res.why));
    else
        rc = probes__fetch_http_start(src);
    if (rc != 0) {
        if (src->cfg->type != CONFIG_PROBE_TYPE_COMMAND)
            snprintf(res.why, sizeof(res.why), "cannot queue the fetch: %s", msg_errno(-rc).text);
        res.rc = rc;
        probes__source_done(src, &res);
    }
}

static void on_handle_closed(uv_handle_t *h)
{
    struct probes *ps = h->data;

    ps->open_handles--;
}

static void close_handle(struct probes *ps, uv_handle_t *h)
{
    h->data = ps;
    uv_close(h, on_handle_closed);
}

static void on_stop(uv_async_t *a)
{
    struct probes *ps = container_of(a, struct probes, stop);

    for (uint32_t i = 0; i < ps->n_sources; i++) {
        struct source *src = &ps->sources[i];

        close_handle(ps, (uv_handle_t *)&src->timer);
        if (src->cmd)
            probes__fetch_cmd_kill(src);
        else if (src->is_busy)
            uv_cancel((uv_req_t *)&src->fetch.work);
    }
    close_handle(ps, (uv_handle_t *)&ps->stop);
}

static void run_loop(void *arg)
{
    struct probes *ps = arg;

    uv_run(&ps->loop, UV_RUN_DEFAULT);
}

static uint32_t series_of(const struct config_probe *cfg)
{
    return config_probe_series(cfg);
}

/* A series' name: the probe's, with the JSON pointer when there are several. */
static void series_name(const struct config_probe *cfg, uint32_t i, char *out, size_t cap)
{
    if (series_of(cfg) > 1)
        snprintf(out, cap, "%s%s", cfg->name, cfg->pointers[i].value);
    else
        snprintf(out, cap, "%s", cfg->name);
}

static int add_series(struct probes *ps, const char *path, const struct config_probe *cfg,
                      struct source *src, char *err, size_t err_len)
{
    src->first_series = ps->n_series;
    src->n_series = series_of(cfg);
    for (uint32_t j = 0; j < src->n_series; j++) {
        struct series *s = &ps->series[ps->n_series];
        char name[TICK_NAME_MAX + 80], why[PROBE_WHY_MAX];
        int index;

        series_name(cfg, j, name, sizeof(name));
        if (probes__extractor_new(cfg, j, why, sizeof(why), &s->ex) != 0) {
            snprintf(err, err_len, "brink: %s:%u: [probe %s]: %s", path, cfg->line, cfg->name, why);
            return -EINVAL;
        }
        index = board_add(ps->board, name);
        ps->n_series++;
        if (index < 0) {
            snprintf(err, err_len, "brink: [probe %s]: more than %d probe series", cfg->name,
                     TICK_MAX_PROBES);
            return -ENOSPC;
        }
        s->board_index = (uint32_t)index;
        tick_copy_text(s->shown.name, sizeof(s->shown.name), name);
    }
    return 0;
}

static void free_probes(struct probes *ps)
{
    for (uint32_t i = 0; i < ps->n_series; i++)
        probes__extractor_free(ps->series[i].ex);
    free(ps->series);
    free(ps->sources);
    free(ps->ssl_cert_file);
    free(ps);
}

/* Whether probe p runs where which says. */
static int runs_here(const struct config_probe *p, enum probes_which which)
{
    switch (which) {
    case PROBES_COORDINATOR: return p->on == CONFIG_PROBE_ON_COORDINATOR;
    case PROBES_AGENTS: return p->on == CONFIG_PROBE_ON_AGENTS;
    default: return 1;
    }
}

static uint32_t count_here(const struct config *c, enum probes_which which)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < c->n_probes; i++)
        n += runs_here(&c->probes[i], which);
    return n;
}

static int setup(struct probes *ps, const struct probes_params *p, char *err, size_t err_len)
{
    const struct config *c = p->config;
    uint32_t n_series = 0;
    int rc;

    for (uint32_t i = 0; i < c->n_probes; i++)
        n_series += runs_here(&c->probes[i], p->which) ? series_of(&c->probes[i]) : 0;
    ps->sources = xcalloc(c->n_probes, sizeof(*ps->sources));
    ps->series = xcalloc(n_series ? n_series : 1, sizeof(*ps->series));
    ps->n_sources = 0;
    /* Read once, here: getenv is not safe against a setenv elsewhere, and
     * the fetches run on libuv's pool threads. */
    if (getenv("SSL_CERT_FILE"))
        ps->ssl_cert_file = xstrdup(getenv("SSL_CERT_FILE"));
    probes__tls_of(&c->target, ps->ssl_cert_file, &ps->tls);
    for (uint32_t i = 0; i < c->n_probes; i++) {
        struct source *src = &ps->sources[ps->n_sources];

        if (!runs_here(&c->probes[i], p->which))
            continue;
        ps->n_sources++;
        src->ps = ps;
        src->cfg = &c->probes[i];
        src->fetch.cfg = &c->probes[i];
        src->fetch.tls = &ps->tls;
        src->fetch.is_stopping = &ps->is_stopping;
        rc = add_series(ps, c->path ? c->path : "config", &c->probes[i], src, err, err_len);
        if (rc)
            return rc;
    }
    return 0;
}

static int has_command(const struct config *c, enum probes_which which, const char **name)
{
    for (uint32_t i = 0; i < c->n_probes; i++) {
        if (c->probes[i].type == CONFIG_PROBE_TYPE_COMMAND && runs_here(&c->probes[i], which)) {
            *name = c->probes[i].name;
            return 1;
        }
    }
    return 0;
}

static int check_commands(const struct config *c, enum probes_which which, const char *path,
                          int allow_commands, char *err, size_t err_len)
{
    const char *name;
    struct stat st;

    if (!has_command(c, which, &name))
        return 0;
    if (!allow_commands) {
        snprintf(err, err_len,
                 "brink: [probe %s]: command probes run only from your own config file, never here",
                 name);
        return -EPERM;
    }
    if (!path)
        return 0;
    if (stat(path, &st) != 0) {
        snprintf(err, err_len, "brink: %s: [probe %s]: cannot check who may write the file: %s",
                 path, name, msg_errno(errno).text);
        return -EPERM;
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_uid != geteuid()) {
        snprintf(
            err, err_len,
            "brink: %s: [probe %s]: refusing to run a command from a file others can write (mode %03o, owner %u; expected yours, e.g. chmod go-w)",
            path, name, (unsigned)(st.st_mode & 0777), (unsigned)st.st_uid);
        return -EPERM;
    }
    return 0;
}

int probes_check(const struct config *c, int allow_commands, char *err, size_t err_len)
{
    struct probes_params p = {.config = c, .board = board_new(), .allow_commands = allow_commands};
    struct probes *ps;
    int rc = check_commands(c, PROBES_ALL, c->path, allow_commands, err, err_len);

    if (rc == 0 && c->n_probes) {
        ps = xcalloc(1, sizeof(*ps));
        ps->board = p.board;
        rc = setup(ps, &p, err, err_len);
        free_probes(ps);
    }
    board_free(p.board);
    return rc;
}

int probes_start(const struct probes_params *p, char *err, size_t err_len, struct probes **out)
{
    struct probes *ps;
    int rc;

    *out = NULL;
    /* The coordinator's file holds the commands its agents run too. */
    rc = check_commands(p->config, p->which == PROBES_AGENTS ? PROBES_AGENTS : PROBES_ALL,
                        p->config->path, p->allow_commands, err, err_len);
    if (rc || !count_here(p->config, p->which))
        return rc;
    ps = xcalloc(1, sizeof(*ps));
    ps->board = p->board;
    ps->start_ns = p->start_ns;
    atomic_init(&ps->is_stopping, 0);
    rc = setup(ps, p, err, err_len);
    if (rc == 0)
        rc = uv_loop_init(&ps->loop);
    if (rc) {
        if (!*err)
            snprintf(err, err_len, "brink: probes: starting the loop: %s", msg_errno(-rc).text);
        free_probes(ps);
        return rc;
    }
    uv_async_init(&ps->loop, &ps->stop, on_stop);
    ps->open_handles = 1;
    for (uint32_t i = 0; i < ps->n_sources; i++) {
        struct source *src = &ps->sources[i];
        uint64_t ms = src->cfg->interval_us / 1000;

        uv_timer_init(&ps->loop, &src->timer);
        uv_timer_start(&src->timer, on_timer, 0, ms ? ms : 1);
        ps->open_handles++;
    }
    rc = uv_thread_create(&ps->thread, run_loop, ps);
    if (rc) {
        snprintf(err, err_len, "brink: probes: starting the thread: %s", msg_errno(-rc).text);
        on_stop(&ps->stop);
        uv_run(&ps->loop, UV_RUN_DEFAULT);
        uv_loop_close(&ps->loop);
        free_probes(ps);
        return rc;
    }
    *out = ps;
    return 0;
}

void probes_stop(struct probes *ps)
{
    if (!ps)
        return;
    atomic_store(&ps->is_stopping, 1);
    uv_async_send(&ps->stop);
    uv_thread_join(&ps->thread);
    /* Every handle was closed in the loop; closing the loop cannot fail. */
    uv_loop_close(&ps->loop);
    free_probes(ps);
}
