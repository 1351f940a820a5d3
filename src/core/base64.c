#include "core/base64.h"

#include <stdint.h>

#include "core/xalloc.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *base64_encode(const unsigned char *in, size_t len)
{
    char *out = xmalloc((len + 2) / 3 * 4 + 1);
    char *o = out;

    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;

        if (i + 1 < len)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < len)
            v |= in[i + 2];
        *o++ = b64[v >> 18];
        *o++ = b64[(v >> 12) & 63];
        *o++ = i + 1 < len ? b64[(v >> 6) & 63] : '=';
        *o++ = i + 2 < len ? b64[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

/* The inverse of b64[] (a search of it is a tenth of a report's time). */
static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

long base64_decode(const char *in, size_t len, unsigned char *out)
{
    size_t o = 0;

    if (len % 4 != 0)
        return -1;
    for (size_t i = 0; i < len; i += 4) {
        int pad = (in[i + 3] == '=') + (in[i + 2] == '=' && in[i + 3] == '=');
        int v[4];
        uint32_t x;

        if (pad > 0 && i + 4 != len)
            return -1;
        for (int j = 0; j < 4 - pad; j++) {
            v[j] = b64_value(in[i + j]);
            if (v[j] < 0)
                return -1;
        }
        for (int j = 4 - pad; j < 4; j++)
            v[j] = 0;
        x = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        out[o++] = (unsigned char)(x >> 16);
        if (pad < 2)
            out[o++] = (unsigned char)(x >> 8);
        if (pad < 1)
            out[o++] = (unsigned char)x;
    }
    return (long)o;
}
