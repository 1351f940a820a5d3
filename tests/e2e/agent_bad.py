# An agent for test_agents_refused.sh that speaks the protocol until the
# start, then sends the one bad tick named by its argument:
#   counts   a tick whose requests do not add up (more ok than completed)
#   big      a tick line longer than 1 MiB (a 2 MiB kind name)
# and then answers pings until its input closes.
import json
import os
import sys
import time

mode = sys.argv[1]


def send(o):
    # The coordinator drops the link once it refuses a line: leave quietly,
    # so that its stderr says nothing.
    try:
        sys.stdout.write(json.dumps(o) + "\n")
        sys.stdout.flush()
    except OSError:
        os._exit(0)


def messages():
    buf = b""
    while True:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            yield json.loads(line)
        data = os.read(0, 1 << 20)
        if not data:
            return
        buf += data


def tick(ok, name="total"):
    return {"type": "tick", "seq": 0, "start_us": 0, "duration_us": 1000000,
            "state": "running", "model": "closed", "transport": "h1",
            "target_concurrency": 1, "actual_concurrency": 1,
            "target_rate_per_s": 0.0, "in_flight": 0,
            "total": {"name": name, "started": 5, "completed": 5, "ok": ok,
                      "bytes_in": 0, "bytes_out": 0, "errors": {},
                      "window": {"count": 0}, "run": {"count": 0}},
            "kinds": [], "status": [], "events": []}


send({"type": "hello", "protocol": 2, "brink": "0.1.0"})
for m in messages():
    if m["type"] == "config":
        send({"type": "ready"})
    elif m["type"] == "ping":
        send({"type": "pong", "t_ns": m["t_ns"], "peer_ns": time.monotonic_ns()})
    elif m["type"] == "start" and mode == "counts":
        send(tick(9))
    elif m["type"] == "start" and mode == "big":
        send(tick(5, "x" * (2 << 20)))
