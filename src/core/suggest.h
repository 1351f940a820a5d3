/*
 * suggest: the "did you mean" of every message, for config keys and
 * sections, option names and commands alike. Offers candidates one by one
 * and keeps the closest one that is close enough to be a typing slip. Pure;
 * any thread.
 */
#ifndef BRINK_CORE_SUGGEST_H
#define BRINK_CORE_SUGGEST_H

#include <stddef.h>

/* Words longer than this are never typos of a name, and the distance table
 * stays small. */
#define SUGGEST_WORD_MAX 40

struct suggest {
    const char *word; /* what was typed */
    size_t word_len;  /* its bytes that count ("--urll" of "--urll=x") */
    const char *best; /* the closest candidate so far, or NULL */
    size_t best_d;    /* its distance */
};

/* Starts a search for the first n bytes of word. */
void suggest_start(struct suggest *s, const char *word, size_t n);

/* Offers a candidate: kept when within one slip per five letters of the
 * word and closer than any before it. */
void suggest_offer(struct suggest *s, const char *candidate);

/* The candidate closest to word among a NULL-terminated list, or NULL when
 * none is close enough to be a plausible typo. */
const char *suggest_closest(const char *word, const char *const *candidates);

#endif
