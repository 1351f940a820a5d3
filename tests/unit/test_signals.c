/*
 * core/signals: the signal thread counts each stop and calls the hook main
 * sets (script_interrupt_all in brink) once per stop, whatever thread the
 * signal was sent to. One process, one install: a single test.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/signals.h"

static atomic_int hooked;

static void on_stop(void)
{
    hooked++;
}

/* Waits (at most 5 s) until n stops were counted and hooked. */
static void wait_stops(int n)
{
    struct timespec ms = {0, 1000000};

    for (int i = 0; i < 5000 && (signals_stops < n || hooked < n); i++)
        nanosleep(&ms, NULL);
}

static void each_stop_is_counted_and_calls_the_hook(void **state)
{
    (void)state;
    signals_on_stop(on_stop);
    signals_install();
    assert_int_equal(signals_stops, 0);
    assert_int_equal(kill(getpid(), SIGTERM), 0);
    wait_stops(1);
    assert_int_equal(signals_stops, 1);
    assert_int_equal(hooked, 1);
    assert_int_equal(kill(getpid(), SIGINT), 0);
    wait_stops(2);
    assert_int_equal(signals_stops, 2);
    assert_int_equal(hooked, 2);
    assert_int_equal(signals_hangup, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_stop_is_counted_and_calls_the_hook),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
