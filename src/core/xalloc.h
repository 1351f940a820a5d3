/*
 * xalloc: allocation that cannot fail. On exhaustion it runs the fail hook
 * (the UI registers one that restores the terminal), prints one line and
 * aborts. Sizes that come from input must be checked by the caller first.
 * Any thread; the hook is set once, before threads start.
 */
#ifndef BRINK_CORE_XALLOC_H
#define BRINK_CORE_XALLOC_H

#include <stddef.h>

typedef void xalloc_fail_fn(void);

/* Sets the function run before the abort; NULL for none. */
void xalloc_set_fail_hook(xalloc_fail_fn *fn);
/* For a library that reports it ran out of memory (curl_easy_init, ...):
 * runs the fail hook, prints "brink: out of memory: WHAT" and aborts. */
void xalloc_die(const char *what) __attribute__((noreturn));

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* Returns a malloc'd copy of s (NULL stays NULL); the caller frees it. */
char *xstrdup(const char *s);
/* Returns a malloc'd, NUL-terminated copy of s[0..n). */
char *xstrndup(const char *s, size_t n);

#endif
