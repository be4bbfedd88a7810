#!/usr/bin/env bash
# test_cli_progress_ranges.sh: the live progress line of a multi-connection download
# (--connections 4, byte ranges arriving out of order) from a paced local link (httpd.py
# --link-rate 5 MiB/s shared by all connections), watched in a real terminal (tmux
# capture-pane every 0.2 s) at 80 and at 40 columns. Every frame that shows the live line:
#   - fits the terminal (at most COLS-1 characters, no wrapped second line), at 40 columns too,
#     with its percentage;
#   - the percentage never goes down from one frame to the next;
#   - a whole "ETA m:ss" (never a cut "ETA 0:") in at least 70 % of the frames;
#   - the rate counts every byte received, not only the in-order part: at 80 columns at least
#     70 % of the rates shown are within 0.5x..1.6x of the link's 5 MiB/s.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
command -v tmux >/dev/null || { echo "tmux missing (scripts/bootstrap)" >&2; exit 77; }
T=$(mktemp -d)
SOCK=cc-progr-$$
PIDS=()
cleanup() {
    for c in 80 40 120 200; do tmux -L "$SOCK-$c" kill-server 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$SOURCE_DIR/tests/integration/cli_lib.sh"
V=9.97.0.2
LINK=$((5 << 20))
cli_make_root "$T/r"
cli_make_archive "$T/www" $V 32
cli_make_manifest "$T/www" $V "$T/r/m.json"
"$PY" "$SOURCE_DIR/tests/tools/httpd.py" --root "$T/www" --port-file "$T/port" --link-rate $LINK \
    --log "$T/http.log" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
[ -s "$T/port" ] || fail "httpd.py did not start"
U="http://127.0.0.1:$(cat "$T/port")/"

watch_install() { # COLS → $T/frames-COLS (one capture per frame, "----" between)
    local cols=$1
    # a server of its own per width: a new session on a socket whose server is still shutting
    # down after kill-server fails ("server exited unexpectedly", once in a parallel run)
    local SOCK=$SOCK-$cols
    tmux -L "$SOCK" new-session -d -x "$cols" -y 30 "env -i PATH=$PATH TERM=xterm-256color bash --norc --noprofile"
    tmux -L "$SOCK" send-keys -t 0 "PS1='$ '; clear" Enter
    sleep 0.3
    echo "$CUDNNCTL --root $T/r --cache-dir $T/c$cols --state-dir $T/s$cols install --manifest /m.json" \
        "--cudnn $V --mirror $U --prefix /opt/px$cols --connections 4 --no-validate --no-ldconfig" >"$T/run$cols.sh"
    tmux -L "$SOCK" send-keys -t 0 "sh $T/run$cols.sh; echo EX\"\"IT=\$?" Enter
    : >"$T/frames-$cols"
    for _ in $(seq 400); do
        tmux -L "$SOCK" capture-pane -p -t 0 >"$T/s"
        { cat "$T/s"; echo "----"; } >>"$T/frames-$cols"
        grep -q '^EXIT=' "$T/s" && break
        sleep 0.2
    done
    grep -q "^EXIT=0" "$T/s" || { cat "$T/s" >&2; tail -40 "$T/frames-$cols" >&2; fail "$cols columns: the install did not succeed"; }
    grep -q '"range": "bytes=' "$T/http.log" || fail "the download made no range requests"
}

check_frames() { # COLS
    "$PY" - "$T/frames-$1" "$1" "$LINK" <<'PY'
import re, sys
frames = open(sys.argv[1]).read().split("----\n")
cols, link = int(sys.argv[2]), int(sys.argv[3])
live = []  # the live line of each frame that has one
for f in frames:
    lines = [l.rstrip() for l in f.splitlines()]
    cand = [i for i, l in enumerate(lines) if l.startswith("download") and re.search(r"\d+%", l)]
    if not cand:
        continue
    i = cand[-1]
    l = lines[i]
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    if len(l) > cols - 1:
        sys.exit("%d columns: a live line of %d characters: %r" % (cols, len(l), l))
    if nxt and not nxt.startswith(("download", "verify", "unpack", "commit", "cuDNN", "  ", "$", "EXIT=")):
        sys.exit("%d columns: the live line wrapped onto %r (line %r)" % (cols, nxt, l))
    live.append(l)
if len(live) < 8:
    sys.exit("%d columns: only %d frames with a live line:\n%s" % (cols, len(live), "\n".join(live)))
pcts = [int(re.search(r"(\d+)%", l).group(1)) for l in live]
for a, b, l in zip(pcts, pcts[1:], live[1:]):
    if b < a:
        sys.exit("%d columns: the percentage went down %d%% -> %d%%: %r" % (cols, a, b, l))
whole = [l for l in live if re.search(r"ETA \d+:\d\d(\s|$)", l)]
if len(whole) < 0.7 * len(live):
    sys.exit("%d columns: a whole ETA in %d of %d frames:\n%s" % (cols, len(whole), len(live), "\n".join(live)))
if cols >= 80:
    rates = []
    for l in live:
        m = re.search(r"^download.*?([\d.]+) (B|KiB|MiB|GiB)/s", l)
        if m:
            rates.append(float(m.group(1)) * {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[m.group(2)])
    near = [r for r in rates if 0.5 * link <= r <= 1.6 * link]
    if not rates or len(near) < 0.7 * len(rates):
        sys.exit("%d columns: %d of %d rates near the link's %.1f MiB/s:\n%s" %
                 (cols, len(near), len(rates), link / 1048576.0, "\n".join(live)))
print("%d columns: %d frames, %d with a whole ETA, percentages %d..%d; e.g. %r" %
      (cols, len(live), len(whole), pcts[0], pcts[-1], live[len(live) // 2]))
PY
}

for cols in 80 40; do
    watch_install $cols
    check_frames $cols || { cp "$T/frames-$cols" "/tmp/progress-frames-$cols.txt" 2>/dev/null || true; fail "$cols columns (frames in /tmp/progress-frames-$cols.txt)"; }
done
echo "ok: ranged download progress at 80 and 40 columns"
