#include "core/redact.h"

#include <stdio.h>
#include <string.h>

#include "core/ascii.h"

/* Query keys longer than this (after percent-decoding) are not compared but
 * redacted outright: no legitimate key is that long, and a cut-off comparison
 * could miss "token" at its end. */
#define KEY_MAX 128

/* Header names that carry a secret even though they contain no secret word. */
static const char *const secret_header_names[] = {
    "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token",
};

/* Any header name or query key containing one of these is secret. */
static const char *const secret_words[] = {
    "token", "secret", "passw", "apikey", "api-key", "api_key", "session", "signature",
};

/* The query keys redact.h names; most also contain a secret word, which
 * catches many more (client_secret, refresh_token, ...). */
static const char *const secret_query_keys[] = {"token",
                                                "access_token",
                                                "key",
                                                "api_key",
                                                "apikey",
                                                "sig",
                                                "signature",
                                                "password",
                                                "passwd",
                                                "secret",
                                                "x-amz-signature",
                                                "x-amz-credential",
                                                "x-amz-security-token"};

/* A bounded writer: keeps writing what fits, always NUL-terminated. */
struct sink {
    char *out;
    size_t cap;
    size_t len;
};

static void put(struct sink *k, const char *s, size_t n)
{
    size_t room;

    if (k->cap == 0)
        return;
    room = k->cap - 1 - k->len;
    if (n > room)
        n = room;
    memcpy(k->out + k->len, s, n);
    k->len += n;
    k->out[k->len] = '\0';
}

static void put_redacted(struct sink *k, size_t secret_len)
{
    char mark[48];
    int n = snprintf(mark, sizeof(mark), "<redacted len=%zu>", secret_len);

    put(k, mark, (size_t)n);
}

/* Length of the mark put_redacted writes at s[0..n), or 0 when s does not
 * start with one: a value redacted already is kept as it is, so that
 * redacting twice changes nothing. */
static size_t mark_len(const char *s, size_t n)
{
    static const char head[] = "<redacted len=";
    size_t i = sizeof(head) - 1;

    if (n <= i || memcmp(s, head, i) != 0)
        return 0;
    if (s[i] < '0' || s[i] > '9')
        return 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    return i < n && s[i] == '>' ? i + 1 : 0;
}

/* Puts the secret s[0..n) redacted, unless it is a mark already. */
static void put_secret(struct sink *k, const char *s, size_t n)
{
    if (n > 0 && mark_len(s, n) == n)
        put(k, s, n);
    else
        put_redacted(k, n);
}

/* Whether s[0..n) equals the lower-case word w, ignoring ASCII case. */
static int equals_word(const char *s, size_t n, const char *w)
{
    size_t i = 0;

    while (i < n && w[i] != '\0' && ascii_lower(s[i]) == w[i])
        i++;
    return i == n && w[i] == '\0';
}

/* Whether s[0..n) contains the lower-case word w, ignoring ASCII case. */
static int contains_word(const char *s, size_t n, const char *w)
{
    size_t wn = strlen(w);

    for (size_t i = 0; i + wn <= n; i++) {
        if (equals_word(s + i, wn, w))
            return 1;
    }
    return 0;
}

static int in_list(const char *s, size_t n, const char *const *list, size_t list_len)
{
    for (size_t i = 0; i < list_len; i++) {
        if (equals_word(s, n, list[i]))
            return 1;
    }
    return 0;
}

static int has_secret_word(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof(secret_words) / sizeof(secret_words[0]); i++) {
        if (contains_word(s, n, secret_words[i]))
            return 1;
    }
    return 0;
}

static int is_secret_header_span(const char *name, size_t n)
{
    size_t n_names = sizeof(secret_header_names) / sizeof(secret_header_names[0]);

    return in_list(name, n, secret_header_names, n_names) || has_secret_word(name, n);
}

int redact_is_secret_header(const char *name)
{
    return name != NULL && is_secret_header_span(name, strlen(name));
}

static int is_line_end(char c)
{
    return ascii_is_blank(c) || c == '\r' || c == '\n';
}

/* A value made only of ${NAME} references, after an optional scheme word
 * ("Bearer ${TOKEN}"): it names where the secret lives, not the secret, so
 * it is shown as written (config files keep such references, not values). */
static int is_reference_only(const char *v, const char *end)
{
    const char *p = v;
    int refs = 0;

    while (p < end && ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
        p++;
    if (p > v && (p == end || !ascii_is_blank(*p)))
        p = v; /* a word with no blank after it is not a scheme */
    while (p < end) {
        while (p < end && ascii_is_blank(*p))
            p++;
        if (p == end)
            break;
        if (end - p < 4 || p[0] != '$' || p[1] != '{')
            return 0;
        p += 2;
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_'))
            return 0;
        while (p < end && ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
                           (*p >= '0' && *p <= '9') || *p == '_'))
            p++;
        if (p == end || *p != '}')
            return 0;
        p++;
        refs++;
    }
    return refs > 0;
}

size_t redact_header_line(const char *line, char *out, size_t cap)
{
    struct sink k = {out, cap, 0};
    const char *colon, *name_end, *v, *v_end, *end;

    if (cap > 0)
        out[0] = '\0';
    if (line == NULL)
        return 0;
    end = line + strlen(line);
    colon = strchr(line, ':');
    name_end = colon;
    while (name_end != NULL && name_end > line && ascii_is_blank(name_end[-1]))
        name_end--;
    if (colon == NULL || !is_secret_header_span(line, (size_t)(name_end - line))) {
        put(&k, line, (size_t)(end - line));
        return k.len;
    }
    /* Keep the spacing and the line ending as they were; only the value goes. */
    v = colon + 1;
    while (ascii_is_blank(*v))
        v++;
    v_end = end;
    while (v_end > v && is_line_end(v_end[-1]))
        v_end--;
    if (is_reference_only(v, v_end)) {
        put(&k, line, (size_t)(end - line));
        return k.len;
    }
    put(&k, line, (size_t)(v - line));
    put_redacted(&k, (size_t)(v_end - v));
    put(&k, v_end, (size_t)(end - v_end));
    return k.len;
}

/*
 * Whether the query key s[0..n) names a secret. The key is percent-decoded
 * first, so "%74oken" is caught as "token".
 */
static int is_secret_key(const char *s, size_t n)
{
    char key[KEY_MAX];
    size_t len = 0;

    for (size_t i = 0; i < n; i++) {
        char c = s[i];

        if (c == '%' && i + 2 < n && ascii_hex_value(s[i + 1]) >= 0 &&
            ascii_hex_value(s[i + 2]) >= 0) {
            c = (char)(ascii_hex_value(s[i + 1]) * 16 + ascii_hex_value(s[i + 2]));
            i += 2;
        }
        if (len == sizeof(key))
            return 1;
        key[len++] = c;
    }
    return in_list(key, len, secret_query_keys,
                   sizeof(secret_query_keys) / sizeof(secret_query_keys[0])) ||
           has_secret_word(key, len);
}

/* Index of the first of chars in url[from..to), or to. */
static size_t find_any(const char *url, size_t from, size_t to, const char *chars)
{
    while (from < to && strchr(chars, url[from]) == NULL)
        from++;
    return from;
}

/*
 * Copies the key=value list url[i..end) (a query, or a fragment) to k with the
 * values of secret keys redacted. A key starts after '&' or ';', since some
 * servers split on either; a secret value runs on to the next '&' so that
 * no part of "token=abc;def" is shown.
 */
static void put_params(struct sink *k, const char *url, size_t i, size_t end)
{
    while (i < end) {
        size_t key_end = find_any(url, i, end, "=&;");
        size_t next;

        if (key_end < end && url[key_end] == '=') {
            int secret = is_secret_key(url + i, key_end - i);

            next = find_any(url, key_end + 1, end, secret ? "&" : "&;");
            put(k, url + i, key_end + 1 - i);
            if (secret)
                put_secret(k, url + key_end + 1, next - key_end - 1);
            else
                put(k, url + key_end + 1, next - key_end - 1);
        } else {
            next = key_end;
            put(k, url + i, next - i);
        }
        if (next < end) {
            put(k, url + next, 1);
            next++;
        }
        i = next;
    }
}

static int is_scheme_char(char c)
{
    return ascii_is_alpha(c) || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

/* Length of "scheme://" at the start of url, or 0 when there is none. */
static size_t scheme_len(const char *url)
{
    size_t i = 0;

    if (!ascii_is_alpha(url[0]))
        return 0;
    while (is_scheme_char(url[i]))
        i++;
    return strncmp(url + i, "://", 3) == 0 ? i + 3 : 0;
}

/* redact_url on the span url[0..n). */
static void put_url(struct sink *k, const char *url, size_t n)
{
    size_t auth, auth_end, at, path_end, query_end;

    /* Without a scheme the URL starts with its authority, as curl reads it. */
    auth = scheme_len(url);
    if (auth > n)
        auth = 0;
    auth_end = find_any(url, auth, n, "/?#");
    put(k, url, auth);
    /* The last '@' ends the userinfo: an unencoded '@' in a password must not
     * push part of it into the host. */
    at = auth_end;
    for (size_t i = auth; i < auth_end; i++) {
        if (url[i] == '@')
            at = i;
    }
    if (at < auth_end) {
        size_t colon = find_any(url, auth, at, ":");

        /* A user name alone is often a token ("https://ghp_...@host"). */
        if (colon < at) {
            put(k, url + auth, colon + 1 - auth);
            put_secret(k, url + colon + 1, at - colon - 1);
        } else {
            put_secret(k, url + auth, at - auth);
        }
        auth = at;
    }
    put(k, url + auth, auth_end - auth);
    path_end = find_any(url, auth_end, n, "?#");
    put(k, url + auth_end, path_end - auth_end);
    query_end = find_any(url, path_end, n, "#");
    if (path_end < query_end) {
        put(k, "?", 1);
        put_params(k, url, path_end + 1, query_end);
    }
    /* Fragments carry secrets too: OAuth's implicit flow returns
     * #access_token=..., and hash routes look like #/page?token=.... */
    if (query_end < n) {
        put(k, "#", 1);
        put_params(k, url, query_end + 1, n);
    }
}

size_t redact_url(const char *url, char *out, size_t cap)
{
    struct sink k = {out, cap, 0};

    if (cap > 0)
        out[0] = '\0';
    if (url == NULL)
        return 0;
    put_url(&k, url, strlen(url));
    return k.len;
}

/* ---- Secrets inside free text ------------------------------------------ */

static int is_quote(char c)
{
    return c == '"' || c == '\'';
}

/* Characters of a word that may be a header name or a key: the word before
 * them is not where a secret starts. */
static int is_word_char(char c)
{
    return ascii_is_alpha(c) || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' ||
           c == '%';
}

/* End of the token that starts at text[i]: the next blank, line end or
 * quote, a mark counting as one piece even though it holds a blank. */
static size_t token_end(const char *text, size_t i, size_t n, const char *also)
{
    while (i < n && !is_line_end(text[i]) && !is_quote(text[i]) && !strchr(also, text[i])) {
        size_t m = mark_len(text + i, n - i);

        i += m ? m : 1;
    }
    return i;
}

/* A "Name: value" header at text[i] with a secret name: the value runs to
 * the closing quote when the header is quoted (where the colon may be
 * missing), else to the line end. Only
 * the names every server treats as secret count outside quotes, so that
 * "brink: session: ..." stays readable. Returns the bytes used, or 0. */
static size_t put_text_header(struct sink *k, const char *text, size_t i, size_t n)
{
    size_t name_end = i, v, v_end;
    int is_quoted = i > 0 && is_quote(text[i - 1]);
    size_t n_names = sizeof(secret_header_names) / sizeof(secret_header_names[0]);

    while (name_end < n && (is_word_char(text[name_end]) && text[name_end] != '%'))
        name_end++;
    if (name_end == i || name_end + 1 >= n)
        return 0;
    /* Inside quotes a header may be malformed ("Authorization Bearer x", no
     * colon): its secret is still in it. */
    if (text[name_end] == ':' ? !ascii_is_blank(text[name_end + 1])
                              : !(is_quoted && ascii_is_blank(text[name_end])))
        return 0;
    if (!in_list(text + i, name_end - i, secret_header_names, n_names) &&
        !(is_quoted && has_secret_word(text + i, name_end - i)))
        return 0;
    v = name_end + (text[name_end] == ':');
    while (v < n && ascii_is_blank(text[v]))
        v++;
    v_end = v;
    while (v_end < n && text[v_end] != '\n' && text[v_end] != '\r' &&
           !(is_quoted && text[v_end] == text[i - 1]))
        v_end++;
    put(k, text + i, v - i);
    if (v_end == v || is_reference_only(text + v, text + v_end))
        put(k, text + v, v_end - v);
    else
        put_secret(k, text + v, v_end - v);
    return v_end - i;
}

/* End of the value of a pair that starts at text[v]: a value redacted
 * already is its mark alone; else the token, without the punctuation of
 * the sentence around it ("token=abc: cannot open"). */
static size_t value_end(const char *text, size_t v, size_t n)
{
    size_t m = mark_len(text + v, n - v), end;

    if (m)
        return v + m;
    end = token_end(text, v, n, "&");
    while (end > v + 1 && strchr(":,;).", text[end - 1]))
        end--;
    return end;
}

/* A key=value pair at text[i] with a secret key ("token=...", also
 * "--password=..."): the value runs to the next blank, quote or '&'. */
static size_t put_text_pair(struct sink *k, const char *text, size_t i, size_t n)
{
    size_t key_end = i, v_end;

    while (key_end < n && is_word_char(text[key_end]))
        key_end++;
    if (key_end == i || key_end >= n || text[key_end] != '=' ||
        !is_secret_key(text + i, key_end - i))
        return 0;
    v_end = value_end(text, key_end + 1, n);
    put(k, text + i, key_end + 1 - i);
    if (v_end > key_end + 1)
        put_secret(k, text + key_end + 1, v_end - key_end - 1);
    return v_end - i;
}

size_t redact_text(const char *text, char *out, size_t cap)
{
    struct sink k = {out, cap, 0};
    size_t n, i = 0;

    if (cap > 0)
        out[0] = '\0';
    if (text == NULL)
        return 0;
    n = strlen(text);
    while (i < n) {
        size_t used = mark_len(text + i, n - i);

        if (used) {
            put(&k, text + i, used);
        } else if (i == 0 || !is_word_char(text[i - 1])) {
            if (scheme_len(text + i) > 0) {
                used = token_end(text, i, n, "") - i;
                put_url(&k, text + i, used);
            } else if ((used = put_text_header(&k, text, i, n)) == 0) {
                used = put_text_pair(&k, text, i, n);
            }
        }
        if (used == 0) {
            put(&k, text + i, 1);
            used = 1;
        }
        i += used;
    }
    return k.len;
}
