/*
 * h1_wire: the bytes of brink's own HTTP/1.1 transport, apart from any I/O.
 * Request heads are serialised once per request kind, with the URL's path
 * left as a gap that each request fills in place; responses are parsed by
 * Debian's libhttp-parser (the parser wrk uses), with bodies counted and
 * discarded, never copied. Pure: no libuv, no sockets. Any thread; each
 * object belongs to the caller.
 */
#ifndef BRINK_ENGINE_H1_WIRE_H
#define BRINK_ENGINE_H1_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <http_parser.h>

struct capture;
struct workload;

#define H1_HOST_MAX 256 /* bytes of a host name, NUL included */

/* The origin of an http:// or https:// URL template: what a connection
 * goes to. */
struct h1_origin {
    char host[H1_HOST_MAX];          /* without brackets for an IPv6 literal */
    uint16_t port;                   /* 80 (443 for https) when the URL names none */
    int is_tls;                      /* https:// */
    size_t len;                      /* bytes of "http[s]://host[:port]" in the URL */
    char authority[H1_HOST_MAX + 8]; /* "host[:port]" as written, for Host: */
};

/*
 * Splits url (an absolute URL template) into its origin. Returns 0, or
 * -EINVAL with why set to the reason h1 cannot send it: neither http:// nor
 * https:// (other schemes are libcurl's), a user name or password, a placeholder in
 * the host or port, a fragment, or a host or port that does not parse.
 */
int h1_origin_parse(const char *url, struct h1_origin *o, char *why, size_t why_len);

/* One request kind, serialised: prefix ("METHOD " or "METHOD /"), the URL's
 * path (the gap), suffix (" HTTP/1.1" and every header line, ending with the
 * blank line), then the body, sent from the workload's copy. */
struct h1_kind {
    char *fixed; /* the whole head when the URL has no placeholder, else NULL */
    size_t fixed_len;
    char *prefix; /* owned */
    size_t prefix_len;
    char *suffix; /* owned */
    size_t suffix_len;
    char *suffix_get; /* the suffix of a redirect turned into GET: no Content-Length; owned */
    size_t suffix_get_len;
    size_t origin_len;         /* bytes of the expanded URL before its path */
    size_t head_max;           /* the longest head a request of this kind can have */
    const unsigned char *body; /* borrowed from the workload; NULL: none */
    size_t body_len;
    int is_head; /* HEAD: the reply has no body whatever it says */
    char *host;  /* the Host value sent when the kind sets none, owned */
};

/*
 * Serialises kind i of wl for origin o into k, as libcurl would send it:
 * Host and "Accept: * / *" unless the kind sets them, the kind's header lines
 * in order (a "Name:" line with no value removes that header, as it does in
 * libcurl, and is not sent), and Content-Length when there is a body. The
 * fixed URL text must start with o's origin. Returns 0; k owns what it
 * allocates until h1_kind_free.
 */
int h1_kind_build(struct h1_kind *k, const struct workload *wl, size_t i,
                  const struct h1_origin *o);
void h1_kind_free(struct h1_kind *k);

/*
 * The head of a scenario script's request into b (grown as needed, b->len
 * set): method, the path of url (which starts with o's origin: the caller
 * checked), and the header lines as h1_kind_build sends a kind's, with
 * Content-Length when has_body. Never fails.
 */
struct capture_buf;
void h1_head_build(struct capture_buf *b, const char *method, const char *url,
                   const struct h1_origin *o, const char *const *headers, size_t n, int has_body,
                   size_t body_len);

/*
 * The head of request seq of user vu of kind i (serialised as k): k->fixed,
 * or the template expanded into buf (cap >= k->head_max bytes),
 * the path written in place between prefix and suffix. rng feeds {rand}
 * and {uuid} exactly as workload_url does. Returns the head and its length
 * in *len. Never fails.
 */
const char *h1_head(const struct h1_kind *k, const struct workload *wl, size_t i, uint64_t seq,
                    uint32_t vu, uint64_t *rng, char *buf, size_t cap, size_t *len);

/* Bytes of a reply's header blocks, interim (1xx) replies included, past
 * which it is malformed: libcurl's limit, so both transports agree. */
#define H1_HEADERS_MAX_BYTES (300u * 1024)

/* What h1_resp_feed found. */
enum h1_resp_state {
    H1_MORE,      /* the reply is not complete yet */
    H1_DONE,      /* a whole reply (1xx interim replies are skipped) */
    H1_CUT,       /* the body passed max_body: the reply is abandoned */
    H1_MALFORMED, /* not HTTP/1.x, or refused by the checks below */
};

/* Which header values a caller wants whole (h1_resp_capture). */
enum h1_header {
    H1_HEADER_NONE,
    H1_HEADER_SET_COOKIE,
    H1_HEADER_LOCATION,
};

/* Hands over one wanted header value, whole (n bytes, not NUL-terminated,
 * without its leading blanks), as the next header begins or the block
 * ends; status is the reply's (1xx replies' headers are handed over too). */
typedef void h1_header_fn(void *arg, enum h1_header which, int status, const char *v, size_t n);

/* The state of capturing header values; buf is the caller's. A value
 * longer than cap is not handed over. */
struct h1_capture {
    h1_header_fn *fn;
    void *arg;
    unsigned wants; /* 1 << enum h1_header, or'ed */
    char *buf;
    size_t cap;
    size_t len;
    char name[16]; /* the current header's name, lower case, while it fits */
    size_t name_len;
    enum h1_header which; /* of the value being read */
    int is_cut;
};

/* One response being read. */
struct h1_resp {
    http_parser parser;
    uint64_t max_body_bytes;
    uint64_t body_bytes; /* decoded body bytes seen */
    uint64_t raw_bytes;  /* bytes fed, headers and framing included */
    int status;          /* 0 until a status line parsed (kept if the headers then break) */
    int is_head;
    int has_headers; /* the header block is complete */
    int is_done;
    int is_cut;
    int is_in_value;            /* inside a header value the parser has begun handing over */
    const char *error;          /* why brink's own checks refused the reply, NULL: they did not */
    struct h1_capture *capture; /* NULL: no header value is wanted */
    /* A scenario script's request: where the final reply's header lines and
     * body are kept (set after h1_resp_begin); NULL: counted only. */
    struct capture *cap;
    int cap_at; /* 0: between header lines, 1: in a name, 2: in a value */
};

/* Prepares r for the reply to one request; no header is captured. */
void h1_resp_begin(struct h1_resp *r, int is_head, uint64_t max_body_bytes);
/* After h1_resp_begin: the values of the headers c->wants go to c->fn,
 * through c->buf. c is the caller's and outlives the reply. */
void h1_resp_capture(struct h1_resp *r, struct h1_capture *c);
/* Feeds n bytes of the connection. *used says how many belong to this
 * reply (bytes after a complete one are not its). Besides libhttp-parser's
 * rules, a control character other than tab at the start of a header value
 * (the one place the parser does not look) and header blocks past
 * H1_HEADERS_MAX_BYTES are malformed. */
enum h1_resp_state h1_resp_feed(struct h1_resp *r, const char *data, size_t n, size_t *used);
/* The connection closed: H1_DONE when the reply was delimited by the close,
 * H1_MORE when it is incomplete (nothing or a part came). */
enum h1_resp_state h1_resp_eof(struct h1_resp *r);
/* After H1_DONE: whether the connection may carry the next request
 * (HTTP/1.1 without Connection: close, or HTTP/1.0 with keep-alive). */
int h1_resp_keeps_alive(const struct h1_resp *r);
/* After H1_MALFORMED: what was wrong, in brink's or libhttp-parser's words. */
const char *h1_resp_error(const struct h1_resp *r);

#endif
