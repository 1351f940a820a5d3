/*
 * brink agent: the engine for a coordinator, over standard input and
 * output (record/wire.h, docs/agents.md), with the probes the experiment
 * puts on agents ([probe] on = agents). The [ramp] plan is the
 * coordinator's: it sends the levels. Standard error carries one-line
 * reasons, which the coordinator shows when the agent fails.
 */
#include "agents/agent.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/opts.h"
#include "cli/tables.h"
#include "config/config.h"
#include "core/board.h"
#include "core/chan.h"
#include "core/clock.h"
#include "core/exitcode.h"
#include "core/linebuf.h"
#include "core/msg.h"
#include "core/tick.h"
#include "engine/engine.h"
#include "probes/probes.h"
#include "record/record.h"
#include "record/wire.h"
#include "core/signals.h"

/* After the coordinator is gone, how long the engine may take to abort
 * what is in flight before the agent exits without it. */
#define ABORT_GRACE_MS 2000

struct agent {
    struct linebuf in;
    int is_in_open;
    uint64_t last_heard_ns;
    char root[PATH_MAX]; /* where the experiment's files were put; "" none */
};

static int send_msg(const struct wire_msg *m)
{
    size_t len;
    char *line = wire_encode(m, &len);
    int rc;

    if (!line)
        return -E2BIG;
    rc = fd_write_all(STDOUT_FILENO, line, len);
    free(line);
    return rc;
}

/* Says why the agent stops, to the coordinator and on stderr. */
static void fail_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail_msg(const char *fmt, ...)
{
    char text[WIRE_TEXT_MAX];
    struct wire_msg m = {.type = WIRE_ERROR, .text = text};
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    msg_print(stderr, "brink: agent: %s", text);
    send_msg(&m);
}

/*
 * The next message from the coordinator, waiting up to timeout_ms: 1 with
 * *m, 0 when none came, -EPIPE when the input closed, -EINVAL on a line
 * that is not the protocol (the reason printed).
 */
static int next_msg(struct agent *a, struct wire_msg *m, int timeout_ms)
{
    char why[256];

    for (;;) {
        struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
        size_t len;
        int too_long, rc;
        char *line = linebuf_next(&a->in, &len, &too_long);

        if (too_long) {
            fail_msg("a line longer than %u bytes from the coordinator", WIRE_LINE_MAX);
            return -EINVAL;
        }
        if (line) {
            a->last_heard_ns = clock_now_ns();
            if (wire_decode(line, len, m, why, sizeof(why)) != 0) {
                fail_msg("bad line from the coordinator: %s", why);
                return -EINVAL;
            }
            return 1;
        }
        if (!a->is_in_open)
            return -EPIPE;
        rc = poll(&p, 1, timeout_ms);
        if (rc == 0)
            return 0;
        if (rc < 0 && errno == EINTR)
            return 0;
        if (linebuf_fill(&a->in, STDIN_FILENO) <= 0)
            a->is_in_open = 0;
        timeout_ms = 0;
    }
}

/* Waits for a message of type want, answering pings; other messages are
 * refused. Returns 1, or what next_msg returns (0: silent too long). */
static int expect_msg(struct agent *a, enum wire_type want, struct wire_msg *m)
{
    for (;;) {
        int rc = next_msg(a, m, 100);

        if (rc == 1 && (signals_stops || signals_hangup))
            wire_msg_free(m);
        if (signals_stops || signals_hangup)
            return -EPIPE; /* stopped before the start */
        if (rc < 0)
            return rc;
        if (rc == 0) {
            if (clock_now_ns() - a->last_heard_ns > AGENT_SILENCE_MS * 1000000ull) {
                fail_msg("no word from the coordinator for %d ms", AGENT_SILENCE_MS);
                return 0;
            }
            continue;
        }
        if (m->type == want)
            return 1;
        if (m->type == WIRE_PING) {
            struct wire_msg pong = {.type = WIRE_PONG, .t_ns = m->t_ns, .peer_ns = clock_now_ns()};

            wire_msg_free(m);
            send_msg(&pong);
            continue;
        }
        if (m->type == WIRE_COMMAND && m->cmd.kind == CMD_STOP) {
            wire_msg_free(m);
            return -EPIPE; /* stopped before the start */
        }
        fail_msg("expected %s from the coordinator, got %s", wire_type_name(want),
                 wire_type_name(m->type));
        wire_msg_free(m);
        return -EINVAL;
    }
}

/* mkdir -p of path's directories (not its last part when is_file). */
static int make_dirs(char *path, int is_file)
{
    for (char *p = strchr(path + 1, '/');; p = strchr(p + 1, '/')) {
        if (!p && is_file)
            return 0;
        if (p)
            *p = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            int e = errno;

            if (p)
                *p = '/';
            return -e;
        }
        if (!p)
            return 0;
        *p = '/';
    }
}

/* Whether path is absolute with no empty, "." or ".." part: one that
 * cannot leave the experiment's directory once put under it. */
static int is_plain_path(const char *path)
{
    const char *p = path;

    if (*p != '/')
        return 0;
    while (*p == '/') {
        const char *end = strchr(p + 1, '/');
        size_t n = end ? (size_t)(end - p - 1) : strlen(p + 1);

        if (n == 0 || (n == 1 && p[1] == '.') || (n == 2 && p[1] == '.' && p[2] == '.'))
            return 0;
        p += n + 1;
    }
    return 1;
}

/* Puts a shipped file under root. 0, or a negative errno; -EINVAL when its
 * path is not plain (is_plain_path). */
static int put_file(const char *root, const char *path, const unsigned char *data, size_t len)
{
    char full[PATH_MAX * 2];
    FILE *f;
    int rc, fd;

    if (!is_plain_path(path))
        return -EINVAL;
    if (snprintf(full, sizeof(full), "%s%s", root, path) >= (int)sizeof(full))
        return -ENAMETOOLONG;
    rc = make_dirs(full, 1);
    if (rc != 0)
        return rc;
    /* Only ours to write, whatever the umask: a command probe runs only
     * from a file nobody else can change. */
    fd = open(full, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return errno == EEXIST ? 0 : -errno; /* the same file named twice */
    f = fdopen(fd, "wb");
    if (!f) {
        rc = -errno;
        close(fd);
        return rc;
    }
    rc = fwrite(data, 1, len, f) == len ? 0 : -EIO;
    if (fclose(f) != 0 && rc == 0)
        rc = -EIO;
    return rc;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void remove_root(struct agent *a)
{
    if (a->root[0])
        nftw(a->root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    a->root[0] = '\0';
}

/* put_file, saying why it failed (the name shown, sanitised). */
static int put_shipped(struct agent *a, const char *path, const unsigned char *data, size_t len)
{
    char shown[PATH_MAX];
    int rc = put_file(a->root, path, data, len);

    msg_show(path, shown, sizeof(shown));
    if (rc == -EINVAL)
        fail_msg("a shipped file's name was refused: \"%s\": expected an absolute path with "
                 "no \".\" or \"..\" part",
                 shown);
    else if (rc != 0)
        fail_msg("cannot write %s: %s", shown, msg_errno(-rc).text);
    return rc;
}

/*
 * The experiment as the coordinator has it: its files under a private
 * directory at their coordinator paths (so relative names resolve as
 * there), the working directory the same way, the config loaded with the
 * coordinator's command-line keys and this agent's share. Returns 0, or
 * the exit status (the reason sent).
 */
static int load_experiment(struct agent *a, const struct wire_msg *m, struct config *c)
{
    const char *tmp = getenv("TMPDIR");
    struct config_override *ov = calloc(m->n_overrides + 1, sizeof(*ov));
    struct config_opts opts = {.overrides = ov, .n_overrides = m->n_overrides};
    char path[PATH_MAX * 2], *err_text = NULL;
    size_t err_len = 0;
    FILE *err;
    int rc = 0;

    snprintf(a->root, sizeof(a->root), "%s/brink-agent-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!ov || !mkdtemp(a->root)) {
        a->root[0] = '\0';
        fail_msg("cannot make a directory for the experiment: %s", msg_errno(errno).text);
        free(ov);
        return BRINK_EXIT_RUNTIME;
    }
    for (uint32_t i = 0; i < m->n_files && rc == 0; i++)
        rc = put_shipped(a, m->files[i].path, m->files[i].data, m->files[i].len);
    if (rc == 0 && m->name[0] == '/')
        rc = put_shipped(a, m->name, (const unsigned char *)m->text, strlen(m->text));
    snprintf(path, sizeof(path), "%s%s", a->root, m->cwd[0] == '/' ? m->cwd : "/");
    if (rc == 0 && (make_dirs(path, 0) != 0 || chdir(path) != 0)) {
        fail_msg("cannot enter the working directory %s: %s", m->cwd, msg_errno(errno).text);
        rc = -EIO;
    }
    if (rc != 0) {
        free(ov);
        return BRINK_EXIT_RUNTIME;
    }
    for (uint32_t i = 0; i < m->n_overrides; i++)
        ov[i] = (struct config_override){m->overrides[i].flag, m->overrides[i].section,
                                         m->overrides[i].key, m->overrides[i].value};
    err = open_memstream(&err_text, &err_len);
    if (m->name[0] == '/') {
        snprintf(path, sizeof(path), "%s%s", a->root, m->name);
        rc = config_load_file(c, path, &opts, err ? err : stderr);
    } else {
        rc = config_load_string(c, m->name, m->text, &opts, err ? err : stderr);
    }
    if (err) {
        fclose(err);
        if (rc != 0) {
            /* The first line says it; all of them go to stderr. */
            char *nl = strchr(err_text, '\n');

            fputs(err_text, stderr);
            if (nl)
                *nl = '\0';
            fail_msg("the experiment was refused: %s", err_text);
        }
        free(err_text);
    }
    free(ov);
    return rc == 0 ? 0 : BRINK_EXIT_USAGE;
}

/* Hands each tick the engine published to the coordinator. Returns -EPIPE
 * once the coordinator cannot take them. */
static int send_ticks(struct chan *ch)
{
    struct tick *t;

    while ((t = chan_take(ch)) != NULL) {
        struct wire_msg m = {.type = WIRE_TICK, .tick = t};
        int rc = send_msg(&m);

        /* Said, not dropped in silence: the coordinator loses the agent for
         * the missing tick and shows this line. */
        if (rc == -E2BIG)
            fail_msg("tick %llu not sent: its line would be longer than %u bytes",
                     (unsigned long long)t->seq, (unsigned)RECORD_LINE_MAX);
        tick_free(t);
        if (rc == -EPIPE || rc == -EIO)
            return -EPIPE;
    }
    return 0;
}

/*
 * The run: commands and pings in, ticks out, until the engine is done.
 * When the coordinator goes away (input closed, silent for
 * AGENT_SILENCE_MS, a signal) the load stops at once, what is in flight is
 * aborted, and the agent leaves within ABORT_GRACE_MS.
 */
static int follow(struct agent *a, struct chan *ch)
{
    uint64_t abort_ns = 0;
    int rc = BRINK_EXIT_OK;

    while (!chan_is_done(ch)) {
        struct wire_msg m;
        int got = abort_ns ? 0 : next_msg(a, &m, 50);
        uint64_t now = clock_now_ns();

        if (abort_ns) {
            struct tick *t = chan_take_wait(ch, 50);

            tick_free(t);
            if (now - abort_ns > ABORT_GRACE_MS * 1000000ull)
                return -ETIMEDOUT;
            continue;
        }
        if (got == 1 && m.type == WIRE_COMMAND) {
            chan_send(ch, &m.cmd);
        } else if (got == 1 && m.type == WIRE_PING) {
            struct wire_msg pong = {.type = WIRE_PONG, .t_ns = m.t_ns, .peer_ns = now};

            send_msg(&pong);
        }
        if (got == 1)
            wire_msg_free(&m);
        if (got < 0 || send_ticks(ch) != 0 || signals_stops || signals_hangup ||
            now - a->last_heard_ns > AGENT_SILENCE_MS * 1000000ull) {
            struct command stop = {.kind = CMD_STOP};

            if (got == 0 && !signals_stops && !signals_hangup)
                msg_print(stderr, "brink: agent: no word from the coordinator for %d ms; stopping",
                          AGENT_SILENCE_MS);
            /* The second stop aborts what is in flight. */
            chan_send(ch, &stop);
            chan_send(ch, &stop);
            abort_ns = now;
            rc = BRINK_EXIT_RUNTIME;
        }
    }
    send_ticks(ch);
    return rc;
}

static int run_engine(struct agent *a, const struct config *c, const struct wire_msg *cfg,
                      uint64_t at_ns)
{
    struct chan *ch = chan_new(CHAN_TICKS_DEFAULT, CHAN_COMMANDS_DEFAULT);
    struct board *board = board_new();
    struct engine_params ep = {.config = c,
                               .chan = ch,
                               .seed = cfg->seed,
                               .board = board,
                               .start_ns = at_ns,
                               .no_plan = 1};
    /* The coordinator checked its own file before it shipped it. */
    struct probes_params pp = {.config = c,
                               .which = PROBES_AGENTS,
                               .board = board,
                               .start_ns = at_ns,
                               .allow_commands = 1};
    struct probes *probes = NULL;
    struct engine *e;
    sigset_t all, old;
    char err[512] = "";
    int rc;

    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    rc = probes_start(&pp, err, sizeof(err), &probes);
    if (rc == 0) {
        rc = engine_start(&ep, err, sizeof(err), &e);
        if (rc != 0)
            probes_stop(probes);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        fail_msg("%s", err);
        chan_free(ch);
        board_free(board);
        return BRINK_EXIT_RUNTIME;
    }
    rc = follow(a, ch);
    probes_stop(probes);
    if (rc == -ETIMEDOUT) {
        /* The workers are stuck and nobody waits for them. */
        msg_print(stderr, "brink: agent: the engine did not stop within %d ms; exiting",
                  ABORT_GRACE_MS);
        remove_root(a);
        _exit(BRINK_EXIT_RUNTIME);
    }
    engine_join(e);
    engine_free(e);
    chan_free(ch);
    board_free(board);
    return rc;
}

/* Sleeps until the clock reads at_ns, or returns at once if it has. */
static void wait_until(uint64_t at_ns)
{
    uint64_t now = clock_now_ns();

    if (at_ns > now) {
        uint64_t d = at_ns - now;
        struct timespec ts = {(time_t)(d / 1000000000ull), (long)(d % 1000000000ull)};

        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
}

static int handshake(struct agent *a)
{
    struct wire_msg hello = {.type = WIRE_HELLO, .protocol = WIRE_PROTOCOL}, m;
    int rc;

    snprintf(hello.brink, sizeof(hello.brink), "%s", BRINK_VERSION);
    if (send_msg(&hello) != 0)
        return BRINK_EXIT_RUNTIME;
    rc = expect_msg(a, WIRE_HELLO, &m);
    if (rc != 1)
        return rc == -EINVAL ? BRINK_EXIT_USAGE : BRINK_EXIT_RUNTIME;
    if (m.protocol != WIRE_PROTOCOL) {
        char theirs[64];

        fail_msg("protocol version mismatch: the coordinator (brink %s) speaks %u, this agent "
                 "(brink %s) speaks %u",
                 msg_show(m.brink, theirs, sizeof(theirs)), m.protocol, BRINK_VERSION,
                 WIRE_PROTOCOL);
        wire_msg_free(&m);
        return BRINK_EXIT_USAGE;
    }
    wire_msg_free(&m);
    return 0;
}

/* A stop the agent did not honour within its grace (core/signals.h): it is stuck
 * in its set-up (a script's setup, say). Its files go, and so does it. */
static void give_up(void *arg)
{
    static const char line[] = "brink: agent: stopped, and not done within the grace; exiting\n";
    ssize_t n = write(STDERR_FILENO, line, sizeof(line) - 1);

    (void)n;
    remove_root(arg);
    _exit(BRINK_EXIT_RUNTIME);
}

int agent_main(int argc, char **argv)
{
    struct agent a = {.is_in_open = 1};
    struct opts_parser p;
    struct opts_item it;
    struct wire_msg cfg, start;
    struct config c;
    char err[OPTS_ERR_MAX];
    int rc;

    opts_start(&p, &cli_agent, argc, argv);
    while ((rc = opts_next(&p, &it, err, sizeof(err))) != 0) {
        if (rc < 0)
            return opts_fail(&cli_agent, stderr, "%s", err);
        return opts_fail(&cli_agent, stderr, "unexpected argument \"%s\"", it.value);
    }
    signals_install();
    /* The run itself ends within ABORT_GRACE_MS of a stop (follow); this
     * covers the rest. */
    signals_arm(ABORT_GRACE_MS + 1000, give_up, &a);
    linebuf_init(&a.in, WIRE_LINE_MAX);
    a.last_heard_ns = clock_now_ns();
    rc = handshake(&a);
    if (rc == 0) {
        rc = expect_msg(&a, WIRE_CONFIG, &cfg);
        rc = rc == 1 ? 0 : rc == -EINVAL ? BRINK_EXIT_USAGE : BRINK_EXIT_RUNTIME;
        if (rc != 0) {
            linebuf_free(&a.in);
            return rc;
        }
        config_init(&c);
        rc = load_experiment(&a, &cfg, &c);
        if (rc == 0 && engine_global_init(err, sizeof(err)) != 0) {
            fail_msg("%s", err);
            config_free(&c);
            rc = BRINK_EXIT_RUNTIME;
        }
        if (rc == 0) {
            struct wire_msg ready = {.type = WIRE_READY};

            send_msg(&ready);
            rc = expect_msg(&a, WIRE_START, &start);
            if (rc == 1) {
                wait_until(start.at_ns);
                rc = run_engine(&a, &c, &cfg, start.at_ns);
                wire_msg_free(&start);
            } else {
                rc = rc == -EPIPE ? BRINK_EXIT_OK : BRINK_EXIT_RUNTIME;
            }
            engine_global_cleanup();
            config_free(&c);
        }
        wire_msg_free(&cfg);
    }
    remove_root(&a);
    linebuf_free(&a.in);
    return rc;
}
