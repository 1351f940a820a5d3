# Shared by test_reconcile.sh and test_reconcile_h2c.sh: brink target's
# ground truth (GET /_control) and brink's figures of a recorded run.
# Sourced after lib.sh and target_setup ($tmp and $brink set; $url once
# the target runs). A suite may set run_url (where its runs go, else $url)
# and run_ini (more [target] lines) before its first run.

# control JSON: sets the target's settings (over HTTP/1.1).
control() {
    curl -s -o /dev/null -X POST -d "$1" "$url/_control"
}

# counters KEY...: the ground-truth counters named, and the requests of
# /bytes, on one line (the /_control request itself is in none of them).
counters() {
    curl -s "$url/_control" >"$tmp/truth.json"
    for k in "$@"; do
        sed -n "s/^ *\"$k\": \([0-9]*\).*/\1/p" "$tmp/truth.json" | head -n 1
    done | tr '\n' ' '
    sed -n '/"requests_by_endpoint"/,/}/s/^ *"bytes": \([0-9]*\).*/\1/p' "$tmp/truth.json"
}

# figures NAME CLASS: brink's count of CLASS, all its errors, its request
# total and its requests sent again (closed_idle, refused_stream), from
# the JSON report of the session the run recorded.
figures() {
    "$brink" report "$tmp/$1.jsonl" --format json 2>"$tmp/$1.report.err" | python3 -c '
import json, sys
r = json.load(sys.stdin)
t = r["total"]
print(t["errors"][sys.argv[1]], sum(t["errors"].values()), t["requests"],
      r["resent"]["closed_idle"], r["resent"]["refused_stream"])' "$2"
}

# run NAME TRANSPORT PATH ARGS...: a bounded headless run of 4 users on
# TRANSPORT against run_url (else $url) PATH, recorded in
# $tmp/NAME.jsonl; its exit status in $status.
run() {
    name=$1
    printf '[target]\nurl = %s%s\ntransport = %s\n%stimeout = 400ms\n' "${run_url:-$url}" "$3" "$2" \
        "${run_ini:-}" >"$tmp/$name.ini"
    shift 3
    timeout 60 "$brink" run --headless --config "$tmp/$name.ini" --concurrency 4 \
        --record "$tmp/$name.jsonl" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    status=$?
}

# wait_closed: until the target holds no connection but the one asking
# (at most 5 s): it counts a crossed request when the connection closes.
wait_closed() {
    deadline=$(($(now_ms) + 5000))
    while [ "$(counters active_connections | cut -d' ' -f1)" -gt 1 ] &&
        [ "$(now_ms)" -lt "$deadline" ]; do
        sleep 0.05
    done
}
