#include "engine/workload.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "config/config.h"
#include "core/msg.h"
#include "core/rng.h"
#include "core/xalloc.h"
#include "engine/sigv4.h"

#define SHOW_MAX 96     /* bytes of a user string quoted in a message */
#define DECIMAL_MAX 20  /* digits of UINT64_MAX */
#define READ_CHUNK 4096 /* first buffer for a file that says it is empty */
#define WHAT_MAX 1024   /* bytes of a message after its "[request put]" label */

#if defined(__GNUC__)
#define WORKLOAD_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define WORKLOAD_PRINTF(f, a)
#endif

/* What one piece of a compiled URL template writes. */
enum segment_op {
    SEG_TEXT, /* the template's own bytes */
    SEG_SEQ,  /* {seq} */
    SEG_VU,   /* {vu} */
    SEG_UUID, /* {uuid} */
    SEG_RAND, /* {rand:A..B} */
};

struct segment {
    enum segment_op op;
    const char *text; /* SEG_TEXT: into the kind's copy of the template */
    size_t len;       /* SEG_TEXT: bytes at text */
    uint64_t lo;      /* SEG_RAND: A, two's complement */
    uint64_t bound;   /* SEG_RAND: B - A + 1 values; 0 stands for all 2^64 */
};

/* A kind and what it owns; pub points into the owned fields. */
struct kind {
    struct workload_kind pub;
    char *name;
    char *method;
    char **headers;
    unsigned char *body;
    char *url; /* the template, which SEG_TEXT segments point into */
    struct segment *segs;
    size_t n_segs;
    /* aws_sigv4: the workload's credentials with this kind's scope. */
    struct sigv4_creds sigv4;
    char region[64];
    char service[64];
    char payload_hash[SIGV4_HASH_HEX];
};

struct workload {
    struct kind *kinds;
    size_t n_kinds;
    uint64_t *cum_weight; /* cum_weight[i]: the weights of kinds 0..i added up */
    uint64_t total_weight;
    /* The environment's AWS credentials, read once when a kind signs. */
    char *aws_key_id;
    char *aws_secret;
    char *aws_token; /* NULL: none */
};

/* Where a message about one kind starts: "[request put]" or "[target]". */
struct where {
    char label[SHOW_MAX + 16];
};

static void fail(char *err, size_t err_len, const struct where *at, const char *fmt, ...)
    WORKLOAD_PRINTF(4, 5);

static void fail(char *err, size_t err_len, const struct where *at, const char *fmt, ...)
{
    char what[WHAT_MAX];
    va_list ap;

    va_start(ap, fmt);
    msg_vset(what, sizeof(what), fmt, ap);
    va_end(ap);
    msg_set(err, err_len, "brink: %s %s", at->label, what);
}

uint64_t workload_rng_next(uint64_t *state)
{
    return rng_next(state);
}

/* ---- URL templates ---------------------------------------------------- */

/* Parses a decimal int64 at s, as the config checked it: an optional '-'
 * and digits, no blanks and no '+'. */
static int parse_int64(const char *s, int64_t *out, const char **end)
{
    char *e;
    long long v;

    if (!(s[0] >= '0' && s[0] <= '9') && !(s[0] == '-' && s[1] >= '0' && s[1] <= '9'))
        return -EINVAL;
    errno = 0;
    v = strtoll(s, &e, 10);
    if (errno == ERANGE)
        return -ERANGE;
    *out = v;
    *end = e;
    return 0;
}

/* Compiles the inside of "{rand:A..B}", from A to the closing brace. */
static int compile_rand(const char *s, const char *close, struct segment *seg)
{
    int64_t a, b;
    const char *p;

    if (parse_int64(s, &a, &p) < 0 || strncmp(p, "..", 2) != 0)
        return -EINVAL;
    if (parse_int64(p + 2, &b, &p) < 0 || p != close || a > b)
        return -EINVAL;
    seg->op = SEG_RAND;
    seg->lo = (uint64_t)a;
    /* B - A + 1 in modular arithmetic: exact up to 2^64 - 1, and 0 for the
     * full range, which rng_below reads as 2^64. */
    seg->bound = (uint64_t)b - (uint64_t)a + 1;
    return 0;
}

/* Compiles the placeholder from open ('{') to close ('}') into seg. */
static int compile_placeholder(const char *open, const char *close, struct segment *seg)
{
    static const struct {
        const char *name;
        enum segment_op op;
    } names[] = {{"seq", SEG_SEQ}, {"vu", SEG_VU}, {"uuid", SEG_UUID}};
    size_t n = (size_t)(close - open - 1);

    memset(seg, 0, sizeof(*seg));
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strlen(names[i].name) == n && memcmp(open + 1, names[i].name, n) == 0) {
            seg->op = names[i].op;
            return 0;
        }
    }
    if (n > 5 && memcmp(open + 1, "rand:", 5) == 0)
        return compile_rand(open + 6, close, seg);
    return -EINVAL;
}

static void add_text(struct kind *k, const char *text, size_t len)
{
    if (len == 0)
        return;
    k->segs[k->n_segs++] = (struct segment){.op = SEG_TEXT, .text = text, .len = len};
}

/* Digits of the int64 whose two's complement is v, with its sign. */
static size_t signed_width(uint64_t v)
{
    size_t n = v >> 63 ? 1 : 0;

    for (v = v >> 63 ? 0 - v : v; v >= 10; v /= 10)
        n++;
    return n + 1;
}

/* The most bytes seg can write. */
static size_t segment_max(const struct segment *seg)
{
    size_t lo, hi;

    switch (seg->op) {
    case SEG_TEXT: return seg->len;
    case SEG_SEQ: return DECIMAL_MAX;
    case SEG_VU: return DECIMAL_MAX / 2; /* 4294967295 */
    case SEG_UUID: return RNG_UUID_LEN;
    case SEG_RAND:
        /* B is A + bound - 1 modulo 2^64, also for the full range. */
        lo = signed_width(seg->lo);
        hi = signed_width(seg->lo + seg->bound - 1);
        return lo > hi ? lo : hi;
    }
    return 0;
}

/* Refuses a template whose longest expansion would not fit in
 * WORKLOAD_URL_MAX, so that workload_url into a buffer of that size never
 * fails at run time. */
static int check_length(const struct kind *k, const struct where *at, char *err, size_t err_len)
{
    size_t n = 0;

    for (size_t i = 0; i < k->n_segs; i++)
        n += segment_max(&k->segs[i]);
    if (n < WORKLOAD_URL_MAX)
        return 0;
    fail(
        err, err_len, at,
        "url: expands to up to %zu bytes, more than the %d accepted (use fewer or shorter placeholders)",
        n, WORKLOAD_URL_MAX - 1);
    return -EINVAL;
}

/* Splits k->url into segments. The config has checked the template already;
 * a bad one here means the config was built some other way. */
static int compile_url(struct kind *k, const struct where *at, char *err, size_t err_len)
{
    const char *p = k->url, *text = k->url;
    size_t n_open = 0;
    char shown[SHOW_MAX];

    for (const char *q = k->url; *q; q++)
        n_open += *q == '{';
    /* Each placeholder adds itself and at most one text after it. */
    k->segs = xcalloc(2 * n_open + 1, sizeof(*k->segs));
    while ((p = strchr(p, '{')) != NULL) {
        const char *close = strchr(p, '}');
        struct segment seg;

        if (!close || compile_placeholder(p, close, &seg) < 0) {
            fail(err, err_len, at, "url: bad placeholder in \"%s\"",
                 msg_show(k->url, shown, sizeof(shown)));
            return -EINVAL;
        }
        add_text(k, text, (size_t)(p - text));
        k->segs[k->n_segs++] = seg;
        text = p = close + 1;
    }
    add_text(k, text, strlen(text));
    k->pub.has_placeholders = n_open > 0;
    return check_length(k, at, err, err_len);
}

/* ---- Expansion -------------------------------------------------------- */

/* The URL being written: len never reaches cap, so the NUL always fits. */
struct out {
    char *buf;
    size_t len;
    size_t cap;
};

static int put(struct out *o, const char *s, size_t n)
{
    if (n >= o->cap - o->len)
        return -ENOSPC;
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    return 0;
}

/* Writes n in decimal so that it ends just before end; returns its start. */
static char *decimal(uint64_t n, char *end)
{
    do {
        *--end = (char)('0' + n % 10);
        n /= 10;
    } while (n != 0);
    return end;
}

/* Writes a {rand} draw in decimal so that it ends just before end. */
static char *format_rand(const struct segment *seg, uint64_t *rng, char *end)
{
    /* A plus the draw wraps modulo 2^64 to the two's complement of a value
     * in [A, B], so the top bit is its sign and 0 - v its magnitude. */
    uint64_t v = seg->lo + rng_below(rng, seg->bound);
    char *p;

    if (!(v >> 63))
        return decimal(v, end);
    p = decimal(0 - v, end);
    *--p = '-';
    return p;
}

static int put_segment(struct out *o, const struct segment *seg, uint64_t seq, uint32_t vu,
                       uint64_t *rng)
{
    char tmp[RNG_UUID_LEN], *end = tmp + sizeof(tmp), *p = end;

    switch (seg->op) {
    case SEG_TEXT: return put(o, seg->text, seg->len);
    case SEG_SEQ: p = decimal(seq, end); break;
    case SEG_VU: p = decimal(vu, end); break;
    case SEG_UUID:
        rng_uuid(rng, tmp);
        p = tmp;
        break;
    case SEG_RAND: p = format_rand(seg, rng, end); break;
    }
    return put(o, p, (size_t)(end - p));
}

int workload_url(const struct workload *w, size_t kind, uint64_t seq, uint32_t vu, uint64_t *rng,
                 char *buf, size_t cap)
{
    /* The length is returned as an int. */
    struct out o = {buf, 0, cap > INT_MAX ? (size_t)INT_MAX : cap};
    const struct kind *k;

    assert(kind < w->n_kinds);
    if (cap == 0)
        return -ENOSPC;
    k = &w->kinds[kind];
    for (size_t i = 0; i < k->n_segs; i++) {
        if (put_segment(&o, &k->segs[i], seq, vu, rng) < 0) {
            buf[0] = '\0';
            return -ENOSPC;
        }
    }
    buf[o.len] = '\0';
    return (int)o.len;
}

/* ---- Weights ---------------------------------------------------------- */

size_t workload_pick(const struct workload *w, uint64_t *rng)
{
    uint64_t r;
    size_t lo = 0, hi = w->n_kinds - 1;

    if (w->n_kinds == 1)
        return 0;
    r = rng_below(rng, w->total_weight);
    /* The first kind whose cumulative weight is above r: kind i owns the
     * weight[i] values from cum_weight[i - 1] up to cum_weight[i] - 1. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (r < w->cum_weight[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static int build_weights(struct workload *w, char *err, size_t err_len)
{
    static const struct where at = {"workload:"};
    uint64_t sum = 0;

    for (size_t i = 0; i < w->n_kinds; i++) {
        sum += w->kinds[i].pub.weight;
        w->cum_weight[i] = sum;
    }
    if (sum == 0) {
        fail(err, err_len, &at, "no request kind has a weight above 0");
        return -EINVAL;
    }
    w->total_weight = sum;
    return 0;
}

/* ---- Bodies ----------------------------------------------------------- */

/* Reads fd to its end into a buffer that starts at hint bytes and grows, but
 * never holds more than WORKLOAD_FILE_MAX: the size stat gave may be stale,
 * or 0 for files that do not know theirs. */
static int read_all(int fd, size_t hint, unsigned char **out, size_t *out_len)
{
    /* One byte more than expected, so that the end shows without growing. */
    size_t cap = hint + 1, len = 0;
    unsigned char *buf = malloc(cap), *bigger;
    int rc = 0;

    if (!buf)
        return -ENOMEM;
    for (;;) {
        ssize_t n;

        if (len == cap) {
            if (cap > WORKLOAD_FILE_MAX) {
                rc = -EFBIG;
                goto out_free_buf;
            }
            cap = cap > (WORKLOAD_FILE_MAX + 1) / 2 ? WORKLOAD_FILE_MAX + 1 : 2 * cap;
            bigger = realloc(buf, cap);
            if (!bigger) {
                rc = -ENOMEM;
                goto out_free_buf;
            }
            buf = bigger;
        }
        n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = -errno;
            goto out_free_buf;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    *out = buf;
    *out_len = len;
    return 0;
out_free_buf:
    free(buf);
    return rc;
}

/* Reads the regular file at path into *out. Returns 0, or a negative errno
 * with why set to the reason. */
static int read_file(const char *path, unsigned char **out, size_t *out_len, char *why,
                     size_t why_len)
{
    /* O_NONBLOCK: should path have become a FIFO, open must not wait for a
     * writer; it changes nothing for a regular file. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), rc;
    struct stat st;

    if (fd < 0) {
        rc = -errno;
        snprintf(why, why_len, "%s", msg_errno(rc).text);
        return rc;
    }
    if (fstat(fd, &st) < 0) {
        rc = -errno;
        snprintf(why, why_len, "%s", msg_errno(rc).text);
    } else if (!S_ISREG(st.st_mode)) {
        rc = -EINVAL;
        snprintf(why, why_len, "not a regular file (expected @FILE naming a file)");
    } else if ((uintmax_t)st.st_size > WORKLOAD_FILE_MAX) {
        rc = -EFBIG;
        snprintf(why, why_len, "it is %jd bytes, more than the %u MiB accepted",
                 (intmax_t)st.st_size, WORKLOAD_FILE_MAX >> 20);
    } else {
        rc = read_all(fd, st.st_size ? (size_t)st.st_size : READ_CHUNK, out, out_len);
        if (rc == -EFBIG)
            snprintf(why, why_len, "it grew past the %u MiB accepted while being read",
                     WORKLOAD_FILE_MAX >> 20);
        else if (rc < 0)
            snprintf(why, why_len, "%s", msg_errno(rc).text);
    }
    close(fd);
    return rc;
}

static int file_body(struct kind *k, const struct config_request *r, const struct where *at,
                     char *err, size_t err_len)
{
    /* Name the file as the user wrote it, not as it was resolved. */
    const char *file = r->body.value && r->body.value[0] == '@' ? r->body.value + 1 : r->body_path;
    char why[256], shown[SHOW_MAX];
    int rc;

    if (!r->body_path) {
        fail(err, err_len, at, "body: no file to read for @FILE");
        return -EINVAL;
    }
    rc = read_file(r->body_path, &k->body, &k->pub.body_len, why, sizeof(why));
    if (rc < 0)
        fail(err, err_len, at, "body: cannot read @%s: %s", msg_show(file, shown, sizeof(shown)),
             why);
    return rc;
}

/* Fills buf with n bytes of the rng's stream, each 64-bit draw little-endian,
 * so that a seed gives the same body on every machine. */
static void fill_random(unsigned char *buf, size_t n, uint64_t *rng)
{
    size_t i = 0;

    for (; n - i >= 8; i += 8) {
        uint64_t x = workload_rng_next(rng);

        for (int j = 0; j < 8; j++)
            buf[i + (size_t)j] = (unsigned char)(x >> (8 * j));
    }
    if (i < n) {
        uint64_t x = workload_rng_next(rng);

        for (int j = 0; i < n; i++, j++)
            buf[i] = (unsigned char)(x >> (8 * j));
    }
}

static int random_body(struct kind *k, const struct config_request *r, uint64_t *rng,
                       const struct where *at, char *err, size_t err_len)
{
    /* The size came from the config (at most 1 GiB there): report a failed
     * allocation instead of aborting. One byte more keeps an empty body
     * distinct from none. */
    if (r->body_random_bytes >= SIZE_MAX || !(k->body = malloc((size_t)r->body_random_bytes + 1))) {
        fail(err, err_len, at, "body: cannot allocate random:%" PRIu64 " bytes: %s",
             r->body_random_bytes, msg_errno(ENOMEM).text);
        return -ENOMEM;
    }
    k->pub.body_len = (size_t)r->body_random_bytes;
    fill_random(k->body, k->pub.body_len, rng);
    return 0;
}

static int build_body(struct kind *k, const struct config_request *r, uint64_t *rng,
                      const struct where *at, char *err, size_t err_len)
{
    switch (r->body_kind) {
    case CONFIG_BODY_NONE: return 0;
    case CONFIG_BODY_TEXT:
        k->pub.body_len = strlen(r->body.value);
        k->body = (unsigned char *)xstrndup(r->body.value, k->pub.body_len);
        return 0;
    case CONFIG_BODY_FILE: return file_body(k, r, at, err, err_len);
    case CONFIG_BODY_RANDOM: return random_body(k, r, rng, at, err, err_len);
    }
    fail(err, err_len, at, "body: unknown kind of body %d", (int)r->body_kind);
    return -EINVAL;
}

/* ---- Kinds ------------------------------------------------------------ */

/* Copies [target]'s header lines, then the request's (more may be NULL). */
static void copy_headers(struct kind *k, const struct config_target *t,
                         const struct config_request *more)
{
    uint32_t n_more = more ? more->n_headers : 0;
    size_t n = 0;

    k->headers = xcalloc((size_t)t->n_headers + n_more + 1, sizeof(*k->headers));
    for (uint32_t i = 0; i < t->n_headers; i++)
        k->headers[n++] = xstrdup(t->headers[i].value);
    for (uint32_t i = 0; i < n_more; i++)
        k->headers[n++] = xstrdup(more->headers[i].value);
    k->pub.n_headers = n;
}

/* Points the public view at what k owns. */
static void publish(struct kind *k)
{
    k->pub.name = k->name;
    k->pub.method = k->method;
    k->pub.url = k->url;
    k->pub.headers = (const char *const *)k->headers;
    k->pub.body = k->body;
}

static int build_url(struct kind *k, const char *url, const struct where *at, char *err,
                     size_t err_len)
{
    if (!url) {
        fail(err, err_len, at, "url: not set");
        return -EINVAL;
    }
    k->url = xstrdup(url);
    return compile_url(k, at, err, err_len);
}

/* The kind of a config without [request NAME]: GET [target] url. */
/* Reads the environment's AWS credentials into w, once. The config's
 * check refused a signing run without them; an in-process caller may not
 * have run it. */
static int read_aws_credentials(struct workload *w, const struct where *at, char *err,
                                size_t err_len)
{
    static const char *const vars[] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"};
    const char *token = getenv("AWS_SESSION_TOKEN");

    if (w->aws_key_id)
        return 0;
    for (size_t i = 0; i < 2; i++) {
        const char *v = getenv(vars[i]);

        if (!v || !v[0]) {
            fail(err, err_len, at,
                 "aws_sigv4: %s is not set (expected the credentials in the environment)", vars[i]);
            return -EINVAL;
        }
    }
    w->aws_key_id = xstrdup(getenv(vars[0]));
    w->aws_secret = xstrdup(getenv(vars[1]));
    w->aws_token = token && token[0] ? xstrdup(token) : NULL;
    return 0;
}

/* Signs one request of k now: what sigv4_sign writes depends on the kind
 * alone (its header names, scope, credentials), never on the URL's
 * expansion, so a kind that signs here signs at every send. */
static int trial_sign(const struct kind *k, const struct where *at, char *err, size_t err_len)
{
    struct sigv4_out *out = xmalloc(sizeof(*out));
    struct sigv4_request rq = {.method = k->method,
                               .url = k->url,
                               .url_len = strlen(k->url),
                               .headers = k->pub.headers,
                               .n_headers = k->pub.n_headers,
                               .payload_hash = k->payload_hash};
    int rc = sigv4_sign(&k->sigv4, NULL, &rq, 0, out);

    free(out);
    if (rc < 0)
        fail(err, err_len, at,
             "aws_sigv4: the signature's headers take more than %d bytes (a session token or "
             "header names too long)",
             SIGV4_OUT_MAX);
    return rc;
}

/* Sets up the signing of k under scope ("REGION/SERVICE"; NULL or "off":
 * none): the credentials, the scope, and the body's hash, computed once. */
static int build_sigv4(struct workload *w, struct kind *k, const char *scope,
                       const struct where *at, char *err, size_t err_len)
{
    const char *slash = scope ? strchr(scope, '/') : NULL;
    int rc;

    if (!scope || strcmp(scope, "off") == 0)
        return 0;
    if (!slash || (size_t)(slash - scope) >= sizeof(k->region) ||
        strlen(slash + 1) >= sizeof(k->service)) {
        fail(err, err_len, at, "aws_sigv4: expected REGION/SERVICE");
        return -EINVAL;
    }
    rc = read_aws_credentials(w, at, err, err_len);
    if (rc < 0)
        return rc;
    memcpy(k->region, scope, (size_t)(slash - scope));
    k->region[slash - scope] = '\0';
    strcpy(k->service, slash + 1);
    k->sigv4 = (struct sigv4_creds){.access_key_id = w->aws_key_id,
                                    .secret_access_key = w->aws_secret,
                                    .session_token = w->aws_token,
                                    .region = k->region,
                                    .service = k->service};
    sigv4_payload_hash(k->body, k->pub.body_len, k->payload_hash);
    k->pub.sigv4 = &k->sigv4;
    k->pub.payload_hash = k->payload_hash;
    return trial_sign(k, at, err, err_len);
}

static int build_default(struct workload *w, struct kind *k, const struct config *c, char *err,
                         size_t err_len)
{
    static const struct where at = {"[target]"};
    int rc;

    k->name = xstrdup("default");
    k->method = xstrdup("GET");
    copy_headers(k, &c->target, NULL);
    k->pub.timeout_us = c->target.timeout_us;
    k->pub.weight = 1;
    k->pub.expect = c->target.expect;
    /* A script that speaks no HTTP has no [target] url: its kind 0 only
     * lends its headers, timeout and expect to the script's requests. */
    rc = !c->target.url.value && c->scenario.script.value
             ? 0
             : build_url(k, c->target.url.value, &at, err, err_len);
    publish(k);
    if (rc == 0)
        rc = build_sigv4(w, k, c->target.aws_sigv4.value, &at, err, err_len);
    return rc;
}

static int build_request(struct workload *w, struct kind *k, const struct config *c,
                         const struct config_request *r, uint64_t *rng, char *err, size_t err_len)
{
    struct where at;
    char shown[SHOW_MAX];
    int rc;

    snprintf(at.label, sizeof(at.label), "[request %s]", msg_show(r->name, shown, sizeof(shown)));
    k->name = xstrdup(r->name);
    k->method = xstrdup(r->method.value ? r->method.value : "GET");
    copy_headers(k, &c->target, r);
    k->pub.timeout_us = r->timeout_us;
    k->pub.weight = r->weight;
    k->pub.expect = r->expect;
    rc = build_url(k, r->url.value, &at, err, err_len);
    if (rc == 0)
        rc = build_body(k, r, rng, &at, err, err_len);
    publish(k);
    if (rc == 0)
        rc = build_sigv4(w, k, r->aws_sigv4.value, &at, err, err_len);
    return rc;
}

int workload_new(const struct config *c, uint64_t seed, char *err, size_t err_len,
                 struct workload **out)
{
    struct workload *w = xcalloc(1, sizeof(*w));
    /* One stream for all random bodies, in kind order. */
    uint64_t rng = seed;
    int rc = 0;

    if (err_len > 0)
        err[0] = '\0';
    *out = NULL;
    w->n_kinds = c->n_requests ? c->n_requests : 1;
    w->kinds = xcalloc(w->n_kinds, sizeof(*w->kinds));
    w->cum_weight = xcalloc(w->n_kinds, sizeof(*w->cum_weight));
    if (c->n_requests == 0)
        rc = build_default(w, &w->kinds[0], c, err, err_len);
    for (uint32_t i = 0; i < c->n_requests && rc == 0; i++)
        rc = build_request(w, &w->kinds[i], c, &c->requests[i], &rng, err, err_len);
    if (rc == 0)
        rc = build_weights(w, err, err_len);
    if (rc < 0) {
        workload_free(w);
        return rc;
    }
    *out = w;
    return 0;
}

void workload_free(struct workload *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n_kinds; i++) {
        struct kind *k = &w->kinds[i];

        for (size_t j = 0; j < k->pub.n_headers; j++)
            free(k->headers[j]);
        free(k->headers);
        free(k->name);
        free(k->method);
        free(k->body);
        free(k->url);
        free(k->segs);
    }
    free(w->kinds);
    free(w->cum_weight);
    free(w->aws_key_id);
    if (w->aws_secret)
        OPENSSL_cleanse(w->aws_secret, strlen(w->aws_secret));
    free(w->aws_secret);
    free(w->aws_token);
    free(w);
}

size_t workload_n_kinds(const struct workload *w)
{
    return w->n_kinds;
}

const struct workload_kind *workload_kind(const struct workload *w, size_t i)
{
    assert(i < w->n_kinds);
    return &w->kinds[i].pub;
}
