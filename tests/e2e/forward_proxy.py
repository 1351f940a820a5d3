#!/usr/bin/env python3
"""A forward HTTP proxy for the end-to-end tests, on 127.0.0.1.

Usage: forward_proxy.py PORT_FILE LOG_FILE USER:PASSWORD

It listens on a free port of 127.0.0.1, writes the port to PORT_FILE, and
forwards each request whose target is an absolute http:// URL, as a client
configured with a proxy sends it, to that URL's host and port, answering
with the origin's reply. A request without the Proxy-Authorization that
USER:PASSWORD gives is answered 407, and a request in origin form (a client
that ignored the proxy, or came to it directly) 400. Each request is one
line of LOG_FILE: "forwarded URL", "refused 407 URL" or "refused 400 PATH",
so a test counts what really went through. Keep-alive on both sides, one
thread per client connection; it runs until killed.
"""
import base64
import http.client
import http.server
import os
import sys
import threading
import urllib.parse

HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
}

port_file, log_file, credentials = sys.argv[1], sys.argv[2], sys.argv[3]
expected_auth = "Basic " + base64.b64encode(credentials.encode()).decode()
log_lock = threading.Lock()


def log(line):
    with log_lock, open(log_file, "a", encoding="utf-8") as f:
        f.write(line + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def answer(self, status, text):
        body = (text + "\n").encode()
        self.send_response(status)
        if status == 407:
            self.send_header("Proxy-Authenticate", 'Basic realm="test"')
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def forward(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if length else None
        if not self.path.startswith("http://"):
            log("refused 400 " + self.path)
            self.answer(400, "not a proxy request")
            return
        if self.headers.get("Proxy-Authorization") != expected_auth:
            log("refused 407 " + self.path)
            self.answer(407, "proxy authentication required")
            return
        url = urllib.parse.urlsplit(self.path)
        path = url.path or "/"
        if url.query:
            path += "?" + url.query
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        origin = http.client.HTTPConnection(url.hostname, url.port or 80, timeout=10)
        try:
            origin.request(self.command, path, body=body, headers=headers)
            reply = origin.getresponse()
            data = reply.read()
        finally:
            origin.close()
        log("forwarded " + self.path)
        self.send_response(reply.status, reply.reason)
        for k, v in reply.getheaders():
            if k.lower() not in HOP_BY_HOP and k.lower() != "content-length":
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = forward
    do_POST = forward
    do_PUT = forward
    do_DELETE = forward
    do_HEAD = forward


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(port_file + ".part", "w", encoding="utf-8") as f:
    f.write("%d\n" % server.server_address[1])
# Renamed whole, so that a reader never sees half a port.
os.rename(port_file + ".part", port_file)
server.serve_forever()
