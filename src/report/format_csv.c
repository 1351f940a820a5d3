/*
 * CSV, one row per tick (RFC 4180): fields separated by commas, lines ended
 * by CRLF, every text field that may come from outside (probe names) quoted
 * with its quotes doubled. Names are first escaped by sanitize_display (UTF-8
 * kept, control and bidi characters made visible), so a cell never holds a
 * line break or an invisible character.
 */
#include "report/formats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errclass.h"
#include "core/hist.h"
#include "core/sanitize.h"
#include "core/steps.h"
#include "core/tick.h"
#include "core/xalloc.h"
#include "report/internal.h"
#include "report/summary.h"

struct format_csv {
    FILE *out;
    int has_header;
    uint32_t n_probes; /* probe columns, from the first tick */
    char probes[TICK_MAX_PROBES][TICK_NAME_MAX];
    const struct report_meta *meta; /* NULL: unknown */
    struct hist *scratch;           /* a tick's histogram, for its p95 */
};

struct format_csv *format_csv_new(FILE *out, const struct report_meta *meta)
{
    struct format_csv *c = xcalloc(1, sizeof(*c));

    c->out = out;
    c->meta = meta;
    c->scratch = hist_new();
    return c;
}

void format_csv_free(struct format_csv *c)
{
    if (!c)
        return;
    hist_free(c->scratch);
    free(c);
}

/* A quoted field: "..." with every " doubled, from at most raw_cap bytes
 * escaped (cut to 4 KiB: a command line, a list of URLs). */
static void put_quoted(FILE *out, const char *raw, size_t raw_cap)
{
    char shown[4096];

    sanitize_display(raw, strnlen(raw, raw_cap), shown, sizeof(shown), 0);
    fputc('"', out);
    for (const char *p = shown; *p; p++) {
        if (*p == '"')
            fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

static void put_header(struct format_csv *c, const struct tick *t)
{
    FILE *out = c->out;

    if (t != NULL) {
        uint32_t n = t->n_probes;

        for (uint32_t i = 0; i < n; i++)
            tick_name_row(c->probes, sizeof(c->probes[0]), &c->n_probes, TICK_MAX_PROBES,
                          t->probes[i].name);
    }
    fputs("seq,start_us,duration_us,state,target_concurrency,actual_concurrency,in_flight,"
          "completed,ok,req_per_s,bytes_in,p50_us,p90_us,p99_us,p999_us,max_us,"
          "failed_p50_us,failed_p99_us,failed_max_us",
          out);
    for (int e = 0; e < ERR__COUNT; e++)
        fprintf(out, ",err_%s", errclass_name((enum errclass)e));
    for (int r = 0; r < RESEND__COUNT; r++)
        fprintf(out, ",resent_%s", resend_cause_name((enum resend_cause)r));
    fputs(",model,target_rate_per_s,max_in_flight,sched_called,sched_backlog,sched_lag_us,"
          "sched_capped,service_p50_us,service_p99_us,connections_opened,connections",
          out);
    for (int p = 0; p < PHASE__COUNT; p++) {
        const char *name = tick_phase_name((enum tick_phase)p);

        fprintf(out, ",%s_count,%s_p50_us,%s_p99_us,%s_max_us", name, name, name, name);
    }
    for (uint32_t i = 0; i < c->n_probes; i++) {
        fputc(',', out);
        put_quoted(out, c->probes[i], TICK_NAME_MAX);
    }
    /* Added after the probes: a column never moves. */
    fputs(",ok_per_s,failed_per_s,agents_missing,p95_us,url,urls,start_time,brink_version,"
          "command_line\r\n",
          out);
    c->has_header = 1;
}

/* The value of the probe named name in t, or an empty field. */
static void put_probe(FILE *out, const struct tick *t, const char *name)
{
    uint32_t n = t->n_probes;
    char v[REPORT_NUM_MAX];

    fputc(',', out);
    for (uint32_t i = 0; i < n; i++) {
        const struct tick_probe *p = &t->probes[i];

        if (strncmp(p->name, name, TICK_NAME_MAX) == 0) {
            if (p->has_value)
                fputs(report__fmt_g(p->value, 17, v), out);
            return;
        }
    }
}

/* The load model and, when open, its rate, cap, schedule and service
 * times (corrected latency is in the p*_us columns); empty when closed. */
static void put_open(FILE *out, const struct tick *t)
{
    char rate[REPORT_NUM_MAX];

    fprintf(out, ",%s", load_model_name(t->model));
    if (t->model != LOAD_OPEN) {
        fputs(",,,,,,,,", out);
        return;
    }
    fprintf(out, ",%s,%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
            report__fmt_fixed(t->target_rate_per_s, 3, rate), t->max_in_flight, t->sched_called,
            t->sched_backlog, t->sched_lag_us, t->sched_capped);
    if (t->service.window.count > 0)
        fprintf(out, ",%" PRIu64 ",%" PRIu64, t->service.window.pct_us[0],
                t->service.window.pct_us[2]);
    else
        fputs(",,", out);
}

/* The connections, and each phase's count, p50, p99 and max (empty
 * figures when it timed nothing). */
static void put_phases(FILE *out, const struct tick *t)
{
    fprintf(out, ",%" PRIu64 ",%" PRIu32, t->connections_opened, t->connections);
    for (int p = 0; p < PHASE__COUNT; p++) {
        const struct tick_latency *w = &t->phases[p].window;

        if (w->count > 0)
            fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, w->count, w->pct_us[0],
                    w->pct_us[2], w->max_us);
        else
            fputs(",0,,,", out);
    }
}

/* A run with agents: how many agents' figures the tick misses (a partial
 * tick's, a lost agent's); empty for a run without agents. */
static void put_agents_missing(FILE *out, const struct tick *t)
{
    uint32_t in = 0;

    if (t->n_agents == 0)
        return;
    for (uint32_t i = 0; i < t->n_agents && i < TICK_MAX_AGENTS; i++)
        in += t->agents[i].is_in != 0;
    fprintf(out, "%" PRIu32, t->n_agents - in);
}

/* The successes' p95 of the tick, from its interval histogram (the
 * tick's precomputed figures stop at p50, p90, p99, p99.9); empty when it
 * timed none or has no histogram. */
static void put_p95(struct format_csv *c, const struct tick *t)
{
    fputc(',', c->out);
    if (t->total.window.count == 0 || tick_get_hist(t, &t->total, c->scratch) != 0 ||
        hist_count(c->scratch) == 0)
        return;
    fprintf(c->out, "%" PRIu64, hist_percentile(c->scratch, 95.0));
}

/* What run this is, the same on every row: the first URL, all of them
 * (space-separated), the start (ISO 8601 UTC), brink's version and the
 * command line; empty when not known. */
static void put_meta(FILE *out, const struct report_meta *m)
{
    char when[REPORT_TIME_MAX];

    fputc(',', out);
    if (!m) {
        fputs(",,,,", out);
        return;
    }
    if (m->n_urls)
        put_quoted(out, m->urls[0], SIZE_MAX);
    fputc(',', out);
    if (m->n_urls) {
        char joined[4096];
        size_t used = 0;

        joined[0] = '\0';
        for (size_t i = 0; i < m->n_urls && used < sizeof(joined); i++)
            used += (size_t)snprintf(joined + used, sizeof(joined) - used, "%s%s", i ? " " : "",
                                     m->urls[i]);
        put_quoted(out, joined, sizeof(joined));
    }
    fprintf(out, ",%s,", report__fmt_time(m->start_wall_ms, when));
    if (m->brink_version && m->brink_version[0])
        put_quoted(out, m->brink_version, TICK_TEXT_MAX);
    fputc(',', out);
    if (m->command_line)
        put_quoted(out, m->command_line, SIZE_MAX);
}

int format_csv_tick(struct format_csv *c, const struct tick *t)
{
    const struct tick_kind *k = &t->total;
    FILE *out = c->out;
    char rate[REPORT_NUM_MAX];

    if (!c->has_header)
        put_header(c, t);
    fprintf(out,
            "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s,%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu64
            ",%" PRIu64 ",%s,%" PRIu64,
            t->seq, t->start_us, t->duration_us, run_state_name(t->state), t->target_concurrency,
            t->actual_concurrency, t->in_flight, k->completed, k->ok,
            report__fmt_fixed(tick_per_s(k->completed, t->duration_us), 3, rate), k->bytes_in);
    if (k->window.count > 0)
        fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
                k->window.pct_us[0], k->window.pct_us[1], k->window.pct_us[2], k->window.pct_us[3],
                k->window.max_us);
    else
        fputs(",,,,,", out); /* no latency in an interval that timed nothing */
    if (t->failed.window.count > 0)
        fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, t->failed.window.pct_us[0],
                t->failed.window.pct_us[2], t->failed.window.max_us);
    else
        fputs(",,,", out);
    for (int e = 0; e < ERR__COUNT; e++)
        fprintf(out, ",%" PRIu64, k->errors[e]);
    for (int r = 0; r < RESEND__COUNT; r++)
        fprintf(out, ",%" PRIu64, t->resent[r]);
    put_open(out, t);
    put_phases(out, t);
    for (uint32_t i = 0; i < c->n_probes; i++)
        put_probe(out, t, c->probes[i]);
    fprintf(out, ",%s", report__fmt_fixed(tick_per_s(k->ok, t->duration_us), 3, rate));
    fprintf(
        out, ",%s,",
        report__fmt_fixed(tick_per_s(report__minus(k->completed, k->ok), t->duration_us), 3, rate));
    put_agents_missing(out, t);
    put_p95(c, t);
    put_meta(out, c->meta);
    fputs("\r\n", out);
    return ferror(out) ? -EIO : 0;
}

int format_csv_finish(struct format_csv *c)
{
    if (!c->has_header)
        put_header(c, NULL);
    return report__finish(c->out);
}

/* One line of the step table: the row's figures for its kind NAME (NULL:
 * the row's own, "total", the only line with the requests sent again). */
static void put_step_line(FILE *out, size_t i, const struct step_row *r, const char *name,
                          uint64_t completed, uint64_t ok, double rate, uint64_t timed,
                          const uint64_t pct_us[5])
{
    char level[REPORT_NUM_MAX], per_s[REPORT_NUM_MAX];

    fprintf(out, "%zu,%s,%s,", i + 1, load_model_name(r->model),
            report__fmt_g(r->level, 17, level));
    put_quoted(out, name ? name : "total", TICK_NAME_MAX);
    fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, r->start_us,
            r->duration_us, completed, ok, completed - ok);
    if (!name)
        fprintf(out, ",%" PRIu64, tick_resent_sum(r->resent));
    else
        fputc(',', out);
    fprintf(out, ",%s", report__fmt_fixed(rate, 3, per_s));
    if (timed)
        fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, pct_us[0], pct_us[1],
                pct_us[2], pct_us[3]);
    else
        fputs(",,,,", out);
    fprintf(out, ",%s", r->plan_step ? plan_verdict_name(r->verdict) : "");
    fprintf(out, ",%s", report__fmt_fixed(tick_per_s(ok, r->duration_us), 3, per_s));
    fprintf(out, ",%s",
            report__fmt_fixed(tick_per_s(report__minus(completed, ok), r->duration_us), 3, per_s));
    /* p95 came later: last, so that no column moved. */
    if (timed)
        fprintf(out, ",%" PRIu64 "\r\n", pct_us[4]);
    else
        fputs(",\r\n", out);
}

int format_steps_csv(const struct steps *st, FILE *out)
{
    fputs("step,model,level,kind,start_us,duration_us,requests,ok,failed,resent,req_per_s,p50_us,"
          "p90_us,p99_us,max_us,verdict,ok_per_s,failed_per_s,p95_us\r\n",
          out);
    for (size_t i = 0; i < steps_count(st); i++) {
        const struct step_row *r = steps_row(st, i);
        const uint64_t total[5] = {r->p50_us, r->p90_us, r->p99_us, r->max_us, r->p95_us};

        put_step_line(out, i, r, NULL, r->completed, r->ok,
                      tick_per_s(r->completed, r->duration_us), r->timed, total);
        for (uint32_t k = 0; k < steps_n_kinds(st); k++) {
            const struct step_kind *sk = &r->kinds[k];
            const uint64_t pct[5] = {sk->p50_us, sk->p90_us, sk->p99_us, sk->max_us, sk->p95_us};

            if (sk->completed)
                put_step_line(out, i, r, steps_kind_name(st, k), sk->completed, sk->ok,
                              steps_kind_rate(r, k), sk->timed, pct);
        }
    }
    return report__finish(out);
}

/* The checks and counters of row r, labelled step (a number, or "run"
 * with no model or level: the run held several). */
static void put_check_lines(FILE *out, const struct steps *st, const char *step,
                            const struct step_row *r)
{
    char level[REPORT_NUM_MAX], a[REPORT_NUM_MAX], b[REPORT_NUM_MAX];

    for (uint32_t i = 0; i < steps_n_probes(st); i++) {
        const struct step_probe *p = &r->probes[i];
        int is_check = steps_probe_mark(st, i) == TICK_MARK_CHECK;

        if (!steps_probe_is_total(st, i) || !p->has_value)
            continue;
        if (strcmp(step, "run") == 0)
            fputs("run,,,", out);
        else
            fprintf(out, "%s,%s,%s,", step, load_model_name(r->model),
                    report__fmt_g(r->level, 17, level));
        put_quoted(out, steps_probe_name(st, i), TICK_NAME_MAX);
        if (is_check)
            fprintf(out, ",check,%" PRIu64 ",%s,%s\r\n", p->passed, report__fmt_g(p->sum, 17, a),
                    report__fmt_g(p->sum + (double)p->passed, 17, b));
        else
            fprintf(out, ",counter,,,%s\r\n", report__fmt_g(p->sum, 17, a));
    }
}

int format_lost_csv(const struct summary *sum, FILE *out)
{
    struct summary_lost l;
    char rate[REPORT_NUM_MAX];

    fputs("agent,lost_at_us,has_tick,last_tick_end_us,until_us,interval_us,last_rate_per_s,"
          "in_flight,uncounted_requests\r\n",
          out);
    for (uint32_t i = 0; summary_lost(sum, i, &l) == 0; i++) {
        put_quoted(out, l.name, TICK_NAME_MAX);
        fprintf(out, ",%" PRIu64 ",%d", l.lost_at_us, l.has_tick ? 1 : 0);
        if (l.has_tick)
            fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s,%" PRIu32 ",%" PRIu64 "\r\n",
                    l.last_end_us, l.until_us, l.until_us - l.last_end_us,
                    report__fmt_fixed(l.rate_per_s, 3, rate), l.in_flight, l.requests);
        else
            fputs(",,,,,,\r\n", out);
    }
    return report__finish(out);
}

int format_checks_csv(const struct steps *st, FILE *out)
{
    struct step_row run;
    char step[REPORT_NUM_MAX];

    fputs("step,model,level,name,mark,passed,failed,total\r\n", out);
    for (size_t i = 0; i < steps_count(st); i++) {
        snprintf(step, sizeof(step), "%zu", i + 1);
        put_check_lines(out, st, step, steps_row(st, i));
    }
    if (steps_run(st, &run) == 0)
        put_check_lines(out, st, "run", &run);
    return report__finish(out);
}
