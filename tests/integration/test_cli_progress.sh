#!/usr/bin/env bash
# test_cli_progress.sh: the progress display on a real terminal (tmux, 120x30), watched while an
# install downloads from a throttled local server (tests/tools/httpd.py --throttle, 1 MiB/s):
# download and unpack share one live line (never overwriting each other, no leftovers), the rate
# is the link's (not "0 B/s"), the ETA is not 0:00 mid-way, each finished stage gets a line of
# its own with names a user knows (download, verify, unpack, commit; no "prepare", no "B / B"
# bar); Ctrl-C leaves the line ended (the prompt starts a new line); TERM=dumb and a pipe get
# plain lines, no "\r" redraws.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
command -v tmux >/dev/null || { echo "tmux missing (scripts/bootstrap)" >&2; exit 77; }
T=$(mktemp -d)
SOCK=cc-prog-$$
PIDS=()
cleanup() {
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$SOURCE_DIR/tests/integration/cli_lib.sh"
V=9.97.0.1
cli_make_root "$T/r"
cli_make_archive "$T/www" $V 5
cli_make_manifest "$T/www" $V "$T/r/m.json"
"$PY" "$SOURCE_DIR/tests/tools/httpd.py" --root "$T/www" --port-file "$T/port" --throttle 1048576 \
    --log "$T/http.log" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
[ -s "$T/port" ] || fail "httpd.py did not start"
U="http://127.0.0.1:$(cat "$T/port")/"
run_args() { # CACHE → the install command line
    echo "$CUDNNCTL --root $T/r --cache-dir $T/$1 --state-dir $T/state-$1 install --manifest /m.json" \
        "--cudnn $V --mirror $U --prefix /opt/px-$1 --no-validate --no-ldconfig"
}

# ---- a terminal ----------------------------------------------------------------------------------
tmux -L "$SOCK" new-session -d -x 120 -y 30 "env -i PATH=$PATH TERM=xterm-256color bash --norc --noprofile"
tsend() { tmux -L "$SOCK" send-keys -t 0 "$@"; }
screen() { tmux -L "$SOCK" capture-pane -p -t 0; }
twait() { for _ in $(seq 300); do screen | grep -q -- "$1" && return 0; sleep 0.1; done; screen >&2; fail "'$1' never on the screen"; }
tsend "PS1='$ '; clear" Enter
sleep 0.3
run_args c1 >"$T/c1.sh"
tsend "sh $T/c1.sh; echo EXIT=\$?" Enter
: >"$T/samples"
for _ in $(seq 200); do
    screen >"$T/s"
    cat "$T/s" >>"$T/samples"
    echo "----" >>"$T/samples"
    grep -q '^EXIT=' "$T/s" && break
    sleep 0.25
done
grep -q '^EXIT=0' "$T/s" || { cat "$T/s" >&2; fail "install on the terminal did not succeed"; }
cp "$T/samples" /tmp/progress-samples.txt 2>/dev/null || true

# the live line: both stages side by side, a real rate, an ETA before the end
grep -E '^download \[[#.]{20}\] +[0-9]+%  .* \|  unpack ' "$T/samples" >"$T/live" ||
    fail "no live line with download and unpack side by side: $(grep -m3 download "$T/samples")"
"$PY" - "$T/live" <<'PY' || fail "rate / ETA of the live line (above)"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
ok_rate = ok_eta = 0
for l in lines:
    m = re.match(r"download \[[#.]+\] +(\d+)%  ([\d.]+ \w+) / ([\d.]+ \w+)  ([\d.]+) (KiB|MiB)/s  ETA (\d+):(\d\d)", l)
    if not m:
        continue
    pct, rate, unit = int(m.group(1)), float(m.group(4)), m.group(5)
    mib = rate / 1024 if unit == "KiB" else rate
    eta = int(m.group(6)) * 60 + int(m.group(7))
    if 0.6 <= mib <= 1.6:
        ok_rate += 1
    if 20 <= pct <= 70 and eta >= 1:
        ok_eta += 1
if not (ok_rate and ok_eta):
    print("\n".join(lines), file=sys.stderr)
    print("rate near 1 MiB/s: %d lines, ETA >= 1 s at 20-70%%: %d lines" % (ok_rate, ok_eta), file=sys.stderr)
    sys.exit(1)
PY
# every screen line is a known one: no leftovers of an overwritten stage, no bare "B / B" bars
"$PY" - "$T/samples" <<'PY' || fail "a garbled line on the screen (above)"
import re, sys
ok = [r"^\$( |$)", r"^----$", r"^$", r"^EXIT=\d+$",
      r"^download \[[#.]{20}\] +\d+%  [\d.]+ \w+ / [\d.]+ \w+  ([\d.]+ \w+/s  ETA \d+:\d\d)?( {2}\|  unpack +[\d.]+ \w+(  [\d.]+ \w+/s)?)?$",
      r"^unpack +[\d.]+ \w+(  [\d.]+ \w+/s)?$",
      r"^download  [\d.]+ \w+ in [\d.]+ s( \([\d.]+ \w+/s\))?$",
      r"^unpack    [\d.]+ \w+ in [\d.]+ s( \([\d.]+ \w+/s\))?$",
      r"^commit    \d+ files in [\d.]+ s$",
      r"^verify    sha256 [0-9a-f]{64}, \d+ bytes \(matches\)$",
      r"^cuDNN |^  (source|sha256|result|receipt|ldconfig|flavor) "]
bad = [l for l in open(sys.argv[1]).read().splitlines() if not any(re.match(p, l) for p in ok)]
if bad:
    print("\n".join(bad[:10]), file=sys.stderr)
    sys.exit(1)
PY
for st in download verify unpack commit; do
    grep -Eq "^$st +.*( in [0-9.]+ s|matches)" "$T/s" || { cat "$T/s" >&2; fail "no final '$st' line"; }
done
! grep -q 'prepare' "$T/samples" || fail "an internal stage name (prepare) on the screen"
[ "$(grep -c '^download  ' "$T/s")" = 1 ] || fail "the download's final line is not there once"

# ---- SIGINT in the middle: the line is ended before the process dies --------------------------------------
# (sent to cudnnctl alone; without the newline the shell's job notice lands on the progress line)
tsend "clear" Enter
sleep 0.3
echo "exec $(run_args c2)" >"$T/c2.sh"
tsend "sh $T/c2.sh & echo \$! >$T/pid; wait; echo AFTER" Enter
twait '^download \[.*ETA'
kill -INT "$(cat "$T/pid")"
twait '^AFTER' # the line echo prints, not the command line that names it
screen >"$T/int"
grep -q '^AFTER' "$T/int" || { cat "$T/int" >&2; fail "after SIGINT AFTER does not start a line"; }
# the progress line ends with its own text: the shell's "[1]+ Interrupt" notice starts a new line
grep '^download \[' "$T/int" | grep -Eq '(/s|[0-9] B|ETA [0-9]+:[0-9][0-9])$' ||
    { cat "$T/int" >&2; fail "after SIGINT the progress line was left open (the next output went onto it)"; }

# ---- TERM=dumb on a terminal, and a pipe: one plain line per stage, no redraws --------------------------------
for mode in dumb pipe; do
    rm -rf "$T/c3" "$T/state-c3" "$T/r/opt/px-c3"
    if [ $mode = dumb ]; then
        TERM=dumb "$PY" -c 'import os, pty, sys; sys.exit(os.waitstatus_to_exitcode(pty.spawn(sys.argv[1:], lambda fd: os.read(fd, 65536))))' \
            bash -c "$(run_args c3) 2>&1" >"$T/$mode.out" || fail "install under TERM=dumb"
    else
        bash -c "$(run_args c3)" >"$T/$mode.out" 2>&1 || fail "install into a pipe"
    fi
    ! tr '\n' '@' <"$T/$mode.out" | tr -d '\r@' | grep -q $'\033' || fail "$mode: escape sequences"
    ! sed 's/\r$//' "$T/$mode.out" | grep -q $'\r' || fail "$mode: \\r redraws"
    for st in download verify unpack commit; do
        grep -Eq "^$st +.*( in [0-9.]+ s|matches)" <(tr -d '\r' <"$T/$mode.out") || { cat "$T/$mode.out" >&2; fail "$mode: no '$st' line"; }
    done
done
echo "ok: live line, rate, ETA, stage lines, Ctrl-C, TERM=dumb and pipe"
