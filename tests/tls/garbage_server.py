#!/usr/bin/env python3
"""A server that breaks the TLS handshake on purpose, for the tests of a
client's TLS errors (tests/tls/lib.sh starts it).

Usage: garbage_server.py MODE PORTFILE

Listens on a free port of 127.0.0.1, writes the port to PORTFILE, and for
each connection reads the ClientHello (up to 16 KiB, at most 2 s), then by
MODE:
  hello      a TLS 1.2 ServerHello record (ECDHE-RSA-AES128-GCM-SHA256, with
             the renegotiation_info extension OpenSSL 3 clients ask for), then
             bytes that are not TLS, then closes
  junk       bytes that are not TLS at all, then closes
  truncated  a handshake record header promising 256 bytes, 10 of them, then
             closes
  silent     nothing: the handshake stalls until the client closes (at most
             30 s); connections that come meanwhile wait, unanswered too
Runs until killed. Serves one connection at a time.
"""
import os
import socket
import sys

JUNK = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\nthis is not TLS\n"


def server_hello():
    body = (
        b"\x03\x03"  # TLS 1.2
        + os.urandom(32)  # random
        + b"\x00"  # no session id
        + b"\xc0\x2f"  # ECDHE-RSA-AES128-GCM-SHA256
        + b"\x00"  # no compression
        + b"\x00\x05\xff\x01\x00\x01\x00"  # extensions: renegotiation_info, empty
    )
    hs = b"\x02" + len(body).to_bytes(3, "big") + body
    return b"\x16\x03\x03" + len(hs).to_bytes(2, "big") + hs


def reply(mode):
    if mode == "hello":
        return server_hello() + JUNK
    if mode == "junk":
        return JUNK
    return b"\x16\x03\x03\x01\x00" + b"\x02\x00\x00\xfc\x03\x03" + os.urandom(4)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("hello", "junk", "truncated", "silent"):
        sys.exit("usage: garbage_server.py hello|junk|truncated|silent PORTFILE")
    mode, portfile = sys.argv[1], sys.argv[2]
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(128)
    # Written whole, then renamed: a reader never sees half a number.
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    os.rename(portfile + ".tmp", portfile)
    while True:
        conn, _ = srv.accept()
        conn.settimeout(2)
        try:
            conn.recv(16384)
            if mode == "silent":
                conn.settimeout(30)
                while conn.recv(16384):
                    pass
            else:
                conn.sendall(reply(mode))
        except OSError:
            pass
        conn.close()


if __name__ == "__main__":
    main()
