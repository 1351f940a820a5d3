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
        fputs(report_fmt_g(v, 17, buf), out);
}

/* A rate with 3 decimals. */
static void put_rate(FILE *out, const char *key, double v)
{
    char buf[REPORT_NUM_MAX];

    fprintf(out, "\"%s\":%s", key, report_fmt_fixed(v, 3, buf));
}

/* "errors":{"refused":0,...}: every class, in the class list's order. */
static void put_errors(FILE *out, const uint64_t *errors)
{
    uint64_t failed = 0;

    for (int c = 0; c < ERR__COUNT; c++)
        failed += errors[c];
    fprintf(out, "\"failed\":%" PRIu64 ",\"errors\":{", failed);
    for (int c = 0; c < ERR__COUNT; c++)
        fprintf(out, "%s\"%s\":%" PRIu64, c ? "," : "", errclass_name((enum errclass)c), errors[c]);
    fputc('}', out);
}

static void put_totals(FILE *out, const struct summary_totals *k, uint64_t duration_ms)
{
    const struct hist *h = k->hist;

    fputc('{', out);
    if (k->name != NULL) {
        fputs("\"name\":", out);
        put_string(out, k->name, TICK_NAME_MAX);
        fputc(',', out);
    }
    fprintf(out, "\"requests\":%" PRIu64 ",", k->completed);
    put_rate(out, "req_per_s", report_per_second(k->completed, duration_ms));
    fprintf(out, ",\"bytes_in\":%" PRIu64 ",\"bytes_out\":%" PRIu64 ",", k->bytes_in, k->bytes_out);
    put_rate(out, "mb_per_s_in", report_per_second(k->bytes_in, duration_ms) / 1e6);
    fputc(',', out);
    put_errors(out, k->errors);
    fprintf(out,
            ",\"latency_us\":{\"timed\":%" PRIu64 ",\"min\":%" PRIu64 ",\"mean\":%" PRIu64
            ",\"p50\":%" PRIu64 ",\"p90\":%" PRIu64 ",\"p99\":%" PRIu64 ",\"p999\":%" PRIu64
            ",\"max\":%" PRIu64 ",\"stddev\":%" PRIu64 "},\"histogram_gaps\":%" PRIu64 "}",
            hist_count(h), hist_min(h), report_round_u64(hist_mean(h)), hist_percentile(h, 50.0),
            hist_percentile(h, 90.0), hist_percentile(h, 99.0), hist_percentile(h, 99.9),
            hist_max(h), report_round_u64(hist_stddev(h)), k->hist_gaps);
}

static void put_probes(FILE *out, const struct steps *st, const struct step_row *r)
{
    fputs(",\"probes\":[", out);
    for (uint32_t i = 0; i < steps_n_probes(st); i++) {
        const struct step_probe *p = &r->probes[i];

        fputs(i ? ",{\"name\":" : "{\"name\":", out);
        put_string(out, steps_probe_name(st, i), TICK_NAME_MAX);
        fputs(",\"max\":", out);
        p->has_value ? put_double(out, p->max) : (void)fputs("null", out);
        fputs(",\"last\":", out);
        p->has_value ? put_double(out, p->last) : (void)fputs("null", out);
        fputc('}', out);
    }
    fputc(']', out);
}

static void put_step(FILE *out, const struct steps *st, const struct step_row *r)
{
    fprintf(out, "{\"model\":\"%s\",\"level\":", load_model_name(r->model));
    put_double(out, r->level);
    fprintf(out,
            ",\"rows\":%" PRIu32 ",\"start_ms\":%" PRIu64 ",\"duration_ms\":%" PRIu64
            ",\"folded_ms\":%" PRIu64 ",\"ticks\":%" PRIu64 ",\"requests\":%" PRIu64
            ",\"ok\":%" PRIu64 ",",
            r->n_rows, r->start_ms, r->duration_ms, r->folded_ms, r->n_ticks, r->completed, r->ok);
    put_rate(out, "req_per_s", report_per_second(r->completed, r->duration_ms));
    fprintf(out, ",\"bytes_in\":%" PRIu64 ",\"bytes_out\":%" PRIu64 ",", r->bytes_in, r->bytes_out);
    put_rate(out, "mb_per_s_in", report_per_second(r->bytes_in, r->duration_ms) / 1e6);
    fputc(',', out);
    put_errors(out, r->errors);
    fprintf(out,
            ",\"latency_us\":{\"timed\":%" PRIu64 ",\"p50\":%" PRIu64 ",\"p90\":%" PRIu64
            ",\"p99\":%" PRIu64 ",\"p999\":%" PRIu64 ",\"max\":%" PRIu64
            "},\"histogram_gaps\":%" PRIu64,
            r->timed, r->p50_us, r->p90_us, r->p99_us, r->p999_us, r->max_us, r->hist_gaps);
    put_probes(out, st, r);
    if (r->plan_step) {
        fprintf(out,
                ",\"plan\":{\"step\":%" PRIu32 ",\"n_steps\":%" PRIu32
                ",\"warmup_ms\":%" PRIu64 ",\"verdict\":\"%s\",\"why\":",
                r->plan_step, r->plan_n_steps, r->warmup_ms, plan_verdict_name(r->verdict));
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
}

/* Open model only: "send_lag":{"sent":N,"latency_us":{...},"histogram_gaps":G},
 * how late brink sent its requests; latency_us as in put_totals. */
static void put_send_lag(FILE *out, const struct summary *sum)
{
    struct summary_totals k;
    const struct hist *h;

    summary_totals(sum, SUMMARY_SEND_LAG, &k);
    h = k.hist;
    fprintf(out,
            ",\n\"send_lag\":{\"sent\":%" PRIu64 ",\"latency_us\":{\"timed\":%" PRIu64
            ",\"min\":%" PRIu64 ",\"mean\":%" PRIu64 ",\"p50\":%" PRIu64 ",\"p90\":%" PRIu64
            ",\"p99\":%" PRIu64 ",\"p999\":%" PRIu64 ",\"max\":%" PRIu64 ",\"stddev\":%" PRIu64
            "},\"histogram_gaps\":%" PRIu64 "}",
            k.completed, hist_count(h), hist_min(h), report_round_u64(hist_mean(h)),
            hist_percentile(h, 50.0), hist_percentile(h, 90.0), hist_percentile(h, 99.0),
            hist_percentile(h, 99.9), hist_max(h), report_round_u64(hist_stddev(h)), k.hist_gaps);
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
    put_totals(out, &k, d);
    fprintf(out, ",\n\"schedule\":{\"open_ms\":%" PRIu64 ",", sc->open_ms);
    put_rate(out, "requested_per_s", sc->open_ms ? sc->rate_ms / (double)sc->open_ms : 0);
    fputc(',', out);
    put_rate(out, "achieved_per_s", report_per_second(sc->started, sc->open_ms));
    fprintf(out,
            ",\"started\":%" PRIu64 ",\"called\":%" PRIu64 ",\"max_lag_us\":%" PRIu64
            ",\"capped\":%" PRIu64 ",\"ticks\":%" PRIu64 ",\"ticks_not_kept\":%" PRIu64 "}",
            sc->started, sc->called, sc->max_lag_us, sc->capped, sc->open_ticks,
            sc->ticks_not_kept);
    put_send_lag(out, sum);
}

int format_json(const struct summary *sum, const struct steps *st, FILE *out)
{
    struct summary_totals k;
    uint64_t d = summary_duration_ms(sum);

    fprintf(out, "{\"brink_report\":1,\"duration_ms\":%" PRIu64 ",\n\"total\":", d);
    summary_totals(sum, SUMMARY_TOTAL, &k);
    k.name = NULL;
    put_totals(out, &k, d);
    put_open(out, sum, d);
    fputs(",\n\"kinds\":[", out);
    for (uint32_t i = 0; i < summary_n_kinds(sum); i++) {
        summary_totals(sum, (int)i, &k);
        fputs(i ? ",\n" : "\n", out);
        put_totals(out, &k, d);
    }
    fputc(']', out);
    put_steps(out, st);
    fputs("}\n", out);
    return report_finish(out);
}
