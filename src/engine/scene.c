/*
 * Scenario runs ([scenario] script): each virtual user is a coroutine of
 * the worker's Lua state (src/script) running the script's iteration.
 * A request it makes goes through the slot as any request does (same
 * transports, same counting, its name its request kind), and its reply
 * resumes the coroutine; brink.sleep waits on the slot's think timer.
 * Closed model: a user starts its next iteration when one ends ([load]
 * think_time apart). Open model: each arrival of the schedule starts an
 * iteration on an idle slot, its first request timed from the intended
 * start. Worker thread, except init and free (main thread).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "config/config.h"
#include "core/msg.h"
#include "core/redact.h"
#include "core/xalloc.h"
#include "engine/classify.h"
#include "engine/internal.h"
#include "engine/workload.h"
#include "script/script.h"

#define PAUSE_EMPTY_MS 1 /* after an iteration that sent nothing, before the next */
#define BASE_MAX (CONFIG_MAX_HEADERS + SCRIPT_HEADERS_MAX)
#define LINES_MAX (BASE_MAX + 1 + SIGV4_MAX_LINES) /* and the jar's Cookie */
#define OTHER_KIND "other"

struct scene_kinds {
    pthread_mutex_t lock;
    struct kind_names kinds; /* the ticks' (merger.h) */
    char *origin;            /* "scheme://authority" of [target] url: where a path goes */
    /* The checks, counters and gauges the ticks show, by their tick names,
     * in the order first seen: at most marks_room, what the probes leave
     * of a tick's rows; has_said[is_check]: a name past it was said. */
    atomic_uint n_marks;
    uint32_t marks_room;
    int has_said[2];
    char marks[TICK_MAX_PROBES][TICK_NAME_MAX];
};

/* ---- Set-up ----------------------------------------------------------- */

static char *origin_of(const char *url)
{
    const char *p = strstr(url, "://");
    size_t n;

    if (!p)
        return xstrdup("");
    p += 3;
    n = strcspn(p, "/?#");
    return xstrndup(url, (size_t)(p - url) + n);
}

int engine__scene_init(struct engine *e, char *err, size_t err_len)
{
    const char *path = e->config->scenario.script.value;
    struct script_limits limits = {
        .budget_us = e->config->scenario.budget_us,
        .memory_bytes = e->config->scenario.memory_bytes,
    };
    struct scene_kinds *k;
    int rc;

    if (!path)
        return 0;
    rc = script_setup(path, e->config->scenario.script.raw, e->seed, &limits, err, err_len,
                      &e->script);
    if (rc < 0)
        return rc;
    k = xcalloc(1, sizeof(*k));
    pthread_mutex_init(&k->lock, NULL);
    atomic_init(&k->kinds.n, 0);
    atomic_init(&k->n_marks, 0);
    k->marks_room = TICK_MAX_PROBES - e->config->n_probes;
    k->origin = origin_of(e->config->target.url.value ? e->config->target.url.value : "");
    e->scene_kinds = k;
    return 0;
}

void engine__scene_free(struct engine *e)
{
    script_setup_free(e->script);
    e->script = NULL;
    if (e->scene_kinds) {
        pthread_mutex_destroy(&e->scene_kinds->lock);
        free(e->scene_kinds->origin);
        free(e->scene_kinds);
        e->scene_kinds = NULL;
    }
}

void engine__scene_set_deadline(struct engine *e, uint64_t deadline_ns)
{
    if (e->script)
        script_setup_set_deadline(e->script, deadline_ns);
}

int engine__scene_worker_init(struct worker *w, char *err, size_t err_len)
{
    if (!w->e->script)
        return 0;
    return script_open(w->e->script, w->view.id, err, err_len, &w->script);
}

void engine__scene_worker_free(struct worker *w)
{
    script_close(w->script);
    w->script = NULL;
}

void engine__scene_slot_init(struct slot *s)
{
    if (!s->w->script)
        return;
    s->user = script_user_new(s->w->script, s->view.vu);
    s->req_store.lines = xcalloc(LINES_MAX, sizeof(*s->req_store.lines));
    s->req_store.base = xcalloc(BASE_MAX, sizeof(*s->req_store.base));
}

void engine__scene_slot_free(struct slot *s)
{
    struct scene_req *q = &s->req_store;

    if (!s->user)
        return;
    script_user_free(s->user);
    free(q->url_buf.at);
    free(q->head_buf.at);
    free(q->lines);
    free(q->base);
    free(q->cookie_line);
    capture_free(&q->cap);
}

/* ---- Request kinds ---------------------------------------------------- */

const struct kind_names *engine__scene_names(const struct engine *e)
{
    return e->scene_kinds ? &e->scene_kinds->kinds : NULL;
}

static int find_kind(const struct scene_kinds *k, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++) {
        if (strcmp(k->kinds.names[i], name) == 0)
            return (int)i;
    }
    return -1;
}

/* The kind named name, made on first use. Past TICK_MAX_KINDS - 1 names,
 * every new one is counted in the last kind, "other", said once. */
static size_t kind_of(struct worker *w, const char *name)
{
    struct scene_kinds *k = w->e->scene_kinds;
    uint32_t n = atomic_load_explicit(&k->kinds.n, memory_order_acquire);
    int i = find_kind(k, n, name);
    char text[TICK_TEXT_MAX], shown[TICK_NAME_MAX];

    if (i >= 0)
        return (size_t)i;
    pthread_mutex_lock(&k->lock);
    n = atomic_load_explicit(&k->kinds.n, memory_order_relaxed);
    i = find_kind(k, n, name);
    if (i < 0 && n < TICK_MAX_KINDS - 1) {
        snprintf(k->kinds.names[n], TICK_NAME_MAX, "%s", name);
        atomic_store_explicit(&k->kinds.n, n + 1, memory_order_release);
        i = (int)n;
    } else if (i < 0) {
        i = TICK_MAX_KINDS - 1;
        if (n < TICK_MAX_KINDS) {
            snprintf(k->kinds.names[n], TICK_NAME_MAX, "%s", OTHER_KIND);
            atomic_store_explicit(&k->kinds.n, n + 1, memory_order_release);
            snprintf(text, sizeof(text),
                     "request name %s: past %d names; it and every later new name count as "
                     "\"" OTHER_KIND "\"",
                     msg_show(name, shown, sizeof(shown)), TICK_MAX_KINDS - 1);
            engine__merger_event(w->e->merger, EV_NOTICE, engine__now_ns(w), text);
        }
    }
    pthread_mutex_unlock(&k->lock);
    return (size_t)i;
}

/* ---- Requests --------------------------------------------------------- */

/* Signs q with [target] aws_sigv4's credentials: its lines are added to
 * q's, pointing into the worker's sigv4_out (used before the next
 * request of the worker is made). Returns 0, or -EINVAL with why. */
static int sign(struct slot *s, struct scene_req *q, const struct sigv4_creds *creds, char *why,
                size_t why_len)
{
    struct worker *w = s->w;
    char hash[SIGV4_HASH_HEX];
    struct sigv4_request rq = {.method = q->method,
                               .url = q->url,
                               .url_len = strlen(q->url),
                               .headers = q->headers,
                               .n_headers = q->n_headers,
                               .payload_hash = hash};

    sigv4_payload_hash(q->body, q->body_len, hash);
    if (!w->sigv4_out)
        w->sigv4_out = xmalloc(sizeof(*w->sigv4_out));
    /* Wall-clock UTC, the second it is sent, as for plain kinds. */
    if (sigv4_sign(creds, &w->sigv4_cache, &rq, (int64_t)time(NULL), w->sigv4_out) != 0) {
        msg_set(why, why_len,
                "brink.request: aws_sigv4: the signature's headers take more than %d bytes",
                SIGV4_OUT_MAX);
        return -EINVAL;
    }
    for (size_t i = 0; i < w->sigv4_out->n_lines; i++)
        q->lines[q->n_headers++] = w->sigv4_out->lines[i];
    return 0;
}

/* Whether header line h ("Name: value") is named name (n bytes). */
static int line_names(const char *h, const char *name, size_t n)
{
    return strncasecmp(h, name, n) == 0 && h[n] == ':';
}

/* Sets the lines, signature and (h1) head of the hop of q about to go to
 * q->url: the base lines (without credentials once a hop left the first
 * origin), the jar's Cookie, the signature. Returns 0, or -EINVAL with why
 * (a script error at the first hop, the hop's failure after). */
static int dress(struct slot *s, struct scene_req *q, char *why, size_t why_len)
{
    struct engine *e = s->w->e;
    size_t n = 0;

    for (size_t i = 0; i < q->n_base; i++) {
        if (!s->redirect.is_cross || !engine__is_credential(q->base[i]))
            q->lines[n++] = q->base[i];
    }
    if (s->jar && (!q->has_cookie || s->redirect.is_cross)) {
        if (!q->cookie_line)
            q->cookie_line = xmalloc(ENGINE_COOKIE_LINE_MAX);
        if (engine__slot_cookie_line(&s->view, q->url, q->cookie_line, ENGINE_COOKIE_LINE_MAX) > 0)
            q->lines[n++] = q->cookie_line;
    }
    q->headers = q->lines;
    q->n_headers = n;
    if (q->is_signed && sign(s, q, workload_kind(e->workload, 0)->sigv4, why, why_len) < 0)
        return -EINVAL;
    if (e->tp->script_ready)
        return e->tp->script_ready(&s->view, q, s->redirect.hops, why, why_len);
    return 0;
}

/* Sets s->req_store up for the script's request r: its absolute URL, header
 * lines ([target] ones first), expected statuses, timeout, and for h1 its
 * head. Returns 0, or -EINVAL with why (a script error). */
static int prepare(struct slot *s, const struct script_request *r, char *why, size_t why_len)
{
    struct engine *e = s->w->e;
    struct scene_req *q = &s->req_store;
    const struct workload_kind *dflt = workload_kind(e->workload, 0);
    size_t n = 0;

    q->url_buf.len = 0;
    if (r->url[0] == '/')
        capture_add(&q->url_buf, e->scene_kinds->origin, strlen(e->scene_kinds->origin));
    capture_add(&q->url_buf, r->url, strlen(r->url) + 1);
    if (strncmp(q->url_buf.at, "http://", 7) != 0 && strncmp(q->url_buf.at, "https://", 8) != 0) {
        msg_set(why, why_len, "brink.request: url must be http://, https:// or a path, got %.80s",
                r->url);
        return -EINVAL;
    }
    q->method = r->method;
    q->url = q->url_buf.at;
    q->has_cookie = 0;
    q->exchange = NULL;
    for (size_t i = 0; i < dflt->n_headers; i++)
        q->base[n++] = dflt->headers[i];
    for (size_t i = 0; i < r->n_headers; i++) {
        q->base[n++] = r->headers[i];
        q->has_cookie |= line_names(r->headers[i], "Cookie", 6);
    }
    q->n_base = n;
    q->body = r->body;
    q->body_len = r->body_len;
    q->timeout_us = r->timeout_us ? r->timeout_us : e->config->target.timeout_us;
    q->expect = r->has_expect ? &r->expect : &dflt->expect;
    q->is_head = strcmp(r->method, "HEAD") == 0;
    q->follow_redirects = r->follow_redirects >= 0 ? (uint32_t)r->follow_redirects
                                                   : e->config->target.follow_redirects;
    capture_begin(&q->cap, !r->skip_body);
    if (r->aws_sigv4 > 0 && !dflt->sigv4) {
        msg_set(why, why_len,
                "brink.request: aws_sigv4 needs [target] aws_sigv4 = REGION/SERVICE (and the "
                "credentials in the environment)");
        return -EINVAL;
    }
    /* Signed when [target] aws_sigv4 says so, unless the request says no. */
    q->is_signed = r->aws_sigv4 != 0 && dflt->sigv4;
    return dress(s, q, why, why_len);
}

/* The script's framing of an exchange's reply (SCRIPT_FRAME_PATTERN,
 * SCRIPT_FRAME_FUNCTION), for the transport. */
static long frame_by_script(struct scene_req *q, const char *buf, size_t n, char *why,
                            size_t why_len)
{
    struct slot *s = container_of(q, struct slot, req_store);

    return script_user_frame(s->user, buf, n, why, why_len);
}

/* Sets s->req_store up for the script's exchange over one of its
 * connections (brink.tcp, brink.ws): transport_stream carries it. */
static void prepare_exchange(struct slot *s, const struct script_request *r)
{
    struct engine *e = s->w->e;
    struct scene_req *q = &s->req_store;

    q->exchange = r->exchange;
    q->frame = frame_by_script;
    q->reply_type = NULL;
    q->method = NULL;
    q->url = NULL;
    q->n_headers = 0;
    q->body = NULL;
    q->body_len = 0;
    q->timeout_us = r->timeout_us ? r->timeout_us : e->config->target.timeout_us;
    q->expect = NULL;
    q->is_head = 0;
    q->follow_redirects = 0;
    q->is_signed = 0;
    capture_begin(&q->cap, 1);
}

/* The connections the script of s closed since its last step close now. */
static void close_conns(struct slot *s)
{
    uint32_t closes = script_user_take_closes(s->user);

    for (uint32_t i = 0; closes; i++, closes >>= 1) {
        if (closes & 1)
            s->w->e->sp->script_close(&s->view, i);
    }
}

int engine__scene_hop(struct slot *s, char *why, size_t why_len)
{
    struct scene_req *q = s->req;

    q->url = s->redirect.url;
    if (s->redirect.is_get) {
        q->method = "GET";
        q->body = NULL;
        q->body_len = 0;
    }
    capture_begin(&q->cap, q->cap.wants_body);
    if (dress(s, q, why, why_len) < 0) {
        /* The hop fails as a transfer does: its words without the call's
         * name, which is the script's line's, not the hop's. */
        static const char call[] = "brink.request: ";

        if (strncmp(why, call, sizeof(call) - 1) == 0)
            memmove(why, why + sizeof(call) - 1, strlen(why) - sizeof(call) + 2);
        return -EINVAL;
    }
    return 0;
}

/* Each "Name: value" line of the reply's head kept for the script that
 * is named name (n bytes): fn gets its value, blanks trimmed. */
static void each_line(struct slot *s, const char *name, size_t n,
                      void (*fn)(struct transport_slot *, const char *, const char *, size_t))
{
    const struct capture_buf *h = &s->req->cap.head;
    const char *p = h->at, *end = h->at + h->len;

    while (p && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end, *v = p + n + 1;

        if ((size_t)(eol - p) > n && line_names(p, name, n)) {
            while (v < eol && (*v == ' ' || *v == '\t'))
                v++;
            fn(&s->view, s->req->url, v, (size_t)(eol - v));
        }
        p = nl ? nl + 1 : NULL;
    }
}

void engine__scene_take_head(struct slot *s, const struct transfer_result *r)
{
    if (r->http_status <= 0 || s->req->exchange)
        return;
    if (s->jar)
        each_line(s, "Set-Cookie", 10, engine__slot_cookie_set);
    if (s->req->follow_redirects)
        each_line(s, "Location", 8, engine__slot_location);
}

/* A failed iteration: counted once in the total as a failure of class
 * script, with its first message, which names the user (its user.id) so
 * the report says whose iterations failed. */
static void count_error(struct slot *s)
{
    struct interval *iv = &s->w->iv;

    iv->total.completed++;
    iv->total.errors[ERR_SCRIPT]++;
    if (!iv->first_error[ERR_SCRIPT][0]) {
        char text[TICK_TEXT_MAX];

        /* A script's message may hold what it was given: a URL with its
         * password, a token. Redacted before the screen and the session. */
        snprintf(text, sizeof(text), "user %u: %s", s->view.vu + 1, script_user_error(s->user));
        redact_text(text, iv->first_error[ERR_SCRIPT], TICK_TEXT_MAX);
        iv->first_error_ns[ERR_SCRIPT] = engine__now_ns(s->w);
    }
}

static void on_sleep(uv_timer_t *t);

static void pause_for(struct slot *s, uint64_t ms)
{
    /* The loop's clock was read before this pass's callbacks ran. */
    uv_update_time(&s->w->view.loop);
    s->is_sleeping = 1;
    uv_timer_start(&s->think_timer, on_sleep, ms, 0);
}

/*
 * Does what step asks: sends the request (intended_ns as for
 * engine__slot_start), or sleeps. Returns 0 when s is busy with it, 1 when
 * the iteration ended, -EAGAIN when no request may start (the iteration is
 * dropped).
 */
static int follow(struct slot *s, enum script_step step, uint64_t intended_ns)
{
    struct script_user *u = s->user;
    char why[SCRIPT_WHY_MAX];

    for (;;) {
        close_conns(s);
        switch (step) {
        case SCRIPT_STEP_REQUEST:
            if (script_user_take_clear(u) && s->jar)
                cookie_jar_clear(s->jar);
            if (script_user_request(u)->exchange) {
                prepare_exchange(s, script_user_request(u));
            } else if (prepare(s, script_user_request(u), why, sizeof(why)) < 0) {
                step = script_user_refuse(u, why);
                continue;
            }
            if (!engine__take_ticket(s->w->e)) {
                script_user_cancel(u);
                return -EAGAIN;
            }
            s->kind = kind_of(s->w, script_user_request(u)->name);
            s->req = &s->req_store;
            engine__slot_send(s, intended_ns);
            return 0;
        case SCRIPT_STEP_SLEEP: pause_for(s, (script_user_sleep_us(u) + 999) / 1000); return 0;
        case SCRIPT_STEP_ERROR: count_error(s); return 1;
        case SCRIPT_STEP_END: return 1;
        }
    }
}

int engine__scene_start(struct slot *s, uint64_t intended_ns)
{
    struct script_user *u = s->user;
    enum script_step step;
    int rc;

    if (s->is_sleeping)
        return 0;
    /* No request may start: no iteration either (an idle user's would
     * never end the run). */
    if (s->w->e->request_limit && atomic_load(&s->w->e->tickets) >= s->w->e->request_limit)
        return -EAGAIN;
    if (s->req) {
        /* Its request was dropped (abort_in_flight): the script hears so. */
        struct script_reply r = {.error = "dropped"};

        s->req = NULL;
        step = script_user_reply(u, &r);
    } else if (script_user_is_busy(u)) {
        /* A sleep the pause or the stop cut short. */
        step = script_user_resume(u);
    } else {
        step = script_user_begin(u);
    }
    rc = follow(s, step, intended_ns);
    if (rc == 1) {
        /* Nothing was sent since the call: the next iteration waits for the
         * next loop pass, so a script that sends nothing cannot spin here. */
        pause_for(s, PAUSE_EMPTY_MS);
        return 0;
    }
    return rc;
}

/* After a reply or a sleep: the iteration goes on from step. */
static void go_on(struct slot *s, enum script_step step)
{
    int rc = follow(s, step, SLOT_NOW);

    if (rc == 1)
        s->w->next(s->w, s);
    else if (rc < 0)
        s->w->check_finished(s->w);
}

void engine__scene_reply(struct slot *s, const struct transfer_result *r, int cls,
                         uint64_t latency_us)
{
    struct scene_req *q = s->req;
    struct script_reply reply = {
        .status = (int)r->http_status,
        .error = cls >= 0 ? errclass_name((enum errclass)cls) : NULL,
        .headers = q->cap.head.at,
        .headers_len = q->cap.head.len,
        .body = q->cap.wants_body ? q->cap.body.at : NULL,
        .body_len = q->cap.wants_body ? q->cap.body.len : 0,
        .latency_us = latency_us,
        .redirects = s->redirect.hops,
        .url = q->url,
        .type = q->reply_type,
    };

    s->req = NULL;
    go_on(s, script_user_reply(s->user, &reply));
}

static void on_sleep(uv_timer_t *t)
{
    struct slot *s = container_of(t, struct slot, think_timer);
    struct worker *w = s->w;

    s->is_sleeping = 0;
    if (!script_user_is_busy(s->user)) {
        /* The pause after an iteration that sent nothing. */
        w->next(w, s);
        return;
    }
    if (w->is_paused || w->is_stopping || w->is_done ||
        (!w->is_open && s->view.index >= w->share)) {
        /* It may not run now: it goes on where it stands when it may. */
        w->check_finished(w);
        return;
    }
    go_on(s, script_user_resume(s->user));
}

/* ---- Checks and counters ---------------------------------------------- */

/* "1st", "2nd", "3rd", "4th", ... "11th", "12th", "13th", "21st". */
static const char *ordinal_suffix(uint32_t n)
{
    if (n % 100 >= 11 && n % 100 <= 13)
        return "th";
    switch (n % 10) {
    case 1: return "st";
    case 2: return "nd";
    case 3: return "rd";
    default: return "th";
    }
}

/* Says, once per class in the run, that name (raw) found no room: the
 * tick has TICK_MAX_PROBES rows, the probes' first. Under k->lock. */
static void say_dropped(struct worker *w, struct scene_kinds *k, int is_check, const char *name)
{
    char text[TICK_TEXT_MAX], shown[TICK_NAME_MAX], room[48] = "";
    uint32_t n = atomic_load_explicit(&k->n_marks, memory_order_relaxed) + 1;

    if (k->has_said[is_check])
        return;
    k->has_said[is_check] = 1;
    if (k->marks_room < TICK_MAX_PROBES)
        snprintf(room, sizeof(room), " (%d less %u probes)", TICK_MAX_PROBES,
                 TICK_MAX_PROBES - k->marks_room);
    snprintf(text, sizeof(text),
             "%s: %" PRIu32 "%s name \"%s\" dropped: at most %" PRIu32 " names%s",
             is_check ? "checks" : "counters", n, ordinal_suffix(n),
             msg_show(name, shown, sizeof(shown)), k->marks_room, room);
    engine__merger_event(w->e->merger, EV_NOTICE, engine__now_ns(w), text);
}

static int find_mark(const struct scene_kinds *k, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++) {
        if (strcmp(k->marks[i], name) == 0)
            return (int)i;
    }
    return -1;
}

/* Whether the tick has a row for the mark named name (as the tick names
 * it), given in the order first seen across the run's workers; a name
 * past the room is said (raw: as the script wrote it) and not kept. */
static int has_room(struct worker *w, const char *name, int is_check, const char *raw)
{
    struct scene_kinds *k = w->e->scene_kinds;
    uint32_t n = atomic_load_explicit(&k->n_marks, memory_order_acquire);
    int i = find_mark(k, n, name);

    if (i >= 0)
        return 1;
    pthread_mutex_lock(&k->lock);
    n = atomic_load_explicit(&k->n_marks, memory_order_relaxed);
    i = find_mark(k, n, name);
    if (i < 0 && n < k->marks_room) {
        snprintf(k->marks[n], TICK_NAME_MAX, "%s", name);
        atomic_store_explicit(&k->n_marks, n + 1, memory_order_release);
        i = (int)n;
    } else if (i < 0) {
        say_dropped(w, k, is_check, raw);
    }
    pthread_mutex_unlock(&k->lock);
    return i >= 0;
}

static void add_mark(void *arg, const char *name, enum script_mark kind, double value,
                     uint64_t passed, uint64_t calls)
{
    struct worker *w = arg;
    struct scene_mark mk;

    memset(&mk, 0, sizeof(mk));
    if (kind == SCRIPT_MARK_CHECK)
        snprintf(mk.name, sizeof(mk.name), "check:%.*s", TICK_NAME_MAX - 7, name);
    else
        snprintf(mk.name, sizeof(mk.name), "%.*s", TICK_NAME_MAX - 1, name);
    mk.is_check = kind == SCRIPT_MARK_CHECK;
    mk.is_gauge = kind == SCRIPT_MARK_GAUGE;
    mk.value = value;
    mk.passed = passed;
    if (has_room(w, mk.name, mk.is_check, name))
        engine__interval_add_mark(&w->iv, &mk);
    else
        w->iv.marks_dropped += calls;
}

void engine__scene_interval_end(struct worker *w)
{
    struct scene_kinds *k = w->e->scene_kinds;
    const char *name[2];
    uint64_t n[2];

    if (!w->script)
        return;
    /* Those the script could not keep are read before script_take_marks
     * starts the interval's counts over, and said after the names it kept
     * took their rows (a class past its 32 names fills the tick). */
    for (int is_check = 0; is_check < 2; is_check++)
        n[is_check] = script_dropped(w->script, is_check, &name[is_check]);
    script_take_marks(w->script, add_mark, w);
    for (int is_check = 0; is_check < 2; is_check++) {
        w->iv.marks_dropped += n[is_check];
        if (n[is_check] && name[is_check]) {
            pthread_mutex_lock(&k->lock);
            say_dropped(w, k, is_check, name[is_check]);
            pthread_mutex_unlock(&k->lock);
        }
    }
}
