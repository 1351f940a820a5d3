/*
 * gauge: how far a bounded run has gone and how long it has left, from one
 * tick (its struct tick_bound), for the headless progress line and the
 * console's header. A run ends at a time ([load] duration), after a number
 * of requests ([load] requests), or both; a run with neither has no gauge.
 * The time a count has left is estimated from the tick's completion rate.
 * Pure functions of one tick, any thread: a replay shows what the run did.
 */
#ifndef BRINK_CORE_GAUGE_H
#define BRINK_CORE_GAUGE_H

#include <stddef.h>
#include <stdint.h>

struct tick;

#define GAUGE_TEXT_MAX 96 /* bytes of any text below, NUL included */
#define GAUGE_DETAILS 3   /* detail levels of gauge_brief */

struct gauge {
    int has_time;           /* the run ends end_us after its start */
    uint64_t elapsed_us;    /* from the run's start to the tick's end */
    uint64_t end_us;        /* the run's planned length */
    int has_count;          /* the run ends after limit requests */
    uint64_t done;          /* requests completed so far */
    uint64_t limit;         /* the run's requests */
    int has_rate;           /* count_left_us holds an estimate */
    uint64_t count_left_us; /* the count's time left at the tick's completion rate */
    int is_ending;          /* the run's stop began (stopping or done): nothing is left */
};

/* Fills g from tick t. Returns whether t's run has an end; when it has
 * none, g is all zero. */
int gauge_of_tick(const struct tick *t, struct gauge *g);

/* A span in whole seconds (rounded half up), as a duration brink parses:
 * "0s", "48s", "1m30s", "1m05s", "1h02m". Returns buf. */
char *gauge_fmt_span(uint64_t us, char *buf, size_t len);

/* How much of each bound is done, 0..100 rounded down; 0 without it. */
unsigned gauge_time_percent(const struct gauge *g);
unsigned gauge_count_percent(const struct gauge *g);

/* Whether the header shows the count rather than the time: the run has a
 * count and no time, or both and the count is estimated to end first. */
int gauge_shows_count(const struct gauge *g);

/*
 * The gauge of a headless progress line, each bound the run has, with a
 * space before each: " 12s/1m00s 20% left 48s" for a time,
 * " 12000/100000 req 12% left ~1m30s" for a count ("left ?" while no
 * request completed in the tick); once the run's stop began, without the
 * time left (" 3s/3s 100%"). "" for a run without an end. Returns buf.
 */
char *gauge_line(const struct gauge *g, char *buf, size_t len);

/*
 * The header's text for the bound gauge_shows_count picks, at detail 0
 * (most) to GAUGE_DETAILS - 1 (least), each shorter than the one before:
 * "12s/1m00s 20% left 48s", "20% left 48s", "left 48s"; for a count
 * "12.0k/100k req 12% left ~1m30s", "12% left ~1m30s", "left ~1m30s".
 * Once the run's stop began: "3s/3s 100%", "100%", "100%". "" for a run
 * without an end. Returns buf.
 */
char *gauge_brief(const struct gauge *g, int detail, char *buf, size_t len);

/* How much of the bound gauge_brief shows is done, 0..1000 (for a bar). */
unsigned gauge_permille(const struct gauge *g);

#endif
