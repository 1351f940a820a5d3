/*
 * target: the command line and the lifetime of `brink target`: options,
 * the listening socket (bound here so port 0 and [::1] work and the URL is
 * known), libmicrohttpd's thread pool, the scheduler thread, and a clean
 * stop on SIGINT or SIGTERM, which the main thread waits for with sigwait.
 */
#include "target/target.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli/opts.h"
#include "cli/tables.h"
#include "core/clock.h"
#include "core/listen.h"
#include "core/msg.h"
#include "core/regfile.h"
#include "core/xalloc.h"
#include "target/internal.h"
#include "target/tlscert.h"

#include "core/exitcode.h"

#define CONFIG_MAX_BYTES SETTINGS_MAX_DOC_BYTES

struct options {
    const char *listen;   /* ADDR:PORT */
    const char *config;   /* NULL: defaults */
    const char *seed;     /* NULL: from the config */
    int is_tls;           /* --tls, or implied by --cert */
    const char *cert;     /* --cert FILE, with key; NULL: self-signed */
    const char *key;      /* --key FILE */
    const char *cert_out; /* --cert-out FILE: where the self-signed one goes */
    const char *h2c;      /* --h2c ADDR:PORT, or NULL */
};

static int parse_options(int argc, char **argv, struct options *o)
{
    struct opts_parser p;
    struct opts_item it;
    char err[OPTS_ERR_MAX], buf[MSG_SHOWN_MAX];
    int rc;

    o->listen = "127.0.0.1:0";
    o->config = NULL;
    o->seed = NULL;
    o->is_tls = 0;
    o->cert = o->key = o->cert_out = o->h2c = NULL;
    opts_start(&p, &cli_target, argc, argv);
    while ((rc = opts_next(&p, &it, err, sizeof(err))) != 0) {
        if (rc < 0)
            return opts_fail(&cli_target, stderr, "%s", err);
        switch (it.id) {
        case CLI_TARGET_LISTEN: o->listen = it.value; break;
        case CLI_TARGET_CONFIG: o->config = it.value; break;
        case CLI_TARGET_SEED: o->seed = it.value; break;
        case CLI_TARGET_TLS: o->is_tls = 1; break;
        case CLI_TARGET_CERT: o->cert = it.value; break;
        case CLI_TARGET_KEY: o->key = it.value; break;
        case CLI_TARGET_CERT_OUT: o->cert_out = it.value; break;
        case CLI_TARGET_H2C: o->h2c = it.value; break;
        default:
            return opts_fail(&cli_target, stderr, "unexpected argument \"%s\"",
                             msg_show(it.value, buf, sizeof(buf)));
        }
    }
    if (!o->cert != !o->key)
        return opts_fail(&cli_target, stderr, "%s",
                         o->cert ? "--cert needs --key" : "--key needs --cert");
    if (o->cert || o->cert_out)
        o->is_tls = 1;
    return 0;
}

/* Reads and applies the --config document; 0 or -errno (message printed). */
static int load_config(const char *path, struct settings *s)
{
    char err[TARGET_ERR_MAX], buf[200];
    char *text;
    size_t n;
    FILE *f;
    int rc;

    /* A FIFO would block: regular files only. Their size is bounded below
     * (the settings refuse a document larger than CONFIG_MAX_BYTES). */
    rc = regfile_open(path, 0, &f, err, sizeof(err));
    if (rc != 0) {
        msg_print(stderr, "brink: target: %s: %s", msg_show(path, buf, sizeof(buf)), err);
        return rc;
    }
    text = xmalloc(CONFIG_MAX_BYTES + 1);
    n = fread(text, 1, CONFIG_MAX_BYTES + 1, f);
    rc = ferror(f) ? -EIO : 0;
    fclose(f);
    if (rc == 0)
        rc = settings_apply_json(s, text, n, 1, err, sizeof(err));
    else
        snprintf(err, sizeof(err), "read failed: %s", msg_errno(EIO).text);
    if (rc)
        msg_print(stderr, "brink: target: %s: %s", msg_show(path, buf, sizeof(buf)), err);
    free(text);
    return rc;
}

/* Raises the open-file limit to the hard limit: every connection is an fd. */
static void raise_nofile(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static void target_init(struct target *t, const struct settings *s)
{
    memset(t, 0, sizeof(*t));
    pthread_rwlock_init(&t->settings_lock, NULL);
    t->kv = kv_new(s->kv_max_bytes);
    t->cap = target__capacity_new();
    t->files_dir_fd = -1;
    t->start_ns = clock_now_ns();
    target__sibwin_init(&t->sibwin);
    target__echo_log_init(&t->echo_log);
    target__content_init();
    target__control_install(t, s);
}

static void target_destroy(struct target *t)
{
    if (t->files_dir_fd >= 0)
        close(t->files_dir_fd);
    target__sched_free(t->sched);
    kv_free(t->kv);
    target__capacity_free(t->cap);
    target__sibwin_destroy(&t->sibwin);
    target__echo_log_destroy(&t->echo_log);
    pthread_rwlock_destroy(&t->settings_lock);
}

/* tls: the certificate and key to serve HTTPS with (libmicrohttpd keeps
 * the pointers: they must outlive the daemon), or NULL for plain HTTP. */
static struct MHD_Daemon *start_daemon(struct target *t, int fd, unsigned threads,
                                       const struct tlscert_pem *tls)
{
    /* TURBO also makes libmicrohttpd close without a shutdown() first, so a
     * SO_LINGER {1, 0} close is a bare RST.
     * poll(), not epoll: libmicrohttpd's epoll loop (0.9.75, and still
     * upstream) calls epoll_wait again after a full batch of 128 events,
     * with the timeout it chose before the first call (up to the 60 s
     * connection timeout), while the batch's connections wait unserved in
     * its ready list. Under load another event soon ends that wait; when
     * the load drops, a worker's 127 ready connections sit with their
     * requests unread until the timeout. poll() is level-triggered and
     * serves every ready connection each round. */
    unsigned flags =
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_TURBO;
    struct MHD_OptionItem tls_options[] = {
        {MHD_OPTION_HTTPS_MEM_CERT, 0, tls ? tls->cert : NULL},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, tls ? tls->key : NULL},
        {MHD_OPTION_END, 0, NULL},
    };

    if (tls)
        flags |= MHD_USE_TLS;
    return MHD_start_daemon(
        flags, 0, NULL, NULL, routes_access, t, MHD_OPTION_ARRAY,
        tls ? tls_options : &tls_options[2], MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
        MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_CONNECTION_LIMIT, (unsigned)16384,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60, MHD_OPTION_NOTIFY_COMPLETED,
        target__routes_completed, t, MHD_OPTION_NOTIFY_CONNECTION, target__routes_connection, t,
        MHD_OPTION_END);
}

/* Serves until SIGINT or SIGTERM (blocked in every thread, taken here). */
static void wait_for_stop(const sigset_t *set)
{
    int sig;

    while (sigwait(set, &sig) == 0 && sig != SIGINT && sig != SIGTERM)
        ;
}

/* Starts the scheduler thread and libmicrohttpd on fd, over TLS when tls
 * is not NULL; 0 or -errno (err). */
static int start_serving(struct target *t, int fd, const char *url, const struct tlscert_pem *tls,
                         char *err, size_t err_len)
{
    int rc = target__sched_new(&t->sched);

    if (rc) {
        snprintf(err, err_len, "starting the timer thread: %s", msg_errno(-rc).text);
        return rc;
    }
    t->daemon = start_daemon(t, fd, t->settings.threads, tls);
    if (!t->daemon) {
        target__sched_stop(t->sched);
        if (tls)
            snprintf(
                err, err_len,
                "starting libmicrohttpd on %s failed (out of memory or threads, or GnuTLS refused the certificate or its key?)",
                url);
        else
            snprintf(err, err_len,
                     "starting libmicrohttpd on %s failed (out of memory or threads?)", url);
        return -ENOMEM;
    }
    return 0;
}

/* Stops accepting, resumes what waits, stops the daemon; *fd becomes -1
 * when libmicrohttpd kept the listening socket (it closes it itself). */
static void stop_serving(struct target *t, int *fd)
{
    if (MHD_quiesce_daemon(t->daemon) == MHD_INVALID_SOCKET)
        *fd = -1;
    /* Every suspended connection must be resumed before the daemon stops. */
    target__sched_stop(t->sched);
    MHD_stop_daemon(t->daemon);
}

/* The second line of stdout under --tls: where the certificate is, or
 * how to get it. */
static void print_cert_line(const struct options *o)
{
    char buf[200];

    if (o->cert)
        return;
    if (o->cert_out)
        msg_print(
            stdout,
            "certificate: %s (self-signed for localhost, 127.0.0.1 and ::1, valid 7 days; trust it with ca_file or curl --cacert)",
            msg_show(o->cert_out, buf, sizeof(buf)));
    else
        msg_print(
            stdout,
            "certificate: self-signed for localhost, 127.0.0.1 and ::1, not written (--cert-out FILE writes it for ca_file; or insecure = yes)");
}

/* The h2c listener of --h2c: its socket and URL. */
struct h2c_listen {
    int fd; /* -1: no --h2c */
    char url[96];
};

static int serve(struct target *t, int *fd, const char *url, const struct options *o,
                 const struct tlscert_pem *tls, const struct h2c_listen *hl, const sigset_t *stop)
{
    char err[TARGET_ERR_MAX];
    struct h2c *h2c = NULL;
    int rc;

    if (start_serving(t, *fd, url, tls, err, sizeof(err)) != 0) {
        msg_print(stderr, "brink: target: %s", err);
        return BRINK_EXIT_RUNTIME;
    }
    if (hl->fd >= 0 && (rc = target__h2c_start(t, hl->fd, &h2c)) != 0) {
        msg_print(stderr, "brink: target: starting the h2c thread: %s", msg_errno(-rc).text);
        stop_serving(t, fd);
        return BRINK_EXIT_RUNTIME;
    }
    printf("%s\n", url);
    if (tls)
        print_cert_line(o);
    if (h2c)
        printf("h2c: %s\n", hl->url);
    fflush(stdout);
    wait_for_stop(stop);
    target__h2c_stop(h2c);
    stop_serving(t, fd);
    return BRINK_EXIT_OK;
}

/*
 * The certificate to serve over HTTPS, for target_main and target_start
 * alike: read from tls->cert and tls->key, or made here and written to
 * tls->cert_out. Returns 0 with *pem filled, or a negative errno with one
 * line in err; *is_usage says whether the files named are at fault.
 */
static int tls_prepare(const struct target_tls *tls, struct tlscert_pem *pem, int *is_usage,
                       char *err, size_t err_len)
{
    char why[TARGET_ERR_MAX];
    int rc;

    pem->cert = pem->key = NULL;
    *is_usage = 0;
    if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
        snprintf(err, err_len, "--tls: this libmicrohttpd was built without TLS");
        return -ENOTSUP;
    }
    if (tls->cert) {
        rc = tlscert_load(tls->cert, tls->key, pem, err, err_len);
        *is_usage = rc != 0;
        return rc;
    }
    rc = tlscert_self_signed((int64_t)time(NULL), pem, why, sizeof(why));
    if (rc != 0) {
        snprintf(err, err_len, "--tls: %s", why);
        return rc;
    }
    if (tls->cert_out) {
        rc = tlscert_write(tls->cert_out, pem->cert, err, err_len);
        if (rc != 0) {
            *is_usage = 1;
            tlscert_pem_free(pem);
        }
    }
    return rc;
}

struct target_server {
    struct target t;
    int fd;
    struct tlscert_pem pem; /* under TLS; libmicrohttpd reads it until it stops */
};

int target_start(const char *settings_json, const struct target_tls *tls, char *url, size_t url_len,
                 char *err, size_t err_len, struct target_server **out)
{
    struct target_server *srv;
    struct tlscert_pem pem = {NULL, NULL};
    struct sockaddr_storage ss;
    struct settings s;
    socklen_t len;
    int rc, is_usage;

    settings_default(&s);
    if (settings_json) {
        rc = settings_apply_json(&s, settings_json, strlen(settings_json), 1, err, err_len);
        if (rc)
            return rc;
    }
    if (tls) {
        rc = tls_prepare(tls, &pem, &is_usage, err, err_len);
        if (rc)
            return rc;
    }
    listen_parse("127.0.0.1:0", &ss, &len);
    raise_nofile();
    rc = listen_open(&ss, len, tls ? "https" : "http", url, url_len, err, err_len);
    if (rc < 0) {
        tlscert_pem_free(&pem);
        return rc;
    }
    srv = xcalloc(1, sizeof(*srv));
    srv->fd = rc;
    srv->pem = pem;
    target_init(&srv->t, &s);
    rc = start_serving(&srv->t, srv->fd, url, tls ? &srv->pem : NULL, err, err_len);
    if (rc) {
        target_destroy(&srv->t);
        close(srv->fd);
        tlscert_pem_free(&srv->pem);
        free(srv);
        return rc;
    }
    *out = srv;
    return 0;
}

void target_stop(struct target_server *srv)
{
    if (!srv)
        return;
    stop_serving(&srv->t, &srv->fd);
    target_destroy(&srv->t);
    if (srv->fd >= 0)
        close(srv->fd);
    tlscert_pem_free(&srv->pem);
    free(srv);
}

int target_main(int argc, char **argv)
{
    char url[96], err[TARGET_ERR_MAX], buf[80];
    struct sockaddr_storage ss;
    struct settings s;
    struct options o;
    struct tlscert_pem pem = {NULL, NULL};
    struct h2c_listen hl = {.fd = -1};
    struct sockaddr_storage h2c_ss;
    socklen_t h2c_len = 0;
    struct target *t;
    socklen_t len;
    sigset_t stop;
    int rc, fd;

    rc = parse_options(argc, argv, &o);
    if (rc)
        return rc;
    settings_default(&s);
    if (o.config && load_config(o.config, &s) != 0)
        return BRINK_EXIT_USAGE;
    if (o.seed) {
        char *end;
        errno = 0;
        s.seed = strtoull(o.seed, &end, 10);
        if (errno || *end || !*o.seed || o.seed[0] == '-' || s.seed > SETTINGS_SEED_MAX) {
            msg_print(stderr, "brink: target: --seed: expected a whole number 0..2^53, got \"%s\"",
                      msg_show(o.seed, buf, sizeof(buf)));
            return BRINK_EXIT_USAGE;
        }
    }
    if (listen_parse(o.listen, &ss, &len) != 0) {
        fprintf(
            stderr,
            "brink: target: --listen: expected ADDR:PORT such as 127.0.0.1:8080 or [::1]:0, got \"%s\"\n",
            msg_show(o.listen, buf, sizeof(buf)));
        return BRINK_EXIT_USAGE;
    }
    if (o.h2c && listen_parse(o.h2c, &h2c_ss, &h2c_len) != 0) {
        fprintf(
            stderr,
            "brink: target: --h2c: expected ADDR:PORT such as 127.0.0.1:8081 or [::1]:0, got \"%s\"\n",
            msg_show(o.h2c, buf, sizeof(buf)));
        return BRINK_EXIT_USAGE;
    }
    if (o.is_tls) {
        struct target_tls tls = {.cert = o.cert, .key = o.key, .cert_out = o.cert_out};
        int is_usage;

        if (tls_prepare(&tls, &pem, &is_usage, err, sizeof(err)) != 0) {
            msg_print(stderr, "brink: target: %s", err);
            return is_usage ? BRINK_EXIT_USAGE : BRINK_EXIT_RUNTIME;
        }
    }
    /* Block the stop signals before any thread starts, so every thread
     * inherits the mask and only sigwait below takes them. */
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    raise_nofile();
    fd = listen_open(&ss, len, o.is_tls ? "https" : "http", url, sizeof(url), err, sizeof(err));
    if (fd < 0) {
        msg_print(stderr, "brink: target: listen on %s: %s", msg_show(o.listen, buf, sizeof(buf)),
                  err);
        tlscert_pem_free(&pem);
        return BRINK_EXIT_RUNTIME;
    }
    if (o.h2c) {
        hl.fd = listen_open(&h2c_ss, h2c_len, "http", hl.url, sizeof(hl.url), err, sizeof(err));
        if (hl.fd < 0) {
            msg_print(stderr, "brink: target: --h2c: listen on %s: %s",
                      msg_show(o.h2c, buf, sizeof(buf)), err);
            close(fd);
            tlscert_pem_free(&pem);
            return BRINK_EXIT_RUNTIME;
        }
    }
    t = xcalloc(1, sizeof(*t));
    target_init(t, &s);
    if (target__files_open(t, s.files_dir, err, sizeof(err)) != 0) {
        msg_print(stderr, "brink: target: %s", err);
        rc = BRINK_EXIT_USAGE;
    } else {
        rc = serve(t, &fd, url, &o, o.is_tls ? &pem : NULL, &hl, &stop);
    }
    target_destroy(t);
    free(t);
    if (fd >= 0)
        close(fd);
    if (hl.fd >= 0)
        close(hl.fd);
    tlscert_pem_free(&pem);
    return rc;
}
