/*
 * JSON probes: a jansson document and RFC 6901 JSON Pointers into it.
 * jansson has no depth option of its own below 2048 levels, so the depth is
 * checked first, by a scan of the brackets outside strings.
 */
#include "probes/parse.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/msg.h"
#include "core/xalloc.h"
#include "probes/internal.h"

struct probe_json {
    json_t *root; /* owned */
};

int probe_json_pointer_check(const char *pointer, char *why, size_t why_len)
{
    size_t len = strlen(pointer);
    const char *tilde;

    if (len > PROBE_PATTERN_MAX) {
        msg_set(why, why_len, "bad JSON pointer: it is %zu bytes, over the limit of %d", len,
                PROBE_PATTERN_MAX);
        return -EINVAL;
    }
    if (len > 0 && pointer[0] != '/') {
        msg_set(why, why_len, "bad JSON pointer \"%s\": it must be empty or start with \"/\"",
                pointer);
        return -EINVAL;
    }
    for (tilde = strchr(pointer, '~'); tilde; tilde = strchr(tilde + 1, '~')) {
        if (tilde[1] != '0' && tilde[1] != '1') {
            msg_set(
                why, why_len,
                "bad JSON pointer \"%s\": \"~\" must be followed by 0 or 1 (\"~0\" is ~, \"~1\" is /)",
                pointer);
            return -EINVAL;
        }
    }
    return 0;
}

/* Returns -EBADMSG with why when text nests deeper than PROBE_JSON_DEPTH_MAX. */
static int check_depth(const char *text, size_t len, char *why, size_t why_len)
{
    size_t depth = 0;
    int is_in_string = 0;

    for (size_t i = 0; i < len; i++) {
        char c = text[i];

        if (is_in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                is_in_string = 0;
        } else if (c == '"') {
            is_in_string = 1;
        } else if (c == '[' || c == '{') {
            if (++depth > PROBE_JSON_DEPTH_MAX) {
                msg_set(why, why_len, "JSON nested deeper than %d levels at byte %zu",
                        PROBE_JSON_DEPTH_MAX, i + 1);
                return -EBADMSG;
            }
        } else if ((c == ']' || c == '}') && depth > 0) {
            depth--;
        }
    }
    return 0;
}

int probe_json_open(const char *text, size_t len, struct probe_json **out, char *why,
                    size_t why_len)
{
    char quote[PROBE_QUOTE_BUF];
    json_error_t err;
    json_t *root;
    int rc = probes__doc_check(len, why, why_len);

    if (rc != 0)
        return rc;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        text += 3;
        len -= 3;
    }
    rc = check_depth(text, len, why, why_len);
    if (rc != 0)
        return rc;
    root = json_loadb(text, len, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, &err);
    if (!root) {
        /* err.text may quote the page, so it is cut like any page text. */
        msg_set(why, why_len, "invalid JSON at line %d column %d: %s", err.line, err.column,
                probes__quote(err.text, strlen(err.text), quote));
        return -EBADMSG;
    }
    *out = xmalloc(sizeof(**out));
    (*out)->root = root;
    return 0;
}

void probe_json_close(struct probe_json *doc)
{
    if (!doc)
        return;
    json_decref(doc->root);
    free(doc);
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: break;
    }
    return "null";
}

/* Reads an array index token: "0" or digits without a leading zero. */
static int parse_index(const char *tok, size_t len, size_t *out)
{
    size_t v = 0;

    if (len == 0 || (tok[0] == '0' && len > 1))
        return -EINVAL;
    for (size_t i = 0; i < len; i++) {
        if (tok[i] < '0' || tok[i] > '9' || v > (SIZE_MAX - 9) / 10)
            return -EINVAL;
        v = v * 10 + (size_t)(tok[i] - '0');
    }
    *out = v;
    return 0;
}

/* Copies the token at p (after its '/') to tok with ~1 and ~0 undone; returns
 * its length and sets *next to the '/' or NUL after it. */
static size_t unescape_token(const char *p, char *tok, const char **next)
{
    size_t n = 0;

    while (*p && *p != '/') {
        if (p[0] == '~') {
            tok[n++] = p[1] == '1' ? '/' : '~';
            p += 2;
        } else {
            tok[n++] = *p++;
        }
    }
    tok[n] = '\0';
    *next = p;
    return n;
}

/* The pointer up to where, for reasons. */
static int prefix_len(const char *pointer, const char *where)
{
    size_t n = (size_t)(where - pointer);

    return n > PROBE_PATTERN_MAX ? PROBE_PATTERN_MAX : (int)n;
}

/* Follows pointer from root; returns 0 with *out set, or -ENOENT with why. */
static int follow(const json_t *root, const char *pointer, const json_t **out, char *why,
                  size_t why_len)
{
    char *tok = xmalloc(strlen(pointer) + 1);
    const char *p = pointer, *next;
    const json_t *v = root;
    int rc = 0;

    while (*p == '/' && rc == 0) {
        size_t n = unescape_token(p + 1, tok, &next), index;
        const json_t *child = NULL;

        if (json_is_object(v)) {
            child = json_object_getn(v, tok, n);
            if (!child)
                msg_set(why, why_len, "%.*s: no such key", prefix_len(pointer, next), pointer);
        } else if (json_is_array(v)) {
            if (parse_index(tok, n, &index) == 0)
                child = json_array_get(v, index);
            if (!child)
                msg_set(why, why_len, "%.*s: no such element (the array has %zu)",
                        prefix_len(pointer, next), pointer, json_array_size(v));
        } else if (p == pointer) {
            msg_set(why, why_len, "%.*s: no such key (the document is %s)",
                    prefix_len(pointer, next), pointer, type_name(v));
        } else {
            msg_set(why, why_len, "%.*s: no such key (%.*s is %s)", prefix_len(pointer, next),
                    pointer, prefix_len(pointer, p), pointer, type_name(v));
        }
        rc = child ? 0 : -ENOENT;
        v = child;
        p = next;
    }
    free(tok);
    if (rc == 0)
        *out = v;
    return rc;
}

/* Reads v as a number, or says why not, naming it by pointer. */
static int to_number(const json_t *v, const char *pointer, double *out, char *why, size_t why_len)
{
    const char *where = pointer[0] ? pointer : "(the whole document)";
    char quote[PROBE_QUOTE_BUF];
    int rc;

    switch (json_typeof(v)) {
    case JSON_REAL:
    case JSON_INTEGER: *out = json_number_value(v); return 0;
    case JSON_TRUE:
    case JSON_FALSE: *out = json_is_true(v) ? 1.0 : 0.0; return 0;
    case JSON_STRING:
        rc = probes__num_parse(json_string_value(v), json_string_length(v), 0, out);
        if (rc != 0) {
            probes__quote(json_string_value(v), json_string_length(v), quote);
            msg_set(why, why_len, "%s: \"%s\" is %s", where, quote,
                    rc == -ERANGE ? "out of range" : "not a number");
            return rc == -ERANGE ? -ERANGE : -EDOM;
        }
        return 0;
    default: msg_set(why, why_len, "%s: %s is not a number", where, type_name(v)); return -EDOM;
    }
}

int probe_json_get(const struct probe_json *doc, const char *pointer, double *out, char *why,
                   size_t why_len)
{
    const json_t *v;
    int rc = probe_json_pointer_check(pointer, why, why_len);

    if (rc == 0)
        rc = follow(doc->root, pointer, &v, why, why_len);
    if (rc == 0)
        rc = to_number(v, pointer, out, why, why_len);
    return rc;
}

int probe_parse_json(const char *text, size_t len, const char *pointer, double *out, char *why,
                     size_t why_len)
{
    struct probe_json *doc;
    int rc = probe_json_pointer_check(pointer, why, why_len);

    if (rc == 0)
        rc = probe_json_open(text, len, &doc, why, why_len);
    if (rc == 0) {
        rc = probe_json_get(doc, pointer, out, why, why_len);
        probe_json_close(doc);
    }
    return rc;
}
