/*
 * control: GET /_control answers the ground-truth counters and the current
 * settings; POST /_control takes a JSON document of the --config schema and
 * changes the capacity, fault and store settings mid-run (threads and
 * files_dir are fixed at start). A document that fails validation changes
 * nothing and gets a 400 naming the bad key.
 */
#include "target/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

void target__settings_get(struct target *t, struct settings *out)
{
    pthread_rwlock_rdlock(&t->settings_lock);
    *out = t->settings;
    pthread_rwlock_unlock(&t->settings_lock);
}

static int has_fault_probability(const struct settings *s)
{
    for (int f = 1; f < FAULT_COUNT; f++)
        if (s->fault_p[f] > 0)
            return 1;
    return 0;
}

void target__control_install(struct target *t, const struct settings *s)
{
    pthread_rwlock_wrlock(&t->settings_lock);
    t->settings = *s;
    t->settings.force_count = 0;
    t->settings.force_fault = FAULT_NONE;
    t->settings.seed_set = 0;
    t->settings.force_set = 0;
    pthread_rwlock_unlock(&t->settings_lock);
    if (s->seed_set)
        atomic_store(&t->fault_seq, 0); /* the same seed replays the same faults */
    if (s->force_set) {
        /* A new forcing replaces what is left of the last; "none" cancels it. */
        atomic_store(&t->force_fault, (unsigned)s->force_fault);
        atomic_store(&t->force_remaining, s->force_count);
    }
    atomic_store(&t->max_connections, s->max_connections);
    atomic_store(&t->close_after_reply, s->close_after_reply);
    /* The fast path answers at once: no fault, no service time, no pause. */
    atomic_store(&t->fast_bytes, !has_fault_probability(s) && s->service_us[EP_BYTES] == 0 &&
                                     s->pause_every_ms == 0);
    kv_set_max_bytes(t->kv, s->kv_max_bytes);
}

static void set_json(struct reply *rp, unsigned status, char *text)
{
    target__reply_free(rp);
    rp->status = text ? status : 500;
    rp->content_type = "application/json";
    rp->owned = text;
    rp->body = text ? text : "";
    rp->len = text ? strlen(text) : 0;
}

static char *state_json(struct target *t)
{
    struct settings s;
    char *truth = target__stats_ground_truth(t), *set, *text;
    size_t n;

    target__settings_get(t, &s);
    set = settings_to_json(&s);
    if (!truth || !set) {
        free(truth);
        free(set);
        return NULL;
    }
    n = strlen(truth) + strlen(set) + 64;
    text = xmalloc(n);
    snprintf(text, n, "{\"ground_truth\": %s,\n\"settings\": %s}\n", truth, set);
    free(truth);
    free(set);
    return text;
}

void target__control_reply(struct target *t, struct req *r, const char *method)
{
    char err[TARGET_ERR_MAX];
    struct settings s;
    int rc;

    if (r->is_get || r->is_head) {
        set_json(&r->reply, 200, state_json(t));
        return;
    }
    if (strcmp(method, MHD_HTTP_METHOD_POST) != 0) {
        target__reply_text(&r->reply, 405, "expected GET or POST\n");
        target__reply_header(&r->reply, "Allow", "GET, POST");
        return;
    }
    /* Two controllers posting at once: the later one wins, whole. */
    target__settings_get(t, &s);
    rc = settings_apply_json(&s, r->body ? r->body : "", r->body_len, 0, err, sizeof(err));
    if (rc) {
        target__reply_text(&r->reply, rc == -E2BIG ? 413 : 400, "bad control document: %s\n", err);
        return;
    }
    target__control_install(t, &s);
    set_json(&r->reply, 200, state_json(t));
}
