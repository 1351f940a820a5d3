/*
 * The levels of several step tables, for the compare formats (text in
 * format_compare.c, HTML in html_compare.c): the union of their levels,
 * sorted, and each table's row at one of them. Each table's rows are
 * grouped by level first (steps_level), so a level held twice in one
 * session is one row, its histograms merged. Computes, never prints.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/steps.h"
#include "core/tick.h"
#include "core/xalloc.h"
#include "report/internal.h"

static int key_cmp(const void *a, const void *b)
{
    const struct report__level *x = a, *y = b;

    if (x->model != y->model)
        return x->model < y->model ? -1 : 1;
    if (x->level != y->level)
        return x->level < y->level ? -1 : 1;
    return 0;
}

struct report__level *report__union_levels(const struct steps *const *tables, size_t n,
                                           size_t *n_out)
{
    size_t total = 0, k = 0;
    struct report__level *keys;
    struct step_row r;

    for (size_t i = 0; i < n; i++)
        total += steps_level_count(tables[i]);
    keys = xcalloc(total ? total : 1, sizeof(*keys));
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; steps_level(tables[i], j, &r) == 0; j++) {
            keys[k].model = r.model;
            keys[k++].level = r.level;
        }
    }
    qsort(keys, k, sizeof(*keys), key_cmp);
    *n_out = 0;
    for (size_t i = 0; i < k; i++) {
        if (*n_out == 0 || key_cmp(&keys[*n_out - 1], &keys[i]) != 0)
            keys[(*n_out)++] = keys[i];
    }
    return keys;
}

int report__find_level(const struct steps *st, const struct report__level *key,
                       struct step_row *out)
{
    for (size_t j = 0; steps_level(st, j, out) == 0; j++) {
        struct report__level k = {out->model, out->level};

        if (key_cmp(&k, key) == 0)
            return 0;
    }
    return -1;
}
