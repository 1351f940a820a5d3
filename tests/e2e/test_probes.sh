#!/bin/sh
# Probes end to end: server counters read while brink loads a server.
# Against brink target, the sibling count of a multipart manifest stays at 1
# under one writer and rises under sixteen; against a real nginx started here
# on loopback, stub_status's "Active connections" follows the concurrency; a
# probe on a closed port fails without slowing the load; command probes run
# only from a file others cannot write, and a command past its timeout is
# killed with its whole process group; a counter is shown as a rate per
# second; hostile bytes from a server never reach the output raw.
# Usage: sh test_probes.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

need_nginx

target_setup
nginx_pid=""

# Stops nginx and any probe command a failed check left running, then does
# what target_setup's trap does.
cleanup() {
    if [ -n "$nginx_pid" ]; then
        kill "$nginx_pid" 2>/dev/null
        wait "$nginx_pid" 2>/dev/null
    fi
    for f in "$tmp"/*.pids; do
        # shellcheck disable=SC2046 # one pid a word
        [ -f "$f" ] && kill -9 $(cat "$f") 2>/dev/null
    done
    target_cleanup
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# run NAME CONFIG ARGS...: a bounded headless run of CONFIG (made mode 0600
# first); report in $tmp/NAME.out, progress in $tmp/NAME.err, exit status in
# $status.
run() {
    name=$1 cfg=$2
    shift 2
    chmod 600 "$cfg"
    timeout 60 "$brink" run --headless --config "$cfg" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    status=$?
}

# run_until NAME CONFIG PATTERN COUNT ARGS...: as run, but until COUNT
# progress lines match the grep -E PATTERN (at most 30 s), then stopped as
# an operator stops it (SIGINT): what the run must show is a condition, not
# a time. The SIGINT goes to brink alone (--foreground): timeout would
# also send it to its process group, where a command probe's child sits
# from its fork to its setsid, and dies of it ("killed by signal 2").
run_until() {
    name=$1 cfg=$2 pattern=$3 count=$4
    shift 4
    chmod 600 "$cfg"
    : >"$tmp/$name.err" # wait_count reads it before the run may have made it
    timeout --foreground 60 "$brink" run --headless --config "$cfg" --duration 0 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null &
    run_pid=$!
    wait_count "$tmp/$name.err" "$pattern" "$count" 30
    kill -INT "$run_pid" 2>/dev/null
    wait "$run_pid"
    status=$?
    run_pid=""
}

# report_row NAME PROBE: the probe's row of the report's server counters.
report_row() {
    sed -n "/^server counters:\$/,/^[^ ]/s/^  $2: //p" "$tmp/$1.out"
}

# probe_max NAME PROBE and probe_last NAME PROBE: figures of that row.
probe_max() {
    report_row "$1" "$2" | sed -n 's/.*, max \([^;]*\).*/\1/p'
}
probe_last() {
    report_row "$1" "$2" | sed -n 's/^last \([^,]*\),.*/\1/p'
}

# rate NAME: the report's successes per second ("duration 3.01s, 5,578 requests,
# ok 1,849 req/s, ...").
rate() {
    sed -n 's/^duration [^,]*, [0-9,]* requests, ok \([0-9.,]*\) req\/s.*/\1/p' "$tmp/$1.out" | tr -d ,
}

requests() {
    sed -n 's/^duration [^,]*, \([0-9,]*\) requests.*/\1/p' "$tmp/$1.out" | tr -d ,
}

# ticks_with NAME PATTERN: how many progress lines match the grep -E PATTERN.
ticks_with() {
    grep -Ec -- "$2" "$tmp/$1.err"
}

# probe_reads WHAT NAME PROBE VALUE: checks that the probe read VALUE (its
# last and its max) and that no fetch of it failed. A fetch running past
# twice the interval makes it stale until the fetch ends, and on a machine
# short of CPU starting a command (fork and exec) or answering a request
# can take that long: stale ticks in the row say when samples came, not
# what they read, so they are told apart from failures, which count.
probe_reads() {
    row=$(report_row "$2" "$3")
    fetch_failures=$(($(grep -c "probe: $3 failing: " "$tmp/$2.err") + $(ticks_with "$2" " $3=failing( |\$)")))
    case $row in
    "last $4, max $4" | "last $4, max $4; failing or stale in "*" ticks (no sample for "*": the "*" fetch is still running)")
        check "$1 reads $4 and never failed ($row)" 0 "$fetch_failures" ;;
    *) not_ok "$1 reads $4 and never failed" "got \"$row\"" ;;
    esac
}

# group_left PGID: the live (not zombie) processes of a process group.
group_left() {
    ps -eo pid=,pgid=,stat= | awk -v g="$1" '$2 == g && $3 !~ /^Z/ { printf " %s", $1 }'
}

must_start_target --seed 5

# --- 1. siblings of a multipart manifest ---------------------------------------------
# PUT /mp/UPLOAD/PART rewrites the manifest mp/UPLOAD naming the version it
# read (src/target/store.c); a commit drops the siblings up to that version
# (src/target/kv.c). Only reads feed /stats's node_get_fsm_siblings_100 (the
# largest sibling count a GET saw in the last 60 s), hence the GETs of the
# manifest. One writer always read the newest version, so its commit replaces
# the one sibling there is: a lone writer gives exactly 1. (Before the first
# GET of an existing manifest the figure is 0, which is below that max.)
# Parts that overlap read the same version and each adds a sibling. The
# window only keeps a max, so the 1 of the first run cannot raise the second.
mp_config() {
    cat >"$tmp/$1.ini" <<INI
[target]
url = $url

[request put]
weight = 3
method = PUT
url = /mp/$1/{seq}
body = random:1k

[request get]
weight = 1
url = /mp/$1

[probe siblings]
type = json
url = /stats
pointer = /node_get_fsm_siblings_100
interval = 200ms
INI
}
mp_config up_c1
run up_c1 "$tmp/up_c1.ini" --concurrency 1 --duration 3s --seed 1
check "c=1: the run exits 0" 0 "$status"
puts=$(sed -n 's/^kind put: \([0-9,]*\) requests.*/\1/p' "$tmp/up_c1.out" | tr -d ,)
check_ge "c=1: the lone writer stored parts ($puts PUTs)" 20 "$puts"
check "c=1: the sibling probe's max is 1 ($(report_row up_c1 siblings))" 1 "$(probe_max up_c1 siblings)"
check_ge "c=1: progress lines show siblings=1 ($(ticks_with up_c1 " siblings=1$gauge") ticks)" 1 "$(ticks_with up_c1 " siblings=1$gauge")"

mp_config up_c16
run up_c16 "$tmp/up_c16.ini" --concurrency 16 --duration 3s --seed 1
check "c=16: the run exits 0" 0 "$status"
max=$(probe_max up_c16 siblings)
holds "c=16: the sibling probe rises above 1 (max $max)" "m > 1" -v m="${max:-0}"
check_ge "c=16: progress lines show it above 1 ($(ticks_with up_c16 " siblings=([2-9]|[1-9][0-9]+)$gauge") ticks)" 1 \
    "$(ticks_with up_c16 " siblings=([2-9]|[1-9][0-9]+)$gauge")"

# --- 2. nginx stub_status: Active connections follows the concurrency ------------------
mkdir -p "$tmp/www" "$tmp/logs"
head -c 4096 /dev/zero | tr '\0' x >"$tmp/www/file"
nginx_port=$(free_port)
sh "$src/scripts/nginx-conf" "$tmp" "$nginx_port" >"$tmp/nginx.conf"
nginx -p "$tmp" -e "$tmp/logs/error.log" -c "$tmp/nginx.conf" 2>"$tmp/nginx.err" &
nginx_pid=$!
nginx_url=http://127.0.0.1:$nginx_port
i=0
while [ $i -lt 200 ] && ! curl -sf "$nginx_url/status" >/dev/null 2>&1; do
    kill -0 "$nginx_pid" 2>/dev/null || break
    sleep 0.05
    i=$((i + 1))
done
if curl -sf "$nginx_url/status" | grep -q '^Active connections: '; then
    ok "nginx $(nginx -v 2>&1 | sed 's/.*\///') serves stub_status on port $nginx_port"
    cat >"$tmp/nginx_load.ini" <<INI
[target]
url = $nginx_url/file

[probe active]
type = text
url = $nginx_url/status
key = Active connections
interval = 200ms
INI
    run nginx_load "$tmp/nginx_load.ini" --concurrency 50 --duration 3s
    check "c=50 on nginx: the run exits 0" 0 "$status"
    check "c=50 on nginx: no errors" 1 "$(grep -c '^errors: none$' "$tmp/nginx_load.out")"
    check "c=50 on nginx: 50 connections opened" 1 "$(grep -c 'connections opened 50$' "$tmp/nginx_load.out")"
    max=$(probe_max nginx_load active)
    holds "c=50 on nginx: Active connections reaches 50 or more (max $max, $(rate nginx_load) req/s)" \
        "m >= 50" -v m="${max:-0}"
else
    not_ok "nginx serves stub_status on port $nginx_port" "$(cat "$tmp/nginx.err" "$tmp/logs/error.log" 2>/dev/null | tail -n 5)"
fi
kill "$nginx_pid" 2>/dev/null
wait "$nginx_pid" 2>/dev/null
nginx_pid=""

# --- 3. a probe on a closed port fails and the load keeps its rate --------------------
# /delay/20 at c=8 sets the rate (about 400 req/s) by the delay, not by the
# CPU; the two runs go side by side, so a busy machine slows both alike (one
# after the other, they once gave 203 and 331 req/s).
dead_port=$(free_port)
printf '[target]\nurl = %s/delay/20\n' "$url" >"$tmp/base.ini"
cp "$tmp/base.ini" "$tmp/dead.ini"
printf '\n[probe dead]\ntype = json\nurl = http://127.0.0.1:%s/stats\npointer = /x\ninterval = 200ms\n' \
    "$dead_port" >>"$tmp/dead.ini"
(run base "$tmp/base.ini" --concurrency 8 --duration 3s) &
base_pid=$!
run dead "$tmp/dead.ini" --concurrency 8 --duration 3s
wait "$base_pid"
check "closed port: the run exits 0" 0 "$status"
check "closed port: the load has no errors" 1 "$(grep -c '^errors: none$' "$tmp/dead.out")"
n=$(grep -c '^t=' "$tmp/dead.err")
check "closed port: every progress line shows dead=failing ($n lines)" "$n" "$(ticks_with dead " dead=failing$gauge")"
row=$(report_row dead dead)
case $row in
"no value; failing or stale in "*" ticks ("*[Rr]efused*")" | "no value; failing or stale in "*" ticks (Failed to connect"*)
    ok "closed port: the report says why ($row)" ;;
*) not_ok "closed port: the report says why" "got \"$row\"" ;;
esac
b=$(rate base) d=$(rate dead)
holds "closed port: the load keeps its rate ($d req/s, $b without the probe)" "d >= 0.7 * b && b > 100" -v d="${d:-0}" -v b="${b:-0}"

# A stats endpoint that never answers in time: stale with the reason once
# the first fetch has run twice the interval, and the stop does not wait
# for it (the fetch is aborted).
printf '[target]\nurl = %s/bytes/10\n\n[probe hang]\ntype = json\nurl = %s/delay/30000\npointer = /x\ntimeout = 1m\ninterval = 200ms\n' \
    "$url" "$url" >"$tmp/hang.ini"
t0=$(date +%s%N)
run hang "$tmp/hang.ini" --concurrency 2 --duration 2s
ms=$((($(date +%s%N) - t0) / 1000000))
check "hanging stats: the run exits 0" 0 "$status"
row=$(report_row hang hang)
case $row in
*"no value; failing or stale in "*"first fetch is still running"*)
    ok "hanging stats: no value, stale with the reason ($row)" ;;
*) not_ok "hanging stats: no value, stale with the reason" "got \"$row\"" ;;
esac
holds "hanging stats: a 2s run ends in ${ms}ms, not after the 30s fetch" "ms < 10000" -v ms="$ms"

# --- 4. command probes ---------------------------------------------------------------
before=$(truth requests_total)
cat >"$tmp/cmd.ini" <<INI
[target]
url = $url/bytes/10

[probe answer]
type = command
command = echo 42
interval = 200ms
INI
run_until cmd "$tmp/cmd.ini" ' answer=42$' 1 --concurrency 2
check "command from a 0600 file: the run exits 0" 0 "$status"
probe_reads "command from a 0600 file: echo 42" cmd answer 42

for mode in 666 620; do
    chmod "$mode" "$tmp/cmd.ini"
    before=$(truth requests_by_endpoint bytes)
    timeout 60 "$brink" run --headless --config "$tmp/cmd.ini" --concurrency 2 --duration 2s \
        >"$tmp/refused.out" 2>"$tmp/refused.err" </dev/null
    status=$?
    check "command from a $mode file: exit status 2" 2 "$status"
    msg=$(cat "$tmp/refused.err")
    if [ "$(wc -l <"$tmp/refused.err")" -eq 1 ] && ! [ -s "$tmp/refused.out" ] &&
        printf '%s' "$msg" | grep -Fq "brink: $tmp/cmd.ini: [probe answer]: " &&
        printf '%s' "$msg" | grep -q "mode $mode" && printf '%s' "$msg" | grep -q 'chmod go-w'; then
        ok "command from a $mode file: one line naming the file and the fix ($msg)"
    else
        not_ok "command from a $mode file: one line naming the file and the fix" "stderr: $msg; stdout: $(head -c 200 "$tmp/refused.out")"
    fi
    check "command from a $mode file: the target saw no request" "$before" "$(truth requests_by_endpoint bytes)"
done

# slow overruns its 500ms timeout every time; held runs until the stop, which
# must kill it too. The run lasts until two progress lines show slow failing:
# the probe thread waits in uv_spawn for each child's exec, which took 2.8 s
# on one busy core, so a fixed duration may end before the first timeout.
# Each writes the pids of its shell and of a child to a file
# (through a rename: a kill between the truncation and the write of a plain
# redirection would leave it empty)
# ($$$$ is $$ in the shell, $$! is $!).
cat >"$tmp/sleep.ini" <<INI
[target]
url = $url/bytes/10

[probe slow]
type = command
command = sleep 30 & echo \$\$\$\$ \$\$! >$tmp/slow.new && mv $tmp/slow.new $tmp/slow.pids; wait
timeout = 500ms
interval = 1s

[probe held]
type = command
command = sleep 30 & echo \$\$\$\$ \$\$! >$tmp/held.new && mv $tmp/held.new $tmp/held.pids; wait
timeout = 1m
INI
run_until sleep "$tmp/sleep.ini" ' slow=failing( |$)' 2 --concurrency 2
check "sleeping commands: the run exits 0" 0 "$status"
check "sleeping commands: the load has no errors" 1 "$(grep -c '^errors: none$' "$tmp/sleep.out")"
row=$(report_row sleep slow)
case $row in
"no value; failing or stale in "*" ticks (timed out after 500ms"*) ok "a command past its timeout fails ($row)" ;;
*) not_ok "a command past its timeout fails" "got \"$row\"" ;;
esac
check_ge "progress lines show slow=failing ($(ticks_with sleep ' slow=failing( |$)') ticks)" 2 "$(ticks_with sleep ' slow=failing( |$)')"
row=$(report_row sleep held)
case $row in
"no value"*) ok "held never answers before the stop ($row)" ;;
*) not_ok "held never answers before the stop" "got \"$row\"" ;;
esac
for p in slow held; do
    pids=$(cat "$tmp/$p.pids" 2>/dev/null)
    if [ -z "$pids" ]; then
        not_ok "$p: the command wrote its pids"
        continue
    fi
    # brink has exited and its kill is immediate, so this only waits for the
    # processes to go (at most 5 s). A zombie whose parent is gone waits for
    # pid 1 to reap it: it counts as gone.
    i=0
    while left=$(group_left "${pids%% *}") && [ -n "$left" ] && [ $i -lt 100 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    alive=""
    for q in $pids; do
        case $(ps -o stat= -p "$q") in
        "" | Z*) ;;
        *) alive="$alive $q" ;;
        esac
    done
    if [ -z "$left" ] && [ -z "$alive" ]; then
        ok "$p: no process of its group is left after brink exits (shell and sleep: $pids)"
    else
        not_ok "$p: no process of its group is left after brink exits" "group left:$left; alive:$alive; $(ps -o pid,pgid,stat,args -p "$(echo "$pids" | tr ' ' ,)")"
    fi
done

# --- 5. a counter is a rate per second -------------------------------------------------
# The target counts every request, the probe's own /metrics fetches too
# (2 a second, next to hundreds of load requests). A probe path would be
# joined to [target] url, which names the load's endpoint here: absolute urls.
cat >"$tmp/counter.ini" <<INI
[target]
url = $url/delay/10

[probe served]
type = prometheus
url = $url/metrics
metric = brink_target_requests_total
kind = counter
interval = 500ms
INI
delay_before=$(truth requests_by_endpoint delay)
metrics_before=$(truth requests_by_endpoint metrics)
run counter "$tmp/counter.ini" --concurrency 8 --duration 3s
check "counter: the run exits 0" 0 "$status"
check "counter: the report counts the load's requests, not the probe's ($(requests counter))" \
    $(($(truth requests_by_endpoint delay) - delay_before)) "$(requests counter)"
check_ge "counter: the probe did fetch /metrics ($(($(truth requests_by_endpoint metrics) - metrics_before)) times)" \
    3 $(($(truth requests_by_endpoint metrics) - metrics_before))
# Per tick, as the progress lines show them: the probe's rate beside the
# load's req/s, summed over the ticks where the probe has one. (The
# probe's max against the whole run's rate compared its best interval with
# an average over the run, start and drain included: 693.8/s against 402
# req/s once on a busy machine.)
read -r k v n <<EOF
$(grep '^t=[0-9]*s ' "$tmp/counter.err" | grep -v ' final ' | awk '{
    n = ""; v = ""
    for (i = 2; i <= NF; i++) {
        if ($i == "req/s") n = $(i - 1)
        if (index($i, "served=") == 1) v = substr($i, 8)
    }
    if (v ~ /^[0-9.]+$/ && n != "") { ticks++; sv += v; sn += n }
} END { printf "%d %.1f %.1f\n", ticks, sv, sn }')
EOF
r=$(rate counter)
holds "counter: its rate is the load's rate per second ($k ticks: $v/s against $n req/s in all; load $r req/s)" \
    "k >= 2 && v >= 0.5 * n && v <= 1.5 * n && r > 100" -v k="${k:-0}" -v v="${v:-0}" -v n="${n:-0}" -v r="${r:-0}"

# --- 6. hostile strings from the server ---------------------------------------------------
# hostile_stats adds a /metrics series whose label holds ESC, BEL, CR, a bidi
# override and an 8-bit CSI. The prometheus probe matches it by that label;
# the text probe captures the whole line, which is not a number, so the
# reason quotes the hostile bytes.
curl -s -X POST --data '{"hostile_stats": true}' "$url/_control" >/dev/null
check "hostile_stats is on" True "$(json_get "$url/_control" settings hostile_stats)"
cat >"$tmp/hostile.ini" <<INI
[target]
url = $url/bytes/10

[probe hostile]
type = prometheus
url = $url/metrics
metric = brink_target_hostile_info{name=~".*PWNED.*"}
interval = 200ms

[probe quoted]
type = text
url = $url/metrics
regex = ^brink_target_hostile_info(.*)
interval = 200ms
INI
run_until hostile "$tmp/hostile.ini" ' hostile=1 quoted=failing$' 1 --concurrency 2
check "hostile: the run exits 0" 0 "$status"
probe_reads "hostile: the series with the hostile label" hostile hostile 1
row=$(report_row hostile quoted)
case $row in
*'\e[2J'*) ok "hostile: the reason shows ESC as \\e ($row)" ;;
*) not_ok "hostile: the reason shows ESC as \\e" "got \"$row\"" ;;
esac
# Progress lines and report: printable ASCII and newlines only.
bad=$(python3 -c '
import sys
n = 0
for f in sys.argv[1:]:
    n += sum(1 for b in open(f, "rb").read() if not (32 <= b < 127 or b == 10))
print(n)' "$tmp/hostile.out" "$tmp/hostile.err")
check "hostile: no control or non-ASCII byte in the output ($(wc -c <"$tmp/hostile.out") + $(wc -c <"$tmp/hostile.err") bytes)" 0 "$bad"
check "hostile: no raw ESC byte in the output" 0 "$(cat "$tmp/hostile.out" "$tmp/hostile.err" | grep -c "$(printf '\033')")"

stop_target
check "the target stops cleanly" 0 "$stop_status"
finish
