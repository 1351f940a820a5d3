/*
 * The report as one JSON document, written by hand: the report module may
 * link core and record only (cmake/Modules.cmake), not jansson, and the
 * writer needs no more than a string escaper and locale-free numbers.
 */
#include "report/formats.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/errclass.h"
#include "core/hist.h"
#include "core/tick.h"
#include "report/internal.h"
#include "core/steps.h"
#include "core/usl.h"
#include "report/summary.h"

/* The length of the valid UTF-8 sequence at s (at most n bytes), or 0 when
 * the bytes there are not one (overlong, surrogate, above U+10FFFF, cut). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len;
    uint32_t cp, min;

    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        len = 2, cp = s[0] & 0x1f, min = 0x80;
    } else if ((s[0] & 0xf0) == 0xe0) {
        len = 3, cp = s[0] & 0x0f, min = 0x800;
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        len = 4, cp = s[0] & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* A JSON string from raw bytes (at most cap, up to a NUL): '"' and '\' are
 * escaped, control characters and DEL become \u00XX, invalid UTF-8 bytes
 * \ufffd each; valid UTF-8 is kept. */
static void put_string(FILE *out, const char *raw, size_t cap)
{
    const unsigned char *s = (const unsigned char *)raw;
    size_t n = strnlen(raw, cap);

    fputc('"', out);
    for (size_t i = 0; i < n;) {
        size_t len = utf8_len(s + i, n - i);

        if (len == 0) {
            fputs("\\ufffd", out);
            i++;
        } else if (s[i] == '"' || s[i] == '\\') {
            fprintf(out, "\\%c", s[i++]);
        } else if (s[i] < 0x20 || s[i] == 0x7f) {
            fprintf(out, "\\u%04x", s[i++]);
        } else {
            fwrite(s + i, 1, len, out);
            i += len;
        }
    }
    fputc('"', out);
}

/* A number, C locale, 17 significant digits; null when not finite. */
static void put_double(FILE *out, double v)
{
    char buf[REPORT_NUM_MAX];

    if (!isfinite(v))
        fputs("null", out);
    else
        fputs(report__fmt_g(v, 17, buf), out);
}

/* A rate with 3 decimals. */
static void put_rate(FILE *out, const char *key, double v)
{
    char buf[REPORT_NUM_MAX];

    fprintf(out, "\"%s\":%s", key, report__fmt_fixed(v, 3, buf));
}

/* ,"ok_per_s":R,"failed_per_s":F: successes and failures per second apart
 * (req_per_s counts both). */
static void put_ok_failed(FILE *out, uint64_t completed, uint64_t failed, uint64_t duration_us)
{
    fputc(',', out);
    put_rate(out, "ok_per_s", tick_per_s(report__minus(completed, failed), duration_us));
    fputc(',', out);
    put_rate(out, "failed_per_s", tick_per_s(failed, duration_us));
}

/* "errors":{"refused":0,...}: every class, in the class list's order. */
static void put_errors(FILE *out, const uint64_t *errors)
{
    fprintf(out, "\"failed\":%" PRIu64 ",\"errors\":{", errclass_sum(errors));
    for (int c = 0; c < ERR__COUNT; c++)
        fprintf(out, "%s\"%s\":%" PRIu64, c ? "," : "", errclass_name((enum errclass)c), errors[c]);
    fputc('}', out);
}

/* ,"KEY":{"timed":N,"min":...,"stddev":N}: the figures of h, in µs. */
static void put_latency(FILE *out, const char *key, const struct hist *h)
{
    fprintf(out,
            ",\"%s\":{\"timed\":%" PRIu64 ",\"min\":%" PRIu64 ",\"mean\":%" PRIu64
            ",\"p50\":%" PRIu64 ",\"p90\":%" PRIu64 ",\"p95\":%" PRIu64 ",\"p99\":%" PRIu64
            ",\"p999\":%" PRIu64 ",\"max\":%" PRIu64 ",\"stddev\":%" PRIu64 "}",
            key, hist_count(h), hist_min(h), report__round_u64(hist_mean(h)),
            hist_percentile(h, 50.0), hist_percentile(h, 90.0), hist_percentile(h, 95.0),
            hist_percentile(h, 99.0), hist_percentile(h, 99.9), hist_max(h),
            report__round_u64(hist_stddev(h)));
}

/* A kind's totals; latency_us times its successes. failed, when not NULL,
 * adds failed_latency_us, the latency of the failed requests. */
static void put_totals(FILE *out, const struct summary_totals *k,
                       const struct summary_totals *failed, uint64_t duration_us)
{
    fputc('{', out);
    if (k->name != NULL) {
        fputs("\"name\":", out);
        put_string(out, k->name, TICK_NAME_MAX);
        fputc(',', out);
    }
    fprintf(out, "\"requests\":%" PRIu64 ",", k->completed);
    put_rate(out, "req_per_s", tick_per_s(k->completed, duration_us));
    put_ok_failed(out, k->completed, errclass_sum(k->errors), duration_us);
    fprintf(out, ",\"bytes_in\":%" PRIu64 ",\"bytes_out\":%" PRIu64 ",", k->bytes_in, k->bytes_out);
    put_rate(out, "mb_per_s_in", tick_per_s(k->bytes_in, duration_us) / 1e6);
    fputc(',', out);
    put_errors(out, k->errors);
    put_latency(out, "latency_us", k->hist);
    if (failed)
        put_latency(out, "failed_latency_us", failed->hist);
    fprintf(out, ",\"histogram_gaps\":%" PRIu64 "}",
            k->hist_gaps + (failed ? failed->hist_gaps : 0));
}

/* ,"statuses":{"200":N,...}: responses by HTTP status code, in code order. */
static void put_statuses(FILE *out, const struct summary *sum)
{
    uint32_t n;
    const struct tick_status *st = summary_statuses(sum, &n);

    fputs(",\n\"statuses\":{", out);
    for (uint32_t i = 0; i < n; i++)
        fprintf(out, "%s\"%u\":%" PRIu64, i ? "," : "", (unsigned)st[i].code, st[i].count);
    fprintf(out, "},\"statuses_other\":%" PRIu64, summary_statuses_other(sum));
}

/* ,"probes":[...]: the probes and a script's gauges; its checks and
 * counters are put_marks'. */
static void put_probes(FILE *out, const struct steps *st, const struct step_row *r)
{
    int is_first = 1;

    fputs(",\"probes\":[", out);
    for (uint32_t i = 0; i < steps_n_probes(st); i++) {
        const struct step_probe *p = &r->probes[i];

        if (steps_probe_is_total(st, i))
            continue;
        fputs(is_first ? "{\"name\":" : ",{\"name\":", out);
        is_first = 0;
        put_string(out, steps_probe_name(st, i), TICK_NAME_MAX);
        fputs(",\"max\":", out);
        p->has_value ? put_double(out, p->max) : (void)fputs("null", out);
        fputs(",\"last\":", out);
        p->has_value ? put_double(out, p->last) : (void)fputs("null", out);
        fputc('}', out);
    }
    fputc(']', out);
}

/* ,"checks":[{"name":...,"passed":P,"failed":F}],"counters":[{"name":...,
 * "total":T}]: a script's checks and counters that counted in r. */
static void put_marks(FILE *out, const struct steps *st, const struct step_row *r)
{
    for (int is_check = 1; is_check >= 0; is_check--) {
        int is_first = 1;

        fputs(is_check ? ",\"checks\":[" : ",\"counters\":[", out);
        for (uint32_t i = 0; i < steps_n_probes(st); i++) {
            const struct step_probe *p = &r->probes[i];

            if (!steps_probe_is_total(st, i) || !p->has_value ||
                (steps_probe_mark(st, i) == TICK_MARK_CHECK) != is_check)
                continue;
            fputs(is_first ? "{\"name\":" : ",{\"name\":", out);
            is_first = 0;
            put_string(out, steps_probe_name(st, i), TICK_NAME_MAX);
            if (is_check)
                fprintf(out, ",\"passed\":%" PRIu64 ",\"failed\":", p->passed);
            else
                fputs(",\"total\":", out);
            put_double(out, p->sum);
            fputc('}', out);
        }
        fputc(']', out);
    }
}

/* ,"kinds":[{"name":...,"requests":N,...}]: the kinds that ran in r. */
static void put_step_kinds(FILE *out, const struct steps *st, const struct step_row *r)
{
    int is_first = 1;

    fputs(",\"kinds\":[", out);
    for (uint32_t k = 0; k < steps_n_kinds(st); k++) {
        const struct step_kind *sk = &r->kinds[k];

        if (sk->completed == 0)
            continue;
        fputs(is_first ? "{\"name\":" : ",{\"name\":", out);
        is_first = 0;
        put_string(out, steps_kind_name(st, k), TICK_NAME_MAX);
        fprintf(out, ",\"requests\":%" PRIu64 ",\"ok\":%" PRIu64 ",", sk->completed, sk->ok);
        put_rate(out, "req_per_s", steps_kind_rate(r, k));
        put_ok_failed(out, sk->completed, report__minus(sk->completed, sk->ok), r->duration_us);
        fprintf(out,
                ",\"latency_us\":{\"timed\":%" PRIu64 ",\"p50\":%" PRIu64 ",\"p90\":%" PRIu64
                ",\"p95\":%" PRIu64 ",\"p99\":%" PRIu64 ",\"max\":%" PRIu64 "}}",
                sk->timed, sk->p50_us, sk->p90_us, sk->p95_us, sk->p99_us, sk->max_us);
    }
    fputc(']', out);
}

static void put_step(FILE *out, const struct steps *st, const struct step_row *r)
{
    fprintf(out, "{\"model\":\"%s\",\"level\":", load_model_name(r->model));
    put_double(out, r->level);
    fprintf(out,
            ",\"rows\":%" PRIu32 ",\"start_us\":%" PRIu64 ",\"duration_us\":%" PRIu64
            ",\"folded_us\":%" PRIu64 ",\"ticks\":%" PRIu64 ",\"requests\":%" PRIu64
            ",\"ok\":%" PRIu64 ",",
            r->n_rows, r->start_us, r->duration_us, r->folded_us, r->n_ticks, r->completed, r->ok);
    put_rate(out, "req_per_s", tick_per_s(r->completed, r->duration_us));
    put_ok_failed(out, r->completed, steps_row_failed(r), r->duration_us);
    fprintf(out, ",\"bytes_in\":%" PRIu64 ",\"bytes_out\":%" PRIu64 ",", r->bytes_in, r->bytes_out);
    put_rate(out, "mb_per_s_in", tick_per_s(r->bytes_in, r->duration_us) / 1e6);
    fputc(',', out);
    put_errors(out, r->errors);
    fputs(",\"resent\":{", out);
    for (int c = 0; c < RESEND__COUNT; c++)
        fprintf(out, "%s\"%s\":%" PRIu64, c ? "," : "", resend_cause_name((enum resend_cause)c),
                r->resent[c]);
    fputc('}', out);
    fprintf(out,
            ",\"latency_us\":{\"timed\":%" PRIu64 ",\"p50\":%" PRIu64 ",\"p90\":%" PRIu64
            ",\"p95\":%" PRIu64 ",\"p99\":%" PRIu64 ",\"p999\":%" PRIu64 ",\"max\":%" PRIu64
            "},\"histogram_gaps\":%" PRIu64,
            r->timed, r->p50_us, r->p90_us, r->p95_us, r->p99_us, r->p999_us, r->max_us,
            r->hist_gaps);
    put_probes(out, st, r);
    put_marks(out, st, r);
    put_step_kinds(out, st, r);
    if (r->plan_step) {
        fprintf(out,
                ",\"plan\":{\"step\":%" PRIu32 ",\"n_steps\":%" PRIu32 ",\"warmup_us\":%" PRIu64
                ",\"verdict\":\"%s\",\"why\":",
                r->plan_step, r->plan_n_steps, r->warmup_us, plan_verdict_name(r->verdict));
        put_string(out, r->why, TICK_TEXT_MAX);
        fputc('}', out);
    }
    fputc('}', out);
}

static void put_steps(FILE *out, const struct steps *st)
{
    struct step_row r;

    fputs(",\n\"steps\":[", out);
    for (size_t i = 0; i < steps_count(st); i++) {
        fputs(i ? ",\n" : "\n", out);
        put_step(out, st, steps_row(st, i));
    }
    fprintf(out, "],\n\"steps_not_kept\":{\"rows\":%" PRIu64 ",\"requests\":%" PRIu64 "}",
            steps_rows_not_kept(st), steps_completed_not_kept(st));
    fputs(",\n\"levels\":[", out);
    for (size_t i = 0; steps_level(st, i, &r) == 0; i++) {
        fputs(i ? ",\n" : "\n", out);
        put_step(out, st, &r);
    }
    fprintf(out, "],\n\"levels_not_kept\":{\"rows\":%" PRIu64 "}", steps_levels_not_kept(st));
    /* The whole run's checks and counters, warm-ups included. */
    if (steps_run(st, &r) == 0) {
        fputc('\n', out);
        put_marks(out, st, &r);
    }
}

/* Open model only: "send_lag":{"sent":N,"latency_us":{...},"histogram_gaps":G},
 * how late brink sent its requests; latency_us as in put_totals. */
static void put_send_lag(FILE *out, const struct summary *sum)
{
    struct summary_totals k;

    summary_totals(sum, SUMMARY_SEND_LAG, &k);
    fprintf(out, ",\n\"send_lag\":{\"sent\":%" PRIu64, k.completed);
    put_latency(out, "latency_us", k.hist);
    fprintf(out, ",\"histogram_gaps\":%" PRIu64 "}", k.hist_gaps);
}

/* Open model only: the service times (total's latency counts from the
 * intended start) and how the schedule was kept. */
static void put_open(FILE *out, const struct summary *sum, uint64_t d)
{
    const struct summary_schedule *sc = summary_schedule(sum);
    struct summary_totals k;

    if (sc->open_ticks == 0)
        return;
    fputs(",\n\"service\":", out);
    summary_totals(sum, SUMMARY_SERVICE, &k);
    k.name = NULL;
    put_totals(out, &k, NULL, d);
    fprintf(out, ",\n\"schedule\":{\"open_us\":%" PRIu64 ",", sc->open_us);
    put_rate(out, "requested_per_s", sc->open_us ? sc->rate_us / (double)sc->open_us : 0);
    fputc(',', out);
    put_rate(out, "achieved_per_s", tick_per_s(sc->started, sc->open_us));
    fprintf(out,
            ",\"started\":%" PRIu64 ",\"called\":%" PRIu64 ",\"max_lag_us\":%" PRIu64
            ",\"capped\":%" PRIu64 ",\"ticks\":%" PRIu64 ",\"ticks_not_kept\":%" PRIu64 "}",
            sc->started, sc->called, sc->max_lag_us, sc->capped, sc->open_ticks,
            sc->ticks_not_kept);
    put_send_lag(out, sum);
}

/* ,"connections":{"opened":N,"max_open":N},"resent":{"closed_idle":N,...},
 * "phases_us":{"dns":{...},...}: the run's connections, its requests sent
 * again by cause, and where the time went, each phase's figures as
 * put_latency writes them. */
static void put_phases(FILE *out, const struct summary *sum)
{
    struct summary_connections c;

    summary_connections(sum, &c);
    fprintf(out, ",\n\"connections\":{\"opened\":%" PRIu64 ",\"max_open\":%" PRIu32 "}", c.opened,
            c.max_open);
    fputs(",\n\"resent\":{", out);
    for (int r = 0; r < RESEND__COUNT; r++)
        fprintf(out, "%s\"%s\":%" PRIu64, r ? "," : "", resend_cause_name((enum resend_cause)r),
                c.resent[r]);
    fprintf(out, "},\n\"phases_us\":{\"histogram_gaps\":%" PRIu64, c.phase_gaps);
    for (int p = 0; p < PHASE__COUNT; p++)
        put_latency(out, tick_phase_name((enum tick_phase)p),
                    summary_phase(sum, (enum tick_phase)p));
    fputc('}', out);
}

/* ,"capacity":{"usl":{...}}: the Universal Scalability Law fitted to the
 * steps (report__usl); usl null and usl_refused the reason when the steps
 * cannot support it, usl null alone when the run asked nothing of it. A
 * figure the law does not have (no peak, no ceiling) is null. */
static void put_capacity(FILE *out, const struct steps *st)
{
    struct usl_fit f;
    char why[USL_TEXT_MAX];
    int rc = report__usl(st, &f, why, sizeof(why));

    fputs(",\n\"capacity\":{\"usl\":", out);
    if (rc != 1) {
        fputs("null", out);
        if (rc == 0) {
            fputs(",\"usl_refused\":", out);
            put_string(out, why, sizeof(why));
        }
        fputc('}', out);
        return;
    }
    fputs("{\"lambda\":", out);
    put_double(out, f.lambda);
    fputs(",\"sigma\":", out);
    put_double(out, f.sigma);
    fputs(",\"kappa\":", out);
    put_double(out, f.kappa);
    fputs(",\"peak_users\":", out);
    put_double(out, f.has_peak ? f.peak_users : NAN);
    fputs(",\"peak_throughput\":", out);
    put_double(out, f.has_peak ? f.peak_throughput : NAN);
    fputs(",\"ceiling\":", out);
    put_double(out, f.has_ceiling ? f.ceiling : NAN);
    fputs(",\"r2\":", out);
    put_double(out, f.r2);
    fputs(",\"left_out\":", out);
    put_double(out, f.left_out ? f.left_out_users : NAN);
    fprintf(out, ",\"steps\":%zu}}", f.steps);
}

/* ,"thresholds":{"conditions":N,"failed":["why",...],"steps_failed":N} */
static void put_verdicts(FILE *out, const struct report_verdicts *v)
{
    fprintf(out, ",\n\"thresholds\":{\"conditions\":%" PRIu32 ",\"failed\":[", v->n_rules);
    for (uint32_t i = 0; i < v->n_failed && i < REPORT_VERDICTS_MAX; i++) {
        if (i)
            fputc(',', out);
        put_string(out, v->why[i], TICK_TEXT_MAX);
    }
    fprintf(out, "],\"steps_failed\":%" PRIu32 "}", v->steps_failed);
}

/* ,"agents":{"count":N,"partial_ticks":N,"lost":[{...}]}: a run with agents
 * only; each lost agent with what it may have done after its last tick. */
static void put_agents(FILE *out, const struct summary *sum)
{
    struct summary_lost l;

    if (summary_n_agents(sum) == 0)
        return;
    fprintf(out, ",\n\"agents\":{\"count\":%" PRIu32 ",\"partial_ticks\":%" PRIu64 ",\"lost\":[",
            summary_n_agents(sum), summary_partial_ticks(sum));
    for (uint32_t i = 0; summary_lost(sum, i, &l) == 0; i++) {
        fputs(i ? ",{\"name\":" : "{\"name\":", out);
        put_string(out, l.name, TICK_NAME_MAX);
        fprintf(out, ",\"lost_at_us\":%" PRIu64 ",\"has_tick\":%s", l.lost_at_us,
                l.has_tick ? "true" : "false");
        if (l.has_tick) {
            fprintf(out,
                    ",\"last_tick_end_us\":%" PRIu64 ",\"until_us\":%" PRIu64
                    ",\"interval_us\":%" PRIu64,
                    l.last_end_us, l.until_us, l.until_us - l.last_end_us);
            fputc(',', out);
            put_rate(out, "last_rate_per_s", l.rate_per_s);
            fprintf(out, ",\"in_flight\":%" PRIu32 ",\"uncounted_requests\":%" PRIu64, l.in_flight,
                    l.requests);
        }
        fputc('}', out);
    }
    fputs("]}", out);
}

/* A string, or null when s is NULL (not known). */
static void put_string_or_null(FILE *out, const char *s, size_t cap)
{
    if (s)
        put_string(out, s, cap);
    else
        fputs("null", out);
}

/* ,"brink_version":...,"start_time":...,"url":...,"urls":[...],
 * "command_line":...: what run this is; null (urls []) when not known. */
static void put_meta(FILE *out, const struct report_meta *m)
{
    static const struct report_meta none = {0};
    char when[REPORT_TIME_MAX];

    m = m ? m : &none;
    fputs(",\"brink_version\":", out);
    put_string_or_null(out, m->brink_version && m->brink_version[0] ? m->brink_version : NULL,
                       TICK_TEXT_MAX);
    fputs(",\"start_time\":", out);
    put_string_or_null(out, m->start_wall_ms ? report__fmt_time(m->start_wall_ms, when) : NULL,
                       sizeof(when));
    fputs(",\n\"url\":", out);
    put_string_or_null(out, m->n_urls ? m->urls[0] : NULL, SIZE_MAX);
    fputs(",\"urls\":[", out);
    for (size_t i = 0; i < m->n_urls; i++) {
        if (i)
            fputc(',', out);
        put_string(out, m->urls[i], SIZE_MAX);
    }
    fputs("],\n\"command_line\":", out);
    put_string_or_null(out, m->command_line, SIZE_MAX);
}

int format_json(const struct summary *sum, const struct steps *st, const struct report_verdicts *v,
                const struct report_meta *meta, FILE *out)
{
    struct summary_totals k;
    uint64_t d = summary_duration_us(sum);
    struct summary_totals failed;

    fprintf(out, "{\"brink_report\":%d", REPORT_JSON_VERSION);
    put_meta(out, meta);
    fprintf(out, ",\"duration_us\":%" PRIu64 ",\n\"total\":", d);
    summary_totals(sum, SUMMARY_TOTAL, &k);
    summary_totals(sum, SUMMARY_FAILED, &failed);
    k.name = NULL;
    put_totals(out, &k, &failed, d);
    put_statuses(out, sum);
    put_phases(out, sum);
    put_open(out, sum, d);
    fputs(",\n\"kinds\":[", out);
    for (uint32_t i = 0; i < summary_n_kinds(sum); i++) {
        summary_totals(sum, (int)i, &k);
        fputs(i ? ",\n" : "\n", out);
        put_totals(out, &k, NULL, d);
    }
    fputc(']', out);
    put_steps(out, st);
    put_capacity(out, st);
    put_agents(out, sum);
    if (v)
        put_verdicts(out, v);
    fputs("}\n", out);
    return report__finish(out);
}
