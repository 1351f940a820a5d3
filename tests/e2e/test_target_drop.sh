#!/bin/sh
# brink target when the load drops: 250 users, then 25, twenty times on
# each transport. Every run must find the target serving all its
# connections after the drop: in-flight (from the run's session ticks) at
# most 25 by the second tick at 25 users, no request aborted at the end,
# and the target's count of requests served equal to brink's.
# The target takes 1 ms of a worker per /bytes request, so every request is
# suspended and resumed; 250 connections over its two pool threads once
# left one thread's 127 connections unread after the drop (docs/target.md).
# Each step holds two ticks (250 ms: the run's length is no part of what is
# checked). Labelled heavy: 250 users need the release build.
# Usage: sh test_target_drop.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

runs=${BRINK_DROP_RUNS:-20}

target_setup
printf '{"service_ms": {"bytes": 1}, "workers": 64}\n' >"$tmp/target.json"
must_start_target --config "$tmp/target.json"

# after_drop FILE: the in-flight of each running tick of the session FILE
# from the second one at 25 users on, space-separated ("none" when the plan
# never had two ticks there). A tick is one line of flat top-level keys.
after_drop() {
    f=$(grep '^{"type":"tick"' "$1" | grep '"state":"running"' | grep '"target_concurrency":25,' |
        sed -n 's/.*"in_flight":\([0-9]*\).*/\1/p' | tail -n +2 | tr '\n' ' ')
    f=${f% }
    echo "${f:-none}"
}

# bytes_served: the target's count of /bytes requests, read without a python
# start per run (seconds on a busy machine): /_control is pretty-printed,
# one key a line.
bytes_served() {
    curl -s "$url/_control" | awk '/"requests_by_endpoint"/ { in_ep = 1 } in_ep && /"bytes":/ { gsub(/[^0-9]/, ""); print; exit }'
}

for transport in h1 curl; do
    printf '[target]\nurl = %s/bytes/13\ntransport = %s\n\n[load]\ntick = 250ms\n\n[ramp]\nsteps = 250, 25\nhold = 500ms\nwarmup = 0\nstop_when = none\n' \
        "$url" "$transport" >"$tmp/drop.ini"
    bad_flight="" bad_abort="" bad_count="" bad_status=""
    before=$(bytes_served)
    i=0
    while [ $i -lt "$runs" ]; do
        i=$((i + 1))
        rm -f "$tmp/drop.jsonl"
        timeout 60 "$brink" run --headless --ramp --config "$tmp/drop.ini" --record "$tmp/drop.jsonl" \
            </dev/null >"$tmp/drop.out" 2>"$tmp/drop.err"
        st=$?
        after=$(bytes_served)
        served=$((after - before))
        before=$after
        counted=$(sed -n 's/^duration [^,]*, \([0-9,]*\) requests.*/\1/p' "$tmp/drop.out" | tr -d ,)
        flights=$(after_drop "$tmp/drop.jsonl")
        [ "$st" -eq 0 ] || bad_status="$bad_status run $i: exit $st ($(head -c 200 "$tmp/drop.err"));"
        if [ "$flights" = none ] || [ -n "$(echo "$flights" | tr ' ' '\n' | awk '$1 > 25')" ]; then
            bad_flight="$bad_flight run $i: $flights;"
        fi
        grep -q '^dropped 0, aborted at stop 0,' "$tmp/drop.out" ||
            bad_abort="$bad_abort run $i: $(grep -m 1 '^dropped' "$tmp/drop.out");"
        [ "$served" = "$counted" ] && [ "$served" -gt 0 ] ||
            bad_count="$bad_count run $i: target $served, brink ${counted:-none};"
    done
    check "[$transport] $runs drops from 250 to 25 users: every run ends with status 0" "" "$bad_status"
    check "[$transport] in-flight is at most 25 from the second tick at 25 users on" "" "$bad_flight"
    check "[$transport] no run aborts requests at its end" "" "$bad_abort"
    check "[$transport] the target served what brink counted, in every run" "" "$bad_count"
done

stop_target
check "the target stops cleanly" 0 "$stop_status"
finish
