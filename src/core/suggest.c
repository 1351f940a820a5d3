#include "core/suggest.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

/*
 * Optimal string alignment distance, ignoring case: insertions, deletions,
 * substitutions and swaps of two neighbours each cost 1, so "laod" is one
 * step from "load", as a typing slip is.
 */
static size_t distance(const char *a, size_t m, const char *b, size_t n)
{
    size_t d[SUGGEST_WORD_MAX + 1][SUGGEST_WORD_MAX + 1];

    for (size_t i = 0; i <= m; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= n; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= m; i++) {
        for (size_t j = 1; j <= n; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            size_t best = d[i - 1][j - 1] + (ca != cb);

            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[m][n];
}

void suggest_start(struct suggest *s, const char *word, size_t n)
{
    s->word = word;
    s->word_len = n;
    s->best = NULL;
    s->best_d = SIZE_MAX;
}

void suggest_offer(struct suggest *s, const char *candidate)
{
    size_t n = strlen(candidate);
    /* One slip per five letters: close enough to be a typo, far enough
     * that "dir" is not offered for "url". */
    size_t limit = 1 + n / 5;
    size_t d;

    if (s->word_len > SUGGEST_WORD_MAX || n > SUGGEST_WORD_MAX)
        return;
    d = distance(s->word, s->word_len, candidate, n);
    if (d <= limit && d < s->best_d) {
        s->best = candidate;
        s->best_d = d;
    }
}

const char *suggest_closest(const char *word, const char *const *candidates)
{
    struct suggest s;

    suggest_start(&s, word, strlen(word));
    for (size_t i = 0; candidates[i]; i++)
        suggest_offer(&s, candidates[i]);
    return s.best;
}
