/*
 * settings: the capacity, fault and store settings of brink target, read
 * from JSON. The same schema serves `--config FILE` and the body of
 * `POST /_control`: a document changes only the keys it names. Pure
 * functions (jansson and the display sanitizer), any thread; the caller
 * guards shared copies.
 */
#ifndef BRINK_TARGET_SETTINGS_H
#define BRINK_TARGET_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

/* Endpoints, for service times and per-endpoint counters. */
enum endpoint {
    EP_BYTES,
    EP_DELAY,
    EP_STATUS,
    EP_ECHO,
    EP_FILES,
    EP_KV,
    EP_MP,
    EP_STATS,
    EP_METRICS,
    EP_CONTROL,
    EP_REDIRECT,
    EP_OTHER,
    EP_COUNT
};

/* Injected faults, a probability each. */
enum fault {
    FAULT_NONE,
    FAULT_RESET,            /* RST before any reply */
    FAULT_CLOSE_MID_BODY,   /* half of the body, then the connection closes */
    FAULT_STALL,            /* status line and headers, then nothing */
    FAULT_DRIP,             /* the body one byte per drip_interval_ms */
    FAULT_MALFORMED_STATUS, /* a status line that is not HTTP */
    FAULT_HUGE_HEADER,      /* one header of huge_header_bytes */
    FAULT_HOSTILE_HEADER,   /* terminal escape sequences in a header value */
    FAULT_COUNT
};

#define SETTINGS_MAX_DOC_BYTES (64 * 1024) /* larger documents are refused */
#define SETTINGS_MAX_DEPTH 4               /* objects nest at most this deep */
#define SETTINGS_FILES_DIR_MAX 1024
#define SETTINGS_SEED_MAX 9007199254740992ull /* 2^53: exact in JSON */

struct settings {
    unsigned threads;                       /* MHD pool threads (start only), 1..64 */
    char files_dir[SETTINGS_FILES_DIR_MAX]; /* served under /files/ (start only), "" none */
    uint64_t seed;                          /* fault RNG; setting it restarts the sequence */
    unsigned workers;                       /* simulated workers, 1..100000 */
    unsigned queue_max;                     /* waiting requests beyond which 503 */
    unsigned max_connections;               /* beyond it connections are reset; 0 no limit */
    uint32_t service_us[EP_COUNT];          /* worker time per request, per endpoint */
    double fault_p[FAULT_COUNT];            /* probability per request; sum <= 1 */
    uint32_t stall_ms;                      /* how long a stalled connection is held */
    uint32_t drip_interval_ms;              /* between two dripped bytes */
    uint32_t drip_bytes;                    /* body size of a dripped response */
    uint32_t huge_header_bytes;             /* size of the huge header */
    int hostile_stats;                      /* add a hostile key to /stats and /metrics */
    uint64_t kv_max_bytes;                  /* store cap (keys, values, overhead) */
    uint64_t kv_max_object_bytes;           /* largest PUT body */
    uint32_t kv_write_us;                   /* how long a write is in flight */
    uint32_t kv_read_us_per_kib;            /* read service time per KiB of siblings */
    uint32_t mp_backpressure_siblings;      /* delay parts while manifest has more; 0 off */
    uint32_t mp_backpressure_ms;            /* one delay step */
    uint32_t pause_every_ms;                /* the whole server pauses once per this; 0 never */
    uint32_t pause_for_ms;                  /* for this long, at the end of each period */
    double contention_sigma;                /* service times stretched as the USL says, */
    double contention_kappa;                /* by the requests in service: see capacity.c */
    /* A FIN after every reply, without Connection: close (plain HTTP). */
    int close_after_reply;
    /* A forced fault requested by the document (control): applied to the next
     * force_count requests. force_count 0 means no request. */
    enum fault force_fault;
    uint32_t force_count;
    int force_set; /* the document named force */
    int seed_set;  /* the document set seed */
};

/* Fills s with the defaults. */
void settings_default(struct settings *s);

/*
 * Applies the JSON document text[0..len) to s. at_start is 1 for --config
 * (every key allowed) and 0 for control (threads and files_dir refused).
 * On error returns -EINVAL (or -E2BIG for a document over the size cap),
 * leaves s unchanged and writes one line to err such as
 *   faults.reset: expected a probability 0..1, got 2
 */
int settings_apply_json(struct settings *s, const char *text, size_t len, int at_start, char *err,
                        size_t err_len);

/*
 * The server-wide pause ("pause": {"every_ms": E, "for_ms": F}): it runs
 * E - F ms, then pauses F ms, from its start, over and over. A request that
 * arrives at now_ns or would be answered at answer_ns (both ns since the
 * server started, answer_ns >= now_ns) while a pause is on is held until
 * that pause ends. Returns when it may be answered: answer_ns, or the end
 * of the last pause it meets. Pure.
 */
uint64_t settings_pause_release_ns(const struct settings *s, uint64_t now_ns, uint64_t answer_ns);

/* Returns the settings as a JSON document of the same schema (malloc'd). */
char *settings_to_json(const struct settings *s);

/* Names as used in the JSON and in counters; NULL when out of range. */
const char *settings_endpoint_name(enum endpoint e);
const char *settings_fault_name(enum fault f);
/* Returns the fault named name[0..len), or -1. */
int settings_fault_by_name(const char *name);

#endif
