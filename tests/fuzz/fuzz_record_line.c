/*
 * Fuzzes the session reader. The first byte chooses the mode:
 *   - even: the rest is one line for record_parse_tick_line. A tick it accepts
 *     must be within the tick's bounds, and writing it again and parsing
 *     that gives the same tick: every field equal and, once written,
 *     every histogram the same bytes (a stored histogram read may be at
 *     the other precision than the writer gives it, latencies' or
 *     phases': the first write sets it, and the figures taken from it; a
 *     second write then re-packs to the same text); only where the
 *     histograms sit in data may change, as the writer stores a histogram
 *     equal to the total's once;
 *   - odd: the rest is a whole file for the streaming reader, which must
 *     end with 0 and report every bad line through its notice callback.
 */
#include "record/record.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_bounds(const struct tick *t)
{
    if (t->n_kinds > TICK_MAX_KINDS || t->n_probes > TICK_MAX_PROBES ||
        t->n_events > TICK_MAX_EVENTS || t->n_status > TICK_MAX_STATUS || t->data_len > t->data_cap)
        abort();
    if ((size_t)t->total.hist_offset + t->total.hist_len > t->data_len)
        abort();
    for (int p = 0; p < PHASE__COUNT; p++) {
        if ((size_t)t->phases[p].hist_offset + t->phases[p].hist_len > t->data_len)
            abort();
    }
    for (uint32_t i = 0; i < t->n_kinds; i++) {
        if ((size_t)t->kinds[i].hist_offset + t->kinds[i].hist_len > t->data_len ||
            strnlen(t->kinds[i].name, TICK_NAME_MAX) == TICK_NAME_MAX)
            abort();
    }
}

static void same_hist(const struct tick *a, const struct tick_kind *ka, const struct tick *b,
                      const struct tick_kind *kb)
{
    if (ka->hist_len != kb->hist_len ||
        memcmp(a->data + ka->hist_offset, b->data + kb->hist_offset, ka->hist_len) != 0)
        abort();
}

/* Every field equal, histograms compared by content, not by place; with
 * is_loose, neither the histograms nor the figures taken from them (the
 * failures' and the phases' interval figures) are compared. */
static void same_tick(const struct tick *a, const struct tick *b, int is_loose)
{
    static struct tick x, y;

    memcpy(&x, a, offsetof(struct tick, data_cap));
    memcpy(&y, b, offsetof(struct tick, data_cap));
    x.total.hist_offset = y.total.hist_offset = 0;
    for (uint32_t i = 0; i < TICK_MAX_KINDS; i++)
        x.kinds[i].hist_offset = y.kinds[i].hist_offset = 0;
    for (int p = 0; p < PHASE__COUNT; p++)
        x.phases[p].hist_offset = y.phases[p].hist_offset = 0;
    if (is_loose) {
        x.total.hist_len = y.total.hist_len = 0;
        x.service.hist_offset = y.service.hist_offset = x.service.hist_len = y.service.hist_len = 0;
        x.send_lag.hist_offset = y.send_lag.hist_offset = 0;
        x.send_lag.hist_len = y.send_lag.hist_len = 0;
        x.failed.hist_offset = y.failed.hist_offset = x.failed.hist_len = y.failed.hist_len = 0;
        memset(&x.failed.window, 0, sizeof(x.failed.window));
        memset(&y.failed.window, 0, sizeof(y.failed.window));
        for (uint32_t i = 0; i < TICK_MAX_KINDS; i++)
            x.kinds[i].hist_len = y.kinds[i].hist_len = 0;
        for (int p = 0; p < PHASE__COUNT; p++) {
            x.phases[p].hist_len = y.phases[p].hist_len = 0;
            memset(&x.phases[p].window, 0, sizeof(x.phases[p].window));
            memset(&y.phases[p].window, 0, sizeof(y.phases[p].window));
        }
    }
    if (memcmp(&x, &y, offsetof(struct tick, data_cap)) != 0)
        abort();
    if (is_loose)
        return;
    same_hist(a, &a->total, b, &b->total);
    for (uint32_t i = 0; i < a->n_kinds; i++)
        same_hist(a, &a->kinds[i], b, &b->kinds[i]);
    for (int p = 0; p < PHASE__COUNT; p++) {
        const struct tick_phase_stats *pa = &a->phases[p], *pb = &b->phases[p];

        if (pa->hist_len != pb->hist_len ||
            memcmp(a->data + pa->hist_offset, b->data + pb->hist_offset, pa->hist_len) != 0)
            abort();
    }
}

/* t written as a line and read back. */
static struct tick *write_and_read(const struct tick *t)
{
    json_t *o = record__tick_to_json(t);
    char *text = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
    struct tick *back;
    char why[256];

    if (!text || record_parse_tick_line(text, strlen(text), &back, why, sizeof(why)) != 0)
        abort();
    free(text);
    json_decref(o);
    return back;
}

static void fuzz_line(const char *line, size_t len)
{
    char why[256];
    struct tick *t, *again, *third;

    if (record_parse_tick_line(line, len, &t, why, sizeof(why)) != 0) {
        if (t)
            abort();
        return;
    }
    check_bounds(t);
    again = write_and_read(t);
    same_tick(t, again, 1);
    third = write_and_read(again);
    same_tick(again, third, 0);
    tick_free(third);
    tick_free(again);
    tick_free(t);
}

static void count_notice(void *arg, uint64_t line, const char *msg)
{
    (void)line;
    if (!msg[0])
        abort();
    (*(int *)arg)++;
}

static void fuzz_file(const uint8_t *data, size_t size)
{
    FILE *f = size ? fmemopen((void *)data, size, "r") : NULL;
    struct record_reader *r;
    struct record_end end;
    struct tick *t;
    char err[256];
    int notices = 0, rc;

    if (!f)
        return;
    if (record_read_stream(f, "fuzz", count_notice, &notices, err, sizeof(err), &r) != 0) {
        if (!err[0])
            abort();
        fclose(f);
        return;
    }
    while ((rc = record_read_next(r, &t)) == 1) {
        check_bounds(t);
        tick_free(t);
    }
    record_read_end(r, &end);
    if (rc != 0 || (end.lines_skipped > 0 && notices == 0))
        abort();
    record_read_close(r);
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (data[0] % 2 == 0)
        fuzz_line((const char *)data + 1, size - 1);
    else
        fuzz_file(data + 1, size - 1);
    return 0;
}
