/*
 * h2_head: a request head brink serialised for HTTP/1.1 (h1/wire.h,
 * h1/request.c) read into HTTP/2 header fields, so both versions send the
 * same request from one piece of code: the request line becomes :method
 * and :path, Host becomes :authority, the scheme is :scheme, names are
 * lower-cased, and the fields HTTP/2 forbids (RFC 9113, 8.2.2: Connection
 * and the fields it names by custom, Keep-Alive, Proxy-Connection,
 * Transfer-Encoding, Upgrade, and TE other than "trailers") are dropped.
 * Pure: no I/O. Any thread; each object belongs to the caller.
 */
#ifndef BRINK_ENGINE_H2_HEAD_H
#define BRINK_ENGINE_H2_HEAD_H

#include <stddef.h>

#include <nghttp2/nghttp2.h>

/* The fields of one request; values point into the head read (borrowed),
 * names into names. Grown as needed, kept between requests. */
struct h2_head {
    nghttp2_nv *nv;
    size_t n;
    size_t cap;
    char *names; /* the names, lower-cased */
    size_t names_cap;
};

/*
 * Reads head (len bytes: "METHOD TARGET HTTP/1.1\r\n", header lines, the
 * blank line) into h, with scheme ("https" or "http") as :scheme. Values
 * lose their leading and trailing blanks. Returns 0, or -EINVAL with why
 * when head is not such a head (no request line, a line without a colon).
 */
int h2_head_read(struct h2_head *h, const char *head, size_t len, const char *scheme, char *why,
                 size_t why_len);
void h2_head_free(struct h2_head *h);

#endif
