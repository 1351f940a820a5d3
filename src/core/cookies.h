/*
 * cookies: one virtual user's cookie jar, as a browser keeps it (RFC 6265):
 * Set-Cookie values of replies are stored with their Domain, Path, expiry
 * and Secure flag, and the Cookie header of a request names those that
 * match its URL. Bounded: at most COOKIES_MAX cookies and COOKIES_BYTES_MAX
 * bytes of names, values, domains and paths per jar; a cookie that does not
 * fit is dropped and counted. Pure (libc only); the caller gives the time.
 * A jar belongs to one thread at a time. Cookies are secrets: nothing here
 * prints them, and callers never show them unredacted.
 */
#ifndef BRINK_CORE_COOKIES_H
#define BRINK_CORE_COOKIES_H

#include <stddef.h>
#include <stdint.h>

#define COOKIES_MAX 50                /* cookies per jar (RFC 6265 asks for 50 per domain) */
#define COOKIES_BYTES_MAX (16u << 10) /* bytes of names, values, domains and paths per jar */
#define COOKIES_HEADER_MAX (COOKIES_BYTES_MAX + 2 * COOKIES_MAX + 16) /* a whole Cookie value */

struct cookie_jar;

/* A new, empty jar (xmalloc: never NULL). */
struct cookie_jar *cookie_jar_new(void);
/* Frees j and every cookie; NULL is a no-op. */
void cookie_jar_free(struct cookie_jar *j);

/*
 * Stores the cookie of one Set-Cookie value (v, n bytes, without the
 * header's name) received in reply to a request for url (absolute
 * http:// or https://) at now_s (seconds since the epoch). Follows RFC
 * 6265 section 5: name=value up to the first ';', then the attributes
 * Domain (the request's host or a parent of it, never for an address;
 * without it the cookie goes back to that host only), Path (default: the
 * request path's directory), Max-Age (over Expires), Expires (an HTTP
 * date) and Secure (sent over https only); others (HttpOnly, SameSite)
 * are ignored. A cookie with the name, domain and path of one stored
 * replaces it; one that has expired deletes it. Returns 1 when stored,
 * 0 when ignored (malformed, a domain the host may not set, or deleted),
 * -ENOSPC when the jar is full (the cookie is dropped and counted).
 */
int cookie_jar_set(struct cookie_jar *j, const char *v, size_t n, const char *url, int64_t now_s);

/*
 * Writes the value of the Cookie header a request for url (absolute)
 * sends at now_s into buf (cap bytes, NUL-terminated): "a=1; b=2", the
 * cookies whose domain and path match it and that have not expired (those
 * are removed), longer paths first, then older first. Returns its length,
 * 0 when no cookie matches. With cap >= COOKIES_HEADER_MAX it always fits.
 */
size_t cookie_jar_header(struct cookie_jar *j, const char *url, int64_t now_s, char *buf,
                         size_t cap);

/* Forgets every cookie of j, as a user that logs out everywhere (its
 * dropped count stays). */
void cookie_jar_clear(struct cookie_jar *j);

/* Cookies j holds now, and those it dropped since it was made because
 * it was full. */
size_t cookie_jar_count(const struct cookie_jar *j);
uint64_t cookie_jar_dropped(const struct cookie_jar *j);

/* Seconds since the epoch of an HTTP date in the forms RFC 6265 section
 * 5.1.1 reads ("Sun, 06 Nov 1994 08:49:37 GMT" and its older variants),
 * or -EINVAL when it is none. */
int cookie_parse_date(const char *s, size_t n, int64_t *out_s);

#endif
