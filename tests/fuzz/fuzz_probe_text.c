/*
 * Fuzzes the text probe parsers. The input is "KEY\nPAGE"; the key also
 * serves as a regex when it compiles (short ones only: a regex comes from
 * the operator, and glibc's matcher is slow on some of them). Properties,
 * beyond not crashing or leaking:
 *   - only the documented codes come back;
 *   - a success gives a finite number and leaves the reason buffer alone;
 *     a failure writes a non-empty, terminated reason that fits;
 *   - the one-call regex parser agrees with a compiled regex.
 */
#include "probes/parse.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WHY_MAX 128
#define KEY_MAX 200
#define REGEX_MAX 48
#define SENTINEL '\x7f'

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const fixed_keys[] = {
    "a", "Writing", "accepts", "Active connections", "Total Accesses", "node_gets"};
static const char *const fixed_regexes[] = {"([0-9.]+)$", "^([^:]*)", "^ *([-+.0-9eE]+) ",
                                            "Writing: ([^ ]*)", "(x)?"};

static void check(int rc, double v, const char *why)
{
    if (rc != 0 && rc != -EINVAL && rc != -EFBIG && rc != -ENOENT && rc != -EDOM && rc != -ERANGE)
        abort();
    if (rc == 0) {
        if (!isfinite(v))
            abort();
        for (size_t i = 0; i < WHY_MAX; i++) {
            if (why[i] != SENTINEL)
                abort();
        }
    } else if (memchr(why, '\0', WHY_MAX) == NULL || !why[0]) {
        abort();
    }
}

static void run_key(const char *text, size_t len, const char *key)
{
    char why[WHY_MAX];
    double v = 0;
    int rc;

    memset(why, SENTINEL, sizeof(why));
    rc = probe_parse_text_key(text, len, key, &v, why, sizeof(why));
    check(rc, v, why);
    if ((probe_text_key_check(key, NULL, 0) != 0) != (rc == -EINVAL))
        abort();
}

static void run_regex(const char *text, size_t len, const char *regex)
{
    struct probe_regex *re;
    char why[WHY_MAX], why_once[WHY_MAX];
    double v = 0, v_once = 0;
    int rc, rc_once;

    memset(why_once, SENTINEL, sizeof(why_once));
    rc_once = probe_parse_text_regex(text, len, regex, &v_once, why_once, sizeof(why_once));
    check(rc_once, v_once, why_once);
    if (probe_regex_compile(regex, &re, why, sizeof(why)) != 0) {
        if (rc_once != -EINVAL || strcmp(why, why_once) != 0)
            abort();
        return;
    }
    memset(why, SENTINEL, sizeof(why));
    rc = probe_regex_match(re, text, len, &v, why, sizeof(why));
    check(rc, v, why);
    if (rc != rc_once || (rc == 0 && memcmp(&v, &v_once, sizeof(v)) != 0) ||
        (rc != 0 && strcmp(why, why_once) != 0))
        abort();
    probe_regex_free(re);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nl = memchr(text, '\n', size < KEY_MAX ? size : KEY_MAX);
    char key[KEY_MAX + 1] = "";

    if (nl) {
        memcpy(key, text, (size_t)(nl - text));
        key[nl - text] = '\0';
        size -= (size_t)(nl - text) + 1;
        text = nl + 1;
    }
    run_key(text, size, key);
    for (size_t i = 0; i < sizeof(fixed_keys) / sizeof(fixed_keys[0]); i++)
        run_key(text, size, fixed_keys[i]);
    if (strlen(key) <= REGEX_MAX)
        run_regex(text, size, key);
    for (size_t i = 0; i < sizeof(fixed_regexes) / sizeof(fixed_regexes[0]); i++)
        run_regex(text, size, fixed_regexes[i]);
    return 0;
}
