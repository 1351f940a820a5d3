/* New session file names: sessions/2026-11-30T19-40-00Z-HOST-PID.jsonl. */
#include "record/record.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/msg.h"
#include "record/internal.h"

#define HOST_MAX 32

/* Keeps a host name to [A-Za-z0-9.-]: it goes into a file name. */
static void clean_host(char *dst, const char *host)
{
    size_t n = 0;

    for (const char *p = host ? host : ""; *p && n < HOST_MAX; p++) {
        char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '-';

        dst[n++] = ok ? c : '_';
    }
    if (n == 0) {
        memcpy(dst, "host", 5);
        return;
    }
    dst[n] = '\0';
}

int record_session_name(uint64_t wall_ms, const char *host, long pid, char *buf, size_t buf_len)
{
    char name[HOST_MAX + 1], stamp[32];
    time_t secs = (time_t)(wall_ms / 1000);
    struct tm tm;
    int n;

    clean_host(name, host);
    if (!gmtime_r(&secs, &tm) || strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H-%M-%SZ", &tm) == 0)
        stamp[0] = '\0';
    n = snprintf(buf, buf_len, "%s-%s-%ld", stamp, name, pid);
    return n < 0 || (size_t)n >= buf_len ? -ENAMETOOLONG : 0;
}

int record_session_path(const char *dir, uint64_t wall_ms, const char *host, long pid, char *buf,
                        size_t buf_len, char *err, size_t err_len)
{
    char name[HOST_MAX + 128];
    int n;

    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        int e = errno;

        msg_set(err, err_len, "brink: %s: cannot create the sessions directory: %s", dir,
                msg_errno(e).text);
        return -e;
    }
    record_session_name(wall_ms, host, pid, name, sizeof(name));
    n = snprintf(buf, buf_len, "%s/%s.jsonl", dir, name);
    if (n < 0 || (size_t)n >= buf_len) {
        msg_set(err, err_len, "brink: %s: session file name too long", dir);
        return -ENAMETOOLONG;
    }
    return 0;
}
