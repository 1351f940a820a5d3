#!/usr/bin/env python3
"""The ground truth of a coordinated run's session file, read on its own.

Usage: session_facts.py SESSION.jsonl

Reads the merged ticks (lines "tick") and every agent's ticks (lines
"agent_tick", docs/session-format.md) and decodes their stored histograms
with a decoder of its own, written from the format's description, so the
checks do not lean on brink's reader. Prints one fact a line, "key value...":

  ticks N                  merged ticks
  agent_ticks NAME N       ticks of agent NAME
  completed M A            requests completed: merged ticks, agents' ticks
  rate M A                 requests per second over the ticks that ran
                           whole (state "running"): of the merged ticks,
                           and the sum of each agent's over its own
  hist_mismatch N OF       merged ticks whose histogram is not the exact
                           sum of the histograms of the agents' ticks of the
                           same interval that it says are in it (count, min,
                           max and every bucket), of OF ticks that timed some
  p99 LO HI                p99 of the union of all the agents' histograms
                           over the run: the bounds of its stored bucket
  merged_p99 LO HI         the same from the merged ticks
  conc NAME SEQ TARGET ACTUAL
                           an agent's target and actual concurrency by tick
  step_users STEP LEVEL USERS
                           a ramp plan's step, its plan level and the merged
                           users of its running ticks (target and active,
                           each value seen once, comma-separated)
  lost NAME SEQ            the first merged tick that marks NAME lost
  in NAME SEQ              a merged tick in which NAME's tick is merged
  event SEQ AT_MS KIND TEXT
                           a merged tick's event (TEXT with blanks as _)
"""
import base64
import json
import math
import sys

SUB_BITS = {1: 6, 2: 4}  # the version byte says the sub-bucket bits


def varints(buf, pos):
    """Yields the LEB128 varints of buf from pos on."""
    while pos < len(buf):
        v = shift = 0
        while True:
            b = buf[pos]
            pos += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        yield v


def coarse_index(v, bits):
    if v < 1 << (bits + 1):
        return v
    s = v.bit_length() - 1 - bits
    return (v >> s) + (s << bits)


def coarse_bounds(i, bits):
    """The values storage bucket i holds: (low, high), both included."""
    if i < 1 << (bits + 1):
        return i, i
    s = (i >> bits) - 1
    low = (i - (s << bits)) << s
    return low, low + (1 << s) - 1


class Hist:
    """A stored histogram: count, min, max and bucket counts by index."""

    def __init__(self, bits):
        self.bits = bits
        self.count = 0
        self.min = None
        self.max = None
        self.buckets = {}

    @classmethod
    def decode(cls, text):
        buf = base64.b64decode(text)
        h = cls(SUB_BITS[buf[0]])
        it = varints(buf, 1)
        h.count, h.min, h.max = next(it), next(it), next(it)
        next(it)  # clamped
        i, seen = coarse_index(h.min, h.bits), 0
        while seen < h.count:
            n = next(it)
            if n == 0:
                i += next(it) + 1
                n = next(it)
            h.buckets[i] = n
            seen += n
            i += 1
        return h

    def add(self, other):
        if other.count == 0:
            return
        self.count += other.count
        self.min = other.min if self.min is None else min(self.min, other.min)
        self.max = other.max if self.max is None else max(self.max, other.max)
        for i, n in other.buckets.items():
            self.buckets[i] = self.buckets.get(i, 0) + n

    def key(self):
        return self.count, self.min, self.max, sorted(self.buckets.items())

    def percentile_bounds(self, pct):
        """The bucket of rank ceil(pct/100 * count), clamped to min..max."""
        rank = max(1, math.ceil(pct / 100.0 * self.count))
        seen = 0
        for i in sorted(self.buckets):
            seen += self.buckets[i]
            if seen >= rank:
                lo, hi = coarse_bounds(i, self.bits)
                return max(lo, self.min), min(hi, self.max)
        raise ValueError("rank beyond the count")


def tick_hist(t):
    """The interval histogram of a tick's total (successes), or None."""
    total = t.get("total", {})
    if "hist" in total:
        return Hist.decode(total["hist"])
    if total.get("hist_is_merge"):
        h = None
        for k in t.get("kinds", []):
            if "hist" in k:
                part = Hist.decode(k["hist"])
                h = h or Hist(part.bits)
                h.add(part)
        return h
    return None


def running_rate(ticks):
    """Requests per second over the ticks in state "running"."""
    done = span = 0
    for t in ticks:
        if t.get("state") == "running":
            done += t.get("total", {}).get("completed", 0)
            span += t.get("duration_us", 0)
    return done * 1e6 / span if span else 0.0


def main():
    merged, agents = {}, {}
    with open(sys.argv[1], encoding="ascii") as f:
        for line in f:
            o = json.loads(line)
            if o.get("type") == "tick":
                merged[o["seq"]] = o
            elif o.get("type") == "agent_tick":
                agents.setdefault(o["agent"], {})[o["seq"]] = o
    print("ticks", len(merged))
    for name in sorted(agents):
        print("agent_ticks", name, len(agents[name]))
    print("completed", sum(t.get("total", {}).get("completed", 0) for t in merged.values()),
          sum(t.get("total", {}).get("completed", 0) for a in agents.values() for t in a.values()))

    print("rate", "%.1f" % running_rate(merged.values()),
          "%.1f" % sum(running_rate(a.values()) for a in agents.values()))

    mismatch = timed = 0
    union = merged_all = None
    for seq in sorted(merged):
        t = merged[seq]
        h = tick_hist(t)
        parts = None
        for row in t.get("agents", []):
            a = agents.get(row["name"], {}).get(seq)
            if row.get("in") and a is not None:
                ah = tick_hist(a)
                if ah is not None:
                    parts = parts or Hist(ah.bits)
                    parts.add(ah)
        if h is None and parts is None:
            continue
        timed += 1
        if h is None or parts is None or h.key() != parts.key():
            mismatch += 1
        if h is not None:
            merged_all = merged_all or Hist(h.bits)
            merged_all.add(h)
    for a in agents.values():
        for t in a.values():
            ah = tick_hist(t)
            if ah is not None:
                union = union or Hist(ah.bits)
                union.add(ah)
    print("hist_mismatch", mismatch, timed)
    if union is not None:
        print("p99", *union.percentile_bounds(99.0))
    if merged_all is not None:
        print("merged_p99", *merged_all.percentile_bounds(99.0))

    for name in sorted(agents):
        for seq in sorted(agents[name]):
            t = agents[name][seq]
            print("conc", name, seq, t.get("target_concurrency", 0), t.get("actual_concurrency", 0))
    steps = {}
    for seq in sorted(merged):
        t, plan = merged[seq], merged[seq].get("plan") or {}
        if t.get("state") == "running" and plan.get("step"):
            users = steps.setdefault(plan["step"], (int(plan["level"]), set()))[1]
            users.update((t.get("target_concurrency", 0), t.get("actual_concurrency", 0)))
    for step, (level, users) in sorted(steps.items()):
        print("step_users", step, level, ",".join(map(str, sorted(users))))
    lost = {}
    for seq in sorted(merged):
        for row in merged[seq].get("agents", []):
            if row.get("state") == "lost" and row["name"] not in lost:
                lost[row["name"]] = seq
            if row.get("in"):
                print("in", row["name"], seq)
        for e in merged[seq].get("events", []):
            print("event", seq, e["at_ms"], e["kind"], "_".join(e["text"].split()) or "_")
    for name, seq in sorted(lost.items()):
        print("lost", name, seq)


if __name__ == "__main__":
    main()
