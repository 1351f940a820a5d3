/*
 * Helpers shared by the record module's files; not part of its API.
 */
#ifndef BRINK_RECORD_INTERNAL_H
#define BRINK_RECORD_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/tick.h"

struct hist;

/* Storage precision of latencies: 64 linear sub-buckets per power of two
 * (values below 128 µs exact), so a stored value is within 1/128 of the
 * true one. Its encoding's version (first byte) is RECH_VERSION. */
#define RECH_SUB_BITS 6
#define RECH_VERSION 1
/* Storage precision of phases (where the time goes, not p99.9): 16
 * sub-buckets (values below 32 µs exact), within 1/32; RECH_VERSION_COARSE. */
#define RECH_COARSE_SUB_BITS TICK_PHASE_SUB_BITS
#define RECH_VERSION_COARSE 2
/* Longest base64 text accepted for one histogram. */
#define RECORD_B64_MAX (256 * 1024)

/* Packs h at the storage precision of version (RECH_VERSION or
 * RECH_VERSION_COARSE), in base64, into a new string (the caller frees it);
 * an empty h packs too. Aborts on exhaustion, like xmalloc. */
char *record__hist_pack(const struct hist *h, unsigned char version);
/* Unpacks text, of either version, into h (replacing its content): values
 * are rebuilt at the middle of their storage bucket, count, min, max and
 * clamped exactly. Returns 0 or -EINVAL (h is then empty). */
int record__hist_unpack(struct hist *h, const char *text, size_t len);

/* The JSON object of a tick line. NULL on OOM. */
json_t *record__tick_to_json(const struct tick *t);
/* Builds a tick from a parsed line. Returns 0 with *out set, or -EINVAL with
 * a reason in why. */
int record__tick_from_json(json_t *obj, struct tick **out, char *why, size_t why_len);

/* JSON integers are signed 64-bit: larger counts are stored as INT64_MAX. */
json_t *record__json_count(uint64_t v);

#endif
