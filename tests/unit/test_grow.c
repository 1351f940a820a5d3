/* When the open model's pool takes one more connection (src/engine/grow.c),
 * on a clock the tests move by hand: the stall that once grew the pool to
 * max_in_flight, a server that holds its requests, one connection a pass. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "engine/grow.h"

#define US 1000ULL
#define MS (1000 * US)

/* Before any reply there is nothing to go by: a burst of 19,000 arrivals
 * against a server that holds them all gets its 19,000 connections (paced
 * by pace.h, not here). After a reply the pool grows one a pass: the next
 * arrival in the same pass waits for the next pass. */
static void before_any_reply_the_pool_grows_as_arrivals_need(void **state)
{
    struct grow g;

    (void)state;
    grow_init(&g);
    for (uint32_t i = 0; i < 19000; i++) {
        assert_true(grow_may(&g, 0, i, i, 30 * US, 25 * US));
        grow_grew(&g);
    }
    grow_replied(&g, 2 * MS, 1 * MS);
    grow_new_pass(&g);
    assert_true(grow_may(&g, 0, 19000, 19000, 4 * MS, 3 * MS));
    grow_grew(&g);
    assert_false(grow_may(&g, 0, 19001, 19001, 4 * MS, 3 * MS));
    assert_true(grow_retry_ns(&g, 3 * MS) <= 4 * MS); /* the next pass */
    grow_new_pass(&g);
    assert_true(grow_may(&g, 0, 19001, 19001, 4 * MS, 3 * MS));
}

/* With nothing in flight no connection will come free: grow, whatever the
 * pass or the average says. */
static void with_nothing_in_flight_the_pool_grows(void **state)
{
    struct grow g;

    (void)state;
    grow_init(&g);
    grow_replied(&g, 1 * MS, 500 * US);
    grow_grew(&g);
    assert_true(grow_may(&g, 0, 8, 0, 1 * MS, 1 * MS));
}

/* brink's own loop stalled 1 ms at 40,000/s: 40 arrivals owed, every one
 * of 8 connections busy (the rate needs 2 with 45 us replies), but their
 * replies are arriving every 25 us. The owed arrivals wait for those
 * connections rather than open 40 more. */
static void while_replies_flow_owed_arrivals_wait_for_the_connections_they_free(void **state)
{
    struct grow g;
    uint64_t now = 10 * MS;

    (void)state;
    grow_init(&g);
    for (int i = 0; i < 64; i++)
        grow_replied(&g, now - 63 * 25 * US + (uint64_t)i * 25 * US, 45 * US);
    /* Replies every 25 us, the last one just now, 45 us each. */
    for (uint64_t at = now - 1 * MS; at < now; at += 25 * US) {
        grow_new_pass(&g);
        assert_false(grow_may(&g, 40000, 8, 8, now, at));
    }
    /* The retry is one reply time after the last reply: by then another
     * reply has come, or the server is holding them. */
    assert_int_equal(grow_retry_ns(&g, now - 1 * MS), now + 45 * US);
}

/* A server that holds its requests (no reply for longer than a reply
 * takes) needs more connections: an arrival that has waited that long gets
 * one, one a pass. */
static void a_server_that_holds_its_requests_gets_more_connections(void **state)
{
    struct grow g;

    (void)state;
    grow_init(&g);
    grow_replied(&g, 1 * MS, 2 * MS);
    grow_new_pass(&g);
    /* Due at 2 ms, the last reply at 1 ms, a reply takes 2 ms. */
    assert_false(grow_may(&g, 0, 5, 5, 3 * MS, 2 * MS));
    assert_int_equal(grow_retry_ns(&g, 2 * MS), 4 * MS);
    assert_true(grow_may(&g, 0, 5, 5, 4 * MS, 2 * MS));
    grow_grew(&g);
    assert_false(grow_may(&g, 0, 6, 6, 4 * MS, 2 * MS));
    grow_new_pass(&g);
    assert_true(grow_may(&g, 0, 6, 6, 4 * MS, 2 * MS));
}

/* A pool smaller than the rate needs (twice rate x shortest reply time,
 * plus 2) grows without waiting, one a pass: at 40,000/s and 45 us
 * replies, up to 5 connections; the 6th waits for a server that holds its
 * requests. A server that queues (its replies slower, none shorter) does
 * not raise the figure, which would grow the pool that made it queue. */
static void a_pool_smaller_than_the_rate_needs_grows_without_waiting(void **state)
{
    struct grow g;
    uint64_t now = 10 * MS;

    (void)state;
    grow_init(&g);
    grow_replied(&g, now, 45 * US);
    for (uint32_t n = 1; n <= 5; n++) {
        grow_new_pass(&g);
        assert_true(grow_may(&g, 40000, n, n, now, now));
        grow_grew(&g);
    }
    grow_new_pass(&g);
    assert_false(grow_may(&g, 40000, 6, 6, now, now));
    for (int i = 0; i < 1000; i++)
        grow_replied(&g, now + (uint64_t)i * 25 * US, 2 * MS);
    assert_false(grow_may(&g, 40000, 6, 6, now + 25 * MS, now + 25 * MS));
    /* Two seconds later the server's shortest reply is 2 ms: 2 x 40,000 x
     * 2 ms + 2 = 162 connections. */
    grow_replied(&g, now + 1000 * MS, 2 * MS);
    grow_replied(&g, now + 2000 * MS, 2 * MS);
    grow_new_pass(&g);
    assert_true(grow_may(&g, 40000, 161, 161, now + 2000 * MS, now + 2000 * MS));
    assert_false(grow_may(&g, 40000, 162, 162, now + 2000 * MS, now + 2000 * MS));
    /* Twice the rate needs twice the connections. */
    assert_true(grow_may(&g, 80000, 6, 6, now, now));
}

/* The average follows the server: 16 replies of the new time move it most
 * of the way, one slow reply barely. */
static void the_reply_average_follows_the_server_and_shrugs_off_one_slow_reply(void **state)
{
    struct grow g;

    (void)state;
    grow_init(&g);
    grow_replied(&g, 0, 0);
    assert_int_equal(g.reply_avg_ns, 1); /* known, if tiny */
    grow_init(&g);
    grow_replied(&g, 0, 100 * US);
    assert_int_equal(g.reply_avg_ns, 100 * US);
    grow_replied(&g, 0, 100 * MS);
    assert_in_range(g.reply_avg_ns, 6 * MS, 7 * MS);
    for (int i = 0; i < 96; i++)
        grow_replied(&g, 0, 100 * US);
    assert_in_range(g.reply_avg_ns, 100 * US, 200 * US);
    for (int i = 0; i < 16; i++)
        grow_replied(&g, 0, 1 * MS);
    assert_in_range(g.reply_avg_ns, 600 * US, 1 * MS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(before_any_reply_the_pool_grows_as_arrivals_need),
        cmocka_unit_test(with_nothing_in_flight_the_pool_grows),
        cmocka_unit_test(while_replies_flow_owed_arrivals_wait_for_the_connections_they_free),
        cmocka_unit_test(a_server_that_holds_its_requests_gets_more_connections),
        cmocka_unit_test(a_pool_smaller_than_the_rate_needs_grows_without_waiting),
        cmocka_unit_test(the_reply_average_follows_the_server_and_shrugs_off_one_slow_reply),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
