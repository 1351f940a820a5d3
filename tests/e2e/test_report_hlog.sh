#!/bin/sh
# brink report --format hlog read by HdrHistogram's own Java tools (issue 19,
# "Done when": HistogramLogProcessor reads the log and its p99 per interval
# matches brink's within the stored precision). Against brink target on
# 127.0.0.1, a mix of a kind that succeeds and one that fails, 3 s long:
#   1. HistogramLogProcessor (Debian's libhdrhistogram-java, run by a
#      headless JRE) reads the whole log: one interval row per tick, each
#      interval's count equal to the tick's ok count in brink report --format
#      csv
#   2. for each interval alone (-start/-end around its timestamp), its p99
#      (Total_99% of that interval only) is within 1 % (the session's stored
#      precision, +1 µs) of the tick's p99_us in the CSV
#   3. -listtags names the "failed" tag, and -tag failed counts every failed
#      request of the run
#   4. -o OUT writes the same log as stdout; an unwritable -o exits 1 with
#      one line naming it
# Usage: sh test_report_hlog.sh BRINK SRCDIR (fails without java or the jar)
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

jar=/usr/share/java/hdrhistogram.jar
command -v java >/dev/null 2>&1 || { echo "FAIL java missing: run scripts/install-deps"; exit 1; }
[ -r "$jar" ] || { echo "FAIL $jar missing: run scripts/install-deps"; exit 1; }
hlp() {
    java -cp "$jar" org.HdrHistogram.HistogramLogProcessor "$@"
}

target_setup
start_target --listen 127.0.0.1:0 || { echo "FAIL brink target did not start"; exit 1; }
cat >"$tmp/mix.ini" <<EOF
[target]
url = $url
[request ok]
url = /bytes/100
weight = 9
[request bad]
url = /status/500
weight = 1
EOF
timeout 60 "$brink" run --headless --config "$tmp/mix.ini" -c 4 --duration 3s \
    --fail-on none --record "$tmp/s.jsonl" >"$tmp/run.out" 2>"$tmp/run.err" </dev/null
check "the run exits 0" 0 $?
stop_target

"$brink" report "$tmp/s.jsonl" --format hlog >"$tmp/s.hlog"
check "report --format hlog exits 0" 0 $?
"$brink" report "$tmp/s.jsonl" --format csv | tr -d '\r' >"$tmp/s.csv"

# 1. The whole log: one row per tick, each with the tick's ok count.
hlp -i "$tmp/s.hlog" -csv -outputValueUnitRatio 1 -o "$tmp/all" 2>"$tmp/hlp.err"
check "HistogramLogProcessor reads the log" "" "$(head -c 300 "$tmp/hlp.err")"
ticks=$(awk -F, 'NR > 1' "$tmp/s.csv" | wc -l)
want=$(awk -F, 'NR > 1 { print $9 }' "$tmp/s.csv" | tr '\n' ' ')
got=$(awk -F, '/^[0-9]/ { print $2 }' "$tmp/all" | tr '\n' ' ')
check "one interval per tick ($ticks), with its ok count" "$want" "$got"

# 2. Each interval alone: HdrHistogram's p99 against brink's.
i=0
awk -F, 'NR > 1 { print $2, $14 }' "$tmp/s.csv" >"$tmp/p99"
while read -r start_us p99; do
    i=$((i + 1))
    [ -n "$p99" ] || continue
    # The log's timestamps are whole ms; HistogramLogProcessor subtracts the
    # start time in floating point, so the range is 0.4 ms either side.
    from=$(awk -v us="$start_us" 'BEGIN { printf "%.4f", (int((us + 500) / 1000) - 0.4) / 1000 }')
    to=$(awk -v us="$start_us" 'BEGIN { printf "%.4f", (int((us + 500) / 1000) + 0.4) / 1000 }')
    hlp -i "$tmp/s.hlog" -csv -outputValueUnitRatio 1 -start "$from" -end "$to" \
        -o "$tmp/one$i" 2>>"$tmp/hlp.err"
    hdr=$(awk -F, '/^[0-9]/ { v = $9 } END { printf "%d", v }' "$tmp/one$i")
    if awk -v a="$hdr" -v b="$p99" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b / 100 + 1) }'; then
        ok "interval $i: HdrHistogram p99 $hdr us, brink $p99 us"
    else
        not_ok "interval $i: p99 within 1%" "HdrHistogram $hdr us, brink $p99 us"
    fi
done <"$tmp/p99"
check "every tick's p99 compared" "$ticks" "$i"

# 3. The failures, tagged.
hlp -i "$tmp/s.hlog" -listtags >"$tmp/tags" 2>&1
check "the failed tag is listed" "failed" "$(grep -x failed "$tmp/tags")"
hlp -i "$tmp/s.hlog" -csv -outputValueUnitRatio 1 -tag failed -o "$tmp/failed" 2>>"$tmp/hlp.err"
want=$(awk -F, 'NR > 1 { n += $8 - $9 } END { print n }' "$tmp/s.csv")
got=$(awk -F, '/^[0-9]/ { v = $6 } END { print v }' "$tmp/failed")
check "-tag failed counts every failed request ($want)" "$want" "$got"

# 4. -o.
"$brink" report "$tmp/s.jsonl" --format hlog -o "$tmp/out.hlog"
check "-o exits 0" 0 $?
if cmp -s "$tmp/s.hlog" "$tmp/out.hlog"; then ok "-o writes what stdout gets"; else not_ok "-o writes what stdout gets"; fi
expect_run "an unwritable -o is one line, exit 1" 1 "" '^brink: report: -o .*/none/x\.hlog: cannot create: ' -- \
    "$brink" report "$tmp/s.jsonl" --format hlog -o "$tmp/none/x.hlog"

finish
