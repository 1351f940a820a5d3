/*
 * Fuzzes brink target's settings parser (the JSON of --config and
 * POST /_control), as control (at_start 0) and as --config (at_start 1).
 * Properties, beyond not crashing, not reading past the input (it is not
 * NUL-terminated) and not leaking:
 *   - settings_apply_json is total: it returns 0, or -EINVAL, or -E2BIG
 *     for a document over SETTINGS_MAX_DOC_BYTES;
 *   - on error the settings are unchanged and the message is one line of
 *     printable ASCII, not empty and NUL-terminated in the buffer (it goes
 *     to a terminal and into a 400 body);
 *   - on success, settings_to_json gives a document that --config reads
 *     back to the same settings and the very same text.
 */
#include "target/settings.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ERR_MAX 256 /* as the target's own buffers (TARGET_ERR_MAX) */

static void check_message(const char *err)
{
    const char *end = memchr(err, '\0', ERR_MAX);

    if (!end || end == err)
        abort();
    for (const char *p = err; p < end; p++) {
        if ((unsigned char)*p < ' ' || (unsigned char)*p > '~')
            abort();
    }
}

/* The fields settings_to_json writes; the one-shot requests (force, the
 * seed_set flag) are not settings and do not round-trip. */
static void check_same(const struct settings *a, const struct settings *b)
{
    if (a->threads != b->threads || strcmp(a->files_dir, b->files_dir) != 0 || a->seed != b->seed ||
        a->workers != b->workers || a->queue_max != b->queue_max ||
        a->max_connections != b->max_connections ||
        memcmp(a->service_us, b->service_us, sizeof(a->service_us)) != 0 ||
        a->stall_ms != b->stall_ms || a->drip_interval_ms != b->drip_interval_ms ||
        a->drip_bytes != b->drip_bytes || a->huge_header_bytes != b->huge_header_bytes ||
        a->hostile_stats != b->hostile_stats || a->kv_max_bytes != b->kv_max_bytes ||
        a->kv_max_object_bytes != b->kv_max_object_bytes || a->kv_write_us != b->kv_write_us ||
        a->kv_read_us_per_kib != b->kv_read_us_per_kib ||
        a->mp_backpressure_siblings != b->mp_backpressure_siblings ||
        a->mp_backpressure_ms != b->mp_backpressure_ms)
        abort();
    for (int f = 0; f < FAULT_COUNT; f++) {
        if (a->fault_p[f] != b->fault_p[f])
            abort();
    }
}

static void check_round_trip(const struct settings *s)
{
    char *first = settings_to_json(s), *second, err[ERR_MAX];
    struct settings again;

    if (!first)
        abort();
    settings_default(&again);
    if (settings_apply_json(&again, first, strlen(first), 1, err, sizeof(err)) != 0)
        abort();
    check_same(s, &again);
    second = settings_to_json(&again);
    if (!second || strcmp(first, second) != 0)
        abort();
    free(second);
    free(first);
}

static void apply(const uint8_t *data, size_t size, int at_start)
{
    struct settings s, before;
    char err[ERR_MAX];
    int rc;

    settings_default(&s);
    before = s;
    memset(err, 0x7f, sizeof(err)); /* so an unterminated message shows */
    rc = settings_apply_json(&s, (const char *)data, size, at_start, err, sizeof(err));
    if (rc == 0) {
        check_round_trip(&s);
    } else if (rc == -EINVAL || (rc == -E2BIG && size > SETTINGS_MAX_DOC_BYTES)) {
        check_message(err);
        if (memcmp(&s, &before, sizeof(s)) != 0)
            abort();
    } else {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apply(data, size, 0);
    apply(data, size, 1);
    return 0;
}
