/*
 * The channel between the engine and the console, with real threads: a
 * producer publishing ticks while a consumer takes them, and a sender of
 * commands against a receiver woken by the wake function. Also built and
 * run under ThreadSanitizer (label tsan).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/chan.h"
#include "core/tick.h"

#define N_TICKS 20000
#define N_COMMANDS 20000

static void empty_channel_gives_no_tick_and_no_command(void **state)
{
    struct chan *ch = chan_new(4, 4);
    struct command cmd;

    (void)state;
    assert_null(chan_take(ch));
    assert_int_equal(chan_recv(ch, &cmd), 0);
    assert_false(chan_is_done(ch));
    assert_int_equal(chan_dropped(ch), 0);
    chan_free(ch);
}

static void ticks_come_out_in_the_order_they_went_in(void **state)
{
    struct chan *ch = chan_new(8, 1);
    struct tick *t;

    (void)state;
    for (uint64_t i = 0; i < 5; i++) {
        t = tick_new(0);
        t->seq = i;
        assert_int_equal(chan_publish(ch, t), 0);
    }
    for (uint64_t i = 0; i < 5; i++) {
        t = chan_take(ch);
        assert_non_null(t);
        assert_int_equal(t->seq, i);
        tick_free(t);
    }
    assert_null(chan_take(ch));
    chan_free(ch);
}

static void full_tick_queue_drops_the_newest_and_counts_it(void **state)
{
    struct chan *ch = chan_new(3, 1);
    struct tick *t;

    (void)state;
    for (uint64_t i = 0; i < 5; i++) {
        t = tick_new(0);
        t->seq = i;
        assert_int_equal(chan_publish(ch, t), i < 3 ? 0 : -ENOBUFS);
    }
    assert_int_equal(chan_dropped(ch), 2);
    for (uint64_t i = 0; i < 3; i++) {
        t = chan_take(ch);
        assert_int_equal(t->seq, i);
        tick_free(t);
    }
    /* Room again: the queue is a ring, not a one-shot buffer. */
    assert_int_equal(chan_publish(ch, tick_new(0)), 0);
    chan_free(ch); /* frees the queued tick too (ASan checks) */
}

static void closed_channel_refuses_ticks_and_is_done_once_drained(void **state)
{
    struct chan *ch = chan_new(4, 1);
    struct tick *t = tick_new(0);

    (void)state;
    assert_int_equal(chan_publish(ch, t), 0);
    chan_close(ch);
    assert_false(chan_is_done(ch));
    assert_int_equal(chan_publish(ch, tick_new(0)), -EPIPE);
    t = chan_take_wait(ch, 10);
    assert_non_null(t);
    tick_free(t);
    assert_true(chan_is_done(ch));
    /* A closed, empty channel answers at once instead of waiting. */
    assert_null(chan_take_wait(ch, 60000));
    chan_free(ch);
}

static void take_wait_times_out_on_an_open_empty_channel(void **state)
{
    struct chan *ch = chan_new(4, 1);

    (void)state;
    assert_null(chan_take_wait(ch, 1));
    assert_false(chan_is_done(ch));
    chan_free(ch);
}

static void full_command_ring_refuses_with_eagain(void **state)
{
    struct chan *ch = chan_new(1, 2);
    struct command cmd = {.kind = CMD_STEP, .n = 1};
    struct command got;

    (void)state;
    assert_int_equal(chan_send(ch, &cmd), 0);
    cmd.n = 2;
    assert_int_equal(chan_send(ch, &cmd), 0);
    cmd.n = 3;
    assert_int_equal(chan_send(ch, &cmd), -EAGAIN);
    assert_int_equal(chan_recv(ch, &got), 1);
    assert_int_equal(got.n, 1);
    assert_int_equal(chan_recv(ch, &got), 1);
    assert_int_equal(got.n, 2);
    assert_int_equal(chan_recv(ch, &got), 0);
    chan_free(ch);
}

static void count_wake(void *arg)
{
    (*(int *)arg)++;
}

static void every_send_calls_the_wake_function(void **state)
{
    struct chan *ch = chan_new(1, 8);
    struct command cmd = {.kind = CMD_MARK};
    struct command got;
    int wakes = 0;

    (void)state;
    strcpy(cmd.note, "first 503");
    chan_set_wake(ch, count_wake, &wakes);
    assert_int_equal(chan_send(ch, &cmd), 0);
    assert_int_equal(chan_send(ch, &cmd), 0);
    assert_int_equal(wakes, 2);
    assert_int_equal(chan_recv(ch, &got), 1);
    assert_int_equal(got.kind, CMD_MARK);
    assert_string_equal(got.note, "first 503");
    chan_free(ch);
}

/* Producer thread: publishes N_TICKS ticks numbered in order, then closes. */
static void *produce(void *arg)
{
    struct chan *ch = arg;
    uint64_t published = 0;

    for (uint64_t i = 0; i < N_TICKS; i++) {
        struct tick *t = tick_new(16);

        t->seq = i;
        t->data[0] = (unsigned char)i;
        t->data_len = 1;
        if (chan_publish(ch, t) == 0)
            published++;
    }
    chan_close(ch);
    return (void *)(uintptr_t)published;
}

static void ticks_cross_threads_in_order_and_drops_are_counted(void **state)
{
    struct chan *ch = chan_new(16, 1);
    pthread_t producer;
    uint64_t taken = 0, last = 0, published;
    void *ret;
    struct tick *t;

    (void)state;
    assert_int_equal(pthread_create(&producer, NULL, produce, ch), 0);
    while ((t = chan_take_wait(ch, 1000)) != NULL || !chan_is_done(ch)) {
        if (!t)
            continue;
        /* In order: sequence numbers only grow, and the payload is intact. */
        if (taken > 0)
            assert_true(t->seq > last);
        assert_int_equal(t->data[0], (unsigned char)t->seq);
        last = t->seq;
        taken++;
        tick_free(t);
    }
    assert_int_equal(pthread_join(producer, &ret), 0);
    published = (uint64_t)(uintptr_t)ret;
    assert_int_equal(taken, published);
    assert_int_equal(taken + chan_dropped(ch), N_TICKS);
    chan_free(ch);
}

struct receiver {
    struct chan *ch;
    pthread_mutex_t lock;
    pthread_cond_t woken;
    int pending_wakes;
    int64_t sum;
    int received;
    int out_of_order; /* counted here, asserted on the main thread */
};

/* The wake function as the engine uses it: from the sender's thread, it only
 * signals the receiver's loop (uv_async_send in the engine). */
static void wake_receiver(void *arg)
{
    struct receiver *r = arg;

    pthread_mutex_lock(&r->lock);
    r->pending_wakes++;
    pthread_cond_signal(&r->woken);
    pthread_mutex_unlock(&r->lock);
}

static void *receive(void *arg)
{
    struct receiver *r = arg;
    struct command cmd;

    while (r->received < N_COMMANDS) {
        pthread_mutex_lock(&r->lock);
        while (r->pending_wakes == 0)
            pthread_cond_wait(&r->woken, &r->lock);
        /* Wakes coalesce: one drain empties whatever has queued since. */
        r->pending_wakes = 0;
        pthread_mutex_unlock(&r->lock);
        while (chan_recv(r->ch, &cmd)) {
            if (cmd.n != r->received)
                r->out_of_order++;
            r->sum += cmd.n;
            r->received++;
        }
    }
    return NULL;
}

static void commands_cross_threads_in_order_and_none_is_lost(void **state)
{
    struct receiver r = {.ch = chan_new(1, 8)};
    struct command cmd = {.kind = CMD_SET_CONCURRENCY};
    pthread_t receiver;
    int refused = 0;

    (void)state;
    pthread_mutex_init(&r.lock, NULL);
    pthread_cond_init(&r.woken, NULL);
    chan_set_wake(r.ch, wake_receiver, &r);
    assert_int_equal(pthread_create(&receiver, NULL, receive, &r), 0);
    for (int64_t i = 0; i < N_COMMANDS; i++) {
        cmd.n = i;
        /* A full ring is the sender's to retry, as the console does. */
        while (chan_send(r.ch, &cmd) == -EAGAIN) {
            refused++;
            sched_yield();
        }
    }
    assert_int_equal(pthread_join(receiver, NULL), 0);
    assert_int_equal(r.received, N_COMMANDS);
    assert_int_equal(r.out_of_order, 0);
    assert_int_equal(r.sum, (int64_t)N_COMMANDS * (N_COMMANDS - 1) / 2);
    print_message("commands refused while the ring was full: %d\n", refused);
    pthread_cond_destroy(&r.woken);
    pthread_mutex_destroy(&r.lock);
    chan_free(r.ch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_channel_gives_no_tick_and_no_command),
        cmocka_unit_test(ticks_come_out_in_the_order_they_went_in),
        cmocka_unit_test(full_tick_queue_drops_the_newest_and_counts_it),
        cmocka_unit_test(closed_channel_refuses_ticks_and_is_done_once_drained),
        cmocka_unit_test(take_wait_times_out_on_an_open_empty_channel),
        cmocka_unit_test(full_command_ring_refuses_with_eagain),
        cmocka_unit_test(every_send_calls_the_wake_function),
        cmocka_unit_test(ticks_cross_threads_in_order_and_drops_are_counted),
        cmocka_unit_test(commands_cross_threads_in_order_and_none_is_lost),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
