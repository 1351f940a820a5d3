/*
 * Fuzzes the agent protocol's decoder (record/wire.h), which reads every
 * line an agent or a coordinator sends: a line it accepts must encode
 * again and decode to the same message (type, versions, times, command,
 * config with its files and overrides, a tick's probes by name; a tick's
 * other fields are the session reader's, fuzzed by fuzz_record_line).
 */
#include "record/wire.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/tick.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void check_same(const struct wire_msg *a, const struct wire_msg *b)
{
    if (a->type != b->type || a->protocol != b->protocol || strcmp(a->brink, b->brink) != 0 ||
        a->at_ns != b->at_ns || a->t_ns != b->t_ns || a->peer_ns != b->peer_ns ||
        a->seed != b->seed || !same_str(a->name, b->name) || !same_str(a->text, b->text) ||
        !same_str(a->cwd, b->cwd) || a->n_files != b->n_files || a->n_overrides != b->n_overrides)
        abort();
    if (a->type == WIRE_COMMAND &&
        (a->cmd.kind != b->cmd.kind || a->cmd.n != b->cmd.n ||
         strcmp(a->cmd.note, b->cmd.note) != 0 ||
         (a->cmd.kind == CMD_SET_RATE && a->cmd.rate_per_s != b->cmd.rate_per_s)))
        abort();
    for (uint32_t i = 0; i < a->n_files; i++) {
        if (strcmp(a->files[i].path, b->files[i].path) != 0 || a->files[i].len != b->files[i].len ||
            memcmp(a->files[i].data, b->files[i].data, a->files[i].len) != 0)
            abort();
    }
    for (uint32_t i = 0; i < a->n_overrides; i++) {
        if (strcmp(a->overrides[i].value, b->overrides[i].value) != 0 ||
            strcmp(a->overrides[i].key, b->overrides[i].key) != 0)
            abort();
    }
    if ((a->tick == NULL) != (b->tick == NULL) ||
        (a->tick &&
         (a->tick->seq != b->tick->seq || a->tick->total.completed != b->tick->total.completed ||
          a->tick->n_probes != b->tick->n_probes)))
        abort();
    /* An agent's probes come by name: the coordinator names them for it. */
    for (uint32_t i = 0; a->tick && i < a->tick->n_probes; i++) {
        if (strcmp(a->tick->probes[i].name, b->tick->probes[i].name) != 0 ||
            a->tick->probes[i].has_value != b->tick->probes[i].has_value)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wire_msg m, back;
    char why[256];
    char *line;
    size_t len;

    if (wire_decode((const char *)data, size, &m, why, sizeof(why)) != 0)
        return 0;
    line = wire_encode(&m, &len);
    if (line) {
        if (wire_decode(line, len - 1, &back, why, sizeof(why)) != 0)
            abort();
        check_same(&m, &back);
        wire_msg_free(&back);
        free(line);
    }
    wire_msg_free(&m);
    return 0;
}
