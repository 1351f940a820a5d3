/*
 * The coordinator of a run with agents (coordinator.h, docs/agents.md).
 */
#include "coordinator.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/config.h"
#include "core/board.h"
#include "core/chan.h"
#include "core/clock.h"
#include "core/exitcode.h"
#include "core/linebuf.h"
#include "core/msg.h"
#include "core/regfile.h"
#include "core/sanitize.h"
#include "core/tick.h"
#include "core/tickmerge.h"
#include "core/xalloc.h"
#include "engine/engine.h"
#include "record/record.h"
#include "record/wire.h"
#include "recording.h"
#include "version.h"

extern char **environ;

#define MAX_WORDS 64         /* words of the ssh and brink commands together */
#define QUEUE_TICKS 8        /* ticks an agent may be ahead of the merge */
#define START_LEAD_MS 300    /* from the start message to the run's start */
#define PING_EVERY_MS 250    /* round trips for the clocks, and a sign of life */
#define PINGS_BEFORE_START 4 /* round trips before the offsets are trusted */
#define SEND_TIMEOUT_MS 1000 /* a message an agent cannot take in this long: lost */
#define KILL_GRACE_MS 3000   /* after SIGTERM, before SIGKILL */
#define STDERR_KEEP 200      /* bytes of an agent's last stderr line kept */

enum agent_phase { PH_HELLO, PH_READY, PH_RUNNING, PH_DONE, PH_LOST };

struct agent {
    char name[TICK_NAME_MAX];
    double weight;
    pid_t pid;
    int fd_in, fd_out, fd_err; /* its stdin (ours to write), stdout, stderr; -1 closed */
    struct linebuf out, err;
    char last_err[STDERR_KEEP]; /* its last stderr line, raw */
    enum agent_phase phase;
    char brink[32]; /* its version, from hello */
    struct wire_clock clock;
    uint64_t ping_ns; /* when the last ping left */
    struct tick *queue[QUEUE_TICKS];
    size_t n_queued;   /* ticks of seq next, next+1, ... in order */
    struct tick *last; /* its latest tick merged, for its row */
    int has_ended;     /* its done tick was merged */
    int has_sent_done; /* its done tick came: the link may close */
    int has_ticked;    /* a tick of its run came: it ran */
};

struct coord {
    const struct coord_params *p;
    struct coord_params params;
    uint32_t n;
    struct agent agents[CONFIG_MAX_AGENTS];
    int wake[2]; /* chan_send writes a byte: commands wait */
    pthread_t thread;
    int has_thread;
    uint64_t start_ns; /* the run's start on our clock */
    uint64_t tick_ns;
    uint64_t next_seq; /* the merged tick to make next */
    struct tick_merge *merge;
    struct tick *pending_events; /* our own events for the next merged tick */
    uint64_t last_ping_ns;
    double level_users; /* the total target, from the latest merged tick */
    double level_rate;
    int is_open_model;
};

/* ------------------------------------------------------------ the split */

void coord_split(uint64_t total, const double *weights, size_t n, uint64_t *shares)
{
    double sum = 0, rem[CONFIG_MAX_AGENTS];
    uint64_t given = 0;

    for (size_t i = 0; i < n; i++)
        sum += weights ? weights[i] : 1.0;
    for (size_t i = 0; i < n; i++) {
        double exact = (double)total * (weights ? weights[i] : 1.0) / sum;

        shares[i] = (uint64_t)floor(exact);
        rem[i] = exact - (double)shares[i];
        given += shares[i];
    }
    /* The units left over go to the largest remainders, the first on ties. */
    while (given < total) {
        size_t best = 0;

        for (size_t i = 1; i < n; i++) {
            if (rem[i] > rem[best])
                best = i;
        }
        shares[best]++;
        rem[best] = -1;
        given++;
    }
}

static const double *weights_of(const struct coord *c, double *w)
{
    for (uint32_t i = 0; i < c->n; i++)
        w[i] = c->agents[i].weight;
    return w;
}

/* -------------------------------------------------------------- sending */

/* Writes the whole line to a non-blocking pipe within SEND_TIMEOUT_MS. */
static int send_line(struct agent *a, const char *line, size_t len)
{
    uint64_t deadline = clock_now_ns() + SEND_TIMEOUT_MS * 1000000ull;

    while (len > 0) {
        ssize_t n;

        if (a->fd_in < 0)
            return -EPIPE;
        n = write(a->fd_in, line, len);
        if (n > 0) {
            line += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return -errno;
        if (clock_now_ns() > deadline)
            return -ETIMEDOUT;
        struct pollfd pf = {.fd = a->fd_in, .events = POLLOUT};
        poll(&pf, 1, 50);
    }
    return 0;
}

static int send_msg(struct agent *a, const struct wire_msg *m)
{
    size_t len;
    char *line = wire_encode(m, &len);
    int rc;

    if (!line)
        return -E2BIG;
    rc = send_line(a, line, len);
    free(line);
    return rc;
}

/* ------------------------------------------------------------- spawning */

/* Appends the words of s (split at blanks) to argv. */
static int add_words(char *copy, char **argv, int *argc)
{
    for (char *w = strtok(copy, " \t"); w; w = strtok(NULL, " \t")) {
        if (*argc >= MAX_WORDS - 2)
            return -E2BIG;
        argv[(*argc)++] = w;
    }
    return 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* `SSH... HOST BRINK... agent`, its stdin, stdout and stderr pipes ours. */
static int spawn_agent(const struct config *cfg, struct agent *a, char *err, size_t err_len)
{
    char *ssh = xstrdup(cfg->agents.ssh.value ? cfg->agents.ssh.value : "ssh -o BatchMode=yes");
    char *brink = xstrdup(cfg->agents.brink.value ? cfg->agents.brink.value : "brink");
    char *argv[MAX_WORDS];
    int argc = 0, in[2] = {-1, -1}, out[2] = {-1, -1}, er[2] = {-1, -1}, rc;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, all;

    rc = add_words(ssh, argv, &argc);
    if (rc == 0 && argc < MAX_WORDS - 2)
        argv[argc++] = a->name;
    if (rc == 0)
        rc = add_words(brink, argv, &argc);
    if (rc == 0 && argc < MAX_WORDS - 1)
        argv[argc++] = "agent";
    argv[argc] = NULL;
    if (rc != 0) {
        msg_set(err, err_len, "brink: run: [agents] ssh and brink: more than %d words",
                MAX_WORDS - 3);
        free(ssh);
        free(brink);
        return BRINK_EXIT_USAGE;
    }
    if (pipe(in) != 0 || pipe(out) != 0 || pipe(er) != 0) {
        rc = -errno;
        goto fail;
    }
    /* Ours are not inherited by the other agents. */
    fcntl(in[1], F_SETFD, FD_CLOEXEC);
    fcntl(out[0], F_SETFD, FD_CLOEXEC);
    fcntl(er[0], F_SETFD, FD_CLOEXEC);
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, er[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&fa, in[0]);
    posix_spawn_file_actions_addclose(&fa, out[1]);
    posix_spawn_file_actions_addclose(&fa, er[1]);
    posix_spawnattr_init(&at);
    /* Its own process group, so the terminal's Ctrl-C reaches the
     * coordinator alone, which stops the agents in order; signals as
     * default and unblocked (brink ignores SIGPIPE, ssh must not). */
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETPGROUP);
    rc = -posix_spawnp(&a->pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc != 0)
        goto fail;
    close(in[0]);
    close(out[1]);
    close(er[1]);
    a->fd_in = in[1];
    a->fd_out = out[0];
    a->fd_err = er[0];
    free(ssh);
    free(brink);
    return 0;
fail : {
    char shown[128];

    msg_set(err, err_len, "brink: run: agent %s: cannot start %s: %s",
            msg_show(a->name, shown, sizeof(shown)), argv[0], msg_errno(-rc).text);
}
    for (int i = 0; i < 2; i++) {
        close_fd(&in[i]);
        close_fd(&out[i]);
        close_fd(&er[i]);
    }
    free(ssh);
    free(brink);
    return BRINK_EXIT_RUNTIME;
}

/* ---------------------------------------------------------- the experiment */

static char *read_text(const char *path, size_t *len)
{
    char why[256];
    FILE *f;
    char *buf = NULL;
    size_t cap = 0;

    *len = 0;
    if (regfile_open(path, CONFIG_FILE_MAX_BYTES, &f, why, sizeof(why)) != 0)
        return NULL;
    for (;;) {
        size_t n;

        if (cap - *len < 65536) {
            cap = *len + 65536 + 1;
            buf = xrealloc(buf, cap);
        }
        n = fread(buf + *len, 1, cap - *len - 1, f);
        *len += n;
        if (n == 0)
            break;
    }
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

/* A file the experiment names, shipped at its absolute path. */
static int add_file(struct wire_msg *m, const char *path, char *err, size_t err_len)
{
    char real[PATH_MAX], shown[256];
    struct wire_file *f;

    if (!path)
        return 0;
    if (!realpath(path, real)) {
        msg_set(err, err_len, "brink: run: %s: %s", msg_show(path, shown, sizeof(shown)),
                msg_errno(errno).text);
        return -errno;
    }
    for (uint32_t i = 0; i < m->n_files; i++) {
        if (strcmp(m->files[i].path, real) == 0)
            return 0;
    }
    if (m->n_files == WIRE_MAX_FILES) {
        msg_set(err, err_len, "brink: run: the experiment names more than %d files to ship",
                WIRE_MAX_FILES);
        return -E2BIG;
    }
    f = &m->files[m->n_files];
    f->data = (unsigned char *)read_text(real, &f->len);
    if (!f->data) {
        msg_set(err, err_len, "brink: run: %s: cannot read it to ship it to the agents",
                msg_show(path, shown, sizeof(shown)));
        return -EIO;
    }
    f->path = xstrdup(real);
    m->n_files++;
    return 0;
}

static void add_override(struct wire_msg *m, const char *section, const char *key,
                         const char *value)
{
    m->overrides[m->n_overrides++] =
        (struct wire_override){xstrdup("[agents]"), xstrdup(section), xstrdup(key), xstrdup(value)};
}

/* What every agent gets: the file, its files, the command line. */
static int build_config(const struct coord *c, struct wire_msg *m, char *err, size_t err_len)
{
    const struct config *cfg = c->p->config;
    char real[PATH_MAX], shown[256];
    size_t len;

    memset(m, 0, sizeof(*m));
    m->type = WIRE_CONFIG;
    m->files = xcalloc(WIRE_MAX_FILES, sizeof(*m->files));
    m->overrides = xcalloc(WIRE_MAX_OVERRIDES, sizeof(*m->overrides));
    if (c->p->config_path) {
        if (!realpath(c->p->config_path, real) || !(m->text = read_text(real, &len))) {
            msg_set(err, err_len, "brink: run: %s: cannot read it to ship it to the agents",
                    msg_show(c->p->config_path, shown, sizeof(shown)));
            return BRINK_EXIT_USAGE;
        }
        m->name = xstrdup(real);
    } else {
        m->name = xstrdup("command line");
        m->text = xstrdup("");
    }
    m->cwd = xstrdup(getcwd(real, sizeof(real)) ? real : "/");
    for (uint32_t i = 0; i < cfg->n_requests; i++) {
        if (cfg->requests[i].body_kind == CONFIG_BODY_FILE &&
            add_file(m, cfg->requests[i].body_path, err, err_len) != 0)
            return BRINK_EXIT_USAGE;
    }
    if (add_file(m, cfg->scenario.script.value, err, err_len) != 0 ||
        add_file(m, cfg->target.ca_file.value, err, err_len) != 0 ||
        add_file(m, cfg->target.client_cert.value, err, err_len) != 0 ||
        add_file(m, cfg->target.client_key.value, err, err_len) != 0)
        return BRINK_EXIT_USAGE;
    for (uint32_t i = 0; i < cfg->agents.n_files; i++) {
        if (add_file(m, cfg->agents.files[i], err, err_len) != 0)
            return BRINK_EXIT_USAGE;
    }
    if (c->p->n_overrides + 16 > WIRE_MAX_OVERRIDES) {
        msg_set(err, err_len, "brink: run: too many options to ship to the agents");
        return BRINK_EXIT_USAGE;
    }
    for (size_t i = 0; i < c->p->n_overrides; i++) {
        const struct config_override *o = &c->p->overrides[i];

        m->overrides[m->n_overrides++] = (struct wire_override){
            xstrdup(o->flag), xstrdup(o->section), xstrdup(o->key), xstrdup(o->value)};
    }
    m->seed = c->p->seed;
    m->start_ramp = c->p->start_ramp;
    return 0;
}

/* Agent i's share: concurrency, rate, requests, in-flight cap and ramp
 * steps in proportion to its weight; the run's duration as the coordinator
 * settled it. The overrides added are removed by drop_share. */
static int add_share(const struct coord *c, uint32_t i, struct wire_msg *m, char *err,
                     size_t err_len)
{
    const struct config *cfg = c->p->config;
    const struct config_load *l = &cfg->load;
    double w[CONFIG_MAX_AGENTS], sum = 0, f;
    uint64_t shares[CONFIG_MAX_AGENTS];
    char v[64], steps[CONFIG_MAX_RAMP_STEPS * 24], shown[128];
    size_t used = 0;

    weights_of(c, w);
    for (uint32_t k = 0; k < c->n; k++)
        sum += w[k];
    f = w[i] / sum;
    coord_split(l->concurrency, w, c->n, shares);
    if (shares[i] == 0 && l->mode == CONFIG_MODE_CLOSED) {
        msg_set(err, err_len,
                "brink: run: agent %s: concurrency %u leaves it no user (expected at least "
                "one user per agent)",
                msg_show(c->agents[i].name, shown, sizeof(shown)), l->concurrency);
        return BRINK_EXIT_USAGE;
    }
    snprintf(v, sizeof(v), "%llu", (unsigned long long)(shares[i] ? shares[i] : 1));
    add_override(m, "load", "concurrency", v);
    if (l->rate_per_s > 0) {
        snprintf(v, sizeof(v), "%.17g/s", l->rate_per_s * f);
        add_override(m, "load", "rate", v);
    }
    if (l->requests) {
        coord_split(l->requests, w, c->n, shares);
        snprintf(v, sizeof(v), "%llu", (unsigned long long)(shares[i] ? shares[i] : 1));
        add_override(m, "load", "requests", v);
    }
    coord_split(l->max_in_flight, w, c->n, shares);
    snprintf(v, sizeof(v), "%llu", (unsigned long long)(shares[i] ? shares[i] : 1));
    add_override(m, "load", "max_in_flight", v);
    snprintf(v, sizeof(v), "%lluus", (unsigned long long)l->duration_us);
    add_override(m, "load", "duration", l->duration_us ? v : "0");
    if (cfg->ramp.n_steps && !cfg->ramp.key_line[CONFIG_RAMP_START]) {
        steps[0] = '\0';
        for (uint32_t s = 0; s < cfg->ramp.n_steps; s++) {
            double level = cfg->ramp.steps[s] * f;

            level = l->mode == CONFIG_MODE_CLOSED ? fmax(1, round(level)) : level;
            used += (size_t)snprintf(steps + used, sizeof(steps) - used, "%s%.17g", s ? ", " : "",
                                     level);
        }
        add_override(m, "ramp", "steps", steps);
    }
    return 0;
}

static void drop_share(struct wire_msg *m, uint32_t n_base)
{
    while (m->n_overrides > n_base) {
        struct wire_override *o = &m->overrides[--m->n_overrides];

        free(o->flag);
        free(o->section);
        free(o->key);
        free(o->value);
    }
}

/* -------------------------------------------------------------- reading */

static void keep_stderr(struct agent *a)
{
    size_t len;
    int too_long;
    char *line;

    while ((line = linebuf_next(&a->err, &len, &too_long)) != NULL || too_long) {
        if (line && len > 0)
            snprintf(a->last_err, sizeof(a->last_err), "%s", line);
    }
}

/* Reads what an agent's stderr has; stops at its end. */
static void read_stderr(struct agent *a)
{
    if (a->fd_err < 0)
        return;
    if (linebuf_fill(&a->err, a->fd_err) <= 0) {
        close_fd(&a->fd_err);
        /* A last line without its newline still counts. */
        if (a->err.len > a->err.pos) {
            a->err.buf[a->err.len] = '\0';
            snprintf(a->last_err, sizeof(a->last_err), "%s", a->err.buf + a->err.pos);
            a->err.pos = a->err.len;
        }
        return;
    }
    keep_stderr(a);
}

/* What an agent said last on stderr, sanitised, for a message. */
static const char *said(const struct agent *a, char *buf, size_t cap)
{
    char clean[STDERR_KEEP * 4];

    if (!a->last_err[0]) {
        snprintf(buf, cap, "nothing on stderr");
        return buf;
    }
    sanitize_line(a->last_err, strlen(a->last_err), clean, sizeof(clean));
    snprintf(buf, cap, "it said \"%s\"", clean);
    return buf;
}

static void reap(struct agent *a, int *status)
{
    *status = -1;
    if (a->pid > 0 && waitpid(a->pid, status, WNOHANG) == a->pid)
        a->pid = 0;
}

/* ----------------------------------------------------------- handshake */

static void close_agent(struct agent *a)
{
    close_fd(&a->fd_in);
    close_fd(&a->fd_out);
    close_fd(&a->fd_err);
}

static void ping(struct agent *a, uint64_t now)
{
    struct wire_msg m = {.type = WIRE_PING, .t_ns = now};

    a->ping_ns = now;
    send_msg(a, &m);
}

/*
 * Handles one line of an agent before the start. Returns 0, or an exit
 * status with err set.
 */
static int take_early(struct coord *c, struct agent *a, const char *line, size_t len,
                      const struct wire_msg *cfg, char *err, size_t err_len)
{
    struct wire_msg m;
    char why[256], shown[128], brink[64];
    int rc = 0;

    msg_show(a->name, shown, sizeof(shown));
    if (wire_decode(line, len, &m, why, sizeof(why)) != 0) {
        msg_set(err, err_len, "brink: run: agent %s: not the agent protocol: %s", shown, why);
        return BRINK_EXIT_RUNTIME;
    }
    if (m.type == WIRE_HELLO && a->phase == PH_HELLO) {
        struct wire_msg hello = {.type = WIRE_HELLO, .protocol = WIRE_PROTOCOL};

        snprintf(a->brink, sizeof(a->brink), "%s", m.brink);
        if (m.protocol != WIRE_PROTOCOL) {
            msg_set(err, err_len,
                    "brink: run: agent %s: protocol version mismatch: this coordinator (brink "
                    "%s) speaks %u, the agent (brink %s) speaks %u",
                    shown, BRINK_VERSION, WIRE_PROTOCOL, msg_show(m.brink, brink, sizeof(brink)),
                    m.protocol);
            rc = BRINK_EXIT_USAGE;
        } else {
            struct wire_msg mine = *cfg;
            uint32_t base = mine.n_overrides;

            snprintf(hello.brink, sizeof(hello.brink), "%s", BRINK_VERSION);
            rc = add_share(c, (uint32_t)(a - c->agents), &mine, err, err_len);
            if (rc == 0 && (send_msg(a, &hello) != 0 || send_msg(a, &mine) != 0)) {
                msg_set(err, err_len, "brink: run: agent %s: the link closed during the hello",
                        shown);
                rc = BRINK_EXIT_RUNTIME;
            }
            drop_share(&mine, base);
            ping(a, clock_now_ns());
            a->phase = PH_READY;
        }
    } else if (m.type == WIRE_READY && a->phase == PH_READY) {
        a->phase = PH_RUNNING;
    } else if (m.type == WIRE_PONG) {
        wire_clock_add(&a->clock, m.t_ns, m.peer_ns, clock_now_ns());
    } else if (m.type == WIRE_ERROR) {
        char clean[WIRE_TEXT_MAX];

        sanitize_line(m.text, strlen(m.text), clean, sizeof(clean));
        msg_set(err, err_len, "brink: run: agent %s: %s", shown, clean);
        rc = strstr(m.text, "mismatch") || strstr(m.text, "refused") ? BRINK_EXIT_USAGE
                                                                     : BRINK_EXIT_RUNTIME;
    } else {
        msg_set(err, err_len, "brink: run: agent %s: unexpected %s before the start", shown,
                wire_type_name(m.type));
        rc = BRINK_EXIT_RUNTIME;
    }
    wire_msg_free(&m);
    return rc;
}

static int all_ready(const struct coord *c)
{
    for (uint32_t i = 0; i < c->n; i++) {
        if (c->agents[i].phase != PH_RUNNING || c->agents[i].clock.samples < PINGS_BEFORE_START)
            return 0;
    }
    return 1;
}

/* Until every agent is ready with its clock known, or one fails. */
static int handshake(struct coord *c, const struct wire_msg *cfg, char *err, size_t err_len)
{
    uint64_t deadline = clock_now_ns() + COORD_READY_TIMEOUT_MS * 1000000ull;

    while (!all_ready(c)) {
        struct pollfd pf[CONFIG_MAX_AGENTS * 2];
        uint64_t now = clock_now_ns();
        int n = 0;

        if (now > deadline) {
            for (uint32_t i = 0; i < c->n; i++) {
                struct agent *a = &c->agents[i];
                char shown[128], s[STDERR_KEEP * 4 + 16];

                if (a->phase == PH_RUNNING && a->clock.samples >= PINGS_BEFORE_START)
                    continue;
                msg_set(err, err_len, "brink: run: agent %s: not ready within %d s (%s; %s)",
                        msg_show(a->name, shown, sizeof(shown)), COORD_READY_TIMEOUT_MS / 1000,
                        a->phase == PH_HELLO ? "no hello" : "no ready", said(a, s, sizeof(s)));
                break;
            }
            return BRINK_EXIT_RUNTIME;
        }
        for (uint32_t i = 0; i < c->n; i++) {
            struct agent *a = &c->agents[i];

            pf[n++] = (struct pollfd){.fd = a->fd_out, .events = POLLIN};
            pf[n++] = (struct pollfd){.fd = a->fd_err, .events = POLLIN};
            /* Quick round trips until the clock is known, then one every
             * PING_EVERY_MS: a ready agent waiting for a slower host to
             * log in must keep hearing from its coordinator, or it gives
             * up on it. */
            if (a->phase != PH_HELLO &&
                now - a->ping_ns >
                    (a->clock.samples < PINGS_BEFORE_START ? 50ull : PING_EVERY_MS) * 1000000ull)
                ping(a, now);
        }
        poll(pf, (nfds_t)n, 50);
        for (uint32_t i = 0; i < c->n; i++) {
            struct agent *a = &c->agents[i];
            char *line;
            size_t len;
            int too_long, rc;

            if (pf[2 * i + 1].revents)
                read_stderr(a);
            if (!pf[2 * i].revents)
                continue;
            if (linebuf_fill(&a->out, a->fd_out) <= 0) {
                char shown[128], s[STDERR_KEEP * 4 + 16];
                int status;

                /* Its last words first. */
                for (int k = 0; k < 20 && a->fd_err >= 0; k++) {
                    struct pollfd e = {.fd = a->fd_err, .events = POLLIN};

                    if (poll(&e, 1, 50) <= 0)
                        break;
                    read_stderr(a);
                }
                reap(a, &status);
                msg_set(err, err_len, "brink: run: agent %s: exited before it was ready (%s)",
                        msg_show(a->name, shown, sizeof(shown)), said(a, s, sizeof(s)));
                return BRINK_EXIT_RUNTIME;
            }
            while ((line = linebuf_next(&a->out, &len, &too_long)) != NULL) {
                rc = take_early(c, a, line, len, cfg, err, err_len);
                if (rc != 0)
                    return rc;
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------- the run */

static void add_event(struct coord *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_event(struct coord *c, const char *fmt, ...)
{
    char text[TICK_TEXT_MAX];
    va_list ap;
    uint64_t now = clock_now_ns();

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (!c->pending_events)
        c->pending_events = tick_new(0);
    tick_add_event(c->pending_events, EV_NOTICE,
                   now > c->start_ns ? (now - c->start_ns) / 1000000 : 0, text);
}

static void lose(struct coord *c, struct agent *a, const char *why)
{
    char s[STDERR_KEEP * 4 + 16];
    int status;

    if (a->phase == PH_LOST || a->phase == PH_DONE)
        return;
    a->phase = PH_LOST;
    reap(a, &status);
    if (a->pid > 0)
        kill(a->pid, SIGTERM);
    close_fd(&a->fd_in);
    close_fd(&a->fd_out);
    add_event(c, "agent %s lost: %s (%s); the run goes on with the others", a->name, why,
              said(a, s, sizeof(s)));
}

/* An agent's tick: named, its events naming it, recorded, queued. */
static void take_tick(struct coord *c, struct agent *a, struct tick *t)
{
    if (a->phase != PH_RUNNING) {
        tick_free(t);
        return;
    }
    snprintf(t->agent, sizeof(t->agent), "%s", a->name);
    a->has_ticked = 1;
    for (uint32_t i = 0; i < t->n_events; i++) {
        char text[TICK_NAME_MAX + TICK_TEXT_MAX + 2];

        snprintf(text, sizeof(text), "%s: %s", a->name, t->events[i].text);
        tick_copy_text(t->events[i].text, sizeof(t->events[i].text), text);
    }
    recording_push_agent(c->p->recording, t);
    if (t->state == RUN_DONE)
        a->has_sent_done = 1;
    if (t->seq < c->next_seq + a->n_queued || a->n_queued == QUEUE_TICKS) {
        /* Not the tick expected next (a repeat), or too far ahead. */
        tick_free(t);
        return;
    }
    a->queue[a->n_queued++] = t;
}

static void take_line(struct coord *c, struct agent *a, const char *line, size_t len)
{
    struct wire_msg m;
    char why[256];

    if (wire_decode(line, len, &m, why, sizeof(why)) != 0) {
        char text[300];

        snprintf(text, sizeof(text), "a line not of the protocol (%s)", why);
        lose(c, a, text);
        return;
    }
    if (m.type == WIRE_TICK) {
        take_tick(c, a, m.tick);
        m.tick = NULL;
    } else if (m.type == WIRE_PONG) {
        wire_clock_add(&a->clock, m.t_ns, m.peer_ns, clock_now_ns());
    } else if (m.type == WIRE_ERROR) {
        snprintf(a->last_err, sizeof(a->last_err), "%s", m.text);
    }
    wire_msg_free(&m);
}

/* Sends cmd to every running agent, split where it names an amount. */
static void forward(struct coord *c, const struct command *in)
{
    double w[CONFIG_MAX_AGENTS], sum = 0;
    uint64_t shares[CONFIG_MAX_AGENTS];
    struct command cmd = *in;
    const struct config_load *l = &c->p->config->load;

    if (cmd.kind == CMD_MARK) {
        add_event(c, "mark: %s", cmd.note);
        return;
    }
    if (cmd.kind >= CMD_REPLAY_PAUSE)
        return;
    /* A step is a change of the whole run's level: one level, split. */
    if (cmd.kind == CMD_STEP && c->is_open_model) {
        cmd.kind = CMD_SET_RATE;
        cmd.rate_per_s =
            fmax(ENGINE_RATE_MIN_PER_S, c->level_rate + (double)cmd.n * l->rate_step_per_s);
    } else if (cmd.kind == CMD_STEP) {
        cmd.kind = CMD_SET_CONCURRENCY;
        cmd.n = (int64_t)fmax(1, c->level_users + (double)cmd.n * l->step);
    } else if (cmd.kind == CMD_SET_CONCURRENCY && c->is_open_model) {
        cmd.kind = CMD_SET_RATE;
        cmd.rate_per_s = (double)cmd.n;
    }
    weights_of(c, w);
    for (uint32_t i = 0; i < c->n; i++)
        sum += w[i];
    if (cmd.kind == CMD_SET_CONCURRENCY || cmd.kind == CMD_DROP)
        coord_split(cmd.n > 0 ? (uint64_t)cmd.n : 0, w, c->n, shares);
    for (uint32_t i = 0; i < c->n; i++) {
        struct agent *a = &c->agents[i];
        struct wire_msg m = {.type = WIRE_COMMAND, .cmd = cmd};

        if (a->phase != PH_RUNNING)
            continue;
        if (cmd.kind == CMD_SET_CONCURRENCY)
            m.cmd.n = shares[i] ? (int64_t)shares[i] : 1;
        else if (cmd.kind == CMD_DROP)
            m.cmd.n = (int64_t)shares[i];
        else if (cmd.kind == CMD_SET_RATE)
            m.cmd.rate_per_s = fmax(ENGINE_RATE_MIN_PER_S, cmd.rate_per_s * w[i] / sum);
        if (cmd.kind == CMD_DROP && m.cmd.n == 0)
            continue;
        if (send_msg(a, &m) != 0)
            lose(c, a, "its link refused a command");
    }
}

static int is_live(const struct agent *a)
{
    return a->phase == PH_RUNNING;
}

/* When the merged tick next_seq can be made: every running agent has its
 * tick queued; an agent COORD_LOST_TICKS ticks late is lost first. */
static int merge_ready(struct coord *c, uint64_t now)
{
    uint64_t due = c->start_ns + (c->next_seq + 1 + COORD_LOST_TICKS) * c->tick_ns;
    int waiting = 0, any = 0;

    for (uint32_t i = 0; i < c->n; i++) {
        struct agent *a = &c->agents[i];

        if (!is_live(a))
            continue;
        if (a->n_queued > 0) {
            any = 1;
            continue;
        }
        if (now > due) {
            char why[96];

            snprintf(why, sizeof(why), "no tick %llu for %d ticks", (unsigned long long)c->next_seq,
                     COORD_LOST_TICKS + 1);
            lose(c, a, why);
            continue;
        }
        waiting = 1;
    }
    return any && !waiting;
}

static void fill_row(const struct coord *c, const struct agent *a, const struct tick *t,
                     struct tick_agent *row)
{
    (void)c;
    snprintf(row->name, sizeof(row->name), "%s", a->name);
    row->is_lost = a->phase == PH_LOST;
    row->is_in = t != NULL || a->has_ended;
    if (t) {
        row->completed = t->total.completed;
        row->errors = t->total.completed - t->total.ok;
        row->loop_lag_us = t->health.loop_lag_us;
    }
    row->offset_us = a->clock.offset_ns / 1000;
}

static void merge_next(struct coord *c)
{
    const struct tick *src[CONFIG_MAX_AGENTS];
    struct tick *taken[CONFIG_MAX_AGENTS] = {0};
    struct tick *t;
    size_t n = 0;

    for (uint32_t i = 0; i < c->n; i++) {
        struct agent *a = &c->agents[i];

        if (!is_live(a) || a->n_queued == 0)
            continue;
        taken[i] = a->queue[0];
        memmove(a->queue, a->queue + 1, (a->n_queued - 1) * sizeof(a->queue[0]));
        a->n_queued--;
        src[n++] = taken[i];
    }
    t = tick_merge_next(c->merge, src, n);
    t->seq = c->next_seq++;
    for (uint32_t i = 0; i < c->n; i++) {
        struct agent *a = &c->agents[i];

        fill_row(c, a, taken[i], &t->agents[t->n_agents++]);
        if (taken[i] && taken[i]->state == RUN_DONE) {
            a->has_ended = 1;
            a->phase = PH_DONE;
        }
    }
    if (c->pending_events) {
        for (uint32_t e = 0; e < c->pending_events->n_events; e++)
            tick_add_event(t, c->pending_events->events[e].kind, c->pending_events->events[e].at_ms,
                           c->pending_events->events[e].text);
        tick_free(c->pending_events);
        c->pending_events = NULL;
    }
    if (c->p->board)
        board_fill(c->p->board, t);
    c->is_open_model = t->model == LOAD_OPEN;
    c->level_users = t->target_concurrency;
    c->level_rate = t->target_rate_per_s;
    for (uint32_t i = 0; i < c->n; i++) {
        if (taken[i]) {
            tick_free(c->agents[i].last);
            c->agents[i].last = taken[i];
        }
    }
    chan_publish(c->p->chan, t);
}

static int any_live(const struct coord *c)
{
    for (uint32_t i = 0; i < c->n; i++) {
        if (is_live(&c->agents[i]))
            return 1;
    }
    return 0;
}

static void on_wake(void *arg)
{
    struct coord *c = arg;
    char b = 1;
    ssize_t n = write(c->wake[1], &b, 1);

    (void)n; /* a full pipe already wakes the thread */
}

static void read_agent(struct coord *c, struct agent *a)
{
    char *line;
    size_t len;
    int too_long;

    if (linebuf_fill(&a->out, a->fd_out) <= 0) {
        for (int k = 0; k < 10 && a->fd_err >= 0; k++) {
            struct pollfd e = {.fd = a->fd_err, .events = POLLIN};

            if (poll(&e, 1, 20) <= 0)
                break;
            read_stderr(a);
        }
        /* Ticks it sent before it went still count. */
        while ((line = linebuf_next(&a->out, &len, &too_long)) != NULL)
            take_line(c, a, line, len);
        if (a->has_sent_done) {
            /* It ended as planned: its last ticks wait for the merge. */
            close_agent(a);
            return;
        }
        lose(c, a, "its link closed");
        return;
    }
    while ((line = linebuf_next(&a->out, &len, &too_long)) != NULL || too_long) {
        if (too_long) {
            lose(c, a, "a line too long");
            return;
        }
        take_line(c, a, line, len);
    }
}

static void *run(void *arg)
{
    struct coord *c = arg;

    for (;;) {
        struct pollfd pf[CONFIG_MAX_AGENTS * 2 + 1];
        uint64_t now = clock_now_ns();
        struct command cmd;
        int n = 0;

        if (!any_live(c)) {
            /* What is queued of agents that ended is merged already. */
            break;
        }
        pf[n++] = (struct pollfd){.fd = c->wake[0], .events = POLLIN};
        for (uint32_t i = 0; i < c->n; i++) {
            pf[n++] = (struct pollfd){.fd = c->agents[i].fd_out, .events = POLLIN};
            pf[n++] = (struct pollfd){.fd = c->agents[i].fd_err, .events = POLLIN};
        }
        poll(pf, (nfds_t)n, 50);
        if (pf[0].revents) {
            char buf[64];
            ssize_t r = read(c->wake[0], buf, sizeof(buf));

            (void)r;
        }
        while (chan_recv(c->p->chan, &cmd))
            forward(c, &cmd);
        for (uint32_t i = 0; i < c->n; i++) {
            struct agent *a = &c->agents[i];

            if (pf[2 + 2 * i].revents)
                read_stderr(a);
            if (pf[1 + 2 * i].revents && a->fd_out >= 0)
                read_agent(c, a);
        }
        now = clock_now_ns();
        if (now - c->last_ping_ns > PING_EVERY_MS * 1000000ull) {
            c->last_ping_ns = now;
            for (uint32_t i = 0; i < c->n; i++) {
                if (is_live(&c->agents[i]))
                    ping(&c->agents[i], now);
            }
        }
        while (merge_ready(c, now))
            merge_next(c);
    }
    /* Events of the last moments (an agent lost at the end) in a last tick. */
    if (c->pending_events && c->next_seq > 0) {
        struct tick *t = tick_new(0);

        t->seq = c->next_seq;
        t->state = RUN_DONE;
        t->start_us = (c->next_seq) * (c->tick_ns / 1000);
        t->duration_us = 0;
        for (uint32_t i = 0; i < c->n; i++)
            fill_row(c, &c->agents[i], NULL, &t->agents[t->n_agents++]);
        for (uint32_t e = 0; e < c->pending_events->n_events; e++)
            tick_add_event(t, c->pending_events->events[e].kind, c->pending_events->events[e].at_ms,
                           c->pending_events->events[e].text);
        chan_publish(c->p->chan, t);
    }
    chan_close(c->p->chan);
    return NULL;
}

/* ------------------------------------------------------------ lifetime */

static void stop_agents(struct coord *c)
{
    uint64_t deadline;

    for (uint32_t i = 0; i < c->n; i++) {
        close_agent(&c->agents[i]);
        if (c->agents[i].pid > 0)
            kill(c->agents[i].pid, SIGTERM);
    }
    deadline = clock_now_ns() + KILL_GRACE_MS * 1000000ull;
    for (;;) {
        int left = 0;

        for (uint32_t i = 0; i < c->n; i++) {
            int status;

            reap(&c->agents[i], &status);
            left += c->agents[i].pid > 0;
        }
        if (!left)
            return;
        if (clock_now_ns() > deadline)
            break;
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    for (uint32_t i = 0; i < c->n; i++) {
        if (c->agents[i].pid > 0) {
            kill(c->agents[i].pid, SIGKILL);
            waitpid(c->agents[i].pid, NULL, 0);
            c->agents[i].pid = 0;
        }
    }
}

int coord_start(const struct coord_params *p, char *err, size_t err_len, struct coord **out)
{
    struct coord *c = xcalloc(1, sizeof(*c));
    const struct config_agents *ag = &p->config->agents;
    struct wire_msg cfg;
    uint64_t began_ns = clock_now_ns();
    int rc = 0;

    *out = NULL;
    c->params = *p;
    c->p = &c->params;
    c->n = ag->n_hosts;
    c->tick_ns = p->config->load.tick_us * 1000;
    c->wake[0] = c->wake[1] = -1;
    for (uint32_t i = 0; i < c->n; i++) {
        struct agent *a = &c->agents[i];

        tick_copy_text(a->name, sizeof(a->name), ag->hosts[i]);
        a->weight = ag->n_weights ? ag->weights[i] : 1.0;
        a->fd_in = a->fd_out = a->fd_err = -1;
        linebuf_init(&a->out, RECORD_LINE_MAX + 4096);
        linebuf_init(&a->err, 4096);
    }
    rc = build_config(c, &cfg, err, err_len);
    for (uint32_t i = 0; i < c->n && rc == 0; i++)
        rc = spawn_agent(p->config, &c->agents[i], err, err_len);
    if (rc == 0)
        rc = handshake(c, &cfg, err, err_len);
    wire_msg_free(&cfg);
    if (rc == 0) {
        /* Start together: the same instant on every agent's clock, which
         * round trips place within half the shortest one. */
        c->start_ns = clock_now_ns() + START_LEAD_MS * 1000000ull;
        for (uint32_t i = 0; i < c->n && rc == 0; i++) {
            struct agent *a = &c->agents[i];
            struct wire_msg start = {.type = WIRE_START,
                                     .at_ns = wire_clock_to_peer(&a->clock, c->start_ns)};
            char shown[128];

            if (a->clock.best_rtt_ns / 2 > c->tick_ns / 2) {
                msg_set(err, err_len,
                        "brink: run: agent %s: its clock is known within +/-%llu ms only, more "
                        "than half a tick (%llu ms): its ticks cannot be aligned",
                        msg_show(a->name, shown, sizeof(shown)),
                        (unsigned long long)(a->clock.best_rtt_ns / 2000000),
                        (unsigned long long)(c->tick_ns / 2000000));
                rc = BRINK_EXIT_RUNTIME;
            } else if (send_msg(a, &start) != 0) {
                msg_set(err, err_len, "brink: run: agent %s: the link closed at the start",
                        msg_show(a->name, shown, sizeof(shown)));
                rc = BRINK_EXIT_RUNTIME;
            }
        }
    }
    /* The session file's start time is older by the logins: say by how much. */
    if (rc == 0)
        add_event(c, "%u agents started, %llu ms after brink spawned them (ssh logins, handshake)",
                  c->n, (unsigned long long)((c->start_ns - began_ns) / 1000000));
    if (rc == 0 && pipe(c->wake) != 0) {
        msg_set(err, err_len, "brink: run: pipe: %s", msg_errno(errno).text);
        rc = BRINK_EXIT_RUNTIME;
    }
    if (rc == 0) {
        fcntl(c->wake[0], F_SETFL, O_NONBLOCK);
        fcntl(c->wake[1], F_SETFL, O_NONBLOCK);
        c->merge = tick_merge_new();
        chan_set_wake(p->chan, on_wake, c);
        rc = pthread_create(&c->thread, NULL, run, c);
        if (rc != 0) {
            chan_set_wake(p->chan, NULL, NULL);
            msg_set(err, err_len, "brink: run: cannot start a thread: %s", msg_errno(rc).text);
            rc = BRINK_EXIT_RUNTIME;
        } else {
            c->has_thread = 1;
        }
    }
    if (rc != 0) {
        coord_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

int coord_failed(const struct coord *c, char *err, size_t err_len)
{
    const struct agent *first = NULL;
    char shown[128], s[STDERR_KEEP * 4 + 16];

    for (uint32_t i = 0; i < c->n; i++) {
        if (c->agents[i].has_ticked)
            return 0;
        if (!first || (!first->last_err[0] && c->agents[i].last_err[0]))
            first = &c->agents[i];
    }
    if (!first)
        return 0;
    msg_set(err, err_len, "brink: run: no agent ran the load: agent %s ended at the start (%s)",
            msg_show(first->name, shown, sizeof(shown)), said(first, s, sizeof(s)));
    return BRINK_EXIT_RUNTIME;
}

void coord_join(struct coord *c)
{
    if (c && c->has_thread) {
        pthread_join(c->thread, NULL);
        c->has_thread = 0;
        chan_set_wake(c->p->chan, NULL, NULL);
    }
}

void coord_free(struct coord *c)
{
    if (!c)
        return;
    /* A thread still running is left to its loop: the process ends. */
    stop_agents(c);
    for (uint32_t i = 0; i < c->n; i++) {
        struct agent *a = &c->agents[i];

        if (c->has_thread)
            continue;
        for (size_t k = 0; k < a->n_queued; k++)
            tick_free(a->queue[k]);
        tick_free(a->last);
        linebuf_free(&a->out);
        linebuf_free(&a->err);
    }
    if (c->has_thread)
        return;
    close_fd(&c->wake[0]);
    close_fd(&c->wake[1]);
    tick_free(c->pending_events);
    tick_merge_free(c->merge);
    free(c);
}
