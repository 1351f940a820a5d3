/*
 * lib: what a scenario script may touch. script__sandbox strips a fresh Lua
 * state down to what a load script needs (no files, no processes, require
 * only from the script's own folder); script__lib_open adds the `brink`
 * table (JSON, base64, hex, pack and unpack, SHA-256, HMAC, uuid, seeded random numbers,
 * checks, counters, gauges, setup data). Internal to the script module.
 * Threads: a lua_State and its struct script_lib belong to one thread (the
 * main thread for the setup state, a worker for its own); a loaded
 * struct script_data is read-only and may be read from any thread.
 */
#ifndef BRINK_SCRIPT_LIB_H
#define BRINK_SCRIPT_LIB_H

#include <stddef.h>
#include <stdint.h>

#include "core/tick.h"
#include "script/lua_compat.h"

#define SCRIPT_NAMES_MAX 32               /* check names, and counter and gauge names, per worker */
#define SCRIPT_NAME_MAX TICK_NAME_MAX     /* bytes of a name, NUL included */
#define SCRIPT_DATA_SETS_MAX 16           /* data sets a setup may load */
#define SCRIPT_DATA_MAX_BYTES (64u << 20) /* size of one data file */
#define SCRIPT_DATA_MAX_ITEMS (8u << 20)  /* lines, or CSV fields, of one data file */
#define SCRIPT_FILE_MAX_BYTES (4u << 20)  /* size of a script or a required module */
#define SCRIPT_JSON_MAX_DEPTH 200         /* nesting of a JSON value, both ways */
#define SCRIPT_ERR_MAX 256                /* room for an error given to the engine */

/* One check name: how often brink.check(cond, name) held, and failed. */
struct script_check {
    char name[SCRIPT_NAME_MAX]; /* raw, as the script wrote it: sanitize before display */
    uint64_t passed;            /* since the last script__lib_reset */
    uint64_t failed;
};

/* One counter (brink.counter) or gauge (brink.gauge). */
struct script_metric {
    char name[SCRIPT_NAME_MAX]; /* raw: sanitize before display */
    int is_gauge;               /* 0: a counter, 1: a gauge (a name is one or the other) */
    double value;               /* counter: sum of the deltas since the last reset;
                                   gauge: the last value set, kept across resets */
    int is_set;     /* the counter was added to, or the gauge set, since the last reset */
    uint64_t calls; /* since the last reset */
};

struct script_data_set;

/*
 * The per-state bookkeeping that brink.* writes and the engine reads on each
 * tick. The engine owns it (zero it, set the fields marked "engine" before
 * script__lib_open) and keeps it alive as long as the lua_State. Names keep
 * their slot for the whole run; a name past SCRIPT_NAMES_MAX is not kept:
 * the call is counted in names_dropped (and in dropped[] of its class,
 * since the last reset) and the first such name of each class is kept in
 * dropped_name[], so the engine can say it once.
 */
struct script_lib {
    uint64_t seed;                /* engine: the run's seed */
    uint64_t *rng;                /* engine: the state brink.random and brink.uuid draw
                                     from (splitmix64); point it at the running user's
                                     before each resume (see script__rng_seed) */
    struct script_data_set *data; /* engine: the data sets (borrowed), or NULL */
    int may_load;                 /* engine: 1 in the setup state (brink.load_lines and
                                     brink.load_csv work), 0 in a worker's */
    const char *script_dir;       /* engine: folder of the script, for data paths */
    struct script_check checks[SCRIPT_NAMES_MAX];
    unsigned n_checks;
    struct script_metric metrics[SCRIPT_NAMES_MAX];
    unsigned n_metrics;
    uint64_t names_dropped; /* calls whose new name found no free slot */
    uint64_t dropped[2];    /* such calls since the last reset: [0] checks, [1] the others */
    char dropped_name[2][SCRIPT_NAME_MAX]; /* the first such name of each (raw), "" if none */
    uint64_t own_rng;                      /* where rng points until the engine says otherwise */
};

/*
 * Makes the globals of a new state (script__guard_state, nothing opened yet) the
 * sandbox: the base library without dofile, loadfile, loadstring and print,
 * with a load that only takes text; string (without string.dump), table,
 * math, coroutine, utf8 (Lua 5.4) and bit (LuaJIT); os reduced to time,
 * clock and date; no io, debug, package, ffi or jit table (LuaJIT's
 * compiler is switched on all the same, until script__guard_sandbox).
 * require(name) loads script_dir/NAME.lua (dots in NAME are folders;
 * each part is letters, digits, '_' or '-', so neither ".." nor an
 * absolute path can be named), as text, once, into the same globals.
 * script_dir is copied. Returns 0, or -ENOMEM with err (errlen bytes, one
 * line). Thread: the state's.
 */
int script__sandbox(lua_State *L, const char *script_dir, char *err, size_t errlen);

/*
 * Reads path (a regular file of at most SCRIPT_FILE_MAX_BYTES) and pushes it
 * compiled as a function, text only, named chunkname in Lua's messages
 * ("@" + the name the user knows it by). Returns 0, or a negative errno
 * with err: "FILE:LINE: MESSAGE" for a syntax error (-EINVAL), "FILE: why"
 * when it cannot be read. Pushes nothing on failure.
 */
int script__load_file(lua_State *L, const char *path, const char *chunkname, char *err,
                      size_t errlen);

/*
 * Sets the global `brink` to a new table of the library functions, bound to
 * lib (borrowed: it must outlive L). Points lib->rng at lib->own_rng seeded
 * from lib->seed when it is NULL. Call after script__sandbox. Thread: the
 * state's.
 */
void script__lib_open(lua_State *L, struct script_lib *lib);

/* Starts the interval over: zeroes check counts and counter sums and every
 * is_set; names, gauges' values and the dropped count stay. */
void script__lib_reset(struct script_lib *lib);

/*
 * Seeds a random stream (splitmix64) for one user: the same seed and stream
 * number give the same draws in every run, and different streams are
 * unrelated. The engine keeps one per virtual user, for instance with
 * stream = worker index << 32 | user index.
 */
void script__rng_seed(uint64_t *rng, uint64_t seed, uint64_t stream);

/*
 * Setup data: files the setup function loads once (brink.load_lines,
 * brink.load_csv), held in C memory that is never written again, so every
 * worker's state reads it in place (brink.data(name)) without a copy.
 * The set is made and filled on the main thread; once the setup function has
 * returned it is read-only until script__data_set_free, which must come
 * after every state that reads it is closed.
 */
struct script_data_set *script__data_set_new(void);
void script__data_set_free(struct script_data_set *set);

enum script_data_kind {
    SCRIPT_DATA_LINES, /* one string per line */
    SCRIPT_DATA_CSV,   /* RFC 4180 records, one table per record */
};

/*
 * Parses text[0..len) into set under name (copied). Lines: split at "\n"
 * with one "\r" before it dropped, empty lines skipped. CSV (RFC 4180):
 * fields separated by ',', records by CRLF or LF, quoted fields may hold
 * ',', '"' (doubled) and line breaks, empty lines skipped, a UTF-8 byte
 * order mark at the start skipped; every record must have as many fields as
 * the first. has_header: the first record names the fields, and each row is
 * then a table keyed by those names. file names the source in errors.
 * Returns 0, or a negative errno with err ("FILE:LINE: what" for a CSV
 * syntax error, -EINVAL; -EFBIG past SCRIPT_DATA_MAX_BYTES or
 * SCRIPT_DATA_MAX_ITEMS; -ENOSPC past SCRIPT_DATA_SETS_MAX; -EEXIST for a
 * name already loaded).
 */
int script__data_parse(struct script_data_set *set, const char *name, enum script_data_kind kind,
                       int has_header, const char *file, const char *text, size_t len, char *err,
                       size_t errlen);

/* ---- Between the library's own files -------------------------------- */

/* Reads a regular file of at most max bytes into a new buffer (*out, the
 * caller frees it; len bytes, not NUL-terminated). Returns 0, or a negative
 * errno with why (no path): as regfile_open, or -EIO "cannot read". */
int script__read_file(const char *path, size_t max, char **out, size_t *len, char *why,
                      size_t why_len);
/* Add their functions to the table at the top of the stack: json.c the
 * table brink.json, data.c brink.load_lines, brink.load_csv and brink.data
 * (bound to lib). */
void script__json_open(lua_State *L);
/* pack.c: brink.pack and brink.unpack (Lua 5.3's string.pack, a subset). */
void script__pack_open(lua_State *L);
void script__data_open(lua_State *L, struct script_lib *lib);

#endif
