# Shared helpers for the end-to-end scripts: sh lib.sh-using-test BRINK SRCDIR.
# Each check prints one line; finish prints "N passed, N failed" and sets the
# exit status.

passed=0
failed=0

# python3 as PATH finds it, but run directly: where PATH finds a version
# manager's shim (pyenv's is a bash script forking a dozen processes), the
# interpreter's own directory goes first. The suites start python3
# hundreds of times (json_get, the servers), and a shim took a second a
# call on a busy machine. The same interpreter runs either way.
py_bin=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ "${py_bin##*/}" = python3 ] && [ "$(command -v python3)" != "$py_bin" ]; then
    PATH=$(dirname "$py_bin"):$PATH
    export PATH
fi

# now_ms: milliseconds since the epoch (GNU date), for deadlines.
now_ms() {
    date +%s%3N
}

# need_tmux: the console's scripts fail where tmux is missing (it comes
# from scripts/install-deps; a test never skips quietly). It also makes
# $brink an absolute path, for the commands tmux starts.
need_tmux() {
    command -v tmux >/dev/null 2>&1 || { echo "FAIL tmux missing: run scripts/install-deps"; exit 1; }
    case $brink in /*) ;; *) brink=$PWD/$brink ;; esac
}

# need_nginx: the same for nginx (Debian installs it in /usr/sbin, which a
# non-root PATH may lack).
need_nginx() {
    command -v nginx >/dev/null 2>&1 || PATH=$PATH:/usr/sbin
    command -v nginx >/dev/null 2>&1 || { echo "FAIL nginx is missing: run scripts/install-deps"; exit 1; }
}

# wait_port PORTFILE PID NAME ERRFILE: waits (at most 10 s) until the
# server PID, started in the background, wrote its port to PORTFILE;
# prints the port, or says NAME did not start (with ERRFILE) and exits 1.
wait_port() {
    i=0
    while [ ! -s "$1" ] && [ $i -lt 200 ] && kill -0 "$2" 2>/dev/null; do
        sleep 0.05
        i=$((i + 1))
    done
    [ -s "$1" ] || { echo "FAIL $3 did not start: $(cat "$4")" >&2; exit 1; }
    cat "$1"
}

ok() {
    passed=$((passed + 1))
    printf 'ok   %s\n' "$1"
}

not_ok() {
    failed=$((failed + 1))
    printf 'FAIL %s\n' "$1"
    [ -n "${2:-}" ] && printf '     %s\n' "$2"
    return 0
}

# check NAME WANT GOT: equality check.
check() {
    if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "expected \"$2\", got \"$3\""; fi
}

# expect_run NAME STATUS STDOUT_PATTERN STDERR_PATTERN -- CMD...
# Runs CMD; checks its exit status and that stdout and stderr each match a
# grep -E pattern ("" means must be empty, "*" means anything).
expect_run() {
    name=$1 want_status=$2 out_pat=$3 err_pat=$4
    shift 5
    out=$(mktemp) err=$(mktemp)
    "$@" >"$out" 2>"$err"
    status=$?
    why=""
    [ "$status" -eq "$want_status" ] || why="exit status $status, expected $want_status"
    if [ -z "$why" ]; then why=$(match_stream stdout "$out" "$out_pat"); fi
    if [ -z "$why" ]; then why=$(match_stream stderr "$err" "$err_pat"); fi
    if [ -z "$why" ]; then
        ok "$name"
    else
        not_ok "$name" "$why; stderr: $(head -c 300 "$err")"
    fi
    rm -f "$out" "$err"
}

match_stream() {
    case "$3" in
    "*") ;;
    "") [ -s "$2" ] && echo "$1 not empty: $(head -c 200 "$2")" ;;
    *) grep -Eq -- "$3" "$2" || echo "$1 does not match /$3/: $(head -c 200 "$2")" ;;
    esac
}

finish() {
    printf '%d passed, %d failed\n' "$passed" "$failed"
    [ "$failed" -eq 0 ]
}

# Headless runs whose report is read as text, for scripts that set $brink
# and $tmp (a directory of their own):
#   curl_conf NAME LINES...   $tmp/NAME.ini: [target] with transport = curl,
#                             connect_timeout = 3s, timeout = 5s, then LINES
#   headless_run NAME CONFIG ARGS...
#                             a bounded run (120 s): report $tmp/NAME.out,
#                             progress and events $tmp/NAME.err, exit status
#                             in $status
#   errors_line NAME          the report's "errors:" line
#   error_row NAME CLASS      the class's row (its message cut as the report
#                             cuts it)
#   first_error NAME CLASS    the whole first message of the class, from the
#                             run's events
#   failed_max_ms NAME        the longest failed request's latency, in whole
#                             ms ("latency of failed requests"; -1 if none)
#   run_ok NAME               check: exit 0, "errors: none", HTTP statuses 200
#   run_failed_as NAME CLASS WORDS
#                             check: a run of 3 requests all failed in CLASS,
#                             the first message holding WORDS
curl_conf() {
    name=$1
    shift
    printf '[target]\ntransport = curl\nconnect_timeout = 3s\ntimeout = 5s\n' >"$tmp/$name.ini"
    for line in "$@"; do
        printf '%s\n' "$line" >>"$tmp/$name.ini"
    done
}

headless_run() {
    name=$1 cfg=$2
    shift 2
    timeout 120 "$brink" run --headless --config "$cfg" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    status=$?
}

errors_line() {
    grep -m 1 '^errors:' "$tmp/$1.out"
}

error_row() {
    grep -m 1 "^  $2 " "$tmp/$1.out"
}

# What a progress line of a run with an end ends with (docs/report.md): its
# gauge, for duration and count ("12s/1m00s 20% left 48s", "12000/100000
# req 12% left ~1m28s", "3s/3s 100%"), or nothing; as a grep -E pattern
# that ends the line.
gauge='( [0-9][0-9a-z]*/[0-9][0-9a-z]*( req)? [0-9]+%( left ~?[0-9a-z?]+)?)*$'

first_error() {
    cat "$tmp/$1.out" "$tmp/$1.err" 2>/dev/null | grep -m 1 "first_error: first $2 "
}

failed_max_ms() {
    sed -n 's/^latency of failed requests.* max \([0-9.]*\)\([mu]*s\)$/\1 \2/p' "$tmp/$1.out" |
        awk '{ f = $2 == "s" ? 1000 : $2 == "ms" ? 1 : 0.001; printf "%d\n", $1 * f; n++ }
             END { if (!n) print -1 }'
}

run_ok() {
    if [ "$status" -eq 0 ] && [ "$(errors_line "$1")" = "errors: none" ] &&
        grep -q '^HTTP statuses: 200=' "$tmp/$1.out"; then
        ok "$1: every request ok"
    else
        not_ok "$1: every request ok" "exit $status; $(errors_line "$1"); $(head -c 400 "$tmp/$1.err")"
    fi
}

run_failed_as() {
    first=$(first_error "$1" "$2")
    if [ "$(errors_line "$1" | cut -c 1-23)" = "errors: 3 of 3 requests" ] &&
        [ -n "$(error_row "$1" "$2")" ] && printf '%s' "$first" | grep -q -- "$3"; then
        ok "$1: class $2, saying \"$3\""
    else
        not_ok "$1: class $2, saying \"$3\"" "$(errors_line "$1"); first: $first"
    fi
}

# kind_requests REPORT KIND: the requests of one kind in a text report
# ("kind GET: 1,234 requests ..."), 0 if absent.
kind_requests() {
    n=$(sed -n "s/^kind $2: \([0-9,]*\) requests.*/\1/p" "$1" | tr -d ,)
    echo "${n:-0}"
}

# run_requests REPORT: the run's requests in a text report ("duration 5.00s,
# 1,234 requests, ..."), all kinds together (a run of one kind has no kind
# lines); 0 if absent.
run_requests() {
    n=$(sed -n 's/^duration [^,]*, \([0-9,]*\) requests.*/\1/p' "$1" | tr -d ,)
    echo "${n:-0}"
}

# kinds_counted LABEL NAME TRUTH KIND...: checks that in run NAME's report
# ($tmp/NAME.out) each KIND ran (100 requests at least) and that its count
# is the server's own, which the command "TRUTH KIND" prints.
kinds_counted() {
    kc_label=$1 kc_name=$2 kc_truth=$3
    shift 3
    for kc_kind in "$@"; do
        kc_n=$(kind_requests "$tmp/$kc_name.out" "$kc_kind")
        kc_server=$($kc_truth "$kc_kind")
        if [ "$kc_n" -ge 100 ] && [ "$kc_n" = "$kc_server" ]; then
            ok "$kc_label: brink's $kc_kind requests ($kc_n) are the server's count"
        else
            not_ok "$kc_label: brink's $kc_kind requests are the server's count" \
                "brink $kc_n, the server $kc_server (100 at least expected)"
        fi
    done
}

# check_counts REPORT NAME: a scenario check's passes and failures in a text
# report ("  check:NAME: passed P, failed F"), as "P F"; empty if absent.
check_counts() {
    grep -F "  check:$2: passed " "$1" | sed -n 's/.*: passed \([0-9,]*\), failed \([0-9,]*\)$/\1 \2/p' | tr -d ,
}

# checks_held NAME REPORT CHECK: a check that the scenario check CHECK
# passed at least once and never failed.
checks_held() {
    pf=$(check_counts "$2" "$3")
    case "$pf" in
    [1-9]*" 0") ok "$1 (passed ${pf% 0}, failed 0)" ;;
    *) not_ok "$1" "check:$3 passed, failed: \"$pf\"; $(grep -F 'check:' "$2" | head -5)" ;;
    esac
}

# wait_up NAME PID LOG CMD...: polls CMD (every 50 ms, at most 10 s) until
# it succeeds, for the server PID just started in the background; when PID
# ends or the time runs out, the test fails there ("NAME starts", with
# LOG's last lines).
wait_up() {
    up_name=$1 up_pid=$2 up_log=$3
    shift 3
    up_i=0
    until "$@"; do
        up_i=$((up_i + 1))
        if [ $up_i -gt 200 ] || ! kill -0 "$up_pid" 2>/dev/null; then
            not_ok "$up_name starts" "$(tail -5 "$up_log")"
            finish
            exit 1
        fi
        sleep 0.05
    done
}

# free_port: a TCP port of 127.0.0.1 free right now.
free_port() {
    python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# start_prometheus METRICS_PORT PROM_PORT: Debian's prometheus on
# 127.0.0.1:PROM_PORT, scraping 127.0.0.1:METRICS_PORT every 1 s (timeout
# 1 s), its files in $tmp; its pid in prom_pid.
start_prometheus() {
    cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: brink
    static_configs:
      - targets: ['127.0.0.1:$1']
EOF
    prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/prom-data" \
        --web.listen-address="127.0.0.1:$2" --log.level=warn >"$tmp/prom.log" 2>&1 &
    prom_pid=$!
}
