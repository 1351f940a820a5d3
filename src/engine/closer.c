#include "engine/closer.h"

#include "core/container.h"

/* Runs x's close, timed for the budget. */
static void run(struct closer *c, struct closing *x)
{
    uint64_t t0 = uv_hrtime();

    pace_begun(&c->pace, 1);
    x->fn(x);
    pace_took(&c->pace, 1, uv_hrtime() - t0);
}

/* Each pass while closes wait: those its budget allows, oldest first. */
static void on_pass(uv_idle_t *i)
{
    struct closer *c = container_of(i, struct closer, pass);
    struct dlist_node *x;

    while (c->queue.head && pace_left(&c->pace) > 0) {
        x = dlist_pop_head(&c->queue);
        run(c, container_of(x, struct closing, in_line));
    }
    if (!c->queue.head)
        uv_idle_stop(i);
}

void closer_init(uv_loop_t *loop, struct closer *c)
{
    uv_idle_init(loop, &c->pass);
    dlist_init(&c->queue);
    pace_init(&c->pace);
}

void closer_new_pass(struct closer *c)
{
    pace_new_pass(&c->pace);
}

void closer_close(struct closer *c, struct closing *x, closing_fn *fn)
{
    x->fn = fn;
    if (!c->queue.head && pace_left(&c->pace) > 0) {
        run(c, x);
        return;
    }
    dlist_push_tail(&c->queue, &x->in_line);
    uv_idle_start(&c->pass, on_pass);
}

int closer_is_busy(const struct closer *c)
{
    return c->queue.head != NULL;
}

size_t closer_waiting(const struct closer *c)
{
    return c->queue.n;
}

void closer_close_all(struct closer *c)
{
    struct dlist_node *x;

    while ((x = dlist_pop_head(&c->queue)) != NULL)
        container_of(x, struct closing, in_line)->fn(container_of(x, struct closing, in_line));
    uv_close((uv_handle_t *)&c->pass, NULL);
}
