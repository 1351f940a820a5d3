#include "core/xalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static xalloc_fail_fn *fail_hook;

void xalloc_set_fail_hook(xalloc_fail_fn *fn)
{
    fail_hook = fn;
}

void xalloc_die(const char *what)
{
    if (fail_hook)
        fail_hook();
    fprintf(stderr, "brink: out of memory: %s\n", what);
    abort();
}

static void fail(size_t size)
{
    char what[64];

    snprintf(what, sizeof(what), "could not allocate %zu bytes", size);
    xalloc_die(what);
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);

    if (!p)
        fail(size);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p;

    if (size && n > SIZE_MAX / size)
        fail(SIZE_MAX);
    p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        fail(n * size);
    return p;
}

void *xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);

    if (!q)
        fail(size);
    return q;
}

char *xstrndup(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);

    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *xstrdup(const char *s)
{
    return s ? xstrndup(s, strlen(s)) : NULL;
}
