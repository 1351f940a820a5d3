#include <stdlib.h>
#include <string.h>

#include "core/errclass.h"
#include "core/hist.h"
#include "core/xalloc.h"
#include "engine/internal.h"

static void stats_init(struct kind_stats *k)
{
    memset(k, 0, sizeof(*k));
    k->hist = hist_new();
}

static void stats_reset(struct kind_stats *k)
{
    struct hist *h = k->hist;

    memset(k, 0, sizeof(*k));
    hist_reset(h);
    k->hist = h;
}

static void stats_add(struct kind_stats *dst, const struct kind_stats *src)
{
    dst->started += src->started;
    dst->completed += src->completed;
    dst->ok += src->ok;
    dst->bytes_in += src->bytes_in;
    dst->bytes_out += src->bytes_out;
    errclass_add(dst->errors, src->errors);
    hist_merge(dst->hist, src->hist);
}

void engine__interval_init(struct interval *iv, size_t n_kinds)
{
    memset(iv, 0, sizeof(*iv));
    stats_init(&iv->total);
    iv->n_kinds = n_kinds;
    iv->kinds = xcalloc(n_kinds, sizeof(*iv->kinds));
    for (size_t i = 0; i < n_kinds; i++)
        stats_init(&iv->kinds[i]);
    iv->service = hist_new();
    iv->failed = hist_new();
    iv->send_lag = hist_new();
    for (int p = 0; p < PHASE__COUNT; p++)
        iv->phases[p] = hist_new();
}

/* Empties iv for the next interval; the histograms are kept, not freed. */
void engine__interval_reset(struct interval *iv)
{
    struct kind_stats total = iv->total;
    struct kind_stats *kinds = iv->kinds;
    struct hist *service = iv->service, *failed = iv->failed;
    struct hist *send_lag = iv->send_lag;
    struct hist *phases[PHASE__COUNT];
    size_t n = iv->n_kinds;

    memcpy(phases, iv->phases, sizeof(phases));
    memset(iv, 0, sizeof(*iv));
    for (int p = 0; p < PHASE__COUNT; p++) {
        iv->phases[p] = phases[p];
        hist_reset(phases[p]);
    }
    iv->service = service;
    hist_reset(service);
    iv->failed = failed;
    hist_reset(failed);
    iv->send_lag = send_lag;
    hist_reset(send_lag);
    iv->total = total;
    stats_reset(&iv->total);
    iv->kinds = kinds;
    iv->n_kinds = n;
    for (size_t i = 0; i < n; i++)
        stats_reset(&iv->kinds[i]);
}

void engine__interval_free(struct interval *iv)
{
    if (!iv->kinds)
        return;
    hist_free(iv->total.hist);
    hist_free(iv->service);
    iv->service = NULL;
    hist_free(iv->failed);
    iv->failed = NULL;
    hist_free(iv->send_lag);
    iv->send_lag = NULL;
    for (int p = 0; p < PHASE__COUNT; p++) {
        hist_free(iv->phases[p]);
        iv->phases[p] = NULL;
    }
    for (size_t i = 0; i < iv->n_kinds; i++)
        hist_free(iv->kinds[i].hist);
    free(iv->kinds);
    iv->kinds = NULL;
}

void engine__interval_count_status(struct interval *iv, uint16_t code, uint64_t n)
{
    tick_status_add(iv->status, &iv->n_status, &iv->status_other, code, n);
}

void engine__interval_add_mark(struct interval *iv, const struct scene_mark *mk)
{
    struct scene_mark *at = NULL;

    for (uint32_t i = 0; i < iv->n_marks && !at; i++) {
        if (strcmp(iv->marks[i].name, mk->name) == 0)
            at = &iv->marks[i];
    }
    if (!at) {
        if (iv->n_marks == TICK_MAX_PROBES)
            return;
        at = &iv->marks[iv->n_marks++];
        *at = *mk;
        return;
    }
    if (mk->is_gauge) {
        at->value = mk->value;
    } else {
        at->value += mk->value;
        at->passed += mk->passed;
    }
}

void engine__interval_add(struct interval *dst, const struct interval *src)
{
    stats_add(&dst->total, &src->total);
    for (size_t i = 0; i < dst->n_kinds && i < src->n_kinds; i++)
        stats_add(&dst->kinds[i], &src->kinds[i]);
    for (uint32_t i = 0; i < src->n_status; i++)
        engine__interval_count_status(dst, src->status[i].code, src->status[i].count);
    dst->status_other += src->status_other;
    for (int c = 0; c < ERR__COUNT; c++) {
        /* Across workers, the earliest message is the first. */
        if (src->first_error[c][0] &&
            (!dst->first_error[c][0] || src->first_error_ns[c] < dst->first_error_ns[c])) {
            memcpy(dst->first_error[c], src->first_error[c], TICK_TEXT_MAX);
            dst->first_error_ns[c] = src->first_error_ns[c];
        }
    }
    dst->connections_opened += src->connections_opened;
    if (src->http_version)
        dst->http_version = src->http_version;
    dst->connections += src->connections;
    for (int p = 0; p < PHASE__COUNT; p++)
        hist_merge(dst->phases[p], src->phases[p]);
    dst->dropped += src->dropped;
    dst->aborted += src->aborted;
    dst->bodies_cut += src->bodies_cut;
    dst->cookies_dropped += src->cookies_dropped;
    dst->marks_dropped += src->marks_dropped;
    for (int c = 0; c < RESEND__COUNT; c++)
        dst->resent[c] += src->resent[c];
    if (src->loop_lag_us > dst->loop_lag_us)
        dst->loop_lag_us = src->loop_lag_us;
    hist_merge(dst->service, src->service);
    dst->service_completed += src->service_completed;
    hist_merge(dst->failed, src->failed);
    hist_merge(dst->send_lag, src->send_lag);
    dst->sched_taken += src->sched_taken;
    dst->sched_called += src->sched_called;
    dst->sched_backlog += src->sched_backlog;
    dst->sched_capped += src->sched_capped;
    if (src->sched_lag_us > dst->sched_lag_us)
        dst->sched_lag_us = src->sched_lag_us;
    if (src->end_ns > dst->end_ns)
        dst->end_ns = src->end_ns;
    dst->target += src->target;
    dst->active += src->active;
    dst->in_flight += src->in_flight;
    dst->fds_used += src->fds_used;
    for (uint32_t i = 0; i < src->n_marks; i++)
        engine__interval_add_mark(dst, &src->marks[i]);
}
