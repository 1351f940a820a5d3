#!/usr/bin/env python3
"""An HTTP server on 127.0.0.1 that plays a login session per virtual user,
for the end-to-end test of [target] cookies.

Usage: cookie_server.py PORT_FILE LOG_FILE

GET /step?user=N: without a Cookie header it answers with a new session
cookie "sid=uN-1; Path=/" (logged "new N"); with one, the Cookie must be
exactly the last sid given to user N (logged "ok N", and the sid rotates
to uN-(k+1)), else "bad N" with what came, and 400. Every reply also sets
cookies a client must not send back to /step: a Secure one (plain http),
one for Path=/other, one for another domain and one that expires at once.
GET /flood: 60 cookies in one reply.

For scenario scripts (test_scenario_jar.sh): POST /login?user=N sets
"login=uN; Path=/" on a 303 to /home?user=N (logged "login N METHOD");
GET /home?user=N answers 200 "home N" when the Cookie is exactly
login=uN (logged "home N ok METHOD"), 401 without one ("home N none") and
400 with another ("home N bad ..."). GET /hop?to=URL is a 302 to URL;
GET /who logs "who HOST auth=yes|no cookie=VALUE|-" of its request. Keep-alive,
one thread per connection; it runs until killed.
"""
import http.server
import os
import sys
import threading
from urllib.parse import parse_qs, urlsplit

port_file, log_file = sys.argv[1:3]
lock = threading.Lock()
sessions = {}


def log(line):
    with open(log_file, "a", encoding="utf-8") as f:
        f.write(line + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def reply(self, status, cookies):
        self.send_response(status)
        for c in cookies:
            self.send_header("Set-Cookie", c)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def answer(self, status, headers, body=b""):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        url = urlsplit(self.path)
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        user = parse_qs(url.query).get("user", ["?"])[0]
        if url.path != "/login":
            log("%s %s %s" % (url.path.strip("/"), user, "POST"))
            self.answer(405, [])
            return
        log("login %s POST" % user)
        self.answer(303, [("Set-Cookie", "login=u%s; Path=/" % user),
                          ("Location", "/home?user=%s" % user)])

    def home(self, url):
        user = parse_qs(url.query).get("user", ["?"])[0]
        got = self.headers.get_all("Cookie") or []
        if not got:
            log("home %s none" % user)
            self.answer(401, [])
        elif got == ["login=u%s" % user]:
            log("home %s ok GET" % user)
            self.answer(200, [], ("home %s" % user).encode())
        else:
            log("home %s bad %r" % (user, got))
            self.answer(400, [])

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/home":
            self.home(url)
            return
        if url.path == "/hop":
            self.answer(302, [("Location", parse_qs(url.query)["to"][0])])
            return
        if url.path == "/who":
            log("who %s auth=%s cookie=%s" % (self.headers.get("Host", "-").split(":")[0],
                                              "yes" if self.headers.get("Authorization") else "no",
                                              self.headers.get("Cookie", "-")))
            self.answer(200, [])
            return
        if url.path == "/flood":
            self.reply(200, ["f%d=%d; Path=/" % (i, i) for i in range(60)])
            return
        user = parse_qs(url.query).get("user", ["?"])[0]
        got = self.headers.get_all("Cookie") or []
        decoys = ["sec=1; Secure; Path=/", "elsewhere=1; Path=/other",
                  "foreign=1; Domain=other.test; Path=/", "gone=1; Max-Age=0; Path=/"]
        with lock:
            k = sessions.get(user, 0)
            if not got:
                k = 0
                line, status = "new %s" % user, 200
            elif got == ["sid=u%s-%d" % (user, k)]:
                line, status = "ok %s" % user, 200
            else:
                line, status = "bad %s %r (expected sid=u%s-%d)" % (user, got, user, k), 400
            sessions[user] = k + 1
        log(line)
        self.reply(status, ["sid=u%s-%d; Path=/; HttpOnly" % (user, k + 1)] + decoys)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(port_file + ".tmp", "w", encoding="utf-8") as f:
    f.write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
