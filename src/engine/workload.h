/*
 * workload: what each request of a run looks like, compiled once from the
 * config: the request kinds of the mix with their weights, URL templates
 * ({seq}, {vu}, {uuid}, {rand:A..B}), header lines and bodies (text, @file
 * read once, random:SIZE generated once). Pure: no libuv, no libcurl, no I/O
 * after workload_new. Read-only after creation, so every engine worker thread
 * may share one; the RNG state is the caller's.
 */
#ifndef BRINK_ENGINE_WORKLOAD_H
#define BRINK_ENGINE_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "core/status_set.h"

struct config;
struct sigv4_creds;
struct workload;

#define WORKLOAD_URL_MAX 8192 /* bytes in an expanded URL, NUL included */

/* Every pointer is owned by the workload and valid as long as it is. */
struct workload_kind {
    const char *name;           /* "total" is reserved; the simple case is "default" */
    const char *method;         /* as configured, e.g. "GET", "PROPFIND" */
    const char *url;            /* the template as configured, absolute */
    int has_placeholders;       /* the URL changes from request to request */
    const char *const *headers; /* "Name: value" lines, ${ENV} expanded ([target] ones first);
                                   placeholders are not expanded in headers */
    size_t n_headers;
    const unsigned char *body; /* NULL when the request has none; an empty body is
                                  non-NULL with body_len 0 */
    size_t body_len;
    uint64_t timeout_us;
    uint32_t weight;
    struct status_set expect; /* statuses that count as ok ([target] expect by default) */
    /* aws_sigv4: the credentials (from the environment) and scope each
     * request of this kind is signed with at send time (sigv4.h), and the
     * body's SHA-256 in hex; both NULL when the kind is not signed. */
    const struct sigv4_creds *sigv4;
    const char *payload_hash;
};

/*
 * Compiles the workload of c: its [request NAME] sections in file order, or,
 * when it has none, one kind "default" doing GET [target] url with [target]
 * headers, timeout and expect. URL templates are parsed here, once, and refused
 * (-EINVAL) when their longest expansion would not fit in WORKLOAD_URL_MAX.
 * Reads @file bodies (regular files of at most WORKLOAD_FILE_MAX bytes each)
 * and generates random:SIZE bodies from seed: binary bytes, the same for the
 * same seed and config. c is only read: the workload copies what it keeps,
 * so c may be freed afterwards. Returns 0 and *out (the caller frees it with
 * workload_free), or a negative errno (-ENOENT, -EACCES, -EINVAL, -EFBIG,
 * -ENOMEM...) with one line in err, no newline ("brink: [request put] body:
 * cannot read @big.bin: No such file or directory"). Any one thread.
 */
#define WORKLOAD_FILE_MAX (256u << 20)
int workload_new(const struct config *c, uint64_t seed, char *err, size_t err_len,
                 struct workload **out);
/* Frees w; workload_free(NULL) is a no-op. */
void workload_free(struct workload *w);

size_t workload_n_kinds(const struct workload *w);
/* Kind i (0 <= i < workload_n_kinds), valid as long as w. */
const struct workload_kind *workload_kind(const struct workload *w, size_t i);

/* A kind drawn by weight with the caller's RNG state, in O(log n) and
 * without modulo bias. With one kind it is 0 and *rng is not advanced. */
size_t workload_pick(const struct workload *w, uint64_t *rng);

/*
 * Writes the URL of kind for request number seq of that kind (the engine
 * counts them across every user and worker) by virtual user vu into buf
 * (cap bytes, NUL-terminated), drawing {rand} and {uuid} from rng: {seq} and
 * {vu} in decimal, {rand:A..B} uniform in [A, B] in decimal (with a '-' when
 * negative), {uuid} a random RFC 4122 version 4 UUID in lower case. Returns
 * its length, or -ENOSPC when it does not fit (buf then holds "" when cap >
 * 0). With cap = WORKLOAD_URL_MAX it always fits: workload_new refuses a
 * template whose longest expansion would not. Allocates nothing; any
 * thread, each with its own rng.
 */
int workload_url(const struct workload *w, size_t kind, uint64_t seq, uint32_t vu, uint64_t *rng,
                 char *buf, size_t cap);

/* The next value of a fast 64-bit PRNG (splitmix64) over *state. Any seed,
 * 0 included, is a good one. */
uint64_t workload_rng_next(uint64_t *state);

#endif
