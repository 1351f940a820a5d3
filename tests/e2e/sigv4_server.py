#!/usr/bin/env python3
"""An HTTP server on 127.0.0.1 that checks each request's AWS Signature V4
with botocore, for the end-to-end tests.

Usage: sigv4_server.py PORT_FILE LOG_FILE ACCESS_KEY_ID SECRET_ACCESS_KEY

It listens on a free port, writes it to PORT_FILE, and signs each request
it gets again with botocore (S3SigV4Auth for service s3, SigV4Auth for the
others), at the time the request's X-Amz-Date names, over the headers its
Authorization lists and the body it carried. A request whose Authorization
is the same, within 15 minutes of now, is answered 200 and logged
"verified METHOD PATH"; any other 403 and "refused WHY". A verified
request for /moved/PATH is answered 307 to /PATH instead, so the next hop
must be signed again. Keep-alive, one thread per connection; it runs until
killed.
"""
import datetime
import hashlib
import http.server
import re
import sys
import threading
from urllib.parse import unquote

import botocore.auth as auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

port_file, log_file, key_id, secret = sys.argv[1:5]
lock = threading.Lock()
AUTH_RE = re.compile(r"^AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, "
                     r"SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$")


def log(line):
    with open(log_file, "a", encoding="utf-8") as f:
        f.write(line + "\n")


def resign(method, path, headers, body, region, service, signed, when):
    """botocore's Authorization for the request, as of when."""
    class Frozen(datetime.datetime):
        @classmethod
        def utcnow(cls):
            return when

    path, _, query = path.partition("?")
    req = AWSRequest(method=method, url="http://" + headers["host"] + path, data=body)
    # The query decoded, as a server reads it, for botocore to encode again
    # by AWS's rules ('+' is a plus, not a blank).
    req.params = [(unquote(k), unquote(v)) for k, _, v in
                  (pair.partition("=") for pair in query.split("&") if pair)]
    for name in signed:
        if name not in ("x-amz-date", "host") and not (service == "s3" and name == "x-amz-content-sha256"):
            req.headers[name] = headers[name]
    if "host" in signed:
        req.headers["host"] = headers["host"]
    creds = Credentials(key_id, secret, headers.get("x-amz-security-token"))
    signer = (auth.S3SigV4Auth if service == "s3" else auth.SigV4Auth)(creds, service, region)
    if hasattr(auth, "get_current_datetime"):
        auth.get_current_datetime = lambda *a, **k: when
    auth.datetime = type("m", (), {"datetime": Frozen})
    signer.add_auth(req)
    return req.headers["Authorization"]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def answer(self, status, line, location=None):
        log(line)
        body = (line + "\n").encode()
        self.send_response(status)
        if location:
            self.send_header("Location", location)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def check(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        headers = {}
        for name, value in self.headers.items():
            name = name.lower()
            headers[name] = headers[name] + "," + value if name in headers else value
        m = AUTH_RE.match(headers.get("authorization", ""))
        if not m:
            return "refused no AWS4-HMAC-SHA256 Authorization"
        kid, day, region, service, signed, _ = m.groups()
        signed = signed.split(";")
        if kid != key_id:
            return "refused unknown access key"
        try:
            when = datetime.datetime.strptime(headers["x-amz-date"], "%Y%m%dT%H%M%SZ")
        except (KeyError, ValueError):
            return "refused no X-Amz-Date"
        if abs((datetime.datetime.utcnow() - when).total_seconds()) > 900 or day != headers["x-amz-date"][:8]:
            return "refused X-Amz-Date too far from now"
        if headers.get("x-amz-content-sha256") != hashlib.sha256(body).hexdigest():
            return "refused X-Amz-Content-SHA256 is not the body's"
        if any(name not in headers for name in signed):
            return "refused a signed header is missing"
        with lock:
            want = resign(self.command, self.path, headers, body or None, region, service,
                          signed, when)
        if want != headers["authorization"]:
            return "refused signature mismatch: got %s want %s" % (headers["authorization"], want)
        return "verified %s %s" % (self.command, self.path)

    def handle_any(self):
        line = self.check()
        if line.startswith("verified") and self.path.startswith("/moved/"):
            self.answer(307, line, self.path[len("/moved"):])
            return
        self.answer(200 if line.startswith("verified") else 403, line)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = do_PATCH = handle_any


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(port_file + ".tmp", "w", encoding="utf-8") as f:
    f.write(str(server.server_address[1]))
import os  # noqa: E402  (only for the atomic rename)
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
