#!/bin/sh
# Successes and failures per second apart in every table that gives a
# rate, against brink target's ground truth. Two request kinds, /bytes/10
# (200) and /status/503 (a failure), over a ramp of 2 then 4 users: the
# target counts each endpoint apart, so the successes are its /bytes count
# and the failures its /status count. Each rate times the duration it is
# over gives that count back: exactly from JSON and CSV (3 decimals), to
# the rounding of the text (whole numbers from 100/s up) in the report's
# first line, the step table, the kinds table, the breaking-point line,
# the progress lines, compare and the HTML page's tables.
# Usage: sh test_ok_failed.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup

must_start_target --listen 127.0.0.1:0

cat >"$tmp/mix.ini" <<INI
[target]
url = $url/

[request ok]
url = /bytes/10
weight = 3

[request bad]
url = /status/503
weight = 1

[ramp]
steps = 2, 4
hold = 1s
warmup = 0
stop_when = error_rate > 90%

[thresholds]
fail_on = error_rate > 90%
INI
timeout 60 "$brink" run --headless --config "$tmp/mix.ini" --ramp --record "$tmp/mix.jsonl" \
    >"$tmp/mix.out" 2>"$tmp/mix.err" </dev/null
check "the ramp runs to its end" 0 "$?"
ok_n=$(truth requests_by_endpoint bytes)
bad_n=$(truth requests_by_endpoint status)
holds "the target served both kinds ($ok_n successes, $bad_n failures)" "o > 100 && b > 10" \
    -v o="$ok_n" -v b="$bad_n"
"$brink" report "$tmp/mix.jsonl" --format json >"$tmp/mix.json" 2>&1
"$brink" report "$tmp/mix.jsonl" --format csv >"$tmp/mix.csv" 2>&1
"$brink" report "$tmp/mix.jsonl" --format csv-steps >"$tmp/steps.csv" 2>&1
"$brink" report "$tmp/mix.jsonl" --format html -o "$tmp/mix.html" 2>&1
cp "$tmp/mix.jsonl" "$tmp/again.jsonl"
"$brink" compare "$tmp/mix.jsonl" "$tmp/again.jsonl" >"$tmp/mix.cmp" 2>&1

# Each check prints "ok NAME" or "FAIL NAME: why".
python3 - "$tmp" "$ok_n" "$bad_n" >"$tmp/checks" <<'PY'
import csv, html.parser, json, re, sys

d, ok_n, bad_n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
truth = {"ok": ok_n, "failed": bad_n}


def num(s):
    """A figure as printed (grouped by commas), or None when it is not one."""
    try:
        return float(str(s).replace(",", ""))
    except ValueError:
        return None


def check(name, good, why=""):
    """One line each: why on the same line, cut to 300 bytes."""
    why = str(why).replace("\n", "\\n")[:300]
    print(("ok " if good else "FAIL ") + name + ("" if good else ": " + why))


def exact(name, pairs, want):
    """pairs: (rate, seconds); each rate has 3 decimals, so each product
    is its count to within 0.0005 s: rounded, they add up to want."""
    if not pairs or any(r is None for r, _ in pairs):
        check("%s: every rate is there" % name, False, pairs)
        return
    got = sum(round(r * s) for r, s in pairs)
    check("%s: %d, as the target (%d)" % (name, got, want), got == want, pairs)


def near(name, pairs, want, step):
    """The text's rates are rounded to step (1, or 0.1 below 100/s)."""
    if not pairs or any(r is None for r, _ in pairs):
        check("%s: every rate is there" % name, False, pairs)
        return
    got = sum(r * s for r, s in pairs)
    tol = sum(step(r) / 2 * s for r, s in pairs) + 1e-6
    check("%s: %.1f, as the target (%d) to the rounding (%.1f)" % (name, got, want, tol),
          abs(got - want) <= tol, pairs)


def text_step(r):
    return 1.0 if r >= 99.95 else 0.1


doc = json.load(open(d + "/mix.json"))
dur = doc["duration_us"] / 1e6
steps = doc["steps"]
secs = [s["duration_us"] / 1e6 for s in steps]
check("two steps", len(steps) == 2, len(steps))

# JSON: the run, each step, each step's kinds.
for key, what in (("ok_per_s", "ok"), ("failed_per_s", "failed")):
    r = doc["total"].get(key)
    check("JSON total.%s x duration is the target's %s (%d)" % (key, what, truth[what]),
          r is not None and abs(r * dur - truth[what]) <= 0.0005 * dur + 1e-6, (r, dur))
    exact("JSON steps' %s x duration" % key, [(s.get(key), t) for s, t in zip(steps, secs)],
          truth[what])
    kind = "ok" if what == "ok" else "bad"
    other = "bad" if what == "ok" else "ok"
    exact("JSON steps' kind %s %s x duration" % (kind, key),
          [(k.get(key), t) for s, t in zip(steps, secs) for k in s["kinds"] if k["name"] == kind],
          truth[what])
    check("JSON steps' kind %s has no %s" % (other, key),
          all(k.get(key) == 0 for s in steps for k in s["kinds"] if k["name"] == other), steps)
check("JSON keeps req_per_s as every completion",
      abs(doc["total"]["req_per_s"] * dur - ok_n - bad_n) <= 0.0005 * dur + 1e-6,
      doc["total"]["req_per_s"])

# csv-steps: the total lines and the kinds' lines.
rows = list(csv.DictReader(open(d + "/steps.csv")))
for key, what in (("ok_per_s", "ok"), ("failed_per_s", "failed")):
    for kind in ("total", "ok" if what == "ok" else "bad"):
        exact("csv-steps %s %s x duration" % (kind, key),
              [(num(r.get(key)), int(r["duration_us"]) / 1e6) for r in rows if r["kind"] == kind],
              truth[what])

# csv: one row per tick.
ticks = list(csv.DictReader(open(d + "/mix.csv")))
for key, what in (("ok_per_s", "ok"), ("failed_per_s", "failed")):
    exact("csv ticks' %s x duration" % key,
          [(num(r.get(key)), int(r["duration_us"]) / 1e6) for r in ticks], truth[what])

# The text report's first line.
out = open(d + "/mix.out").read()
m = re.search(r"^duration [^,]+, [\d,]+ requests, ok ([\d,.]+) req/s, failed ([\d,.]+)/s, ", out, re.M)
check("text: the first line gives ok req/s and failed/s", m, out[:200])
if m:
    near("text: ok req/s x duration", [(num(m.group(1)), dur)], ok_n, text_step)
    near("text: failed/s x duration", [(num(m.group(2)), dur)], bad_n, text_step)

# The text step table: ok/s and failed/s by their heads.
lines = out.split("\n")
head = next((l for l in lines if l.startswith("  step ")), "")
cols = head.split()
check("text: the step table heads ok/s and failed/s, no req/s",
      "ok/s" in cols and "failed/s" in cols and "req/s" not in cols, head)
if "ok/s" in cols and "failed/s" in cols:
    body = [l.split() for l in lines if re.match(r"^  \d+/\d+ ", l)]
    for key, what in (("ok/s", "ok"), ("failed/s", "failed")):
        near("text step table %s x duration" % key,
             [(num(b[cols.index(key)]), t) for b, t in zip(body, secs)], truth[what], text_step)
    bp = re.search(r"highest step that passed 2 \(c=4, ok ([\d,.]+) req/s", out)
    check("text: the breaking-point line gives step 2's ok/s",
          bp and len(body) == 2 and bp.group(1) == body[1][cols.index("ok/s")], bp)

# The text kinds table.
at = out.find("\nsteps by kind:\n")
klines = out[at:].split("\n")[2:] if at >= 0 else []
khead = out[at:].split("\n")[2].split() if at >= 0 else []
check("text: the kinds table heads ok/s and failed/s", "ok/s" in khead and "failed/s" in khead,
      khead)
if "ok/s" in khead and "failed/s" in khead:
    krows = [l.split() for l in klines[1:] if l.startswith("  c=")]
    sec_of = {s["level"]: t for s, t in zip(steps, secs)}
    for key, what, kind in (("ok/s", "ok", "ok"), ("failed/s", "failed", "bad")):
        near("text kinds table %s %s x duration" % (kind, key),
             [(num(k[khead.index(key)]), sec_of[float(k[0][2:])]) for k in krows if k[1] == kind],
             truth[what], text_step)

# The progress lines: each tick's rates times its length, and the final
# tick's counts.
err = open(d + "/mix.err").read()
prog = re.findall(r"^t=\d+s .* ok (\d+) req/s failed (\d+)/s ", err, re.M)
final = re.search(r"^t=\d+s .* final ok (\d+) failed (\d+) in ", err, re.M)
tick_s = [int(r["duration_us"]) / 1e6 for r in ticks]
check("progress: a line per tick, the last one final", len(prog) + 1 == len(ticks) and final,
      (len(prog), len(ticks)))
if final and len(prog) + 1 == len(ticks):
    for i, what in ((0, "ok"), (1, "failed")):
        pairs = [(float(p[i]), t) for p, t in zip(prog, tick_s)]
        near("progress %s/s x tick, plus the final count" % what,
             pairs + [(float(final.group(i + 1)), 1.0)], truth[what], lambda r: 1.0)

# compare: per level (each step its own level here), both sessions alike.
cmp = open(d + "/mix.cmp").read().split("\n")
ccols = cmp[1].split() if len(cmp) > 1 else []
check("compare heads ok/s and failed/s twice", ccols.count("ok/s") == 2 and
      ccols.count("failed/s") == 2, ccols)
crows = [l.split() for l in cmp if l.startswith("  c=")]
if len(crows) == 2 and ccols.count("ok/s") == 2:
    near("compare ok/s x duration", [(num(r[1]), t) for r, t in zip(crows, secs)], ok_n,
         text_step)
    near("compare failed/s x duration", [(num(r[2]), t) for r, t in zip(crows, secs)], bad_n,
         text_step)


# The HTML page's steps and kinds tables.
class Tables(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.cur, self.cell = {}, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.cur = self.tables.setdefault(a.get("id"), [])
        elif tag == "tr" and self.cur is not None:
            self.cur.append([])
        elif tag in ("td", "th") and self.cur is not None:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.cur[-1].append(self.cell)
            self.cell = None
        elif tag == "table":
            self.cur = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


p = Tables()
p.feed(open(d + "/mix.html").read())
st = p.tables.get("steps", [[]])
check("HTML steps table heads ok/s and failed/s, no req/s",
      "ok/s" in st[0] and "failed/s" in st[0] and "req/s" not in st[0], st[0])
if "ok/s" in st[0] and "failed/s" in st[0]:
    for key, what in (("ok/s", "ok"), ("failed/s", "failed")):
        near("HTML steps table %s x duration" % key,
             [(num(r[st[0].index(key)]), t) for r, t in zip(st[1:], secs)], truth[what],
             text_step)
kt = p.tables.get("kinds", [[]])
check("HTML kinds table heads ok/s and failed/s", "ok/s" in kt[0] and "failed/s" in kt[0], kt[0])
if "ok/s" in kt[0] and "failed/s" in kt[0]:
    byname = {r[0]: r for r in kt[1:]}
    for name, key, what in (("total", "ok/s", "ok"), ("total", "failed/s", "failed"),
                            ("ok", "ok/s", "ok"), ("bad", "failed/s", "failed")):
        r = byname.get(name)
        check("HTML kinds table has %s" % name, r, list(byname))
        if r:
            near("HTML kinds table %s %s x duration" % (name, key),
                 [(num(r[kt[0].index(key)]), dur)], truth[what], text_step)
PY
[ $? -eq 0 ] || echo "FAIL the checks ran to their end: $(tail -n 1 "$tmp/checks")" >>"$tmp/checks"
while IFS= read -r line; do
    case "$line" in
    "ok "*) ok "${line#ok }" ;;
    *) not_ok "${line#FAIL }" ;;
    esac
done <"$tmp/checks"
[ -s "$tmp/checks" ] || not_ok "the checks ran" "$(head -c 300 "$tmp/mix.out")"

stop_target
finish
