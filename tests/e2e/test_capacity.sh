#!/bin/sh
# The Universal Scalability Law fitted to a staircase, against brink target
# of known law (docs/target.md, contention): sigma 0.05, kappa 0.001, 20 ms
# a request, so the peak is at N* = sqrt(0.95 / 0.001) = 30.8 users. A ramp
# of 8 levels from 1 to 64 users on each transport: the fitted sigma and
# kappa within 20% of the law's, N* within 15%, said at the ramp's end, in
# the report's text and in its JSON (capacity.usl), and the requests the fit
# counts are the ones the target served (its /_control). With kappa 0 the
# fit says there is no peak and the ceiling lambda / sigma (1,000 req/s).
# Each staircase is 2 s a level (ticks of 250 ms: a warm-up of 500 ms,
# a hold of 1.5 s, which halves the noise of 750 ms in the fitted
# figures): 8 levels twice and 6 for Amdahl, about 45 s in all.
# Usage: sh test_capacity.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup
. "$src/tests/e2e/reconcile_lib.sh"
. "$src/tests/e2e/transport_lib.sh"

# 128 workers: the pool is never the limit, the law is.
must_start_target
control '{"workers": 128, "service_ms": {"bytes": 20}, "contention": {"sigma": 0.05, "kappa": 0.001}}'

# staircase NAME TRANSPORT LEVELS: the ramp, recorded in $tmp/NAME.jsonl;
# its exit status in $status.
staircase() {
    cat >"$tmp/$1.ini" <<INI
[target]
url = $url/bytes/100
transport = $2

[load]
tick = 250ms

[ramp]
steps = $3
warmup = 500ms
hold = 1500ms
stop_when = error_rate > 1%
INI
    timeout 60 "$brink" run --headless --config "$tmp/$1.ini" --ramp --duration 40s \
        --record "$tmp/$1.jsonl" >"$tmp/$1.out" 2>"$tmp/$1.err" </dev/null
    status=$?
}

# usl NAME: the report's capacity.usl figures, one line: sigma kappa
# peak_users ceiling lambda requests ("null" for what the fit has not).
usl() {
    "$brink" report "$tmp/$1.jsonl" --format json | python3 -c '
import json, sys
r = json.load(sys.stdin)
u = r["capacity"]["usl"] or {}
print(*[u.get(k) for k in ("sigma", "kappa", "peak_users", "ceiling", "lambda")],
      r["total"]["requests"])'
}

for transport in $transports; do
    set -- $(counters requests_total)
    before=$2
    staircase "$transport" "$transport" "1, 2, 4, 8, 16, 32, 48, 64"
    check "a staircase of 8 levels passes them all" 0 "$status"
    set -- $(counters requests_total)
    set -- $(usl "$transport") $(($2 - before))
    check "the requests the fit counts are the ones the target served" "$7" "$6"
    holds "sigma $1 within 20% of 0.05" "s >= 0.04 && s <= 0.06" -v s="$1"
    holds "kappa $2 within 20% of 0.001" "k >= 0.0008 && k <= 0.0012" -v k="$2"
    holds "N* $3 within 15% of 30.8" "n >= 26.2 && n <= 35.4" -v n="$3"
    grep -q '^capacity: USL fit: sigma .*steps[^)]*): peak c=[0-9]* at [0-9]* req/s$' "$tmp/$transport.out" &&
        ok "the report says the fit under the step table" ||
        not_ok "the report says the fit under the step table" "$(grep capacity "$tmp/$transport.out")"
    grep -q 'detection: capacity: USL fit: sigma .*steps[^)]*): peak c=' "$tmp/$transport.err" &&
        ok "the ramp's end says it" ||
        not_ok "the ramp's end says it" "$(grep -E 'ramp done|capacity' "$tmp/$transport.err")"
done

# Amdahl's law: no coherency, no peak; the ceiling lambda / sigma.
transport=h1
control '{"contention": {"kappa": 0}}'
staircase amdahl h1 "1, 2, 4, 16, 32, 64"
check "kappa 0: the staircase passes" 0 "$status"
set -- $(usl amdahl)
check "kappa 0: the fit has no coherency and no peak" "0 None" "$2 $3"
holds "kappa 0: the ceiling $4 is lambda / sigma ($5 / $1)" "c > 0 && (c - l / s) ^ 2 < 1" -v c="$4" -v l="$5" -v s="$1"
holds "kappa 0: the ceiling $4 within 20% of 1,000 req/s" "c >= 800 && c <= 1200" -v c="$4"
grep -q '^capacity: USL fit: sigma [0-9.]*, kappa 0, .*: no peak (kappa 0): ceiling [0-9]* req/s$' "$tmp/amdahl.out" &&
    ok "kappa 0: the report says no peak, and the ceiling" ||
    not_ok "kappa 0: the report says no peak, and the ceiling" "$(grep capacity "$tmp/amdahl.out")"

finish
