#!/bin/sh
# brink demo --tls: the demo over HTTPS with the certificate checked
# (ca_file names a private temporary file of the certificate the target
# made, removed at the end, also after SIGTERM), probes included; and a
# probe over HTTPS trusting a private CA with [target] ca_file in a plain
# brink run against brink target --tls --cert-out.
# Usage: sh test_demo_tls.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/target_lib.sh"

target_setup

# session_facts FILE: one line of facts read from a session file:
# "URL CA_FILE INSECURE OK ERRORS TLS_ERRORS PROBES_WITH_VALUES"
# (CA_FILE "-" when the config names none; ERRORS leaves out http_4xx: the
# demo's reads of keys not written yet are 404s, over HTTP too).
session_facts() {
    python3 - "$1" <<'PY'
import json, sys
url = ca = insecure = "-"
ok = errors = tls = 0
probes = set()
with open(sys.argv[1]) as f:
    for line in f:
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type") == "header":
            for kv in r["config"].splitlines():
                k, _, v = kv.partition("=")
                k, v = k.strip(), v.strip()
                if k == "url" and url == "-":
                    url = v
                elif k == "ca_file" and v:
                    ca = v
                elif k == "insecure":
                    insecure = v
        elif r.get("type") == "tick":
            t = r.get("total", {})
            ok += t.get("ok", 0)
            errs = t.get("errors", {})
            errors += sum(n for k, n in errs.items() if k != "http_4xx")
            tls += errs.get("tls", 0)
            for p in r.get("probes", []):
                if p.get("state") == "ok" and "value" in p:
                    probes.add(p["name"])
print(url, ca, insecure, ok, errors, tls, ",".join(sorted(probes)) or "-")
PY
}

# wait_session FILE PID: waits (at most 30 s) until FILE has a tick with
# requests done and a probe value, or PID ended; 0 when it has.
wait_session() {
    i=0
    while [ $i -lt 300 ]; do
        if [ -s "$1" ]; then
            set -- "$1" "$2" $(session_facts "$1")
            [ "$6" -gt 0 ] 2>/dev/null && [ "$9" != "-" ] && return 0
        fi
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# --- 1. the demo over HTTPS, to its end ------------------------------------------
mkdir "$tmp/tmpdir"
TMPDIR=$tmp/tmpdir timeout 60 "$brink" demo --tls --headless --duration 3s \
    --record "$tmp/demo.jsonl" </dev/null >"$tmp/demo.out" 2>"$tmp/demo.err"
check "demo --tls --duration 3s: exit status 0" 0 "$?"
set -- $(session_facts "$tmp/demo.jsonl")
case "$1" in
https://127.0.0.1:[0-9]*) ok "the session's config names an https URL ($1)" ;;
*) not_ok "the session's config names an https URL" "got \"$1\"; $(head -c 300 "$tmp/demo.err")" ;;
esac
case "$2" in
"$tmp"/tmpdir/brink-demo-cert-*) ok "ca_file is a temporary file in TMPDIR ($2)" ;;
*) not_ok "ca_file is a temporary file in TMPDIR" "got \"$2\"" ;;
esac
check "the certificate is checked (insecure = no)" no "$3"
[ "$4" -gt 0 ] 2>/dev/null && ok "requests succeeded over HTTPS ($4)" ||
    not_ok "requests succeeded over HTTPS" "ok = $4; $(head -c 300 "$tmp/demo.err")"
check "no request failed but the demo's 404s, none with a tls error" "0 0" "$5 $6"
check "every probe has a value over HTTPS" "queue,resets,siblings" "$7"
if [ -n "$2" ] && [ "$2" != - ] && [ ! -e "$2" ]; then
    ok "the certificate file is removed at the end"
else
    not_ok "the certificate file is removed at the end" "ca_file \"$2\""
fi
check "nothing else is left in TMPDIR" "" "$(ls -A "$tmp/tmpdir")"

# --- 2. SIGTERM in the middle of the run ------------------------------------------
TMPDIR=$tmp/tmpdir "$brink" demo --tls --headless --duration 60s --record "$tmp/term.jsonl" \
    </dev/null >"$tmp/term.out" 2>"$tmp/term.err" &
run_pid=$!
if wait_session "$tmp/term.jsonl" "$run_pid"; then
    set -- $(session_facts "$tmp/term.jsonl")
    cert=$2
    check "while it runs, the certificate file is private (0600)" 600 "$(stat -c %a "$cert" 2>&1)"
    check "... and holds the certificate" "-----BEGIN CERTIFICATE-----" "$(head -n 1 "$cert")"
    kill -TERM "$run_pid"
    i=0
    while kill -0 "$run_pid" 2>/dev/null && [ $i -lt 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    wait "$run_pid"
    check "SIGTERM stops the demo, exit 0" 0 "$?"
    run_pid=""
    [ -e "$cert" ] && not_ok "after SIGTERM the certificate file is removed" "$cert still exists" ||
        ok "after SIGTERM the certificate file is removed"
    check "... and nothing else is left in TMPDIR" "" "$(ls -A "$tmp/tmpdir")"
else
    not_ok "demo --tls runs requests and probes before SIGTERM" "$(head -c 300 "$tmp/term.err")"
fi

# --- 3. a probe over HTTPS with a private CA, in brink run ---------------------------
if ! start_target --tls --cert-out "$tmp/target.pem"; then
    not_ok "brink target --tls --cert-out starts" "$(cat "$tmp/target.err")"
    finish
    exit 1
fi
cat >"$tmp/run.ini" <<INI
[target]
url = $url/bytes/13
ca_file = target.pem
[load]
concurrency = 1
[probe served]
type = json
url = /stats
pointer = /requests_total
interval = 200ms
INI
timeout 60 "$brink" run --config "$tmp/run.ini" --headless --duration 2s \
    --record "$tmp/run.jsonl" </dev/null >"$tmp/run.out" 2>"$tmp/run.err"
check "brink run with ca_file against target --tls: exit status 0" 0 "$?"
set -- $(session_facts "$tmp/run.jsonl")
check "its probe over HTTPS has a value (ca_file trusted by the probe)" served "$7"
check "... and its requests had no error" 0 "$5"

# Another certificate in ca_file: the probe's check refuses the target's.
cp "$tmp/target.pem" "$tmp/right.pem"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=other \
    -keyout "$tmp/other.key" -out "$tmp/target.pem" -days 1 2>/dev/null
timeout 60 "$brink" run --config "$tmp/run.ini" --headless --duration 2s --fail-on none \
    --record "$tmp/wrong.jsonl" </dev/null >"$tmp/wrong.out" 2>"$tmp/wrong.err"
probe_error=$(python3 - "$tmp/wrong.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    for p in r.get("probes", []):
        if p.get("error"):
            print(p["error"])
            sys.exit(0)
PY
)
case "$probe_error" in
*certificate*) ok "with another CA in ca_file the probe fails its certificate check" ;;
*) not_ok "with another CA in ca_file the probe fails its certificate check" "probe error \"$probe_error\"" ;;
esac
stop_target
finish
