/*
 * files: GET /files/PATH serves the files of the directory named by
 * files_dir in the config, and an HTML index for directories, for
 * file-serving tests (13k, 80k, 133k files as in the nginx comparisons).
 * Paths with a ".." segment are refused; symbolic links are not followed
 * at the last component. Files up to FILES_MEMORY_MAX are read into
 * memory so faults can cut them; larger ones are sent from the fd.
 */
#include "target/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/msg.h"
#include "core/xalloc.h"

#define FILES_MEMORY_MAX (16u << 20)
#define FILES_INDEX_MAX 10000 /* entries listed in an index */

int target__files_open(struct target *t, const char *dir, char *err, size_t err_len)
{
    t->files_dir_fd = -1;
    if (!dir[0])
        return 0;
    t->files_dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (t->files_dir_fd < 0) {
        int e = errno;
        snprintf(err, err_len, "files_dir \"%.200s\": %s", dir, msg_errno(e).text);
        return -e;
    }
    return 0;
}

static int has_dotdot(const char *path)
{
    for (const char *p = path; (p = strstr(p, "..")) != NULL; p += 2)
        if ((p == path || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
            return 1;
    return 0;
}

static const char *type_of(const char *path)
{
    static const struct {
        const char *ext, *type;
    } types[] = {
        {".html", "text/html"}, {".txt", "text/plain"},     {".json", "application/json"},
        {".css", "text/css"},   {".js", "text/javascript"},
    };
    const char *dot = strrchr(path, '.');

    for (size_t i = 0; dot && i < sizeof(types) / sizeof(types[0]); i++)
        if (strcmp(dot, types[i].ext) == 0)
            return types[i].type;
    return "application/octet-stream";
}

struct listing {
    char *text;
    size_t len, cap;
};

static void add(struct listing *l, const char *s, size_t n)
{
    if (l->len + n + 1 > l->cap) {
        while (l->len + n + 1 > l->cap)
            l->cap = l->cap ? l->cap * 2 : 4096;
        l->text = xrealloc(l->text, l->cap);
    }
    memcpy(l->text + l->len, s, n);
    l->len += n;
    l->text[l->len] = '\0';
}

static void add_str(struct listing *l, const char *s)
{
    add(l, s, strlen(s));
}

static void add_escaped(struct listing *l, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': add_str(l, "&lt;"); break;
        case '>': add_str(l, "&gt;"); break;
        case '&': add_str(l, "&amp;"); break;
        case '"': add_str(l, "&quot;"); break;
        default: add(l, s, 1); break;
        }
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Fills rp with an HTML index of the directory fd (taken). */
static void index_reply(int fd, const char *path, struct reply *rp)
{
    DIR *d = fdopendir(fd);
    struct listing l = {0};
    char **names = xmalloc(FILES_INDEX_MAX * sizeof(*names));
    size_t n = 0;
    struct dirent *de;

    if (!d) {
        close(fd);
        free(names);
        target__reply_text(rp, 500, "cannot list the directory: %s\n", msg_errno(errno).text);
        return;
    }
    while ((de = readdir(d)) != NULL && n < FILES_INDEX_MAX)
        if (de->d_name[0] != '.')
            names[n++] = xstrdup(de->d_name);
    closedir(d);
    qsort(names, n, sizeof(names[0]), by_name);
    add_str(&l, "<!DOCTYPE html>\n<html><head><title>Index of /files");
    add_escaped(&l, path);
    add_str(&l, "</title></head><body><ul>\n");
    for (size_t i = 0; i < n; i++) {
        add_str(&l, "<li><a href=\"/files");
        add_escaped(&l, path);
        if (!*path || path[strlen(path) - 1] != '/')
            add_str(&l, "/");
        add_escaped(&l, names[i]);
        add_str(&l, "\">");
        add_escaped(&l, names[i]);
        add_str(&l, "</a></li>\n");
        free(names[i]);
    }
    free(names);
    add_str(&l, "</ul></body></html>\n");
    target__reply_free(rp);
    rp->status = 200;
    rp->content_type = "text/html";
    rp->owned = l.text;
    rp->body = l.text;
    rp->len = l.len;
}

/* Fills rp with the file fd (taken) of size bytes. */
static void file_reply(int fd, const char *path, uint64_t size, struct reply *rp)
{
    char *buf;
    size_t got = 0;

    target__reply_free(rp);
    rp->status = 200;
    rp->content_type = type_of(path);
    rp->len = size;
    if (size > FILES_MEMORY_MAX) {
        rp->fd = fd;
        return;
    }
    buf = xmalloc(size ? size : 1);
    while (got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    rp->owned = buf;
    rp->body = buf;
    rp->len = got;
}

void target__files_reply(struct target *t, const char *path, struct reply *rp)
{
    const char *rel = path;
    struct stat st;
    int fd;

    if (t->files_dir_fd < 0) {
        target__reply_text(rp, 404,
                           "no files here: start brink target with files_dir in its --config\n");
        return;
    }
    if (has_dotdot(path)) {
        target__reply_text(rp, 403, "paths with \"..\" are refused\n");
        return;
    }
    while (*rel == '/')
        rel++;
    fd = openat(t->files_dir_fd, *rel ? rel : ".", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        target__reply_text(rp, errno == ENOENT || errno == ENOTDIR ? 404 : 403, "%s\n",
                           msg_errno(errno).text);
        return;
    }
    if (fstat(fd, &st) != 0) {
        close(fd);
        target__reply_text(rp, 500, "%s\n", msg_errno(errno).text);
    } else if (S_ISDIR(st.st_mode)) {
        index_reply(fd, path, rp);
    } else if (S_ISREG(st.st_mode)) {
        file_reply(fd, path, (uint64_t)st.st_size, rp);
    } else {
        close(fd);
        target__reply_text(rp, 403, "not a regular file\n");
    }
}
