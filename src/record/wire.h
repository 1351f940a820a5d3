/*
 * wire: the line protocol between a coordinator (`brink run --agents`) and
 * its agents (`brink agent`), over the agent's standard input and output
 * (docs/agents.md). One JSON object per line, each with a "type"; a tick
 * is the session file's tick line (record/encode.c), so it carries its
 * full histograms. Pure: encode and decode only, any thread.
 *
 *   coordinator -> agent: hello, config, start, command, ping
 *   agent -> coordinator: hello, ready, tick, pong, error
 *
 * Both sides say hello first with their protocol version; a side that
 * hears another version stops at once, naming both.
 */
#ifndef BRINK_RECORD_WIRE_H
#define BRINK_RECORD_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "core/command.h"

struct tick;

/* 2: the coordinator judges the [ramp] plan and agents run [probe] on =
 * agents probes; the config has no "ramp" any more. */
#define WIRE_PROTOCOL 2
/* Longest line either side accepts, newline excluded: a config with its
 * files (the config is at most 4 MiB, bodies and scripts are base64). */
#define WIRE_LINE_MAX (64u << 20)
#define WIRE_MAX_FILES 64      /* files shipped with a config */
#define WIRE_MAX_OVERRIDES 128 /* command-line keys shipped with a config */
#define WIRE_TEXT_MAX 1024     /* error texts */

enum wire_type {
    WIRE_HELLO,   /* protocol, brink */
    WIRE_CONFIG,  /* the experiment: name, text, cwd, files, overrides, seed */
    WIRE_READY,   /* the agent loaded the config and can start */
    WIRE_START,   /* at_ns: the run's start on the agent's clock */
    WIRE_TICK,    /* tick */
    WIRE_COMMAND, /* cmd */
    WIRE_PING,    /* t_ns: the coordinator's clock */
    WIRE_PONG,    /* t_ns: the ping's, echoed; peer_ns: the agent's clock */
    WIRE_ERROR,   /* text: why the agent stops */
    WIRE__COUNT
};

struct wire_file {
    char *path; /* absolute, as the coordinator resolved it */
    unsigned char *data;
    size_t len;
};

struct wire_override {
    char *flag, *section, *key, *value;
};

/* One message. Strings and arrays are owned by it: wire_msg_free. */
struct wire_msg {
    enum wire_type type;
    unsigned protocol;
    char brink[32];
    char *name; /* config: the file as the coordinator named it ("command line": none) */
    char *text; /* config: the file's text ("" without one); error: the reason */
    char *cwd;  /* config: the coordinator's working directory */
    uint32_t n_files;
    struct wire_file *files;
    uint32_t n_overrides;
    struct wire_override *overrides;
    uint64_t seed;
    uint64_t at_ns;
    uint64_t t_ns, peer_ns;
    struct command cmd;
    struct tick *tick;
};

/* The line of m, newline included, in a new string (*len its length);
 * NULL when m cannot be encoded (a tick beyond RECORD_LINE_MAX). Aborts on
 * exhaustion. */
char *wire_encode(const struct wire_msg *m, size_t *len);

/* Parses one line (without its newline) into m (zeroed first). Returns 0,
 * or -EINVAL with one line in why: not JSON, an unknown type, a field
 * missing or out of range. */
int wire_decode(const char *line, size_t len, struct wire_msg *m, char *why, size_t why_len);

/* Frees what m owns (the tick too, unless the caller took it and set
 * m->tick to NULL) and zeroes it. */
void wire_msg_free(struct wire_msg *m);

/* "hello", "tick"...; "?" out of range. */
const char *wire_type_name(enum wire_type t);

/*
 * Clock offset from ping round trips: a ping leaves at sent_ns (the
 * coordinator's clock), the agent stamps peer_ns on its clock, the pong is
 * back at back_ns. The estimate is the sample with the shortest round trip
 * (the least queued): offset = peer - (sent + back) / 2, within +/- rtt/2.
 */
struct wire_clock {
    int has_sample;
    uint64_t best_rtt_ns;
    int64_t offset_ns; /* the agent's clock minus the coordinator's */
    unsigned samples;
};

/* Adds one round trip; returns -EINVAL (ignored) when back < sent. */
int wire_clock_add(struct wire_clock *c, uint64_t sent_ns, uint64_t peer_ns, uint64_t back_ns);
/* The coordinator's time t on the agent's clock. */
uint64_t wire_clock_to_peer(const struct wire_clock *c, uint64_t t_ns);

#endif
