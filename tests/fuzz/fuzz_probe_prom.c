/*
 * Fuzzes the Prometheus selector compiler and page evaluator. The input is
 * "SELECTOR\nPAGE". Properties, beyond not crashing or leaking:
 *   - compile returns 0 or -EINVAL, eval 0, -ENOENT or -EFBIG, each with a
 *     non-empty, terminated reason on failure and the buffer untouched on
 *     success; a success counts at least one series;
 *   - matchers partition the series: m counts as many as m{a="x"} and
 *     m{a!="x"} together, and as m{a=~"x.*"} and m{a!~"x.*"} together.
 */
#include "probes/parse.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WHY_MAX 128
#define SELECTOR_MAX 200
#define SENTINEL '\x7f'

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_why(int rc, const char *why)
{
    if (rc == 0) {
        for (size_t i = 0; i < WHY_MAX; i++) {
            if (why[i] != SENTINEL)
                abort();
        }
    } else if (memchr(why, '\0', WHY_MAX) == NULL || !why[0]) {
        abort();
    }
}

/* Returns how many series selector matches in text; aborts on a property
 * violation, or if a fixed selector does not compile. */
static size_t count(const char *selector, const char *text, size_t len)
{
    struct probe_prom *p;
    char why[WHY_MAX];
    double v;
    size_t n = 0;
    int rc;

    memset(why, SENTINEL, sizeof(why));
    rc = probe_prom_compile(selector, &p, why, sizeof(why));
    if (rc != 0 && rc != -EINVAL)
        abort();
    check_why(rc, why);
    if (rc != 0)
        return 0;
    memset(why, SENTINEL, sizeof(why));
    rc = probe_prom_eval(p, text, len, &v, &n, why, sizeof(why));
    if (rc != 0 && rc != -ENOENT && rc != -EFBIG)
        abort();
    check_why(rc, why);
    if ((rc == 0) != (n > 0))
        abort();
    probe_prom_free(p);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nl = memchr(text, '\n', size < SELECTOR_MAX ? size : SELECTOR_MAX);
    char selector[SELECTOR_MAX + 1] = "m";
    size_t all;

    if (nl) {
        memcpy(selector, text, (size_t)(nl - text));
        selector[nl - text] = '\0';
        size -= (size_t)(nl - text) + 1;
        text = nl + 1;
    }
    count(selector, text, size);
    all = count("m", text, size);
    if (count("m{a=\"x\"}", text, size) + count("m{a!=\"x\"}", text, size) != all)
        abort();
    if (count("m{a=~\"x.*\"}", text, size) + count("m{a!~\"x.*\"}", text, size) != all)
        abort();
    return 0;
}
