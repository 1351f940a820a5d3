"""A small HTTP/2 server without TLS (h2c, prior knowledge) that ends
every request stream the same way, chosen on the command line, so that
tests see how brink counts what HTTP/2 servers do when they refuse work:

  ok            :status 200 and the body "ok\\n"
  reset         RST_STREAM INTERNAL_ERROR
  refuse        RST_STREAM REFUSED_STREAM (never processed: may be retried)
  refuse_first  REFUSED_STREAM on the first connection, then as ok
  goaway        GOAWAY that names the stream as processed, then the
                connection closes without a reply
  goaway_all    GOAWAY with last stream 0 (the stream was never
                processed), then the connection closes
  goaway_first  goaway_all on the first connection, then as ok
  silent_once   no answer at all to the server's first request stream,
                then as ok (the client's deadline passes)
  malformed     a DATA frame on stream 0, which HTTP/2 forbids (a
                connection error of type PROTOCOL_ERROR), then the
                connection stays open as a broken server's would
  reset_flow    RST_STREAM FLOW_CONTROL_ERROR (the server says a side broke
                flow control)
  flow          :status 200, then DATA past the stream's flow-control
                window: the client's SETTINGS are never acknowledged, so
                its window stays HTTP/2's initial 65,535 bytes, and 1 MiB
                goes in one write, ignoring the client's WINDOW_UPDATEs
  informational an endless run of interim replies (:status 100 header
                blocks, 2 MiB of them, then silence) and never the reply
  fin_second    the first stream of each connection as ok; on the second
                the connection closes cleanly (a FIN, no GOAWAY) without a
                byte of its reply
  fin_second_head
                as fin_second, but the second stream gets its reply's
                HEADERS (:status 200, no END_STREAM) before the close
  fin_second_goaway
                as fin_second, but a GOAWAY naming the second stream as
                processed comes before the close

Usage: python3 h2_fault_server.py MODE [CERT KEY]. Listens on 127.0.0.1, an
ephemeral port (with CERT and KEY: in TLS, offering only h2 by ALPN),
prints its URL on stdout, then appends "MODE STREAM_ID" to the file
H2_FAULT_LOG names (when set) for each request stream it sees, and
"rst STREAM CODE" for each RST_STREAM the client sends. Runs until
killed; one thread per connection.
"""
import os
import socket
import ssl
import struct
import sys
import threading

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY = 0, 1, 3, 4, 6, 7
END_STREAM, ACK, END_HEADERS = 0x1, 0x1, 0x4
NO_ERROR, INTERNAL_ERROR, FLOW_CONTROL_ERROR, REFUSED_STREAM = 0, 2, 3, 7
STATUS_200 = b"\x88"  # HPACK: field 8 of the static table, ":status: 200"
STATUS_100 = b"\x08\x03100"  # HPACK: ":status: 100", a literal with field 8's name
INITIAL_WINDOW = 65535  # a stream's window until the client's SETTINGS are acknowledged
MODES = ("ok", "reset", "refuse", "refuse_first", "goaway", "goaway_all", "goaway_first",
         "silent_once", "malformed", "reset_flow", "flow", "informational", "fin_second",
         "fin_second_head", "fin_second_goaway")
silent = {"done": False, "lock": threading.Lock()}


def frame(kind, flags, stream, payload=b""):
    return (struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) +
            struct.pack(">I", stream) + payload)


def read_exact(conn, n):
    buf = b""
    while len(buf) < n:
        part = conn.recv(n - len(buf))
        if not part:
            raise EOFError
        buf += part
    return buf


def drain(conn):
    """Closes as a server does after a GOAWAY: no more writes, and what the
    client still sends is read until it closes (closing with bytes unread
    would reset the connection instead)."""
    conn.shutdown(socket.SHUT_WR)
    while conn.recv(65536):
        pass


def answer(conn, mode, stream):
    """Ends one request stream as mode says; False when the connection
    is done."""
    if mode == "silent_once":
        with silent["lock"]:
            first, silent["done"] = not silent["done"], True
        if first:
            return True
        mode = "ok"
    if mode == "ok":
        conn.sendall(frame(HEADERS, END_HEADERS, stream, STATUS_200) +
                     frame(DATA, END_STREAM, stream, b"ok\n"))
    elif mode == "reset":
        conn.sendall(frame(RST_STREAM, 0, stream, struct.pack(">I", INTERNAL_ERROR)))
    elif mode == "malformed":
        conn.sendall(frame(DATA, 0, 0, b"ok\n"))
    elif mode == "reset_flow":
        conn.sendall(frame(RST_STREAM, 0, stream, struct.pack(">I", FLOW_CONTROL_ERROR)))
    elif mode == "flow":
        chunk = frame(DATA, 0, stream, b"x" * 16384)
        conn.sendall(frame(HEADERS, END_HEADERS, stream, STATUS_200) +
                     chunk * (16 * INITIAL_WINDOW // 16384 + 1))
    elif mode == "informational":
        block = frame(HEADERS, END_HEADERS, stream, STATUS_100)
        conn.sendall(block * (2 * 1024 * 1024 // len(block)))
    elif mode == "refuse":
        conn.sendall(frame(RST_STREAM, 0, stream, struct.pack(">I", REFUSED_STREAM)))
    elif mode == "goaway":
        conn.sendall(frame(GOAWAY, 0, 0, struct.pack(">II", stream, INTERNAL_ERROR)))
        drain(conn)
        return False
    elif mode.startswith("fin_second"):
        if mode == "fin_second_head":
            conn.sendall(frame(HEADERS, END_HEADERS, stream, STATUS_200))
        elif mode == "fin_second_goaway":
            conn.sendall(frame(GOAWAY, 0, 0, struct.pack(">II", stream, NO_ERROR)))
        drain(conn)
        return False
    elif mode == "goaway_all":
        conn.sendall(frame(GOAWAY, 0, 0, struct.pack(">II", 0, NO_ERROR)))
        drain(conn)
        return False
    return True


def serve(conn, mode, log, lock, ctx):
    streams = {}  # the ordinal of each request stream of the connection
    try:
        if ctx:
            conn = ctx.wrap_socket(conn, server_side=True)
        if read_exact(conn, len(PREFACE)) != PREFACE:
            return
        conn.sendall(frame(SETTINGS, 0, 0))
        while True:
            head = read_exact(conn, 9)
            kind, flags = head[3], head[4]
            stream = int.from_bytes(head[5:9], "big") & 0x7FFFFFFF
            payload = read_exact(conn, int.from_bytes(head[:3], "big"))
            if kind == SETTINGS and not flags & ACK:
                if mode != "flow":
                    conn.sendall(frame(SETTINGS, ACK, 0))
            elif kind == PING and not flags & ACK:
                conn.sendall(frame(PING, ACK, 0, b"\0" * 8))
            elif kind == GOAWAY:
                return
            elif kind == RST_STREAM and log:
                with lock, open(log, "a") as f:
                    f.write("rst %d %d\n" % (stream, int.from_bytes(payload[:4], "big")))
            elif kind == HEADERS:
                if log:
                    with lock, open(log, "a") as f:
                        f.write("%s %d\n" % (mode, stream))
                streams[stream] = len(streams) + 1
            # A request is answered once it is whole (END_STREAM), its body
            # read, as a server does.
            if kind in (HEADERS, DATA) and flags & END_STREAM and stream in streams:
                this = "ok" if mode.startswith("fin_second") and streams[stream] == 1 else mode
                if not answer(conn, this, stream):
                    return
    except (EOFError, OSError):
        pass
    finally:
        conn.close()


def main():
    mode = sys.argv[1] if len(sys.argv) in (2, 4) else ""
    if mode not in MODES:
        sys.exit("h2_fault_server: expected one of %s, got %r" % (", ".join(MODES), mode))
    ctx = None
    if len(sys.argv) == 4:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[2], sys.argv[3])
        ctx.set_alpn_protocols(["h2"])
    log = os.environ.get("H2_FAULT_LOG")
    lock = threading.Lock()
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(128)
    print("%s://127.0.0.1:%d/" % ("https" if ctx else "http", srv.getsockname()[1]), flush=True)
    first = True
    while True:
        conn, _ = srv.accept()
        # The *_first modes misbehave on the first connection only.
        this = mode
        if mode.endswith("_first"):
            this = {"refuse_first": "refuse", "goaway_first": "goaway_all"}[mode] if first else "ok"
        first = False
        threading.Thread(target=serve, args=(conn, this, log, lock, ctx), daemon=True).start()


main()
