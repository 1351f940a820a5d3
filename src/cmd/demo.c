/*
 * demo: `brink demo`, the console against the built-in target, in one
 * process. The target runs the sibling scenario: concurrent writes to a few
 * keys pile up siblings (Riak's classic), four workers with a short queue
 * answer 503 once about 16 requests wait, and connections beyond 48 are
 * reset. Doubling the users from 2 walks through all three. With --tls it
 * runs over HTTPS: the target makes a certificate at start, written to a
 * private temporary file that the demo's [target] ca_file names, so brink
 * checks the certificate as it would a real server's.
 */
#include "cmd/demo.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/opts.h"
#include "cli/tables.h"
#include "core/exitcode.h"
#include "core/msg.h"
#include "cmd/run.h"
#include "core/signals.h"
#include "target/target.h"

/* The target's side of the scenario (a settings document, docs/target.md). */
static const char target_settings[] = "{\"workers\": 4, \"queue_max\": 12, \"max_connections\": 48,"
                                      " \"service_ms\": {\"kv\": 2},"
                                      " \"kv\": {\"write_ms\": 10, \"read_us_per_kib\": 20}}";

/* brink's side: a write-heavy mix on eight keys, the target's own
 * counters (the sibling count reads see, alert above 10; the queue; resets
 * per second), and a ramp plan that r (or --ramp) walks until the 503s
 * start, then goes back a step. The first %s is the target's URL, the
 * second the ca_file line under --tls (else empty). */
static const char config_format[] = "[target]\n"
                                    "url = %s\n"
                                    "%s"
                                    "timeout = 5s\n"
                                    "[load]\n"
                                    "concurrency = 2\n"
                                    "step = 2\n"
                                    "[request put]\n"
                                    "weight = 3\n"
                                    "method = PUT\n"
                                    "url = /kv/demo-{rand:1..8}\n"
                                    "header = Content-Type: application/octet-stream\n"
                                    "body = random:2k\n"
                                    "[request get]\n"
                                    "weight = 1\n"
                                    "method = GET\n"
                                    "url = /kv/demo-{rand:1..8}\n"
                                    "[probe siblings]\n"
                                    "type = json\n"
                                    "url = /stats\n"
                                    "pointer = /node_get_fsm_siblings_100\n"
                                    "alert = > 10\n"
                                    "[probe queue]\n"
                                    "type = json\n"
                                    "url = /stats\n"
                                    "pointer = /queue_depth\n"
                                    "[probe resets]\n"
                                    "type = prometheus\n"
                                    "url = /metrics\n"
                                    "metric = brink_target_resets_sent_total\n"
                                    "kind = counter\n"
                                    "[ramp]\n"
                                    "steps = 2, 4, 8, 16, 32, 64\n"
                                    "hold = 5s\n"
                                    "warmup = 1s\n"
                                    "stop_when = error_rate > 1%%, p99 > 1s\n"
                                    "action = back\n";

#define CERT_PATH_MAX 256

/* Whether argv asks for --tls; run_preset_main reports any usage error. */
static int wants_tls(int argc, char **argv)
{
    struct opts_parser p;
    struct opts_item it;
    char err[OPTS_ERR_MAX];
    int rc, is_tls = 0;

    opts_start(&p, &cli_demo, argc, argv);
    while ((rc = opts_next(&p, &it, err, sizeof(err))) != 0) {
        if (rc > 0 && it.id == CLI_DEMO_TLS)
            is_tls = 1;
    }
    return is_tls;
}

/*
 * Makes the empty file the certificate goes to, mode 0600 (mkstemp), in
 * TMPDIR when it is a plain absolute path (it goes into an INI line), else
 * /tmp. Returns 0 with its name in path, or -errno with one line in err.
 */
static int make_cert_file(char *path, size_t cap, char *err, size_t err_len)
{
    const char *dir = getenv("TMPDIR");
    int fd, e;

    if (!dir || dir[0] != '/' || dir[strcspn(dir, "\n\r;#")] != '\0')
        dir = "/tmp";
    if ((size_t)snprintf(path, cap, "%s/brink-demo-cert-XXXXXX", dir) >= cap) {
        dir = "/tmp";
        snprintf(path, cap, "%s/brink-demo-cert-XXXXXX", dir);
    }
    fd = mkstemp(path);
    if (fd < 0) {
        e = errno;
        snprintf(err, err_len, "--tls: cannot make a temporary file in %s: %s", dir,
                 msg_errno(e).text);
        path[0] = '\0';
        return -e;
    }
    close(fd);
    return 0;
}

int demo_main(int argc, char **argv)
{
    struct target_server *srv;
    char url[96], err[256], cert_path[CERT_PATH_MAX] = "", ca_line[CERT_PATH_MAX + 16] = "";
    char config[sizeof(config_format) + sizeof(url) + sizeof(ca_line)];
    struct target_tls tls = {.cert_out = cert_path};
    struct run_preset preset = {
        .name = "demo",
        .config = config,
        .options = &cli_demo,
        .unattended_duration = "10s",
    };
    int is_tls = wants_tls(argc, argv);
    sigset_t all, old;
    int rc;

    /* Before the certificate file exists: a stop from now on ends the run
     * through the path that removes it. */
    signals_install();
    if (is_tls && make_cert_file(cert_path, sizeof(cert_path), err, sizeof(err)) != 0) {
        msg_print(stderr, "brink: demo: %s", err);
        return BRINK_EXIT_RUNTIME;
    }
    /* The target's threads inherit a mask with every signal blocked. */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    /* The file exists (0600): the certificate is written into it, and it
     * keeps its mode. */
    rc = target_start(target_settings, is_tls ? &tls : NULL, url, sizeof(url), err, sizeof(err),
                      &srv);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        msg_print(stderr, "brink: demo: starting the built-in target: %s", err);
        rc = BRINK_EXIT_RUNTIME;
        goto out_unlink;
    }
    if (is_tls)
        snprintf(ca_line, sizeof(ca_line), "ca_file = %s\n", cert_path);
    snprintf(config, sizeof(config), config_format, url, ca_line);
    rc = run_preset_main(argc, argv, &preset);
    target_stop(srv);
out_unlink:
    if (cert_path[0])
        unlink(cert_path);
    return rc;
}
