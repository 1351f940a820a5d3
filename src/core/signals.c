#include "core/signals.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"

atomic_int signals_stops;
atomic_int signals_hangup;

/* The signal thread's state; the lock guards all but the thread itself. */
static struct {
    pthread_mutex_t lock;
    sigset_t set;      /* the signals the thread takes */
    uint64_t first_ns; /* clock_now_ns() of the first stop; 0 before */
    uint64_t grace_ms;
    signals_end_fn *end; /* NULL: not armed */
    void *end_arg;
    int is_started;
} sig = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Set before any thread starts, read by the handlers and the thread. */
static signals_stop_fn *on_stop;

static void count(int s)
{
    /* A dropped SSH session stops the load too; the console also stops
     * drawing on the dead terminal. */
    if (s == SIGHUP)
        signals_hangup = 1;
    signals_stops++;
    /* A script that never yields holds its thread (setup() holds the
     * main one): the stop reaches it through its hook. */
    if (on_stop)
        on_stop();
}

void signals_on_stop(signals_stop_fn *fn)
{
    on_stop = fn;
}

/* Only for a thread that was started before signals_install and so takes
 * the signals itself: it counts them as the signal thread would. */
static void on_signal(int s)
{
    count(s);
}

/* Once a stop came, the thread looks again this often: signals_arm may
 * come later and find it waiting. */
#define RECHECK_NS (100 * 1000000ull)

/* The last resort to run now, or NULL; *wait_ns how long to wait for the
 * next signal (0: until one comes, no stop yet). */
static signals_end_fn *due(void **arg, uint64_t *wait_ns)
{
    signals_end_fn *fn = NULL;
    uint64_t now = clock_now_ns();

    *wait_ns = 0;
    pthread_mutex_lock(&sig.lock);
    if (sig.first_ns)
        *wait_ns = RECHECK_NS;
    if (sig.end && sig.first_ns) {
        uint64_t at = sig.first_ns + sig.grace_ms * 1000000ull;

        if (now >= at) {
            fn = sig.end;
            *arg = sig.end_arg;
        } else if (at - now < RECHECK_NS) {
            *wait_ns = at - now;
        }
    }
    pthread_mutex_unlock(&sig.lock);
    return fn;
}

static void *run(void *unused)
{
    (void)unused;
    for (;;) {
        void *arg = NULL;
        uint64_t wait_ns;
        signals_end_fn *fn = due(&arg, &wait_ns);
        int s;

        if (fn)
            fn(arg); /* does not return */
        if (wait_ns) {
            struct timespec ts = {(time_t)(wait_ns / 1000000000ull),
                                  (long)(wait_ns % 1000000000ull)};

            s = sigtimedwait(&sig.set, NULL, &ts);
        } else {
            s = sigwaitinfo(&sig.set, NULL);
        }
        if (s < 0)
            continue; /* the wait ran out (EAGAIN), or EINTR */
        count(s);
        pthread_mutex_lock(&sig.lock);
        if (!sig.first_ns)
            sig.first_ns = clock_now_ns();
        pthread_mutex_unlock(&sig.lock);
    }
    return NULL;
}

void signals_install(void)
{
    struct sigaction sa, old;
    pthread_t thread;
    sigset_t was;

    if (sig.is_started)
        return;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&sig.set);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaddset(&sig.set, SIGINT);
    sigaddset(&sig.set, SIGTERM);
    if (sigaction(SIGHUP, NULL, &old) != 0 || old.sa_handler != SIG_IGN) {
        sigaction(SIGHUP, &sa, NULL);
        sigaddset(&sig.set, SIGHUP);
    }
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    /* Blocked here, and so in every thread started from now on: only the
     * signal thread's sigwait takes them, whatever the others are stuck in
     * (a lookup, a script, a child that never answers). Children are
     * spawned with an empty mask (agents/coord_agents.c, libuv's uv_spawn). */
    pthread_sigmask(SIG_BLOCK, &sig.set, &was);
    if (pthread_create(&thread, NULL, run, NULL) != 0) {
        /* Without the thread the handlers count, as before. */
        pthread_sigmask(SIG_SETMASK, &was, NULL);
        return;
    }
    pthread_detach(thread);
    sig.is_started = 1;
}

void signals_arm(uint64_t grace_ms, signals_end_fn *fn, void *arg)
{
    pthread_mutex_lock(&sig.lock);
    sig.grace_ms = grace_ms;
    sig.end = fn;
    sig.end_arg = arg;
    pthread_mutex_unlock(&sig.lock);
}

void signals_disarm(void)
{
    pthread_mutex_lock(&sig.lock);
    sig.end = NULL;
    pthread_mutex_unlock(&sig.lock);
}
