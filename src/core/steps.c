#include "core/steps.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "core/tick.h"
#include "core/xalloc.h"

/* All rows of one level: their sums, and their histograms merged, kept
 * encoded (hist_encode) so a level costs its non-empty buckets only. */
struct level_acc {
    struct step_row sum;
    unsigned char *enc;
    size_t enc_len;
    unsigned char *kind_enc[STEPS_MAX_KINDS]; /* each kind's, the same way */
    size_t kind_enc_len[STEPS_MAX_KINDS];
};

struct probe_name {
    char name[TICK_NAME_MAX];
};

struct steps {
    int is_open;           /* cur is a row in progress */
    int cur_holds;         /* some tick of cur held its level */
    struct step_row cur;   /* the open row */
    struct hist *cur_hist; /* its interval histograms merged */
    struct hist *scratch;  /* one decoded histogram */
    struct step_row *rows; /* closed rows, n_rows of cap_rows */
    size_t n_rows;
    size_t cap_rows;
    uint64_t rows_not_kept;
    uint64_t completed_not_kept;
    struct level_acc *levels; /* sorted by model, then level */
    size_t n_levels;
    size_t cap_levels;
    uint64_t levels_not_kept; /* rows of levels past STEPS_MAX_LEVELS */
    uint32_t n_probes;
    struct probe_name probes[TICK_MAX_PROBES];
    enum tick_mark probe_marks[TICK_MAX_PROBES]; /* what each is */
    uint32_t n_kinds;
    struct probe_name kinds[STEPS_MAX_KINDS]; /* kind names, as probes' */
    struct hist *kind_hist[STEPS_MAX_KINDS];  /* the open row's, made on first sight */
    struct step_row run;                      /* the whole run: every tick, warm-ups included */
    struct hist *run_hist;                    /* its histograms merged */
    double run_level_us;                      /* sum of level x duration over held ticks */
};

struct steps *steps_new(void)
{
    struct steps *s = xcalloc(1, sizeof(*s));

    s->cur_hist = hist_new();
    s->scratch = hist_new();
    s->run_hist = hist_new();
    return s;
}

void steps_free(struct steps *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n_levels; i++) {
        free(s->levels[i].enc);
        for (uint32_t k = 0; k < STEPS_MAX_KINDS; k++)
            free(s->levels[i].kind_enc[k]);
    }
    for (uint32_t k = 0; k < s->n_kinds; k++)
        hist_free(s->kind_hist[k]);
    free(s->levels);
    free(s->rows);
    hist_free(s->cur_hist);
    hist_free(s->scratch);
    hist_free(s->run_hist);
    free(s);
}

uint64_t steps_row_failed(const struct step_row *r)
{
    return errclass_sum(r->errors);
}

const char *steps_verdict_label(const struct step_row *r)
{
    switch (r->verdict) {
    case VERDICT_PASS: return "pass";
    case VERDICT_FAIL: return "FAIL";
    case VERDICT_CUT: return "cut short";
    case VERDICT_OFF_LEVEL: return "not judged: off level";
    case VERDICT_NONE: break;
    }
    /* The plan judges a step at its end: a row of one closed before it
     * was a stretch the step's level left. */
    return r->plan_step ? "not judged: level changed" : "";
}

double steps_row_ok_rate(const struct step_row *r)
{
    return tick_per_s(r->ok, r->duration_us);
}

double steps_row_rate_se(const struct step_row *r)
{
    double n = (double)r->held_ticks, var;

    if (r->held_ticks < 2)
        return 0;
    var = (r->rate_sum2 - r->rate_sum * r->rate_sum / n) / (n - 1);
    return var > 0 ? sqrt(var / n) : 0;
}

double steps_row_held_ok_rate(const struct step_row *r)
{
    return r->held_ticks ? r->rate_sum / (double)r->held_ticks : 0;
}

/* ---- levels ---- */

static int level_cmp(enum load_model m, double level, const struct step_row *r)
{
    if (m != r->model)
        return m < r->model ? -1 : 1;
    if (level != r->level)
        return level < r->level ? -1 : 1;
    return 0;
}

/* The accumulator of r's level, created (zeroed, in sorted place) on first
 * sight; NULL when the table is full. */
static struct level_acc *level_of(struct steps *s, const struct step_row *r)
{
    size_t i = 0;
    struct level_acc *l;

    while (i < s->n_levels && level_cmp(r->model, r->level, &s->levels[i].sum) > 0)
        i++;
    if (i < s->n_levels && level_cmp(r->model, r->level, &s->levels[i].sum) == 0)
        return &s->levels[i];
    if (s->n_levels == STEPS_MAX_LEVELS)
        return NULL;
    if (s->n_levels == s->cap_levels) {
        s->cap_levels = s->cap_levels ? s->cap_levels * 2 : 8;
        s->levels = xrealloc(s->levels, s->cap_levels * sizeof(s->levels[0]));
    }
    memmove(&s->levels[i + 1], &s->levels[i], (s->n_levels - i) * sizeof(s->levels[0]));
    s->n_levels++;
    l = &s->levels[i];
    memset(l, 0, sizeof(*l));
    l->sum.model = r->model;
    l->sum.level = r->level;
    l->sum.start_us = r->start_us;
    return l;
}

/* Merges h into the encoded histogram *enc of *len bytes (none when 0). */
static void merge_encoded(struct steps *s, unsigned char **enc, size_t *len, const struct hist *h)
{
    if (hist_count(h) == 0)
        return;
    hist_reset(s->scratch);
    if (*len > 0 && hist_decode(s->scratch, *enc, *len) != 0)
        hist_reset(s->scratch); /* cannot happen: we encoded it */
    hist_merge(s->scratch, h);
    *len = hist_encode(s->scratch, NULL, 0);
    *enc = xrealloc(*enc, *len);
    hist_encode(s->scratch, *enc, *len);
}

/* Adds the figures of closed row r (whose histogram is s->cur_hist) to its level. */
static void level_add(struct steps *s, const struct step_row *r)
{
    struct level_acc *l = level_of(s, r);
    struct step_row *sum;

    if (l == NULL) {
        s->levels_not_kept++;
        return;
    }
    sum = &l->sum;
    sum->n_rows++;
    sum->duration_us += r->duration_us;
    sum->folded_us += r->folded_us;
    sum->n_ticks += r->n_ticks;
    sum->held_ticks += r->held_ticks;
    sum->rate_sum += r->rate_sum;
    sum->rate_sum2 += r->rate_sum2;
    sum->started += r->started;
    sum->completed += r->completed;
    sum->ok += r->ok;
    sum->bytes_in += r->bytes_in;
    sum->bytes_out += r->bytes_out;
    sum->hist_gaps += r->hist_gaps;
    errclass_add(sum->errors, r->errors);
    for (int c = 0; c < RESEND__COUNT; c++)
        sum->resent[c] += r->resent[c];
    for (uint32_t i = 0; i < TICK_MAX_PROBES; i++) {
        const struct step_probe *p = &r->probes[i];

        if (!p->has_value)
            continue;
        if (!sum->probes[i].has_value || p->max > sum->probes[i].max)
            sum->probes[i].max = p->max;
        if (!sum->probes[i].has_value || p->min < sum->probes[i].min)
            sum->probes[i].min = p->min;
        sum->probes[i].last = p->last;
        sum->probes[i].sum += p->sum;
        sum->probes[i].passed += p->passed;
        sum->probes[i].has_value = 1;
    }
    for (uint32_t k = 0; k < s->n_kinds; k++) {
        sum->kinds[k].completed += r->kinds[k].completed;
        sum->kinds[k].ok += r->kinds[k].ok;
        merge_encoded(s, &l->kind_enc[k], &l->kind_enc_len[k], s->kind_hist[k]);
    }
    merge_encoded(s, &l->enc, &l->enc_len, s->cur_hist);
}

static void set_kind_latency(struct step_kind *k, const struct hist *h)
{
    k->timed = hist_count(h);
    if (k->timed == 0)
        return;
    k->p50_us = hist_percentile(h, 50.0);
    k->p90_us = hist_percentile(h, 90.0);
    k->p95_us = hist_percentile(h, 95.0);
    k->p99_us = hist_percentile(h, 99.0);
    k->max_us = hist_max(h);
}

static void set_latency(struct step_row *r, const struct hist *h)
{
    r->timed = hist_count(h);
    if (r->timed == 0)
        return;
    r->mean_us = (uint64_t)(hist_mean(h) + 0.5);
    r->p50_us = hist_percentile(h, 50.0);
    r->p90_us = hist_percentile(h, 90.0);
    r->p95_us = hist_percentile(h, 95.0);
    r->p99_us = hist_percentile(h, 99.0);
    r->p999_us = hist_percentile(h, 99.9);
    r->max_us = hist_max(h);
}

/* The open row's kinds' latency figures into r. */
static void set_kinds_latency(const struct steps *s, struct step_row *r)
{
    for (uint32_t k = 0; k < s->n_kinds; k++)
        set_kind_latency(&r->kinds[k], s->kind_hist[k]);
}

/* ---- rows ---- */

int steps_row_is_off_level(const struct step_row *r)
{
    if (r->plan_step == 0)
        return 0;
    if (r->model == LOAD_CLOSED)
        return llround(r->level) != llround(r->plan_level);
    return fabs(r->level - r->plan_level) > 1e-6 * fmax(1, r->plan_level);
}

static void close_row(struct steps *s)
{
    struct step_row *r = &s->cur;

    if (!s->is_open)
        return;
    /* A stretch of a plan step at another level (its level changed within
     * the step) that the plan did not judge. */
    if (r->verdict == VERDICT_NONE && s->cur_holds && steps_row_is_off_level(r))
        r->verdict = VERDICT_OFF_LEVEL;
    set_latency(r, s->cur_hist);
    set_kinds_latency(s, r);
    level_add(s, r);
    if (s->n_rows == STEPS_MAX_ROWS) {
        s->rows_not_kept++;
        s->completed_not_kept += r->completed;
    } else {
        if (s->n_rows == s->cap_rows) {
            s->cap_rows = s->cap_rows ? s->cap_rows * 2 : 16;
            if (s->cap_rows > STEPS_MAX_ROWS)
                s->cap_rows = STEPS_MAX_ROWS;
            s->rows = xrealloc(s->rows, s->cap_rows * sizeof(s->rows[0]));
        }
        s->rows[s->n_rows++] = *r;
    }
    hist_reset(s->cur_hist);
    for (uint32_t k = 0; k < s->n_kinds; k++)
        hist_reset(s->kind_hist[k]);
    s->is_open = 0;
}

static double level_of_tick(const struct tick *t)
{
    return t->model == LOAD_OPEN ? t->target_rate_per_s : (double)t->target_concurrency;
}

/* The plan step a tick belongs to; 0 outside a plan's steps (a plan that
 * holds after a failure holds a plain level). */
static uint32_t plan_step_of(const struct tick *t)
{
    return t->plan.phase == PLAN_WARMUP || t->plan.phase == PLAN_MEASURE ? t->plan.step : 0;
}

static void open_row(struct steps *s, const struct tick *t)
{
    memset(&s->cur, 0, sizeof(s->cur));
    s->cur.model = t->model;
    s->cur.level = level_of_tick(t);
    s->cur.plan_step = plan_step_of(t);
    s->cur.plan_n_steps = s->cur.plan_step ? t->plan.n_steps : 0;
    s->cur.plan_level = s->cur.plan_step ? t->plan.level : 0;
    s->cur.n_rows = 1;
    s->cur.start_us = t->start_us;
    s->is_open = 1;
    s->cur_holds = 0;
}

static void probe_add(struct step_probe *p, double v)
{
    if (!p->has_value || v > p->max)
        p->max = v;
    if (!p->has_value || v < p->min)
        p->min = v;
    p->last = v;
    p->has_value = 1;
}

/* t's probe values into row r (and the run's when with_run). */
static void add_probes(struct steps *s, struct step_row *r, const struct tick *t)
{
    uint32_t n = t->n_probes;

    for (uint32_t i = 0; i < n; i++) {
        const struct tick_probe *tp = &t->probes[i];
        uint32_t before = s->n_probes;
        int k =
            tick_name_row(s->probes, sizeof(s->probes[0]), &s->n_probes, TICK_MAX_PROBES, tp->name);

        if (k < 0)
            continue;
        if (s->n_probes != before)
            s->probe_marks[k] = tp->mark;
        if (!tp->has_value)
            continue;
        probe_add(&r->probes[k], tp->value);
        if (steps_probe_is_total(s, (uint32_t)k)) {
            r->probes[k].sum += tp->value;
            r->probes[k].passed += tp->passed;
        }
    }
}

/* The part of t that held its row's level: none of a pause, none of a
 * drain (drain_us; in every tick after the stop began). */
static uint64_t held_us(const struct tick *t)
{
    if (t->state == RUN_PAUSED)
        return 0;
    return t->drain_us < t->duration_us ? t->duration_us - t->drain_us : 0;
}

/* Adds t's counts to r, and length_us to r's duration. */
static void add_counts(struct step_row *r, const struct tick *t, uint64_t length_us)
{
    r->duration_us += length_us;
    r->n_ticks++;
    r->started += t->total.started;
    r->completed += t->total.completed;
    r->ok += t->total.ok;
    r->bytes_in += t->total.bytes_in;
    r->bytes_out += t->total.bytes_out;
    errclass_add(r->errors, t->total.errors);
    for (int c = 0; c < RESEND__COUNT; c++)
        r->resent[c] += t->resent[c];
}

/* The whole run: every tick counts; only a pause's length does not. The
 * tick's histogram is decoded into s->scratch here, once: rc says how it
 * went, for add_hist. */
static int add_to_run(struct steps *s, const struct tick *t)
{
    int rc = tick_get_hist(t, &t->total, s->scratch);

    if (t->state != RUN_PAUSED) {
        s->run_level_us += level_of_tick(t) * (double)t->duration_us;
        s->run.model = t->model;
    }
    add_counts(&s->run, t, t->state != RUN_PAUSED ? t->duration_us : 0);
    add_probes(s, &s->run, t);
    if (rc == 0)
        hist_merge(s->run_hist, s->scratch);
    else if (!(rc == -ENOENT && t->total.ok == 0 && t->total.window.count == 0))
        s->run.hist_gaps++;
    return rc;
}

/* t's kinds into row r: counts, and histograms into the open row's. Uses
 * s->scratch: after add_hist. */
static void add_kinds(struct steps *s, struct step_row *r, const struct tick *t)
{
    uint32_t n = t->n_kinds;

    for (uint32_t i = 0; i < n; i++) {
        const struct tick_kind *tk = &t->kinds[i];
        int k =
            tick_name_row(s->kinds, sizeof(s->kinds[0]), &s->n_kinds, STEPS_MAX_KINDS, tk->name);

        if (k < 0)
            continue;
        if (!s->kind_hist[k])
            s->kind_hist[k] = hist_new();
        r->kinds[k].completed += tk->completed;
        r->kinds[k].ok += tk->ok;
        if (tick_get_hist(t, tk, s->scratch) == 0)
            hist_merge(s->kind_hist[k], s->scratch);
    }
}

/* Merges t's total histogram, decoded by add_to_run (rc), into the open
 * row. Returns 0 or -EINVAL. */
static int add_hist(struct steps *s, const struct tick *t, int rc)
{
    if (rc == 0) {
        hist_merge(s->cur_hist, s->scratch);
        return 0;
    }
    /* An interval without requests may carry no histogram at all. */
    if (rc == -ENOENT && t->total.ok == 0 && t->total.window.count == 0)
        return 0;
    s->cur.hist_gaps++;
    return rc == -EINVAL ? -EINVAL : 0;
}

int steps_add_tick(struct steps *s, const struct tick *t)
{
    int holds = t->state == RUN_RUNNING || t->state == RUN_STARTING;
    struct step_row *r;
    int rc;

    if (!s->is_open) {
        open_row(s, t);
    } else if (holds && !s->cur_holds) {
        /* A row of folded ticks only takes the first held level. */
        s->cur.model = t->model;
        s->cur.level = level_of_tick(t);
        s->cur.plan_step = plan_step_of(t);
        s->cur.plan_n_steps = s->cur.plan_step ? t->plan.n_steps : 0;
        s->cur.plan_level = s->cur.plan_step ? t->plan.level : 0;
    } else if (holds && (level_cmp(t->model, level_of_tick(t), &s->cur) != 0 ||
                         plan_step_of(t) != s->cur.plan_step)) {
        close_row(s);
        open_row(s, t);
    }
    /* After the rows moved: closing one reuses the scratch histogram. */
    rc = add_to_run(s, t);
    r = &s->cur;
    if (t->plan.verdict != VERDICT_NONE && r->plan_step) {
        r->verdict = t->plan.verdict;
        tick_copy_text(r->why, sizeof(r->why), t->plan.why);
    }
    if (holds && t->plan.phase == PLAN_WARMUP) {
        s->cur_holds = 1;
        r->warmup_us += t->duration_us;
        return 0;
    }
    if (holds) {
        double rate = tick_per_s(t->total.ok, t->duration_us);

        s->cur_holds = 1;
        r->held_ticks++;
        r->rate_sum += rate;
        r->rate_sum2 += rate * rate;
    }
    /* The run's tail (STOPPING, DONE): its completions were sent at this
     * level and count here, and so does its length up to the stop (a run
     * that ends on its request limit has no stop); the drain after it is
     * folded, or it would halve the last step's req/s when replies take as
     * long as the step. */
    r->folded_us += t->duration_us - held_us(t);
    add_counts(r, t, held_us(t));
    add_probes(s, r, t);
    rc = add_hist(s, t, rc);
    add_kinds(s, r, t);
    return rc;
}

uint32_t steps_n_kinds(const struct steps *s)
{
    return s->n_kinds;
}

const char *steps_kind_name(const struct steps *s, uint32_t i)
{
    return i < s->n_kinds ? s->kinds[i].name : "";
}

double steps_kind_rate(const struct step_row *r, uint32_t i)
{
    return i < STEPS_MAX_KINDS ? tick_per_s(r->kinds[i].completed, r->duration_us) : 0;
}

int steps_run(const struct steps *s, struct step_row *out)
{
    if (s->run.n_ticks == 0)
        return -ENOENT;
    *out = s->run;
    out->n_rows = 1;
    out->level = s->run.duration_us ? s->run_level_us / (double)s->run.duration_us : 0;
    set_latency(out, s->run_hist);
    return 0;
}

void steps_finish(struct steps *s)
{
    close_row(s);
}

/* ---- accessors ---- */

int steps_current(const struct steps *s, struct step_row *out)
{
    if (!s->is_open)
        return -ENOENT;
    *out = s->cur;
    set_latency(out, s->cur_hist);
    set_kinds_latency(s, out);
    return 0;
}

size_t steps_count(const struct steps *s)
{
    return s->n_rows;
}

const struct step_row *steps_row(const struct steps *s, size_t i)
{
    return i < s->n_rows ? &s->rows[i] : NULL;
}

uint64_t steps_rows_not_kept(const struct steps *s)
{
    return s->rows_not_kept;
}

uint64_t steps_completed_not_kept(const struct steps *s)
{
    return s->completed_not_kept;
}

uint32_t steps_n_probes(const struct steps *s)
{
    return s->n_probes;
}

const char *steps_probe_name(const struct steps *s, uint32_t i)
{
    return i < s->n_probes ? s->probes[i].name : NULL;
}

enum tick_mark steps_probe_mark(const struct steps *s, uint32_t i)
{
    return i < s->n_probes ? s->probe_marks[i] : TICK_MARK_NONE;
}

int steps_probe_is_total(const struct steps *s, uint32_t i)
{
    enum tick_mark m = steps_probe_mark(s, i);

    return m == TICK_MARK_CHECK || m == TICK_MARK_COUNTER;
}

size_t steps_level_count(const struct steps *s)
{
    return s->n_levels;
}

int steps_level(const struct steps *s, size_t i, struct step_row *out)
{
    const struct level_acc *l;

    if (i >= s->n_levels)
        return -ENOENT;
    l = &s->levels[i];
    *out = l->sum;
    if (l->enc_len > 0 && hist_decode(s->scratch, l->enc, l->enc_len) == 0)
        set_latency(out, s->scratch);
    for (uint32_t k = 0; k < s->n_kinds; k++) {
        if (l->kind_enc_len[k] > 0 &&
            hist_decode(s->scratch, l->kind_enc[k], l->kind_enc_len[k]) == 0)
            set_kind_latency(&out->kinds[k], s->scratch);
    }
    return 0;
}

uint64_t steps_levels_not_kept(const struct steps *s)
{
    return s->levels_not_kept;
}
