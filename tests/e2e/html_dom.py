"""Checks a brink HTML report as Chromium rendered it (its --dump-dom).

Usage:
  python3 html_dom.py report DOM CSV JSON SESSION [REQUESTS FAILED]   the page
      of one session: every chart, one point per tick (CSV rows) or step
      (JSON steps), every plotted value equal to the CSV or JSON figure it
      stands for, successes and failures on charts apart, the knee marked
      where the session (JSON Lines) recorded one, the overview's
      figures those of the JSON report and, when given, the server's
      ground truth (REQUESTS served, FAILED of them answered 503), the
      kinds table's one total row (a row per kind only when there are
      several), and the latency distribution's dots at p50, p90, p99 and
      p99.9 the JSON's total.latency_us
  python3 html_dom.py hostile DOM NEEDLE... a page from hostile strings: no
      script, no on* attribute, no element outside the page's own set, and
      each NEEDLE shown as text
  python3 html_dom.py compare DOM LABEL...  an overlay: each chart has one
      curve per session, labelled
  python3 html_dom.py versus DOM JSON_A JSON_B LABEL_A LABEL_B   compare of two
      sessions: the change of B against A (ok/s, failed/s, p50, p90, p99,
      max, errors), the step tables side by side by level and the latency
      distributions overlaid, each figure the one of its session's JSON report
  python3 html_dom.py capacity DOM JSON   a staircase's page: the steps'
      successes, the Universal Scalability Law's curve over them and its
      peak N* marked, each the JSON's (steps, capacity.usl)
  python3 html_dom.py labels DOM   a page with its labels' boxes (a <pre
      id="boxes">, written by a script run in the browser): no two labels of
      a chart meet
Prints one "ok   ..." or "FAIL ..." line per check (as tests/e2e/lib.sh) and
exits 1 when any failed.
"""
import csv
import json
import re
import sys
from html.parser import HTMLParser

# Every element the page is made of; anything else was injected.
PAGE_ELEMENTS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "ul", "li", "span",
    "table", "tbody", "tr", "th", "td", "pre", "figure", "figcaption", "svg", "line", "text",
    "path", "circle", "g",
}

failed = 0


def ok(name):
    print("ok   " + name)


def not_ok(name, why):
    global failed
    failed += 1
    print("FAIL " + name)
    print("     " + why)


def check(name, cond, why=""):
    if cond:
        ok(name)
    else:
        not_ok(name, why)


class Dom(HTMLParser):
    """Elements in document order, as (tag, attrs dict, parent figure id);
    each table's rows, by table id, as lists of (cell text, cell attrs)
    after the row's attrs; the text of each <pre> by id."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements = []
        self.figure = None
        self.text = []
        self.tables = {}
        self.table = None
        self.cell = None
        self.pres = {}
        self.pre = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure":
            self.figure = a.get("id")
        elif tag == "table":
            self.table = self.tables.setdefault(a.get("id"), [])
        elif tag == "tr" and self.table is not None:
            self.table.append([a])
        elif tag in ("td", "th") and self.table:
            self.cell = ["", a]
            self.table[-1].append(self.cell)
        elif tag == "pre":
            self.pre = a.get("id")
            self.pres[self.pre] = ""
        self.elements.append((tag, a, self.figure))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag == "figure":
            self.figure = None
        elif tag == "table":
            self.table = None
        elif tag in ("td", "th"):
            self.cell = None
        elif tag == "pre":
            self.pre = None

    def handle_data(self, data):
        self.text.append(data)
        if self.cell is not None:
            self.cell[0] += data
        if self.pre is not None:
            self.pres[self.pre] += data


def load(path):
    d = Dom()
    with open(path, encoding="utf-8") as f:
        d.feed(f.read())
    return d


def series(dom, figure, tag="path"):
    """{data-series: [values or None]} of a chart's curves (or dots)."""
    out = {}
    for tag_, a, fig in dom.elements:
        if fig != figure or tag_ != tag or "data-series" not in a:
            continue
        if tag == "path":
            out[a["data-series"]] = [float(v) if v else None for v in a["data-v"].split(",")]
        else:
            out.setdefault(a["data-series"], []).append((float(a["data-x"]), float(a["data-v"])))
    return out


def figures(dom):
    return {a["id"]: a for t, a, _ in dom.elements if t == "figure"}


def same(a, b, tol):
    return a is not None and b is not None and abs(a - b) <= tol


def compare_values(name, got, want, tol):
    """got and want are lists, None where there is no value."""
    if len(got) != len(want):
        not_ok(name, "%d points, expected %d" % (len(got), len(want)))
        return
    bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want))
           if (g is None) != (w is None) or (g is not None and not same(g, w, tol(w)))]
    check(name, not bad, "first differences (index, plotted, expected): %s" % bad[:5])


def opt(v):
    return float(v) if v != "" else None


def recorded_knee(session_path):
    """The level of the knee detection the session recorded, or None."""
    for line in open(session_path):
        rec = json.loads(line)
        for e in rec.get("events", []) if rec.get("type") == "tick" else []:
            if e["kind"] == "detection" and e["text"].startswith("knee: c="):
                return float(e["text"][len("knee: c="):].split()[0])
    return None


def overview(dom, doc, truth_requests, truth_failed):
    """The header's line: requests, successes and failures, each its own."""
    text = "".join(dom.text)
    m = re.search(r"([\d,]+) requests: ([\d,]+) succeeded \(([\d,.]+) req/s\), ([\d,]+) failed \(", text)
    check("overview: requests, succeeded and failed are on the page", m, text[:300])
    if not m:
        return
    num = lambda g: int(m.group(g).replace(",", ""))
    total = doc["total"]
    check("overview: %s requests, as JSON total.requests %d" % (m.group(1), total["requests"]),
          num(1) == total["requests"], "")
    check("overview: %s failed, as JSON total.failed %d" % (m.group(4), total["failed"]),
          num(4) == total["failed"], "")
    check("overview: succeeded + failed = requests", num(2) + num(4) == num(1), m.group(0))
    if truth_requests is not None:
        check("overview: %s requests, as the target served (%s)" % (m.group(1), truth_requests),
              num(1) == int(truth_requests), "")
        check("overview: %s failed, as the target's 503s (%s)" % (m.group(4), truth_failed),
              num(4) == int(truth_failed), "")


def percentiles(dom, doc, label=None):
    """The distribution's dots at p50, p90, p99 and p99.9 are the JSON's
    latency_us figures; its curve never goes down."""
    want = {"50": "p50", "90": "p90", "99": "p99", "99.9": "p999"}
    lat = doc["total"]["latency_us"]
    dots = {a["data-p"]: int(a["data-us"]) for t, a, fig in dom.elements
            if fig == "percentiles" and t == "circle" and "data-p" in a and a.get("data-label") == label}
    name = "percentiles%s" % (" (%s)" % label if label else "")
    check("%s: a dot at each of p50, p90, p99, p99.9" % name, sorted(dots) == sorted(want),
          "dots at %s" % sorted(dots))
    for p, key in want.items():
        check("%s: p%s plotted at %s us, as JSON total.latency_us.%s %s" % (name, p, dots.get(p), key, lat[key]),
              dots.get(p) == lat[key], "")
    curves = [a for t, a, fig in dom.elements
              if fig == "percentiles" and t == "path" and a.get("data-label") == label]
    values = [int(v) for v in curves[0]["data-v"].split(",")] if len(curves) == 1 else []
    check("%s: one curve, from the min %s to no more than the max %s, never going down"
          % (name, lat["min"], lat["max"]),
          values and values[0] == lat["min"] and values[-1] <= lat["max"] and values == sorted(values),
          "%d curves, values %s" % (len(curves), values[:5]))


def kinds_table(dom, doc):
    """One row for the total, a row per kind only when there are several."""
    names = [r[1][0] for r in dom.tables.get("kinds", [])[1:] if len(r) > 1]
    kinds = [k["name"] for k in doc["kinds"]]
    want = ["total"] + (kinds if len(kinds) > 1 else [])
    check("kinds table: the rows %s (JSON kinds %s)" % (want, kinds),
          [n for n in names if not n.startswith("failed requests")] == want, "rows %s" % names)


def report(dom_path, csv_path, json_path, session_path, truth_requests=None, truth_failed=None):
    dom = load(dom_path)
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    with open(json_path) as f:
        doc = json.load(f)
    figs = figures(dom)
    n = len(rows)
    time_charts = ["throughput", "latency-ok", "latency-failed", "errors", "probe-0"]
    for fid in time_charts + ["steps-throughput", "steps-failures", "steps-latency"]:
        check("chart %s is on the page" % fid, fid in figs, "figures: %s" % sorted(figs))
    if failed:
        return
    for fid in time_charts:
        check("%s: data-points is the tick count %d" % (fid, n), figs[fid]["data-points"] == str(n),
              "data-points=%s" % figs[fid]["data-points"])
    exact = lambda w: 0
    overview(dom, doc, truth_requests, truth_failed)
    thr = series(dom, "throughput")
    check("throughput: successes alone, failures are not throughput", list(thr) == ["ok/s"],
          "curves %s" % sorted(thr))
    compare_values("throughput: one ok/s per tick, as CSV ok over duration_us", thr.get("ok/s", []),
                   [float(r["ok"]) * 1e6 / float(r["duration_us"]) for r in rows], lambda w: 0.0005)
    lat = series(dom, "latency-ok")
    for s, col in (("p50", "p50_us"), ("p90", "p90_us"), ("p99", "p99_us"), ("max", "max_us")):
        compare_values("latency of successes: %s per tick, as CSV %s" % (s, col), lat.get(s, []),
                       [opt(r[col]) for r in rows], exact)
    flat = series(dom, "latency-failed")
    for s, col in (("p50", "failed_p50_us"), ("p99", "failed_p99_us"), ("max", "failed_max_us")):
        compare_values("latency of failures: %s per tick, as CSV %s" % (s, col), flat.get(s, []),
                       [opt(r[col]) for r in rows], exact)
    err = series(dom, "errors")
    failed_per_s = [sum(float(v) for k, v in r.items() if k.startswith("err_")) * 1e6 /
                    float(r["duration_us"]) for r in rows]
    check("errors: the run failed requests", max(failed_per_s) > 0, "no failure in the CSV")
    compare_values("errors: failed/s per tick, as the CSV err_ columns over duration_us",
                   err.pop("failed/s", []), failed_per_s, lambda w: 0.0005)
    colours = {a["data-series"]: a.get("class", "") for t, a, fig in dom.elements
               if t == "path" and "data-series" in a and fig in ("throughput", "errors")}
    check("throughput and errors: ok/s in the normal colour, failed/s in the error one",
          colours.get("ok/s") == "s c0" and colours.get("failed/s") == "s c3", "%s" % colours)
    check("errors: a curve per class that failed", len(err) > 0, "no curve")
    for cls, values in err.items():
        want = [float(r["err_" + cls]) * 1e6 / float(r["duration_us"]) for r in rows]
        compare_values("errors: %s per second per tick, as CSV err_%s" % (cls, cls), values, want,
                       lambda w: 0.0005)
    probe = series(dom, "probe-0")
    compare_values("probe conns: its value per tick, as the CSV column", probe.get("value", []),
                   [opt(r["conns"]) for r in rows], lambda w: abs(w) * 1e-8)
    thresholds = [a for t, a, fig in dom.elements if fig == "probe-0" and "threshold" in a.get("class", "")]
    check("probe conns: its alert threshold is drawn at 500",
          len(thresholds) == 1 and float(thresholds[0]["data-v"]) == 500.0, "%s" % thresholds)
    levels = [a for t, a, fig in dom.elements if fig == "throughput" and a.get("class") == "ev ev-level"]
    check("throughput: every change of level is marked (5 levels)", len(levels) == 5, "%d" % len(levels))
    detections = [a for t, a, fig in dom.elements
                  if fig == "throughput" and a.get("class") == "ev ev-detection"]
    check("throughput: the detections are marked", len(detections) >= 4, "%d" % len(detections))

    steps = doc["steps"]
    st = series(dom, "steps-throughput", "circle")
    check("steps-throughput: data-points is the step count %d" % len(steps),
          figs["steps-throughput"]["data-points"] == str(len(steps)), figs["steps-throughput"]["data-points"])
    compare_values("steps-throughput: one point per step at its level",
                   [x for x, _ in st.get("ok/s", [])], [float(s["level"]) for s in steps], exact)
    check("steps-throughput: successes alone", list(st) == ["ok/s"], "curves %s" % sorted(st))
    compare_values("steps-throughput: ok/s per step, as JSON steps ok over duration_us",
                   [v for _, v in st.get("ok/s", [])],
                   [s["ok"] * 1e6 / s["duration_us"] for s in steps], lambda w: 0.0005)
    sf = series(dom, "steps-failures", "circle")
    compare_values("steps-failures: failed/s per step, as JSON steps failed over duration_us",
                   [v for _, v in sf.get("failed/s", [])],
                   [s["failed"] * 1e6 / s["duration_us"] for s in steps], lambda w: 0.0005)
    sl = series(dom, "steps-latency", "circle")
    for p in ("p50", "p90", "p99"):
        compare_values("steps-latency: %s per step, as JSON steps latency_us.%s" % (p, p),
                       [v for _, v in sl.get(p, [])],
                       [float(s["latency_us"][p]) for s in steps if s["latency_us"]["timed"]], exact)
    for fid in ("steps-throughput", "steps-failures", "steps-latency"):
        marks = [a for t, a, fig in dom.elements if fig == fid and t == "g"]
        broke = [a for a in marks if a.get("class") == "breaking"]
        failed_steps = [s["level"] for s in steps if s.get("plan", {}).get("verdict") == "fail"]
        check("%s: the breaking point is marked at the first failed step %s" % (fid, failed_steps[:1]),
              len(broke) == 1 and failed_steps and float(broke[0]["data-x"]) == failed_steps[0],
              "%s" % broke)
        knee = recorded_knee(session_path)
        drawn = [float(a["data-x"]) for a in marks if a.get("class") == "ev knee"]
        check("%s: the knee is marked where the session recorded it (%s)" % (fid, knee),
              drawn == ([knee] if knee is not None else []), "drawn at %s" % drawn)
    usl_curve(dom, doc)
    step_rows = [a for t, a, fig in dom.elements if t == "tr"]
    check("the step table has a row per step", sum(1 for _ in step_rows) >= len(steps) + 1, "")
    kinds_table(dom, doc)
    percentiles(dom, doc)


def usl_curve(dom, doc):
    """Over the steps' successes, the Universal Scalability Law of the JSON's
    capacity.usl: its curve from 1 user on, each value the law's at its x,
    and its peak N* marked (none of either without a fit)."""
    usl = doc["capacity"]["usl"]
    paths = [a for t, a, fig in dom.elements
             if fig == "steps-throughput" and t == "path" and a.get("data-series") == "usl"]
    peaks = [float(a["data-x"]) for t, a, fig in dom.elements
             if fig == "steps-throughput" and t == "g" and a.get("class") == "ev usl-peak"]
    if usl is None:
        check("steps-throughput: no fitted curve without a fit (%s)" % doc["capacity"].get("usl_refused"),
              not paths and not peaks, "%d curves, peaks %s" % (len(paths), peaks))
        return
    check("steps-throughput: one fitted curve", len(paths) == 1, "%d curves" % len(paths))
    if len(paths) != 1:
        return
    xs = [float(v) for v in paths[0]["data-xs"].split(",")]
    law = lambda n: usl["lambda"] * n / (1 + usl["sigma"] * (n - 1) + usl["kappa"] * n * (n - 1))
    check("steps-throughput: the fitted curve runs from 1 user past the last step (%s to %s)"
          % (xs[0], xs[-1]), xs[0] == 1 and xs[-1] >= max(s["level"] for s in doc["steps"]), "")
    compare_values("steps-throughput: the fitted curve is the law of JSON capacity.usl "
                   "(lambda %.4g, sigma %.4g, kappa %.4g)" % (usl["lambda"], usl["sigma"], usl["kappa"]),
                   [float(v) for v in paths[0]["data-v"].split(",")], [law(x) for x in xs],
                   lambda w: abs(w) * 1e-6)
    want = [usl["peak_users"]] if usl["peak_users"] is not None and usl["peak_users"] <= xs[-1] else []
    check("steps-throughput: N* marked at JSON capacity.usl.peak_users %s" % usl["peak_users"],
          len(peaks) == len(want) and all(same(p, w, w * 1e-6) for p, w in zip(peaks, want)),
          "marked at %s" % peaks)


def cell_value(cell):
    return float(cell[1]["data-v"]) if "data-v" in cell[1] else None


def versus(dom_path, json_a, json_b, label_a, label_b):
    dom = load(dom_path)
    docs = [json.load(open(json_a)), json.load(open(json_b))]
    rows = {r[0].get("data-figure"): r[1:] for r in dom.tables.get("deltas", [])[1:]}
    figures_ = ["ok/s", "failed/s", "p50", "p90", "p99", "max", "errors"]
    check("deltas: a row per figure %s" % figures_, list(rows) == figures_, "rows %s" % list(rows))

    def figure(doc, f):
        t = doc["total"]
        return {"ok/s": t["ok_per_s"], "failed/s": t["failed_per_s"], "errors": t["failed"],
                "max": t["latency_us"]["max"]}.get(f, t["latency_us"].get(f))

    better_when_higher = {"ok/s"}
    for f in figures_:
        cells = rows.get(f)
        if not cells or len(cells) != 5:
            not_ok("deltas: %s has 5 cells" % f, "%s" % cells)
            continue
        a, b = figure(docs[0], f), figure(docs[1], f)
        got_a, got_b = cell_value(cells[1]), cell_value(cells[2])
        delta, pct = cells[3][1].get("data-delta"), cells[4][1].get("data-pct")
        tol = 0.0005 if "/" in f else 0
        check("deltas: %s of A %s and B %s, as their JSON reports (%s, %s)" % (f, got_a, got_b, a, b),
              same(got_a, a, tol) and same(got_b, b, tol), "")
        check("deltas: %s changed by %s (B - A = %s)" % (f, delta, b - a),
              delta is not None and same(float(delta), b - a, 2 * tol + 1e-9), "")
        if a:
            check("deltas: %s changed by %s%% ((B - A) / A = %.1f%%)" % (f, pct, (b - a) / a * 100),
                  pct is not None and abs(float(pct) - (b - a) / a * 100) <= 0.05 + 1e-9, "")
        better = b > a if f in better_when_higher else b < a
        want = "same" if b == a else "better" if better else "worse"
        check("deltas: %s is marked %s" % (f, want),
              cells[3][1].get("class") == want and cells[4][1].get("class") == want,
              "classes %s %s" % (cells[3][1].get("class"), cells[4][1].get("class")))
    check("deltas: the sessions differ (a change to see)",
          any(figure(docs[0], f) != figure(docs[1], f) for f in figures_), "")

    table = dom.tables.get("compare-steps", [])
    levels = [[float(l["level"]) for l in d["levels"]] for d in docs]
    got_levels = [float(r[0]["data-level"]) for r in table[2:]]
    check("steps side by side: a row per level of either session %s" % sorted(set(sum(levels, []))),
          got_levels == sorted(set(sum(levels, []))), "rows %s" % got_levels)
    heads = [c[0] for c in table[0][1:]] if table else []
    check("steps side by side: the sessions' labels head the columns", heads[1:] == [label_a, label_b],
          "heads %s" % heads)
    for r in table[2:]:
        lv = float(r[0]["data-level"])
        for k, doc in enumerate(docs):
            cells = r[2 + 6 * k:8 + 6 * k]
            held = [l for l in doc["levels"] if float(l["level"]) == lv]
            if not held:
                check("steps side by side: c=%g blank for session %d" % (lv, k),
                      all(c[0] == "" for c in cells), "%s" % cells)
                continue
            l = held[0]
            want = [l["ok_per_s"], l["failed_per_s"], l["latency_us"]["p50"], l["latency_us"]["p90"],
                    l["latency_us"]["p99"], l["failed"]]
            got = [cell_value(c) for c in cells]
            check("steps side by side: c=%g of session %d %s, as JSON levels" % (lv, k, got),
                  all(same(g, w, 0.0005) for g, w in zip(got, want)) and len(got) == 6,
                  "expected %s" % want)
    percentiles(dom, docs[0], label_a)
    percentiles(dom, docs[1], label_b)
    keys = [a["class"] for t, a, fig in dom.elements
            if fig == "percentiles" and t == "span" and a.get("class", "").startswith("key")]
    check("percentiles: a legend key per session, in two colours", keys == ["key c0", "key c1"],
          "keys %s" % keys)


def labels(dom_path):
    """No two text boxes of a chart intersect (as Chromium laid them out)."""
    dom = load(dom_path)
    boxes = json.loads(dom.pres.get("boxes", "[]"))
    by_figure = {}
    for fid, cls, text, left, top, right, bottom in boxes:
        by_figure.setdefault(fid, []).append((cls, text, left, top, right, bottom))
    check("labels: the page has charts with labels", len(by_figure) >= 5, "%s" % sorted(by_figure))
    for fid, bs in sorted(by_figure.items()):
        meet = [(a[1], b[1]) for i, a in enumerate(bs) for b in bs[i + 1:]
                if a[2] < b[4] and b[2] < a[4] and a[3] < b[5] and b[3] < a[5]]
        check("labels: %s: none of its %d labels meets another" % (fid, len(bs)), not meet,
              "%d pairs meet, first %s" % (len(meet), meet[:6]))
        axes = [b for b in bs if b[0] in ("xlab", "ylab")]
        check("labels: %s: its axes are labelled (%d)" % (fid, len(axes)),
              sum(b[0] == "xlab" for b in axes) >= 2 and sum(b[0] == "ylab" for b in axes) >= 2, "")
    marks = [b for b in by_figure.get("throughput", []) if b[0].startswith("ev ")]
    drawn = sum(1 for t, a, fig in dom.elements if fig == "throughput" and t == "g"
                and a.get("class", "").startswith("ev "))
    check("labels: throughput: of its %d markers, 20 or more labelled (%d)" % (drawn, len(marks)),
          len(marks) >= 20, "")


def hostile(dom_path, needles):
    dom = load(dom_path)
    tags = [t for t, _, _ in dom.elements]
    check("hostile: no script element", "script" not in tags, "")
    on = [(t, k) for t, a, _ in dom.elements for k in a if k.lower().startswith("on")]
    check("hostile: no on* attribute", not on, "%s" % on[:5])
    extra = sorted(set(tags) - PAGE_ELEMENTS)
    check("hostile: no element but the page's own", not extra, "injected: %s" % extra)
    links = [(t, k) for t, a, _ in dom.elements for k in a if k.lower() in ("href", "src", "xlink:href")]
    check("hostile: no link or source attribute", not links, "%s" % links[:5])
    text = "".join(dom.text)
    for n in needles:
        check("hostile: %r is shown as text" % n, n in text, "not in the page's text")
    check("hostile: no ESC byte reaches the page", "\x1b" not in text and "\x1b" not in open(dom_path).read(), "")


def compare(dom_path, labels):
    dom = load(dom_path)
    figs = figures(dom)
    for fid in ("throughput", "latency-ok", "errors", "steps-throughput", "steps-failures",
                "steps-latency"):
        got = [a.get("data-label") for t, a, fig in dom.elements if fig == fid and t == "path"]
        check("compare: %s has one curve per session, labelled %s" % (fid, labels), got == labels,
              "got %s (figures %s)" % (got, sorted(figs)))


def capacity(dom_path, json_path):
    """The steps' successes and the law fitted over them, each the JSON's."""
    dom = load(dom_path)
    with open(json_path) as f:
        doc = json.load(f)
    steps = doc["steps"]
    st = series(dom, "steps-throughput", "circle").get("ok/s", [])
    compare_values("steps-throughput: one point per step at its level", [x for x, _ in st],
                   [float(s["level"]) for s in steps], lambda w: 0)
    compare_values("steps-throughput: ok/s per step, as JSON steps ok over duration_us",
                   [v for _, v in st], [s["ok"] * 1e6 / s["duration_us"] for s in steps],
                   lambda w: 0.0005)
    check("the session has a fit with a peak", (doc["capacity"]["usl"] or {}).get("peak_users"),
          "%s" % doc["capacity"])
    usl_curve(dom, doc)


def main():
    mode = sys.argv[1]
    if mode == "capacity":
        capacity(sys.argv[2], sys.argv[3])
    elif mode == "report":
        report(*sys.argv[2:8])
    elif mode == "hostile":
        hostile(sys.argv[2], sys.argv[3:])
    elif mode == "versus":
        versus(*sys.argv[2:7])
    elif mode == "labels":
        labels(sys.argv[2])
    else:
        compare(sys.argv[2], sys.argv[3:])
    sys.exit(1 if failed else 0)


main()
