/*
 * demo: `brink demo`, the console against the built-in target, in one
 * process. The target runs the sibling scenario: concurrent writes to a few
 * keys pile up siblings (Riak's classic), four workers with a short queue
 * answer 503 once about 16 requests wait, and connections beyond 48 are
 * reset. Doubling the users from 2 walks through all three.
 */
#include "demo.h"

#include <signal.h>
#include <stdio.h>

#include "cli/tables.h"
#include "core/exitcode.h"
#include "core/msg.h"
#include "run.h"
#include "target/target.h"

/* The target's side of the scenario (a settings document, docs/target.md). */
static const char target_settings[] = "{\"workers\": 4, \"queue_max\": 12, \"max_connections\": 48,"
                                      " \"service_ms\": {\"kv\": 2},"
                                      " \"kv\": {\"write_ms\": 10, \"read_us_per_kib\": 20}}";

/* brink's side: a write-heavy mix on eight keys, the target's own
 * counters (the sibling count reads see, alert above 10; the queue; resets
 * per second), and a ramp plan that r (or --ramp) walks until the 503s
 * start, then goes back a step. %s is the target's URL. */
static const char config_format[] = "[target]\n"
                                    "url = %s\n"
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

int demo_main(int argc, char **argv)
{
    struct target_server *srv;
    char url[96], err[256], config[sizeof(config_format) + sizeof(url)];
    struct run_preset preset = {
        .name = "demo",
        .config = config,
        .options = &cli_demo,
        .unattended_duration = "10s",
    };
    sigset_t all, old;
    int rc;

    /* The target's threads inherit a mask with every signal blocked. */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    rc = target_start(target_settings, NULL, url, sizeof(url), err, sizeof(err), &srv);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        msg_print(stderr, "brink: demo: starting the built-in target: %s", err);
        return BRINK_EXIT_RUNTIME;
    }
    snprintf(config, sizeof(config), config_format, url);
    rc = run_preset_main(argc, argv, &preset);
    target_stop(srv);
    return rc;
}
