#!/bin/sh
# Sessions end to end (issue 7, "Done when", end-to-end points): brink run
# records every run; the recording reports, replays and compares; it keeps
# no secret; it survives a full disk, a file size limit, SIGKILL and damage.
# Against brink target on 127.0.0.1; every wait polls a file, a pid or
# capture-pane until a deadline (no bare sleep stands in for a condition)
# and no check asserts a duration.
#   1. a headless run driven through a FIFO on stdin (concurrency 2, then 4,
#      then double to 8, each command written once the progress lines show
#      the previous level held): brink report shows steps: 3, c=2 c=4 c=8,
#      whose requests add up to the report's total
#   2. brink replay --headless: the same progress lines as the live run; the
#      same report, but for the latency percentile rows and the mean and
#      stddev, which come from the recorded histogram (1% buckets,
#      "precision" in the header) rather than the live one, so they may
#      differ by up to 1% (min and max are kept exactly)
#   3. brink replay in a private tmux server: when the header clock shows
#      00:00:02 the throughput line shows the live run's req/s at t=2s
#      (within the console's rounding); q ends it and the report is printed
#   4. brink compare of that run and a shorter one at c=4: both labels, one
#      row per level
#   5. default recording (no [record] dir) goes into
#      $XDG_STATE_HOME/brink/sessions (made 0700; the file 0600), nothing
#      into the working directory, and keeps no secret: a ${ENV} header
#      value and a URL query token appear 0 times in the file
#   6. --record /dev/full: the run goes on, says so once, exits 1, still
#      prints its report; a file size limit (ulimit -f) leaves a cut file
#      that reports (exit 0) and names the line where it ends
#   7. kill -9 after 3 progress lines: the file loses at most one tick
#   8. cut at 5 offsets (line ends and mid-line) and a flipped byte: report
#      and replay --headless exit 0 and name the line; a cut header is
#      refused (exit 1) as not a session, naming its first line, without
#      a crash
#   9. the file is mode 0600; --record on an existing file or a dangling
#      symlink exits 2 with one line and changes nothing
# The loads are bounded (a few seconds each); the script takes about 30 s.
# Usage: sh test_sessions.sh BRINK SRCDIR (fails without tmux)
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

need_tmux
target_setup

sock="brink$$-sessions"
T="tmux -L $sock -f /dev/null"
cleanup_all() {
    exec 3>&- 2>/dev/null
    $T kill-server 2>/dev/null
    target_cleanup
}
trap cleanup_all EXIT
# A command written to the FIFO after brink exited must fail, not kill us.
trap '' PIPE

# rate_at FILE T: the req/s of the first progress line at t=Ts.
rate_at() {
    sed -n "s/^t=$2s .* \\([0-9]*\\) req\\/s .*/\\1/p" "$1" | head -n 1
}

# total_requests FILE: N of the report's first line "duration D, N requests, ...".
total_requests() {
    sed -n '1s/^duration [^,]*, \([0-9,]*\) requests.*/\1/p' "$1" | tr -d ,
}

# no_crash FILE: empty when FILE (a stderr) holds no sanitizer report.
no_crash() {
    grep -E 'Sanitizer|runtime error' "$1" | head -n 1
}

must_start_target --seed 7

# --- 1. a run in three steps, driven through stdin ---------------------------------
# The FIFO is opened for writing (fd 3) after brink's shell opened it for
# reading; each command goes out once the progress lines show the level
# before it held for a tick. stop ends the run once c=8 held two ticks
# (--duration 30s only bounds the load if a wait fails).
run1=$tmp/run1.jsonl
mkfifo "$tmp/cmd1"
"$brink" run --headless --url "$url/bytes/16" --concurrency 2 --duration 30s \
    --record "$run1" <"$tmp/cmd1" >"$tmp/run1.out" 2>"$tmp/run1.err" &
run_pid=$!
exec 3>"$tmp/cmd1"
steps_ok=1
wait_count "$tmp/run1.err" '^t=[0-9]+s c=2 ' 1 20 && echo 'concurrency 4' >&3 || steps_ok=0
wait_count "$tmp/run1.err" '^t=[0-9]+s c=4 ' 1 20 && echo 'double' >&3 || steps_ok=0
wait_count "$tmp/run1.err" '^t=[0-9]+s c=8 ' 1 20 && echo 'mark eight users' >&3 || steps_ok=0
wait_count "$tmp/run1.err" '^t=[0-9]+s c=8 ' 2 20 && echo 'stop' >&3 || steps_ok=0
[ $steps_ok -eq 1 ] || kill "$run_pid" 2>/dev/null
wait "$run_pid"
status=$?
run_pid=""
exec 3>&-
lines1=$(grep -c '^t=' "$tmp/run1.err")
recorded=$(sed -n 's/^brink: run: recorded \([0-9]*\) ticks in .*/\1/p' "$tmp/run1.err")
last=$(tail -n 1 "$tmp/run1.err")
if [ $steps_ok -eq 1 ] && [ $status -eq 0 ] && [ "$last" = "brink: run: recorded $recorded ticks in $run1" ] &&
    [ "$recorded" = "$lines1" ]; then
    ok "run: c=2, concurrency 4, double, stop through a FIFO; exit 0, $lines1 progress lines, last stderr line \"$last\""
else
    not_ok "run in three steps" "steps_ok=$steps_ok status $status, $lines1 progress lines, last line: $last"
fi

"$brink" report "$run1" >"$tmp/rep1.out" 2>"$tmp/rep1.err"
status=$?
total1=$(total_requests "$tmp/rep1.out")
nsteps=$(sed -n 's/^steps: //p' "$tmp/rep1.out")
# The step rows: after "steps: N" and the header row, "  c=L  start  duration  requests ...".
rows=$(sed -n '/^steps: /,$p' "$tmp/rep1.out" | awk '/^  c=/ { r = $4; gsub(",", "", r); printf "%s:%s ", $1, r }' | sed 's/ $//')
levels=$(echo "$rows" | sed 's/:[0-9]*//g; s/ *$//')
sum=$(echo "$rows" | tr ' ' '\n' | awk -F: 'NF == 2 { s += $2 } END { print s + 0 }')
if [ $status -eq 0 ] && [ "$nsteps" = 3 ] && [ "$levels" = "c=2 c=4 c=8" ] && [ "$sum" = "$total1" ] &&
    [ "${total1:-0}" -gt 0 ]; then
    ok "report: steps: 3 ($rows) add up to $sum = the report's $total1 requests"
else
    not_ok "report: steps: 3 adding up" "exit $status, steps: $nsteps, rows: $rows, sum $sum, total $total1; stderr: $(head -c 300 "$tmp/rep1.err")"
fi

# --- 2. headless replay --------------------------------------------------------------
"$brink" replay "$run1" --headless >"$tmp/replay1.out" 2>"$tmp/replay1.err"
status=$?
grep '^t=' "$tmp/run1.err" >"$tmp/live.progress"
grep '^t=' "$tmp/replay1.err" >"$tmp/replay.progress"
n2=$(wc -l <"$tmp/replay.progress")
if [ $status -eq 0 ] && [ "$n2" -gt 0 ] && cmp -s "$tmp/live.progress" "$tmp/replay.progress"; then
    ok "replay --headless: its $n2 progress lines equal the live run's (t=2s: $(rate_at "$tmp/replay.progress" 2) req/s both)"
else
    not_ok "replay --headless progress = live progress" "exit $status; $(diff "$tmp/live.progress" "$tmp/replay.progress" | head -n 6 | tr '\n' '|')"
fi
# The replay's report is the file's report (brink report without the step
# table) exactly, and the live one but for the percentile rows (within 1%).
sed '/^$/,$d' "$tmp/rep1.out" >"$tmp/rep1.head"
sed '/^$/,$d' "$tmp/replay1.out" >"$tmp/replay1.head"
why=$(python3 - "$tmp/run1.out" "$tmp/replay1.out" <<'PY'
import re, sys
unit = {"us": 1, "ms": 1e3, "s": 1e6}
def us(s):
    m = re.fullmatch(r"([0-9.]+)(us|ms|s)", s)
    return float(m.group(1)) * unit[m.group(2)]
def close(x, y):
    # within 1% (the recorded buckets) plus one unit of the last printed
    # digit of either (three significant digits: 38us, 3.88ms)
    def ulp(s):
        m = re.fullmatch(r"[0-9]+(?:\.([0-9]+))?(us|ms|s)", s)
        return 10.0 ** -len(m.group(1) or "") * unit[m.group(2)]
    return abs(us(x) - us(y)) <= 0.01 * max(us(x), us(y)) + max(ulp(x), ulp(y))
live, rep = (open(p).read().splitlines() for p in sys.argv[1:3])
if len(live) != len(rep):
    print("live report has %d lines, replay %d" % (len(live), len(rep)))
    sys.exit()
worst = 0.0
for a, b in zip(live, rep):
    pa = re.fullmatch(r" *([0-9.]+%) +(\S+)", a)
    pb = re.fullmatch(r" *([0-9.]+%) +(\S+)", b)
    if pa and pb and pa.group(1) == pb.group(1):
        x, y = us(pa.group(2)), us(pb.group(2))
        worst = max(worst, abs(x - y) / max(x, 1))
        if not close(pa.group(2), pb.group(2)):
            print("%s: live %s, replay %s" % (pa.group(1), pa.group(2), pb.group(2)))
            sys.exit()
        continue
    sa = re.fullmatch(r"latency min (\S+), mean (\S+), max (\S+), stddev (\S+)", a)
    sb = re.fullmatch(r"latency min (\S+), mean (\S+), max (\S+), stddev (\S+)", b)
    if sa and sb and sa.group(1, 3) == sb.group(1, 3):
        # min and max are kept exactly; mean and stddev come from the buckets
        for x, y in ((sa.group(2), sb.group(2)), (sa.group(4), sb.group(4))):
            worst = max(worst, abs(us(x) - us(y)) / max(us(x), 1))
            if not close(x, y):
                print("live %r, replay %r" % (a, b))
                sys.exit()
        continue
    # A step table row: its latency cells within 1%, every other cell equal.
    ca, cb = a.split(), b.split()
    if a.startswith("  ") and len(ca) == len(cb) and len(ca) > 1:
        for x, y in zip(ca, cb):
            if x == y:
                continue
            if re.fullmatch(r"[0-9.]+(us|ms|s)", x) and re.fullmatch(r"[0-9.]+(us|ms|s)", y) \
                    and close(x, y):
                worst = max(worst, abs(us(x) - us(y)) / max(us(x), 1))
                continue
            print("live %r, replay %r" % (a, b))
            sys.exit()
    elif a != b:
        print("live %r, replay %r" % (a, b))
        sys.exit()
print("OK %d lines, percentiles, mean and stddev within %.2f%%" % (len(live), worst * 100))
PY
)
case $why in
"OK "*)
    if cmp -s "$tmp/rep1.head" "$tmp/replay1.head"; then
        ok "replay --headless report = brink report's ($(wc -l <"$tmp/replay1.head") lines) and = the live report: ${why#OK }"
    else
        not_ok "replay report = brink report" "$(diff "$tmp/rep1.head" "$tmp/replay1.head" | head -n 4 | tr '\n' '|')"
    fi
    ;;
*) not_ok "replay --headless report = live report" "$why" ;;
esac

# --- 3. replay in the console ---------------------------------------------------------
# The pane runs brink replay on its tty and writes its exit status; the pane
# stays after brink exits (remain-on-exit) so the report can be read.
cat >"$tmp/pane.sh" <<'EOF'
"$1" replay "$2"
echo $? >"$3"
EOF
$T new-session -d -s s -x 100 -y 40 "sh $tmp/pane.sh '$brink' '$run1' $tmp/tmux.status" \; \
    set -g remain-on-exit on \; set -g window-size manual
deadline=$(($(now_ms) + 15000))
clock=""
while [ "$(now_ms)" -lt "$deadline" ]; do
    $T capture-pane -p >"$tmp/cap" 2>/dev/null
    if head -n 1 "$tmp/cap" | grep -Eq ' 00:00:02 *$'; then clock=00:00:02; break; fi
    sleep 0.05
done
shown=$(grep -Eo '^ok [0-9.]+k? req/s' "$tmp/cap" | head -n 1 | sed 's/^ok //; s/ req\/s//')
live2=$(rate_at "$tmp/live.progress" 2)
# 12.3k is 12300 +- 50; below 10000 the console prints whole numbers.
if [ -n "$clock" ] && [ -n "$shown" ] && awk -v s="$shown" -v l="$live2" 'BEGIN {
        tol = 0.5; if (s ~ /k$/) { sub(/k$/, "", s); s *= 1000; tol = 50 }
        d = s - l; if (d < 0) d = -d; exit !(d <= tol) }'; then
    ok "replay console: header clock 00:00:02, throughput $shown req/s, live t=2s $live2 req/s"
else
    not_ok "replay console shows the live req/s at 00:00:02" "clock ${clock:-never 00:00:02}, shown '$shown', live $live2; capture: $(head -n 5 "$tmp/cap" | tr '\n' '|')"
fi
$T send-keys q
deadline=$(($(now_ms) + 10000))
while [ ! -s "$tmp/tmux.status" ] && [ "$(now_ms)" -lt "$deadline" ]; do
    sleep 0.05
done
$T capture-pane -p -S - >"$tmp/cap.end" 2>/dev/null
first=$(head -n 1 "$tmp/rep1.head")
if [ "$(cat "$tmp/tmux.status" 2>/dev/null)" = 0 ] && grep -Fxq -- "$first" "$tmp/cap.end"; then
    ok "replay console: q exits 0 and prints the report (\"$first\")"
else
    not_ok "replay console: q ends it with the report" "status '$(cat "$tmp/tmux.status" 2>/dev/null)'; pane: $(tail -n 8 "$tmp/cap.end" | tr '\n' '|')"
fi
$T kill-server 2>/dev/null

# --- 4. compare ---------------------------------------------------------------------
run2=$tmp/run2.jsonl
"$brink" run --headless --url "$url/bytes/16" --concurrency 4 --duration 2s --record "$run2" \
    </dev/null >"$tmp/run2.out" 2>"$tmp/run2.err"
status=$?
"$brink" compare "$run1" "$run2" --label main --label feature >"$tmp/cmp.out" 2>"$tmp/cmp.err"
cstatus=$?
labels=$(head -n 1 "$tmp/cmp.out" | awk '{ print $1, $2 }')
# Fields after the level: 5 per session that held it (ok/s failed/s p50 p99
# errors).
shape=$(awk '/^  c=/ { printf "%s:%d ", $1, (NF - 1) / 5 }' "$tmp/cmp.out" | sed 's/ $//')
if [ $status -eq 0 ] && [ $cstatus -eq 0 ] && [ "$labels" = "main feature" ] &&
    [ "$shape" = "c=2:1 c=4:2 c=8:1" ]; then
    ok "compare: labels main and feature, rows $(awk '/^  c=/ { printf "%s %s/%s; ", $1, $2, ($7 == "" ? "-" : $7) }' "$tmp/cmp.out")(c=4 in both)"
else
    not_ok "compare prints both sessions" "run exit $status, compare exit $cstatus, labels '$labels', rows '$shape'; $(head -c 300 "$tmp/cmp.err")"
fi

# --- 5. secrets, default recording into the state directory ---------------------------
canary1=canaryTOKEN$$x
canary2=CANARY2q$$z
mkdir "$tmp/cwd"
cat >"$tmp/cwd/secret.ini" <<INI
[target]
url = $url
header = Authorization: Bearer \${BRINK_TEST_TOKEN}

[load]
concurrency = 2
duration = 2s

[request get]
url = /bytes/16?token=$canary2
INI
chmod 600 "$tmp/cwd/secret.ini"
(cd "$tmp/cwd" && BRINK_TEST_TOKEN=$canary1 XDG_STATE_HOME="$tmp/state" "$brink" run --headless \
    --config secret.ini </dev/null >secret.out 2>secret.err)
status=$?
spath=$(sed -n 's/^brink: run: recorded [0-9]* ticks in //p' "$tmp/cwd/secret.err")
sfile=$spath
req=$(total_requests "$tmp/cwd/secret.out")
c1=$(grep -c -- "$canary1" "$sfile" 2>/dev/null)
c2=$(grep -c -- "$canary2" "$sfile" 2>/dev/null)
mode=$(stat -c %a "$sfile" 2>/dev/null)
dmode=$(stat -c %a "$tmp/state/brink/sessions" 2>/dev/null)
case $spath in "$tmp/state/brink/sessions/"*.jsonl) in_dir=1 ;; *) in_dir=0 ;; esac
if [ $status -eq 0 ] && [ $in_dir -eq 1 ] && [ "$mode" = 600 ] && [ "$dmode" = 700 ] && [ "${req:-0}" -gt 0 ]; then
    ok "default recording: $spath, mode $mode (folder $dmode), $req requests"
else
    not_ok "default recording into \$XDG_STATE_HOME/brink/sessions" "exit $status, path '$spath', mode '$mode', folder '$dmode', requests '$req'; $(tail -n 2 "$tmp/cwd/secret.err")"
fi
check "nothing recorded into the working directory" "secret.err secret.ini secret.out" "$(ls "$tmp/cwd" | tr '\n' ' ' | sed 's/ $//')"
expect_run "brink sessions finds it in the state directory" 0 "$tmp/state/brink/sessions/.*\\.jsonl\$" "*" -- \
    env XDG_STATE_HOME="$tmp/state" "$brink" sessions
expect_run "report last reads it" 0 '^duration ' "*" -- env XDG_STATE_HOME="$tmp/state" "$brink" report last
# A state directory that cannot be made: one line, and no run.
printf x >"$tmp/notadir"
expect_run "a state directory that cannot be made is one line" 2 "*" \
    "^brink: run: recording: $tmp/notadir/brink/sessions: cannot create it: Not a directory \\(--no-record runs without a recording\\)\$" -- \
    env XDG_STATE_HOME="$tmp/notadir" "$brink" run --headless -n 1 "$url/bytes/1"
if [ "$c1" = 0 ] && [ "$c2" = 0 ]; then
    ok "secrets: \${BRINK_TEST_TOKEN} canary 0 times, ?token= canary 0 times in the file ($(wc -c <"$sfile") bytes)"
else
    not_ok "secrets stay out of the file" "env canary $c1 times, URL canary $c2 times"
fi

# --- 6. disk full, file size limit ----------------------------------------------------
"$brink" run --headless --url "$url/bytes/16" --concurrency 2 --duration 2s --record /dev/full \
    </dev/null >"$tmp/full.out" 2>"$tmp/full.err"
status=$?
stopped=$(grep -c '^brink: run: recording stopped: .*; the run goes on$' "$tmp/full.err")
last=$(tail -n 1 "$tmp/full.err")
req=$(total_requests "$tmp/full.out")
ticks=$(grep -c '^t=' "$tmp/full.err")
if [ $status -eq 1 ] && [ "$stopped" = 1 ] && [ "${req:-0}" -gt 0 ] && grep -q '^t=2s ' "$tmp/full.err" &&
    case $last in "brink: run: the recording /dev/full is incomplete: "*) true ;; *) false ;; esac; then
    ok "--record /dev/full: exit 1, \"recording stopped\" once, the run went on to t=2s ($ticks ticks, $req requests, report on stdout), last line \"$last\""
else
    not_ok "--record /dev/full" "exit $status, stopped $stopped times, requests '$req', last: $last"
fi

# dash's ulimit -f counts 512-byte blocks: 6 is 3 KiB, the header (about
# 600 bytes) and at most one tick (1.5 to 3 KiB each) of the three or more.
lim=$tmp/limit.jsonl
(ulimit -f 6 && exec "$brink" run --headless --url "$url/bytes/16" --concurrency 2 --duration 3s \
    --record "$lim" </dev/null >"$tmp/lim.out" 2>"$tmp/lim.err")
status=$?
size=$(wc -c <"$lim")
"$brink" report "$lim" >"$tmp/limrep.out" 2>"$tmp/limrep.err"
rstatus=$?
where=$(grep -o 'recording ends abruptly at line [0-9]* (t=[0-9.]* s)[^(]*' "$tmp/limrep.err" | head -n 1 | sed 's/ *$//')
if [ $status -eq 1 ] && grep -q '^brink: run: the recording .* is incomplete: .*File too large' "$tmp/lim.err" &&
    [ "$size" -le 3072 ] && [ $rstatus -eq 0 ] && [ -n "$where" ]; then
    ok "ulimit -f 3 KiB: run exit 1 (File too large), $size bytes kept; report exit 0: \"$where\""
else
    not_ok "file size limit" "run exit $status, $size bytes, report exit $rstatus; run: $(grep -v '^t=' "$tmp/lim.err" | tail -n 2 | tr '\n' '|') report: $(head -c 200 "$tmp/limrep.err")"
fi

# --- 7. SIGKILL -----------------------------------------------------------------------
kfile=$tmp/killed.jsonl
"$brink" run --headless --url "$url/bytes/16" --concurrency 2 --duration 30s --record "$kfile" \
    </dev/null >"$tmp/kill.out" 2>"$tmp/kill.err" &
run_pid=$!
if wait_count "$tmp/kill.err" '^t=' 3 20; then
    kill -9 "$run_pid"
    wait "$run_pid" 2>/dev/null
    run_pid=""
    seen=$(grep -c '^t=' "$tmp/kill.err")
    "$brink" report "$kfile" >"$tmp/kill.rep" 2>"$tmp/kill.rep.err"
    rstatus=$?
    # The csv has a header row and one row per tick.
    kticks=$(($("$brink" report "$kfile" --format csv 2>/dev/null | wc -l) - 1))
    if [ $rstatus -eq 0 ] && [ "$kticks" -ge $((seen - 1)) ] && grep -q 'no trailer' "$tmp/kill.rep.err"; then
        ok "kill -9 after $seen progress lines: report exit 0, $kticks ticks in the file (>= $((seen - 1))), \"no trailer\" notice"
    else
        not_ok "kill -9 loses at most one tick" "report exit $rstatus, $kticks ticks for $seen lines; $(head -c 200 "$tmp/kill.rep.err")"
    fi
else
    not_ok "kill -9 loses at most one tick" "fewer than 3 progress lines: $(tail -n 2 "$tmp/kill.err")"
    kill -9 "$run_pid" 2>/dev/null
    wait "$run_pid" 2>/dev/null
    run_pid=""
fi

# --- 8. damaged files -----------------------------------------------------------------
# Offsets in run1's file: the end of line 1 (the header), the middle of line
# 2, the end of line 3, the middle of the last tick, 10 bytes before the end
# (inside the trailer).
offsets=$(awk '{ n += length($0) + 1; end[NR] = n; len[NR] = length($0) }
    END { printf "%d %d %d %d %d", end[1], end[1] + int(len[2] / 2), end[3],
          end[NR - 2] + int(len[NR - 1] / 2), n - 10 }' "$run1")
bad=""
seen_lines=""
damaged() { # damaged FILE WHAT
    "$brink" report "$1" >/dev/null 2>"$tmp/d1.err"
    s1=$?
    "$brink" replay "$1" --headless >/dev/null 2>"$tmp/d2.err"
    s2=$?
    l1=$(grep -Eo 'line [0-9]+' "$tmp/d1.err" | head -n 1)
    l2=$(grep -Eo 'line [0-9]+' "$tmp/d2.err" | head -n 1)
    if [ $s1 -ne 0 ] || [ $s2 -ne 0 ] || [ -z "$l1" ] || [ -z "$l2" ] ||
        [ -n "$(no_crash "$tmp/d1.err")$(no_crash "$tmp/d2.err")" ]; then
        bad="$bad $2: report $s1 replay $s2 '$(grep -v '^t=' "$tmp/d1.err" | head -c 150)';"
    fi
    seen_lines="$seen_lines $2->$l1,"
}
for off in $offsets; do
    head -c "$off" "$run1" >"$tmp/cut.jsonl"
    damaged "$tmp/cut.jsonl" "cut@$off"
done
# The first ':' after the middle of line 3 made a '{': that line no longer
# parses. (A byte flipped inside a key or a string could leave valid JSON
# with an unknown key, which a reader ignores by design.)
python3 - "$run1" "$tmp/flip.jsonl" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
lines = d.split(b"\n")
at = d.index(b":", len(lines[0]) + 1 + len(lines[1]) + 1 + len(lines[2]) // 2)
d[at] = ord("{")
open(sys.argv[2], "wb").write(d)
PY
damaged "$tmp/flip.jsonl" "flip@line3"
if [ -z "$bad" ]; then
    ok "damaged files: report and replay --headless exit 0 and name the line:${seen_lines%,}"
else
    not_ok "damaged files read up to the damage" "$bad"
fi
head -c 100 "$run1" >"$tmp/cuthead.jsonl"
"$brink" report "$tmp/cuthead.jsonl" >/dev/null 2>"$tmp/h.err"
s1=$?
if [ $s1 -eq 1 ] && grep -q ': not a brink session: its first line is not a header' "$tmp/h.err" &&
    [ -z "$(no_crash "$tmp/h.err")" ]; then
    ok "header cut at 100 bytes: report exit 1 naming its first line ($(head -n 1 "$tmp/h.err" | cut -c 1-60)...)"
else
    not_ok "header cut" "exit $s1: $(head -c 200 "$tmp/h.err")"
fi

# --- 9. mode 0600, never overwritten ----------------------------------------------------
mode=$(stat -c %a "$run1")
before=$(cksum <"$run1")
"$brink" run --headless --url "$url/bytes/16" --duration 1s --record "$run1" </dev/null \
    >"$tmp/ow.out" 2>"$tmp/ow.err"
status=$?
after=$(cksum <"$run1")
nerr=$(wc -l <"$tmp/ow.err")
ln -s "$tmp/nowhere.jsonl" "$tmp/link.jsonl"
"$brink" run --headless --url "$url/bytes/16" --duration 1s --record "$tmp/link.jsonl" </dev/null \
    >/dev/null 2>"$tmp/link.err"
lstatus=$?
if [ "$mode" = 600 ] && [ $status -eq 2 ] && [ "$nerr" = 1 ] && grep -q 'exists' "$tmp/ow.err" &&
    [ "$before" = "$after" ] && [ $lstatus -eq 2 ] && [ ! -e "$tmp/nowhere.jsonl" ]; then
    ok "recording mode $mode; --record EXISTING: exit 2, 1 line, file unchanged (cksum ${after% *}); dangling symlink: exit 2, nothing created"
else
    not_ok "mode 0600 and never overwritten" "mode $mode, exit $status ($nerr lines: $(head -c 200 "$tmp/ow.err")), changed: $([ "$before" = "$after" ] && echo no || echo yes), symlink exit $lstatus"
fi

finish
