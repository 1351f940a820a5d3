"""How long headless Chromium takes to render a page, measured inside it.

Usage: python3 render_time.py PROFILE_DIR RUNS FILE...
Starts `chromium --headless` once (its own profile in PROFILE_DIR, no
sandbox, a debugging port of its choosing on 127.0.0.1) and, through the
DevTools protocol, loads each FILE RUNS times. For each load it prints
"FILE RUN load_ms frame_ms": the page's load event (navigation start to the
end of its load handlers: parsed and styled) and the second animation
frame after it (laid out and painted), both from the page's own clock
(performance.now, ms since its navigation started), so the browser's
start-up is no part of them. Every wait is bounded (60 s). Python's
standard library only: the WebSocket client below is the few lines the
protocol needs (text frames, client masking).
"""
import base64
import json
import os
import select
import socket
import subprocess
import sys
import time
import urllib.request

DEADLINE_S = 60


class Cdp:
    def __init__(self, ws_url):
        rest = ws_url[len("ws://"):]
        hostport, path = rest.split("/", 1)
        host, port = hostport.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=DEADLINE_S)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\n"
                           "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n" % (path, hostport, key)).encode())
        reply = b""
        while b"\r\n\r\n" not in reply:
            chunk = self.sock.recv(4096)
            if not chunk:
                sys.exit("render_time: the DevTools socket closed during the handshake")
            reply += chunk
        if b" 101 " not in reply.split(b"\r\n", 1)[0]:
            sys.exit("render_time: no WebSocket upgrade: %r" % reply[:80])
        self.buf = reply.split(b"\r\n\r\n", 1)[1]
        self.next_id = 0
        self.events = []

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                sys.exit("render_time: the DevTools socket closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _recv(self):
        data = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = int.from_bytes(self._read(2), "big")
            elif n == 127:
                n = int.from_bytes(self._read(8), "big")
            data += self._read(n)
            if b0 & 0x80:
                return json.loads(data)

    def send(self, method, **params):
        self.next_id += 1
        data = json.dumps({"id": self.next_id, "method": method, "params": params}).encode()
        n = len(data)
        head = bytes([0x81])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + n.to_bytes(2, "big")
        else:
            head += bytes([0x80 | 127]) + n.to_bytes(8, "big")
        mask = os.urandom(4)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
        while True:
            msg = self._recv()
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    sys.exit("render_time: %s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            self.events.append(msg)

    def wait_event(self, method):
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    del self.events[i]
                    return e
            self.events.append(self._recv())


def start_chromium(profile):
    p = subprocess.Popen(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                          "--no-first-run", "--user-data-dir=" + profile,
                          "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
                          "--window-size=1100,900", "about:blank"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    end = time.time() + DEADLINE_S
    line = b""
    while time.time() < end:
        r, _, _ = select.select([p.stderr], [], [], 1.0)
        if not r:
            continue
        c = os.read(p.stderr.fileno(), 1)
        if not c:
            break
        if c != b"\n":
            line += c
            continue
        if line.startswith(b"DevTools listening on ws://"):
            return p, line.split(b"ws://", 1)[1].split(b"/", 1)[0].decode()
        line = b""
    p.kill()
    p.wait()
    sys.exit("render_time: chromium gave no DevTools address within %d s" % DEADLINE_S)


FRAME = ("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => "
         "r([performance.getEntriesByType('navigation')[0].loadEventEnd, performance.now()]))))")


def main():
    profile, runs, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    chrome, port = start_chromium(profile)
    try:
        with urllib.request.urlopen("http://%s/json/list" % port, timeout=DEADLINE_S) as f:
            pages = [t for t in json.load(f) if t["type"] == "page"]
        cdp = Cdp(pages[0]["webSocketDebuggerUrl"])
        cdp.send("Page.enable")
        cdp.send("Page.setBypassCSP", enabled=True)  # the measuring script is ours, not the page's
        for path in files:
            for run in range(1, runs + 1):
                cdp.send("Page.navigate", url="file://" + os.path.abspath(path))
                cdp.wait_event("Page.loadEventFired")
                r = cdp.send("Runtime.evaluate", expression=FRAME, awaitPromise=True,
                             returnByValue=True)
                load_ms, frame_ms = r["result"]["value"]
                print("%s %d %.0f %.0f" % (os.path.basename(path), run, load_ms, frame_ms), flush=True)
    finally:
        chrome.kill()
        chrome.wait()


main()
