/*
 * The curl transport's side of a slot: one easy handle per virtual user,
 * reused for every request it sends (and so, with keep-alive, one
 * connection), the request set on it at each start, and the ops table that
 * lets a worker drive libcurl. Reply headers pass brink's own checks, so
 * that what libcurl lets through and HTTP forbids is malformed here as it
 * is with h1. How a transfer ended is read in outcome.c.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config.h"
#include "core/msg.h"
#include "core/xalloc.h"
#include "engine/transport.h"
#include "engine/curl/internal.h"

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
    struct transport_slot *s = userp;
    struct curl_slot *cs = curl_slot_of(s);
    size_t n = size * nmemb;

    cs->body_bytes += n;
    if (cs->body_bytes > s->w->config->target.max_body_bytes) {
        /* Counted and cut, never buffered: returning less than n aborts. */
        cs->is_body_cut = 1;
        return 0;
    }
    /* A scenario script's request keeps it, for the script. */
    if (cs->rq->script && cs->rq->script->cap.wants_body)
        capture_add(&cs->rq->script->cap.body, data, n);
    return n;
}

/* ---- Reply headers ---------------------------------------------------- */

/* Whether line (n bytes, its line end included) names header name. */
static int names(const char *line, size_t n, const char *name)
{
    size_t len = strlen(name);

    return n > len && line[len] == ':' && strncasecmp(line, name, len) == 0;
}

/* Whether line holds a control character other than tab before its end:
 * HTTP forbids them in a field (RFC 9110, 5.5), and h1's parser refuses
 * them. */
static int has_control(const char *line, size_t n)
{
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)line[i];

        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return 1;
    }
    return 0;
}

static int mentions_chunked(const char *line, size_t n)
{
    static const char word[] = "chunked";

    for (size_t i = 0; i + sizeof(word) - 1 <= n; i++) {
        if (strncasecmp(line + i, word, sizeof(word) - 1) == 0)
            return 1;
    }
    return 0;
}

/* Checks one header line against what h1 refuses too; returns why it is
 * refused, or NULL. */
static const char *check_header(struct curl_head *h, const char *line, size_t n)
{
    if (n >= 5 && memcmp(line, "HTTP/", 5) == 0) {
        /* A status line starts a header block (a 1xx, then the reply). */
        h->content_length = -1;
        h->is_chunked = 0;
        h->n_blocks++;
        return NULL;
    }
    if (has_control(line, n))
        return "a control character in a header line";
    if (names(line, n, "Content-Length")) {
        long v = strtol(line + strlen("Content-Length:"), NULL, 10);

        if (h->content_length >= 0 && v != h->content_length)
            return "two Content-Length headers with different values";
        if (h->is_chunked)
            return "Content-Length together with chunked Transfer-Encoding";
        h->content_length = v;
    } else if (names(line, n, "Transfer-Encoding") && mentions_chunked(line, n)) {
        if (h->content_length >= 0)
            return "Content-Length together with chunked Transfer-Encoding";
        h->is_chunked = 1;
    }
    return NULL;
}

/* A reply's header line, for a script: a status line starts the lines
 * over (an interim reply's are not the reply's), the blank line is left
 * out, and each line ends in "\n". */
static void keep_header(struct capture *cap, const char *line, size_t n)
{
    if (n >= 5 && memcmp(line, "HTTP/", 5) == 0) {
        cap->head.len = 0;
        return;
    }
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    if (n == 0)
        return;
    capture_add(&cap->head, line, n);
    capture_add(&cap->head, "\n", 1);
}

/*
 * A header line of the reply that brink acts on: Set-Cookie goes into the
 * jar of s ([target] cookies), Location is where a redirect goes
 * ([target] follow_redirects), both for the URL libcurl asked. brink
 * follows redirects itself, as h1 does: libcurl's FOLLOWLOCATION would keep
 * a custom method, and neither re-sign nor send the jar's cookies.
 */
static void take_header(struct transport_slot *s, const char *line, size_t n)
{
    const char *url = NULL;
    int is_cookie =
        curl_slot_of(s)->rq->has_jar && n > 11 && strncasecmp(line, "set-cookie:", 11) == 0;
    int is_location =
        s->w->config->target.follow_redirects && n > 9 && strncasecmp(line, "location:", 9) == 0;
    size_t i = is_cookie ? 11 : 9;

    if (!is_cookie && !is_location)
        return;
    while (i < n && (line[i] == ' ' || line[i] == '\t'))
        i++;
    while (n > i && (line[n - 1] == '\r' || line[n - 1] == '\n'))
        n--;
    curl_easy_getinfo(curl_slot_of(s)->easy, CURLINFO_EFFECTIVE_URL, &url);
    if (url && is_cookie)
        engine__slot_cookie_set(s, url, line + i, n - i);
    else if (url)
        engine__slot_location(s, url, line + i, n - i);
}

/* Notes the protocol of the connection of s's send by a status line of
 * its reply (libcurl writes "HTTP/2 200"): what libcurl's send again of a
 * request on it means (resend_cause). */
static void learn_version(struct transport_slot *s, const char *line, size_t n)
{
    if (n >= 6 && memcmp(line, "HTTP/", 5) == 0) {
        curl_worker_of(s->w)->last_version = line[5] == '2' ? 2 : 1;
        engine__curl_uv_port_version_set(s->w, curl_slot_of(s)->send_port,
                                         curl_worker_of(s->w)->last_version);
    }
}

static size_t on_header(char *line, size_t size, size_t nmemb, void *userp)
{
    struct transport_slot *s = userp;
    struct curl_slot *cs = curl_slot_of(s);
    size_t n = size * nmemb;

    /* A script's request keeps its reply's headers for the script instead. */
    if (!cs->rq->script)
        take_header(s, line, n);
    cs->head.why = check_header(&cs->head, line, n);
    learn_version(s, line, n);
    if (cs->rq->script && !cs->head.why)
        keep_header(&cs->rq->script->cap, line, n);
    /* Returning less than n aborts the transfer (CURLE_WRITE_ERROR). */
    return cs->head.why ? 0 : n;
}

/* ---- Where connections go -------------------------------------------- */

/* [target] connect_to, unix_socket, proxy and ip, on e: the same for
 * every request. */
static void set_route(struct transport_worker *w, CURL *e, const struct config_target *t)
{
    static const long resolve[] = {
        [CONFIG_IP_ANY] = CURL_IPRESOLVE_WHATEVER,
        [CONFIG_IP_4] = CURL_IPRESOLVE_V4,
        [CONFIG_IP_6] = CURL_IPRESOLVE_V6,
    };
    /* Load goes to the target or the proxy named here, never through one
     * named by http_proxy in the environment; this also spares libcurl a
     * getenv per request. A proxy named here takes every host, whatever
     * no_proxy says: localhost too, where a test's proxy runs. */
    curl_easy_setopt(e, CURLOPT_PROXY, t->proxy.value ? t->proxy.value : "");
    if (t->proxy.value)
        curl_easy_setopt(e, CURLOPT_NOPROXY, "");
    if (curl_worker_of(w)->connect_to)
        curl_easy_setopt(e, CURLOPT_CONNECT_TO, curl_worker_of(w)->connect_to);
    if (t->unix_socket.value)
        curl_easy_setopt(e, CURLOPT_UNIX_SOCKET_PATH, t->unix_socket.value);
    curl_easy_setopt(e, CURLOPT_IPRESOLVE, resolve[t->ip]);
}

/* ---- The ops table ---------------------------------------------------- */

/* A handle with every option that does not name its slot: what costs
 * (curl_easy_init, the options' copies), done before the run when the
 * worker prepared a pool (prepare), else when a slot is made. */
static struct curl_slot *new_handle(struct transport_worker *w)
{
    struct curl_slot *cs = xcalloc(1, sizeof(*cs));
    CURL *e = curl_easy_init();

    if (!e)
        xalloc_die("curl_easy_init failed");
    cs->easy = e;
    cs->last_kind = SIZE_MAX;
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    cs->buffer_size = BUFFER_DEFAULT;
    curl_easy_setopt(e, CURLOPT_BUFFERSIZE, cs->buffer_size);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    /* TLS and HTTP version: [target] insecure to http_version, streams. */
    engine__curl_tls_setup_easy(w, e);
    /* Where connections go: connect_to, unix_socket, ip, proxy. */
    set_route(w, e, &w->config->target);
    /* A name lookup that outlives its transfer (a DNS server that never
     * answers) is left to finish on libcurl's resolver thread; without this
     * libcurl joins that thread when the transfer ends or the handle is
     * cleaned up, and the whole worker loop waits for the lookup. */
    curl_easy_setopt(e, CURLOPT_QUICK_EXIT, 1L);
    if (!engine__curl_tls_reuses(w))
        curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
    return cs;
}

static void free_handle(struct curl_slot *cs)
{
    curl_easy_cleanup(cs->easy);
    curl_slist_free_all(cs->req_headers);
    free(cs->sigv4_lines);
    free(cs->cookie_line);
    curl_slist_free_all(cs->cross_headers);
    free(cs);
}

/* Makes n handles ahead, for the slots the run will make (open.c). */
static void prepare(struct transport_worker *w, uint32_t n)
{
    struct curl_worker *cw = curl_worker_of(w);

    cw->spare = xrealloc(cw->spare, ((size_t)cw->n_spare + n) * sizeof(*cw->spare));
    for (uint32_t i = 0; i < n; i++)
        cw->spare[cw->n_spare++] = new_handle(w);
}

/* Frees the handles made ahead that no slot took. */
static void free_spare(struct transport_worker *w)
{
    struct curl_worker *cw = curl_worker_of(w);

    while (cw->n_spare > 0)
        free_handle(cw->spare[--cw->n_spare]);
    free(cw->spare);
    cw->spare = NULL;
}

static void slot_init(struct transport_slot *s)
{
    struct transport_worker *w = s->w;
    struct curl_worker *cw = curl_worker_of(w);
    struct curl_slot *cs = cw->n_spare ? cw->spare[--cw->n_spare] : new_handle(w);

    s->priv = cs;
    cs->s = s;
    engine__curl_uv_setup_easy(w, s);
    /* libcurl is about to send: brink says whether it may (outcome.c). */
    curl_easy_setopt(cs->easy, CURLOPT_PREREQFUNCTION, engine__curl_slot_prereq);
    curl_easy_setopt(cs->easy, CURLOPT_PREREQDATA, s);
    curl_easy_setopt(cs->easy, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(cs->easy, CURLOPT_HEADERDATA, s);
}

static void slot_fini(struct transport_slot *s)
{
    if (!curl_slot_of(s))
        return;
    free_handle(curl_slot_of(s));
    s->priv = NULL;
}

/* The method and body of a request, on e. */
static void set_method(CURL *e, const char *method, const unsigned char *body, size_t body_len)
{
    /* HTTPGET resets what a previous kind may have left: POST, NOBODY. */
    curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    if (body) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
    }
    if (strcmp(method, "HEAD") == 0) {
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, NULL);
    } else if (strcmp(method, "GET") == 0 && !body) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, NULL);
    } else {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
    }
}

/* A scenario script's request: method, body and header lines of its own,
 * set for each request (the next plain kind sets its own again). */
static void set_request(struct transport_slot *s, const struct scene_req *q)
{
    struct curl_slot *cs = curl_slot_of(s);

    set_method(cs->easy, q->method, q->body, q->body_len);
    curl_slist_free_all(cs->req_headers);
    cs->req_headers = NULL;
    for (size_t i = 0; i < q->n_headers; i++)
        cs->req_headers = curl_slist_append(cs->req_headers, q->headers[i]);
    /* A body must not wait a second for "100 Continue". */
    if (q->body)
        cs->req_headers = curl_slist_append(cs->req_headers, "Expect:");
    curl_easy_setopt(cs->easy, CURLOPT_HTTPHEADER, cs->req_headers);
    if (curl_worker_of(s->w)->renames)
        curl_easy_setopt(cs->easy, CURLOPT_CONNECT_TO, curl_worker_of(s->w)->connect_to);
    cs->last_kind = SIZE_MAX;
}

/* The options that depend on the request kind, set when the kind changes. */
static void set_kind(struct transport_slot *s, size_t kind)
{
    const struct workload_kind *k = workload_kind(s->w->workload, kind);
    CURL *e = curl_slot_of(s)->easy;

    set_method(e, k->method, k->body, k->body_len);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, curl_worker_of(s->w)->kind_headers[kind]);
    /* A kind renamed for server_name has its own line, which carries the
     * connect_to route of its URL's host (curl/tls.c). */
    if (curl_worker_of(s->w)->renames && curl_worker_of(s->w)->renames[kind].connect_to)
        curl_easy_setopt(e, CURLOPT_CONNECT_TO, curl_worker_of(s->w)->renames[kind].connect_to);
    else if (curl_worker_of(s->w)->renames)
        curl_easy_setopt(e, CURLOPT_CONNECT_TO, curl_worker_of(s->w)->connect_to);
    curl_slot_of(s)->last_kind = kind;
}

/*
 * Signs the request of s to url (aws_sigv4): the signature's lines, copied
 * into s, in nodes of s chained before head. libcurl derives Host from the
 * URL, as sigv4_sign does when given none. Returns the new head.
 */
static struct curl_slist *sign(struct transport_slot *s, const char *url, struct curl_slist *head)
{
    struct curl_slot *cs = curl_slot_of(s);
    const struct sigv4_out *o = engine__slot_sign(s, url, strlen(url), NULL);
    size_t need = 0, at = 0;

    for (size_t i = 0; o && i < o->n_lines; i++)
        need += strlen(o->lines[i]) + 1;
    if (need > cs->sigv4_cap) {
        cs->sigv4_cap = need;
        cs->sigv4_lines = xrealloc(cs->sigv4_lines, need);
    }
    for (size_t i = o ? o->n_lines : 0; i-- > 0;) {
        size_t n = strlen(o->lines[i]) + 1;

        at = need - n;
        need = at;
        memcpy(cs->sigv4_lines + at, o->lines[i], n);
        cs->sigv4_nodes[i].data = cs->sigv4_lines + at;
        cs->sigv4_nodes[i].next = head;
        head = &cs->sigv4_nodes[i];
    }
    return head;
}

/*
 * The header lines of this request alone, the jar's Cookie and the
 * signature, chained before the kind's list, which stays shared: set at
 * every start, since both change from request to request. libcurl's own
 * cookie engine stays off (no CURLOPT_COOKIEFILE), so the jar is the
 * only one, as with h1.
 */
static void set_request_headers(struct transport_slot *s, const char *url, struct curl_slist *head)
{
    struct curl_slot *cs = curl_slot_of(s);

    if (workload_kind(s->w->workload, cs->rq->kind)->sigv4)
        head = sign(s, url, head);
    if (cs->rq->has_jar) {
        if (!cs->cookie_line)
            cs->cookie_line = xmalloc(ENGINE_COOKIE_LINE_MAX);
        if (engine__slot_cookie_line(s, url, cs->cookie_line, ENGINE_COOKIE_LINE_MAX) > 0) {
            cs->cookie_node.data = cs->cookie_line;
            cs->cookie_node.next = head;
            head = &cs->cookie_node;
        }
    }
    curl_easy_setopt(cs->easy, CURLOPT_HTTPHEADER, head);
}

static void start(struct transport_slot *s, const struct transport_request *rq)
{
    struct transport_worker *w = s->w;
    struct curl_slot *cs = curl_slot_of(s);
    char *url = curl_worker_of(w)->url;
    int len;

    cs->rq = rq;
    if (rq->script) {
        set_request(s, rq->script);
        curl_easy_setopt(cs->easy, CURLOPT_URL, rq->script->url);
        cs->is_retried = 0;
        engine__curl_reset_transfer(cs);
        engine__curl_add(s);
        return;
    }
    if (rq->hops) {
        /* A redirect's hop goes where its Location said, as is. */
        snprintf(url, CURL_URL_MAX, "%s", rq->hop_url);
    } else {
        len = workload_url(w->workload, rq->kind, rq->seq, rq->vu, &w->rng, url, CURL_URL_MAX);
        /* workload_new refused templates that could expand past the buffer. */
        assert(len >= 0);
        (void)len;
        engine__curl_tls_rename(w, rq->kind, url, CURL_URL_MAX);
    }
    if (rq->kind != cs->last_kind)
        set_kind(s, rq->kind);
    if (rq->hop_is_get) {
        /* 303, or a POST moved by 301 or 302: a GET without a body. The
         * kind's options come back at its next request. */
        curl_easy_setopt(cs->easy, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(cs->easy, CURLOPT_CUSTOMREQUEST, NULL);
        cs->last_kind = SIZE_MAX;
    }
    if (rq->hop_is_cross) {
        /* The kind's lines without its credentials, for this hop only. */
        curl_slist_free_all(cs->cross_headers);
        cs->cross_headers = NULL;
        for (struct curl_slist *l = curl_worker_of(w)->kind_headers[rq->kind]; l; l = l->next) {
            if (!engine__is_credential(l->data))
                cs->cross_headers = curl_slist_append(cs->cross_headers, l->data);
        }
        cs->last_kind = SIZE_MAX;
        set_request_headers(s, url, cs->cross_headers);
    } else if (workload_kind(w->workload, rq->kind)->sigv4 || rq->has_jar) {
        set_request_headers(s, url, curl_worker_of(w)->kind_headers[rq->kind]);
    }
    curl_easy_setopt(cs->easy, CURLOPT_URL, url);
    cs->is_retried = 0;
    engine__curl_reset_transfer(cs);
    engine__curl_add(s);
}

static void abort_transfer(struct transport_slot *s)
{
    engine__curl_uv_abort(s->w, s);
}

static int is_unsent(struct transport_slot *s)
{
    struct curl_slot *cs = curl_slot_of(s);
    long port = 0;
    curl_off_t lookup_us = 0;

    if (cs->is_queued)
        return 1;
    /* Still resolving: no lookup time yet, and no connection (a reused one
     * has its port). */
    curl_easy_getinfo(cs->easy, CURLINFO_PRIMARY_PORT, &port);
    curl_easy_getinfo(cs->easy, CURLINFO_NAMELOOKUP_TIME_T, &lookup_us);
    return port == 0 && lookup_us == 0;
}

/* The glue reports each transfer's end to outcome.c. */
static int init(struct transport_worker *w, char *err, size_t err_len)
{
    return engine__curl_uv_init(w, engine__curl_slot_done, err, err_len);
}

static void fini(struct transport_worker *w)
{
    /* Before the share goes (engine__curl_uv_fini): the handles name it. */
    if (curl_worker_of(w))
        free_spare(w);
    engine__curl_uv_fini(w);
}

const struct transport_ops transport_curl = {
    .name = "curl",
    .global_init = engine__curl_uv_global_init,
    .global_cleanup = engine__curl_uv_global_cleanup,
    .version = engine__curl_version,
    .init = init,
    .close = engine__curl_uv_close,
    .fini = fini,
    .prepare = prepare,
    .slot_init = slot_init,
    .slot_free = slot_fini,
    .start = start,
    .abort = abort_transfer,
    .is_unsent = is_unsent,
    .users_changed = engine__curl_uv_users_changed,
};
