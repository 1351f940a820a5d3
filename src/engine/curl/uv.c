/*
 * The libcurl <-> libuv glue of one worker, after curl's multi-uv example
 * with its gaps closed: CURL_POLL_INOUT is handled, a poll error becomes
 * CURL_CSELECT_ERR, timer -1 stops the timer, every allocation is checked,
 * and there are no globals (the worker travels through the *DATA options).
 *
 * Sockets that libcurl opens through our opensocket callback keep their
 * uv_poll_t for as long as the connection lives: CURL_POLL_REMOVE only stops
 * polling, and the handle is closed in the closesocket callback. Closing and
 * re-initialising the poll handle around every keep-alive request cost about
 * a third of the client CPU per request in our measurements.
 *
 * A transfer that needs a new connection is handed to libcurl only within
 * the loop pass's connect budget (pace.h); the others wait in a queue for
 * later passes, their deadlines counted from their start.
 *
 * Each transfer's deadlines are kept in a timer of its own, as the h1
 * transport keeps them: when one passes, the transfer is taken out of the
 * multi handle and ends with the words libcurl would have given. libcurl
 * ends every transfer whose deadline passed inside one
 * curl_multi_socket_action call, and reports none before that call returns:
 * thousands of deadlines due together (a burst) came in 100 ms late and
 * more. Its own deadlines stay set, CURL_BACKSTOP_MS later.
 *
 * A transfer's end goes up through curl_worker.done (outcome.c's, handed
 * to engine__curl_uv_init), so the glue calls no file above it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "config/config.h"
#include "core/msg.h"
#include "core/xalloc.h"
#include "engine/curl/internal.h"
#include "engine/transport.h"

static void on_sock_closed(uv_handle_t *h)
{
    free(container_of((uv_poll_t *)h, struct sock, poll));
}

/* Forgets k and closes its poll handle; the fd stays open (libcurl or the
 * caller closes it). */
static void sock_close(struct transport_worker *w, struct sock *k)
{
    struct curl_worker *cw = curl_worker_of(w);

    if (k->is_ours && (size_t)k->fd < cw->socks_cap && cw->socks[k->fd] == k)
        cw->socks[k->fd] = NULL;
    if (!uv_is_closing((uv_handle_t *)&k->poll))
        uv_close((uv_handle_t *)&k->poll, on_sock_closed);
}

static struct sock *sock_new(struct transport_worker *w, curl_socket_t fd, int is_ours)
{
    struct curl_worker *cw = curl_worker_of(w);
    struct sock *k = xcalloc(1, sizeof(*k));

    k->w = w;
    k->fd = fd;
    k->is_ours = is_ours;
    if (uv_poll_init_socket(&w->loop, &k->poll, fd) != 0) {
        free(k);
        return NULL;
    }
    if (is_ours) {
        if ((size_t)fd >= cw->socks_cap) {
            size_t cap = cw->socks_cap ? cw->socks_cap : 1024;

            while (cap <= (size_t)fd)
                cap *= 2;
            cw->socks = xrealloc(cw->socks, cap * sizeof(*cw->socks));
            memset(cw->socks + cw->socks_cap, 0, (cap - cw->socks_cap) * sizeof(*cw->socks));
            cw->socks_cap = cap;
        }
        /* A stale entry is a socket libcurl closed without telling us. */
        if (cw->socks[fd])
            sock_close(w, cw->socks[fd]);
        cw->socks[fd] = k;
    }
    return k;
}

static void check_multi_info(struct transport_worker *w)
{
    CURLMsg *msg;
    int left;

    while (!engine__worker_is_done(w) &&
           (msg = curl_multi_info_read(curl_worker_of(w)->multi, &left)) != NULL) {
        CURL *easy;
        CURLcode code;
        struct transport_slot *s = NULL;

        if (msg->msg != CURLMSG_DONE)
            continue;
        easy = msg->easy_handle;
        code = msg->data.result;
        curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&s);
        /* msg is invalid once its handle is removed: read it first. */
        curl_multi_remove_handle(curl_worker_of(w)->multi, easy);
        uv_timer_stop(&curl_slot_of(s)->deadline);
        curl_worker_of(w)->done(s, code);
    }
}

/* curl_multi_socket_action, timed for the connect budget: libcurl starts
 * the transfers added since the last call inside it (every call runs the
 * timers due), connects included, so its time per connect opened is what
 * a connect costs now, and no connect promised at an add is pending after. */
static void act(struct transport_worker *w, curl_socket_t fd, int flags)
{
    struct curl_worker *cw = curl_worker_of(w);
    uint32_t opened = cw->opened;
    uint64_t t0 = uv_hrtime();
    int running;

    curl_multi_socket_action(cw->multi, fd, flags, &running);
    cw->acts++;
    if (cw->opened != opened)
        pace_took(&w->pace, cw->opened - opened, uv_hrtime() - t0);
    cw->promised = 0;
}

static void on_poll(uv_poll_t *p, int status, int events)
{
    struct sock *k = container_of(p, struct sock, poll);
    struct transport_worker *w = k->w;
    int flags = 0;

    if (status < 0) {
        /*
         * A reset peer shows up as a poll error. CURL_CSELECT_ERR alone makes
         * libcurl fail with "select/poll returned error" and no errno, which
         * would put every reset in "other"; with the direction bits too it
         * reads or writes and meets the real ECONNRESET or EPIPE.
         */
        events = k->events;
        flags = CURL_CSELECT_ERR;
    }
    if (events & UV_READABLE)
        flags |= CURL_CSELECT_IN;
    if (events & UV_WRITABLE)
        flags |= CURL_CSELECT_OUT;
    act(w, k->fd, flags);
    /* libuv stops a poll handle that reported an error; if libcurl still
     * watches the socket, watch it again. */
    if (status < 0 && k->is_polling && !uv_is_closing((uv_handle_t *)&k->poll))
        uv_poll_start(&k->poll, k->events, on_poll);
    check_multi_info(w);
}

static int on_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
    struct transport_worker *w = userp;
    struct sock *k = socketp;
    int events = 0;

    (void)easy;
    if (what == CURL_POLL_REMOVE) {
        if (!k)
            return 0;
        k->is_polling = 0;
        if (k->is_ours) {
            uv_poll_stop(&k->poll);
        } else {
            /* Not ours (the resolver's wake-up pipe): libcurl closes it
             * itself, so the poll handle must go now. */
            curl_multi_assign(curl_worker_of(w)->multi, fd, NULL);
            sock_close(w, k);
        }
        return 0;
    }
    if (!k) {
        k = (size_t)fd < curl_worker_of(w)->socks_cap ? curl_worker_of(w)->socks[fd] : NULL;
        if (!k)
            k = sock_new(w, fd, 0);
        if (!k)
            return -1;
        curl_multi_assign(curl_worker_of(w)->multi, fd, k);
    }
    if (what & CURL_POLL_IN)
        events |= UV_READABLE;
    if (what & CURL_POLL_OUT)
        events |= UV_WRITABLE;
    /* libcurl says the same again for every transfer on a shared
     * connection (HTTP/2 streams): uv_poll_start would stop the handle
     * first, an epoll_ctl each time (a system call per request). */
    if (k->is_polling && k->events == events && uv_is_active((uv_handle_t *)&k->poll))
        return 0;
    k->events = events;
    k->is_polling = 1;
    return uv_poll_start(&k->poll, events, on_poll) == 0 ? 0 : -1;
}

static void curl_timeout(struct transport_worker *w)
{
    act(w, CURL_SOCKET_TIMEOUT, 0);
    check_multi_info(w);
}

static void on_curl_timer(uv_timer_t *t)
{
    curl_timeout(container_of(t->loop, struct transport_worker, loop));
}

static void on_curl_now(uv_idle_t *i)
{
    uv_idle_stop(i);
    curl_timeout(container_of(i->loop, struct transport_worker, loop));
}

static int on_timer(CURLM *multi, long timeout_ms, void *userp)
{
    struct transport_worker *w = userp;

    (void)multi;
    uv_timer_stop(&curl_worker_of(w)->timer);
    uv_idle_stop(&curl_worker_of(w)->now);
    if (timeout_ms < 0)
        return 0;
    /*
     * 0 means "as soon as this callback has returned". An idle handle runs
     * once per loop iteration, after I/O: a 0 ms libuv timer re-armed from
     * its own callback would run again in the same pass (libuv 1.44), so a
     * transfer that fails at once would spin there forever; and the 1 ms of
     * curl's example would cap one virtual user at 1000 requests/s.
     */
    if (timeout_ms == 0)
        return uv_idle_start(&curl_worker_of(w)->now, on_curl_now) == 0 ? 0 : -1;
    return uv_timer_start(&curl_worker_of(w)->timer, on_curl_timer, (uint64_t)timeout_ms, 0) == 0
               ? 0
               : -1;
}

static curl_socket_t on_open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *addr)
{
    struct transport_slot *s = clientp;
    struct transport_worker *w = s->w;
    int fd;

    (void)purpose;
    fd = socket(addr->family, addr->socktype | SOCK_CLOEXEC, addr->protocol);
    if (fd < 0) {
        /* Kept for the classifier: EMFILE is brink's limit, not the server's. */
        curl_slot_of(s)->open_errno = errno;
        return CURL_SOCKET_BAD;
    }
    if (!sock_new(w, fd, 1)) {
        curl_slot_of(s)->open_errno = ENOMEM;
        close(fd);
        return CURL_SOCKET_BAD;
    }
    w->fds_used++;
    curl_worker_of(w)->opened++;
    engine__worker_conn_opened(w);
    return fd;
}

/* The close of a socket of ours its turn came to (closer.h): its poll
 * handle, then the fd. */
static void close_sock_now(struct closing *x)
{
    struct sock *k = container_of(x, struct sock, closing);
    struct transport_worker *w = k->w;
    int fd = k->fd;

    if (!uv_is_closing((uv_handle_t *)&k->poll))
        uv_close((uv_handle_t *)&k->poll, on_sock_closed);
    close(fd);
    w->fds_used--;
    engine__worker_conn_closed(w);
}

/* libcurl is done with fd: it closes now, or within a later pass's
 * budget. It is forgotten at once, and polled no more: libcurl may hand
 * out no event for it, and its number is not reused while it waits. */
static int on_close_socket(void *clientp, curl_socket_t fd)
{
    struct transport_worker *w = clientp;
    struct sock *k =
        (size_t)fd < curl_worker_of(w)->socks_cap ? curl_worker_of(w)->socks[fd] : NULL;

    if (!k) {
        w->fds_used--;
        engine__worker_conn_closed(w);
        return close(fd);
    }
    curl_worker_of(w)->socks[fd] = NULL;
    k->is_polling = 0;
    uv_poll_stop(&k->poll);
    closer_close(&w->closer, &k->closing, close_sock_now);
    return 0;
}

/* The header lists of the request kinds, built once per worker. */
static void build_kind_headers(struct transport_worker *w)
{
    struct curl_worker *cw = curl_worker_of(w);
    const struct workload *wl = w->workload;
    size_t n_kinds = workload_n_kinds(wl);

    cw->kind_headers = xcalloc(n_kinds, sizeof(*cw->kind_headers));
    for (size_t i = 0; i < n_kinds; i++) {
        const struct workload_kind *k = workload_kind(wl, i);

        for (size_t j = 0; j < k->n_headers; j++)
            cw->kind_headers[i] = curl_slist_append(cw->kind_headers[i], k->headers[j]);
        /* A body must not wait a second for "100 Continue". */
        if (k->body)
            cw->kind_headers[i] = curl_slist_append(cw->kind_headers[i], "Expect:");
    }
}

void engine__curl_uv_fini(struct transport_worker *w)
{
    struct curl_worker *cw = curl_worker_of(w);
    size_t n_kinds = workload_n_kinds(w->workload);

    if (!cw)
        return;
    engine__curl_tls_fini(w);
    for (size_t i = 0; cw->kind_headers && i < n_kinds; i++)
        curl_slist_free_all(cw->kind_headers[i]);
    free(cw->kind_headers);
    curl_slist_free_all(cw->connect_to);
    free(cw);
    w->priv = NULL;
}

int engine__curl_uv_init(struct transport_worker *w, engine__curl_done_fn done, char *err,
                         size_t err_len)
{
    CURLM *multi = curl_multi_init();
    struct curl_worker *cw;
    int rc;

    if (!multi) {
        snprintf(err, err_len, "brink: engine: curl_multi_init failed");
        return -ENOMEM;
    }
    cw = w->priv = xcalloc(1, sizeof(*cw));
    cw->multi = multi;
    cw->done = done;
    curl_multi_setopt(cw->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(cw->multi, CURLMOPT_SOCKETDATA, w);
    curl_multi_setopt(cw->multi, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(cw->multi, CURLMOPT_TIMERDATA, w);
    /* The default cache follows the number of handles added, which drops
     * every time a slot's transfer ends and would close idle keep-alive
     * connections; hold one per possible virtual user instead. */
    curl_multi_setopt(cw->multi, CURLMOPT_MAXCONNECTS, (long)w->max_concurrency + 16);
    uv_timer_init(&w->loop, &cw->timer);
    uv_idle_init(&w->loop, &cw->now);
    uv_idle_init(&w->loop, &cw->paced);
    cw->paced.data = w;
    build_kind_headers(w);
    /* libcurl reads the lines as they are written in the config. */
    for (uint32_t i = 0; i < w->config->target.n_connect_to; i++)
        cw->connect_to = curl_slist_append(cw->connect_to, w->config->target.connect_to[i].value);
    rc = engine__curl_tls_init(w, err, err_len);
    if (rc != 0) {
        /* The caller closes only its own handles on a failed init. */
        engine__curl_uv_close(w);
        engine__curl_uv_fini(w);
    }
    return rc;
}

/* Options every easy handle of the worker shares, set once per slot. */
void engine__curl_uv_setup_easy(struct transport_worker *w, struct transport_slot *s)
{
    struct curl_slot *cs = curl_slot_of(s);
    CURL *e = cs->easy;

    curl_easy_setopt(e, CURLOPT_PRIVATE, s);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, cs->error);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, s);
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, on_close_socket);
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETDATA, w);
    uv_timer_init(&w->loop, &cs->deadline);
}

void engine__curl_add(struct transport_slot *s)
{
    if (engine__curl_uv_add(s->w, s) != 0)
        xalloc_die("curl_multi_add_handle failed");
}

/* Adds the transfer of s to the multi handle; is_connect: it needs a new
 * connection (needs_connect), which it then opens without looking for one
 * to reuse: libcurl looks through every connection to the host for each
 * transfer, all of them busy in a burst, and 19,000 of them made each add
 * cost a scan, and every pass that added some hundreds of ms. A retry
 * after a dead reused connection, and a run that reuses none, always
 * connect afresh. */
static int add_now(struct transport_worker *w, struct transport_slot *s, int is_connect)
{
    struct curl_slot *cs = curl_slot_of(s);
    long is_fresh = is_connect || cs->is_retried || !engine__curl_tls_reuses(w);

    curl_easy_setopt(cs->easy, CURLOPT_FRESH_CONNECT, is_fresh);
    cs->added_ns = engine__worker_now_ns(w);
    cs->added_at_act = curl_worker_of(w)->acts;
    engine__curl_slot_set_deadlines(s);
    engine__curl_tls_before_add(w);
    return curl_multi_add_handle(curl_worker_of(w)->multi, cs->easy) == CURLM_OK ? 0 : -ENOMEM;
}

/* Whether the transfer of s, about to be added, needs a new connection:
 * every transfer libcurl runs holds a stream of one (one stream a
 * connection but with HTTP/2's streams), and it takes a free one (of the
 * sockets open, or promised this pass) before it opens another. */
static int needs_connect(const struct transport_worker *w)
{
    uint64_t streams = engine__curl_tls_streams(w);
    /* Sockets waiting for their close (closer.h) carry nothing. */
    uint64_t conns = w->fds_used - closer_waiting(&w->closer);

    return engine__worker_in_flight(w) - curl_worker_of(w)->queued.n >
           (conns + curl_worker_of(w)->promised) * streams;
}

static void unlink_queued(struct transport_worker *w, struct transport_slot *s)
{
    dlist_remove(&curl_worker_of(w)->queued, &curl_slot_of(s)->queue);
    curl_slot_of(s)->is_queued = 0;
}

/* The oldest queued slot, or NULL. */
static struct transport_slot *oldest_queued(const struct transport_worker *w)
{
    struct dlist_node *x = curl_worker_of(w)->queued.head;

    return x ? container_of(x, struct curl_slot, queue)->s : NULL;
}

static struct transport_slot *pop_queued(struct transport_worker *w)
{
    struct transport_slot *s = oldest_queued(w);

    unlink_queued(w, s);
    return s;
}

static int is_expired(const struct transport_slot *s, uint64_t now_ns)
{
    uint64_t limit_us = engine__slot_connect_limit_us(s);

    /* Within a millisecond of it counts: libcurl's deadlines are whole ms,
     * and one that ends before the transfer began to resolve its host
     * would read as a dns failure. */
    return now_ns - curl_slot_of(s)->rq->start_ns + 1000000 >= limit_us * 1000;
}

/* s waited in the queue past its connect deadline (unlinked). */
static void expire(struct transport_slot *s)
{
    uv_timer_stop(&curl_slot_of(s)->deadline);
    engine__curl_slot_expired(s);
}

/* ---- Deadlines -------------------------------------------------------- */

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

/* What is left of limit_us since s started, in whole ms, at least 1 (0
 * would mean no limit to libcurl). */
static long left_ms(const struct transport_slot *s, uint64_t limit_us)
{
    uint64_t waited_us = (engine__worker_now_ns(s->w) - curl_slot_of(s)->rq->start_ns) / 1000;

    return limit_us > waited_us + 1000 ? (long)((limit_us - waited_us + 999) / 1000) : 1L;
}

void engine__curl_slot_set_deadlines(struct transport_slot *s)
{
    curl_easy_setopt(curl_slot_of(s)->easy, CURLOPT_TIMEOUT_MS,
                     left_ms(s, engine__slot_timeout_us(s)) + CURL_BACKSTOP_MS);
    curl_easy_setopt(curl_slot_of(s)->easy, CURLOPT_CONNECTTIMEOUT_MS,
                     left_ms(s, s->w->config->target.connect_timeout_us) + CURL_BACKSTOP_MS);
}

void engine__curl_slot_expired(struct transport_slot *s)
{
    struct transfer_result r = {.outcome = TRANSFER_TIMEOUT};
    char what[96], words[CURL_WORDS_MAX];

    /* Never connected: connect_timeout, with brink's own reason. */
    engine__slot_queued_words(s, what, sizeof(what));
    msg_set(words, sizeof(words), "curl: %s", what);
    engine__slot_done(s, &r, 0, 0, words);
}

static void on_deadline(uv_timer_t *t);

/* Arms the deadline of s limit_us after its start. */
static void arm_deadline(struct transport_slot *s, uint64_t limit_us)
{
    engine__slot_arm(s, &curl_slot_of(s)->deadline, on_deadline, limit_us);
}

/* Writes into the error buffer of s what libcurl says of a transfer whose
 * deadline passed where it stands: resolving, connecting, in the TLS
 * handshake, or connected (counted, as libcurl counts, from the add). */
static void timeout_words(struct transport_slot *s, long port, int connected, curl_off_t lookup_us)
{
    struct curl_slot *cs = curl_slot_of(s);
    unsigned long long after_ms = (engine__worker_now_ns(s->w) - cs->added_ns) / 1000000;

    if (port > 0 && !connected)
        snprintf(cs->error, sizeof(cs->error), "SSL connection timeout");
    else if (port > 0 && cs->head.content_length >= 0)
        snprintf(cs->error, sizeof(cs->error),
                 "Operation timed out after %llu milliseconds with %llu out of %ld bytes received",
                 after_ms, (unsigned long long)cs->body_bytes, cs->head.content_length);
    else if (port > 0)
        snprintf(cs->error, sizeof(cs->error),
                 "Operation timed out after %llu milliseconds with %llu bytes received", after_ms,
                 (unsigned long long)cs->body_bytes);
    else if (lookup_us > 0)
        snprintf(cs->error, sizeof(cs->error), "Connection timed out after %llu milliseconds",
                 after_ms);
    else
        snprintf(cs->error, sizeof(cs->error), "Resolving timed out after %llu milliseconds",
                 after_ms);
}

/*
 * The deadline of s passed: first its connect's (the shorter of
 * connect_timeout and its timeout), then, once connected (with https, its
 * TLS handshake done, as libcurl's own connect timeout counts), its
 * request's.
 * A transfer still queued is a connect_timeout with brink's words; one
 * libcurl has not taken up yet is looked at again in a ms (libcurl's words
 * say where it stood). Else it leaves the multi handle (its connection
 * closes, as libcurl closes it) and ends as libcurl would have ended it,
 * CURLE_OPERATION_TIMEDOUT, classed by the same rules.
 */
static void on_deadline(uv_timer_t *t)
{
    struct curl_slot *cs = container_of(t, struct curl_slot, deadline);
    struct transport_slot *s = cs->s;
    struct transport_worker *w = s->w;
    uint64_t timeout_us = engine__slot_timeout_us(s);
    long port = 0;
    int connected;
    curl_off_t lookup_us = 0;

    if (!s->is_in_flight || engine__worker_is_done(w))
        return;
    if (cs->is_queued) {
        unlink_queued(w, s);
        engine__curl_slot_expired(s);
        return;
    }
    if (cs->added_at_act == curl_worker_of(w)->acts) {
        uv_timer_start(t, on_deadline, 1, 0);
        return;
    }
    curl_easy_getinfo(cs->easy, CURLINFO_PRIMARY_PORT, &port);
    connected = engine__curl_slot_connected(cs->easy);
    if (connected && engine__worker_now_ns(w) - curl_slot_of(s)->rq->start_ns < timeout_us * 1000) {
        arm_deadline(s, timeout_us);
        return;
    }
    curl_easy_getinfo(cs->easy, CURLINFO_NAMELOOKUP_TIME_T, &lookup_us);
    curl_multi_remove_handle(curl_worker_of(w)->multi, cs->easy);
    timeout_words(s, port, connected, lookup_us);
    curl_worker_of(w)->done(s, CURLE_OPERATION_TIMEDOUT);
}

/*
 * A new pass: first the queued transfers whose connect deadline passed fail
 * (they cost nothing, so the budget does not hold them), oldest first and
 * only from the head: with one timeout for every kind the queue is in
 * deadline order, else a shorter deadline behind a longer one waits for
 * it. Then those the pass's budget allows go to libcurl. A transfer that
 * ends here starts its slot's next, which may queue again, at the tail.
 */
static void on_paced(uv_idle_t *i)
{
    struct transport_worker *w = i->data;
    uint64_t now = engine__worker_now_ns(w);

    while (!engine__worker_is_done(w) && oldest_queued(w) && is_expired(oldest_queued(w), now))
        expire(pop_queued(w));
    while (!engine__worker_is_done(w) && oldest_queued(w) && pace_left(&w->pace) > 0 &&
           !closer_is_busy(&w->closer)) {
        struct transport_slot *s = pop_queued(w);

        if (is_expired(s, engine__worker_now_ns(w))) {
            expire(s);
            continue;
        }

        pace_begun(&w->pace, 1);
        curl_worker_of(w)->promised++;
        if (add_now(w, s, 1) != 0)
            xalloc_die("curl_multi_add_handle failed");
    }
    if (!oldest_queued(w) || engine__worker_is_done(w))
        uv_idle_stop(i);
}

int engine__curl_uv_add(struct transport_worker *w, struct transport_slot *s)
{
    struct curl_worker *cw = curl_worker_of(w);
    int is_connect = needs_connect(w);

    arm_deadline(s, engine__slot_connect_limit_us(s));
    if (is_connect) {
        if (oldest_queued(w) || pace_left(&w->pace) == 0 || closer_is_busy(&w->closer)) {
            /* Behind those queued before it: a burst opens in its order. */
            curl_slot_of(s)->is_queued = 1;
            dlist_push_tail(&cw->queued, &curl_slot_of(s)->queue);
            return uv_idle_start(&cw->paced, on_paced) == 0 ? 0 : -ENOMEM;
        }
        pace_begun(&w->pace, 1);
        cw->promised++;
    }
    return add_now(w, s, is_connect);
}

void engine__curl_uv_abort(struct transport_worker *w, struct transport_slot *s)
{
    struct curl_slot *cs = curl_slot_of(s);

    uv_timer_stop(&cs->deadline);
    if (cs->is_queued) {
        unlink_queued(w, s);
        return;
    }
    /* Removing a transfer that has not finished makes libcurl close its
     * connection: the server sees a client that went away mid-stream. */
    curl_multi_remove_handle(curl_worker_of(w)->multi, cs->easy);
}

/* The connections are the multi handle's, in its cache: with fewer users
 * the cache holds as many as they are, and each transfer that ends while
 * it holds more closes its oldest idle one (libcurl's rule), so those of
 * the users that left go as the transfers of the rest end. More users
 * make it as large as at the start again. */
void engine__curl_uv_users_changed(struct transport_worker *w, uint32_t n)
{
    struct curl_worker *cw = curl_worker_of(w);
    long max = n < cw->users ? (n > 0 ? (long)n : 1) : (long)w->max_concurrency + 16;

    cw->users = n;
    curl_multi_setopt(cw->multi, CURLMOPT_MAXCONNECTS, max);
}

void engine__curl_uv_close(struct transport_worker *w)
{
    struct curl_worker *cw = curl_worker_of(w);

    /* Connections live in the multi handle's cache: cleaning it up closes
     * them through on_close_socket, which closes their poll handles. */
    for (uint32_t i = 0; i < engine__worker_n_slots(w); i++) {
        struct transport_slot *s = engine__worker_slot(w, i);

        if (s->is_in_flight && !curl_slot_of(s)->is_queued)
            curl_multi_remove_handle(cw->multi, curl_slot_of(s)->easy);
        uv_close((uv_handle_t *)&curl_slot_of(s)->deadline, NULL);
    }
    dlist_init(&cw->queued);
    curl_multi_cleanup(cw->multi);
    cw->multi = NULL;
    for (size_t fd = 0; fd < cw->socks_cap; fd++) {
        if (cw->socks[fd])
            sock_close(w, cw->socks[fd]);
    }
    free(cw->socks);
    cw->socks = NULL;
    cw->socks_cap = 0;
    uv_close((uv_handle_t *)&cw->timer, NULL);
    uv_close((uv_handle_t *)&cw->now, NULL);
    uv_close((uv_handle_t *)&cw->paced, NULL);
}

int engine__curl_uv_global_init(char *err, size_t err_len)
{
    CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);

    if (rc != CURLE_OK) {
        snprintf(err, err_len, "brink: engine: curl_global_init: %s", curl_easy_strerror(rc));
        return -EIO;
    }
    return 0;
}

void engine__curl_uv_global_cleanup(void)
{
    curl_global_cleanup();
}

const char *engine__curl_version(void)
{
    return curl_version_info(CURLVERSION_NOW)->version;
}

int engine__curl_uv_port_version(const struct transport_worker *w, long port)
{
    uint8_t bit;

    if (port <= 0 || port > 65535)
        return 0;
    bit = (uint8_t)(1u << (port & 7));
    if (curl_worker_of(w)->h2_ports[port >> 3] & bit)
        return 2;
    return (curl_worker_of(w)->h1_ports[port >> 3] & bit) ? 1 : 0;
}

void engine__curl_uv_port_version_set(struct transport_worker *w, long port, int version)
{
    struct curl_worker *c = curl_worker_of(w);
    uint8_t bit;

    if (port <= 0 || port > 65535)
        return;
    bit = (uint8_t)(1u << (port & 7));
    c->h2_ports[port >> 3] =
        (uint8_t)(version == 2 ? c->h2_ports[port >> 3] | bit : c->h2_ports[port >> 3] & ~bit);
    c->h1_ports[port >> 3] =
        (uint8_t)(version == 1 ? c->h1_ports[port >> 3] | bit : c->h1_ports[port >> 3] & ~bit);
}
