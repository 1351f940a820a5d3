#!/usr/bin/env python3
"""A hostile HTTP server for brink's tests: every connection gets the same
misbehaviour, named on the command line. Listens on 127.0.0.1 only, on the
port given (0: any free port), writes the port it got to the file given, and
serves until killed.

Usage: server.py CASE PORT_FILE
Cases are the keys of CASES below; each reads the request head first (up to
the blank line), so a client always gets to send its request.
"""
import os
import socket
import socketserver
import struct
import sys

OK_BODY = b"hello\n"


def ok_reply(extra=b""):
    return (b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n" % len(OK_BODY) + extra +
            b"\r\n" + OK_BODY)


def forever(sock, chunk):
    """Sends chunk until the client goes away."""
    try:
        while True:
            sock.sendall(chunk)
    except OSError:
        pass


def reset(sock):
    """Closes with RST instead of FIN."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def stall(sock):
    """Holds the connection open and silent until the client closes it."""
    try:
        while sock.recv(4096):
            pass
    except OSError:
        pass


BIG_MIB = 64

CASES = {
    # Broken framing: the transports must agree that these are malformed.
    "bad_chunk": lambda s: s.sendall(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"),
    "huge_chunk": lambda s: s.sendall(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"fffffffffffffffffffff\r\nhello\r\n0\r\n\r\n"),
    "many_headers": lambda s: s.sendall(
        b"HTTP/1.1 200 OK\r\n" +
        b"".join(b"X-Big-%d: %s\r\n" % (i, b"v" * 8192) for i in range(100)) +
        b"Content-Length: 0\r\n\r\n"),
    "endless_continue": lambda s: forever(s, b"HTTP/1.1 100 Continue\r\n\r\n" * 64),
    "dup_length": lambda s: s.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\nContent-Length: 12\r\n\r\n" + OK_BODY),
    "length_and_chunked": lambda s: s.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"6\r\nhello\n\r\n0\r\n\r\n"),
    "endless_header": lambda s: (s.sendall(b"HTTP/1.1 200 OK\r\nX-Long: "),
                                 forever(s, b"a" * 65536)),
    "ctl_header": lambda s: s.sendall(ok_reply(b"X-Evil: \x07b\r\n")),
    # A valid reply, then the connection closes without saying so first.
    "close_after_reply": lambda s: s.sendall(ok_reply()),
    # Failures both transports already class alike.
    "garbage": lambda s: s.sendall(b"SSH-2.0-OpenSSH_9.2\r\n"),
    "empty": lambda s: None,
    "partial_body": lambda s: s.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789"),
    "reset": reset,
    "stall": stall,
    "escapes": lambda s: s.sendall(
        b"HTTP/1.1 500 \x1b]0;pwned\x07\x1b[2J\x9b31m\xe2\x80\xae\r\n"
        b"Content-Length: 0\r\nConnection: close\r\n\r\n"),
    "big_reply": lambda s: (s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
                                      b"Connection: close\r\n\r\n" % (BIG_MIB << 20)),
                            forever_n(s, BIG_MIB)),
}


def forever_n(sock, mib):
    block = b"x" * (1 << 20)
    try:
        for _ in range(mib):
            sock.sendall(block)
    except OSError:
        pass


def read_head(sock):
    """Reads up to the end of a request head; False when the client left."""
    data = b""
    while b"\r\n\r\n" not in data:
        try:
            chunk = sock.recv(4096)
        except OSError:
            return False
        if not chunk:
            return False
        data += chunk
        if len(data) > 65536:
            return False
    return True


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        if not read_head(sock):
            return
        CASES[self.server.case](sock)
        if self.server.case not in ("reset", "stall"):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in CASES:
        sys.exit("usage: server.py CASE PORT_FILE (CASE: %s)" % ", ".join(sorted(CASES)))
    server = Server(("127.0.0.1", 0), Handler)
    server.case = sys.argv[1]
    with open(sys.argv[2] + ".tmp", "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(sys.argv[2] + ".tmp", sys.argv[2])
    server.serve_forever()


if __name__ == "__main__":
    main()
