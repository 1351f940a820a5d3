#include "core/status_set.h"

#include <assert.h>
#include <stdio.h>

void status_set_add(struct status_set *s, unsigned lo, unsigned hi)
{
    assert(lo >= STATUS_SET_LOW && lo <= hi && hi <= STATUS_SET_HIGH);
    for (unsigned code = lo; code <= hi; code++) {
        unsigned i = code - STATUS_SET_LOW;

        s->bits[i / 64] |= 1ULL << (i % 64);
    }
}

int status_set_is_empty(const struct status_set *s)
{
    for (int i = 0; i < STATUS_SET_WORDS; i++) {
        if (s->bits[i])
            return 0;
    }
    return 1;
}

void status_set_format(const struct status_set *s, char *buf, size_t cap)
{
    size_t used = 0;
    unsigned code = STATUS_SET_LOW;

    if (cap == 0)
        return;
    buf[0] = '\0';
    while (code <= STATUS_SET_HIGH && used < cap) {
        unsigned lo = code, hi;
        int n;

        if (!status_set_has(s, code)) {
            code++;
            continue;
        }
        while (code < STATUS_SET_HIGH && status_set_has(s, code + 1))
            code++;
        hi = code++;
        if (lo == hi)
            n = snprintf(buf + used, cap - used, "%s%u", used ? ", " : "", lo);
        else
            n = snprintf(buf + used, cap - used, "%s%u-%u", used ? ", " : "", lo, hi);
        /* snprintf cut the text at cap and left it NUL-terminated. */
        used += n > 0 ? (size_t)n : 0;
    }
}
