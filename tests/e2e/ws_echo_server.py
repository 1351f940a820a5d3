"""A WebSocket echo server on Debian's python3-websockets, the counterpart
of brink.ws's end-to-end test (test_ws_echo.sh): it sends every message it
receives back as it came (text or binary) and counts them.

Usage: /usr/bin/python3 ws_echo_server.py PORTFILE [--cut] [--ping SECONDS]
                                          [--cert CERT --key KEY]
(Debian's interpreter: the one a version manager puts first on PATH may
lack the package). Listens on 127.0.0.1, an ephemeral port, which it
writes to PORTFILE once it listens (written whole: through a rename).

- Any WebSocket path echoes; an HTTP GET of /count (no upgrade) answers
  the number of messages received so far, as a line of text: the ground
  truth brink's request count is checked against; /pongs the pongs that
  answered the server's pings.
- --cut: every message is counted, then answered by the first half of its
  echo's frame (header and half the payload) and a plain TCP close (FIN):
  a server that closes in the middle of a message, which brink must count
  as closed_early.
- --ping SECONDS: pings each connection every SECONDS between its messages
  and closes it (code 1011) when the pong is 1 s late: a client must
  answer pings by itself.
- --cert CERT --key KEY: wss:// (TLS) instead of ws://.

Runs until killed.
"""
import argparse
import asyncio
import http
import os
import ssl

import websockets

received = 0
pongs = 0


class Server(websockets.WebSocketServerProtocol):
    """Counts the pongs that answered its pings (--ping)."""

    async def ping(self, data=None):
        waiter = await super().ping(data)
        waiter.add_done_callback(pong)
        return waiter


def pong(waiter):
    global pongs
    if not waiter.cancelled() and waiter.exception() is None:
        pongs += 1


def frame_head(opcode, length):
    """The header of one unmasked, final server frame (RFC 6455, 5.2)."""
    if length < 126:
        return bytes([0x80 | opcode, length])
    if length < 65536:
        return bytes([0x80 | opcode, 126]) + length.to_bytes(2, "big")
    return bytes([0x80 | opcode, 127]) + length.to_bytes(8, "big")


async def echo(ws, path):
    global received
    try:
        async for message in ws:
            received += 1
            if not CUT:
                await ws.send(message)
                continue
            data = message.encode() if isinstance(message, str) else message
            opcode = 0x1 if isinstance(message, str) else 0x2
            # Past the library: raw bytes on the socket, then a FIN.
            ws.transport.write(frame_head(opcode, len(data)) + data[: len(data) // 2])
            ws.transport.close()
            return
    except websockets.ConnectionClosed:
        pass


async def count(path, headers):
    """Answers GET /count and /pongs without an upgrade; None lets the
    others upgrade."""
    counts = {"/count": received, "/pongs": pongs}
    if path in counts:
        return http.HTTPStatus.OK, [("Content-Type", "text/plain")], b"%d\n" % counts[path]
    return None


async def main(portfile, ping, tls):
    async with websockets.serve(echo, "127.0.0.1", 0, create_protocol=Server, ssl=tls,
                                process_request=count, max_size=None,
                                ping_interval=ping, ping_timeout=1 if ping else None) as server:
        port = server.sockets[0].getsockname()[1]
        with open(portfile + ".new", "w") as f:
            f.write("%d\n" % port)
        os.rename(portfile + ".new", portfile)
        await asyncio.Future()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="ws_echo_server.py")
    parser.add_argument("portfile")
    parser.add_argument("--cut", action="store_true")
    parser.add_argument("--ping", type=float, default=None)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    args = parser.parse_args()
    CUT = args.cut
    tls = None
    if args.cert:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(args.cert, args.key)
    asyncio.run(main(args.portfile, args.ping, tls))
