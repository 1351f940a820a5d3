#!/usr/bin/env python3
"""Floods an HTTP endpoint on 127.0.0.1 for a bounded time, as a hostile
client would: IDLE connections that never send a byte, and DRIBBLE ones that
send a request's head one byte every half second and never finish it. A
connection the server closes is opened again (at most 200 a second), so
the flood stays as large as it can be for the whole time.

Prints "ready" once every connection has been opened once, and at the end
one line: "opened N closed_by_server N dribbled_bytes N". Exits 0 after
SECONDS from "ready", by itself.

Usage: metrics_flood.py PORT IDLE DRIBBLE SECONDS
"""
import errno
import selectors
import socket
import sys
import time

DRIBBLE_EVERY_S = 0.5
REOPEN_PER_S = 200
HEAD = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 65536


class Flood:
    def __init__(self, port):
        self.port = port
        self.sel = selectors.DefaultSelector()
        self.opened = 0
        self.closed = 0
        self.dribbled = 0

    def open(self, kind):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        rc = s.connect_ex(("127.0.0.1", self.port))
        if rc not in (0, errno.EINPROGRESS):
            s.close()
            return False
        # kind, bytes of HEAD sent
        self.sel.register(s, selectors.EVENT_READ, [kind, 0])
        self.opened += 1
        if kind == "dribble":
            self.dribble_one(s, self.sel.get_key(s).data)
        return True

    def dribble_one(self, s, state):
        try:
            n = s.send(HEAD[state[1]:state[1] + 1])
        except OSError:
            return  # not connected yet, or closed: the read side sees it
        state[1] += n
        self.dribbled += n

    def dribble(self):
        for key in list(self.sel.get_map().values()):
            state = key.data
            if state[0] == "dribble" and state[1] < len(HEAD):
                self.dribble_one(key.fileobj, state)

    def reap(self, timeout_s):
        """Closes what the server closed; returns the kinds to open again."""
        gone = []
        for key, _ in self.sel.select(timeout_s):
            try:
                data = key.fileobj.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if data:
                continue  # an answer (a dribbler never finishes: none comes)
            self.sel.unregister(key.fileobj)
            key.fileobj.close()
            self.closed += 1
            gone.append(key.data[0])
        return gone


def main():
    port, n_idle, n_dribble, seconds = (int(a) for a in sys.argv[1:5])
    f = Flood(port)
    want = ["dribble"] * n_dribble + ["idle"] * n_idle
    give_up = time.monotonic() + seconds
    while want and time.monotonic() < give_up:
        kind = want.pop()
        if not f.open(kind):
            want.append(kind)
            want += f.reap(0.01)
    print("ready", flush=True)
    end = time.monotonic() + seconds
    next_dribble = 0.0
    reopen = []
    budget, last = 0.0, time.monotonic()
    while time.monotonic() < end:
        now = time.monotonic()
        if now >= next_dribble:
            f.dribble()
            next_dribble = now + DRIBBLE_EVERY_S
        reopen += f.reap(0.05)
        now = time.monotonic()
        budget = min(budget + (now - last) * REOPEN_PER_S, REOPEN_PER_S)
        last = now
        while reopen and budget >= 1:
            budget -= 1
            if f.open(reopen[-1]):
                reopen.pop()
    print("opened %d closed_by_server %d dribbled_bytes %d" % (f.opened, f.closed, f.dribbled))


if __name__ == "__main__":
    main()
