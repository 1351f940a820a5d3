/*
 * record: session files, the JSON Lines recording of a run (format in
 * docs/session-format.md): a writer, a recorder thread that feeds it without
 * ever blocking the caller on I/O, and a streaming reader. No curses, no
 * libuv, no network. Strings are stored raw (JSON-escaped, ASCII on disk):
 * sanitize what the reader returns before display.
 */
#ifndef BRINK_RECORD_RECORD_H
#define BRINK_RECORD_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/tick.h"

#define RECORD_FORMAT_NAME "brink-session"
#define RECORD_FORMAT_VERSION 2       /* major: what the writer writes */
#define RECORD_FORMAT_OLDEST 1        /* the oldest major the reader still reads */
#define RECORD_FORMAT_MINOR 1         /* minor: additions old readers ignore */
#define RECORD_URLS_MAX 64            /* URLs a header keeps (a run's request kinds) */
#define RECORD_LINE_MAX (1024 * 1024) /* longest line, newline excluded */
#define RECORD_HIST_PRECISION 0.01    /* stored histogram values are within 1% */
#define RECORD_REASON_MAX 256         /* reason texts, with their NUL */
/* Stored phase histograms (where the time goes, not p99.9) are coarser:
 * their values are within 1/32. */
#define RECORD_PHASE_PRECISION 0.03125

/* What the header records. Every string is the caller's and is written as
 * given: the writer adds nothing from the environment. */
struct record_header_info {
    const char *brink_version; /* brink's version; NULL writes BRINK_VERSION */
    uint64_t start_wall_ms;    /* wall clock at the start, ms since the epoch */
    const char *host;          /* host name; NULL writes "" */
    const char *config_text;   /* effective config as INI, secrets redacted; NULL: none */
    const char *command_line;  /* the command as a shell line, secrets redacted; NULL: none */
    const char *const *urls;   /* each request kind's URL, secrets redacted (minor 1) */
    size_t n_urls;             /* at most RECORD_URLS_MAX are written */
};

/* What the trailer records. */
struct record_trailer_info {
    int is_complete;        /* the run ended as planned and every tick was recorded */
    const char *reason;     /* why it ended ("done", "interrupted"...); NULL writes "" */
    uint64_t end_wall_ms;   /* wall clock at the end, ms since the epoch */
    uint64_t ticks_dropped; /* ticks that never reached the writer (recorder queue full) */
};

/* ------------------------------------------------------------------ writer
 * One thread at a time per writer (the recorder's thread, or the caller's).
 * Each tick is one line written with write(2) straight to the file, so a
 * crash or SIGKILL loses at most the tick being written; there is no fdatasync
 * per tick (it would stall on a busy disk for no gain against a process
 * crash), only at close. SIGXFSZ must be ignored or blocked in the writing
 * thread so that a file size limit arrives as EFBIG (the recorder
 * thread blocks every signal). */
struct record_writer;

/*
 * Creates the session file path (mode 0600, O_EXCL|O_NOFOLLOW: an existing
 * file is never opened for writing, a symlink is never followed) and writes
 * the header. An existing character device or FIFO (/dev/null, a pipe to jq)
 * is accepted: writing to it overwrites nothing. Returns 0 with *out set,
 * or a negative errno with *out NULL and a sentence naming path in err
 * (-EEXIST when the file exists). When the header cannot be written (disk
 * full) the writer is still returned, stopped: see record_writer_error.
 */
int record_open(const char *path, const struct record_header_info *info, char *err, size_t err_len,
                struct record_writer **out);

/*
 * Appends t as one line. Returns 0; -E2BIG when the line would exceed
 * RECORD_LINE_MAX (that tick is skipped and counted, the writer goes on); or,
 * once a write has failed (ENOSPC, EIO, EFBIG...), the error of that write:
 * the file is cut back to its last complete line, the writer stops, and this
 * and every later call only count the tick as not recorded.
 */
int record_write_tick(struct record_writer *w, const struct tick *t);

/* 0 while writing, or the negative errno that stopped the writer; reason
 * ("recording stopped: PATH: write: No space left on device") then holds a
 * sentence for the console. reason may be NULL. */
int record_writer_error(const struct record_writer *w, char *reason, size_t reason_len);
/* Ticks written, and ticks not recorded (after a stop, or too big). */
uint64_t record_writer_ticks(const struct record_writer *w);
uint64_t record_writer_not_recorded(const struct record_writer *w);

/*
 * Writes the trailer (unless the writer stopped), syncs and closes, and frees
 * w. trailer may be NULL (the trailer then says complete:false, reason
 * "closed"). Returns 0 or the writer's error (the first one met, sticky or
 * from the trailer, fdatasync or close). record_close(NULL, ...) returns 0.
 */
int record_close(struct record_writer *w, const struct record_trailer_info *trailer);

/* A new session's name, 2026-11-30T19-40-00Z-HOST-PID, from wall_ms (UTC),
 * host (its first 32 bytes, other than [A-Za-z0-9.-] made _) and pid: the
 * file name of record_session_path without its folder and ".jsonl", and the
 * run label of --metrics-listen. Returns 0, or -ENAMETOOLONG when buf is
 * too small (cut). */
int record_session_name(uint64_t wall_ms, const char *host, long pid, char *buf, size_t buf_len);

/*
 * Builds a new session file name in dir, creating dir (mode 0700) when it is
 * missing: DIR/NAME.jsonl, NAME as record_session_name makes it. Returns 0,
 * -ENAMETOOLONG when buf is too small, or the negative errno of mkdir with a
 * sentence in err.
 */
int record_session_path(const char *dir, uint64_t wall_ms, const char *host, long pid, char *buf,
                        size_t buf_len, char *err, size_t err_len);

/* --------------------------------------------------------------- recorder
 * A thread that owns a writer and a bounded queue of ticks. Push from one
 * producer thread; status from any thread; start and stop from the owner. */
struct record_recorder;

/* What a recorder did, for the console and the exit status. */
struct record_result {
    uint64_t ticks_written;         /* lines written */
    uint64_t ticks_dropped;         /* pushes refused because the queue was full */
    uint64_t ticks_not_recorded;    /* ticks the writer could not write */
    int error;                      /* 0, or the negative errno that stopped the writer */
    char reason[RECORD_REASON_MAX]; /* "" or "recording stopped: ..." */
};

/* Starts the thread with a queue of queue_len ticks (at least 1). Takes w
 * on success (record_recorder_stop closes it); returns 0, or a negative errno
 * from pthread_create, w then staying the caller's. */
int record_recorder_start(struct record_writer *w, size_t queue_len, struct record_recorder **out);
/* Queues a copy of t (one allocation of offsetof(data) + data_len; aborts on
 * exhaustion like xmalloc). Never waits for I/O: only for a lock that the
 * writing thread holds while it moves a pointer. Returns 0, or -EAGAIN when
 * the queue is full or the recorder is stopping (the tick is counted as
 * dropped). t stays the caller's. Any thread. */
int record_recorder_push(struct record_recorder *rec, const struct tick *t);
/* A snapshot of the counts so far. */
void record_recorder_status(struct record_recorder *rec, struct record_result *out);
/* Drains the queue, writes the trailer (queue drops are added to its
 * ticks_dropped, and complete is false unless every tick was recorded),
 * closes the writer, joins the thread, frees rec and fills out (may be
 * NULL). Returns out->error. record_recorder_stop(NULL, ...) returns 0. */
int record_recorder_stop(struct record_recorder *rec, const struct record_trailer_info *trailer,
                         struct record_result *out);

/* ----------------------------------------------------------------- reader
 * One thread per reader. The reader never trusts the file: lines are capped
 * at RECORD_LINE_MAX, numbers and names are checked, bad lines are skipped with
 * a notice naming their line. */
struct record_reader;

/* A notice about the file: line is its 1-based line (0: the file as a whole),
 * msg one sentence ("line 7: skipped: ..." ). Called during record_read_next. */
typedef void record_notice_fn(void *arg, uint64_t line, const char *msg);

struct record_header {
    int version; /* RECORD_FORMAT_VERSION */
    int minor;
    char brink[32]; /* version of the brink that wrote it */
    uint64_t start_wall_ms;
    char host[256];
    const char *config_text;  /* "" when none; owned by the reader */
    double hist_precision;    /* relative precision of stored histograms */
    const char *command_line; /* NULL when not recorded (before minor 1); owned by the reader */
    const char *const *urls;  /* the run's URLs (n_urls, 0 before minor 1); owned by the reader */
    size_t n_urls;
};

struct record_trailer {
    uint64_t ticks;
    int is_complete;
    char reason[TICK_TEXT_MAX];
    uint64_t end_wall_ms;
    uint64_t ticks_dropped;
    uint64_t ticks_not_recorded;
};

/* How the file ended, valid once record_read_next returned 0. */
struct record_end {
    int has_trailer;        /* a trailer line was read */
    int is_cut;             /* the last line had no newline (or was cut mid-way) */
    uint64_t lines;         /* lines seen */
    uint64_t lines_skipped; /* lines rejected with a notice */
    uint64_t ticks;         /* ticks returned */
    uint64_t last_ms;       /* end of the last tick read, ms since the run started */
};

/*
 * Opens path (record_read_open) or reads f from its current position
 * (record_read_stream, f stays the caller's; name is used in messages), and
 * reads the header. notice may be NULL. Returns 0 with *out set, or -EINVAL
 * when the first line is not a header of this format (a NUL byte in it, or
 * longer than RECORD_LINE_MAX: at most that much is read), -ENOTSUP for an
 * unknown major version, -ENODATA for an empty file, -ENODEV when path is
 * not a regular file (a FIFO, a device: refused before any read), or the
 * negative errno of open, with err holding "NAME: why" ("t.jsonl: not a
 * brink session: ..."), for the caller to print after "brink: CMD: ".
 */
int record_read_open(const char *path, record_notice_fn *notice, void *arg, char *err,
                     size_t err_len, struct record_reader **out);
int record_read_stream(FILE *f, const char *name, record_notice_fn *notice, void *arg, char *err,
                       size_t err_len, struct record_reader **out);

const struct record_header *record_read_header(const struct record_reader *r);

/*
 * The next tick of the file: returns 1 with *out a new tick (free it with
 * tick_free; its histograms are back in data, so tick_get_hist works), or 0
 * at the end, after a notice when the file ends abruptly ("recording ends
 * abruptly at line N (t=12.0 s): ...") or has no trailer. A NUL byte, or a
 * line going on 16 MiB past RECORD_LINE_MAX, ends the file there (with that
 * notice): no session holds either. Returns a negative errno on a read
 * error.
 */
int record_read_next(struct record_reader *r, struct tick **out);

/* From now on record_read_next returns the ticks agent recorded in a
 * coordinated run (lines "agent_tick", docs/agents.md) instead of the
 * run's merged ticks. */
void record_read_agent(struct record_reader *r, const char *agent);

/* The trailer, or NULL when none was read (yet). */
const struct record_trailer *record_read_trailer(const struct record_reader *r);
void record_read_end(const struct record_reader *r, struct record_end *out);
/* Closes the file (if the reader opened it) and frees r; NULL is a no-op. */
void record_read_close(struct record_reader *r);

/*
 * Parses one tick line (no newline) into a new tick, for the reader and its
 * fuzz target. Returns 0 with *out set, 1 when the line is valid JSON but no
 * tick (a header, a trailer, an unknown type), or -EINVAL with a reason in
 * why.
 */
int record_parse_tick_line(const char *line, size_t len, struct tick **out, char *why,
                           size_t why_len);

#endif
