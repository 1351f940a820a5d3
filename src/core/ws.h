/*
 * ws: the frames of the WebSocket protocol (RFC 6455, 5.2), apart from
 * sockets: a client's frame head (always masked) and masking, and the
 * head of a frame a server sent, read. Pure; any thread.
 */
#ifndef BRINK_CORE_WS_H
#define BRINK_CORE_WS_H

#include <stddef.h>
#include <stdint.h>

enum ws_opcode {
    WS_CONTINUATION = 0x0,
    WS_TEXT = 0x1,
    WS_BINARY = 0x2,
    WS_CLOSE = 0x8,
    WS_PING = 0x9,
    WS_PONG = 0xA,
};

#define WS_HEAD_MAX 14     /* bytes of a frame's head, a mask key included */
#define WS_CONTROL_MAX 125 /* bytes of a control frame's payload */
#define WS_KEY_LEN 24      /* a Sec-WebSocket-Key: 16 bytes in base64 */
#define WS_ACCEPT_LEN 28   /* a Sec-WebSocket-Accept: 20 bytes in base64 */

/* The head of a client's frame of opcode op carrying len bytes, masked
 * with mask, into out (WS_HEAD_MAX bytes): returns its length. */
size_t ws_head_write(unsigned char *out, enum ws_opcode op, int is_fin, uint64_t len,
                     const unsigned char mask[4]);
/* Masks (or unmasks) n bytes at p, the bytes from offset on of a payload. */
void ws_mask(unsigned char *p, size_t n, const unsigned char mask[4], uint64_t offset);
/* A client's whole (final) frame of opcode op carrying the n bytes at p,
 * masked with the low 4 bytes of key (a random number), into out
 * (WS_HEAD_MAX + n bytes): returns its length. */
size_t ws_frame_write(unsigned char *out, enum ws_opcode op, const void *p, size_t n, uint64_t key);

/* A frame's head, as read. */
struct ws_frame {
    enum ws_opcode op;
    int is_fin;
    uint64_t len; /* of the payload */
    size_t head;  /* bytes of the head */
};

/* Reads the head of a server's frame at p (n bytes there): 1 and *f when
 * it is whole, 0 when more bytes are needed, -1 with why (a static
 * string) when it breaks the protocol: reserved bits, an unknown opcode,
 * a mask (servers never mask), a control frame fragmented or over 125
 * bytes, a length with its top bit set. */
int ws_head_read(const unsigned char *p, size_t n, struct ws_frame *f, const char **why);

#endif
