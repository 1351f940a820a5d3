/*
 * sigv4: AWS Signature Version 4 for one request, as a pure function of the
 * request, the credentials, the scope and the time: the header lines to add
 * (Authorization, X-Amz-Date, X-Amz-Content-SHA256, X-Amz-Security-Token).
 * No I/O, no clock, no environment: callers pass all of it. Uses OpenSSL's
 * libcrypto (SHA-256, HMAC). Any thread; each sigv4_cache belongs to one
 * caller at a time (the engine keeps one per worker).
 */
#ifndef BRINK_ENGINE_SIGV4_H
#define BRINK_ENGINE_SIGV4_H

#include <stddef.h>
#include <stdint.h>

#define SIGV4_UNSIGNED_PAYLOAD "UNSIGNED-PAYLOAD"
#define SIGV4_HASH_HEX 65  /* a SHA-256 in lower-case hex, NUL included */
#define SIGV4_OUT_MAX 8192 /* bytes of the lines sigv4_sign writes, NULs included */
#define SIGV4_MAX_LINES 4  /* lines sigv4_sign adds */
#define SIGV4_LINES_MAX (SIGV4_OUT_MAX + 2 * SIGV4_MAX_LINES) /* sigv4_join's room */

/* Who signs and for what: borrowed strings, read-only while signing. */
struct sigv4_creds {
    const char *access_key_id;     /* AWS_ACCESS_KEY_ID */
    const char *secret_access_key; /* AWS_SECRET_ACCESS_KEY */
    const char *session_token;     /* AWS_SESSION_TOKEN; NULL or "": none */
    const char *region;            /* "us-east-1" */
    const char *service;           /* "s3" (its paths are encoded once), "execute-api", ... */
};

/* The signing key of one day, for one creds: sigv4_sign derives it at most
 * once a day per cache (the HMAC chain over date, region and service).
 * Zero it before its first use. */
struct sigv4_cache {
    const struct sigv4_creds *creds; /* what key was derived for; NULL: nothing yet */
    char day[9];                     /* "YYYYMMDD" */
    unsigned char key[32];
};

/* One request to sign. */
struct sigv4_request {
    const char *method; /* as sent, e.g. "PUT" */
    /* Absolute "scheme://authority/path?query" or origin-form
     * "/path?query", as sent, url_len bytes; a fragment is ignored. */
    const char *url;
    size_t url_len;
    /* The Host header's value, used when headers has no Host line; NULL:
     * the URL's authority with a default port (80 for http, 443 for https)
     * left out, as libcurl and botocore send it. */
    const char *host;
    /* "Name: value" lines sent with it, each signed, but for: "Name:" lines
     * with no value (libcurl's removals, never sent), the headers a proxy
     * may change (Connection, Expect, Keep-Alive, Proxy-*, TE, Trailer,
     * Transfer-Encoding, Upgrade, User-Agent, X-Amzn-Trace-Id: botocore's
     * list) and the four this function adds (a caller must not send its own
     * Authorization, X-Amz-Date, X-Amz-Content-SHA256 or
     * X-Amz-Security-Token beside them). */
    const char *const *headers;
    size_t n_headers;
    /* The body's SHA-256 (sigv4_payload_hash), or SIGV4_UNSIGNED_PAYLOAD. */
    const char *payload_hash;
};

/* The lines to add to the request, each "Name: value" NUL-terminated,
 * without CR LF: Authorization, X-Amz-Date, X-Amz-Content-SHA256, and
 * X-Amz-Security-Token when the creds have a session token. */
struct sigv4_out {
    const char *lines[SIGV4_MAX_LINES]; /* into buf */
    size_t n_lines;
    char buf[SIGV4_OUT_MAX];
};

/*
 * Signs rq with c at unix_s (seconds since the epoch, UTC). The canonical
 * request follows AWS's rules: the path's segments percent-encoded (bytes
 * other than A-Z a-z 0-9 - _ . ~ as %XX, upper-case hex; what the URL had
 * encoded is decoded first, so a correctly encoded path is kept as it is);
 * for services other than s3, dot segments and empty ones removed and the
 * result encoded a second time; query parameters split on '&', each key
 * and value decoded and encoded the same way ('+' is a literal plus), sorted
 * by key then value; header names lower-cased, values trimmed with inner
 * runs of blanks made one space, same-named values joined with ',', names
 * sorted. cache (NULL: none) keeps the day's signing key. Returns 0 with
 * out filled, -EINVAL for a URL that is not absolute http(s) nor
 * origin-form or a payload hash that is neither form, or -ENOSPC when the
 * lines would not fit in out. Allocates the canonical request while it
 * runs, nothing after.
 */
int sigv4_sign(const struct sigv4_creds *c, struct sigv4_cache *cache,
               const struct sigv4_request *rq, int64_t unix_s, struct sigv4_out *out);

/* The SHA-256 of len bytes at body (NULL with len 0: the empty body) as
 * lower-case hex into hex. */
void sigv4_payload_hash(const void *body, size_t len, char hex[SIGV4_HASH_HEX]);

/* Writes out's lines into buf (cap bytes, at least SIGV4_LINES_MAX), each
 * followed by CR LF, NUL-terminated; returns the length. */
size_t sigv4_join(const struct sigv4_out *out, char *buf, size_t cap);

#endif
