#include "core/rng.h"

uint64_t rng_next(uint64_t *state)
{
    /* splitmix64 (Steele, Lea and Flood, 2014): a Weyl sequence through a
     * bijective 64-bit mixer; every state gives a full-period stream. */
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

uint64_t rng_below(uint64_t *state, uint64_t bound)
{
    /* Raw draws below 2^64 mod bound are rejected so that every value below
     * bound is the remainder of equally many accepted draws; the loop runs
     * again with probability below bound / 2^64. */
    uint64_t reject = bound ? (0 - bound) % bound : 0;
    uint64_t x;

    do {
        x = rng_next(state);
    } while (x < reject);
    return bound ? x % bound : x;
}

/* 128 random bits as 8-4-4-4-12 lower-case hex, with the version (4,
 * random) and variant (10, RFC 4122) bits of RFC 4122 4.4. */
void rng_uuid(uint64_t *state, char *out)
{
    static const char hex[] = "0123456789abcdef";
    uint64_t half[2] = {rng_next(state), rng_next(state)};
    unsigned char b[16];

    for (int i = 0; i < 16; i++)
        b[i] = (unsigned char)(half[i / 8] >> (56 - 8 * (i % 8)));
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            *out++ = '-';
        *out++ = hex[b[i] >> 4];
        *out++ = hex[b[i] & 0x0f];
    }
}
