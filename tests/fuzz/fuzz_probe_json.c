/*
 * Fuzzes the JSON probe parser. The input is "POINTER\nDOCUMENT" (with no
 * newline, all of it is the document and the pointer is ""). Properties,
 * beyond not crashing or leaking:
 *   - only the documented codes come back, and probe_json_pointer_check
 *     agrees with the parser about the pointer;
 *   - a success gives a finite number and leaves the reason buffer alone;
 *     a failure writes a non-empty, terminated reason that fits;
 *   - probe_parse_json and probe_json_open + probe_json_get agree, value and
 *     reason, whatever the size of the reason buffer.
 */
#include "probes/parse.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WHY_MAX 128
#define POINTER_MAX 200
/* Filler of the reason buffer, to see what a parser wrote. */
#define SENTINEL '\x7f'

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const fixed_pointers[] = {"", "/a", "/0", "/a/b/1", "/a~1b", "/-"};

static int is_known(int rc)
{
    return rc == 0 || rc == -EINVAL || rc == -EFBIG || rc == -EBADMSG || rc == -ENOENT ||
           rc == -EDOM || rc == -ERANGE;
}

/* Checks a result against the reason buffer it filled. */
static void check(int rc, double v, const char *why, size_t why_len)
{
    if (!is_known(rc))
        abort();
    if (rc == 0) {
        if (!isfinite(v))
            abort();
        for (size_t i = 0; i < why_len; i++) {
            if (why[i] != SENTINEL)
                abort();
        }
    } else if (why_len > 0 && (memchr(why, '\0', why_len) == NULL || (why_len > 1 && !why[0]))) {
        abort();
    }
}

static void check_get(const struct probe_json *doc, int open_rc, const char *open_why,
                      const char *text, size_t len, const char *pointer)
{
    char why[WHY_MAX], why_get[WHY_MAX];
    double v = 0, v_get = 0;
    int rc, rc_get;

    memset(why, SENTINEL, sizeof(why));
    rc = probe_parse_json(text, len, pointer, &v, why, sizeof(why));
    check(rc, v, why, sizeof(why));
    if (probe_json_pointer_check(pointer, NULL, 0) != 0) {
        if (rc != -EINVAL)
            abort();
        return;
    }
    if (open_rc != 0) {
        if (rc != open_rc || strcmp(why, open_why) != 0)
            abort();
        return;
    }
    rc_get = probe_json_get(doc, pointer, &v_get, why_get, sizeof(why_get));
    if (rc_get != rc || (rc == 0 && memcmp(&v, &v_get, sizeof(v)) != 0) ||
        (rc != 0 && strcmp(why, why_get) != 0))
        abort();
    /* A small buffer gets a prefix of the same reason. */
    memset(why_get, SENTINEL, sizeof(why_get));
    if (probe_json_get(doc, pointer, &v_get, why_get, 9) != rc)
        abort();
    check(rc, v_get, why_get, 9);
    if (rc != 0 && strncmp(why, why_get, 8) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nl = memchr(text, '\n', size < POINTER_MAX ? size : POINTER_MAX);
    char pointer[POINTER_MAX + 1] = "", open_why[WHY_MAX];
    struct probe_json *doc = NULL;
    int open_rc;

    if (nl) {
        memcpy(pointer, text, (size_t)(nl - text));
        pointer[nl - text] = '\0';
        size -= (size_t)(nl - text) + 1;
        text = nl + 1;
    }
    open_rc = probe_json_open(text, size, &doc, open_why, sizeof(open_why));
    if (open_rc != 0 && open_rc != -EBADMSG && open_rc != -EFBIG)
        abort();
    check_get(doc, open_rc, open_why, text, size, pointer);
    for (size_t i = 0; i < sizeof(fixed_pointers) / sizeof(fixed_pointers[0]); i++)
        check_get(doc, open_rc, open_why, text, size, fixed_pointers[i]);
    probe_json_close(doc);
    return 0;
}
