/*
 * The curl transport's side of a slot: one easy handle per virtual user,
 * reused for every request it sends (and so, with keep-alive, one
 * connection), and the ops table that lets a worker drive libcurl. Reply
 * headers pass brink's own checks, so that what libcurl lets through and
 * HTTP forbids is malformed here as it is with h1; and a request whose
 * reused connection the server had closed is sent again once, as h1 does.
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

#define WORDS_MAX 320

/*
 * Receive buffers. libcurl's default 16 KiB makes large bodies cost many more
 * reads; 512 KiB measured best for 133 KiB files. But a buffer is allocated
 * per handle, and libcurl frees and allocates it again between transfers, so
 * with small bodies a large buffer only makes the allocator wander over more
 * and more pages (RSS grew steadily at c=200). So every user starts with the
 * default and moves up once it has seen a large body; only a worker's first
 * 64 users get the largest size, which keeps memory bounded at any
 * concurrency.
 */
#define BUFFER_DEFAULT (16L * 1024)
#define BUFFER_LARGE_BODY (32u * 1024)

static long large_buffer_for(uint32_t index)
{
    return index < 64 ? 512L * 1024 : 64L * 1024;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
    struct slot *s = userp;
    struct curl_slot *cs = s->curl;
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
static void take_header(struct slot *s, const char *line, size_t n)
{
    const char *url = NULL;
    int is_cookie = s->curl->rq->has_jar && n > 11 && strncasecmp(line, "set-cookie:", 11) == 0;
    int is_location =
        s->w->config->target.follow_redirects && n > 9 && strncasecmp(line, "location:", 9) == 0;
    size_t i = is_cookie ? 11 : 9;

    if (!is_cookie && !is_location)
        return;
    while (i < n && (line[i] == ' ' || line[i] == '\t'))
        i++;
    while (n > i && (line[n - 1] == '\r' || line[n - 1] == '\n'))
        n--;
    curl_easy_getinfo(s->curl->easy, CURLINFO_EFFECTIVE_URL, &url);
    if (url && is_cookie)
        engine__slot_cookie_set(s, url, line + i, n - i);
    else if (url)
        engine__slot_location(s, url, line + i, n - i);
}

/* Notes the protocol of the connection of s's send by a status line of
 * its reply (libcurl writes "HTTP/2 200"): what libcurl's send again of a
 * request on it means (resend_cause). */
static void learn_version(struct slot *s, const char *line, size_t n)
{
    if (n >= 6 && memcmp(line, "HTTP/", 5) == 0) {
        s->w->curl->last_version = line[5] == '2' ? 2 : 1;
        engine__curl_uv_port_version_set(s->w, s->curl->send_port, s->w->curl->last_version);
    }
}

static size_t on_header(char *line, size_t size, size_t nmemb, void *userp)
{
    struct slot *s = userp;
    struct curl_slot *cs = s->curl;
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
static void set_route(struct worker *w, CURL *e, const struct config_target *t)
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
    if (w->curl->connect_to)
        curl_easy_setopt(e, CURLOPT_CONNECT_TO, w->curl->connect_to);
    if (t->unix_socket.value)
        curl_easy_setopt(e, CURLOPT_UNIX_SOCKET_PATH, t->unix_socket.value);
    curl_easy_setopt(e, CURLOPT_IPRESOLVE, resolve[t->ip]);
}

/* A connect that failed for a reason set_route made: libcurl's words name
 * neither the unix socket nor the family that ip left out. */
static void route_failed(const struct config_target *t, CURLcode code, struct transfer_result *r,
                         char *words, size_t cap)
{
    if (code != CURLE_COULDNT_CONNECT || r->connected)
        return;
    if (t->unix_socket.value) {
        msg_set(words, cap, "curl %d: cannot connect to unix socket %s", (int)code,
                t->unix_socket.value);
    } else if (t->ip != CONFIG_IP_ANY && r->os_errno == 0) {
        /* No connect was tried (no errno): every address was of the
         * other family, or there was none. */
        r->outcome = TRANSFER_DNS;
        msg_set(words, cap, "curl %d: no IPv%c address to connect to (ip = %c)", (int)code,
                t->ip == CONFIG_IP_4 ? '4' : '6', t->ip == CONFIG_IP_4 ? '4' : '6');
    }
}

/* ---- The ops table ---------------------------------------------------- */

/* A handle with every option that does not name its slot: what costs
 * (curl_easy_init, the options' copies), done before the run when the
 * worker prepared a pool (prepare), else when a slot is made. */
static struct curl_slot *new_handle(struct worker *w)
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
static void prepare(struct worker *w, uint32_t n)
{
    struct curl_worker *cw = w->curl;

    cw->spare = xrealloc(cw->spare, ((size_t)cw->n_spare + n) * sizeof(*cw->spare));
    for (uint32_t i = 0; i < n; i++)
        cw->spare[cw->n_spare++] = new_handle(w);
}

void engine__curl_slot_free_spare(struct worker *w)
{
    while (w->curl->n_spare > 0)
        free_handle(w->curl->spare[--w->curl->n_spare]);
    free(w->curl->spare);
    w->curl->spare = NULL;
}

static void slot_init(struct slot *s)
{
    struct worker *w = s->w;
    struct curl_worker *cw = w->curl;
    struct curl_slot *cs = cw->n_spare ? cw->spare[--cw->n_spare] : new_handle(w);

    s->curl = cs;
    cs->s = s;
    engine__curl_uv_setup_easy(w, s);
    curl_easy_setopt(cs->easy, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(cs->easy, CURLOPT_HEADERDATA, s);
}

static void slot_fini(struct slot *s)
{
    if (!s->curl)
        return;
    free_handle(s->curl);
    s->curl = NULL;
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
static void set_request(struct slot *s, const struct scene_req *q)
{
    struct curl_slot *cs = s->curl;

    set_method(cs->easy, q->method, q->body, q->body_len);
    curl_slist_free_all(cs->req_headers);
    cs->req_headers = NULL;
    for (size_t i = 0; i < q->n_headers; i++)
        cs->req_headers = curl_slist_append(cs->req_headers, q->headers[i]);
    /* A body must not wait a second for "100 Continue". */
    if (q->body)
        cs->req_headers = curl_slist_append(cs->req_headers, "Expect:");
    curl_easy_setopt(cs->easy, CURLOPT_HTTPHEADER, cs->req_headers);
    if (s->w->curl->renames)
        curl_easy_setopt(cs->easy, CURLOPT_CONNECT_TO, s->w->curl->connect_to);
    cs->last_kind = SIZE_MAX;
}

/* The options that depend on the request kind, set when the kind changes. */
static void set_kind(struct slot *s, size_t kind)
{
    const struct workload_kind *k = workload_kind(s->w->workload, kind);
    CURL *e = s->curl->easy;

    set_method(e, k->method, k->body, k->body_len);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, s->w->curl->kind_headers[kind]);
    /* A kind renamed for server_name has its own line, which carries the
     * connect_to route of its URL's host (curl/tls.c). */
    if (s->w->curl->renames && s->w->curl->renames[kind].connect_to)
        curl_easy_setopt(e, CURLOPT_CONNECT_TO, s->w->curl->renames[kind].connect_to);
    else if (s->w->curl->renames)
        curl_easy_setopt(e, CURLOPT_CONNECT_TO, s->w->curl->connect_to);
    s->curl->last_kind = kind;
}

/* What is left of limit_us since s started, in whole ms, at least 1 (0
 * would mean no limit to libcurl). */
static long left_ms(const struct slot *s, uint64_t limit_us)
{
    uint64_t waited_us = (engine__worker_now_ns(s->w) - s->curl->rq->start_ns) / 1000;

    return limit_us > waited_us + 1000 ? (long)((limit_us - waited_us + 999) / 1000) : 1L;
}

void engine__curl_slot_set_deadlines(struct slot *s)
{
    curl_easy_setopt(s->curl->easy, CURLOPT_TIMEOUT_MS,
                     left_ms(s, engine__slot_timeout_us(s)) + CURL_BACKSTOP_MS);
    curl_easy_setopt(s->curl->easy, CURLOPT_CONNECTTIMEOUT_MS,
                     left_ms(s, s->w->config->target.connect_timeout_us) + CURL_BACKSTOP_MS);
}

void engine__curl_slot_expired(struct slot *s)
{
    struct transfer_result r = {.outcome = TRANSFER_TIMEOUT};
    char what[96], words[WORDS_MAX];

    /* Never connected: connect_timeout, with brink's own reason. */
    engine__slot_queued_words(s, what, sizeof(what));
    msg_set(words, sizeof(words), "curl: %s", what);
    engine__slot_done(s, &r, 0, 0, words);
}

/* Clears what the last transfer of s left, for the next one (or a retry). */
static void reset_transfer(struct curl_slot *cs)
{
    cs->body_bytes = 0;
    cs->is_body_cut = 0;
    cs->open_errno = 0;
    cs->n_sends = 0;
    cs->is_held = 0;
    cs->is_held_refused = 0;
    cs->held_errno = 0;
    cs->send_port = 0;
    cs->send_connects = 0;
    cs->is_send_reused = 0;
    cs->error[0] = '\0';
    cs->head = (struct curl_head){.content_length = -1};
}

/*
 * Signs the request of s to url (aws_sigv4): the signature's lines, copied
 * into s, in nodes of s chained before head. libcurl derives Host from the
 * URL, as sigv4_sign does when given none. Returns the new head.
 */
static struct curl_slist *sign(struct slot *s, const char *url, struct curl_slist *head)
{
    struct curl_slot *cs = s->curl;
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
static void set_request_headers(struct slot *s, const char *url, struct curl_slist *head)
{
    struct curl_slot *cs = s->curl;

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

static void add(struct slot *s)
{
    if (engine__curl_uv_add(s->w, s) != 0)
        xalloc_die("curl_multi_add_handle failed");
}

static void start(struct slot *s, const struct transport_request *rq)
{
    struct worker *w = s->w;
    struct curl_slot *cs = s->curl;
    char *url = w->curl->url;
    int len;

    cs->rq = rq;
    if (rq->script) {
        set_request(s, rq->script);
        curl_easy_setopt(cs->easy, CURLOPT_URL, rq->script->url);
        cs->is_retried = 0;
        reset_transfer(cs);
        add(s);
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
        for (struct curl_slist *l = w->curl->kind_headers[rq->kind]; l; l = l->next) {
            if (!engine__is_credential(l->data))
                cs->cross_headers = curl_slist_append(cs->cross_headers, l->data);
        }
        cs->last_kind = SIZE_MAX;
        set_request_headers(s, url, cs->cross_headers);
    } else if (workload_kind(w->workload, rq->kind)->sigv4 || rq->has_jar) {
        set_request_headers(s, url, w->curl->kind_headers[rq->kind]);
    }
    curl_easy_setopt(cs->easy, CURLOPT_URL, url);
    cs->is_retried = 0;
    reset_transfer(cs);
    add(s);
}

static void abort_transfer(struct slot *s)
{
    engine__curl_uv_abort(s->w, s);
}

/* ---- Outcomes --------------------------------------------------------- */

/* Whether the transfer went over TLS; asked only where it matters. */
static int is_tls(struct curl_slot *cs, CURLcode code)
{
    const char *scheme = NULL;

    if (code != CURLE_RECV_ERROR)
        return 0;
    curl_easy_getinfo(cs->easy, CURLINFO_SCHEME, &scheme);
    return scheme && strcasecmp(scheme, "https") == 0;
}

int engine__curl_slot_connected(CURL *e)
{
    const char *scheme = NULL;
    curl_off_t tls_us = 0, sent_us = 0;
    long port = 0;

    /* The remote port is known once a connection was made or reused. */
    curl_easy_getinfo(e, CURLINFO_PRIMARY_PORT, &port);
    curl_easy_getinfo(e, CURLINFO_SCHEME, &scheme);
    if (port <= 0 || !scheme || strcasecmp(scheme, "https") != 0)
        return port > 0;
    /* The handshake's end, or, on a reused connection (whose handshake
     * time is 0), the request under way. */
    curl_easy_getinfo(e, CURLINFO_APPCONNECT_TIME_T, &tls_us);
    curl_easy_getinfo(e, CURLINFO_PRETRANSFER_TIME_T, &sent_us);
    return tls_us > 0 || sent_us > 0;
}

static int is_unsent(struct slot *s)
{
    long port = 0;
    curl_off_t lookup_us = 0;

    if (s->curl->is_queued)
        return 1;
    /* Still resolving: no lookup time yet, and no connection (a reused one
     * has its port). */
    curl_easy_getinfo(s->curl->easy, CURLINFO_PRIMARY_PORT, &port);
    curl_easy_getinfo(s->curl->easy, CURLINFO_NAMELOOKUP_TIME_T, &lookup_us);
    return port == 0 && lookup_us == 0;
}

static void gather(struct slot *s, CURLcode code, struct transfer_result *r, uint64_t *bytes_in,
                   uint64_t *bytes_out, char *words, size_t words_cap)
{
    struct curl_slot *cs = s->curl;
    long header_bytes = 0, request_bytes = 0, os_errno = 0;
    curl_off_t upload = 0, lookup_us = 0;

    curl_easy_getinfo(cs->easy, CURLINFO_RESPONSE_CODE, &r->http_status);
    curl_easy_getinfo(cs->easy, CURLINFO_OS_ERRNO, &os_errno);
    curl_easy_getinfo(cs->easy, CURLINFO_HEADER_SIZE, &header_bytes);
    curl_easy_getinfo(cs->easy, CURLINFO_REQUEST_SIZE, &request_bytes);
    curl_easy_getinfo(cs->easy, CURLINFO_SIZE_UPLOAD_T, &upload);
    r->os_errno = cs->open_errno ? cs->open_errno : os_errno;
    /* Tells a connect timeout (a stalled TLS handshake included) from a
     * read timeout on a kept-alive connection. */
    r->connected = engine__curl_slot_connected(cs->easy);
    if (r->http_status > 0)
        s->w->iv.http_version = engine__curl_tls_http_version(cs->easy);
    if (cs->head.why) {
        r->outcome = TRANSFER_MALFORMED;
        snprintf(words, words_cap, "curl: %s", cs->head.why);
    } else {
        r->outcome = engine__curl_code_outcome(code, r->os_errno, r->connected, is_tls(cs, code),
                                               cs->is_body_cut, cs->error);
        /* A complete reply's message is its status: no words to make. */
        words[0] = '\0';
        if (r->outcome != TRANSFER_OK && r->outcome != TRANSFER_BODY_CUT)
            engine__curl_code_words(code, r->connected, cs->error, words, words_cap);
        route_failed(&s->w->config->target, code, r, words, words_cap);
        /* The lookup's time is set once the name resolved (an address
         * literal too); 0 on a connection never made means the lookup was
         * still on, or had not begun: a deadline that ended before libcurl
         * took the transfer up (one added late, behind a burst) is no dns
         * failure, and libcurl's words tell the two apart. */
        curl_easy_getinfo(cs->easy, CURLINFO_NAMELOOKUP_TIME_T, &lookup_us);
        if (!r->connected && lookup_us == 0 && code == CURLE_OPERATION_TIMEDOUT &&
            strncmp(cs->error, "Resolving timed out", 19) == 0)
            r->outcome = TRANSFER_DNS;
    }
    *bytes_in = (uint64_t)header_bytes + cs->body_bytes;
    /* libcurl sends a small body in the same write as the head and counts
     * it in the request size too; only a larger one is sent, and counted,
     * apart (the h1 transport counts the same bytes once). */
    if (upload > 0 && (curl_off_t)request_bytes < upload)
        *bytes_out = (uint64_t)request_bytes + (uint64_t)upload;
    else
        *bytes_out = (uint64_t)request_bytes;
}

/*
 * libcurl sends a request again by itself, on a fresh connection, when a
 * reused one ended, was reset or failed the send before any byte of the
 * reply, and when an HTTP/2 stream was refused (libcurl 7.88's
 * Curl_retry_request, "Connection died, retrying a fresh connect", up to
 * five times). Each send begins with this callback, so the second one in a
 * transfer is such a retry, which brink lets go only by its own rule
 * (docs/config.md, "Requests sent again"): once, not after a reset, and
 * counted by cause. The failed send left its errno: ECONNRESET is a reset
 * of an established connection, the request's error; EPIPE a reset after
 * the server's FIN (Linux sets it for a socket in CLOSE_WAIT) and 0 an end
 * of file, a close that crossed the request, or a refused stream.
 */
/*
 * Why libcurl sends again the last send of s, which left os_errno. With
 * an errno, the connection closed under it. With none, libcurl 7.88 says
 * only that a refused stream is one: it sends again on a new connection
 * only an HTTP/2 stream the server refused (RST_STREAM REFUSED_STREAM),
 * and on a reused one any request that got nothing (HTTP/1.1, a close that
 * crossed it) but, over HTTP/2, only a refused stream with no words of its
 * own (a connection that ended fails its streams instead). So the
 * protocol of the connection tells: the status lines it carried, else
 * (a connection that carried none) the worker's last one, else the
 * protocol asked for.
 */
static enum resend_cause resend_cause(struct slot *s, long os_errno)
{
    struct curl_slot *cs = s->curl;
    int version = engine__curl_uv_port_version(s->w, cs->send_port);

    if (os_errno != 0)
        return RESEND_CLOSED_IDLE;
    if (!cs->is_send_reused)
        return RESEND_REFUSED_STREAM;
    if (version == 0)
        version = s->w->curl->last_version;
    if (version == 0)
        version = s->w->config->target.http_version == CONFIG_HTTP_1_1 ? 1 : 2;
    /* libcurl's words on a count of sends again run out are no words of
     * the stream's. */
    if (strncmp(cs->error, CURL_RETRIES_SPENT, strlen(CURL_RETRIES_SPENT)) == 0)
        return version == 2 ? RESEND_REFUSED_STREAM : RESEND_CLOSED_IDLE;
    return version == 2 && cs->error[0] == '\0' ? RESEND_REFUSED_STREAM : RESEND_CLOSED_IDLE;
}

/* A send again libcurl wants after a send that left os_errno: let go
 * (counted by cause) or held. Once, unless it too met a cached connection
 * the server had closed (several users leave several): the server read
 * none of them, so each goes on, counted, up to libcurl's own five. */
static int may_resend(struct slot *s, long os_errno)
{
    struct curl_slot *cs = s->curl;
    enum resend_cause cause = resend_cause(s, os_errno);
    int is_dead_again = cs->is_retried && cs->is_send_reused && cause == RESEND_CLOSED_IDLE &&
                        cs->n_sends <= CURL_SENDS_MAX;

    if ((cs->is_retried && !is_dead_again) || os_errno == ECONNRESET ||
        !engine__slot_may_resend(s, cause)) {
        cs->is_held = 1;
        cs->held_errno = (int)os_errno;
        cs->is_held_refused = cause == RESEND_REFUSED_STREAM;
        return 0;
    }
    cs->is_retried = 1;
    return 1;
}

/* Notes the connection of the send s begins: its local port, and whether
 * libcurl made it for this transfer (then nothing is known of it yet). */
static void note_send(struct slot *s, long local_port)
{
    struct curl_slot *cs = s->curl;
    long connects = 0;

    curl_easy_getinfo(cs->easy, CURLINFO_NUM_CONNECTS, &connects);
    cs->is_send_reused = connects == cs->send_connects;
    cs->send_connects = connects;
    cs->send_port = local_port;
    if (!cs->is_send_reused)
        engine__curl_uv_port_version_set(s->w, local_port, 0);
}

int engine__curl_slot_prereq(void *clientp, char *conn_primary_ip, char *conn_local_ip,
                             int conn_primary_port, int conn_local_port)
{
    struct slot *s = clientp;
    struct curl_slot *cs = s->curl;
    long os_errno = 0;
    int ok;

    (void)conn_primary_ip;
    (void)conn_local_ip;
    (void)conn_primary_port;
    if (cs->n_sends++ == 0) {
        note_send(s, conn_local_port);
        return CURL_PREREQFUNC_OK;
    }
    curl_easy_getinfo(cs->easy, CURLINFO_OS_ERRNO, &os_errno);
    ok = may_resend(s, os_errno);
    note_send(s, conn_local_port);
    return ok ? CURL_PREREQFUNC_OK : CURL_PREREQFUNC_ABORT;
}

/*
 * Whether libcurl refused a send again only because its count ran out
 * (CURL_RETRIES_SPENT after one send of this transfer): brink's rule decides
 * instead, and when it lets the request go, brink sends it.
 */
static int is_spent_resend(struct slot *s, CURLcode code)
{
    struct curl_slot *cs = s->curl;
    long os_errno = 0;

    if ((code != CURLE_SEND_ERROR && code != CURLE_RECV_ERROR) || cs->is_held || cs->n_sends > 1 ||
        strncmp(cs->error, CURL_RETRIES_SPENT, strlen(CURL_RETRIES_SPENT)) != 0)
        return 0;
    curl_easy_getinfo(cs->easy, CURLINFO_OS_ERRNO, &os_errno);
    return may_resend(s, os_errno);
}

/* The outcome of a transfer whose send again of libcurl's brink stopped:
 * what its first send met. */
static void held_result(struct curl_slot *cs, struct transfer_result *r, char *words, size_t cap)
{
    r->connected = 1;
    r->os_errno = cs->held_errno;
    if (cs->held_errno == ECONNRESET) {
        r->outcome = TRANSFER_RECV;
        snprintf(words, cap, "curl: the connection was reset before any byte of the reply");
    } else if (cs->held_errno == EPIPE) {
        /* Linux gives EPIPE once the server's FIN came: it had closed. */
        r->outcome = TRANSFER_SEND;
        snprintf(words, cap, "curl: the server had closed the connection the request went on");
    } else if (cs->is_held_refused) {
        r->outcome = TRANSFER_CLOSED_EMPTY;
        snprintf(words, cap, "curl: the server refused the stream (REFUSED_STREAM)");
    } else {
        r->outcome = TRANSFER_CLOSED_EMPTY;
        snprintf(words, cap, "curl: the server closed the connection before any byte of the reply");
    }
}

/* libcurl 7.88's words for an HTTP/2 stream whose connection ended (a
 * close, after a GOAWAY or not) before the stream did. */
#define H2_CONN_ENDED "before end of the underlying stream"

/*
 * Whether a transfer that ended with code died on a reused connection the
 * server had closed (end of file, or EPIPE after its FIN; not a reset)
 * before any byte of the reply, and libcurl did not send it again itself:
 * sent again once on a fresh connection, by h1's rule (docs/config.md).
 * Over HTTP/2, libcurl fails such a stream (CURLE_PARTIAL_FILE, "HTTP/2
 * stream 3 was not closed cleanly before end of the underlying stream") where it would
 * send an HTTP/1.1 request again: the same rule applies.
 */
static int is_dead_reuse(struct slot *s, CURLcode code)
{
    struct curl_slot *cs = s->curl;
    long new_conns = 1, header_bytes = 1, os_errno = 0;

    if (cs->is_retried || cs->is_held || cs->body_bytes > 0 || cs->head.n_blocks > 0)
        return 0;
    curl_easy_getinfo(cs->easy, CURLINFO_OS_ERRNO, &os_errno);
    if (!(code == CURLE_GOT_NOTHING ||
          ((code == CURLE_SEND_ERROR || code == CURLE_RECV_ERROR) && os_errno == EPIPE) ||
          ((code == CURLE_PARTIAL_FILE || code == CURLE_HTTP2_STREAM) &&
           strstr(cs->error, H2_CONN_ENDED))))
        return 0;
    curl_easy_getinfo(cs->easy, CURLINFO_NUM_CONNECTS, &new_conns);
    curl_easy_getinfo(cs->easy, CURLINFO_HEADER_SIZE, &header_bytes);
    return new_conns == 0 && header_bytes == 0 && engine__slot_may_resend(s, RESEND_CLOSED_IDLE);
}

/*
 * Whether an HTTP/2 transfer ended because a GOAWAY left its stream out
 * (CURLE_HTTP2 without words of libcurl's, nothing of the reply came): the
 * server says it never processed the stream, so it is sent again once, on
 * a new connection. libcurl 7.88 does so itself for a stream refused with
 * RST_STREAM, not for this one.
 */
static int is_goaway_refused(struct slot *s, CURLcode code)
{
    struct curl_slot *cs = s->curl;

    return code == CURLE_HTTP2 && cs->error[0] == '\0' && !cs->is_retried && !cs->is_held &&
           cs->body_bytes == 0 && cs->head.n_blocks == 0 &&
           engine__slot_may_resend(s, RESEND_REFUSED_STREAM);
}

/*
 * Where the time of the transfer went, from libcurl's timers (µs from the
 * transfer's start, each phase's end): a new connection's lookup, connect
 * and TLS handshake (APPCONNECT is 0 without TLS), and the time to first
 * byte of any transfer that got one (STARTTRANSFER is 0 until then), from
 * PRETRANSFER, when the request starts to go out.
 */
static void record_phases(struct slot *s)
{
    CURL *e = s->curl->easy;
    long new_conns = 0;
    curl_off_t dns = 0, connect = 0, tls = 0, pre = 0, first = 0;

    curl_easy_getinfo(e, CURLINFO_STARTTRANSFER_TIME_T, &first);
    curl_easy_getinfo(e, CURLINFO_PRETRANSFER_TIME_T, &pre);
    if (first > 0 && first >= pre)
        engine__worker_phase(s->w, PHASE_TTFB, (uint64_t)(first - pre));
    curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &new_conns);
    if (new_conns <= 0)
        return;
    curl_easy_getinfo(e, CURLINFO_NAMELOOKUP_TIME_T, &dns);
    curl_easy_getinfo(e, CURLINFO_CONNECT_TIME_T, &connect);
    curl_easy_getinfo(e, CURLINFO_APPCONNECT_TIME_T, &tls);
    if (connect <= 0 || connect < dns)
        return;
    engine__worker_phase(s->w, PHASE_DNS, (uint64_t)dns);
    engine__worker_phase(s->w, PHASE_CONNECT, (uint64_t)(connect - dns));
    if (tls > 0 && tls >= connect)
        engine__worker_phase(s->w, PHASE_TLS, (uint64_t)(tls - connect));
}

void engine__curl_slot_done(struct slot *s, CURLcode code)
{
    struct curl_slot *cs = s->curl;
    struct transfer_result r = {0};
    uint64_t in = 0, out = 0;
    char words[WORDS_MAX];

    if (is_spent_resend(s, code) || is_dead_reuse(s, code) || is_goaway_refused(s, code)) {
        cs->is_retried = 1;
        reset_transfer(cs);
        /* Another cached connection may be as dead: this attempt gets a
         * fresh one (engine__curl_uv_add sees is_retried). */
        add(s);
        return;
    }
    gather(s, code, &r, &in, &out, words, sizeof(words));
    if (cs->is_held)
        held_result(cs, &r, words, sizeof(words));
    record_phases(s);
    if (cs->body_bytes > BUFFER_LARGE_BODY && cs->buffer_size == BUFFER_DEFAULT) {
        cs->buffer_size = large_buffer_for(s->index);
        curl_easy_setopt(cs->easy, CURLOPT_BUFFERSIZE, cs->buffer_size);
    }
    engine__slot_done(s, &r, in, out, words);
}

const struct transport_ops transport_curl = {
    .name = "curl",
    .global_init = engine__curl_uv_global_init,
    .global_cleanup = engine__curl_uv_global_cleanup,
    .version = engine__curl_version,
    .init = engine__curl_uv_init,
    .close = engine__curl_uv_close,
    .fini = engine__curl_uv_fini,
    .prepare = prepare,
    .slot_init = slot_init,
    .slot_free = slot_fini,
    .start = start,
    .abort = abort_transfer,
    .is_unsent = is_unsent,
    .users_changed = engine__curl_uv_users_changed,
};
