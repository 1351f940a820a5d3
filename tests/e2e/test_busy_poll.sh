#!/bin/sh
# [load] busy_poll keeps a worker awake after a reply: one user against
# brink target for 2 s, on both transports, without it and with 1ms. Its
# loop then sleeps for ticks only, not once a reply: brink's voluntary
# context switches (/usr/bin/time %w, every thread) fall more than
# fivefold. Either way every request is counted once (the target's own
# count, GET /_control, is the ground truth) and the run ends on time: the
# idle handle that keeps the loop awake does not keep it alive.
# Usage: sh test_busy_poll.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

[ -x /usr/bin/time ] || { echo "FAIL /usr/bin/time missing: run scripts/install-deps"; exit 1; }
target_setup
must_start_target

# served: the requests of /bytes the target has answered so far.
served() {
    truth requests_by_endpoint bytes
}

# busy_run NAME TRANSPORT BUSY_POLL: one user for 2 s; sets vcs (the
# run's voluntary context switches) and checks its count and its end.
busy_run() {
    printf '[target]\nurl = %s/bytes/13\ntransport = %s\n\n[load]\nbusy_poll = %s\n' \
        "$url" "$2" "$3" >"$tmp/$1.ini"
    before=$(served)
    t0=$(now_ms)
    /usr/bin/time -f %w -o "$tmp/$1.time" timeout 60 "$brink" run --headless --no-record \
        --config "$tmp/$1.ini" -c 1 --duration 2s >"$tmp/$1.out" 2>"$tmp/$1.err" </dev/null
    status=$?
    took_ms=$(($(now_ms) - t0))
    vcs=$(tail -n 1 "$tmp/$1.time")
    run_ok "$1"
    check "$1: brink's requests are the ones the target served" \
        $(($(served) - before)) "$(run_requests "$tmp/$1.out")"
    holds "$1: the run of 2 s ends within 8 s" "ms < 8000" -v ms="$took_ms"
}

for transport in h1 curl; do
    busy_run "$transport-plain" "$transport" 0
    plain=$vcs
    busy_run "$transport-busy" "$transport" 1ms
    holds "$transport: busy_poll cuts the context switches more than fivefold" \
        "busy * 5 < plain && plain >= 1000" -v busy="$vcs" -v plain="$plain"
done

stop_target
check "the target stops cleanly" 0 "$stop_status"
finish
