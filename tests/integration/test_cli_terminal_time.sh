#!/usr/bin/env bash
# test_cli_terminal_time.sh: a run in a real terminal (tmux) takes no longer than the same run
# without one (within 5 s): a prefix install (no --root, so its effective check runs, with the
# login-shell probe) and `env --persist` (the same probe). Issue 21 measured 60 s more in tmux:
# the probe `bash -lic` was stopped by SIGTTOU and waited for. The fix is the lead's (issue 18,
# the login-shell probe); until it is merged this test fails, by design.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
command -v tmux >/dev/null || { echo "tmux missing (scripts/bootstrap)" >&2; exit 77; }
command -v bash >/dev/null || exit 77
T=$(mktemp -d)
SOCK=cc-ttime-$$
trap 'tmux -L "$SOCK" kill-server 2>/dev/null || true; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$SOURCE_DIR/tests/integration/cli_lib.sh"
V=9.97.0.12
cli_make_archive "$T/www" $V
A=$T/www/cudnn/linux-x86_64/cudnn-linux-x86_64-${V}_cuda13-archive.tar.xz
SHA=$(sha256sum "$A" | cut -d' ' -f1)
mkdir -p "$T/home-tty" "$T/home-plain"
# one script per case: it times itself (wall clock, ms) and records the exit code
mkscript() { # NAME HOME CMD...
    local name=$1 home=$2
    shift 2
    {
        echo "export HOME=$home XDG_CONFIG_HOME=$home/.config XDG_STATE_HOME=$home/.state XDG_CACHE_HOME=$home/.cache SHELL=/bin/bash"
        echo "t0=\$(date +%s%3N)"
        printf '%q ' "$@"
        echo ">$T/$name.out 2>&1; echo \$? >$T/$name.rc"
        echo "echo \$(( \$(date +%s%3N) - t0 )) >$T/$name.ms"
    } >"$T/$name.sh"
}
for where in tty plain; do
    H=$T/home-$where
    mkscript install-$where "$H" "$CUDNNCTL" --no-progress --cache-dir "$T/c-$where" --state-dir "$T/s-$where" \
        install --cuda 13 --prefix "$T/px-$where" --archive "$A" --sha256 "$SHA" --no-validate
    mkscript persist-$where "$H" "$CUDNNCTL" --no-progress --state-dir "$T/s-$where" env --persist --shell bash \
        --prefix "$T/px-$where"
done
tmux -L "$SOCK" new-session -d -x 120 -y 30 "env -i PATH=$PATH TERM=xterm-256color bash --norc --noprofile"
tmux -L "$SOCK" send-keys -t 0 "bash $T/install-tty.sh; bash $T/persist-tty.sh; echo DO''NE" Enter
for _ in $(seq 1500); do
    tmux -L "$SOCK" capture-pane -p -t 0 | grep -q '^DONE' && break
    sleep 0.2
done
[ -s "$T/persist-tty.ms" ] || fail "the runs in tmux did not finish within 300 s"
# the same without a terminal: a new session, stdin and outputs not a tty
setsid bash "$T/install-plain.sh" </dev/null >/dev/null 2>&1
setsid bash "$T/persist-plain.sh" </dev/null >/dev/null 2>&1
for c in install persist; do
    for where in tty plain; do
        [ "$(cat "$T/$c-$where.rc")" = 0 ] || { cat "$T/$c-$where.out" >&2; fail "$c ($where) exited $(cat "$T/$c-$where.rc")"; }
    done
    tty=$(cat "$T/$c-tty.ms") plain=$(cat "$T/$c-plain.ms")
    echo "$c: ${tty} ms in tmux, ${plain} ms without a terminal"
    [ "$tty" -le $((plain + 5000)) ] ||
        { cat "$T/$c-tty.out" >&2; fail "$c took ${tty} ms in a terminal, ${plain} ms without one (more than 5 s apart)"; }
done
[ -e "$T/px-tty/current/lib/libcudnn.so.9" ] && [ -e "$T/px-plain/current/lib/libcudnn.so.9" ] || fail "an install put nothing in its prefix"
grep -rq cudnnctl "$T/home-tty/.bashrc" "$T/home-tty/.bash_profile" "$T/home-tty/.profile" "$T/home-tty/.config" 2>/dev/null ||
    fail "env --persist in tmux wired nothing in its HOME"
echo "ok: no terminal stall (install, env --persist)"
