/*
 * What the ticks of a test run of the engine said, summed: the outcome the
 * transport tests check. Included by test_engine_run.c and test_h1_tls.c
 * only.
 */
#ifndef BRINK_TESTS_OUTCOME_FIXTURE_H
#define BRINK_TESTS_OUTCOME_FIXTURE_H

#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "core/chan.h"
#include "core/errclass.h"
#include "core/tick.h"

struct outcome {
    uint64_t completed;
    uint64_t ok;
    uint64_t errors[ERR__COUNT];
    char first_error[ERR__COUNT][TICK_TEXT_MAX];
    char transport[8];
    uint64_t resent[RESEND__COUNT]; /* requests sent again, by cause */
    uint64_t crossed; /* the scripted server's: requests it closed or reset a connection at */
};

/* Takes every tick left in ch (the run is over) and sums it into *out. */
static inline void outcome_collect(struct chan *ch, struct outcome *out)
{
    struct tick *t;

    memset(out, 0, sizeof(*out));
    while ((t = chan_take(ch)) != NULL) {
        out->completed += t->total.completed;
        out->ok += t->total.ok;
        for (int k = 0; k < ERR__COUNT; k++) {
            out->errors[k] += t->total.errors[k];
            if (!out->first_error[k][0])
                memcpy(out->first_error[k], t->first_error[k], TICK_TEXT_MAX);
        }
        for (int c = 0; c < RESEND__COUNT; c++)
            out->resent[c] += t->resent[c];
        if (t->transport[0])
            memcpy(out->transport, t->transport, sizeof(out->transport));
        tick_free(t);
    }
}

/* Whether hay holds needle, case aside (messages come from OpenSSL and
 * libcurl, whose case varies). */
static inline int contains_any_case(const char *hay, const char *needle)
{
    size_t n = strlen(needle);

    for (; *hay; hay++) {
        size_t i = 0;

        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

#endif
