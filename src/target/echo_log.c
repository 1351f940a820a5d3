/*
 * The /echo ledger: what arrived at /echo, grouped by shape (method, body,
 * X- and Content-Type headers) and counted, so that a test can check from
 * the target's side that a client sent the requests it was told to. At most
 * ECHO_SHAPES_MAX shapes are kept; requests of any further shape are only
 * counted. Any thread (libmicrohttpd's pool): one mutex.
 */
#include "target/internal.h"

#include <string.h>
#include <strings.h>

void target__echo_log_init(struct echo_log *l)
{
    memset(l, 0, sizeof(*l));
    pthread_mutex_init(&l->lock, NULL);
}

void target__echo_log_destroy(struct echo_log *l)
{
    pthread_mutex_destroy(&l->lock);
}

/* Copies at most cap - 1 bytes of s (n of them), unprintable bytes as '.'. */
static void copy_shown(char *out, size_t cap, const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n && i + 1 < cap; i++)
        out[i] = (unsigned char)s[i] >= ' ' && (unsigned char)s[i] < 0x7F ? s[i] : '.';
    out[i] = '\0';
}

struct header_walk {
    char *out;
    size_t cap, len;
};

static void add_header(void *arg, const char *name, const char *value)
{
    struct header_walk *w = arg;
    char line[ECHO_HEADERS_MAX];
    size_t n;

    if (strncasecmp(name, "X-", 2) != 0 && strcasecmp(name, "Content-Type") != 0)
        return;
    snprintf(line, sizeof(line), "%s: %s\n", name, value ? value : "");
    n = strlen(line);
    if (w->len + n < w->cap) {
        copy_shown(w->out + w->len, w->cap - w->len, line, n - 1);
        w->len += n;
        w->out[w->len - 1] = '\n';
        w->out[w->len] = '\0';
    }
}

static int same_shape(const struct echo_shape *a, const struct echo_shape *b)
{
    return a->body_bytes == b->body_bytes && strcmp(a->method, b->method) == 0 &&
           strcmp(a->body, b->body) == 0 && strcmp(a->headers, b->headers) == 0;
}

void target__echo_log_add(struct echo_log *l, const struct req_in *in, const struct req *r)
{
    struct echo_shape s = {.count = 1, .body_bytes = r->body_len};
    struct header_walk w = {s.headers, sizeof(s.headers), 0};
    size_t i;

    copy_shown(s.method, sizeof(s.method), in->method, strlen(in->method));
    copy_shown(s.body, sizeof(s.body), r->body ? r->body : "", r->body_len);
    target__req_headers_each(in, add_header, &w);
    pthread_mutex_lock(&l->lock);
    for (i = 0; i < l->n_shapes && !same_shape(&l->shapes[i], &s); i++)
        ;
    if (i < l->n_shapes)
        l->shapes[i].count++;
    else if (l->n_shapes < ECHO_SHAPES_MAX)
        l->shapes[l->n_shapes++] = s;
    else
        l->other++;
    pthread_mutex_unlock(&l->lock);
}

json_t *target__echo_log_json(struct echo_log *l)
{
    json_t *doc = json_object(), *shapes = json_array();

    pthread_mutex_lock(&l->lock);
    for (size_t i = 0; i < l->n_shapes; i++) {
        const struct echo_shape *s = &l->shapes[i];

        json_array_append_new(shapes,
                              json_pack("{s:s, s:s, s:I, s:s, s:I}", "method", s->method, "body",
                                        s->body, "body_bytes", (json_int_t)s->body_bytes, "headers",
                                        s->headers, "count", (json_int_t)s->count));
    }
    json_object_set_new(doc, "other", json_integer((json_int_t)l->other));
    pthread_mutex_unlock(&l->lock);
    json_object_set_new(doc, "shapes", shapes);
    return doc;
}
