/*
 * brink.ws over a stream connection: the upgrade (RFC 6455, 4.1: a GET
 * with a random key, a 101 whose Sec-WebSocket-Accept proves the server
 * read it) and the server's frames, put together into messages. The
 * script frames what it sends (src/script/stream.c); pongs and the close
 * frame are sent from here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/sha.h>

#include "core/base64.h"
#include "core/rng.h"
#include "core/xalloc.h"
#include "engine/stream/internal.h"

#define WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

/* Sends a control frame of op with payload p (n bytes, at most 125),
 * masked, behind what is being written. */
static void send_control(struct stream_conn *c, enum ws_opcode op, const unsigned char *p, size_t n)
{
    unsigned char frame[WS_HEAD_MAX + WS_CONTROL_MAX];

    stream__conn_send_copy(c, frame, ws_frame_write(frame, op, p, n, rng_next(&c->w->rng)));
}

void stream__ws_goodbye(struct stream_conn *c)
{
    static const unsigned char normal[2] = {0x03, 0xE8}; /* 1000: a normal closure */

    if (c->state == CONN_OPEN)
        send_control(c, WS_CLOSE, normal, sizeof(normal));
}

void stream__ws_upgrade(struct stream_conn *c)
{
    const struct script_conn_spec *sp = c->spec;
    unsigned char nonce[16];
    char *req;
    size_t cap = 512 + strlen(sp->host) + strlen(sp->path), n;
    int is_v6 = strchr(sp->host, ':') != NULL;

    for (int i = 0; i < 16; i += 8) {
        uint64_t r = rng_next(&c->w->rng);

        memcpy(nonce + i, &r, 8);
    }
    base64_encode(nonce, sizeof(nonce), c->key, 0);
    c->key[WS_KEY_LEN] = '\0';
    for (size_t i = 0; i < sp->n_headers; i++)
        cap += strlen(sp->headers[i]) + 2;
    req = xmalloc(cap);
    n = (size_t)snprintf(req, cap,
                         "GET %s HTTP/1.1\r\nHost: %s%s%s:%u\r\nUpgrade: websocket\r\n"
                         "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                         "Sec-WebSocket-Version: 13\r\n",
                         sp->path, is_v6 ? "[" : "", sp->host, is_v6 ? "]" : "", (unsigned)sp->port,
                         c->key);
    for (size_t i = 0; i < sp->n_headers; i++)
        n += (size_t)snprintf(req + n, cap - n, "%s\r\n", sp->headers[i]);
    n += (size_t)snprintf(req + n, cap - n, "\r\n");
    c->state = CONN_UPGRADING;
    stream__conn_send_copy(c, req, n);
    free(req);
}

/* The value of header name in the head at p (len bytes), blanks trimmed:
 * its start, and its length in *n; NULL when absent. */
static const char *header(const char *p, size_t len, const char *name, size_t *n)
{
    const char *end = p + len, *line = memchr(p, '\n', len);
    size_t name_len = strlen(name);

    while (line && line + 1 < end) {
        const char *eol, *v;

        line++;
        eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol)
            break;
        if ((size_t)(eol - line) > name_len && strncasecmp(line, name, name_len) == 0 &&
            line[name_len] == ':') {
            v = line + name_len + 1;
            while (v < eol && (*v == ' ' || *v == '\t'))
                v++;
            *n = (size_t)(eol - v);
            while (*n && (v[*n - 1] == '\r' || v[*n - 1] == ' ' || v[*n - 1] == '\t'))
                (*n)--;
            return v;
        }
        line = eol;
    }
    return NULL;
}

int stream__ws_upgraded(struct stream_conn *c)
{
    const char *end = stream__find(c->in, c->in_len, "\r\n\r\n", 4);
    char accept[WS_ACCEPT_LEN + 1], keyed[WS_KEY_LEN + sizeof(WS_GUID)];
    unsigned char digest[SHA_DIGEST_LENGTH];
    const char *v;
    size_t head, n;
    int minor;
    long status;

    if (!end) {
        if (c->in_len < STREAM_HEAD_MAX)
            return 0;
        c->outcome = TRANSFER_MALFORMED;
        snprintf(c->words, sizeof(c->words), "upgrade: a reply head over %u bytes",
                 STREAM_HEAD_MAX);
        return -1;
    }
    head = (size_t)(end - c->in) + 4;
    if (sscanf(c->in, "HTTP/1.%d %3ld", &minor, &status) != 2 || status < 100 || status > 599) {
        c->outcome = TRANSFER_MALFORMED;
        snprintf(c->words, sizeof(c->words), "upgrade: the reply is not HTTP");
        return -1;
    }
    if (status != 101) {
        /* An error status classifies as HTTP's; anything else is no
         * WebSocket server. */
        c->outcome = status >= 400 ? TRANSFER_OK : TRANSFER_MALFORMED;
        c->status = status >= 400 ? status : 0;
        snprintf(c->words, sizeof(c->words), "upgrade refused: HTTP %ld", status);
        return -1;
    }
    snprintf(keyed, sizeof(keyed), "%s%s", c->key, WS_GUID);
    SHA1((const unsigned char *)keyed, strlen(keyed), digest);
    base64_encode(digest, sizeof(digest), accept, 0);
    accept[WS_ACCEPT_LEN] = '\0';
    v = header(c->in, head, "Sec-WebSocket-Accept", &n);
    if (!v || n != WS_ACCEPT_LEN || memcmp(v, accept, n) != 0) {
        c->outcome = TRANSFER_MALFORMED;
        snprintf(c->words, sizeof(c->words),
                 "upgrade: 101 without the Sec-WebSocket-Accept the key asks for");
        return -1;
    }
    stream__conn_take(c, head);
    c->state = CONN_OPEN;
    return 1;
}

int stream__ws_take(struct stream_conn *c, struct scene_req *q, size_t max)
{
    struct ws_frame f;
    const char *why = NULL;
    int rc;

    /* Each pass takes one whole frame: the loop ends when the bytes do. */
    for (;;) {
        const unsigned char *p = (const unsigned char *)c->in;

        rc = ws_head_read(p, c->in_len, &f, &why);
        if (rc < 0) {
            c->outcome = TRANSFER_MALFORMED;
            snprintf(c->words, sizeof(c->words), "%s", why);
            return -1;
        }
        if (rc == 0)
            return 0;
        if (f.op < WS_CLOSE && q->cap.body.len + f.len > max) {
            c->outcome = TRANSFER_MALFORMED;
            snprintf(c->words, sizeof(c->words), "a message over max (%zu bytes)", max);
            return -1;
        }
        if (c->in_len - f.head < f.len)
            return 0;
        p += f.head;
        switch (f.op) {
        case WS_PING: send_control(c, WS_PONG, p, (size_t)f.len); break;
        case WS_PONG:
            if (c->in_message)
                break; /* between a message's frames: not the reply awaited */
            capture_add(&q->cap.body, (const char *)p, (size_t)f.len);
            q->reply_type = "pong";
            stream__conn_take(c, f.head + (size_t)f.len);
            return 1;
        case WS_CLOSE:
            c->outcome = c->in_message ? TRANSFER_CLOSED_PARTIAL : TRANSFER_CLOSED_EMPTY;
            snprintf(c->words, sizeof(c->words), "the server sent a close frame (code %u)",
                     f.len >= 2 ? (unsigned)(p[0] << 8 | p[1]) : 1005u);
            return -1;
        case WS_TEXT:
        case WS_BINARY:
            if (c->in_message) {
                c->outcome = TRANSFER_MALFORMED;
                snprintf(c->words, sizeof(c->words), "a new message inside a fragmented one");
                return -1;
            }
            c->in_message = 1;
            c->message_op = f.op;
            /* fall through */
        case WS_CONTINUATION:
            if (!c->in_message) {
                c->outcome = TRANSFER_MALFORMED;
                snprintf(c->words, sizeof(c->words), "a continuation frame with no message");
                return -1;
            }
            capture_add(&q->cap.body, (const char *)p, (size_t)f.len);
            if (f.is_fin) {
                c->in_message = 0;
                q->reply_type = c->message_op == WS_BINARY ? "binary" : "text";
                stream__conn_take(c, f.head + (size_t)f.len);
                return 1;
            }
            break;
        }
        stream__conn_take(c, f.head + (size_t)f.len);
    }
}
