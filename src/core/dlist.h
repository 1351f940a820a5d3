/*
 * dlist: an intrusive doubly linked list. The node lives inside the owner's
 * struct (container_of gets the owner back), so adding and removing never
 * allocate, and removing from the middle is O(1): a stop takes thousands
 * of waiting requests out at once. Pure inline functions; one thread owns a
 * list at a time.
 */
#ifndef BRINK_CORE_DLIST_H
#define BRINK_CORE_DLIST_H

#include <stddef.h>

struct dlist_node {
    struct dlist_node *prev, *next;
};

struct dlist {
    struct dlist_node *head, *tail;
    size_t n;
};

static inline void dlist_init(struct dlist *l)
{
    l->head = l->tail = NULL;
    l->n = 0;
}

static inline void dlist_push_tail(struct dlist *l, struct dlist_node *x)
{
    x->next = NULL;
    x->prev = l->tail;
    if (l->tail)
        l->tail->next = x;
    else
        l->head = x;
    l->tail = x;
    l->n++;
}

/* Removes x, which must be on l. */
static inline void dlist_remove(struct dlist *l, struct dlist_node *x)
{
    if (x->prev)
        x->prev->next = x->next;
    else
        l->head = x->next;
    if (x->next)
        x->next->prev = x->prev;
    else
        l->tail = x->prev;
    x->prev = x->next = NULL;
    l->n--;
}

/* Removes and returns the oldest node, or NULL when l is empty. */
static inline struct dlist_node *dlist_pop_head(struct dlist *l)
{
    struct dlist_node *x = l->head;

    if (x)
        dlist_remove(l, x);
    return x;
}

#endif
