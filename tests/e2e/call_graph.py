#!/usr/bin/env python3
"""The engine's call graph, read from its object files with nm.

Usage: call_graph.py OBJECTS [SOURCE_ROOT]

OBJECTS lists the engine's object files, one path per line (the build
writes it: src/engine/objects.txt). A file calls another when one of its
undefined symbols is defined there. Two graphs must have no cycle: the
files', and the one where each transport folder (h1/, curl/) is one node
(so that no file of the core calls a transport that calls it back, through
whichever of its files). Prints one line per edge of the second
("worker.c -> slot.c", "h1/ -> slot.c"), one per call between two files of
a folder ("in h1/: conn.c -> tls.c"), and then, for each cycle, "cycle:
a.c b.c ..."; exits 1 when there is a cycle or when the graph is too small
to be the engine's (fewer than 10 files or no edge: nm read nothing).
"""
import os
import subprocess
import sys

DEFINED = set("TDBRCGSVW")


def source_of(obj):
    """CMakeFiles/brink_engine_h1.dir/h1/conn.c.o -> h1/conn.c"""
    rel = obj.split(".dir/", 1)[1] if ".dir/" in obj else os.path.basename(obj)
    return rel[:-2] if rel.endswith(".o") else rel


def node_of(src):
    return src.split("/", 1)[0] + "/" if "/" in src else src


def read(objects):
    defined, wanted = {}, {}
    for obj in objects:
        out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
        src = source_of(obj)
        wanted[src] = set()
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in DEFINED:
                defined[f[2]] = src
            elif len(f) == 2 and f[0] == "U":
                wanted[src].add(f[1])
    return defined, wanted


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main():
    with open(sys.argv[1]) as f:
        objects = [line.strip() for line in f if line.strip()]
    defined, wanted = read(objects)
    graph, files = {}, {}
    for src, syms in wanted.items():
        a = node_of(src)
        graph.setdefault(a, set())
        files.setdefault(src, set())
        for s in syms:
            d = defined.get(s, src)
            if d != src:
                files[src].add(d)
            if node_of(d) != a:
                graph[a].add(node_of(d))
    n_edges = 0
    for a in sorted(graph):
        for b in sorted(graph[a]):
            print(f"{a} -> {b}")
            n_edges += 1
    for a in sorted(files):
        for b in sorted(files[a]):
            if "/" in a and node_of(a) == node_of(b):
                print(f"in {node_of(a)}: {a.split('/', 1)[1]} -> {b.split('/', 1)[1]}")
    bad = cycles(graph)
    bad += [c for c in cycles(files) if c not in bad]
    for c in bad:
        print("cycle: " + " ".join(c))
    if len(objects) < 10 or n_edges == 0:
        print(f"only {len(objects)} objects and {n_edges} calls: not the engine")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
