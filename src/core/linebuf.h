/*
 * linebuf: lines read from a file descriptor (a pipe) without blocking on
 * a partial line: fill when poll says it is readable, then take the whole
 * lines it holds. A line longer than the limit is dropped to its end and
 * reported once. One thread per linebuf.
 */
#ifndef BRINK_CORE_LINEBUF_H
#define BRINK_CORE_LINEBUF_H

#include <stddef.h>
#include <sys/types.h>

struct linebuf {
    char *buf;
    size_t len;        /* bytes held */
    size_t pos;        /* of them, taken already */
    size_t cap;        /* allocated */
    size_t max;        /* longest line accepted, newline excluded */
    int is_skipping;   /* dropping a line that was too long, up to its newline */
    int has_long_line; /* linebuf_next reports a dropped line once */
};

void linebuf_init(struct linebuf *lb, size_t max);
void linebuf_free(struct linebuf *lb);

/* One read(2) of fd into lb. Returns the bytes read, 0 at the end of the
 * input, or a negative errno (-EAGAIN, -EINTR: nothing happened). */
ssize_t linebuf_fill(struct linebuf *lb, int fd);

/* The next whole line, NUL-terminated without its newline, valid until the
 * next fill; *len its length. NULL when no whole line is held. When a line
 * longer than max was dropped, returns NULL once with *too_long set. */
char *linebuf_next(struct linebuf *lb, size_t *len, int *too_long);

/* The writing side: all of buf to fd (a blocking pipe or file), through
 * EINTR and short writes. 0, or a negative errno (-EIO when write(2) took
 * nothing). */
int fd_write_all(int fd, const void *buf, size_t len);

#endif
