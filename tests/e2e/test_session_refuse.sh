#!/bin/sh
# Files that cannot be sessions are refused fast, whatever their size
# (issue 30: a 2 GB sparse file took 20.6 s to be refused by brink report).
# Each command runs under timeout 3 (exit 124 fails the check): before the
# fix the reader went through every byte looking for a newline.
#   1. a 2 GB sparse file (all NUL): report, report --format hlog, replay
#      --headless and compare refuse it with exit 1 and one line
#      "brink: CMD: FILE: not a brink session: a NUL byte at byte 0"
#   2. 2 GB of text without a newline: refused, "its first line" over 1 MiB
#   3. the golden session without its trailer, then a 2 GB hole (what a
#      crash can leave): report reads its 10 ticks (the request count of
#      the whole golden file), says where the text stops, and exits 3 as
#      the golden file's report does (a threshold fails)
#   4. a valid header, then 2 GB of text without a newline: the reading
#      stops 16 MiB past the line cap, with a notice
#   5. brink sessions lists a directory of all of these in time: the NUL
#      file as unread, the cut golden one as cut
# Usage: sh test_session_refuse.sh BRINK SRCDIR
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

t() {
    timeout 3 "$@"
}

mkdir "$tmp/s"
truncate -s 2G "$tmp/s/zero.jsonl"
golden="$src/tests/data/sessions/golden.jsonl"

# 1. All NUL.
f="$tmp/s/zero.jsonl"
expect_run "report: a 2 GB sparse file is refused at once" 1 "" \
    "^brink: report: $f: not a brink session: a NUL byte at byte 0\$" -- t "$brink" report "$f"
expect_run "report --format hlog: refused at once" 1 "" \
    "^brink: report: $f: not a brink session: a NUL byte at byte 0\$" -- \
    t "$brink" report "$f" --format hlog
expect_run "replay --headless: refused at once" 1 "" \
    "^brink: replay: $f: not a brink session: a NUL byte at byte 0\$" -- \
    t "$brink" replay --headless "$f"
expect_run "compare: refused at once" 1 "" \
    "^brink: compare: $f: not a brink session: a NUL byte at byte 0\$" -- \
    t "$brink" compare "$golden" "$f"

# 2. Text without a newline: the first line's cap, not the file's size.
f="$tmp/long.jsonl"
python3 -c 'import sys
with open(sys.argv[1], "wb") as f:
    f.write(b"{" + b"a" * (2 * 1024 * 1024))' "$f"
truncate -s 2G "$f"
expect_run "a first line over 1 MiB is refused at once" 1 "" \
    "^brink: report: $f: not a brink session: line 1 is longer than 1 MiB\$" -- \
    t "$brink" report "$f"

# 3. A session cut by zeros: its ticks are read, the zeros are not.
f="$tmp/s/hole.jsonl"
grep -v '"type":"trailer"' "$golden" >"$f"
at=$(wc -c <"$f")
truncate -s 2G "$f"
want=$("$brink" report "$golden" --format json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["total"]["requests"])')
expect_run "a session then a 2 GB hole: read to the hole at once (its thresholds fail: 3)" 3 "*" \
    "^brink: report: recording ends abruptly at line 12 \\(t=10\\.0 s\\): a NUL byte at byte $at, not session text: reading stopped there\$" -- \
    t "$brink" report "$f"
got=$(t "$brink" report "$f" --format json 2>/dev/null |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["total"]["requests"])' 2>/dev/null)
check "its ticks are all read: the golden file's $want requests" "$want" "$got"

# 4. A header, then text that never ends its line.
f="$tmp/s/runon.jsonl"
head -n 1 "$golden" >"$f"
python3 -c 'import sys
with open(sys.argv[1], "ab") as f:
    f.write(b"{" + b"a" * (20 * 1024 * 1024))' "$f"
truncate -s 2G "$f"
expect_run "a header then a run-on line: reading stops past the cap" 0 "*" \
    "^brink: report: recording ends abruptly at line 2 \\(t=0\\.0 s\\): line 2 is longer than 17 MiB, not session text: reading stopped there\$" -- \
    t "$brink" report "$f"

# 5. brink sessions reads each file's header and ticks.
t "$brink" sessions "$tmp/s" >"$tmp/list" 2>"$tmp/list.err"
check "brink sessions lists them in time" 0 $?
check "the NUL file is unread" "unread" "$(awk '/zero.jsonl$/ { print $5 }' "$tmp/list")"
check "the cut golden session is cut" "cut" "$(awk '/hole.jsonl$/ { print $(NF - 1) }' "$tmp/list")"

finish
