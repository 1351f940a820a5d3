/*
 * An agent's process and its pipes, for the coordinator (coord_internal.h):
 * spawning it over ssh, sending it lines, keeping its last stderr line,
 * reaping it.
 */
#include "agents/coord_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/config.h"
#include "core/clock.h"
#include "core/exitcode.h"
#include "core/linebuf.h"
#include "core/msg.h"
#include "core/regfile.h"
#include "core/sanitize.h"
#include "core/xalloc.h"
#include "record/wire.h"

extern char **environ;

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

int agents__send_msg(struct agent *a, const struct wire_msg *m)
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

void agents__close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* `SSH... HOST BRINK... agent`, its stdin, stdout and stderr pipes ours. */
int agents__spawn_agent(const struct config *cfg, struct agent *a, char *err, size_t err_len)
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
        agents__close_fd(&in[i]);
        agents__close_fd(&out[i]);
        agents__close_fd(&er[i]);
    }
    free(ssh);
    free(brink);
    return BRINK_EXIT_RUNTIME;
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
void agents__read_stderr(struct agent *a)
{
    if (a->fd_err < 0)
        return;
    if (linebuf_fill(&a->err, a->fd_err) <= 0) {
        agents__close_fd(&a->fd_err);
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
const char *agents__said(const struct agent *a, char *buf, size_t cap)
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

void agents__reap(struct agent *a, int *status)
{
    *status = -1;
    if (a->pid > 0 && waitpid(a->pid, status, WNOHANG) == a->pid)
        a->pid = 0;
}

/* The outcomes of k, or -1 when they are more than its completed. */
static int check_kind(const struct tick_kind *k, char *why, size_t why_len)
{
    uint64_t failed = 0;

    for (int e = 0; e < ERR__COUNT; e++)
        failed += k->errors[e];
    if (k->ok <= k->completed && failed <= k->completed - k->ok)
        return 0;
    snprintf(why, why_len, "%s: %llu ok and %llu failed of %llu completed", k->name,
             (unsigned long long)k->ok, (unsigned long long)failed,
             (unsigned long long)k->completed);
    return -1;
}

int agents__check_tick(const struct tick *t, char *why, size_t why_len)
{
    if (check_kind(&t->total, why, why_len) != 0)
        return -EINVAL;
    for (uint32_t i = 0; i < t->n_kinds; i++) {
        if (check_kind(&t->kinds[i], why, why_len) != 0)
            return -EINVAL;
    }
    return 0;
}
