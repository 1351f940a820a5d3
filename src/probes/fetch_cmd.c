/*
 * Command probes: `/bin/sh -c COMMAND` through uv_spawn (never popen or
 * system, which would block the loop), in its own session so the whole
 * process group can be killed on timeout or stop. stdin is /dev/null, the
 * environment is cut down to a few harmless variables, stdout is kept up
 * to PROBE_OUTPUT_MAX bytes and the start of stderr explains a failure.
 */
#include "probes/sampler.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/container.h"
#include "core/msg.h"
#include "core/units.h"
#include "core/xalloc.h"

/* Variables a command may see; secrets in the environment stay out. */
static const char *const kept_env[] = {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TZ"};
#define N_KEPT (sizeof(kept_env) / sizeof(kept_env[0]))

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    static char scratch[65536]; /* the loop thread only */

    (void)h, (void)hint;
    *buf = uv_buf_init(scratch, sizeof(scratch));
}

static void finish(struct command_run *run)
{
    struct source *src = run->src;
    struct result res = {0};
    char age[UNITS_FMT_MAX];

    if (run->is_timed_out) {
        res.rc = -ETIMEDOUT;
        snprintf(res.why, sizeof(res.why), "timed out after %s; its process group was killed",
                 units_format_duration(src->cfg->timeout_us, age, sizeof(age)));
    } else if (run->term_signal) {
        res.rc = -EINTR;
        snprintf(res.why, sizeof(res.why), "killed by signal %d", run->term_signal);
    } else if (run->exit_status != 0) {
        res.rc = -EIO;
        snprintf(res.why, sizeof(res.why), "exited with status %lld%s%.*s",
                 (long long)run->exit_status, run->err_len ? ": " : "", (int)run->err_len,
                 run->err_text);
    } else {
        res.text = run->text ? run->text : xcalloc(1, 1);
        res.len = run->len;
        run->text = NULL;
    }
    free(run->text);
    src->cmd = NULL;
    free(run);
    probes__source_done(src, &res);
}

static void on_closed(uv_handle_t *h)
{
    struct command_run *run = h->data;

    if (--run->open_handles > 0)
        return;
    if (run->is_spawn_failed)
        free(run); /* its source was told at once */
    else
        finish(run);
}

static void close_one(uv_handle_t *h)
{
    if (!uv_is_closing(h))
        uv_close(h, on_closed);
}

static void keep_output(struct command_run *run, const char *p, size_t n)
{
    size_t room = PROBE_OUTPUT_MAX - run->len;

    if (n > room)
        n = room; /* the rest is read and dropped: the cap is documented */
    if (!n)
        return;
    run->text = xrealloc(run->text, run->len + n + 1);
    memcpy(run->text + run->len, p, n);
    run->len += n;
    run->text[run->len] = '\0';
}

static void keep_error(struct command_run *run, const char *p, size_t n)
{
    /* The first line of stderr, cut to what an event can show. */
    for (size_t i = 0; i < n && run->err_len < 100; i++) {
        if (p[i] == '\n') {
            run->err_len = 100;
            break;
        }
        run->err_text[run->err_len++] = p[i];
    }
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct command_run *run = s->data;

    if (n < 0) {
        close_one((uv_handle_t *)s);
        return;
    }
    if ((uv_pipe_t *)s == &run->out)
        keep_output(run, buf->base, (size_t)n);
    else if (run->err_len < 100)
        keep_error(run, buf->base, (size_t)n);
    if (run->err_len == 100)
        run->err_len = strnlen(run->err_text, 100);
}

static void kill_group(struct command_run *run)
{
    if (run->process.pid > 0)
        kill(-run->process.pid, SIGKILL);
}

static void on_exit(uv_process_t *p, int64_t status, int term_signal)
{
    struct command_run *run = container_of(p, struct command_run, process);

    run->exit_status = status;
    run->term_signal = run->is_timed_out ? 0 : term_signal;
    /* Children it left behind would hold the pipes open: end them too. */
    kill_group(run);
    close_one((uv_handle_t *)&run->deadline);
    close_one((uv_handle_t *)p);
}

static void on_deadline(uv_timer_t *t)
{
    struct command_run *run = container_of(t, struct command_run, deadline);

    run->is_timed_out = 1;
    kill_group(run);
}

static void environment(char **env, char *storage, size_t cap)
{
    size_t used = 0, n = 0;

    for (size_t i = 0; i < N_KEPT; i++) {
        const char *v = getenv(kept_env[i]);
        int len;

        if (!v)
            continue;
        len = snprintf(storage + used, cap - used, "%s=%s", kept_env[i], v);
        if (len < 0 || (size_t)len >= cap - used)
            break;
        env[n++] = storage + used;
        used += (size_t)len + 1;
    }
    env[n] = NULL;
}

static int spawn(struct command_run *run, const char *command)
{
    char *args[] = {"/bin/sh", "-c", (char *)command, NULL};
    char *env[N_KEPT + 1], storage[8192];
    uv_stdio_container_t stdio[3];
    uv_process_options_t o;

    environment(env, storage, sizeof(storage));
    memset(&o, 0, sizeof(o));
    stdio[0].flags = UV_IGNORE;
    stdio[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    stdio[1].data.stream = (uv_stream_t *)&run->out;
    stdio[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    stdio[2].data.stream = (uv_stream_t *)&run->err;
    o.file = args[0];
    o.args = args;
    o.env = env;
    o.stdio = stdio;
    o.stdio_count = 3;
    o.exit_cb = on_exit;
    /* Its own session: kill(-pid) reaches everything it started. */
    o.flags = UV_PROCESS_DETACHED;
    return uv_spawn(run->out.loop, &run->process, &o);
}

int probes__fetch_cmd_start(struct source *src, char *why, size_t why_len)
{
    struct command_run *run = xcalloc(1, sizeof(*run));
    uv_loop_t *loop = &src->ps->loop;
    int rc;

    run->src = src;
    uv_pipe_init(loop, &run->out, 0);
    uv_pipe_init(loop, &run->err, 0);
    uv_timer_init(loop, &run->deadline);
    run->out.data = run->err.data = run->deadline.data = run->process.data = run;
    run->open_handles = 4;
    rc = spawn(run, src->cfg->command.value);
    if (rc != 0) {
        snprintf(why, why_len, "cannot start /bin/sh: %s", msg_errno(-rc).text);
        /* A failed spawn leaves the process handle to close as well. */
        run->is_spawn_failed = 1;
        close_one((uv_handle_t *)&run->process);
        close_one((uv_handle_t *)&run->out);
        close_one((uv_handle_t *)&run->err);
        close_one((uv_handle_t *)&run->deadline);
        return rc;
    }
    src->cmd = run;
    uv_timer_start(&run->deadline, on_deadline, src->cfg->timeout_us / 1000, 0);
    uv_read_start((uv_stream_t *)&run->out, on_alloc, on_read);
    uv_read_start((uv_stream_t *)&run->err, on_alloc, on_read);
    return 0;
}

void probes__fetch_cmd_kill(struct source *src)
{
    if (src->cmd)
        kill_group(src->cmd);
}
