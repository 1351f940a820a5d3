/* The open model's wake-up (src/engine/deadline.c): how early it arms, that
 * the engine's clock is the timerfd's, that a deadline fires once and never
 * before its time, that disarming clears the timer, and that closing leaves
 * the loop empty. No timing is asserted: how late a wake-up comes is
 * measured in bench/open-precision.sh. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>
#include <sys/timerfd.h>

#include "core/container.h"
#include "engine/deadline.h"

#define ERR_MAX 256

static uint64_t monotonic_ns(void)
{
    struct timespec ts;

    assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &ts), 0);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A deadline with what its callback saw. */
struct probe {
    struct deadline d;
    int fired;
    uint64_t armed_for_ns;
    uint64_t fired_at_ns;
};

static void on_fire(struct deadline *d)
{
    struct probe *p = container_of(d, struct probe, d);

    p->fired++;
    p->fired_at_ns = monotonic_ns();
    /* The loop ends once nothing is left to wait for. */
    deadline_close(d);
}

static void timespecs_split_nanoseconds_into_seconds_and_the_rest(void **state)
{
    struct timespec ts;

    (void)state;
    ts = deadline_timespec(0);
    assert_int_equal(ts.tv_sec, 0);
    assert_int_equal(ts.tv_nsec, 0);
    ts = deadline_timespec(1999999999u);
    assert_int_equal(ts.tv_sec, 1);
    assert_int_equal(ts.tv_nsec, 999999999);
    ts = deadline_timespec(86400ULL * 365 * 1000000000u + 5);
    assert_int_equal(ts.tv_sec, 86400 * 365);
    assert_int_equal(ts.tv_nsec, 5);
}

/* The lead settles where half the wake-up latencies are above it: half
 * the wake-ups come early (polled the rest of the way), half late by the
 * latencies' spread, not by their size. */
static void the_lead_tracks_the_median_of_wake_up_latencies(void **state)
{
    uint64_t lead = 0;

    (void)state;
    /* 5, 10, ... 50 us in turn: the median is 25 to 30 us. */
    for (int i = 0; i < 20000; i++)
        lead = deadline_lead_update(lead, (uint64_t)(i % 10 + 1) * 5000);
    assert_in_range(lead, 24000, 31000);
    /* The latencies halve: it follows them down, to their median (12.5 to
     * 15 us) give or take the steps of one turn of the sequence. */
    for (int i = 0; i < 40000; i++)
        lead = deadline_lead_update(lead, (uint64_t)(i % 10 + 1) * 2500);
    assert_in_range(lead, 11000, 18000);
}

/* What a sleep costs follows what setting the timer takes: a moving
 * average, which one preempted call moves by an eighth, never above the
 * longest lead. */
static void the_sleep_cost_follows_what_setting_the_timer_takes(void **state)
{
    uint64_t cost = 0;

    (void)state;
    for (int i = 0; i < 100; i++)
        cost = deadline_cost_update(cost, 12000);
    assert_in_range(cost, 11000, 12000);
    cost = deadline_cost_update(cost, 80000);
    assert_in_range(cost, 19000, 21000);
    for (int i = 0; i < 100; i++)
        cost = deadline_cost_update(cost, 10000000);
    assert_int_equal(cost, DEADLINE_LEAD_MAX_NS);
    for (int i = 0; i < 100; i++)
        cost = deadline_cost_update(cost, 500);
    assert_in_range(cost, 500, 1000);
}

/* A preempted thread's 10 ms wake-up moves the lead by one step, and no
 * run of them lifts it above the bound. */
static void one_late_wake_up_moves_the_lead_one_step_and_never_past_the_bound(void **state)
{
    uint64_t lead = 50000;

    (void)state;
    lead = deadline_lead_update(lead, 10000000);
    assert_in_range(lead, 50001, 51000);
    for (int i = 0; i < 1000; i++)
        lead = deadline_lead_update(lead, 10000000);
    assert_int_equal(lead, DEADLINE_LEAD_MAX_NS);
    /* And prompt wake-ups never take it below 0. */
    lead = 0;
    for (int i = 0; i < 10; i++)
        lead = deadline_lead_update(lead, 0);
    assert_int_equal(lead, 0);
}

/* The engine counts time with uv_hrtime and arms the timerfd on
 * CLOCK_MONOTONIC without converting: that holds only if they are one
 * clock. Another clock would not fall between two reads of this one. */
static void uv_hrtime_reads_the_timerfds_clock(void **state)
{
    (void)state;
    for (int i = 0; i < 1000; i++) {
        uint64_t before = monotonic_ns();
        uint64_t hr = uv_hrtime();
        uint64_t after = monotonic_ns();

        assert_true(before <= hr);
        assert_true(hr <= after);
    }
}

static void a_deadline_fires_once_never_before_its_time(void **state)
{
    uv_loop_t loop;
    struct probe p = {0};
    char err[ERR_MAX] = "";

    (void)state;
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(deadline_init(&loop, &p.d, on_fire, err, sizeof(err)), 0);
    assert_string_equal(err, "");
    p.armed_for_ns = monotonic_ns() + 2000000u;
    deadline_arm(&p.d, p.armed_for_ns);
    assert_int_equal(p.d.at_ns, p.armed_for_ns);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(p.fired, 1);
    assert_true(p.fired_at_ns >= p.armed_for_ns);
    assert_int_equal(p.d.at_ns, DEADLINE_NONE);
    assert_int_equal(p.d.fd, -1);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* A deadline on a new loop, armed in_ns from now with the lead and sleep
 * cost given: what the timerfd holds then is in *its. */
static void arm_new(uv_loop_t *loop, struct probe *p, uint64_t lead_ns, uint64_t cost_ns,
                    uint64_t in_ns, struct itimerspec *its)
{
    char err[ERR_MAX];

    assert_int_equal(uv_loop_init(loop), 0);
    assert_int_equal(deadline_init(loop, &p->d, on_fire, err, sizeof(err)), 0);
    p->d.lead_ns = lead_ns;
    p->d.sleep_cost_ns = cost_ns;
    p->armed_for_ns = monotonic_ns() + in_ns;
    deadline_arm(&p->d, p->armed_for_ns);
    assert_int_equal(timerfd_gettime(p->d.fd, its), 0);
}

/* Runs the loop to its end: the deadline fired once, not before its time. */
static void run_fires_once_on_time(uv_loop_t *loop, struct probe *p)
{
    assert_int_equal(uv_run(loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(p->fired, 1);
    assert_true(p->fired_at_ns >= p->armed_for_ns);
    assert_int_equal(uv_loop_close(loop), 0);
}

/* With a lead the timerfd is set that much earlier and the loop polls the
 * rest of the way: the deadline still fires once, not before its time. */
static void with_a_lead_it_wakes_early_and_still_fires_on_time(void **state)
{
    uv_loop_t loop;
    struct probe p = {0};
    struct itimerspec its;

    (void)state;
    arm_new(&loop, &p, DEADLINE_LEAD_MAX_NS, 0, 20000000u, &its);
    assert_int_equal(p.d.woken_for_ns, p.armed_for_ns - DEADLINE_LEAD_MAX_NS);
    assert_true(its.it_value.tv_sec > 0 || its.it_value.tv_nsec > 0);
    run_fires_once_on_time(&loop, &p);
}

/* A time nearer than the lead and what a sleep costs together is not
 * slept for: the timerfd stays clear and the loop polls until it is
 * reached, then fires once, not before it. */
static void a_time_nearer_than_a_sleep_costs_is_polled_without_the_timer(void **state)
{
    uv_loop_t loop;
    struct probe p = {0};
    struct itimerspec its;

    (void)state;
    arm_new(&loop, &p, 0, DEADLINE_LEAD_MAX_NS, DEADLINE_LEAD_MAX_NS / 2, &its);
    assert_int_equal(p.d.woken_for_ns, DEADLINE_NONE);
    assert_int_equal(its.it_value.tv_sec, 0);
    assert_int_equal(its.it_value.tv_nsec, 0);
    run_fires_once_on_time(&loop, &p);
}

static void a_time_already_past_fires_on_the_next_pass(void **state)
{
    uv_loop_t loop;
    struct probe p = {0};
    char err[ERR_MAX];

    (void)state;
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(deadline_init(&loop, &p.d, on_fire, err, sizeof(err)), 0);
    deadline_arm(&p.d, monotonic_ns() - 1000000u);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(p.fired, 1);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* Disarmed, the timerfd holds no time; a re-arm replaces the earlier one. */
static void disarming_clears_the_timer_and_arming_replaces_it(void **state)
{
    uv_loop_t loop;
    struct probe p = {0};
    struct itimerspec its;
    char err[ERR_MAX];
    uint64_t far = monotonic_ns() + 3600ULL * 1000000000u;

    (void)state;
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(deadline_init(&loop, &p.d, on_fire, err, sizeof(err)), 0);
    deadline_arm(&p.d, far);
    assert_int_equal(timerfd_gettime(p.d.fd, &its), 0);
    assert_true(its.it_value.tv_sec > 3500);
    deadline_arm(&p.d, far - 1800ULL * 1000000000u);
    assert_int_equal(timerfd_gettime(p.d.fd, &its), 0);
    assert_true(its.it_value.tv_sec < 1800);
    deadline_disarm(&p.d);
    assert_int_equal(p.d.at_ns, DEADLINE_NONE);
    assert_int_equal(timerfd_gettime(p.d.fd, &its), 0);
    assert_int_equal(its.it_value.tv_sec, 0);
    assert_int_equal(its.it_value.tv_nsec, 0);
    deadline_close(&p.d);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(p.fired, 0);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* Closing twice is one close; the fd goes with the handle; a closed
 * deadline can no longer be armed. */
static void closing_releases_the_handle_and_the_fd(void **state)
{
    uv_loop_t loop;
    struct probe p = {0};
    char err[ERR_MAX];
    int fd;

    (void)state;
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(deadline_init(&loop, &p.d, on_fire, err, sizeof(err)), 0);
    fd = p.d.fd;
    assert_true(fcntl(fd, F_GETFD) >= 0);
    deadline_close(&p.d);
    deadline_close(&p.d);
    deadline_arm(&p.d, monotonic_ns());
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(p.fired, 0);
    assert_int_equal(p.d.fd, -1);
    assert_int_equal(fcntl(fd, F_GETFD), -1);
    assert_int_equal(errno, EBADF);
    assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(timespecs_split_nanoseconds_into_seconds_and_the_rest),
        cmocka_unit_test(the_lead_tracks_the_median_of_wake_up_latencies),
        cmocka_unit_test(the_sleep_cost_follows_what_setting_the_timer_takes),
        cmocka_unit_test(a_time_nearer_than_a_sleep_costs_is_polled_without_the_timer),
        cmocka_unit_test(one_late_wake_up_moves_the_lead_one_step_and_never_past_the_bound),
        cmocka_unit_test(uv_hrtime_reads_the_timerfds_clock),
        cmocka_unit_test(a_deadline_fires_once_never_before_its_time),
        cmocka_unit_test(with_a_lead_it_wakes_early_and_still_fires_on_time),
        cmocka_unit_test(a_time_already_past_fires_on_the_next_pass),
        cmocka_unit_test(disarming_clears_the_timer_and_arming_replaces_it),
        cmocka_unit_test(closing_releases_the_handle_and_the_fd),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
