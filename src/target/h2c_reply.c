/*
 * h2c_reply: an HTTP/2 stream's answer, and the faults in HTTP/2 terms
 * (docs/target.md has the table). The body goes through nghttp2's data
 * provider, read from the reply as nghttp2 asks for it; a fault shapes
 * what the provider gives (half and a RST_STREAM, nothing, a byte at a
 * time) or the header block (a status that is not three digits, a header
 * of huge_header_bytes, control bytes in a value: nghttp2 sends header
 * values as they are, the client's checks them).
 * Runs on the h2c thread.
 */
#include "target/h2c.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/xalloc.h"

#define NV_MAX (6 + REPLY_MAX_HEADERS)

void h2c__reset(struct h2c_conn *c, struct h2c_stream *s, uint32_t code)
{
    s->is_self = 1;
    h2c__timer_cancel(c->h, s);
    nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, s->id, code);
}

/* Copies n bytes of the body from off into buf; -1 when a file fails. */
static ssize_t body_bytes(const struct reply *rp, uint64_t off, uint8_t *buf, size_t n)
{
    if (rp->fd >= 0)
        return pread(rp->fd, buf, n, (off_t)off);
    if (rp->generated)
        target__content_pattern((char *)buf, off, n);
    else
        memcpy(buf, rp->body + off, n);
    return (ssize_t)n;
}

static ssize_t provide(nghttp2_session *session, int32_t id, uint8_t *buf, size_t length,
                       uint32_t *flags, nghttp2_data_source *source, void *user_data)
{
    struct h2c_stream *s = source->ptr;
    uint64_t end = s->len;
    ssize_t n;

    (void)session;
    (void)id;
    (void)user_data;
    if (s->body == H2C_BODY_STALL || (s->body == H2C_BODY_DRIP && !s->is_drip_due))
        return NGHTTP2_ERR_DEFERRED;
    if (s->body == H2C_BODY_CUT)
        end = s->stop;
    if (s->body == H2C_BODY_DRIP && s->off < end)
        end = s->off + 1;
    if (s->off == end && s->body == H2C_BODY_CUT)
        return NGHTTP2_ERR_DEFERRED; /* the RST_STREAM follows (on_frame_send) */
    if (length > end - s->off)
        length = (size_t)(end - s->off);
    n = length ? body_bytes(&s->r->reply, s->off, buf, length) : 0;
    if (n < 0)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* resets the stream */
    s->off += (uint64_t)n;
    atomic_fetch_add_explicit(&s->c->h->t->stats.bytes_sent, (unsigned long long)n,
                              memory_order_relaxed);
    if (s->off == s->len)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    if (s->body == H2C_BODY_DRIP)
        s->is_drip_due = 0;
    return n;
}

static void nv_set(nghttp2_nv *nv, const char *name, const char *value, size_t value_len)
{
    nv->name = (uint8_t *)name;
    nv->namelen = strlen(name);
    nv->value = (uint8_t *)value;
    nv->valuelen = value_len;
    nv->flags = NGHTTP2_NV_FLAG_NONE; /* nghttp2 copies both */
}

/* The reply's header fields, names in lower case as HTTP/2 wants them.
 * names holds the lowered names (REPLY_MAX_HEADERS of 32 bytes). */
struct head {
    nghttp2_nv nv[NV_MAX];
    size_t n;
    char status[16], length[24];
    char names[REPLY_MAX_HEADERS][32];
};

static void head_build(struct head *hd, const struct reply *rp, const char *status, uint64_t len)
{
    hd->n = 0;
    snprintf(hd->status, sizeof(hd->status), "%s", status);
    nv_set(&hd->nv[hd->n++], ":status", hd->status, strlen(hd->status));
    nv_set(&hd->nv[hd->n++], "content-type", rp->content_type, strlen(rp->content_type));
    snprintf(hd->length, sizeof(hd->length), "%llu", (unsigned long long)len);
    nv_set(&hd->nv[hd->n++], "content-length", hd->length, strlen(hd->length));
    for (unsigned i = 0; i < rp->n_hdr; i++) {
        size_t k;
        for (k = 0; rp->hdr[i].name[k] && k + 1 < sizeof(hd->names[i]); k++)
            hd->names[i][k] = (char)tolower((unsigned char)rp->hdr[i].name[k]);
        hd->names[i][k] = '\0';
        nv_set(&hd->nv[hd->n++], hd->names[i], rp->hdr[i].value, strlen(rp->hdr[i].value));
    }
}

static void submit(struct h2c_conn *c, struct h2c_stream *s, struct head *hd, int has_body)
{
    nghttp2_data_provider prd = {.source.ptr = s, .read_callback = provide};

    if (nghttp2_submit_response(c->session, s->id, hd->nv, hd->n, has_body ? &prd : NULL) != 0)
        h2c__reset(c, s, NGHTTP2_INTERNAL_ERROR);
}

/* huge_header's fields: x-brink-huge repeated, H2C_HUGE_FIELD_BYTES each. */
#define H2C_HUGE_FIELD_BYTES 16384

/* huge_header: huge_header_bytes of header fields, in fields small enough
 * for any HPACK decoder (a single field over 64 KiB would end the whole
 * connection with COMPRESSION_ERROR), so the client's cap on the whole
 * block is what refuses it. */
static void send_huge_head(struct h2c_conn *c, struct h2c_stream *s, const struct settings *st)
{
    size_t n_fields = (st->huge_header_bytes + H2C_HUGE_FIELD_BYTES - 1) / H2C_HUGE_FIELD_BYTES;
    size_t left = st->huge_header_bytes;
    nghttp2_nv *nv = xcalloc(NV_MAX + n_fields, sizeof(*nv));
    char *field = xmalloc(H2C_HUGE_FIELD_BYTES);
    struct head hd;

    head_build(&hd, &s->r->reply, "200", 0);
    memcpy(nv, hd.nv, hd.n * sizeof(*nv));
    memset(field, 'h', H2C_HUGE_FIELD_BYTES);
    for (size_t i = 0; i < n_fields; i++) {
        size_t k = left < H2C_HUGE_FIELD_BYTES ? left : H2C_HUGE_FIELD_BYTES;
        nv_set(&nv[hd.n + i], "x-brink-huge", field, k);
        left -= k;
    }
    atomic_fetch_add(&c->h->t->stats.huge_headers_sent, 1);
    if (nghttp2_submit_response(c->session, s->id, nv, hd.n + n_fields, NULL) != 0)
        h2c__reset(c, s, NGHTTP2_INTERNAL_ERROR);
    free(field); /* nghttp2 has its copy */
    free(nv);
}

/* malformed_status and huge_header: a header block the client must refuse. */
static void send_bad_head(struct h2c_conn *c, struct h2c_stream *s, const struct settings *st)
{
    struct head hd;

    if (s->r->fault == FAULT_HUGE_HEADER) {
        send_huge_head(c, s, st);
        return;
    }
    /* Not three digits (RFC 9113, 8.3.2): nghttp2 sends it as it is. */
    head_build(&hd, &s->r->reply, "2x0", 0);
    atomic_fetch_add(&c->h->t->stats.malformed_sent, 1);
    submit(c, s, &hd, 0);
}

/* stall and drip: the header block, then nothing, or a byte at a time. */
static void send_slow(struct h2c_conn *c, struct h2c_stream *s, const struct settings *st)
{
    struct target *t = c->h->t;
    struct reply *rp = &s->r->reply;
    struct head hd;
    char status[8];

    snprintf(status, sizeof(status), "%u", rp->status);
    if (s->r->fault == FAULT_STALL) {
        s->body = H2C_BODY_STALL;
        s->len = rp->len;
        head_build(&hd, rp, status, s->len);
        atomic_fetch_add(&t->stats.stalled, 1);
        s->timer = H2C_T_STALL_END;
        h2c__timer_set(c->h, s, (uint64_t)st->stall_ms * 1000);
    } else {
        s->body = H2C_BODY_DRIP;
        s->len = rp->len > st->drip_bytes ? st->drip_bytes : rp->len;
        s->is_drip_due = 1;
        head_build(&hd, rp, status, s->len);
        atomic_fetch_add(&t->stats.dripped, 1);
    }
    submit(c, s, &hd, s->len > 0 || s->body == H2C_BODY_STALL);
}

void h2c__answer(struct h2c_conn *c, struct h2c_stream *s)
{
    struct target *t = c->h->t;
    struct req *r = s->r;
    struct reply *rp = &r->reply;
    struct settings st;
    struct req_in in;
    struct head hd;
    char status[8];

    h2c__req_in(s, &in);
    target__serve_answer(t, &in, r);
    target__settings_get(t, &st);
    if (rp->fd < 0 && (r->fault == FAULT_MALFORMED_STATUS || r->fault == FAULT_HUGE_HEADER)) {
        send_bad_head(c, s, &st);
        return;
    }
    if (rp->fd < 0 && (r->fault == FAULT_STALL || r->fault == FAULT_DRIP)) {
        send_slow(c, s, &st);
        return;
    }
    s->len = r->is_head ? 0 : rp->len;
    s->body = H2C_BODY_WHOLE;
    /* A cut needs a body to cut: an empty one voids the fault, and a
     * file is sent whole, as over HTTP/1.1. */
    if (r->fault == FAULT_CLOSE_MID_BODY && s->len > 0 && rp->fd < 0) {
        s->body = H2C_BODY_CUT;
        s->stop = s->len / 2;
    }
    snprintf(status, sizeof(status), "%u", rp->status);
    head_build(&hd, rp, status, rp->len);
    if (r->fault == FAULT_HOSTILE_HEADER) {
        nv_set(&hd.nv[hd.n++], "x-brink-note", faults_hostile_header,
               strlen(faults_hostile_header));
        atomic_fetch_add(&t->stats.hostile_sent, 1);
    }
    target__serve_count_status(t, rp->status);
    submit(c, s, &hd, s->len > 0);
}

void h2c__timer_fire(struct h2c_conn *c, struct h2c_stream *s)
{
    switch (s->timer) {
    case H2C_T_ADMIT:
        if (s->r->phase == PH_BACKPRESSURE)
            h2c__admit(c, s);
        else
            h2c__answer(c, s);
        break;
    case H2C_T_STALL_END:
        /* As over HTTP/1.1, where the connection closes: the stream ends
         * without its body, and without an error code. */
        h2c__reset(c, s, NGHTTP2_NO_ERROR);
        break;
    case H2C_T_DRIP:
        s->is_drip_due = 1;
        nghttp2_session_resume_data(c->session, s->id);
        break;
    }
}

/* close_after_reply: a GOAWAY after the first reply; streams the client
 * opened after it are counted in requests_after_close (h2c.c). */
static void goaway(struct h2c_conn *c)
{
    if (c->is_goaway || !atomic_load_explicit(&c->h->t->close_after_reply, memory_order_relaxed))
        return;
    c->is_goaway = 1;
    c->goaway_last_id = c->max_stream_id;
    nghttp2_submit_goaway(c->session, NGHTTP2_FLAG_NONE, c->goaway_last_id, NGHTTP2_NO_ERROR, NULL,
                          0);
    atomic_fetch_add(&c->h->t->stats.closed_after_reply, 1);
}

int h2c__on_frame_send(nghttp2_session *session, const nghttp2_frame *frame, void *user_data)
{
    struct h2c_conn *c = user_data;
    struct h2c_stream *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);

    if (!s || (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA))
        return 0;
    if (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) {
        s->is_complete = 1;
        goaway(c);
        return 0;
    }
    if (frame->hd.type != NGHTTP2_DATA)
        return 0;
    if (s->body == H2C_BODY_CUT && s->off >= s->stop && !s->is_self) {
        /* Half the body is out: the stream ends there, with no error
         * code, as a connection closing mid-body does over HTTP/1.1. */
        atomic_fetch_add(&c->h->t->stats.closed_early, 1);
        h2c__reset(c, s, NGHTTP2_NO_ERROR);
    } else if (s->body == H2C_BODY_DRIP && s->off < s->len) {
        struct settings st;
        target__settings_get(c->h->t, &st);
        s->timer = H2C_T_DRIP;
        h2c__timer_set(c->h, s, (uint64_t)st.drip_interval_ms * 1000);
    }
    return 0;
}

int h2c__on_frame_not_send(nghttp2_session *session, const nghttp2_frame *frame, int code,
                           void *user_data)
{
    struct h2c_conn *c = user_data;
    struct h2c_stream *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);

    (void)code;
    /* A header block nghttp2 would not send (larger than it may): the
     * stream ends, by our doing. */
    if (s && frame->hd.type == NGHTTP2_HEADERS)
        h2c__reset(c, s, NGHTTP2_INTERNAL_ERROR);
    return 0;
}
