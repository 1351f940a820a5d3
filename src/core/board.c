#include "core/board.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

struct board {
    pthread_mutex_t lock;
    uint32_t n_probes;
    struct tick_probe probes[TICK_MAX_PROBES];
    uint32_t n_events;
    uint32_t events_dropped;
    struct tick_event events[BOARD_EVENTS];
};

struct board *board_new(void)
{
    struct board *b = xcalloc(1, sizeof(*b));

    pthread_mutex_init(&b->lock, NULL);
    return b;
}

void board_free(struct board *b)
{
    if (!b)
        return;
    pthread_mutex_destroy(&b->lock);
    free(b);
}

int board_add(struct board *b, const char *name)
{
    int i;

    pthread_mutex_lock(&b->lock);
    if (b->n_probes == TICK_MAX_PROBES) {
        pthread_mutex_unlock(&b->lock);
        return -ENOSPC;
    }
    i = (int)b->n_probes++;
    memset(&b->probes[i], 0, sizeof(b->probes[i]));
    tick_copy_text(b->probes[i].name, TICK_NAME_MAX, name);
    b->probes[i].state = PROBE_PENDING;
    pthread_mutex_unlock(&b->lock);
    return i;
}

uint32_t board_count(struct board *b)
{
    uint32_t n;

    pthread_mutex_lock(&b->lock);
    n = b->n_probes;
    pthread_mutex_unlock(&b->lock);
    return n;
}

void board_set(struct board *b, uint32_t i, const struct tick_probe *p)
{
    pthread_mutex_lock(&b->lock);
    if (i < b->n_probes) {
        char name[TICK_NAME_MAX];

        memcpy(name, b->probes[i].name, sizeof(name));
        b->probes[i] = *p;
        memcpy(b->probes[i].name, name, sizeof(name));
        b->probes[i].error[TICK_TEXT_MAX - 1] = '\0';
    }
    pthread_mutex_unlock(&b->lock);
}

void board_event(struct board *b, enum event_kind kind, uint64_t at_ms, const char *text)
{
    pthread_mutex_lock(&b->lock);
    if (b->n_events == BOARD_EVENTS) {
        b->events_dropped++;
    } else {
        struct tick_event *e = &b->events[b->n_events++];

        e->at_ms = at_ms;
        e->kind = kind;
        tick_copy_text(e->text, sizeof(e->text), text);
    }
    pthread_mutex_unlock(&b->lock);
}

void board_fill(struct board *b, struct tick *t)
{
    pthread_mutex_lock(&b->lock);
    t->n_probes = b->n_probes;
    memcpy(t->probes, b->probes, sizeof(b->probes[0]) * b->n_probes);
    for (uint32_t i = 0; i < b->n_events; i++)
        tick_add_event(t, b->events[i].kind, b->events[i].at_ms, b->events[i].text);
    t->events_dropped += b->events_dropped;
    b->n_events = 0;
    b->events_dropped = 0;
    pthread_mutex_unlock(&b->lock);
}
