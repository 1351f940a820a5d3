"""A small HTTP/1.1 server that answers the first request on each
connection (200, "ok\\n", kept alive) and closes the connection cleanly (a
FIN, once the whole request is read) on the second, without a byte of
reply: the close crosses the client's second request, as an idle timeout
does on a busy server. With CERT and KEY it speaks TLS and offers only
http/1.1 by ALPN, so a client that offers h2 first gets HTTP/1.1.

Usage: python3 h1_close_server.py [CERT KEY]. Listens on 127.0.0.1, an
ephemeral port, prints its URL on stdout, then appends "METHOD" to the
file H1_CLOSE_LOG names (when set) for each request it reads whole. Runs
until killed; one thread per connection.
"""
import os
import socket
import ssl
import sys
import threading

REPLY = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Type: text/plain\r\n\r\nok\n"


def read_request(conn, buf):
    """One whole request from conn (buf: bytes read past the last one):
    (method, the bytes past it), or None at the end of the connection."""
    while b"\r\n\r\n" not in buf:
        part = conn.recv(65536)
        if not part:
            return None
        buf += part
    head, buf = buf.split(b"\r\n\r\n", 1)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(buf) < length:
        part = conn.recv(65536)
        if not part:
            return None
        buf += part
    return head.split(b" ", 1)[0].decode("ascii", "replace"), buf[length:]


def serve(conn, log, lock):
    buf = b""
    try:
        for n in (1, 2):
            got = read_request(conn, buf)
            if got is None:
                return
            method, buf = got
            if log:
                with lock, open(log, "a") as f:
                    f.write(method + "\n")
            if n == 1:
                conn.sendall(REPLY)
    except (OSError, ValueError):
        pass
    finally:
        conn.close()


def main():
    if len(sys.argv) not in (1, 3):
        sys.exit("h1_close_server: usage: h1_close_server.py [CERT KEY]")
    log = os.environ.get("H1_CLOSE_LOG")
    lock = threading.Lock()
    ctx = None
    if len(sys.argv) == 3:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[1], sys.argv[2])
        ctx.set_alpn_protocols(["http/1.1"])
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(128)
    scheme = "https" if ctx else "http"
    print("%s://127.0.0.1:%d/" % (scheme, srv.getsockname()[1]), flush=True)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=handshake_and_serve, args=(conn, ctx, log, lock),
                         daemon=True).start()


def handshake_and_serve(conn, ctx, log, lock):
    if ctx:
        try:
            conn = ctx.wrap_socket(conn, server_side=True)
        except (OSError, ssl.SSLError):
            conn.close()
            return
    serve(conn, log, lock)


main()
