#!/usr/bin/env bash
# test_rootsafe_env_tty.sh (issue 18 item 6): the login-shell probe has no controlling terminal.
# In a real terminal the probe's `bash -lic` ran in a background process group of the user's
# terminal, stopped on SIGTTOU, and every interactive install waited the probe's 60 s, then warned
# "a new login shell loads no libcudnn.so.9 (exit -1)" (60.1 s in tmux against 0.18 s without a
# terminal). The same install, once without a terminal and once in a tmux pane (a pty that is the
# command's controlling terminal): within 5 s of each other, and the login scope really ran (it
# mapped a file; no exit -1).
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
command -v tmux >/dev/null && command -v bash >/dev/null || { echo "no tmux / bash"; exit 77; }
T=$(mktemp -d /tmp/cudnnctl-rootsafe-tty.XXXXXX)
SOCK=cudnnctl-tty-$$-$RANDOM
trap 'tmux -L "$SOCK" kill-server >/dev/null 2>&1 || true; rm -rf "$T"' EXIT
unset LD_LIBRARY_PATH CUDNNCTL_ENV CUDA_HOME CUDA_PATH
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config
mkdir -p "$HOME"
A=$(make_archive "$T" 9.19.0.99 "libcudnn" tiny)
cat >"$T/run.sh" <<EOF
#!/bin/bash
# run.sh TAG: the install, timed; its JSON, stderr, exit code and milliseconds under $T/TAG.*
start=\$(date +%s%N)
"$CUDNNCTL" --state-dir "$T/state-\$1" --cache-dir "$T/cache" install --prefix "$T/p-\$1" \\
    --archive "$A" --insecure-skip-verify --no-validate --no-ldconfig --json >"$T/\$1.json" 2>"$T/\$1.err"
rc=\$?
echo \$(( (\$(date +%s%N) - start) / 1000000 )) >"$T/\$1.ms"
echo \$rc >"$T/\$1.rc.tmp" && mv "$T/\$1.rc.tmp" "$T/\$1.rc"
EOF
chmod +x "$T/run.sh"

setsid bash "$T/run.sh" notty </dev/null >/dev/null 2>&1
[ "$(cat "$T/notty.rc")" = 0 ] || fail "install without a terminal: $(cat "$T/notty.err")"

tmux -L "$SOCK" -f /dev/null new-session -d -x 200 -y 50 "bash '$T/run.sh' tty; sleep 600"
for _ in $(seq 1200); do [ -f "$T/tty.rc" ] && break; sleep 0.1; done
[ -f "$T/tty.rc" ] || fail "the install in the tmux pane did not finish within 120 s (stopped on SIGTTOU?)"
[ "$(cat "$T/tty.rc")" = 0 ] || fail "install in a terminal: $(cat "$T/tty.err")"
# the pane really was a terminal for it: the login probe is what differed
tmux -L "$SOCK" -f /dev/null new-window -d "tty >'$T/tty.name' 2>&1"
for _ in $(seq 50); do [ -s "$T/tty.name" ] && break; sleep 0.1; done
grep -q '^/dev/pts/' "$T/tty.name" || fail "the tmux pane has no pty: $(cat "$T/tty.name")"

a=$(cat "$T/notty.ms") b=$(cat "$T/tty.ms")
echo "install --prefix: ${a} ms without a terminal, ${b} ms in a tmux pane"
[ $((b - a)) -le 5000 ] || fail "in a terminal the install took ${b} ms against ${a} ms without one"
for tag in notty tty; do
    ! grep -q "exit -1" "$T/$tag.err" || fail "$tag: the login probe timed out: $(grep 'login shell' "$T/$tag.err")"
    python3 - "$T/$tag.json" "$tag" <<'PY' || fail "$tag: the login scope did not run"
import json, sys
e = json.load(open(sys.argv[1]))["effective_load"]
login = [x for x in e if x["scope"] == "login"]
assert login and login[0]["mapped"] and not login[0]["not_run"], e
print(sys.argv[2] + ": the login scope maps", login[0]["mapped"])
PY
done
echo "ok"
