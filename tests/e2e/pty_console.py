#!/usr/bin/env python3
"""The console on a raw pty, for what tmux cannot show (issue 5; research
reliability.md rows 11 and 13, section 4.3): the terminal modes after a `q`
exit, a hung-up terminal (master closed) while brink runs, and the raw bytes
brink writes while the target sends hostile headers.

Usage: pty_console.py BRINK URL CHECK...
  restore          termios of the pty equal before and after a `q` exit, the
                   report printed, the alternate screen left and the cursor
                   shown again (rmcup, cnorm of TERM=xterm-256color)
  hangup-ignored   SIGHUP ignored (SIG_IGN inherited), the pty is brink's
                   controlling terminal; the master is closed while it runs
  hangup-noctty    the pty is not brink's controlling terminal, so no SIGHUP
                   comes at all: only EIO/POLLHUP on the tty tells
  raw-hostile      URL's target is set (by the caller) to send hostile
                   headers: the raw stream holds none of the target's escapes
  crash            SIGSEGV sent to brink while the console runs: termios
                   restored and the alternate screen left by the crash
                   handler, which then hands the signal on (brink dies of
                   it; under a sanitizer, the sanitizer reports it)
Each hang-up check asserts exit within 2 s (measured generously: 2.5 s) and
less than 0.5 s of CPU time used by brink meanwhile (no spinning on a dead
terminal). Prints one "ok   NAME" or "FAIL NAME" line per assertion; exit
status 1 when any failed. Standard library only.
"""
import os
import select
import signal
import sys
import termios
import time

COLS, ROWS = 80, 24
EXIT_BOUND_S = 2.5   # the 2 s, with room for the polling
CPU_BOUND_S = 0.5    # brink's CPU time while it winds down
failures = 0


def ok(name):
    print("ok   " + name, flush=True)


def not_ok(name, why=""):
    global failures
    failures += 1
    print("FAIL " + name, flush=True)
    if why:
        print("     " + why, flush=True)


def check(name, cond, why=""):
    if cond:
        ok(name)
    else:
        not_ok(name, why)


class Console:
    """brink run on a fresh pty; out holds every byte it wrote."""

    def __init__(self, brink, url, ctty=True, ignore_hup=False, concurrency=2):
        self.master, slave = os.openpty()
        termios.tcsetwinsize(slave, (ROWS, COLS))
        self.slave_name = os.ttyname(slave)
        # Our own view of the slave, to read its modes (closed for hang-ups).
        self.slave = slave
        self.before = termios.tcgetattr(slave)
        self.out = bytearray()
        self.status = None
        self.rusage = None
        argv = [brink, "run", "--url", url, "--concurrency", str(concurrency),
                "--duration", "30s"]
        env = dict(os.environ, TERM="xterm-256color")
        env.pop("NO_COLOR", None)
        # A sanitizer report (ASan/UBSan builds) exits 86: 1 is brink's own
        # status when the report cannot be written to a dead terminal.
        for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
            env[k] = (env[k] + ":" if env.get(k) else "") + "exitcode=86"
        pid = os.fork()
        if pid == 0:
            try:
                os.close(self.master)
                os.setsid()
                if ctty:
                    fd = os.open(self.slave_name, os.O_RDWR)
                else:
                    fd = os.open(self.slave_name, os.O_RDWR | os.O_NOCTTY)
                for i in (0, 1, 2):
                    os.dup2(fd, i)
                if fd > 2:
                    os.close(fd)
                os.close(slave)
                if ignore_hup:
                    signal.signal(signal.SIGHUP, signal.SIG_IGN)
                os.execve(brink, argv, env)
            finally:
                os._exit(127)
        self.pid = pid

    def pump(self, seconds):
        """Reads the master for up to seconds: the bytes read, 0 when none
        came, -1 once it is at EOF/EIO."""
        r, _, _ = select.select([self.master], [], [], seconds)
        if not r:
            return 0
        try:
            data = os.read(self.master, 65536)
        except OSError:
            return -1
        if not data:
            return -1
        self.out += data
        return len(data)

    def reap(self):
        """True once the child exited (status and rusage then set)."""
        if self.status is not None:
            return True
        pid, status, rusage = os.wait4(self.pid, os.WNOHANG)
        if pid == 0:
            return False
        self.status, self.rusage = status, rusage
        return True

    def wait_output(self, needle, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if needle in self.out:
                return True
            if self.pump(0.05) < 0 or self.reap():
                return needle in self.out
        return needle in self.out

    def wait_exit(self, seconds, drain=True):
        """Seconds until the child exited, or None after seconds."""
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            if self.reap():
                return time.monotonic() - start
            if drain and self.master is not None:
                if self.pump(0.02) < 0:
                    time.sleep(0.02)
            else:
                time.sleep(0.02)
        return None

    def cpu_seconds(self):
        """utime + stime of the running child, from /proc/PID/stat."""
        with open("/proc/%d/stat" % self.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def kill(self):
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
            self.status = -1
        for fd in (self.master, self.slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.master = self.slave = None


def exited_zero(c):
    return c.status is not None and os.WIFEXITED(c.status) and os.WEXITSTATUS(c.status) == 0


def describe(c):
    if c.status is None:
        return "still running"
    if os.WIFSIGNALED(c.status):
        return "killed by signal %d" % os.WTERMSIG(c.status)
    return "exit status %d" % os.WEXITSTATUS(c.status)


def tail(c, n=300):
    return repr(bytes(c.out[-n:]))


def check_restore(brink, url):
    c = Console(brink, url)
    try:
        up = c.wait_output(b"req/s", 10)
        check("pty: the console draws (req/s)", up, tail(c))
        os.write(c.master, b"q")
        took = c.wait_exit(15)
        check("pty: q exits with status 0", took is not None and exited_zero(c), describe(c))
        # What brink wrote after its last draw is still in the pty.
        while c.pump(0.05) > 0:
            pass
        after = termios.tcgetattr(c.slave)
        check("pty: termios after a q exit equal those before", after == c.before,
              "before %r, after %r" % (c.before, after))
        last_smcup = c.out.rfind(b"\x1b[?1049h")
        rmcup = c.out.find(b"\x1b[?1049l", last_smcup) if last_smcup >= 0 else -1
        check("pty: the alternate screen is left after it was entered (rmcup)", rmcup > 0,
              tail(c))
        check("pty: the cursor is shown again (cnorm)",
              c.out.rfind(b"\x1b[?25h") > c.out.rfind(b"\x1b[?25l") >= 0, tail(c))
        check("pty: the report follows on the normal screen",
              rmcup > 0 and c.out.find(b"duration ", rmcup) > 0, tail(c))
    finally:
        c.kill()


def check_hangup(brink, url, name, ctty, ignore_hup):
    c = Console(brink, url, ctty=ctty, ignore_hup=ignore_hup)
    try:
        up = c.wait_output(b"req/s", 10)
        check("pty %s: the console draws (req/s)" % name, up, tail(c))
        if not up:
            return
        cpu0 = c.cpu_seconds()
        # Hang up: nobody holds the master or the slave any more.
        os.close(c.slave)
        c.slave = None
        os.close(c.master)
        c.master = None
        took = c.wait_exit(10, drain=False)
        check("pty %s: brink exits within 2 s of the hang-up" % name,
              took is not None and took <= EXIT_BOUND_S,
              "took %s s" % ("more than 10" if took is None else "%.2f" % took))
        if took is not None:
            print("     (exited in %.2f s, %s)" % (took, describe(c)), flush=True)
            cpu = c.rusage.ru_utime + c.rusage.ru_stime - cpu0
            check("pty %s: no spinning meanwhile (CPU %.3f s < %.1f s)" % (name, cpu, CPU_BOUND_S),
                  cpu < CPU_BOUND_S)
            check("pty %s: exit status 0 or 1 (no crash, no sanitizer report)" % name,
                  os.WIFEXITED(c.status) and os.WEXITSTATUS(c.status) in (0, 1), describe(c))
    finally:
        c.kill()


def check_raw_hostile(brink, url):
    c = Console(brink, url, concurrency=4)
    try:
        # Run until the errors the hostile replies cause are on screen.
        seen = c.wait_output(b"malformed", 10)
        check("pty hostile: the hostile replies reach brink (malformed on screen)", seen, tail(c))
        os.write(c.master, b"q")
        c.wait_exit(15)
        text = bytes(c.out).decode("utf-8", "replace")
        for what, needle in (("the title text PWNED", "PWNED"),
                             ("an OSC sequence (title, hyperlink)", "\x1b]"),
                             ("a cursor position query (CSI 6n)", "\x1b[6n"),
                             ("the 8-bit CSI (U+009B)", "\u009b"),
                             ("the bidi override (U+202E)", "\u202e"),
                             ("the reversed text", "desrever")):
            check("pty hostile: the raw stream holds no " + what, needle not in text,
                  "found at %d: %r" % (text.find(needle), text[max(text.find(needle) - 40, 0):
                                                                 text.find(needle) + 40]))
    finally:
        c.kill()


def check_crash(brink, url):
    c = Console(brink, url)
    try:
        up = c.wait_output(b"req/s", 10)
        check("pty crash: the console draws (req/s)", up, tail(c))
        if not up:
            return
        os.kill(c.pid, signal.SIGSEGV)
        took = c.wait_exit(10)
        while c.pump(0.05) > 0:
            pass
        check("pty crash: brink ends after SIGSEGV", took is not None, describe(c))
        if took is None:
            return
        by_signal = os.WIFSIGNALED(c.status) and os.WTERMSIG(c.status) == signal.SIGSEGV
        # A sanitizer reports, then exits 86 or (abort_on_error=1, as make
        # test sets it) aborts.
        by_sanitizer = b"Sanitizer" in c.out and (
            (os.WIFEXITED(c.status) and os.WEXITSTATUS(c.status) == 86) or
            (os.WIFSIGNALED(c.status) and os.WTERMSIG(c.status) == signal.SIGABRT))
        check("pty crash: the signal reached the previous handler (%s)" % describe(c),
              by_signal or by_sanitizer, describe(c))
        if by_sanitizer:
            check("pty crash: the sanitizer's report reaches the terminal",
                  b"Sanitizer" in c.out, tail(c))
        after = termios.tcgetattr(c.slave)
        check("pty crash: termios after the crash equal those before", after == c.before,
              "before %r, after %r" % (c.before, after))
        last_smcup = c.out.rfind(b"\x1b[?1049h")
        check("pty crash: the alternate screen is left (rmcup)",
              last_smcup >= 0 and c.out.find(b"\x1b[?1049l", last_smcup) > 0, tail(c))
    finally:
        c.kill()


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    brink, url = sys.argv[1], sys.argv[2]
    for what in sys.argv[3:]:
        if what == "restore":
            check_restore(brink, url)
        elif what == "hangup-ignored":
            check_hangup(brink, url, "hangup (SIGHUP ignored)", ctty=True, ignore_hup=True)
        elif what == "hangup-noctty":
            check_hangup(brink, url, "hangup (no controlling tty)", ctty=False, ignore_hup=False)
        elif what == "raw-hostile":
            check_raw_hostile(brink, url)
        elif what == "crash":
            check_crash(brink, url)
        else:
            print("pty_console.py: unknown check " + what, file=sys.stderr)
            return 2
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
