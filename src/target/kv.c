#include "target/kv.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

struct sibling {
    uint64_t version; /* the key's version when this sibling was written */
    size_t len;
    char *value;
};

/* A key exists while it has siblings or writes in flight. */
struct entry {
    struct entry *next; /* hash chain */
    uint64_t hash;
    uint64_t version;  /* bumped by every commit */
    uint64_t starts;   /* writes begun, ever */
    unsigned inflight; /* writes begun and not ended */
    size_t n, cap;     /* siblings */
    struct sibling *sib;
    size_t key_len;
    char key[];
};

struct kv {
    pthread_mutex_t lock;
    struct entry **buckets;
    size_t n_buckets; /* a power of two */
    uint64_t max_bytes;
    struct kv_usage use;
};

static uint64_t hash_key(const char *key, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */

    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)key[i]) * 1099511628211ull;
    return h;
}

struct kv *kv_new(uint64_t max_bytes)
{
    struct kv *kv = xcalloc(1, sizeof(*kv));

    pthread_mutex_init(&kv->lock, NULL);
    kv->n_buckets = 1024;
    kv->buckets = xcalloc(kv->n_buckets, sizeof(*kv->buckets));
    kv->max_bytes = max_bytes;
    return kv;
}

static void free_entry(struct entry *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->sib[i].value);
    free(e->sib);
    free(e);
}

void kv_free(struct kv *kv)
{
    if (!kv)
        return;
    for (size_t b = 0; b < kv->n_buckets; b++) {
        struct entry *e = kv->buckets[b], *next;
        for (; e; e = next) {
            next = e->next;
            free_entry(e);
        }
    }
    free(kv->buckets);
    pthread_mutex_destroy(&kv->lock);
    free(kv);
}

void kv_set_max_bytes(struct kv *kv, uint64_t max_bytes)
{
    pthread_mutex_lock(&kv->lock);
    kv->max_bytes = max_bytes;
    pthread_mutex_unlock(&kv->lock);
}

/* Returns the link that points at the key's entry (or at NULL). Locked. */
static struct entry **find(struct kv *kv, const char *key, size_t len, uint64_t h)
{
    struct entry **pp = &kv->buckets[h & (kv->n_buckets - 1)];

    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->hash == h && (*pp)->key_len == len && !memcmp((*pp)->key, key, len))
            break;
    return pp;
}

static void grow(struct kv *kv)
{
    size_t n = kv->n_buckets * 2;
    struct entry **b = xcalloc(n, sizeof(*b));

    for (size_t i = 0; i < kv->n_buckets; i++) {
        struct entry *e = kv->buckets[i], *next;
        for (; e; e = next) {
            next = e->next;
            e->next = b[e->hash & (n - 1)];
            b[e->hash & (n - 1)] = e;
        }
    }
    free(kv->buckets);
    kv->buckets = b;
    kv->n_buckets = n;
}

/* Drops an entry with no siblings and no writes in flight. Locked. */
static void maybe_remove(struct kv *kv, struct entry **pp)
{
    struct entry *e = *pp;

    if (e->n || e->inflight)
        return;
    *pp = e->next;
    kv->use.bytes -= e->key_len + KV_KEY_OVERHEAD;
    kv->use.keys--;
    free_entry(e);
}

int kv_write_begin(struct kv *kv, const char *key, size_t key_len, struct kv_write *w)
{
    uint64_t h = hash_key(key, key_len);
    struct entry **pp, *e;
    int rc = 0;

    memset(w, 0, sizeof(*w));
    if (key_len == 0 || key_len > KV_MAX_KEY_BYTES)
        return -EINVAL;
    pthread_mutex_lock(&kv->lock);
    pp = find(kv, key, key_len, h);
    e = *pp;
    if (!e) {
        if (kv->use.bytes + key_len + KV_KEY_OVERHEAD > kv->max_bytes) {
            rc = -ENOSPC;
            goto out_unlock;
        }
        e = xcalloc(1, sizeof(*e) + key_len);
        e->hash = h;
        e->key_len = key_len;
        memcpy(e->key, key, key_len);
        e->next = kv->buckets[h & (kv->n_buckets - 1)];
        kv->buckets[h & (kv->n_buckets - 1)] = e;
        kv->use.bytes += key_len + KV_KEY_OVERHEAD;
        if (++kv->use.keys > kv->n_buckets)
            grow(kv);
    }
    w->overlapped = e->inflight > 0;
    e->inflight++;
    w->start_seq = ++e->starts;
    memcpy(w->key, key, key_len);
    w->key_len = key_len;
    w->active = 1;
out_unlock:
    pthread_mutex_unlock(&kv->lock);
    return rc;
}

/* Removes the siblings written at or before version upto. Locked. */
static void drop_siblings(struct kv *kv, struct entry *e, uint64_t upto)
{
    size_t kept = 0;

    for (size_t i = 0; i < e->n; i++) {
        if (e->sib[i].version <= upto) {
            kv->use.bytes -= e->sib[i].len + KV_SIBLING_OVERHEAD;
            kv->use.siblings--;
            free(e->sib[i].value);
        } else {
            e->sib[kept++] = e->sib[i];
        }
    }
    e->n = kept;
}

/* Bytes and count of the siblings up to version upto. Locked. */
static uint64_t bytes_upto(const struct entry *e, uint64_t upto, size_t *count)
{
    uint64_t n = 0;

    *count = 0;
    for (size_t i = 0; i < e->n; i++) {
        if (e->sib[i].version <= upto) {
            n += e->sib[i].len + KV_SIBLING_OVERHEAD;
            (*count)++;
        }
    }
    return n;
}

int kv_write_commit(struct kv *kv, struct kv_write *w, const char *value, size_t len, uint64_t base,
                    uint64_t *siblings)
{
    uint64_t h = hash_key(w->key, w->key_len);
    struct entry **pp, *e;
    uint64_t upto, freed;
    size_t dropped;
    int rc = 0;

    pthread_mutex_lock(&kv->lock);
    pp = find(kv, w->key, w->key_len, h);
    e = *pp;
    e->inflight--;
    w->active = 0;
    /* Overlap in time: someone was in flight when we began, or began since. */
    if (base)
        upto = base;
    else if (w->overlapped || e->starts != w->start_seq)
        upto = 0;
    else
        upto = e->version;
    freed = bytes_upto(e, upto, &dropped);
    if (kv->use.bytes - freed + len + KV_SIBLING_OVERHEAD > kv->max_bytes) {
        rc = -ENOSPC;
    } else if (e->n - dropped >= KV_MAX_SIBLINGS) {
        rc = -EMLINK;
    } else {
        drop_siblings(kv, e, upto);
        if (e->n == e->cap) {
            e->cap = e->cap ? e->cap * 2 : 2;
            e->sib = xrealloc(e->sib, e->cap * sizeof(*e->sib));
        }
        e->sib[e->n].version = ++e->version;
        e->sib[e->n].len = len;
        e->sib[e->n].value = xmalloc(len ? len : 1);
        memcpy(e->sib[e->n].value, value, len);
        e->n++;
        kv->use.bytes += len + KV_SIBLING_OVERHEAD;
        kv->use.siblings++;
    }
    if (siblings)
        *siblings = e->n;
    maybe_remove(kv, pp);
    pthread_mutex_unlock(&kv->lock);
    return rc;
}

void kv_write_abort(struct kv *kv, struct kv_write *w)
{
    uint64_t h = hash_key(w->key, w->key_len);
    struct entry **pp;

    if (!w->active)
        return;
    pthread_mutex_lock(&kv->lock);
    pp = find(kv, w->key, w->key_len, h);
    (*pp)->inflight--;
    w->active = 0;
    maybe_remove(kv, pp);
    pthread_mutex_unlock(&kv->lock);
}

int kv_get(struct kv *kv, const char *key, size_t key_len, struct kv_read *r)
{
    uint64_t h = hash_key(key, key_len);
    struct entry *e;
    int rc = -ENOENT;

    memset(r, 0, sizeof(*r));
    pthread_mutex_lock(&kv->lock);
    e = *find(kv, key, key_len, h);
    if (e && e->n) {
        const struct sibling *last = &e->sib[e->n - 1];
        r->value = xmalloc(last->len ? last->len : 1);
        memcpy(r->value, last->value, last->len);
        r->len = last->len;
        r->siblings = e->n;
        r->version = e->version;
        for (size_t i = 0; i < e->n; i++)
            r->total_bytes += e->sib[i].len;
        rc = 0;
    }
    pthread_mutex_unlock(&kv->lock);
    return rc;
}

int kv_delete(struct kv *kv, const char *key, size_t key_len)
{
    uint64_t h = hash_key(key, key_len);
    struct entry **pp;
    int rc = -ENOENT;

    pthread_mutex_lock(&kv->lock);
    pp = find(kv, key, key_len, h);
    if (*pp && (*pp)->n) {
        drop_siblings(kv, *pp, UINT64_MAX);
        maybe_remove(kv, pp);
        rc = 0;
    }
    pthread_mutex_unlock(&kv->lock);
    return rc;
}

void kv_get_usage(struct kv *kv, struct kv_usage *u)
{
    pthread_mutex_lock(&kv->lock);
    *u = kv->use;
    pthread_mutex_unlock(&kv->lock);
}
