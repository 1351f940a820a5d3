/*
 * The engine's lifetime: build it (its transport chosen, its control state
 * and merger made), start and join the workers, free it. Commands are
 * worker 0's to read (worker.c) and control.c's to apply.
 */
#include "engine/engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <uv.h>

#include "config/config.h"
#include "core/chan.h"
#include "core/xalloc.h"
#include "engine/internal.h"
#include "engine/workload.h"

/* File descriptors kept back for everything that is not a connection: stdio,
 * the recorder, libuv's own, the resolver's pipes. */
#define FD_RESERVE 64

/* Every transport, in the order transport = auto tries them. */
static const struct transport_ops *const transports[] = {&transport_h1, &transport_curl,
                                                         &transport_stream};
#define N_TRANSPORTS (sizeof(transports) / sizeof(transports[0]))

int engine_global_init(char *err, size_t err_len)
{
    for (size_t i = 0; i < N_TRANSPORTS; i++) {
        int rc = transports[i]->global_init ? transports[i]->global_init(err, err_len) : 0;

        if (rc != 0) {
            while (i-- > 0) {
                if (transports[i]->global_cleanup)
                    transports[i]->global_cleanup();
            }
            return rc;
        }
    }
    return 0;
}

void engine_global_cleanup(void)
{
    for (size_t i = N_TRANSPORTS; i-- > 0;) {
        if (transports[i]->global_cleanup)
            transports[i]->global_cleanup();
    }
}

void engine_versions(struct engine_versions *v)
{
    v->curl = transport_curl.version();
    v->uv = uv_version_string();
    v->openssl = transport_h1.version();
}

/*
 * The transport that carries the run: [target] transport's, or for auto
 * the first that accepts it (h1 serves one origin over HTTP/1.1 and
 * HTTP/2; everything else is libcurl's), and what its workers share.
 */
static int choose_transport(struct engine *e, char *err, size_t err_len)
{
    enum config_transport want = e->config->target.transport;
    const struct transport_ops *tp = want == CONFIG_TRANSPORT_CURL ? &transport_curl : NULL;
    char why[320];

    if (e->script) {
        e->sp = &transport_stream;
        /* A script that speaks no HTTP: its exchanges carry the run. */
        if (!e->config->target.url.value)
            tp = &transport_stream;
    }

    for (size_t i = 0; !tp && i < N_TRANSPORTS; i++) {
        const struct transport_ops *t = transports[i];
        int rc = t->accepts ? t->accepts(e->config, e->workload, why, sizeof(why)) : 0;

        if (rc == 0)
            tp = t;
        else if (want == CONFIG_TRANSPORT_H1 && t == &transport_h1) {
            snprintf(err, err_len,
                     "brink: [target] transport: h1 cannot serve this run: %s (use transport = "
                     "curl or auto)",
                     why);
            return rc;
        }
    }
    e->tp = tp;
    e->tp_setup = tp->setup ? tp->setup(e->config, e->workload) : NULL;
    return 0;
}

/* Raises the soft fd limit to the hard one; returns the limit now in force. */
static uint32_t raise_fd_limit(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1024;
    if (rl.rlim_cur < rl.rlim_max) {
        rlim_t want = rl.rlim_max;

        rl.rlim_cur = want;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            getrlimit(RLIMIT_NOFILE, &rl);
    }
    return rl.rlim_cur > UINT32_MAX ? UINT32_MAX : (uint32_t)rl.rlim_cur;
}

/* The channel's wake: from the console's thread, safe per libuv's docs. */
static void on_command(void *arg)
{
    struct engine *e = arg;

    uv_async_send(&e->workers[0]->wake);
}

static void stop_started(struct engine *e)
{
    pthread_mutex_lock(&e->lock);
    e->control.is_stopping = 1;
    e->control.is_aborting = 1;
    pthread_mutex_unlock(&e->lock);
    for (uint32_t i = 0; i < e->n_workers; i++) {
        if (e->workers[i] && e->workers[i]->is_started)
            uv_async_send(&e->workers[i]->wake);
    }
    for (uint32_t i = 0; i < e->n_workers; i++) {
        if (e->workers[i] && e->workers[i]->is_started)
            engine__worker_join(e->workers[i]);
    }
}

int engine__build(const struct engine_params *p, char *err, size_t err_len, struct engine **out)
{
    const struct config *c = p->config;
    struct engine *e = xcalloc(1, sizeof(*e));
    int rc;

    e->config = c;
    e->chan = p->chan;
    e->seed = p->seed ? p->seed : (uint64_t)time(NULL) ^ uv_hrtime();
    e->tick_ns = c->load.tick_us * 1000;
    e->request_limit = c->load.requests;
    /* libuv's timers count whole milliseconds; the knee's Little's law
     * takes this figure too, so it reasons with the pause users take. */
    e->think_ms = (c->load.think_time_us + 999) / 1000;
    e->busy_poll_ns = c->load.busy_poll_us * 1000;
    e->fds_limit = raise_fd_limit();
    e->max_concurrency = e->fds_limit > 2 * FD_RESERVE ? e->fds_limit - FD_RESERVE : FD_RESERVE;
    if (c->load.concurrency > e->max_concurrency) {
        snprintf(
            err, err_len,
            "brink: [load] concurrency: %u connections need %u file descriptors, but the limit (RLIMIT_NOFILE) is %u (raise it with ulimit -n, or lower the concurrency to %u)",
            c->load.concurrency, c->load.concurrency + FD_RESERVE, e->fds_limit,
            e->max_concurrency);
        free(e);
        return -EMFILE;
    }
    rc = workload_new(c, e->seed, err, err_len, &e->workload);
    if (rc == 0) {
        rc = engine__scene_init(e, err, err_len);
        /* The script's own failure, apart from the run's settings. */
        if (rc == -EINVAL)
            rc = -ENOEXEC;
    }
    if (rc == 0)
        rc = choose_transport(e, err, err_len);
    if (rc != 0) {
        engine__scene_free(e);
        workload_free(e->workload);
        free(e);
        return rc;
    }
    e->kind_seq = xcalloc(workload_n_kinds(e->workload), sizeof(*e->kind_seq));
    for (size_t i = 0; i < workload_n_kinds(e->workload); i++)
        atomic_init(&e->kind_seq[i], 0);
    pthread_mutex_init(&e->lock, NULL);
    e->control.concurrency = c->load.concurrency;
    e->control.model = c->load.mode == CONFIG_MODE_RATE ? LOAD_OPEN : LOAD_CLOSED;
    e->control.rate_per_s = c->load.rate_per_s;
    /* Every request in flight holds a connection: the cap fits the fds. */
    e->control.max_in_flight =
        c->load.max_in_flight < e->max_concurrency ? c->load.max_in_flight : e->max_concurrency;
    e->n_workers = c->load.threads;
    e->drop_pending = xcalloc(e->n_workers, sizeof(*e->drop_pending));
    e->workers = xcalloc(e->n_workers, sizeof(*e->workers));
    e->merger =
        engine__merger_new(e->n_workers, e->workload, engine__scene_names(e), e->chan, e->tick_ns);
    engine__merger_set_fds_limit(e->merger, e->fds_limit);
    engine__merger_set_transport(e->merger, e->tp->name);
    engine__merger_set_bound(e->merger, c->load.duration_us, c->load.requests);
    engine__control_publish(e); /* no worker runs yet: no lock needed */
    if (e->control.model == LOAD_OPEN && e->think_ms)
        engine__merger_event(
            e->merger, EV_NOTICE, 0,
            "think_time not applied: the open model starts requests on its schedule");
    if (e->control.max_in_flight < c->load.max_in_flight) {
        char text[TICK_TEXT_MAX];

        snprintf(text, sizeof(text), "max_in_flight %u lowered to %u: the fd limit is %u",
                 c->load.max_in_flight, e->control.max_in_flight, e->fds_limit);
        engine__merger_event(e->merger, EV_NOTICE, 0, text);
    }
    /* uv_hrtime and clock_now_ns read the same monotonic clock. */
    e->start_ns = p->start_ns ? p->start_ns : uv_hrtime();
    engine__merger_set_board(e->merger, p->board);
    engine__plan_init(e, p->start_ramp, p->no_plan);
    for (uint32_t i = 0; i < e->n_workers; i++) {
        rc = engine__worker_new(e, i, err, err_len, &e->workers[i]);
        if (rc != 0) {
            engine_free(e);
            return rc;
        }
    }
    *out = e;
    return 0;
}

int engine_start(const struct engine_params *p, char *err, size_t err_len, struct engine **out)
{
    struct engine *e;
    int rc = engine__build(p, err, err_len, &e);

    if (rc != 0)
        return rc;
    chan_set_wake(e->chan, on_command, e);
    for (uint32_t i = 0; i < e->n_workers; i++) {
        rc = engine__worker_start(e->workers[i], err, err_len);
        if (rc != 0)
            goto out_stop_workers;
    }
    *out = e;
    return 0;

out_stop_workers:
    chan_set_wake(e->chan, NULL, NULL);
    stop_started(e);
    engine_free(e);
    return rc;
}

void engine_join(struct engine *e)
{
    for (uint32_t i = 0; i < e->n_workers; i++)
        engine__worker_join(e->workers[i]);
    /* Commands sent from now on have nobody to wake. */
    chan_set_wake(e->chan, NULL, NULL);
}

void engine_free(struct engine *e)
{
    if (!e)
        return;
    for (uint32_t i = 0; i < e->n_workers; i++)
        engine__worker_free(e->workers[i]);
    free(e->workers);
    free(e->drop_pending);
    engine__plan_free(e);
    engine__merger_free(e->merger);
    if (e->tp && e->tp->teardown)
        e->tp->teardown(e->tp_setup);
    engine__scene_free(e);
    free(e->kind_seq);
    workload_free(e->workload);
    pthread_mutex_destroy(&e->lock);
    free(e);
}
