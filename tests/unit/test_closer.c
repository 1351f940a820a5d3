/* The closes of a worker's connections (src/engine/closer.c), on real
 * sockets and a real libuv loop: a pass closes what its budget allows at
 * once (its first close always), the rest wait in order for later passes, new connects can see that
 * closes wait, and the worker's end closes every one left. No timing is
 * asserted: how late a burst's timeouts come is measured in
 * bench/burst.sh. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/container.h"
#include "engine/closer.h"

#define N_SOCKS ((int)(3 * PACE_PASS_MAX))

/* One end of a socket pair, closed through the closer. */
struct end {
    struct closing closing;
    int fd;
    int peer;
};

static int order[N_SOCKS]; /* the ends in the order they were closed */
static int n_closed;

static void close_end(struct closing *x)
{
    struct end *e = container_of(x, struct end, closing);

    assert_int_equal(close(e->fd), 0);
    order[n_closed++] = e->peer;
}

static void open_ends(struct end *ends, int n)
{
    for (int i = 0; i < n; i++) {
        int sv[2];

        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
        ends[i].fd = sv[0];
        ends[i].peer = sv[1];
    }
    n_closed = 0;
}

static int is_open(int fd)
{
    return fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

/* Whether the peer of e saw its end close (EOF). */
static int peer_saw_close(const struct end *e)
{
    char c;

    return recv(e->peer, &c, 1, MSG_DONTWAIT) == 0;
}

static void close_peers(struct end *ends, int n)
{
    for (int i = 0; i < n; i++)
        close(ends[i].peer);
}

/* Passes of the loop until no close waits; returns how many it took. */
static int drain(uv_loop_t *loop, struct closer *c)
{
    int passes = 0;

    while (closer_is_busy(c)) {
        int before = n_closed;

        closer_new_pass(c);
        uv_run(loop, UV_RUN_NOWAIT);
        assert_in_range(n_closed - before, 1, PACE_PASS_MAX);
        assert_true(++passes < N_SOCKS);
    }
    return passes;
}

static void the_first_close_of_a_pass_is_at_once(void **state)
{
    uv_loop_t loop;
    struct closer c;
    struct end ends[3];

    (void)state;
    assert_int_equal(uv_loop_init(&loop), 0);
    closer_init(&loop, &c);
    open_ends(ends, 3);
    closer_close(&c, &ends[0].closing, close_end);
    assert_int_equal(n_closed, 1);
    assert_false(is_open(ends[0].fd));
    assert_true(peer_saw_close(&ends[0]));
    assert_false(closer_is_busy(&c));
    assert_int_equal(closer_waiting(&c), 0);
    /* The next ones close at once too, or (a slow close spent the pass's
     * time) in the next passes. */
    closer_close(&c, &ends[1].closing, close_end);
    closer_close(&c, &ends[2].closing, close_end);
    drain(&loop, &c);
    assert_int_equal(n_closed, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(order[i], ends[i].peer);
        assert_false(is_open(ends[i].fd));
        assert_true(peer_saw_close(&ends[i]));
    }
    closer_close_all(&c);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    close_peers(ends, 3);
}

static void a_burst_waits_in_order_for_later_passes(void **state)
{
    uv_loop_t loop;
    struct closer c;
    struct end ends[N_SOCKS];

    (void)state;
    assert_int_equal(uv_loop_init(&loop), 0);
    closer_init(&loop, &c);
    open_ends(ends, N_SOCKS);
    for (int i = 0; i < N_SOCKS; i++)
        closer_close(&c, &ends[i].closing, close_end);
    /* This pass's budget: at most PACE_PASS_MAX; the rest wait, open. */
    assert_in_range(n_closed, 1, PACE_PASS_MAX);
    assert_true(closer_is_busy(&c));
    assert_int_equal(closer_waiting(&c), N_SOCKS - n_closed);
    assert_true(is_open(ends[N_SOCKS - 1].fd));
    assert_false(peer_saw_close(&ends[N_SOCKS - 1]));
    /* Each later pass closes some, until none waits and the loop may end. */
    assert_true(drain(&loop, &c) >= 2);
    assert_int_equal(n_closed, N_SOCKS);
    for (int i = 0; i < N_SOCKS; i++) {
        assert_int_equal(order[i], ends[i].peer);
        assert_false(is_open(ends[i].fd));
        assert_true(peer_saw_close(&ends[i]));
    }
    closer_close_all(&c);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    close_peers(ends, N_SOCKS);
}

static void the_end_closes_every_one_left(void **state)
{
    uv_loop_t loop;
    struct closer c;
    struct end ends[N_SOCKS];

    (void)state;
    assert_int_equal(uv_loop_init(&loop), 0);
    closer_init(&loop, &c);
    open_ends(ends, N_SOCKS);
    for (int i = 0; i < N_SOCKS; i++)
        closer_close(&c, &ends[i].closing, close_end);
    assert_true(closer_is_busy(&c));
    closer_close_all(&c);
    assert_int_equal(n_closed, N_SOCKS);
    for (int i = 0; i < N_SOCKS; i++)
        assert_false(is_open(ends[i].fd));
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    close_peers(ends, N_SOCKS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_first_close_of_a_pass_is_at_once),
        cmocka_unit_test(a_burst_waits_in_order_for_later_passes),
        cmocka_unit_test(the_end_closes_every_one_left),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
