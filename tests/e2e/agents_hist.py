"""Checks a session of a run with agents against its agents' own ticks.

Usage: python3 agents_hist.py SESSION
Decodes every stored histogram (docs/session-format.md, "Stored
histograms") of the merged ticks ("tick") and of the agents' ticks
("agent_tick"), and prints one line of key=value figures:
  merged, agents: requests timed in each (the totals' histogram counts)
  same_buckets: 1 when the union of the agents' histograms equals the
    union of the merged ones bucket by bucket
  p99_lo, p99_hi: the storage bucket holding p99 of the agents' union
  n_agents, ticks: agents named, merged ticks
"""
import base64
import json
import sys

B = 6  # latencies: 64 sub-buckets per power of two


def varints(data, pos):
    out, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        out |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return out, pos


def index_of(v):
    if v < (1 << (B + 1)):
        return v
    s = v.bit_length() - 1 - B
    return (v >> s) + (s << B)


def span_of(i):
    if i < (1 << (B + 1)):
        return i, i + 1
    s = (i >> B) - 1
    lo = (i - (s << B)) << s
    return lo, lo + (1 << s)


def unpack(text, into):
    data = base64.b64decode(text)
    assert data[0] == 1, "latency histograms are version 1"
    pos = 1
    count, pos = varints(data, pos)
    lo, pos = varints(data, pos)
    hi, pos = varints(data, pos)
    _clamped, pos = varints(data, pos)
    if count == 0:
        return 0
    i, last = index_of(lo), index_of(hi)
    while i <= last:
        n, pos = varints(data, pos)
        if n == 0:
            skip, pos = varints(data, pos)
            i += skip + 1
            continue
        into[i] = into.get(i, 0) + n
        i += 1
    return count


def main():
    merged, agents, names = {}, {}, set()
    n_merged = n_agents = ticks = 0
    with open(sys.argv[1], encoding="ascii") as f:
        for line in f:
            o = json.loads(line)
            if o.get("type") not in ("tick", "agent_tick"):
                continue
            hist = o["total"].get("hist")
            if o["type"] == "tick":
                ticks += 1
                if hist:
                    n_merged += unpack(hist, merged)
            else:
                names.add(o["agent"])
                if hist:
                    n_agents += unpack(hist, agents)
    total = sum(agents.values())
    rank, seen, p99 = -(-99 * total // 100), 0, (0, 0)
    for i in sorted(agents):
        seen += agents[i]
        if seen >= rank:
            p99 = span_of(i)
            break
    print("merged=%d agents=%d same_buckets=%d p99_lo=%d p99_hi=%d n_agents=%d ticks=%d"
          % (n_merged, n_agents, int(merged == agents), p99[0], p99[1], len(names), ticks))


main()
