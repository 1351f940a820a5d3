/*
 * store: the HTTP face of the key-value store. /kv/KEY takes PUT, GET,
 * HEAD and DELETE; a write is in flight for kv.write_ms, so writes that
 * overlap make siblings. /mp/UPLOAD/PART simulates a multipart upload: the
 * part is stored and the upload's manifest (key mp/UPLOAD) is rewritten by
 * every part, naming the version it read, so concurrent parts give the
 * manifest siblings. With multipart.backpressure_siblings set, a part waits
 * while the manifest has more siblings than that.
 */
#include "target/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"

#define MP_MAX_ROUNDS 100 /* backpressure gives up after this many waits */

/* The store key of a /kv/KEY or /mp/... url: "KEY" or "mp/...". */
static void store_key(const struct req *r, const char *url, char *key, size_t cap)
{
    if (r->ep == EP_KV)
        snprintf(key, cap, "%s", url + 4);
    else
        snprintf(key, cap, "mp/%s", url + 4);
}

static int valid_key(const char *url, size_t prefix)
{
    size_t n = strlen(url);

    return n > prefix && n - prefix <= KV_MAX_KEY_BYTES - 4;
}

static int parse_version(const struct req_in *in, uint64_t *out)
{
    const char *v = target__req_header(in, "X-Brink-Version");
    char *end;

    *out = 0;
    if (!v)
        return 0;
    errno = 0;
    *out = strtoull(v, &end, 10);
    return (errno || end == v || *end || *v == '-') ? -EINVAL : 0;
}

static void reply_full(struct target *t, struct reply *rp, int rc)
{
    struct kv_usage u;
    struct settings s;

    atomic_fetch_add(&t->stats.kv_full, 1);
    if (rc == -EMLINK) {
        target__reply_text(
            rp, 507,
            "too many siblings: a key holds at most %d; write with X-Brink-Version to resolve them\n",
            KV_MAX_SIBLINGS);
        return;
    }
    kv_get_usage(t->kv, &u);
    target__settings_get(t, &s);
    target__reply_text(
        rp, 507,
        "kv store full: %llu of %llu bytes used by %llu keys; DELETE keys or raise kv.max_bytes\n",
        (unsigned long long)u.bytes, (unsigned long long)s.kv_max_bytes,
        (unsigned long long)u.keys);
}

static int begin(struct target *t, struct req *r, struct kv_write *w, const char *key)
{
    int rc = kv_write_begin(t->kv, key, strlen(key), w);

    if (rc == -ENOSPC)
        reply_full(t, &r->reply, rc);
    else if (rc)
        target__reply_text(&r->reply, 400, "bad key: expected 1..%d bytes\n", KV_MAX_KEY_BYTES - 4);
    return rc;
}

static int prepare_mp_put(struct target *t, struct req *r, const char *url,
                          const struct settings *s, uint64_t *wait_us)
{
    const char *slash = strchr(url + 4, '/');
    char manifest[KV_MAX_KEY_BYTES], key[KV_MAX_KEY_BYTES];
    struct kv_read m;

    if (!slash || slash == url + 4 || !slash[1] || strchr(slash + 1, '/')) {
        target__reply_text(&r->reply, 400, "expected PUT /mp/UPLOAD/PART\n");
        return 1;
    }
    snprintf(manifest, sizeof(manifest), "mp/%.*s", (int)(slash - (url + 4)), url + 4);
    kv_get(t->kv, manifest, strlen(manifest), &m);
    free(m.value);
    if (s->mp_backpressure_siblings && m.siblings > s->mp_backpressure_siblings &&
        r->bp_rounds < MP_MAX_ROUNDS) {
        r->bp_rounds++;
        *wait_us = (uint64_t)s->mp_backpressure_ms * 1000;
        return 2;
    }
    r->manifest_base = m.version;
    store_key(r, url, key, sizeof(key));
    if (begin(t, r, &r->w, key))
        return 1;
    if (begin(t, r, &r->w_manifest, manifest)) {
        kv_write_abort(t->kv, &r->w);
        return 1;
    }
    r->extra_us = s->kv_write_us;
    return 0;
}

int target__store_prepare(struct target *t, const struct req_in *in, struct req *r,
                          const struct settings *s, uint64_t *wait_us)
{
    const char *url = in->url;
    char key[KV_MAX_KEY_BYTES];

    if (!valid_key(url, 4)) {
        target__reply_text(&r->reply, 400,
                           "bad key: expected /kv/KEY or /mp/UPLOAD/PART with 1..%d bytes\n",
                           KV_MAX_KEY_BYTES - 4);
        return 1;
    }
    store_key(r, url, key, sizeof(key));
    if (r->is_get || r->is_head) {
        atomic_fetch_add(&t->stats.node_gets, 1);
        r->read_rc = kv_get(t->kv, key, strlen(key), &r->read);
        if (r->read_rc == 0) {
            target__sibwin_record(&t->sibwin, clock_now_ns() / 1000000000u, r->read.siblings);
            /* Siblings make reads slower: every sibling is read and merged. */
            r->service_extra_us = r->read.total_bytes * s->kv_read_us_per_kib / 1024;
        }
        return 0;
    }
    if (r->is_delete)
        return 0;
    if (!r->is_put) {
        target__reply_text(&r->reply, 405, "expected GET, HEAD, PUT or DELETE\n");
        target__reply_header(&r->reply, "Allow", "GET, HEAD, PUT, DELETE");
        return 1;
    }
    if (r->ep == EP_MP)
        return prepare_mp_put(t, r, url, s, wait_us);
    if (parse_version(in, &r->base)) {
        target__reply_text(&r->reply, 400,
                           "bad X-Brink-Version: expected the version number a GET returned\n");
        return 1;
    }
    if (begin(t, r, &r->w, key))
        return 1;
    r->extra_us = s->kv_write_us;
    return 0;
}

static void finish_read(struct req *r)
{
    struct reply *rp = &r->reply;

    if (r->read_rc) {
        target__reply_text(rp, 404, "no such key\n");
        return;
    }
    target__reply_free(rp);
    rp->status = 200;
    rp->content_type = "application/octet-stream";
    rp->owned = r->read.value;
    rp->body = r->read.value;
    rp->len = r->read.len;
    r->read.value = NULL;
    target__reply_header(rp, "X-Brink-Siblings", "%llu", (unsigned long long)r->read.siblings);
    target__reply_header(rp, "X-Brink-Version", "%llu", (unsigned long long)r->read.version);
}

static void finish_write(struct target *t, struct req *r)
{
    uint64_t sib = 0, msib = 0;
    char manifest[160];
    int rc;

    atomic_fetch_add(&t->stats.node_puts, 1);
    rc = kv_write_commit(t->kv, &r->w, r->body ? r->body : "", r->body_len, r->base, &sib);
    if (rc == 0 && r->w_manifest.active) {
        atomic_fetch_add(&t->stats.node_puts, 1);
        snprintf(manifest, sizeof(manifest), "part %.60s bytes %zu\n", strrchr(r->w.key, '/') + 1,
                 r->body_len);
        rc = kv_write_commit(t->kv, &r->w_manifest, manifest, strlen(manifest), r->manifest_base,
                             &msib);
        sib = msib;
    }
    kv_write_abort(t->kv, &r->w_manifest);
    if (rc) {
        reply_full(t, &r->reply, rc);
        return;
    }
    target__reply_text(&r->reply, 204, "%s", "");
    target__reply_header(&r->reply, "X-Brink-Siblings", "%llu", (unsigned long long)sib);
}

void target__store_finish(struct target *t, struct req *r, const char *url)
{
    char key[KV_MAX_KEY_BYTES];

    if (r->is_get || r->is_head) {
        finish_read(r);
    } else if (r->is_put) {
        finish_write(t, r);
    } else {
        store_key(r, url, key, sizeof(key));
        if (kv_delete(t->kv, key, strlen(key)) == 0)
            target__reply_text(&r->reply, 204, "%s", "");
        else
            target__reply_text(&r->reply, 404, "no such key\n");
    }
}

void target__store_abort(struct target *t, struct req *r)
{
    kv_write_abort(t->kv, &r->w);
    kv_write_abort(t->kv, &r->w_manifest);
}
