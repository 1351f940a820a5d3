#!/bin/sh
# brink run --metrics-listen without a Prometheus server (the real one is
# test_metrics_prometheus.sh): the endpoint read with curl and checked with
# promtool, Prometheus's own linter of the text format. Against brink target
# on 127.0.0.1:
#   1. usage: a bad ADDR:PORT and a bad --metrics-linger exit 2 with one
#      line naming the value; --metrics-linger alone exits 2; a port already
#      taken exits 1 naming it, and no load starts
#   2. a 3 s run of two request kinds scraped every 0.2 s with
#      --metrics-linger 20s: every scrape passes promtool check metrics,
#      with a sample per kind (names with characters outside [a-z] are
#      escaped by the unit test test_expo: the config refuses them), each
#      sample labelled run="s", the name of its session file s.jsonl; the
#      run exits 0 as soon as a scrape read the final
#      figures (no linger notice), and that scrape's requests add up to
#      brink report --format json's total
#   3. the histogram's buckets never decrease and end at _count
#   4. POST is 405, another path 404; a run not recording is labelled with
#      the name its session would have had: TIME-HOST-PID, its own pid
#   5. --metrics-linger 1s with nobody scraping: the run says so in one
#      line and still exits 0
# Usage: sh test_metrics.sh BRINK SRCDIR (fails without promtool)
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

command -v promtool >/dev/null 2>&1 || { echo "FAIL promtool missing (Debian's prometheus): run scripts/install-deps"; exit 1; }

target_setup
start_target --listen 127.0.0.1:0 || { echo "FAIL brink target did not start"; exit 1; }
target_port=${url##*:}

# 1. Usage.
expect_run "a bad --metrics-listen exits 2" 2 "" \
    '^brink: --metrics-listen: expected ADDR:PORT such as 127.0.0.1:9464 or \[::1\]:9464, got "nine"$' -- \
    "$brink" run --headless --url "$url/" -n 1 --no-record --metrics-listen nine
expect_run "a bad --metrics-linger exits 2" 2 "" '^brink: run: --metrics-linger: ' -- \
    "$brink" run --headless --url "$url/" -n 1 --no-record --metrics-listen 127.0.0.1:0 \
    --metrics-linger soon
expect_run "--metrics-linger alone exits 2" 2 "" '^brink: run: --metrics-linger needs --metrics-listen' -- \
    "$brink" run --headless --url "$url/" -n 1 --no-record --metrics-linger 5s
expect_run "a port in use exits 1" 1 "" \
    "^brink: --metrics-listen: 127.0.0.1:$target_port: Address already in use\$" -- \
    "$brink" run --headless --url "$url/" -n 1 --no-record --metrics-listen "127.0.0.1:$target_port"

# 2. A live run, scraped until it ends.
cat >"$tmp/mix.ini" <<EOF
[target]
url = $url
[request plain]
url = /bytes/100
[request get.v2-b]
url = /bytes/200
EOF
"$brink" run --headless --config "$tmp/mix.ini" -c 2 --duration 3s --fail-on none \
    --metrics-listen 127.0.0.1:0 --metrics-linger 20s --record "$tmp/s.jsonl" \
    >"$tmp/run.out" 2>"$tmp/run.err" </dev/null &
run_pid=$!
metrics=""
deadline=$(($(now_ms) + 10000))
while [ -z "$metrics" ] && [ "$(now_ms)" -lt "$deadline" ]; do
    metrics=$(sed -n 's|^brink: run: metrics at \(http://127.0.0.1:[0-9]*/metrics\)$|\1|p' "$tmp/run.err")
    sleep 0.05
done
[ -n "$metrics" ] || { echo "FAIL no metrics address: $(head -c 300 "$tmp/run.err")"; exit 1; }
scrapes=0 lint_failed=0
deadline=$(($(now_ms) + 40000))
while kill -0 "$run_pid" 2>/dev/null && [ "$(now_ms)" -lt "$deadline" ]; do
    if curl -sf "$metrics" >"$tmp/scrape.new" 2>/dev/null; then
        scrapes=$((scrapes + 1))
        mv "$tmp/scrape.new" "$tmp/scrape"
        promtool check metrics <"$tmp/scrape" >"$tmp/lint" 2>&1 || lint_failed=$((lint_failed + 1))
    fi
    sleep 0.2
done
wait "$run_pid"
check "the run exits 0 once scraped" 0 $?
run_pid=""
check "no linger notice" "" "$(grep 'no scrape' "$tmp/run.err")"
check "every scrape ($scrapes) passes promtool check metrics" 0 "$lint_failed"
[ "$lint_failed" -eq 0 ] || cat "$tmp/lint"
check "a sample per kind" "get.v2-b plain" \
    "$(sed -n 's/^brink_requests_total{run="s",kind="\([^"]*\)"} [0-9][0-9]*$/\1/p' "$tmp/scrape" | sort | tr '\n' ' ' | sed 's/ $//')"
check "every sample is labelled run=\"s\" (the session s.jsonl)" "" \
    "$(grep -v '^#' "$tmp/scrape" | grep -v '^[a-z_]*{run="s"[,}]' | head -n 3)"
want=$("$brink" report "$tmp/s.jsonl" --format json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["total"]["requests"])')
got=$(awk '/^brink_requests_total\{/ { n += $2 } END { print n }' "$tmp/scrape")
check "the last scrape's requests are the report's ($want)" "$want" "$got"

# 3. Buckets are cumulative and end at _count.
bad=$(awk '
    /^brink_request_duration_seconds_bucket\{/ {
        k = $1; sub(/,le=.*/, "", k)
        if (k == last && $2 < prev) print "decreasing: " $0
        last = k; prev = $2
        if ($1 ~ /le="\+Inf"/) inf[k] = $2
    }
    /^brink_request_duration_seconds_count\{/ {
        k = $1; sub(/_count/, "_bucket", k); sub(/\}$/, "", k)
        if (inf[k] != $2) print "+Inf " inf[k] " != count " $2
    }' "$tmp/scrape")
check "buckets never decrease and end at _count" "" "$bad"

# 4. Other methods and paths (a new run: the first one has ended).
"$brink" run --headless --url "$url/bytes/10" -c 1 --duration 20s --no-record \
    --metrics-listen 127.0.0.1:0 >"$tmp/run2.out" 2>"$tmp/run2.err" </dev/null &
run_pid=$!
metrics=""
deadline=$(($(now_ms) + 10000))
while [ -z "$metrics" ] && [ "$(now_ms)" -lt "$deadline" ]; do
    metrics=$(sed -n 's|^brink: run: metrics at \(http://127.0.0.1:[0-9]*\)/metrics$|\1|p' "$tmp/run2.err")
    sleep 0.05
done
check "POST is 405" 405 "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$metrics/metrics")"
check "another path is 404" 404 "$(curl -s -o /dev/null -w '%{http_code}' "$metrics/")"
check "the content type is the text format's" "text/plain; version=0.0.4; charset=utf-8" \
    "$(curl -s -o /dev/null -w '%{content_type}' "$metrics/metrics")"
run_label=$(curl -s "$metrics/metrics" | sed -n 's/^brink_ticks_total{run="\([^"]*\)"} [0-9]*$/\1/p')
if printf '%s\n' "$run_label" | grep -Eq "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}Z-[A-Za-z0-9._-]+-$run_pid\$"; then
    ok "not recording, the run label is TIME-HOST-PID ($run_label)"
else
    not_ok "not recording, the run label is TIME-HOST-PID" "got \"$run_label\", pid $run_pid"
fi
kill -INT "$run_pid"
wait "$run_pid"
run_pid=""

# 5. Nobody scrapes the end.
expect_run "an unscraped end is one line, exit 0" 0 "*" \
    '^brink: run: --metrics-linger: no scrape of the final figures within 1\.00s$' -- \
    "$brink" run --headless --url "$url/bytes/10" -n 20 --no-record \
    --metrics-listen 127.0.0.1:0 --metrics-linger 1s

finish
