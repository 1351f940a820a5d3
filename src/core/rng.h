/*
 * rng: the one seeded random stream of brink (splitmix64 over a uint64_t
 * state), for the workload's {rand} and {uuid} and for scripts: the same
 * seed gives the same draws in every run. Not for secrets. Pure functions,
 * any thread, each with its own state.
 */
#ifndef BRINK_CORE_RNG_H
#define BRINK_CORE_RNG_H

#include <stdint.h>

#define RNG_UUID_LEN 36 /* characters of a formatted UUID, no NUL */

/* The next value over *state. Any seed, 0 included, is a good one. */
uint64_t rng_next(uint64_t *state);

/* A uniform draw in [0, bound), or any 64-bit value when bound is 0. */
uint64_t rng_below(uint64_t *state, uint64_t bound);

/* Writes RNG_UUID_LEN characters (no NUL): an RFC 4122 version 4 UUID in
 * lower case, from two draws. */
void rng_uuid(uint64_t *state, char *out);

#endif
