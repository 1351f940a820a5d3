#!/bin/sh
# test_reconcile.sh over HTTP/2 cleartext (http_version = h2c): every
# figure of brink against brink target's ground truth (GET /_control),
# exactly. brink target serves h2c on a second port (--h2c); each fault is
# done in HTTP/2 terms (docs/target.md, "Faults over HTTP/2") and must
# give the same error class on both transports: for each fault at 5% of
# the requests, brink's count of the class equals the target's count of
# the fault done, every error is the fault's, its request total equals
# the requests the target received, and nothing was sent again (the
# target never refuses a stream here). Then a full queue's 503s, and a
# target that ends every connection with a GOAWAY after its first reply
# (close_after_reply): no error, and brink's count of requests sent again
# (refused_stream) equals the requests the target saw beyond a GOAWAY.
# Usage: sh test_reconcile_h2c.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup

. "$src/tests/e2e/reconcile_lib.sh"

# classes NAME: brink's error classes that are not zero, as CLASS=N.
classes() {
    "$brink" report "$tmp/$1.jsonl" --format json 2>/dev/null | python3 -c '
import json, sys
e = json.load(sys.stdin)["total"]["errors"]
print(" ".join("%s=%d" % (k, v) for k, v in sorted(e.items()) if v))'
}


# reconcile TRANSPORT FAULT CLASS COUNTER [PATH]: FAULT at 5%; brink's
# CLASS count and every error equal the target's COUNTER delta, its
# request total the requests the target received, none sent again.
reconcile() {
    transport=$1 fault=$2 class=$3 counter=$4 path=${5:-/bytes/100}
    name="$transport-$fault"
    control "{\"faults\": {\"$fault\": 0.05}}"
    set -- $(counters "$counter")
    done0=$1 got0=$2
    run "$name" "$transport" "$path" --requests 200
    set -- $(counters "$counter")
    done1=$1 got1=$2
    control "{\"faults\": {\"$fault\": 0}}"
    set -- $(figures "$name" "$class")
    check "[$transport h2c] $fault: 5% of errors fail fail_on's error_rate > 1% (exit 3)" 3 "$status"
    holds "[$transport h2c] $fault: the target did it" "n > 0" -v n=$((done1 - done0))
    check "[$transport h2c] $fault: $class equals the target's $counter" $((done1 - done0)) "$1"
    check "[$transport h2c] $fault: every error is the fault's" "$class=$1" "$(classes "$transport-$fault")"
    check "[$transport h2c] $fault: requests equal the target's" $((got1 - got0)) "$3"
    check "[$transport h2c] $fault: nothing was sent again" "0 0" "$4 $5"
}

start_target --seed 29 --h2c 127.0.0.1:0 ||
    { not_ok "brink target starts" "$(cat "$tmp/target.err")"; finish; exit 1; }
h2c=$(sed -n 's/^h2c: //p' "$tmp/target.out")
run_url=$h2c
run_ini='http_version = h2c
'
[ -n "$h2c" ] || { not_ok "brink target --h2c says its URL" "$(cat "$tmp/target.out" "$tmp/target.err")"; finish; exit 1; }
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
    run "$t-503" "$t" /bytes/100 --requests 200
    set -- $(counters responses_503)
    done1=$1 got1=$2
    control '{"workers": 64, "queue_max": 1024, "service_ms": {"bytes": 0}}'
    set -- $(figures "$t-503" http_5xx)
    holds "[$t h2c] 503: the queue was full at times" "n > 0" -v n=$((done1 - done0))
    check "[$t h2c] 503: http_5xx equals the target's 503s" $((done1 - done0)) "$1"
    check "[$t h2c] 503: every error is a 503" "http_5xx=$1" "$(classes "$t-503")"
    check "[$t h2c] 503: requests equal the target's" $((got1 - got0)) "$3"
    check "[$t h2c] 503: nothing was sent again" "0 0" "$4 $5"

    # close_after_reply: a GOAWAY after each connection's first reply, a
    # FIN once its streams are done, and reading until the client closes.
    # No error; the requests the target saw beyond a GOAWAY are exactly
    # the ones brink sent again (refused_stream).
    control '{"close_after_reply": true}'
    set -- $(counters requests_after_close)
    crossed0=$1 got0=$2
    run "$t-close" "$t" /bytes/100 --duration 1s
    wait_closed
    set -- $(counters requests_after_close closed_after_reply)
    crossed1=$1 goaways=$2 got1=$3
    control '{"close_after_reply": false}'
    set -- $(figures "$t-close" reset)
    check "[$t h2c] close after reply: the run exits 0" 0 "$status"
    holds "[$t h2c] close after reply: the target sent GOAWAYs" "n > 0" -v n="$goaways"
    check "[$t h2c] close after reply: no error" "" "$(classes "$t-close")"
    check "[$t h2c] close after reply: requests equal the target's" $((got1 - got0)) "$3"
    check "[$t h2c] close after reply: requests sent again are those beyond a GOAWAY" \
        $((crossed1 - crossed0)) $(($4 + $5))
done

stop_target
finish
