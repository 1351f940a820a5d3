"""A TCP server whose answer each connection chooses with its first line,
for brink.tcp's faults and counts (tests/e2e/test_stream.sh):

  echo    answers every later line with itself, and counts it
  flood   sends bytes without end, never a line's end
  silent  reads, never answers
  cut     sends half a line, then closes (a FIN)
  reset   closes at once with an RST (SO_LINGER 0)
  count   answers "N\\r\\n", the echo lines answered so far, then closes
  open    answers "N\\r\\n", the echo connections open now, then closes

Usage: python3 stream_fault_server.py PORTFILE. Listens on 127.0.0.1, an
ephemeral port, which it writes to PORTFILE; runs until killed, one
thread per connection.
"""
import socket
import struct
import sys
import threading

lock = threading.Lock()
echoed = 0
echoing = 0


def lines(conn):
    """The lines conn sends, each without its \\r\\n, until it closes."""
    buf = b""
    while True:
        while b"\r\n" not in buf:
            part = conn.recv(65536)
            if not part:
                return
            buf += part
        line, buf = buf.split(b"\r\n", 1)
        yield line


def serve(conn):
    global echoed, echoing
    try:
        it = lines(conn)
        mode = next(it, None)
        if mode == b"echo":
            with lock:
                echoing += 1
            try:
                for line in it:
                    conn.sendall(line + b"\r\n")
                    with lock:
                        echoed += 1
            finally:
                with lock:
                    echoing -= 1
        elif mode == b"flood":
            chunk = b"x" * 65536
            while True:
                conn.sendall(chunk)
        elif mode == b"silent":
            for _ in it:
                pass
        elif mode == b"cut":
            conn.sendall(b"half a li")
            conn.shutdown(socket.SHUT_WR)
            for _ in it:
                pass
        elif mode == b"reset":
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        elif mode == b"count":
            with lock:
                conn.sendall(b"%d\r\n" % echoed)
        elif mode == b"open":
            with lock:
                conn.sendall(b"%d\r\n" % echoing)
    except OSError:
        pass
    finally:
        conn.close()


def main():
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(128)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    import os
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


main()
