/*
 * The terminal: the only file that opens and closes curses. It picks the
 * glyphs and colours, keeps stderr away from the screen while curses owns
 * it, and restores the terminal on every exit path: ui_close, and the crash
 * handlers, which put back the saved terminal modes with async-signal-safe
 * calls only, return stderr to its file (with what was written meanwhile)
 * and chain to the handler that was there before (a sanitizer's, say).
 */
#include "ui/term.h"
#include "ui/ui.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>

#include "core/msg.h"

#define RESTORE_MAX 256 /* bytes of terminfo strings that undo the screen */

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define N_CRASH (sizeof(crash_signals) / sizeof(crash_signals[0]))

/* What the crash handler needs, prepared while the terminal opens; a signal
 * handler can reach nothing else. One console per process. */
static struct {
    volatile sig_atomic_t is_open;
    int tty_fd;
    struct termios saved;
    int has_saved;
    char restore[RESTORE_MAX];
    size_t restore_len;
    int stderr_fd;  /* the real stderr, while ours goes to a file */
    int capture_fd; /* that file */
    struct sigaction old[N_CRASH];
} crash;

static SCREEN *screen;
static FILE *capture;

static void append_cap(const char *name)
{
    const char *s = tigetstr(name);
    size_t n;

    if (!s || s == (const char *)-1)
        return;
    n = strlen(s);
    if (crash.restore_len + n < sizeof(crash.restore)) {
        memcpy(crash.restore + crash.restore_len, s, n);
        crash.restore_len += n;
    }
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);

        if (w <= 0 && errno != EINTR)
            return;
        if (w > 0) {
            p += w;
            n -= (size_t)w;
        }
    }
}

/* Gives stderr back and copies what was captured to it. Signal-safe. */
static void release_stderr(void)
{
    char buf[4096];
    ssize_t n;

    if (crash.stderr_fd < 0)
        return;
    dup2(crash.stderr_fd, STDERR_FILENO);
    close(crash.stderr_fd);
    crash.stderr_fd = -1;
    if (lseek(crash.capture_fd, 0, SEEK_SET) == 0) {
        while ((n = read(crash.capture_fd, buf, sizeof(buf))) > 0)
            write_all(STDERR_FILENO, buf, (size_t)n);
    }
}

void ui_restore_now(void)
{
    if (crash.is_open) {
        crash.is_open = 0;
        write_all(crash.tty_fd, crash.restore, crash.restore_len);
        if (crash.has_saved)
            tcsetattr(crash.tty_fd, TCSANOW, &crash.saved);
        release_stderr();
    }
}

static void on_crash(int sig)
{
    ui_restore_now();
    for (size_t i = 0; i < N_CRASH; i++) {
        if (crash_signals[i] == sig)
            sigaction(sig, &crash.old[i], NULL);
    }
    raise(sig);
}

static void install_crash_handlers(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_crash;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    for (size_t i = 0; i < N_CRASH; i++)
        sigaction(crash_signals[i], &sa, &crash.old[i]);
}

static void remove_crash_handlers(void)
{
    for (size_t i = 0; i < N_CRASH; i++)
        sigaction(crash_signals[i], &crash.old[i], NULL);
}

/* Sends stderr to an unlinked temporary file until release_stderr. */
static void capture_stderr(void)
{
    fflush(stderr);
    capture = tmpfile();
    crash.stderr_fd = capture ? dup(STDERR_FILENO) : -1;
    if (crash.stderr_fd < 0) {
        if (capture)
            fclose(capture);
        capture = NULL;
        return;
    }
    crash.capture_fd = fileno(capture);
    dup2(crash.capture_fd, STDERR_FILENO);
}

int term_open(struct theme *th, char *why, size_t why_len)
{
    const char *term = getenv("TERM"), *colour = getenv("NO_COLOR");
    const char *cup;
    int is_utf8;

    if (!term || !*term) {
        msg_set(why, why_len, "TERM is not set");
        return -ENOTTY;
    }
    if (strcmp(term, "dumb") == 0) {
        msg_set(why, why_len, "TERM=dumb cannot address the cursor");
        return -ENOTTY;
    }
    setlocale(LC_CTYPE, "");
    is_utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    /* The modes to put back after a crash: before newterm, which already
     * changes them. */
    crash.tty_fd = STDOUT_FILENO;
    crash.has_saved = tcgetattr(STDOUT_FILENO, &crash.saved) == 0;
    screen = newterm(NULL, stdout, stdin);
    if (!screen) {
        char shown[64];

        msg_set(why, why_len, "TERM=%s is not in the terminfo database",
                msg_show(term, shown, sizeof(shown)));
        return -ENOTTY;
    }
    cup = tigetstr("cup");
    if (!cup || cup == (const char *)-1) {
        endwin();
        delscreen(screen);
        screen = NULL;
        msg_set(why, why_len, "the terminal cannot address the cursor (no \"cup\")");
        return -ENOTTY;
    }
    crash.restore_len = 0;
    append_cap("sgr0");
    append_cap("cnorm");
    append_cap("rmcup");
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    ui__theme_init(th, is_utf8, !(colour && *colour));
    crash.stderr_fd = -1;
    capture_stderr();
    install_crash_handlers();
    crash.is_open = 1;
    return 0;
}

void term_close(void)
{
    if (!screen)
        return;
    crash.is_open = 0;
    remove_crash_handlers();
    curs_set(1);
    endwin();
    delscreen(screen);
    screen = NULL;
    fflush(stderr);
    release_stderr();
    if (capture)
        fclose(capture);
    capture = NULL;
}

const char *ui_curses_version(void)
{
    const char *v = curses_version();

    /* "ncurses 6.4.20221231": the number alone, as the others give it. */
    return strncmp(v, "ncurses ", 8) == 0 ? v + 8 : v;
}
