/*
 * How a curl transfer ended, in brink's terms: libcurl's code, errno and
 * error words, the connection it went on and when it sent, made into one
 * transfer_result (code.c maps the codes); the sends again libcurl makes
 * on its own, let through only where brink's rules allow them (docs/config.md,
 * "Requests sent again"), a send again being reset and added here; the
 * phases; and the slot's engine__slot_done. Below transfer.c, above uv.c.
 * Worker thread only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config.h"
#include "core/msg.h"
#include "engine/transport.h"
#include "engine/curl/internal.h"

/* Whether the transfer went over TLS; asked only where it matters. */
static int is_tls(struct curl_slot *cs, CURLcode code)
{
    const char *scheme = NULL;

    if (code != CURLE_RECV_ERROR)
        return 0;
    curl_easy_getinfo(cs->easy, CURLINFO_SCHEME, &scheme);
    return scheme && strcasecmp(scheme, "https") == 0;
}

long engine__curl_large_buffer_for(uint32_t index)
{
    return index < 64 ? 512L * 1024 : 64L * 1024;
}

/* A connect that failed for a reason set_route made: libcurl's words name
 * neither the unix socket nor the family that ip left out. */
void engine__curl_route_failed(const struct config_target *t, CURLcode code,
                               struct transfer_result *r, char *words, size_t cap)
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

/* Clears what the last transfer of s left, for the next one (or a retry). */
void engine__curl_reset_transfer(struct curl_slot *cs)
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

static void gather(struct transport_slot *s, CURLcode code, struct transfer_result *r,
                   uint64_t *bytes_in, uint64_t *bytes_out, char *words, size_t words_cap)
{
    struct curl_slot *cs = curl_slot_of(s);
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
        engine__worker_http_version(s->w, engine__curl_tls_http_version(cs->easy));
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
        engine__curl_route_failed(&s->w->config->target, code, r, words, words_cap);
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
static enum resend_cause resend_cause(struct transport_slot *s, long os_errno)
{
    struct curl_slot *cs = curl_slot_of(s);
    int version = engine__curl_uv_port_version(s->w, cs->send_port);

    if (os_errno != 0)
        return RESEND_CLOSED_IDLE;
    if (!cs->is_send_reused)
        return RESEND_REFUSED_STREAM;
    if (version == 0)
        version = curl_worker_of(s->w)->last_version;
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
static int may_resend(struct transport_slot *s, long os_errno)
{
    struct curl_slot *cs = curl_slot_of(s);
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
static void note_send(struct transport_slot *s, long local_port)
{
    struct curl_slot *cs = curl_slot_of(s);
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
    struct transport_slot *s = clientp;
    struct curl_slot *cs = curl_slot_of(s);
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
static int is_spent_resend(struct transport_slot *s, CURLcode code)
{
    struct curl_slot *cs = curl_slot_of(s);
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
static int is_dead_reuse(struct transport_slot *s, CURLcode code)
{
    struct curl_slot *cs = curl_slot_of(s);
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
static int is_goaway_refused(struct transport_slot *s, CURLcode code)
{
    struct curl_slot *cs = curl_slot_of(s);

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
static void record_phases(struct transport_slot *s)
{
    CURL *e = curl_slot_of(s)->easy;
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

void engine__curl_slot_done(struct transport_slot *s, CURLcode code)
{
    struct curl_slot *cs = curl_slot_of(s);
    struct transfer_result r = {0};
    uint64_t in = 0, out = 0;
    char words[CURL_WORDS_MAX];

    if (is_spent_resend(s, code) || is_dead_reuse(s, code) || is_goaway_refused(s, code)) {
        cs->is_retried = 1;
        engine__curl_reset_transfer(cs);
        /* Another cached connection may be as dead: this attempt gets a
         * fresh one (engine__curl_uv_add sees is_retried). */
        engine__curl_add(s);
        return;
    }
    gather(s, code, &r, &in, &out, words, sizeof(words));
    if (cs->is_held)
        held_result(cs, &r, words, sizeof(words));
    record_phases(s);
    if (cs->body_bytes > BUFFER_LARGE_BODY && cs->buffer_size == BUFFER_DEFAULT) {
        cs->buffer_size = engine__curl_large_buffer_for(s->index);
        curl_easy_setopt(cs->easy, CURLOPT_BUFFERSIZE, cs->buffer_size);
    }
    engine__slot_done(s, &r, in, out, words);
}
