#!/bin/sh
# Every figure of brink against brink target's ground truth (GET /_control),
# exactly: for each fault the target injects, at 5% of the requests, on
# both transports over HTTP/1.1, brink's count of the fault's error class
# equals the target's count of the fault done, its request total the
# requests the target received, and no request was sent again (the target
# never closes a kept-alive connection by itself, so a reset is an error,
# never hidden by a send again). Then a target that closes after every
# reply without saying so (close_after_reply): no error, and brink's
# count of requests sent again (closed_idle) equals the requests the target
# received after its FIN. The same over HTTP/2 cleartext (brink target
# --h2c) is test_reconcile_h2c.sh.
# Usage: sh test_reconcile.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup

. "$src/tests/e2e/reconcile_lib.sh"

# reconcile TRANSPORT FAULT CLASS COUNTER [PATH]: FAULT at 5%; brink's
# CLASS count and every error equal the target's COUNTER delta, its
# request total the requests the target received, none sent again.
reconcile() {
    transport=$1 fault=$2 class=$3 counter=$4 path=${5:-/bytes/100}
    name="$transport-$fault"
    control "{\"faults\": {\"$fault\": 0.05}}"
    set -- $(counters "$counter")
    done0=$1 got0=$2
    run "$name" "$transport" "$path" --requests 400
    set -- $(counters "$counter")
    done1=$1 got1=$2
    control "{\"faults\": {\"$fault\": 0}}"
    set -- $(figures "$name" "$class")
    check "[$transport] $fault: 5% of errors fail fail_on's error_rate > 1% (exit 3)" 3 "$status"
    holds "[$transport] $fault: the target did it" "n > 0" -v n=$((done1 - done0))
    check "[$transport] $fault: $class equals the target's $counter" $((done1 - done0)) "$1"
    check "[$transport] $fault: every error is the fault's" "$1" "$2"
    check "[$transport] $fault: requests equal the target's" $((got1 - got0)) "$3"
    check "[$transport] $fault: nothing was sent again" "0 0" "$4 $5"
}

must_start_target --seed 29
control '{"stall_ms": 2000, "drip_interval_ms": 100, "drip_bytes": 10, "huge_header_bytes": 262144}'

for t in h1 curl; do
    reconcile "$t" reset reset resets_sent
    reconcile "$t" close_mid_body closed_early closed_early /bytes/100000
    reconcile "$t" stall timeout stalled
    reconcile "$t" drip timeout dripped
    reconcile "$t" malformed_status malformed malformed_sent
    reconcile "$t" huge_header malformed huge_headers_sent
    reconcile "$t" hostile_header malformed hostile_sent

    # 503 from a full queue: 2 workers of 2 ms each, room for 1 waiting.
    control '{"workers": 2, "queue_max": 1, "service_ms": {"bytes": 2}}'
    set -- $(counters responses_503)
    done0=$1 got0=$2
    run "$t-503" "$t" /bytes/100 --requests 400
    set -- $(counters responses_503)
    done1=$1 got1=$2
    control '{"workers": 64, "queue_max": 1024, "service_ms": {"bytes": 0}}'
    set -- $(figures "$t-503" http_5xx)
    holds "[$t] 503: the queue was full at times" "n > 0" -v n=$((done1 - done0))
    check "[$t] 503: http_5xx equals the target's 503s" $((done1 - done0)) "$1"
    check "[$t] 503: every error is a 503" "$1" "$2"
    check "[$t] 503: requests equal the target's" $((got1 - got0)) "$3"
    check "[$t] 503: nothing was sent again" "0 0" "$4 $5"

    # A server that closes after every reply: every close that crossed a
    # request is sent again and counted, and nothing is an error.
    # Whether a close crosses a request is a race: a run in which none
    # did tests nothing, so up to three runs, until one had some.
    control '{"close_after_reply": true}'
    tries=0
    while :; do
        set -- $(counters requests_after_close)
        crossed0=$1 got0=$2
        run "$t-close" "$t" /bytes/100 --duration 1s
        wait_closed
        set -- $(counters requests_after_close)
        crossed1=$1 got1=$2
        tries=$((tries + 1))
        [ $((crossed1 - crossed0)) -gt 0 ] || [ $tries -ge 3 ] && break
    done
    control '{"close_after_reply": false}'
    set -- $(figures "$t-close" reset)
    check "[$t] close after reply: the run exits 0" 0 "$status"
    check "[$t] close after reply: no error" 0 "$2"
    check "[$t] close after reply: requests equal the target's" $((got1 - got0)) "$3"
    holds "[$t] close after reply: some closes crossed a request" "n > 0" -v n=$((crossed1 - crossed0))
    check "[$t] close after reply: closed_idle equals the requests that crossed a FIN" \
        $((crossed1 - crossed0)) "$4"
    grep -q "sent again: " "$tmp/$t-close.out" && ok "[$t] close after reply: the report says so" ||
        not_ok "[$t] close after reply: the report says so" "$(head -n 12 "$tmp/$t-close.out")"
done

# retry = no: a close that crossed a request is its error, closed_early
# (or broken_pipe when the write failed), and nothing is sent again.
control '{"close_after_reply": true}'
run noretry h1 /bytes/100 --duration 1s --no-retry
control '{"close_after_reply": false}'
set -- $(figures noretry closed_early)
check "--no-retry: nothing is sent again" "0 0" "$4 $5"
holds "--no-retry: the crossed closes are errors" "n > 0" -v n="$2"

# A POST is never sent again unless the file asks for it.
control '{"close_after_reply": true}'
run post h1 /echo --duration 1s --method POST --body x
control '{"close_after_reply": false}'
set -- $(figures post closed_early)
check "POST: nothing is sent again" "0 0" "$4 $5"
holds "POST: a crossed close is an error" "n > 0" -v n="$2"

stop_target
finish
