#include "signals.h"

#include <string.h>

#include "script/script.h"

volatile sig_atomic_t signals_stops;
volatile sig_atomic_t signals_hangup;

static void on_signal(int sig)
{
    /* A dropped SSH session stops the load too; the console also stops
     * drawing on the dead terminal. */
    if (sig == SIGHUP)
        signals_hangup = 1;
    signals_stops++;
    /* A script that never yields holds its thread (setup() holds the
     * main one): the stop reaches it through its hook. */
    script_interrupt_all();
}

void signals_install(void)
{
    struct sigaction sa, old;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (sigaction(SIGHUP, NULL, &old) != 0 || old.sa_handler != SIG_IGN)
        sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}
