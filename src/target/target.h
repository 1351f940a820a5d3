/*
 * target: `brink target`, the built-in fault-injecting HTTP server used by
 * `brink demo` and the tests. It serves content, a key-value store with
 * Riak-like siblings, Riak-style /stats and Prometheus /metrics, simulates a
 * capacity limit (workers, queue, connection limit) and injects faults
 * (resets, early closes, stalls, drips, malformed replies, hostile bytes),
 * all changeable at runtime through /_control. Never touches curses or the
 * engine. target_main is for the main thread, before any other thread
 * starts; target_start and target_stop for the thread that owns the run.
 */
#ifndef BRINK_TARGET_TARGET_H
#define BRINK_TARGET_TARGET_H

#include <stddef.h>

/*
 * Runs `brink target [--listen ADDR:PORT] [--config FILE] [--seed N]
 * [--tls [--cert-out FILE] | --cert FILE --key FILE]`; argv[0] is "target".
 * Prints the bound URL as the first line of stdout (under TLS a second line
 * says where the certificate is) and serves until SIGINT or SIGTERM.
 * Returns the exit status: 0 after a clean stop, 1 for a runtime failure
 * (cannot bind, cannot start), 2 for a usage or config error; errors are
 * one line on stderr.
 */
int target_main(int argc, char **argv);

struct target_server;

/* How the target serves HTTPS: the same choice as `brink target --tls`,
 * --cert, --key and --cert-out make. */
struct target_tls {
    const char *cert;     /* PEM certificate (chain) file, with key; NULL: self-signed */
    const char *key;      /* its PEM private key file */
    const char *cert_out; /* self-signed: write the certificate here (an existing
                           * file keeps its mode), or NULL */
};

/*
 * Starts the target inside this process, on a free port of 127.0.0.1, with
 * the defaults changed by settings_json (a settings document as
 * `--config FILE` takes; NULL for none), over HTTPS when tls is not NULL
 * (the certificate made or loaded as target_main does; tls is not kept).
 * Its threads serve until target_stop; block the signals the caller
 * handles before calling, so they inherit the mask. Returns 0 with its URL
 * ("http://127.0.0.1:PORT", or https) in url and *out, or a negative errno
 * with one line in err.
 */
int target_start(const char *settings_json, const struct target_tls *tls, char *url, size_t url_len,
                 char *err, size_t err_len, struct target_server **out);
/* Stops and frees it; target_stop(NULL) is a no-op. */
void target_stop(struct target_server *srv);

#endif
