#include "core/regfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/msg.h"
#include "core/xalloc.h"

static void cannot_open(int e, char *why, size_t why_len)
{
    msg_set(why, why_len, "cannot open: %s", msg_errno(e).text);
}

int regfile_open(const char *path, uint64_t max_bytes, FILE **out, char *why, size_t why_len)
{
    struct stat st;
    int fd, flags, rc;

    *out = NULL;
    fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        rc = -errno;
        cannot_open(-rc, why, why_len);
        return rc;
    }
    if (fstat(fd, &st) != 0) {
        rc = -errno;
        cannot_open(-rc, why, why_len);
        goto out_close_fd;
    }
    if (!S_ISREG(st.st_mode)) {
        msg_set(why, why_len, "not a regular file");
        rc = -ENODEV;
        goto out_close_fd;
    }
    if (max_bytes && (uint64_t)st.st_size > max_bytes) {
        msg_set(why, why_len, "larger than %llu bytes", (unsigned long long)max_bytes);
        rc = -EFBIG;
        goto out_close_fd;
    }
    /* A regular file never blocks; clearing the flag keeps stdio's reads
     * plain for the file systems that would honour it. */
    flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    *out = fdopen(fd, "rb");
    if (!*out) {
        rc = -errno;
        cannot_open(-rc, why, why_len);
        goto out_close_fd;
    }
    return 0;
out_close_fd:
    close(fd);
    return rc;
}

char *regfile_dir(const char *path)
{
    const char *slash = strrchr(path, '/');

    if (!slash)
        return xstrdup(".");
    if (slash == path)
        return xstrdup("/");
    return xstrndup(path, (size_t)(slash - path));
}
