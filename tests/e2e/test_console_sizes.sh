#!/bin/sh
# The console's labels at 80x24 (the minimum) and 200x60 (issue 31):
# `brink demo` in two private tmux servers, one a size, each captured with
# capture-pane once the demo's panels are filled. At each size:
#   - every panel's title whole, its rule after it (Request kinds too at
#     200x60, where the demo's two kinds have rows)
#   - the latency legend whole: "tick" over this tick's column, the scale
#     over the bars and "┃ run" over the whole run's column
#   - the header's second row names the session file whole (its folders
#     elided first when the row is short)
#   - nothing cut below the header: no ellipsis at all (in the demo's first
#     seconds every label, figure and message fits whole at both sizes; the
#     header's URL is another issue's), and the key line whole
#   - `?`: the help is a framed box (┌ ┐ └ ┘) that fits the screen, every
#     row inside it the frame, a blank, the key and its help, then blanks to
#     the frame: nothing of the panels drawn there a moment before (counted
#     from the capture without the help, which has panel text in the box's
#     region) shows inside
# Every wait polls capture-pane until a deadline; each demo is bounded
# (--duration 30s) and ended with q; the script takes about 10 s.
# Usage: sh test_console_sizes.sh BRINK SRCDIR (fails without tmux)
brink=$1
src=$2
. "$src/tests/e2e/lib.sh"

need_tmux
command -v python3 >/dev/null 2>&1 || { echo "FAIL python3 missing: run scripts/install-deps"; exit 1; }
tmp=$(mktemp -d)
sizes="80x24 200x60"
trap 'for s in $sizes; do tmux -L "brink$$-$s" kill-server 2>/dev/null; done; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# tm SIZE ARGS...: tmux on that size's server.
tm() {
    size=$1
    shift
    tmux -L "brink$$-$size" -f /dev/null "$@"
}

# capture SIZE FILE: the pane's text.
capture() {
    tm "$1" capture-pane -p -t s >"$2" 2>/dev/null
}

# wait_all SIZE SECONDS PATTERN...: polls the pane until every grep -E
# PATTERN matches a line; the last capture stays in $tmp/SIZE.screen.
wait_all() {
    size=$1
    deadline=$(($(now_ms) + $2 * 1000))
    shift 2
    while :; do
        capture "$size" "$tmp/$size.screen"
        missing=""
        for p in "$@"; do
            grep -Eq -- "$p" "$tmp/$size.screen" || { missing=$p; break; }
        done
        [ -z "$missing" ] && return 0
        [ "$(now_ms)" -ge "$deadline" ] && return 1
        sleep 0.1
    done
}

legend=' tick (log|on a log scale) [0-9.]+(us|ms|s)\.\.[0-9.]+[0-9a-z]+( |,).* ┃ run$'
moments=' min [0-9.]+(us|ms|s)  mean [0-9.]+(us|ms|s)  sd [0-9.]+(us|ms|s)'
keys80='^\+/- step  \]/\[ x2 /2  = set  p pause  r ramp  t steps  \? help  q quit$'
keys200='^\+/- step  \]/\[ x2 /2  = set  p pause  r ramp  t steps  \? help  q quit  o open/closed  d drop  m mark  n next step  l ok/failed  w phases$'

# Both demos at once, each in a directory of its own, sessions there too.
for size in $sizes; do
    mkdir -p "$tmp/$size/state"
    tm "$size" new-session -d -s s -x "${size%x*}" -y "${size#*x}" \
        "cd '$tmp/$size' && exec env LC_ALL=C.UTF-8 XDG_STATE_HOME='$tmp/$size/state' '$brink' demo --duration 30s" \; \
        set -g remain-on-exit on \; set -g window-size manual ||
        { not_ok "tmux starts brink demo at $size"; finish; exit 1; }
done

for size in $sizes; do
    # The titles, each followed by its rule.
    set -- '^Throughput ─' ' Latency of successes \(l: failures\) ─' '^Errors ─' \
        ' Server counters ─' '^Events ─'
    keys=$keys80
    if [ "$size" = 200x60 ]; then
        set -- "$@" '^Request kinds ─'
        keys=$keys200
    fi
    # The panels filled: a rate, the moments, the probes, the statuses.
    if ! wait_all "$size" 15 '^ok [0-9]' "$moments" ' siblings +[0-9]' '^status [0-9]'; then
        not_ok "$size: the demo's panels fill" "missing /$missing/; the pane:
$(cat "$tmp/$size.screen")"
        continue
    fi
    cp "$tmp/$size.screen" "$tmp/$size.under"
    for t in "$@"; do
        grep -Eq -- "$t" "$tmp/$size.under" && ok "$size: title /$t/ whole" ||
            not_ok "$size: title /$t/ whole" "$(cat "$tmp/$size.under")"
    done
    grep -Eq -- "$legend" "$tmp/$size.under" && ok "$size: the latency legend whole" ||
        not_ok "$size: the latency legend whole" "$(cat "$tmp/$size.under")"
    grep -Eq -- "$keys" "$tmp/$size.under" && ok "$size: the key line whole" ||
        not_ok "$size: the key line whole" "$(tail -n 1 "$tmp/$size.under")"
    name=$(ls "$tmp/$size/state/brink/sessions" 2>/dev/null | head -n 1)
    if [ -n "$name" ] && sed -n 2p "$tmp/$size.under" | grep -Eq -- " rec (…/|/)?([^ ]*/)?$name( |\$)"; then
        ok "$size: the header names the session file whole"
    else
        not_ok "$size: the header names the session file whole" "file \"$name\"; $(sed -n 2p "$tmp/$size.under")"
    fi
    cut=$(sed -n '3,$p' "$tmp/$size.under" | grep -n '…')
    [ -z "$cut" ] && ok "$size: nothing cut below the header" ||
        not_ok "$size: nothing cut below the header" "$cut"

    # The help over the same panels.
    tm "$size" send-keys -t s '?'
    if ! wait_all "$size" 5 '┌ Keys ─' 'Ctrl-C stops too; a second one aborts what is in flight' '└─+┘'; then
        not_ok "$size: ? opens the help in a framed box" "$(cat "$tmp/$size.screen")"
        continue
    fi
    capture "$size" "$tmp/$size.over"
    why=$(python3 - "$tmp/$size.under" "$tmp/$size.over" "${size%x*}" "${size#*x}" 2>&1 <<'EOF'
import sys
cols, rows = int(sys.argv[3]), int(sys.argv[4])
def lines(path):
    ls = open(path, encoding="utf-8").read().split("\n")[:rows]
    return [l.ljust(cols) for l in ls + [""] * (rows - len(ls))]
under, over = lines(sys.argv[1]), lines(sys.argv[2])
top = next((y for y, l in enumerate(over) if "┌" in l), None)
if top is None:
    sys.exit("no framed box (no ┌ on the screen)")
left, right = over[top].index("┌"), over[top].index("┐")
bottom = next((y for y in range(top + 1, rows) if over[y][left] == "└"), None)
if bottom is None or over[bottom][right] != "┘":
    sys.exit("the box's bottom corners are not under its top ones")
hidden = 0
for y in range(top + 1, bottom):
    inside = over[y][left + 1:right]
    if over[y][left] != "│" or over[y][right] != "│":
        sys.exit(f"row {y}: the frame's sides are missing: {over[y]!r}")
    text = inside.rstrip()
    # A blank after the frame, the key in 6 columns and the help: within
    # the help, never two blanks running (nothing from under it after a gap).
    if text and (inside[0] != " " or "  " in text[9:] or inside[-1] != " "):
        sys.exit(f"row {y}: not the help's own text: {inside!r}")
    hidden += sum(1 for x in range(left, right + 1)
                  if under[y][x] != " " and over[y][x] == " ")
if hidden < 10:
    sys.exit(f"only {hidden} cells of panel text under the box: the check saw nothing to hide")
print(f"ok {bottom - top - 1} rows, {hidden} cells of the panels covered")
EOF
    )
    case $why in
    ok*) ok "$size: the help is an opaque framed box that fits (${why#ok })" ;;
    *) not_ok "$size: the help is an opaque framed box that fits" "$why
$(cat "$tmp/$size.over")" ;;
    esac
    for line in '^│ \+      one step more users \(open model: rate_step more per second\) +│' \
        '^│ \^L     redraw the screen +│'; do
        sed "s/^[^│]*//" "$tmp/$size.over" | grep -Eq -- "$line" && ok "$size: help line /$line/ whole" ||
            not_ok "$size: help line /$line/ whole" "$(cat "$tmp/$size.over")"
    done
done

# Any key closes the help; q stops the demo.
for size in $sizes; do
    tm "$size" send-keys -t s x
    tm "$size" send-keys -t s q
done
for size in $sizes; do
    deadline=$(($(now_ms) + 10000))
    while [ "$(tm "$size" display-message -p -t s '#{pane_dead}' 2>/dev/null)" != 1 ] &&
        [ "$(now_ms)" -lt "$deadline" ]; do
        sleep 0.1
    done
done
finish
