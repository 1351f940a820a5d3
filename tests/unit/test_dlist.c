/* dlist: order, removal from anywhere, and the count. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>

#include <cmocka.h>

#include "core/container.h"
#include "core/dlist.h"

struct item {
    int id;
    struct dlist_node node;
};

static int id_of(const struct dlist_node *x)
{
    return container_of(x, struct item, node)->id;
}

static void items_come_out_oldest_first(void **state)
{
    struct item it[3] = {{.id = 1}, {.id = 2}, {.id = 3}};
    struct dlist l;

    (void)state;
    dlist_init(&l);
    assert_null(dlist_pop_head(&l));
    for (int i = 0; i < 3; i++)
        dlist_push_tail(&l, &it[i].node);
    assert_int_equal(l.n, 3);
    assert_int_equal(id_of(dlist_pop_head(&l)), 1);
    assert_int_equal(id_of(dlist_pop_head(&l)), 2);
    assert_int_equal(id_of(dlist_pop_head(&l)), 3);
    assert_null(dlist_pop_head(&l));
    assert_int_equal(l.n, 0);
    assert_null(l.tail);
}

static void removing_the_middle_head_or_tail_keeps_the_rest_linked(void **state)
{
    struct item it[5] = {{.id = 0}, {.id = 1}, {.id = 2}, {.id = 3}, {.id = 4}};
    struct dlist l;

    (void)state;
    dlist_init(&l);
    for (int i = 0; i < 5; i++)
        dlist_push_tail(&l, &it[i].node);
    dlist_remove(&l, &it[2].node);
    dlist_remove(&l, &it[0].node);
    dlist_remove(&l, &it[4].node);
    assert_int_equal(l.n, 2);
    assert_int_equal(id_of(l.head), 1);
    assert_int_equal(id_of(l.tail), 3);
    assert_ptr_equal(l.head->next, l.tail);
    assert_ptr_equal(l.tail->prev, l.head);
    /* A removed node can go back in, at the tail. */
    dlist_push_tail(&l, &it[0].node);
    assert_int_equal(id_of(l.tail), 0);
    assert_int_equal(id_of(l.tail->prev), 3);
    assert_int_equal(l.n, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(items_come_out_oldest_first),
        cmocka_unit_test(removing_the_middle_head_or_tail_keeps_the_rest_linked),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
