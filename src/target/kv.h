/*
 * kv: the key-value store of brink target, with Riak-like siblings. A write
 * is in flight from kv_write_begin to kv_write_commit; a write whose flight
 * overlaps another write's to the same key adds a sibling instead of
 * replacing the value. A write that names the version it read replaces the
 * siblings that version covered. Memory is capped: every key and sibling
 * counts its bytes plus a fixed overhead. Thread-safe (one mutex); no I/O.
 */
#ifndef BRINK_TARGET_KV_H
#define BRINK_TARGET_KV_H

#include <stddef.h>
#include <stdint.h>

#define KV_MAX_KEY_BYTES 1024
#define KV_MAX_SIBLINGS 10000  /* a write past this is refused (-EMLINK) */
#define KV_KEY_OVERHEAD 96     /* bytes charged per key besides its name */
#define KV_SIBLING_OVERHEAD 48 /* bytes charged per sibling besides its value */

struct kv;

/* A write in flight; filled by kv_write_begin, ended by commit or abort. */
struct kv_write {
    char key[KV_MAX_KEY_BYTES];
    size_t key_len;
    uint64_t start_seq; /* the key's write-start count after this one began */
    int overlapped;     /* another write was in flight when this one began */
    int active;
};

/* What a read saw. */
struct kv_read {
    char *value; /* newest sibling's value, malloc'd (caller frees); NULL if absent */
    size_t len;
    uint64_t siblings;    /* 0 when the key is absent */
    uint64_t version;     /* the key's version, to name in a resolving write */
    uint64_t total_bytes; /* all siblings' values together */
};

struct kv_usage {
    uint64_t bytes; /* charged bytes, never above the cap */
    uint64_t keys;
    uint64_t siblings;
};

/* Creates an empty store capped at max_bytes. Never NULL (aborts on OOM). */
struct kv *kv_new(uint64_t max_bytes);
/* Frees the store and every value; NULL is a no-op. */
void kv_free(struct kv *kv);
/* Changes the cap; stored data above it stays until deleted. */
void kv_set_max_bytes(struct kv *kv, uint64_t max_bytes);

/*
 * Starts a write of key[0..key_len) (1..KV_MAX_KEY_BYTES bytes). Returns 0,
 * -EINVAL for a bad key, or -ENOSPC when the store cannot hold the key.
 * On success the caller must end the write with kv_write_commit or abort.
 */
int kv_write_begin(struct kv *kv, const char *key, size_t key_len, struct kv_write *w);
/*
 * Ends a write by storing value[0..len) (copied). base is the version the
 * writer read, or 0 for none. Returns 0 and the sibling count after the
 * write, -ENOSPC when the value does not fit under the cap (nothing stored)
 * or -EMLINK past KV_MAX_SIBLINGS. The write is over in every case.
 */
int kv_write_commit(struct kv *kv, struct kv_write *w, const char *value, size_t len, uint64_t base,
                    uint64_t *siblings);
/* Ends a write without storing anything. */
void kv_write_abort(struct kv *kv, struct kv_write *w);

/* Reads a key. Returns 0 (r filled) or -ENOENT (r zeroed). */
int kv_get(struct kv *kv, const char *key, size_t key_len, struct kv_read *r);
/* Deletes a key and its siblings. Returns 0 or -ENOENT. */
int kv_delete(struct kv *kv, const char *key, size_t key_len);
void kv_get_usage(struct kv *kv, struct kv_usage *u);

#endif
