/*
 * The progress line of a headless run: one line per tick (load, volume,
 * latency, errors, probes) and the tick's events under it. It reads one
 * tick only, nothing of the run's summary.
 */
#include "report/summary.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/errclass.h"
#include "core/gauge.h"
#include "core/tick.h"
#include "core/units.h"
#include "report/internal.h"

#define NAME_SHOWN_MAX 80 /* bytes of a sanitized probe name shown */
#define NUM_MAX REPORT_NUM_MAX

/* " name=12" for each probe (its state when it has no good value). */
static void append_probes(const struct tick *t, char *buf, size_t cap)
{
    uint32_t n = t->n_probes;
    char name[NAME_SHOWN_MAX], v[NUM_MAX];

    for (uint32_t i = 0; i < n; i++) {
        const struct tick_probe *p = &t->probes[i];
        size_t used = strlen(buf);
        int ok = p->has_value && p->state == PROBE_OK;

        snprintf(buf + used, cap - used, " %s=%s",
                 report__shown(p->name, sizeof(p->name), name, sizeof(name)),
                 ok ? report__fmt_g(p->value, 6, v) : probe_state_name(p->state));
    }
}

/* Under the open model the load is a rate: "rate=1000/s" (asked), and the
 * in-flight count against its cap. */
static void load_field(const struct tick *t, char *buf, size_t cap)
{
    char rate[NUM_MAX];

    if (t->model == LOAD_OPEN)
        snprintf(buf, cap, "rate=%s/s inflight=%" PRIu32 "/%" PRIu32,
                 report__fmt_rate(t->target_rate_per_s, rate), t->in_flight, t->max_in_flight);
    else if (t->target_concurrency != 0 && t->target_concurrency != t->actual_concurrency)
        snprintf(buf, cap, "c=%" PRIu32 "/%" PRIu32 " inflight=%" PRIu32, t->actual_concurrency,
                 t->target_concurrency, t->in_flight);
    else
        snprintf(buf, cap, "c=%" PRIu32 " inflight=%" PRIu32, t->actual_concurrency, t->in_flight);
}

/* Open model: the service p99 beside the corrected one, and a loud note
 * when the schedule was not kept. */
static void append_schedule(const struct tick *t, char *buf, size_t cap)
{
    char p99[UNITS_FMT_MAX], lag[UNITS_FMT_MAX];
    size_t used = strlen(buf);

    if (t->model != LOAD_OPEN)
        return;
    if (t->service.window.count > 0) {
        snprintf(buf + used, cap - used, " svc p99 %s",
                 units_format_duration(t->service.window.pct_us[2], p99, sizeof(p99)));
        used = strlen(buf);
    }
    if (!tick_schedule_kept(t))
        snprintf(buf + used, cap - used,
                 " SCHEDULE NOT KEPT (lag %s, %" PRIu64 " owed, cap hit %" PRIu64 "x)",
                 units_format_duration(t->sched_lag_us, lag, sizeof(lag)), t->sched_backlog,
                 t->sched_capped);
}

/* "ok 3089 req/s failed 31/s 3.1 MB/s" over the tick, successes and
 * failures apart as on the console's throughput line; the last tick of a
 * run, the drain after the load stopped, is a stub of any length (a
 * request in half a ms is not 2000 req/s), so it says what it held:
 * "final ok 1 failed 0 in 512us". */
static void volume_field(const struct tick *t, char *buf, size_t cap)
{
    const struct tick_kind *k = &t->total;
    uint64_t failed = errclass_sum(k->errors);
    char mb[NUM_MAX], d[UNITS_FMT_MAX];

    if (t->state == RUN_DONE) {
        snprintf(buf, cap, "final ok %" PRIu64 " failed %" PRIu64 " in %s",
                 report__minus(k->completed, failed), failed,
                 units_format_duration(t->duration_us, d, sizeof(d)));
        return;
    }
    snprintf(buf, cap, "ok %" PRIu64 " req/s failed %" PRIu64 "/s %s MB/s",
             report__round_u64(tick_per_s(report__minus(k->completed, failed), t->duration_us)),
             report__round_u64(tick_per_s(failed, t->duration_us)),
             report__fmt_fixed(tick_per_s(k->bytes_in, t->duration_us) / 1e6, 1, mb));
}

/* " resent N": requests sent again in the interval, when any. */
static void append_resent(const struct tick *t, char *buf, size_t cap)
{
    uint64_t n = tick_resent_sum(t->resent);
    size_t used = strlen(buf);

    if (n > 0 && used < cap)
        snprintf(buf + used, cap - used, " resent %" PRIu64, n);
}

/* The run's progress toward its end, last: " 12s/1m00s 20% left 48s",
 * " 12000/100000 req 12% left ~1m30s" (core/gauge.h); nothing for a run
 * without an end. */
static void append_gauge(const struct tick *t, char *buf, size_t cap)
{
    struct gauge g;
    char text[GAUGE_TEXT_MAX];
    size_t used = strlen(buf);

    if (gauge_of_tick(t, &g) && used < cap)
        snprintf(buf + used, cap - used, "%s", gauge_line(&g, text, sizeof(text)));
}

char *summary_progress_line(const struct tick *t, char *buf, size_t cap)
{
    const struct tick_kind *k = &t->total;
    char load[2 * NUM_MAX + 32], vol[2 * NUM_MAX + 32], err[NUM_MAX], p50[UNITS_FMT_MAX];
    char p99[UNITS_FMT_MAX];
    /* Only the states an operator must not miss; running is the norm. */
    int shows_state = t->state == RUN_PAUSED || t->state == RUN_STOPPING;

    if (cap == 0)
        return buf;
    load_field(t, load, sizeof(load));
    snprintf(p50, sizeof(p50), "-");
    snprintf(p99, sizeof(p99), "-");
    if (k->window.count > 0) {
        units_format_duration(k->window.pct_us[0], p50, sizeof(p50)); /* tick_pcts[0] is 50 */
        units_format_duration(k->window.pct_us[2], p99, sizeof(p99)); /* tick_pcts[2] is 99 */
    }
    snprintf(err, sizeof(err), "-");
    if (k->completed > 0)
        report__fmt_percent(errclass_sum(k->errors), k->completed, 1, err);
    volume_field(t, vol, sizeof(vol));
    snprintf(buf, cap, "t=%" PRIu64 "s %s %s p50 %s p99 %s err %s%s%s",
             (t->start_us + t->duration_us + 500000) / 1000000, load, vol, p50, p99, err,
             shows_state ? " " : "", shows_state ? run_state_name(t->state) : "");
    append_resent(t, buf, cap);
    append_schedule(t, buf, cap);
    append_probes(t, buf, cap);
    append_gauge(t, buf, cap);
    return buf;
}

int summary_print_tick(const struct tick *t, FILE *out)
{
    char line[1024], text[2 * TICK_TEXT_MAX], at[UNITS_FMT_MAX];
    uint32_t n = t->n_events;

    fprintf(out, "%s\n", summary_progress_line(t, line, sizeof(line)));
    for (uint32_t i = 0; i < n; i++) {
        /* The same clock format as the report's event rows. */
        units_format_duration(t->events[i].at_ms * 1000, at, sizeof(at));
        fprintf(out, "  [%s] %s: %s\n", at, event_kind_name(t->events[i].kind),
                report__shown(t->events[i].text, sizeof(t->events[i].text), text, sizeof(text)));
    }
    return report__finish(out);
}
