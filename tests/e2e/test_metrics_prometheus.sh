#!/bin/sh
# brink run --metrics-listen scraped by a real Prometheus (issue 19, "Done
# when": Debian's prometheus, started here on 127.0.0.1 with its own config
# and data directory, scrapes the endpoint during a run, and its query API
# returns a request count equal to brink's final report), and two runs in a
# row on the same port kept apart by their run label (issue 31). Against
# brink target on 127.0.0.1:
#   1. Prometheus scrapes 127.0.0.1:PORT every 1 s; once it is ready, a
#      5 s run at c=2 serves there with --metrics-linger 30s (it waits, at
#      most that long, for a scrape of the final figures) and exits 0
#      without saying that no final scrape came
#   2. Prometheus saw the run in progress: brink_ticks_total took more than
#      one value over the scrapes
#   3. /api/v1/query of sum(last_over_time(brink_requests_total{run="s"}[10m]))
#      (s: the run's --record file s.jsonl) is the "requests" of brink report
#      --format json of that session (polled until Prometheus has stored the
#      last scrape, at most 30 s)
#   4. brink_requests_ok_total and the successes' histogram _count agree
#   5. a second run, 2 s at c=1, on the same port right after, recording
#      where it records by default: Prometheus holds two runs, "s" and the
#      name of the file brink sessions lists for the second; each run's
#      series ends at that run's own report (polled as in 3), and no series
#      has a counter reset (resets() over the range is 0; one series for
#      both runs, as before the label, has one)
# Usage: sh test_metrics_prometheus.sh BRINK SRCDIR (fails without prometheus)
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

command -v prometheus >/dev/null 2>&1 || { echo "FAIL prometheus missing: run scripts/install-deps"; exit 1; }

prom_pid=""
target_setup
trap 'if [ -n "$prom_pid" ]; then kill "$prom_pid" 2>/dev/null; wait "$prom_pid" 2>/dev/null; fi; target_cleanup' EXIT

# query EXPR: the value of an instant query, or "" when there is none.
query() {
    curl -s -G "http://127.0.0.1:$prom_port/api/v1/query" --data-urlencode "query=$1" |
        python3 -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "")' 2>/dev/null
}

# await_query QUERY WANT: polls Prometheus (at most 30 s) until QUERY's
# answer is WANT; prints the last answer. Prometheus stores a scrape after
# the body is read, so a run's last figures arrive some time after it ends.
await_query() {
    got=""
    deadline=$(($(now_ms) + 30000))
    while [ "$(now_ms)" -lt "$deadline" ]; do
        got=$(query "$1")
        [ "$got" = "$2" ] && break
        sleep 0.2
    done
    echo "$got"
}

# metrics_run NAME OPTION...: a headless run on the target, exported on the
# metrics port (lingering until a scrape reads its last figures), at most
# 60 s; output in $tmp/NAME.out and .err, exit status in $status.
metrics_run() {
    name=$1
    shift
    timeout 60 "$brink" run --headless --url "$url/bytes/100" --fail-on none \
        --metrics-listen "127.0.0.1:$metrics_port" --metrics-linger 30s "$@" \
        >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    status=$?
}

# report_requests SESSION: the requests of SESSION's JSON report.
report_requests() {
    "$brink" report "$1" --format json |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["total"]["requests"])'
}

must_start_target --listen 127.0.0.1:0

# 1. Prometheus first (ready before the load starts, so it scrapes the run
# in progress), then the run on the port its config names.
metrics_port=$(free_port)
prom_port=$(free_port)
start_prometheus "$metrics_port" "$prom_port"
deadline=$(($(now_ms) + 30000))
# Ready means scraping: the target has been tried once (and found down, as
# nothing serves yet). Prometheus starts its scrape loops some seconds
# after it answers /-/ready.
until curl -sf "http://127.0.0.1:$prom_port/api/v1/targets" 2>/dev/null | grep -q '"health":"down"'; do
    if [ "$(now_ms)" -ge "$deadline" ] || ! kill -0 "$prom_pid" 2>/dev/null; then
        echo "FAIL Prometheus did not scrape within 30 s: $(tail -c 400 "$tmp/prom.log")"
        exit 1
    fi
    sleep 0.1
done

metrics_run run -c 2 --duration 5s --record "$tmp/s.jsonl"
check "the run exits 0" 0 "$status"
check "a scrape read the final figures (no linger notice)" "" \
    "$(grep 'no scrape of the final figures' "$tmp/run.err")"

want=$(report_requests "$tmp/s.jsonl")

# 3. The run's count as Prometheus stored it.
got=$(await_query 'sum(last_over_time(brink_requests_total{run="s"}[10m]))' "$want")
check "Prometheus's request count of run \"s\" is brink's final report ($want)" "$want" "$got"

# 2. Scrapes during the run, not only the last one.
first=$(query 'min_over_time(brink_ticks_total[10m])')
last=$(query 'max_over_time(brink_ticks_total[10m])')
if [ -n "$first" ] && [ -n "$last" ] && [ "$first" -lt "$last" ]; then
    ok "scraped during the run: brink_ticks_total from $first to $last"
else
    not_ok "scraped during the run" "brink_ticks_total from \"$first\" to \"$last\"; $(tail -c 300 "$tmp/prom.log")"
fi

# 4. The counters agree with each other.
check "ok requests equal the histogram's count" \
    "$(query 'sum(last_over_time(brink_requests_ok_total[10m]))')" \
    "$(query 'sum(last_over_time(brink_request_duration_seconds_count[10m]))')"

# 5. A second run on the same port, its session where sessions go by
# default (a folder of its own here).
XDG_STATE_HOME=$tmp/state
export XDG_STATE_HOME
metrics_run run2 -c 1 --duration 2s
check "the second run exits 0" 0 "$status"
session2=$("$brink" sessions "$tmp/state/brink/sessions" |
    awk 'NR > 1 { print $NF }')
run2=$(basename "$session2" .jsonl)
want2=$(report_requests "$session2")
got2=$(await_query "sum(last_over_time(brink_requests_total{run=\"$run2\"}[10m]))" "$want2")
check "the second run's series ends at its own report ($want2, run \"$run2\")" "$want2" "$got2"
runs=$(curl -s -G "http://127.0.0.1:$prom_port/api/v1/query" \
    --data-urlencode 'query=count by (run) (last_over_time(brink_requests_total[10m]))' |
    python3 -c 'import json, sys
print(" ".join(sorted(r["metric"].get("run", "(none)") for r in json.load(sys.stdin)["data"]["result"])))')
check "two runs apart: the --record name and the session brink sessions lists" \
    "$(printf '%s\n%s\n' s "$run2" | sort | tr '\n' ' ' | sed 's/ $//')" "$runs"
check "the first run's series still ends at its report ($want)" "$want" \
    "$(query 'sum(last_over_time(brink_requests_total{run="s"}[10m]))')"
check "no counter reset in any series of requests" 0 \
    "$(query 'sum(resets(brink_requests_total[10m]))')"
check "no counter reset in any series of ticks" 0 "$(query 'sum(resets(brink_ticks_total[10m]))')"

kill -TERM "$prom_pid"
i=0
while kill -0 "$prom_pid" 2>/dev/null && [ $i -lt 200 ]; do
    sleep 0.05
    i=$((i + 1))
done
wait "$prom_pid"
check "Prometheus stops on SIGTERM" 0 $?
prom_pid=""

finish
