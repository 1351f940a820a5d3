#!/bin/sh
# What a scenario script costs per request (issue 18): brink's h1 transport
# loading nginx on loopback at c = 64, once as a plain run (GET the URL) and
# once with a script doing one GET of the same URL per iteration (the reply's
# body and headers handed to Lua), alternating, three repetitions each.
# Figures only: it asserts nothing and exits 0 once the table is printed (1
# only when it cannot set up: no binary, no nginx, one core).
#
# Setup: nginx from Debian, one worker pinned to core 0, serving a 13-byte
# file; brink pinned to core 1:
#   brink run --headless --no-record --config T.ini --concurrency 64 --duration D --threads 1
# (T.ini: [target] url and transport = h1, plus [scenario] script for the
# script run; D = BENCH_SECONDS, default 5).
#
# Reading the table (medians of the 3 repetitions):
#   req/s        requests brink completed / wall-clock time of the process
#   us/req       brink's CPU (user + sys, /usr/bin/time) per completed request
#   vs plain     the script run's us/req over the plain run's. Issue 18's
#                goal: <= 1.5
#   nginx %      nginx's CPU over the run, percent of one core (at 100% the
#                server is the limit and req/s equalise: us/req is the fair
#                comparison)
#
# Usage: sh bench/script-cost.sh   (BRINK=path to a release brink binary,
# default build/release/brink; BENCH_SECONDS=D)
set -u
prog=script-cost
cd "$(dirname "$0")/.." || exit 1
. ./bench/lib.sh

seconds=${BENCH_SECONDS:-5}
reps=3
conns=64

case "$seconds" in
'' | *[!0-9]*) die "BENCH_SECONDS must be a whole number of seconds, got '$seconds'" ;;
esac

scripts/install-deps bench || exit 1
find_brink
need_two_cores "nginx on core 0, brink on core 1"
bench_tmp

mkdir -p "$tmp/www"
printf 'hello, world\n' >"$tmp/www/13"
start_nginx 13
url="http://127.0.0.1:$nginx_port/13"
limit=$((seconds + 30))

cat >"$tmp/one-get.lua" <<'LUA'
-- One GET per iteration, its status checked: the least a script does.
function iteration(user)
    local r = brink.request{url = "/13", name = "get"}
    if r.status ~= 200 then error("status " .. r.status) end
end
LUA
printf '[target]\nurl = %s\ntransport = h1\n' "$url" >"$tmp/plain.ini"
printf '[target]\nurl = %s\ntransport = h1\n[scenario]\nscript = %s\n' "$url" "$tmp/one-get.lua" >"$tmp/script.ini"

: >"$tmp/plain.rows"
: >"$tmp/script.rows"
for rep in $(seq 1 $reps); do
    for kind in plain script; do
        bench_client "$brink" run --headless --no-record --config "$tmp/$kind.ini" \
            --concurrency "$conns" --duration "${seconds}s" --threads 1
        bench_brink_report "$kind"
        rate=$(awk -v n="${n:-0}" -v el="$el" 'BEGIN { printf "%.0f", (el > 0 ? n / el : 0) }')
        cost=$(awk -v n="${n:-0}" -v us="$us" -v sy="$sy" 'BEGIN { printf "%.2f", (n > 0 ? (us + sy) * 1e6 / n : 0) }')
        echo "$rate $cost $ngx" >>"$tmp/$kind.rows"
        echo "$prog: $kind rep $rep: ${n:-0} requests in ${el}s, ${cost} us/req, nginx ${ngx}%" >&2
    done
done

print_machine
echo "brink h1 against nginx (13 bytes), c = $conns, ${seconds} s, medians of $reps"
printf '%-8s %10s %8s %9s %8s\n' run req/s us/req "vs plain" "nginx %"
plain_cost=$(bench_median "$tmp/plain.rows" 2)
for kind in plain script; do
    rate=$(bench_median "$tmp/$kind.rows" 1)
    cost=$(bench_median "$tmp/$kind.rows" 2)
    ngxm=$(bench_median "$tmp/$kind.rows" 3)
    ratio=$(awk -v a="$cost" -v b="$plain_cost" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
    printf '%-8s %10s %8s %9s %8s\n' "$kind" "$rate" "$cost" "$ratio" "$ngxm"
done
bench_notes "errors"
