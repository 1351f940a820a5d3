"""A WebSocket echo server on Debian's python3-websockets, the counterpart
of brink.ws's end-to-end test (test_ws.sh): it sends every message it
receives back as it came (text or binary) and counts them.

Usage: /usr/bin/python3 ws_echo_server.py PORTFILE [--cut]
(Debian's interpreter: the one a version manager puts first on PATH may
lack the package). Listens on 127.0.0.1, an ephemeral port, which it
writes to PORTFILE once it listens (written whole: through a rename).

- Any WebSocket path echoes; an HTTP GET of /count (no upgrade) answers
  the number of messages received so far, as a line of text: the ground
  truth brink's request count is checked against.
- --cut: every message is counted, then answered by the first half of its
  echo's frame (header and half the payload) and a plain TCP close (FIN):
  a server that closes in the middle of a message, which brink must count
  as closed_early.

Runs until killed.
"""
import asyncio
import http
import os
import sys

import websockets

received = 0


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
    """Answers GET /count without an upgrade; None lets the others upgrade."""
    if path == "/count":
        return http.HTTPStatus.OK, [("Content-Type", "text/plain")], b"%d\n" % received
    return None


async def main(portfile):
    async with websockets.serve(echo, "127.0.0.1", 0, process_request=count,
                                max_size=None) as server:
        port = server.sockets[0].getsockname()[1]
        with open(portfile + ".new", "w") as f:
            f.write("%d\n" % port)
        os.rename(portfile + ".new", portfile)
        await asyncio.Future()


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--cut"):
        sys.exit("usage: ws_echo_server.py PORTFILE [--cut]")
    CUT = len(sys.argv) == 3
    asyncio.run(main(sys.argv[1]))
