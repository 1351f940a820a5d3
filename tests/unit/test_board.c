/* The probes' board: names, samples and events into ticks, from threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/board.h"
#include "core/tick.h"

static void probes_added_start_pending_and_keep_their_names(void **state)
{
    struct board *b = board_new();
    struct tick *t = tick_new(0);
    struct tick_probe p = {.state = PROBE_OK, .has_value = 1, .value = 7, .sampled_ms = 1500};

    (void)state;
    assert_int_equal(board_add(b, "siblings"), 0);
    assert_int_equal(board_add(b, "queue"), 1);
    snprintf(p.name, sizeof(p.name), "ignored");
    board_set(b, 1, &p);
    board_set(b, 9, &p); /* out of range: nothing */
    board_fill(b, t);
    assert_int_equal(t->n_probes, 2);
    assert_string_equal(t->probes[0].name, "siblings");
    assert_int_equal(t->probes[0].state, PROBE_PENDING);
    assert_string_equal(t->probes[1].name, "queue");
    assert_true(t->probes[1].value == 7.0);
    assert_int_equal(t->probes[1].sampled_ms, 1500);
    tick_free(t);
    board_free(b);
}

static void the_board_refuses_a_probe_past_the_tick_limit(void **state)
{
    struct board *b = board_new();
    char name[16];

    (void)state;
    for (int i = 0; i < TICK_MAX_PROBES; i++) {
        snprintf(name, sizeof(name), "p%d", i);
        assert_int_equal(board_add(b, name), i);
    }
    assert_int_equal(board_add(b, "one too many"), -ENOSPC);
    assert_int_equal(board_count(b), TICK_MAX_PROBES);
    board_free(b);
}

static void events_move_to_one_tick_and_overflow_is_counted(void **state)
{
    struct board *b = board_new();
    struct tick *t = tick_new(0), *u = tick_new(0);

    (void)state;
    for (int i = 0; i < BOARD_EVENTS + 5; i++)
        board_event(b, EV_ALERT, (uint64_t)i, "siblings > 100");
    board_fill(b, t);
    assert_int_equal(t->n_events, TICK_MAX_EVENTS);
    assert_int_equal(t->events_dropped, BOARD_EVENTS - TICK_MAX_EVENTS + 5);
    assert_int_equal(t->events[0].kind, EV_ALERT);
    assert_int_equal(t->events[3].at_ms, 3);
    board_fill(b, u);
    assert_int_equal(u->n_events, 0);
    assert_int_equal(u->events_dropped, 0);
    tick_free(t);
    tick_free(u);
    board_free(b);
}

struct writer {
    struct board *b;
    uint32_t index;
};

static void *write_samples(void *arg)
{
    struct writer *w = arg;

    for (int i = 1; i <= 20000; i++) {
        struct tick_probe p = {.state = PROBE_OK, .has_value = 1, .value = i, .sampled_ms = i};

        board_set(w->b, w->index, &p);
        if (i % 1000 == 0)
            board_event(w->b, EV_PROBE, (uint64_t)i, "tick");
    }
    return NULL;
}

/* Run under TSan: a writer per probe and a reader filling ticks. Each copy
 * of a probe must be whole: its value and timestamp from one sample. */
static void concurrent_writers_and_a_reader_see_whole_samples(void **state)
{
    struct board *b = board_new();
    struct writer w[2] = {{b, 0}, {b, 1}};
    pthread_t th[2];
    struct tick *t = tick_new(0);
    int last_events = 0;

    (void)state;
    board_add(b, "a");
    board_add(b, "b");
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, write_samples, &w[i]), 0);
    for (int n = 0; n < 2000; n++) {
        board_fill(b, t);
        for (uint32_t i = 0; i < t->n_probes; i++) {
            if (t->probes[i].has_value)
                assert_true(t->probes[i].value == (double)t->probes[i].sampled_ms);
        }
        last_events += (int)t->n_events + (int)t->events_dropped;
        t->n_events = 0;
        t->events_dropped = 0;
    }
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    board_fill(b, t);
    last_events += (int)t->n_events + (int)t->events_dropped;
    assert_int_equal(last_events, 40);
    assert_true(t->probes[0].value == 20000.0 && t->probes[1].value == 20000.0);
    tick_free(t);
    board_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(probes_added_start_pending_and_keep_their_names),
        cmocka_unit_test(the_board_refuses_a_probe_past_the_tick_limit),
        cmocka_unit_test(events_move_to_one_tick_and_overflow_is_counted),
        cmocka_unit_test(concurrent_writers_and_a_reader_see_whole_samples),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
